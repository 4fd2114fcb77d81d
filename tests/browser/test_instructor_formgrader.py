"""An instructor's day in nbgrader's formgrader, in a real browser: `make formgrader` on a graded class.

A learner's notebook 01 with the suite's wrong answer is graded by `autograder grade` (in the
background while the learner's day runs), then `make formgrader GRADED=OUT` serves the course:
the ten assignments, the graded submission's score, and its feedback page naming the mistake; then the
drill-down: the student's notebook with its score, the autograded notebook with the learner's outputs and
each graded cell's score, a manual score and a flag that change the total and survive a rerun. Then (issue 36): a
direct link to a submission with ?token= in a browser that has never seen the server, where a manual score is
saved; the roster's names in the student table, and Hangul drawn with the course's font (this machine has none).
Screenshots: build/screenshots/instructor-NN-*.png.
"""
import json
import sqlite3
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.browser.answers import ASSIGNMENT, WRONG_ID
from tests.browser.jupyter_servers import ROOT, VIEWPORT, Screens, Server, open_page
from tests.course_files import ASSIGNMENTS

STUDENT = "learner"  # as in conftest's grading fixture
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
MATHJAX_STUB = "window.MathJax = {Hub: {Config() {}, Queue() {}, Startup: {signal: {Interest() {}}}}};"


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
    # formgrader's grading page loads MathJax 2 from its CDN, which this (offline) machine cannot reach; without it
    # formgrade.js stops half-way (no keyboard shortcuts, such as the flag's). A stub stands in for the CDN's file.
    page.route("**/ajax/libs/mathjax/**", lambda route: route.fulfill(content_type="application/javascript", body=MATHJAX_STUB))
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
    # as the README says: the course's notebooks draw their figures outside grading only
    figures = page.locator("img[src^='data:image/png']").count()  # (the learner's own <img> is not a figure)
    assert figures == 0, f"the feedback shows {figures} figure(s): the README says it shows none"
    message.first.scroll_into_view_if_needed()
    screens.take(page, "feedback")


def lost_record(records):
    """The first graded cell the wrong answer lost points on."""
    return next(r for r in records if r["points"] < r["max_points"])


def open_student_notebooks(formgrader, page):
    """The student's page of the assignment (Manage Students, the student, the assignment): its table's rows."""
    page.goto(formgrader.url(f"/formgrader/manage_students/{STUDENT}"))
    assignments = {row[0]: row for row in table_rows(page) if row}
    assert ASSIGNMENT in assignments, f"the student's page lists {list(assignments)}, not {ASSIGNMENT}"
    page.locator("table tbody a", has_text=ASSIGNMENT).first.click()
    page.wait_for_url(f"**/formgrader/manage_students/{STUDENT}/{ASSIGNMENT}**")
    return {row[0]: row for row in table_rows(page) if row}


def open_submission(formgrader, page, records):
    """The autograded notebook as formgrader shows it, once every graded cell's score has loaded."""
    open_student_notebooks(formgrader, page)
    page.locator("table tbody a", has_text=ASSIGNMENT).first.click()
    page.wait_for_url("**/formgrader/submissions/**")
    for r in records:
        page.locator(f'input.score[id="{r["grade_id"]}"][placeholder]').wait_for(state="attached")
    page.wait_for_load_state("networkidle")


def test_the_students_page_lists_the_notebook_with_its_score(formgrader, graded, instructor):
    page, screens = instructor.page, instructor.screens
    _, records = graded
    _, _, shown = score_text(records)
    page.goto(formgrader.url(f"/formgrader/manage_students/{STUDENT}"))
    row = {row[0]: row for row in table_rows(page) if row}[ASSIGNMENT]
    assert shown in row[1], f"the student's page shows {row} for {ASSIGNMENT}, results.json says {shown}"
    notebooks = open_student_notebooks(formgrader, page)
    assert ASSIGNMENT in notebooks, f"the assignment's page lists {list(notebooks)} (not autograded, or file missing)"
    assert notebooks[ASSIGNMENT][1] == shown, f"{ASSIGNMENT} reads {notebooks[ASSIGNMENT]}, results.json says {shown}"
    screens.take(page, "student-notebooks")
    page.goto(formgrader.url(f"/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}"))
    rows = [row for row in table_rows(page) if len(row) > 2]  # "No data available in table" is one cell
    assert len(rows) == 1 and "Submission #1" in rows[0][1] and rows[0][2] == shown, \
        f"Manual Grading of {ASSIGNMENT} lists {rows}"
    screens.take(page, "manual-grading-notebook")


def test_the_submission_shows_the_autograded_notebook_with_outputs_and_scores(formgrader, graded, instructor):
    page, errors, screens = instructor.page, instructor.errors, instructor.screens
    _, records = graded
    open_submission(formgrader, page, records)
    for r in records:
        box = page.locator(f'input.score[id="{r["grade_id"]}"]')
        assert float(box.get_attribute("placeholder")) == r["points"], \
            f"{r['grade_id']}: formgrader shows {box.get_attribute('placeholder')!r}, results.json says {r['points']}"
    text = page.locator("body").inner_text()
    assert "X: (6, 3) = (L, d_k)" in text, "the learner's printed output is not shown"  # printed by notebook 01's code
    lost = page.locator(".cell", has=page.locator(f'input.score[id="{lost_record(records)["grade_id"]}"]'))
    assert WRONG_ID in lost.inner_text(), f"the graded cell does not show the grader's message {WRONG_ID}"
    # The learner's added cells (conftest's HOSTILE_*): their HTML is shown, their script never runs.
    assert "My notes" in text and "hostile output" in text, "the learner's added cells are not shown"
    assert page.evaluate("window.pwned") is None, f"the learner's script ran in formgrader: {page.evaluate('window.pwned')!r}"
    assert not [e for e in errors if "favicon" not in e], f"the browser console shows errors: {errors}"
    lost.scroll_into_view_if_needed()
    screens.take(page, "submission")


def test_manual_grading_of_one_cell_changes_the_total_and_persists(formgrader, graded, grading, instructor):
    page, screens = instructor.page, instructor.screens
    out, records = graded
    lost = lost_record(records)
    points, most, _ = score_text(records)
    open_submission(formgrader, page, records)
    box = page.locator(f'input.score[id="{lost["grade_id"]}"]')
    box.fill(f"{lost['max_points']:g}")
    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
        box.blur()  # formgrader saves a score when its box loses focus
    assert saved.value.ok, f"formgrader did not save the score: {saved.value.status}"
    with page.expect_response(lambda r: r.url.endswith("/flag") and r.request.method == "POST") as flagged:
        page.locator("body").press("Control+Shift+F")  # formgrader's shortcut: flag the submission
    assert flagged.value.ok and flagged.value.json()["flagged"], "the submission was not flagged"
    page.reload()
    page.locator(f'input.score[id="{lost["grade_id"]}"][placeholder]').wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    assert float(box.input_value() or "nan") == lost["max_points"], f"the manual score did not persist: {box.input_value()!r}"
    screens.take(page, "manual-score")
    expected = f"{points + lost['max_points'] - lost['points']:g} / {most:g}"
    notebooks = open_student_notebooks(formgrader, page)
    assert notebooks[ASSIGNMENT][1] == expected, f"after the manual score {ASSIGNMENT} reads {notebooks[ASSIGNMENT]}, not {expected}"
    assert page.locator("table tbody td.flagged .glyphicon-flag").count() == 1, "the flag is not shown"
    screens.take(page, "student-notebooks-after-manual-grade")
    # The same grading command again (a resume): the instructor's score and flag stay, results.json does not change.
    rerun = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "autograder", "grade", str(grading["submitted"]),
                            "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert [r for r in json.loads((out / "results.json").read_text()) if r["student"] == STUDENT] == records
    notebooks = open_student_notebooks(formgrader, page)
    assert notebooks[ASSIGNMENT][1] == expected, f"after a rerun {ASSIGNMENT} reads {notebooks[ASSIGNMENT]}, not {expected}"
    assert page.locator("table tbody td.flagged .glyphicon-flag").count() == 1, "the rerun lost the flag"


def submission_id(out):
    """The gradebook's id of the student's notebook: what a link to its formgrader page holds."""
    with sqlite3.connect(out / "gradebook.db") as db:
        (found,) = db.execute("select n.id from submitted_notebook n join submitted_assignment a on n.assignment_id = "
                              "a.id where a.student_id = ?", (STUDENT,)).fetchall()
    return found[0]


def test_a_direct_link_with_the_token_grades_manually(formgrader, graded, chromium):
    """A link to the submission, with ?token=, opened in a browser that has never seen the server (a new context:
    no cookie): the scores load and a typed score is saved. nbgrader's page set the login cookie for its own
    folder only, so its grades API answered 302 and the score was dropped without a word."""
    out, records = graded
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.route("**/ajax/libs/mathjax/**", lambda route: route.fulfill(content_type="application/javascript", body=MATHJAX_STUB))
    CURRENT_PAGE["page"] = page
    try:
        answers = []
        page.on("response", lambda response: answers.append((response.status, response.url))
                if "/formgrader/api/" in response.url else None)
        page.goto(formgrader.url(f"/formgrader/submissions/{submission_id(out)}"))
        kept = next(r for r in records if r["points"] == r["max_points"])  # a cell the learner got right
        box = page.locator(f'input.score[id="{kept["grade_id"]}"]')
        page.locator(f'input.score[id="{kept["grade_id"]}"][placeholder]').wait_for(state="attached", timeout=30_000)
        assert float(box.get_attribute("placeholder")) == kept["points"]
        box.fill(f"{kept['max_points']:g}")
        with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
            box.blur()
        assert saved.value.ok, f"the score was not saved: {saved.value.status}"
        assert not [a for a in answers if a[0] >= 300], f"formgrader's API refused the page: {answers}"
        Screens("instructor-direct-link").take(page, "manual-score")
        page.reload()
        page.locator(f'input.score[id="{kept["grade_id"]}"][placeholder]').wait_for(state="attached")
        page.wait_for_load_state("networkidle")
        assert float(box.input_value() or "nan") == kept["max_points"], f"the score did not persist: {box.input_value()!r}"
    finally:
        CURRENT_PAGE.clear()
        context.close()


ROSTER = "student_id,Student,ID\n" + STUDENT + ',"김, 민준",1001\n'


def test_the_rosters_names_in_the_student_table_with_hangul_drawn(formgrader, graded, instructor, tmp_path):
    page, screens = instructor.page, instructor.screens
    out, records = graded
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    report = subprocess.run([sys.executable, "-m", "autograder", "report", str(out), "--roster", str(tmp_path / "roster.csv")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    page.goto(formgrader.url("/formgrader/manage_students"))
    rows = {row[1]: row for row in table_rows(page) if len(row) > 3}
    assert rows[STUDENT][0] == "김, 민준", f"the student table shows {rows[STUDENT][0]!r}, the roster says 김, 민준"
    page.evaluate("document.fonts.ready")
    faces = page.evaluate("Array.from(document.fonts).map(face => [face.family, face.status])")
    assert ["Course Hangul", "loaded"] in faces, f"formgrader's page did not use the course's Korean font: {faces}"
    drawn = page.evaluate("""() => {
        const canvas = document.createElement('canvas'); canvas.width = 40; canvas.height = 40;
        const pen = canvas.getContext('2d');
        const draw = (font, ch) => { pen.clearRect(0, 0, 40, 40); pen.font = font; pen.fillText(ch, 0, 30);
                                     return Array.from(pen.getImageData(0, 0, 40, 40).data).join(','); };
        const plain = '24px Helvetica, Arial, sans-serif', page = '24px "Course Hangul", ' + plain.slice(5);
        return Array.from('김민준').map(ch => draw(page, ch) !== draw(plain, ch) && draw(page, ch) !== draw(page, '\ud7a3'));
    }""")
    assert all(drawn), f"Hangul of the student's name not drawn with the course's font: {drawn}"
    screens.take(page, "manage-students-korean-name")
