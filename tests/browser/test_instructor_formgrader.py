"""An instructor's day in nbgrader's formgrader, in a real browser: `make formgrader` on a graded class.

A learner's notebook 01 with the suite's wrong answer is graded by `autograder grade` (in the
background while the learner's day runs), then `make formgrader GRADED=OUT` serves the course:
the ten assignments, the graded submission's score, and its feedback page naming the mistake.
Screenshots: build/screenshots/instructor-NN-*.png.
"""
import json
import subprocess

from types import SimpleNamespace

import pytest

from tests.browser.answers import ASSIGNMENT, WRONG_ID
from tests.browser.jupyter_servers import ROOT, Screens, Server, open_page
from tests.course_files import ASSIGNMENTS

STUDENT = "learner"  # as in conftest's grading fixture
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step


@pytest.fixture(scope="module")
def graded(grading):
    """The finished grading run: OUT and its records for the student."""
    try:
        code = grading["process"].wait(timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail("autograder grade took more than 5 minutes")
    log = grading["log"].read_text(errors="replace")
    assert code == 0, f"autograder grade failed ({code}):\n{log[-3000:]}"
    records = [r for r in json.loads((grading["out"] / "results.json").read_text()) if r["student"] == STUDENT]
    assert records, log[-3000:]
    return grading["out"], records


@pytest.fixture(scope="module")
def formgrader(graded, grading):
    out, _ = graded
    existed = (ROOT / "gradebook.db").exists()
    server = Server("formgrader", {"GRADED": out, "SUBMITTED": grading["submitted"]}, "FORMGRADER_ARGS", grading["home"])
    server.start()
    yield server
    server.stop()
    if not existed:
        assert not (ROOT / "gradebook.db").exists(), "formgrader made a gradebook.db in the repository, not in GRADED"


@pytest.fixture(scope="module")
def instructor(chromium, formgrader):
    errors = []
    page = open_page(chromium, errors)
    CURRENT_PAGE["page"] = page
    yield SimpleNamespace(page=page, errors=errors, screens=Screens("instructor"))
    CURRENT_PAGE.clear()
    page.close()


def table_rows(page):
    """The rows of formgrader's table, each as a list of its cells' texts, once the table has loaded."""
    page.locator("table tbody tr").first.wait_for()
    page.wait_for_function("() => !document.querySelector('table tbody').textContent.includes('Loading')")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in page.locator("table tbody tr").all()]


def score_text(records):
    points, most = sum(r["points"] for r in records), sum(r["max_points"] for r in records)
    number = lambda x: f"{x:g}"  # noqa: E731 - formgrader shows 2 / 7, not 2.0 / 7.0
    return points, most, f"{number(points)} / {number(most)}"


def test_formgrader_opens_on_the_course_and_lists_the_ten_assignments(formgrader, instructor):
    page, errors, screens = instructor.page, instructor.errors, instructor.screens
    page.goto(formgrader.url("/"))
    page.wait_for_url("**/formgrader/manage_assignments**")
    rows = table_rows(page)
    names = [row[0] for row in rows if row and row[0] in ASSIGNMENTS]
    assert names == ASSIGNMENTS, f"formgrader lists {[row[0] for row in rows]}"
    submissions = {row[0]: row[8] for row in rows if len(row) > 8}
    assert submissions[ASSIGNMENT] == "1", f"{ASSIGNMENT} shows {submissions[ASSIGNMENT]!r} submissions, not 1"
    text = page.locator("body").inner_text()
    for trouble in ("No nbgrader_config.py", "does not exist", "Error", "500"):
        assert trouble not in text, f"formgrader's page says {trouble!r}:\n{text[:2000]}"
    assert not [e for e in errors if "favicon" not in e], f"the browser console shows errors: {errors}"
    screens.take(page, "manage-assignments", full_page=True)


def test_formgrader_shows_the_graded_submission_and_its_score(formgrader, graded, instructor):
    page, errors, screens = instructor.page, instructor.errors, instructor.screens
    out, records = graded
    points, most, shown = score_text(records)
    assert 0 < points < most, f"the wrong answer should lose some points, not all: {points} / {most}"
    page.goto(formgrader.url("/formgrader/manage_students"))
    rows = {row[1]: row for row in table_rows(page) if len(row) > 3}
    assert STUDENT in rows, f"the graded student is not listed: {list(rows)}"
    assert shown in rows[STUDENT][3], f"the student's score reads {rows[STUDENT][3]!r}, results.json says {shown}"
    screens.take(page, "manage-students")
    page.goto(formgrader.url("/formgrader/gradebook"))
    rows = {row[0]: row for row in table_rows(page) if row}
    assert shown in rows[ASSIGNMENT][-1], f"Manual Grading shows {rows[ASSIGNMENT]} for {ASSIGNMENT}"
    screens.take(page, "manual-grading")


def test_the_feedback_names_the_mistake_and_hides_the_tests(graded, instructor):
    page, errors, screens = instructor.page, instructor.errors, instructor.screens
    out, records = graded
    points, most, _ = score_text(records)
    feedback = out / "feedback" / STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert feedback.is_file(), f"no feedback page at {feedback}"
    page.goto(feedback.as_uri())
    text = page.locator("body").inner_text()
    assert f"Score: {float(points)} / {float(most)}" in text, f"the feedback does not show the score:\n{text[:1000]}"
    message = page.locator("pre", has_text=WRONG_ID)
    assert message.count() >= 1, f"the feedback does not name {WRONG_ID} in an output"
    assert "BEGIN HIDDEN TESTS" not in text and "check(" not in text, "the feedback shows hidden test code"
    message.first.scroll_into_view_if_needed()
    screens.take(page, "feedback")
