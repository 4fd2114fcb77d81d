"""A class on JupyterHub (`make hub`), in Chromium: an instructor and two students, nbgrader's exchange end to end.

One hub for the whole module, started with the Makefile's own command as root, on free localhost ports,
with a class of three system users that the module creates (and removes afterwards; tests/browser/hub_fixtures.py,
shared with the live view's test): the instructor
``hubteacher``, ``hubminji`` on the Korean edition and ``hubbob`` at the challenge level. The loop is the
one nbgrader documents for JupyterHub, played through the hub's pages: the instructor logs in to formgrader
and releases 01-attention in every edition (JupyterLab's terminal, as an instructor would), each student
logs in, fetches it in the Assignment List, answers (minji right, bob with the missing 1/sqrt(d_k)), runs
Validate and submits; the instructor collects and grades with `autograder grade`, then in formgrader
(issue 46) sees both students' scores, types a score into bob's notebook, sees minji's Korean notebook drawn in
the course's font, and presses Generate Feedback, which writes the pages again with that score; then releases
them with nbgrader's release_feedback; each student fetches their own page, with formgrader's score. The
instructor's terminal commands are the README's, read from it and run as written (``readme_commands``). Then a
student tries to read the other's work and the solutions through the hub: the other's server, the exchange,
their home, the course's folders (a terminal), the instructor's formgrader.

The users' servers run this repository's hub environment and learner_kit as those users: where the
repository lies in a folder that other users may not enter (a clone in a private folder), the test lets
them enter it (o+x, not list) while the hub runs and restores its mode afterwards; `make hub` itself
refuses to start there and says why (hub/prepare.py).

Every step saves a screenshot (build/screenshots/hub-NN-*.png); the hub's start and the whole loop's
times are printed and written to build/screenshots/hub-timings.json.
"""
import itertools
import json
import os
import pwd
import re
import subprocess
import time
from html import unescape

import pytest

from tests.browser import hub_fixtures
from tests.browser.answers import ASSIGNMENT, RIGHT, UNIT, WRONG, WRONG_ID
from tests.browser.hub_fixtures import (
    log_in,
    open_assignment_list,
    row,
    run_in_terminal,
    shown,
)
from tests.browser.jupyter_servers import ROOT
from tests.browser.test_instructor_formgrader import MATHJAX_STUB, table_rows
from tests.browser.test_learner_lab import close_dialog, code_cell, type_into

# the class (read by the hub's fixtures, tests/browser/hub_fixtures.py)
TEACHER = "hubteacher"
STUDENTS = {"hubminji": "ko", "hubbob": "en-challenge"}
PREFIX = "hub"  # build/screenshots/hub-NN-*.png, hub.log, hub-timings.json
TIMES = {}
CURRENT_PAGE = hub_fixtures.CURRENT_PAGE  # for conftest's screenshot of a failed step
COURSE_OF = {"hubminji": "transformer-ko", "hubbob": "transformer-challenge"}
# each course of the exchange, and the language and level of what it releases (the notebooks' metadata)
COURSES = {"transformer": ("en", "guided"), "transformer-ko": ("ko", "guided"),
           "transformer-challenge": ("en", "challenge"), "transformer-ko-challenge": ("ko", "challenge")}
# minji's answer carries this line, so that her work is recognised wherever it would leak
MARKER = "# hubminji-private-answer-36"
ANSWERS = {"hubminji": f"{MARKER}\n{RIGHT}", "hubbob": WRONG}
GROUP = "transformer-instructors"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"


def validate(page):
    """Press nbgrader's Validate button; the dialog (left open), whose title is in the lab's language."""
    page.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=180_000)
    title = dialog.locator(".jp-Dialog-header").inner_text()
    assert re.search("Validation Results|검증 결과", title), f"Validate opened {title!r}: {dialog.inner_text()[:500]}"
    return dialog


def readme_commands():
    """The instructor's terminal commands in the README's hub section (the code block that releases), as written:
    {what each does: the line}. The test runs these lines, so that the README is what the test does."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Running a class on JupyterHub", 1)[1]
    lines = section.split("\n## ", 1)[0].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("      ") and "release_assignment" in line)
    block = [line.strip() for line in itertools.takewhile(lambda line: line.startswith("      "), lines[start:])]
    commands = [line for line in block if not line.startswith("#")]
    kinds = ["release_assignment", "collect", "autograder grade", "release_feedback"]
    found = {kind: [line for line in commands if kind in line] for kind in kinds}
    assert all(len(lines) == 1 for lines in found.values()) and len(commands) == len(kinds), \
        f"the README's instructor commands are not the four the test runs ({kinds}): {block}"
    return {kind: lines[0] for kind, lines in found.items()}


def readme_script(*kinds):
    """The README's lines of ``kinds``, run in the instructor's terminal; `set -e`: a course whose command fails in
    the middle of a loop fails the step (the loop's own status is its last course's)."""
    commands = readme_commands()
    return "set -e; " + "; ".join(commands[kind] for kind in kinds)


def teacher_formgrader(hub, people, path):
    """The instructor's page at formgrader's ``path``. formgrader's grading page loads MathJax 2 from a CDN that this
    offline machine cannot reach (formgrade.js then stops half-way): a stub stands in for it, as in
    test_instructor_formgrader.py."""
    page = shown(people.hubteacher)
    if not getattr(page, "mathjax_stubbed", False):
        page.route("**/ajax/libs/mathjax/**", lambda route: route.fulfill(content_type="application/javascript",
                                                                          body=MATHJAX_STUB))
        page.mathjax_stubbed = True
    page.goto(f"{hub.base}/user/{TEACHER}/formgrader/{path}")
    return page


def graded_records(people):
    """{student: their records} of results.json in the instructor's graded/ (the README's --out)."""
    records = json.loads((people.hubteacher.home / "graded" / "results.json").read_text(encoding="utf-8"))
    return {student: [r for r in records if r["student"] == student] for student in STUDENTS}


def score(records, changed=None):
    """(points, most) of ``records``, with ``changed`` ({grade_id: points}) in place of what the grader gave."""
    changed = changed or {}
    return (sum(changed.get(r["grade_id"], r["points"]) for r in records), sum(r["max_points"] for r in records))


def page_score(page):
    """The score a feedback page gives at its top, "01-attention (Score: 2.0 / 7.0)" (in the page's language), as
    (points, most), or None."""
    text = unescape(re.sub(r"<[^>]+>", "", page))
    found = re.search(rf"{ASSIGNMENT} \([^()\d]*?(\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)\)", text)
    return (float(found[1]), float(found[2])) if found else None


def hidden_tests(page):
    """Whether a feedback page shows the hidden tests: their markers or a line of them, in the page's text (its code
    is highlighted, one <span> a token). nbgrader's own generate_feedback shows them (its autograded notebook has them)."""
    text = unescape(re.sub(r"<[^>]+>", "", page))
    return "BEGIN HIDDEN TESTS" in text or f'check("{UNIT}", {UNIT}' in text


def open_submission(hub, people, student):
    """formgrader's page of ``student``'s autograded notebook (Manage Students, the student, the assignment, the
    notebook), once every graded cell's score has loaded."""
    page = teacher_formgrader(hub, people, f"manage_students/{student}/{ASSIGNMENT}")
    rows = table_rows(page)
    assert [row[0] for row in rows if row] == [ASSIGNMENT], f"{student}'s graded notebooks in formgrader: {rows}"
    page.locator("table tbody a", has_text=ASSIGNMENT).first.click()
    page.wait_for_url("**/formgrader/submissions/**")
    for r in graded_records(people)[student]:
        page.locator(f'input.score[id="{r["grade_id"]}"][placeholder]').wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    return page


# ---------------------------------------------------------------- the class, in order

def test_hub_asks_for_a_machine_password(hub, people):
    page = shown(people.hubteacher)
    page.goto(f"{hub.base}/hub/login")
    assert page.locator("input[name=username]").is_visible() and page.locator("input[name=password]").is_visible()
    people.screens.take(page, "login")
    page.locator("input[name=username]").fill(TEACHER)
    page.locator("input[name=password]").fill("not-the-password")
    page.locator("input[type=submit], button[type=submit]").first.click()
    page.locator("input[name=password]").wait_for()
    assert "/user/" not in page.url, "a wrong password logged the instructor in"
    assert re.search(r"(?i)invalid|incorrect", page.content()), "the login page does not say the password was wrong"
    refused = [e for e in people.hubteacher.errors if re.match(r"HTTP 403 .*/hub/login", e)]
    assert refused, f"the hub did not answer the wrong password with 403: {people.hubteacher.errors}"
    people.hubteacher.errors.clear()  # that refusal is the page's one expected error


def test_teacher_logs_in_to_formgrader_of_the_course(hub, people):
    teacher = people.hubteacher
    started = time.monotonic()
    log_in(hub, teacher, "formgrader")
    page = teacher.page
    page.get_by_text("Manage Assignments").first.wait_for(timeout=90_000)
    page.get_by_text(ASSIGNMENT).first.wait_for(timeout=60_000)
    assert page.get_by_text("could not be created").count() == 0, "formgrader does not find the hub's exchange"
    TIMES["teacher: login to formgrader, s"] = round(time.monotonic() - started, 1)
    people.screens.take(page, "teacher-formgrader")
    assert (teacher.home / "ko" / "nbgrader_config.py").is_file()
    groups = subprocess.run(["id", "-nG", TEACHER], capture_output=True, text=True, check=True).stdout.split()
    assert GROUP in groups, f"the instructor is not in {GROUP}: {groups}"


def test_teacher_releases_01_in_every_edition(hub, people):
    TIMES["_loop started"] = time.monotonic()
    teacher = people.hubteacher
    status, output = run_in_terminal(hub, teacher, "release", readme_script("release_assignment"))
    people.screens.take(teacher.page, "teacher-releases")
    assert status == 0, output[-3000:]
    for course, (language, level) in COURSES.items():
        released = hub.exchange / course / "outbound" / ASSIGNMENT / NOTEBOOK
        assert released.is_file(), f"{course}: nothing released in the exchange:\n{output[-2000:]}"
        metadata = json.loads(released.read_text(encoding="utf-8"))["metadata"]
        assert (metadata.get("course_language"), metadata.get("course_level")) == (language, level), \
            f"{course} released another edition's notebook: {metadata}"
        assert "BEGIN SOLUTION" not in released.read_text(encoding="utf-8")
        inbound = hub.exchange / course / "inbound"
        # others may not list it (its mode is hub/prepare.py's; bob's terminal tries to list one, below)
        assert not inbound.stat().st_mode & 0o004, f"{course}'s inbound is {oct(inbound.stat().st_mode)}: anyone could list it"
    # formgrader (the English guided course) sees it released in the hub's exchange
    page = teacher.page
    page.goto(f"{hub.base}/user/{TEACHER}/formgrader")
    page.locator("tr", has_text=ASSIGNMENT).filter(has_text="released").first.wait_for(timeout=60_000)
    people.screens.take(page, "teacher-formgrader-released")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_student_logs_in_and_sees_the_assignment_of_their_edition(hub, people, student):
    person = getattr(people, student)
    started = time.monotonic()
    log_in(hub, person, "lab")
    page = person.page
    page.locator(".jp-LabShell").wait_for(timeout=90_000)
    menu = open_assignment_list(page)
    TIMES[f"{student}: login to the lab and the Assignment List, s"] = round(time.monotonic() - started, 1)
    assert not [item for item in menu if re.search("Formgrader|Create Assignment|Course List", item)], \
        f"the student's Nbgrader menu offers the instructor's tools: {menu}"
    menus = " ".join(page.locator("#jp-menu-panel .lm-MenuBar-itemLabel").all_inner_texts())
    korean = re.search("[\uac00-\ud7a3]", menus) is not None
    assert korean == (STUDENTS[student].startswith("ko")), f"{student}'s lab menus are not in their edition's language: {menus}"
    released = row(page, "released_assignments_list", ASSIGNMENT)
    released.wait_for(timeout=60_000)
    assert COURSE_OF[student] in released.inner_text(), released.inner_text()
    assert page.locator("#released_assignments_list .list_item").count() == 1, "another edition's assignment is offered"
    people.screens.take(page, f"{student}-assignment-list")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_student_fetches_answers_and_validates(hub, people, student):
    person = getattr(people, student)
    page = shown(person)
    row(page, "released_assignments_list", ASSIGNMENT).get_by_role("button", name="Fetch").click()
    fetched = row(page, "fetched_assignments_list", ASSIGNMENT)
    fetched.wait_for(timeout=60_000)
    notebook = person.home / ASSIGNMENT / NOTEBOOK
    assert notebook.is_file(), "the fetched notebook is not in the student's home"
    assert oct(person.home.stat().st_mode & 0o777) == "0o700", "the student's home is readable by others"
    fetched.locator("a", has_text=ASSIGNMENT).first.click()  # unfolds its notebooks
    page.locator("#fetched_assignments_list .nested_list_item a", has_text=ASSIGNMENT).first.click()
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=NOTEBOOK).wait_for(timeout=60_000)
    page.locator("#jp-main-statusbar", has_text=re.compile("Idle|대기")).wait_for(timeout=120_000)  # 대기: the Korean lab
    answer = code_cell(page, person.home, UNIT)
    type_into(page, answer, ANSWERS[student])
    page.keyboard.press("Control+S")
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')", timeout=30_000)
    dialog = validate(page)
    text = dialog.inner_text()
    people.screens.take(page, f"{student}-validate")
    if student == "hubbob":
        assert WRONG_ID in text, f"Validate does not name bob's mistake:\n{text[:1500]}"
    else:
        assert "Success" in text or "성공" in text, f"Validate does not pass minji's right answer:\n{text[:1500]}"
    close_dialog(page)
    saved = notebook.read_text(encoding="utf-8")
    assert (MARKER in saved) == (student == "hubminji")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_student_submits(hub, people, student):
    person = getattr(people, student)
    page = shown(person)
    open_assignment_list(page)
    row(page, "fetched_assignments_list", ASSIGNMENT).get_by_role("button", name="Submit").click()
    row(page, "submitted_assignments_list", ASSIGNMENT).wait_for(timeout=60_000)
    people.screens.take(page, f"{student}-submitted")
    inbound = hub.exchange / COURSE_OF[student] / "inbound"
    mine = [entry for entry in os.listdir(inbound) if entry.startswith(f"{student}+{ASSIGNMENT}+")]
    assert len(mine) == 1, f"{student}'s submission is not in {COURSE_OF[student]}'s inbound: {os.listdir(inbound)}"
    assert (inbound / mine[0]).stat().st_uid == pwd.getpwnam(student).pw_uid


def test_teacher_collects_and_grades(hub, people):
    teacher = people.hubteacher
    started = time.monotonic()
    status, output = run_in_terminal(hub, teacher, "grade", readme_script("collect", "autograder grade"), timeout=480)
    TIMES["teacher: collect, autograder grade (terminal), s"] = round(time.monotonic() - started, 1)
    people.screens.take(teacher.page, "teacher-grades")
    assert status == 0, output[-4000:]
    top = teacher.home
    for student in STUDENTS:
        assert (top / "submitted" / student / ASSIGNMENT / NOTEBOOK).is_file(), f"{student} was not collected:\n{output[-3000:]}"
    records = graded_records(people)
    assert all(any(r["grade_id"] == f"{UNIT}-visible" for r in records[s]) for s in STUDENTS), f"graded: {records}"
    points = {s: score(records[s]) for s in STUDENTS}
    assert points["hubminji"][0] == points["hubminji"][1] > 0, points
    assert points["hubbob"][0] < points["hubbob"][1], points
    assert any(WRONG_ID in " ".join(r["feedback"]) for r in records["hubbob"])


def test_formgrader_shows_the_grades(hub, people):
    """What the README's commands graded is in the hub's formgrader, read from graded/ (issue 46: its gradebook was
    an empty ~/gradebook.db, Manual Grading 0 / 0 and "No data available in table")."""
    started = time.monotonic()
    records = graded_records(people)
    shown = {s: "{:g} / {:g}".format(*score(records[s])) for s in STUDENTS}
    page = teacher_formgrader(hub, people, "manage_students")
    rows = {row[1]: row for row in table_rows(page) if len(row) > 3}
    assert {s: rows.get(s, ["", "", "", "(not listed)"])[3] for s in STUDENTS} == shown, \
        f"Manage Students shows {list(rows.values())}; results.json says {shown}"
    people.screens.take(page, "teacher-formgrader-students")
    page = teacher_formgrader(hub, people, f"gradebook/{ASSIGNMENT}/{ASSIGNMENT}")  # Manual Grading, the notebook
    rows = [row for row in table_rows(page) if len(row) > 2]  # "No data available in table" is one cell
    assert sorted(row[2] for row in rows) == sorted(shown.values()), \
        f"Manual Grading of {ASSIGNMENT} lists {rows}; results.json says {shown}"
    people.screens.take(page, "teacher-formgrader-manual-grading")
    assert not (people.hubteacher.home / "gradebook.db").exists(), "formgrader made a gradebook of its own in the home"
    TIMES["teacher: formgrader's grades, s"] = round(time.monotonic() - started, 1)


MANUAL = {}  # the score the instructor types for bob: {grade_id: points}


def test_teacher_grades_by_hand_in_formgrader(hub, people):
    """A score typed in bob's notebook in formgrader is saved and counted in his total."""
    started = time.monotonic()
    records = graded_records(people)["hubbob"]
    lost = next(r for r in records if r["points"] < r["max_points"])
    page = open_submission(hub, people, "hubbob")
    box = page.locator(f'input.score[id="{lost["grade_id"]}"]')
    assert float(box.get_attribute("placeholder")) == lost["points"], \
        f"{lost['grade_id']}: formgrader shows {box.get_attribute('placeholder')!r}, results.json says {lost['points']}"
    box.fill(f"{lost['max_points']:g}")
    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
        box.blur()  # formgrader saves a score when its box loses focus
    assert saved.value.ok, f"formgrader did not save the score: {saved.value.status}"
    MANUAL[lost["grade_id"]] = lost["max_points"]
    people.screens.take(page, "teacher-manual-score")
    expected = "{:g} / {:g}".format(*score(records, MANUAL))
    page = teacher_formgrader(hub, people, "manage_students/hubbob")
    row = {row[0]: row for row in table_rows(page) if row}[ASSIGNMENT]
    assert row[1] == expected, f"after the manual score bob's {ASSIGNMENT} reads {row}, not {expected}"
    TIMES["teacher: a manual score in formgrader, s"] = round(time.monotonic() - started, 1)


HANGUL_DRAWN = """chars => {
    const canvas = document.createElement('canvas'); canvas.width = 40; canvas.height = 40;
    const pen = canvas.getContext('2d');
    const draw = (font, ch) => { pen.clearRect(0, 0, 40, 40); pen.font = font; pen.fillText(ch, 0, 30);
                                 return Array.from(pen.getImageData(0, 0, 40, 40).data).join(','); };
    const plain = '24px Helvetica, Arial, sans-serif', course = '24px "Course Hangul", ' + plain.slice(5);
    return Array.from(chars).map(ch => draw(course, ch) !== draw(plain, ch) && draw(course, ch) !== draw(course, '\ud7a3'));
}"""


def test_a_korean_submission_is_drawn_in_hangul(hub, people):
    """minji's Korean notebook in the hub's formgrader: the course's font is served by the instructor's server and
    draws its Hangul (this machine has no Korean font: without it, boxes)."""
    started = time.monotonic()
    page = open_submission(hub, people, "hubminji")
    text = page.locator("body").inner_text()
    hangul = "".join(dict.fromkeys(re.findall("[\uac00-\ud7a3]", text)))[:12]
    assert len(hangul) >= 3, f"minji's notebook in formgrader shows no Korean: {text[:1000]}"
    family = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert family.startswith('"Course Hangul"'), f"formgrader's page text is in {family!r}, not the course's font first"
    page.evaluate("document.fonts.ready")
    faces = page.evaluate("Array.from(document.fonts).map(face => [face.family, face.status])")
    assert ["Course Hangul", "loaded"] in faces, f"the hub's formgrader did not load the course's Korean font: {faces}"
    drawn = page.evaluate(HANGUL_DRAWN, hangul)
    assert all(drawn), f"the Hangul of minji's notebook ({hangul}) is not drawn with the course's font: {drawn}"
    people.screens.take(page, "teacher-formgrader-korean")
    TIMES["teacher: minji's Korean notebook in formgrader, s"] = round(time.monotonic() - started, 1)


def test_teacher_generates_and_releases_feedback(hub, people):
    """formgrader's Generate Feedback writes the pages again from the gradebook (the manual score on bob's), then
    the README's release_feedback: one page in each student's course only."""
    teacher = people.hubteacher
    started = time.monotonic()
    page = teacher_formgrader(hub, people, "manage_assignments")
    button = page.locator("tr", has_text=ASSIGNMENT).locator("td.generate-feedback a")
    with page.expect_response(lambda r: r.url.endswith(f"/assignment/{ASSIGNMENT}/generate_feedback"),
                              timeout=180_000) as generated:
        button.click()
    answer = generated.value.json()
    assert generated.value.ok and answer["success"], f"Generate Feedback failed: {answer.get('error') or answer}"
    page.locator("#success-modal", has_text="Successfully generated feedback").wait_for()
    TIMES["teacher: Generate Feedback (formgrader), s"] = round(time.monotonic() - started, 1)
    people.screens.take(page, "teacher-generates-feedback")
    page.locator("#success-modal .modal-footer button").click()
    records = graded_records(people)
    for student in STUDENTS:
        html = (teacher.home / "graded" / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
        points, most = score(records[student], MANUAL if student == "hubbob" else None)
        assert page_score(html) == (points, most), f"{student}'s generated page gives {page_score(html)}, not {points} / {most}"
        assert not hidden_tests(html), f"{student}'s generated page shows the hidden tests"
    started = time.monotonic()
    status, output = run_in_terminal(hub, teacher, "release-feedback", readme_script("release_feedback"))
    TIMES["teacher: release_feedback (terminal), s"] = round(time.monotonic() - started, 1)
    people.screens.take(teacher.page, "teacher-releases-feedback")
    assert status == 0, output[-4000:]
    for course in COURSES:  # one page per student, in their own course's feedback only
        folder = hub.exchange / course / "feedback"
        pages = list(folder.glob("*.html")) if folder.is_dir() else []
        assert len(pages) == (1 if course in COURSE_OF.values() else 0), f"{course}'s feedback: {pages}\n{output[-2000:]}"


@pytest.mark.parametrize("student", list(STUDENTS))
def test_student_fetches_their_feedback(hub, people, student):
    person = getattr(people, student)
    page = shown(person)
    open_assignment_list(page)
    submitted = row(page, "submitted_assignments_list", ASSIGNMENT)
    submitted.get_by_role("button", name=re.compile("Fetch Feedback")).click()
    pages = []
    deadline = time.monotonic() + 60
    while not pages and time.monotonic() < deadline:
        pages = list((person.home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        time.sleep(0.5)
    assert len(pages) == 1, f"{student} has no feedback page after Fetch Feedback"
    html = pages[0].read_text(encoding="utf-8")
    row(page, "submitted_assignments_list", ASSIGNMENT).get_by_text("view feedback").wait_for(timeout=30_000)
    people.screens.take(page, f"{student}-feedback-fetched")
    told = f"{WRONG_ID} The scores match"  # the grader's message (the notebook's prose quotes the id alone)
    points, most = score(graded_records(people)[student], MANUAL if student == "hubbob" else None)
    assert page_score(html) == (points, most), \
        f"{student}'s fetched page gives {page_score(html)}, not {points} / {most} (formgrader's, the manual score included)"
    if student == "hubbob":
        assert told in html and MARKER not in html, "bob's feedback page does not name his mistake, or is not his"
    else:
        assert MARKER in html and told not in html, "minji's feedback page is not hers, or names a mistake she did not make"
        assert re.search("[\uac00-\ud7a3]", html), "minji's feedback page is not in Korean"
    assert "BEGIN SOLUTION" not in html and not hidden_tests(html)
    TIMES[f"_{student} feedback"] = time.monotonic()
    # the page itself, as the student opens it from their home (the lab's /files/ URL)
    response = page.goto(f"{hub.base}/user/{student}/files/{pages[0].relative_to(person.home)}")
    assert response.status == 200
    page.wait_for_load_state()
    people.screens.take(page, f"{student}-feedback-page")


def test_a_student_cannot_reach_the_other_students_work_or_the_solutions(hub, people):
    bob = people.hubbob
    page = shown(bob)
    # through the hub's URLs: minji's server, the instructor's formgrader, the hub's admin page
    for path in (f"/user/hubminji/api/contents/{ASSIGNMENT}/{NOTEBOOK}", f"/user/hubminji/files/{ASSIGNMENT}/{NOTEBOOK}",
                 f"/user/hubminji/lab/tree/{ASSIGNMENT}/{NOTEBOOK}", f"/user/{TEACHER}/formgrader",
                 f"/user/{TEACHER}/api/contents/submitted", "/hub/admin", "/hub/api/users",
                 # and bob's own server's file browser, out of his home
                 f"/user/hubbob/api/contents/%2E%2E/hubminji/{ASSIGNMENT}",
                 f"/user/hubbob/files/%2E%2E/%2E%2E{ROOT}/solutions/{ASSIGNMENT}/{NOTEBOOK}"):
        response = page.request.get(f"{hub.base}{path}", max_redirects=5)
        body = response.text()
        assert response.status in (400, 403, 404), f"bob gets {response.status} for {path}:\n{body[:500]}"
        assert MARKER not in body
    # through bob's own server: a terminal in his lab
    exchange = hub.exchange
    probes = ["ls /home/hubminji", f"cat /home/hubminji/{ASSIGNMENT}/{NOTEBOOK}",
              f"ls {exchange}/transformer-ko/inbound", f"ls {exchange}/transformer-ko/feedback",
              f"ls {ROOT}/solutions", f"cat {ROOT}/challenge/solutions/{ASSIGNMENT}/{NOTEBOOK}",
              f"cat {ROOT}/autograder/reference.py", f"ls {ROOT}/tests", f"ls {ROOT}/.git",
              f"ls /home/{TEACHER}/submitted",
              'python -c "import autograder.reference"']
    script = "; ".join(f"echo '>>> {p}'; {p}; echo \"<<< $?\"" for p in probes)
    status, output = run_in_terminal(hub, bob, "probe", script)
    people.screens.take(page, "hubbob-cannot-read")
    assert MARKER not in output and "BEGIN SOLUTION" not in output and "def scaled_dot_product_attention" not in output, output
    answers = dict(re.findall(r">>> (.*?)\n(?:.*?\n)*?<<< (\d+)", output))
    for probe in probes:
        assert probe in answers, f"the probe {probe!r} did not run:\n{output}"
        assert answers[probe] != "0", f"bob could run `{probe}`:\n{output}"
    assert output.count("Permission denied") >= len(probes) - 1, output
    # his own things still work: his notebook, the course's package that his kernel imports
    status, output = run_in_terminal(hub, bob, "own", f"ls ~/{ASSIGNMENT} && python -c 'import learner_kit, torch; print(\"ok\")'")
    assert status == 0 and "ok" in output, output


def test_the_whole_loop_timed(hub, people):
    started = TIMES.pop("_loop started")
    ends = [TIMES.pop(f"_{student} feedback") for student in STUDENTS]
    TIMES["whole loop for two students (release to both feedback pages fetched), s"] = round(max(ends) - started, 1)
    for person in (people.hubteacher, people.hubminji, people.hubbob):
        assert not [e for e in person.errors if "favicon" not in e], f"{person.name}'s console errors: {person.errors}"
