"""A class on JupyterHub (`make hub`), in Chromium: an instructor and two students, nbgrader's exchange end to end.

One hub for the whole module, started with the Makefile's own command as root, on free localhost ports,
with a class of three system users that the module creates (and removes afterwards; tests/browser/hub_fixtures.py,
shared with the live view's test): the instructor
``hubteacher``, ``hubminji`` on the Korean edition and ``hubbob`` at the challenge level. The loop is the
one nbgrader documents for JupyterHub, played through the hub's pages: the instructor logs in to formgrader
and releases 01-attention in every edition (JupyterLab's terminal, as an instructor would), each student
logs in, fetches it in the Assignment List, answers (minji right, bob with the missing 1/sqrt(d_k)), runs
Validate and submits; the instructor collects, grades with `autograder grade`, releases the feedback pages
with nbgrader's release_feedback; each student fetches their own page. Then a student tries to read the
other's work and the solutions through the hub: the other's server, the exchange, their home, the
course's folders (a terminal), the instructor's formgrader.

The users' servers run this repository's hub environment and learner_kit as those users: where the
repository lies in a folder that other users may not enter (a clone in a private folder), the test lets
them enter it (o+x, not list) while the hub runs and restores its mode afterwards; `make hub` itself
refuses to start there and says why (hub/prepare.py).

Every step saves a screenshot (build/screenshots/hub-NN-*.png); the hub's start and the whole loop's
times are printed and written to build/screenshots/hub-timings.json.
"""
import json
import os
import pwd
import re
import subprocess
import time

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
    script = "cd ~ && for c in . ko challenge challenge/ko; do (cd $c && nbgrader release_assignment " \
             f"{ASSIGNMENT}) || exit 1; done"
    status, output = run_in_terminal(hub, teacher, "release", script)
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
        assert inbound.stat().st_mode & 0o777 == 0o733, f"{course}'s inbound is {oct(inbound.stat().st_mode)}: students could list it"
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


def test_teacher_collects_grades_and_releases_feedback(hub, people):
    teacher = people.hubteacher
    courses = "for c in . ko challenge challenge/ko; do"
    script = (f"cd ~ && {courses} (cd $c && nbgrader collect {ASSIGNMENT}) || exit 1; done && "
              f"autograder grade submitted --out graded --jobs 2 --table && "
              f"{courses} (cd $c && nbgrader release_feedback {ASSIGNMENT}) || exit 1; done")
    started = time.monotonic()
    status, output = run_in_terminal(hub, teacher, "grade", script, timeout=480)
    TIMES["teacher: collect, autograder grade, release_feedback (terminal), s"] = round(time.monotonic() - started, 1)
    people.screens.take(teacher.page, "teacher-grades-and-releases-feedback")
    assert status == 0, output[-4000:]
    top = teacher.home
    for student in STUDENTS:
        assert (top / "submitted" / student / ASSIGNMENT / NOTEBOOK).is_file(), f"{student} was not collected:\n{output[-3000:]}"
    records = json.loads((top / "graded" / "results.json").read_text(encoding="utf-8"))
    unit = {r["student"]: r for r in records if r["grade_id"] == f"{UNIT}-visible"}
    assert set(unit) == set(STUDENTS), f"graded: {sorted(unit)}"
    points = {s: sum(r["points"] for r in records if r["student"] == s) for s in STUDENTS}
    maximum = {s: sum(r["max_points"] for r in records if r["student"] == s) for s in STUDENTS}
    assert points["hubminji"] == maximum["hubminji"] > 0, (points, maximum)
    assert points["hubbob"] < maximum["hubbob"], (points, maximum)
    assert any(WRONG_ID in " ".join(r["feedback"]) for r in records if r["student"] == "hubbob")
    for student in STUDENTS:  # one page per student, in their own course's feedback only
        for course in COURSES:
            pages = list((hub.exchange / course / "feedback").glob("*.html")) if (hub.exchange / course / "feedback").is_dir() else []
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
    if student == "hubbob":
        assert told in html and MARKER not in html, "bob's feedback page does not name his mistake, or is not his"
    else:
        assert MARKER in html and told not in html, "minji's feedback page is not hers, or names a mistake she did not make"
        assert re.search("[\uac00-\ud7a3]", html), "minji's feedback page is not in Korean"
    assert "BEGIN SOLUTION" not in html and "BEGIN HIDDEN TESTS" not in html
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
