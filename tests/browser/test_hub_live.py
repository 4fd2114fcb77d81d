"""The live view of a lab session (hub/live, the hub's `class-live` service), in Chromium: an instructor watches two
students work in notebook 01 on the class's JupyterHub.

The hub of tests/browser/hub_fixtures.py (`make hub` as root on free ports, the service on a free port too) with
the instructor ``liveteacher`` and two students, ``liveminji`` on the Korean edition and ``livebob`` at the
challenge level, each with their edition's release of 01-attention in their home (where the Assignment List's
Fetch puts it; test_hub_class.py plays the fetch itself). The instructor opens /services/class-live/ and logs in
through the hub (its OAuth: the hub's login page, then back to the service). Each student logs in to their lab and
runs the notebook with the missing 1/sqrt(d_k) (the visible test names [sdpa-no-scale]); bob runs that test
again, minji the right answer. After each run the instructor's page, never reloaded, shows the change: the
heatmap's cell of the unit and id (the students who hit it), the unit's passed and trying counts, the stuck list
(2 failed runs in a row with the same id, over 0 minutes: set on the page). The projector mode shows the same
counts and no student's name, in the page or in the data its stream sends; a student who opens the page or its
stream gets 403. Then bob runs `live.off()` in a new cell: his next run changes nothing on the page (minji's run
after it is the only event that arrives).

Every step saves a screenshot (build/screenshots/live-NN-*.png; docs/images/live-view.png, in the README, is
live-12-instructor-view.png cut to 1100x760); the times are written to build/screenshots/live-timings.json: the
delay from a run's output in the learner's notebook to the instructor's page showing it is about 0.15 s.
"""
import json
import os
import pwd
import re
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser import hub_fixtures
from tests.browser.answers import ASSIGNMENT, RIGHT, UNIT, WRONG, WRONG_ID
from tests.browser.hub_fixtures import log_in, send_login_form, shown
from tests.browser.jupyter_servers import ROOT
from tests.browser.test_learner_lab import code_cell, run_cell, type_into

# the class (read by the hub's fixtures)
TEACHER = "liveteacher"
STUDENTS = {"liveminji": "ko", "livebob": "en-challenge"}
PREFIX = "live"  # build/screenshots/live-NN-*.png, live.log (the hub's), live-timings.json
TIMES = {}
CURRENT_PAGE = hub_fixtures.CURRENT_PAGE  # for conftest's screenshot of a failed step
RELEASE_OF = {"ko": ROOT / "ko" / "course", "en-challenge": ROOT / "challenge" / "course"}  # each edition's release
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
VIEW = "/services/class-live/"
MISTAKE = WRONG_ID.strip("[]")  # sdpa-no-scale
STUCK_RUNS = 2  # the page's N: this many failed runs in a row with the same id...
STUCK_MINUTES = 0  # ...over at least M minutes make a student stuck
REACHES_PAGE_MS = 30_000  # how long a run may take to show on the page (on a busy 2-core machine; about 1 s idle)
DELAYS = []  # seconds from a run's cell ending to the page showing it


# ---------------------------------------------------------------- the students' notebooks

@pytest.fixture(scope="module")
def released(accounts):
    """Each student's edition of notebook 01 as released, in their home (~/01-attention/), owned by them."""
    for student, edition in STUDENTS.items():
        account = pwd.getpwnam(student)
        folder = Path(account.pw_dir) / ASSIGNMENT
        folder.mkdir(exist_ok=True)
        shutil.copyfile(RELEASE_OF[edition] / ASSIGNMENT / NOTEBOOK, folder / NOTEBOOK)
        for path in (folder, folder / NOTEBOOK):
            os.chown(path, account.pw_uid, account.pw_gid)
    return STUDENTS


def run_all(page):
    """Run > Run All Cells, in the lab's language; it stops at the first cell that fails."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^(Run|실행)$")).first.click()
    label = page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^(Run All Cells|모든 셀 실행)$"))  # exactly: not
    page.locator(".lm-Menu-item:visible").filter(has=label).first.click()  # 위의 모든 셀 실행, Run All Above


def wait_for_output(cell, text, timeout=180_000):
    """Wait until the cell's output shows ``text``; a failure shows what it shows instead."""
    try:
        cell.locator(".jp-OutputArea", has_text=text).wait_for(timeout=timeout)
    except PlaywrightTimeout:
        showing = " ".join(cell.locator(".jp-OutputArea").all_inner_texts())
        pytest.fail(f"the cell's output does not show {text!r} after {timeout / 1000:.0f} s; it shows:\n{showing[-2000:]}")


def visible_test(person):
    return code_cell(person.page, person.home, f"{UNIT}-visible")


def answer(person, code):
    """Type ``code`` into the answer cell and run it."""
    cell = code_cell(person.page, person.home, UNIT)
    type_into(person.page, cell, code)
    run_cell(person.page, cell)


def add_cell_below(page, cell, code):
    """A new code cell under ``cell`` (Esc, B), holding ``code``, run; the new cell."""
    cell.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("Escape")
    count = page.locator(".jp-NotebookPanel .jp-CodeCell").count()
    page.keyboard.press("b")
    expect(page.locator(".jp-NotebookPanel .jp-CodeCell")).to_have_count(count + 1)
    index = page.evaluate("() => [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell')]"
                          ".findIndex(cell => cell.classList.contains('jp-mod-selected'))")
    added = page.locator(".jp-NotebookPanel .jp-CodeCell").nth(index)  # by place: running it selects the next cell
    added.locator(".cm-content").click()
    page.keyboard.insert_text(code)
    run_cell(page, added)
    return added


# ---------------------------------------------------------------- the instructor's page

def second_page(person):
    """Another browser page of ``person``'s, logged in as their own page is (a copy of its cookies)."""
    page = person.page
    context = page.context.browser.new_context(storage_state=page.context.storage_state(), viewport=page.viewport_size)
    return context.new_page()


def mark_unreloaded(page):
    page.evaluate("() => { window.liveViewNotReloaded = true; }")


def same_page(page):
    """The page has not been reloaded or left since mark_unreloaded."""
    assert page.evaluate("() => window.liveViewNotReloaded === true"), "the instructor's page was reloaded or left"
    assert VIEW in page.url, page.url


def heat(page, unit=UNIT, mistake=MISTAKE):
    return page.locator(f'#heatmap [data-unit="{unit}"][data-id="{mistake}"]')


def progress(page, unit=UNIT):
    return page.locator(f'#progress [data-unit="{unit}"]')


def stuck(page, student):
    return page.locator(f'#stuck [data-student="{student}"][data-unit="{UNIT}"][data-id="{MISTAKE}"]')


def events_shown(page):
    return int(page.locator("body").get_attribute("data-events"))


def shows(page, started, **counts):
    """Wait until the page shows ``counts`` (heat: the heatmap cell's students; passed, trying: the unit's), and
    record how long after ``started`` (the run's end) it did."""
    if "heat" in counts:
        expect(heat(page)).to_have_attribute("data-count", str(counts["heat"]), timeout=REACHES_PAGE_MS)
        expect(heat(page)).to_contain_text(str(counts["heat"]))
    for name in ("passed", "trying"):
        if name in counts:
            expect(progress(page)).to_have_attribute(f"data-{name}", str(counts[name]), timeout=REACHES_PAGE_MS)
    if "events" in counts:
        expect(page.locator("body")).to_have_attribute("data-events", str(counts["events"]), timeout=REACHES_PAGE_MS)
    DELAYS.append(time.monotonic() - started)
    same_page(page)


def stream_text(page, query, seconds=4):
    """What the page's stream sends in its first seconds (every stored run, then the view), read in the page with
    its XSRF token (JupyterHub accepts the login cookie of a script's request only with it)."""
    return page.evaluate(
        """async ([url, ms]) => {
            const xsrf = JSON.parse(document.getElementById("live-data").textContent).xsrf;  // as the page's own stream
            const stop = new AbortController();
            const response = await fetch(xsrf ? `${url}&_xsrf=${encodeURIComponent(xsrf)}` : url, {signal: stop.signal});
            if (response.status !== 200) { return `HTTP ${response.status}`; }
            const reader = response.body.getReader(), decoder = new TextDecoder();
            let text = "";
            const end = Date.now() + ms;
            while (Date.now() < end && !text.includes("event: view")) {
                const part = await Promise.race([reader.read(), new Promise(r => setTimeout(() => r({}), 500))]);
                if (part.done) { break; }
                if (part.value) { text += decoder.decode(part.value); }
            }
            stop.abort();
            return text;
        }""", [f"{VIEW}api/stream?{query}", seconds * 1000])


# ---------------------------------------------------------------- the session, in order

def test_the_teacher_logs_in_through_the_hub_and_sees_an_empty_session(hub, people, released):
    teacher = people.liveteacher
    page = shown(teacher)
    streams = []  # the URLs of the page's streams (its EventSource's requests)
    page.on("request", lambda request: streams.append(request.url) if "/api/stream" in request.url else None)
    started = time.monotonic()
    page.goto(f"{hub.base}{VIEW}")
    page.wait_for_url(re.compile(r"/hub/login"), timeout=60_000)  # the service sends the browser to the hub's login
    people.screens.take(page, "instructor-hub-login")
    send_login_form(page, teacher)
    page.wait_for_url(re.compile(rf"{re.escape(VIEW)}(\?.*)?$"), timeout=60_000)  # OAuth, no confirmation page
    expect(page.locator("body")).to_have_attribute("data-state", "live", timeout=30_000)  # its stream is open
    expect(page.locator("body")).to_have_attribute("data-events", "0")
    TIMES["instructor: the hub's login to the live view, s"] = round(time.monotonic() - started, 1)
    assert heat(page).count() == 0 and page.locator("#stuck [data-student]").count() == 0
    for control, value in (("runs", STUCK_RUNS), ("minutes", STUCK_MINUTES)):  # the stuck rule, set on the page
        field = page.locator(f"input[name={control}]")
        field.fill(str(value))
        field.dispatch_event("change")
    page.evaluate("() => document.activeElement.blur()")  # no focus ring in the screenshots
    rule = f"runs={STUCK_RUNS}&minutes={STUCK_MINUTES}"
    deadline = time.monotonic() + 30
    while not any(rule in url for url in streams) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert any(rule in url for url in streams), f"the page did not open its stream again with {rule}: {streams}"
    expect(page.locator("body")).to_have_attribute("data-state", "live", timeout=30_000)
    mark_unreloaded(page)
    people.screens.take(page, "instructor-empty-session")


@pytest.mark.parametrize("student", list(STUDENTS))
def test_a_student_logs_in_and_opens_notebook_01(hub, people, released, student):
    person = getattr(people, student)
    started = time.monotonic()
    log_in(hub, person, "lab")
    page = person.page
    page.goto(f"{hub.base}/user/{student}/lab/tree/{ASSIGNMENT}/{NOTEBOOK}")
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=NOTEBOOK).wait_for(timeout=90_000)
    page.locator("#jp-main-statusbar", has_text=re.compile("Idle|대기")).wait_for(timeout=120_000)  # 대기: the Korean lab
    TIMES[f"{student}: login and notebook 01 open, s"] = round(time.monotonic() - started, 1)
    first = page.locator(".jp-NotebookPanel .jp-MarkdownCell").first
    expect(first).to_contain_text("live.off()")  # the notebook says that its tests' outcomes are sent, and how to stop
    people.screens.take(page, f"{student}-notebook")


def test_a_student_gets_403_for_the_page_and_its_stream(hub, people):
    minji = people.liveminji
    probe = second_page(minji)  # her lab stays open in her own page
    try:
        response = probe.goto(f"{hub.base}{VIEW}")
        assert response.status == 403, f"a student opened the live view: HTTP {response.status} at {probe.url}"
        body = probe.content()
        assert "livebob" not in body and MISTAKE not in body
        people.screens.take(probe, "student-403")
        for path in ("api/stream", "api/stream?projector=1", "?projector=1"):
            answer = probe.request.get(f"{hub.base}{VIEW}{path}", max_redirects=5)
            assert answer.status == 403, f"a student gets HTTP {answer.status} for {VIEW}{path}"
    finally:
        probe.context.close()


def test_bobs_wrong_answer_shows_on_the_teachers_page(people):
    bob, teacher = people.livebob, people.liveteacher
    page = shown(bob)
    type_into(page, code_cell(page, bob.home, UNIT), WRONG)
    run_all(page)  # stops at the visible test, which fails
    wait_for_output(visible_test(bob), WRONG_ID)
    started = time.monotonic()
    wait_for_output(visible_test(bob), "live.off()")  # the first run says where its outcome goes, and how to stop it
    people.screens.take(page, "livebob-wrong")
    shows(teacher.page, started, heat=1, passed=0, trying=1, events=1)
    assert stuck(teacher.page, "livebob").count() == 0, "one failed run made bob stuck (N is 2)"
    people.screens.take(teacher.page, "instructor-sees-bobs-mistake")


def test_minjis_wrong_answer_in_korean_shows_too(people):
    minji, teacher = people.liveminji, people.liveteacher
    page = shown(minji)
    type_into(page, code_cell(page, minji.home, UNIT), WRONG)
    run_all(page)
    wait_for_output(visible_test(minji), WRONG_ID)
    started = time.monotonic()
    output = " ".join(visible_test(minji).locator(".jp-OutputArea").all_inner_texts())
    assert re.search("[\uac00-\ud7a3]", output), f"minji's test does not speak Korean: {output[-500:]}"
    people.screens.take(page, "liveminji-wrong")
    shows(teacher.page, started, heat=2, passed=0, trying=2, events=2)
    people.screens.take(teacher.page, "instructor-sees-two")


def test_bob_fails_again_and_is_stuck(people):
    bob, teacher = people.livebob, people.liveteacher
    page = shown(bob)
    run_cell(page, visible_test(bob))
    wait_for_output(visible_test(bob), WRONG_ID)
    started = time.monotonic()
    shows(teacher.page, started, heat=2, trying=2, events=3)
    expect(stuck(teacher.page, "livebob")).to_be_visible(timeout=REACHES_PAGE_MS)
    assert stuck(teacher.page, "liveminji").count() == 0, "minji, with one failed run, is listed as stuck"
    people.screens.take(shown(teacher), "instructor-bob-stuck")


def test_minjis_right_answer_passes_and_shows(people):
    minji, teacher = people.liveminji, people.liveteacher
    page = shown(minji)
    answer(minji, RIGHT)
    run_cell(page, visible_test(minji))
    output = " ".join(visible_test(minji).locator(".jp-OutputArea").all_inner_texts())
    assert WRONG_ID not in output, output[-1000:]
    started = time.monotonic()
    people.screens.take(page, "liveminji-passes")
    # the heatmap keeps who hit the mistake in the session; the unit's counts follow each student's latest run
    shows(teacher.page, started, heat=2, passed=1, trying=1, events=4)
    expect(stuck(teacher.page, "livebob")).to_be_visible()
    people.screens.take(shown(teacher), "instructor-view")


def test_a_click_on_the_id_opens_what_learners_see_and_where_it_is_taught(people):
    page = shown(people.liveteacher)
    heat(page).get_by_role("button").click()
    details = page.locator("#id-details")
    expect(details).to_be_visible()
    expect(details).to_have_attribute("data-id", MISTAKE)
    expect(details).to_contain_text(WRONG_ID)
    for language in ("en", "ko"):  # what learners of each edition are told
        assert details.locator(f'[data-lang="{language}"]').inner_text().strip(), f"no {language} text for {WRONG_ID}"
    expect(details.locator(f'.taught[data-unit="{UNIT}"]')).to_contain_text(ASSIGNMENT)
    expect(details.locator(".students")).to_contain_text("livebob")
    people.screens.take(page, "instructor-id-details")
    same_page(page)


def test_the_projector_shows_counts_and_no_names(hub, people):
    teacher = people.liveteacher
    projector = second_page(teacher)
    hub_fixtures.CURRENT_PAGE["page"] = projector
    try:
        link = teacher.page.locator("#projector-link").get_attribute("href")  # the session and stuck rule set here
        assert link.startswith(f"{VIEW}?projector=1&") and f"runs={STUCK_RUNS}" in link and f"minutes={STUCK_MINUTES}" in link, link
        projector.goto(f"{hub.base}{link}")
        expect(heat(projector)).to_have_attribute("data-count", "2", timeout=30_000)
        expect(progress(projector)).to_have_attribute("data-passed", "1")
        expect(progress(projector)).to_have_attribute("data-trying", "1")
        people.screens.take(projector, "projector")
        html = projector.content()
        for student in STUDENTS:
            assert student not in html, f"the projector's page names {student}"
        assert projector.locator("[data-student]").count() == 0
        stuck = teacher.page.locator("#stuck-count").inner_text().strip()
        expect(projector.locator("#stuck-count")).to_have_text(stuck)  # the same rule as on the instructor's page
        sent = stream_text(projector, "projector=1&last_event_id=0")
        assert "event: view" in sent and sent.count("event: run") == 4, sent[:2000]
        for student in STUDENTS:
            assert student not in sent, f"the projector's stream names {student}:\n{sent[:2000]}"
        named = stream_text(teacher.page, "last_event_id=0")  # the instructor's own stream names them
        assert all(student in named for student in STUDENTS), named[:2000]
    finally:
        projector.context.close()
        hub_fixtures.CURRENT_PAGE["page"] = teacher.page


def test_opting_out_stops_bobs_events(people):
    bob, minji, teacher = people.livebob, people.liveminji, people.liveteacher
    page = shown(bob)
    bobs_test = visible_test(bob)  # found before the notebook has a cell more than its saved copy
    added = add_cell_below(page, bobs_test, "from learner_kit import live; live.off()")
    wait_for_output(added, "live.on()")
    choice = json.loads((bob.home / ".config" / "transformer-course" / "live.json").read_text(encoding="utf-8"))
    assert choice.get("send") is False, choice
    before = events_shown(teacher.page)
    run_cell(page, bobs_test)  # wrong again: the page must not hear of it
    wait_for_output(bobs_test, WRONG_ID)
    people.screens.take(page, "livebob-opted-out")
    run_cell(minji.page, visible_test(minji))  # passes again: this one does reach the page
    started = time.monotonic()
    shows(teacher.page, started, events=before + 1, heat=2, passed=1, trying=1)
    teacher.page.wait_for_timeout(3000)  # a late event of bob's would land by now
    assert events_shown(teacher.page) == before + 1, "bob's run after live.off() reached the instructor's page"
    expect(stuck(teacher.page, "livebob")).to_have_attribute("data-runs", "2")  # his streak did not grow
    people.screens.take(shown(teacher), "instructor-after-opt-out")


def test_the_teachers_page_had_no_errors(people):
    teacher = people.liveteacher
    same_page(teacher.page)
    errors = [e for e in teacher.errors if "favicon" not in e]
    assert not errors, f"the instructor's page had errors: {errors}"
    TIMES["a run's end to the page showing it, s (max)"] = round(max(DELAYS), 2)
    TIMES["a run's end to the page showing it, s (median)"] = round(sorted(DELAYS)[len(DELAYS) // 2], 2)
