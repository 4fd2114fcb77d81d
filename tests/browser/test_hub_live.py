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
import contextlib
import json
import os
import pwd
import re
import shutil
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import psutil
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


# ---------------------------------------------------------------- a classmate attacking the live view
# After the session above (the page's errors are counted before the service is stopped here). The students' kernels
# post to events.sock with a token scoped to class-live; the hub's proxy forwards the page to page.sock; both sockets
# are in a folder only root may write. A student (bob) tries, while the service is down, to take its place.
LIVE_TOKEN_SCOPES = ["access:services!service=class-live", "read:users:groups!user=liveminji",
                     "read:users:name!user=liveminji"]  # the service's access; naming its owner (every token can)
HUB_PYTHON = ROOT / ".venv" / "hub-python" / "bin" / "python"  # what every user may run (.venv's may be root's)


def server_environment(name):
    """(pid, environment) of ``name``'s single-user server: what the hub gave it, and its kernels inherit."""
    for process in psutil.process_iter(["username", "cmdline"]):
        if process.info["username"] == name and "jupyterhub-singleuser" in " ".join(process.info["cmdline"] or []):
            return process.pid, process.environ()
    pytest.fail(f"{name}'s server is not running")


def as_user(name, script, *args, env=None, **popen):
    """``script`` run by the hub's Python as the system user ``name`` (no group of root's), from their home."""
    account = pwd.getpwnam(name)
    environment = env or {"PATH": "/usr/bin:/bin", "HOME": account.pw_dir, "LANG": "C.UTF-8"}
    return subprocess.Popen([str(HUB_PYTHON), "-c", script, *map(str, args)], user=account.pw_uid,
                            group=account.pw_gid, extra_groups=[], cwd=account.pw_dir, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def test_a_students_live_token_opens_nothing_of_her_server(hub, people):
    """The token minji's kernels post with, were it stolen: the hub says whose it is (her name, the service's scope),
    her server answers 403 to listing her files, writing one and starting a kernel. Her server's own token, which
    kernels sent before, opens them (the check tells); bob cannot read her server's environment."""
    pid, env = server_environment("liveminji")
    token, servers = env["TRANSFORMER_LIVE_TOKEN"], env["JUPYTERHUB_API_TOKEN"]
    assert env["TRANSFORMER_LIVE_URL"].startswith("http+unix://") and token != servers
    api = people.liveteacher.page.context.request  # no cookie of hers: only the token speaks
    whoami = api.get(f"{hub.base}/hub/api/user", headers={"Authorization": f"token {token}"})
    assert whoami.status == 200 and whoami.json()["name"] == "liveminji"
    assert whoami.json()["scopes"] == LIVE_TOKEN_SCOPES, whoami.json()
    files = f"{hub.base}/user/liveminji/api/contents"
    for method, url, body in (("GET", files, None), ("PUT", f"{files}/planted.txt", {"type": "file", "format": "text",
                              "content": "x"}), ("POST", f"{hub.base}/user/liveminji/api/kernels", {})):
        answer = api.fetch(url, method=method, data=body, headers={"Authorization": f"token {token}"}, max_redirects=0)
        assert answer.status == 403, (method, url, answer.status, answer.text()[:300])
    assert not (people.liveminji.home / "planted.txt").exists()
    listed = api.get(files, headers={"Authorization": f"token {servers}"})
    assert listed.status == 200 and ASSIGNMENT in listed.text()
    peek = as_user("livebob", "print(open(f'/proc/{__import__(\"sys\").argv[1]}/environ').read())", pid)
    _, error = peek.communicate(timeout=30)
    assert peek.returncode != 0 and "PermissionError" in error, error[-500:]


ATTACKER = r"""
import errno, json, os, socket, sys
folder, port = sys.argv[1], int(sys.argv[2])
tried = {}
def attempt(name, action):
    try:
        action()
        tried[name] = "done"
    except OSError as error:
        tried[name] = errno.errorcode.get(error.errno, str(error))
def bind(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(path)
    sock.listen()
events = os.path.join(folder, "events.sock")
attempt("bind events.sock", lambda: bind(events))
attempt("remove events.sock", lambda: os.remove(events))
attempt("rename events.sock", lambda: os.rename(events, events + ".old"))
attempt("bind a socket beside it", lambda: bind(os.path.join(folder, "mine.sock")))
attempt("connect to page.sock", lambda: socket.socket(socket.AF_UNIX).connect(os.path.join(folder, "page.sock")))
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
attempt("listen on the port the hub checks", lambda: (listener.bind(("127.0.0.1", port)), listener.listen()))
print(json.dumps(tried), flush=True)
while tried["listen on the port the hub checks"] == "done":  # until killed: each request that comes, as it came
    connection, _ = listener.accept()
    connection.settimeout(2)
    try:
        print(json.dumps(connection.recv(65536).decode("latin-1")), flush=True)
    except OSError:
        pass
    connection.close()
"""

SENDER = f"""
import contextlib, io, json, time
from learner_kit import live
started = time.monotonic()
with contextlib.redirect_stdout(io.StringIO()):  # the first report's notice, shown below a cell in a notebook
    live.report("{UNIT}", "passed")
took = time.monotonic() - started
print(json.dumps({{"took": took, "sent_at_once": live.wait_sent(2)}}), flush=True)
print(json.dumps({{"sent": live.wait_sent(150)}}), flush=True)
"""
DOWN_S = 6  # seconds class-live is kept down: minji's kernel tries at 0, 1 and 3 s (learner_kit.live's back-off)


def live_services(hub):
    """The class-live processes of this test's hub (not another hub test's)."""
    found = []
    for process in psutil.Process(hub.process.pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "live.service" in process.cmdline():
                found.append(process)
    return found


@contextlib.contextmanager
def kept_down(hub):
    """class-live killed (SIGKILL), and each new start of it by the hub killed at once, until the block ends: down,
    as in a crash loop, for as long as the block takes."""
    stop = threading.Event()

    def kill():
        while not stop.is_set():
            for process in live_services(hub):
                with contextlib.suppress(psutil.Error):
                    process.kill()
            stop.wait(0.05)

    killer = threading.Thread(target=kill, daemon=True)
    killer.start()
    try:
        deadline = time.monotonic() + 10
        while live_services(hub) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not live_services(hub), "class-live could not be stopped"
        yield
    finally:
        stop.set()
        killer.join()


def silent_while_down(hub, folder, seconds=10):
    """True once neither socket answers while no class-live process runs. The hub starts the service again between two
    of kept_down's kills, and a start caught in that gap answers (seen on a loaded machine): such a probe is taken
    again; whatever else listens there (a student who bound the path) answers every time, and False is returned."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        quiet = not live_services(hub)
        answered = answers(folder / "events.sock") or answers(folder / "page.sock")
        if quiet and not answered and not live_services(hub):
            return True
        time.sleep(0.05)
    return False


def answers(path):
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(str(path))
            return True
        except OSError:
            return False


def lines_of(process):
    """Each line ``process`` prints, collected as it comes by a thread (it ends with the process's output)."""
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    return lines, reader


def test_while_the_service_is_down_a_student_can_neither_take_its_place_nor_receive_a_post(hub, people):
    """Bob, a student, while class-live is down: cannot bind, remove or rename its sockets, add his own beside them or
    reach page.sock. He does listen on the port JupyterHub knows for the service (where kernels posted before) from
    then on; meanwhile minji's kernel posts (her event waits, her cell did not), the teacher opens the page (503
    from the hub's proxy), the hub starts the service again by itself (bob's port notwithstanding) and minji's event
    is stored under her name. Nothing that reached bob (the hub's checks at most) carries a token or a cookie."""
    folder = hub.folder / "state" / "class-live"
    _, env = server_environment("liveminji")
    attacker = sender = None
    try:
        with kept_down(hub):
            down_since = time.monotonic()
            assert silent_while_down(hub, folder), "a socket of class-live answers while the service is kept down"
            attacker = as_user("livebob", ATTACKER, folder, hub.live_port)
            tried = json.loads(attacker.stdout.readline() or "{}")
            received, reader = lines_of(attacker)
            sender = as_user("liveminji", SENDER, env=env)
            first = json.loads(sender.stdout.readline() or "{}")
            page = people.liveteacher.page.context.request.get(f"{hub.base}{VIEW}", max_redirects=0)
            time.sleep(max(0.0, down_since + DOWN_S - time.monotonic()))
            still_down = not answers(folder / "events.sock")
        assert tried == {"bind events.sock": "EADDRINUSE", "remove events.sock": "EACCES",
                         "rename events.sock": "EACCES", "bind a socket beside it": "EACCES",
                         "connect to page.sock": "EACCES", "listen on the port the hub checks": "done"}, tried
        assert still_down, "class-live answered while it was kept down"
        assert first.get("took", 99) < 0.5 and first.get("sent_at_once") is False, first  # queued; the cell went on
        assert page.status == 503, page.status
        started = time.monotonic()
        deadline = started + 120  # the hub polls its services every 30 s and starts a stopped one again
        while not answers(folder / "events.sock") and time.monotonic() < deadline:
            time.sleep(0.5)
        TIMES["class-live started again by the hub, bob on its port, s"] = round(time.monotonic() - started, 1)
        assert answers(folder / "events.sock"), "the hub did not start class-live again"
        assert "where the hub checks the service, is taken" in hub.log_text()
        assert (folder.stat().st_uid, folder.stat().st_mode & 0o7777) == (0, 0o755)
        out, error = sender.communicate(timeout=180)
        assert json.loads(out.strip().splitlines()[-1]) == {"sent": True}, error[-2000:]
        with sqlite3.connect(hub.folder / "state" / "class-live.sqlite") as db:
            latest = db.execute("SELECT student, unit, outcome FROM live_events ORDER BY seq DESC LIMIT 1").fetchone()
        assert latest == ("liveminji", UNIT, "passed")
    finally:
        for process in (attacker, sender):
            if process is not None and process.poll() is None:
                process.kill()
    reader.join(timeout=10)
    texts = [json.loads(line) for line in received]
    for text in texts:  # the hub's own check of the service's URL may come: a GET with no credential
        for secret in (env["TRANSFORMER_LIVE_TOKEN"], env["JUPYTERHUB_API_TOKEN"], "authorization:", "cookie:"):
            assert secret.lower() not in text.lower(), text[:500]
    TIMES["requests that reached bob's port"] = len(texts)
