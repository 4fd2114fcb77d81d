"""A class on the course's JupyterHub in a browser test: its system users, `make hub` on free ports, one browser
page per person, and what a person does in the hub's pages (log in, a terminal, the Assignment List).

Shared by the hub's browser tests (test_hub_class.py, test_hub_live.py). The fixtures ``accounts``, ``hub`` and
``people`` (registered in conftest.py) read the test module's class from its globals:

    TEACHER = "hubteacher"                            # the instructor
    STUDENTS = {"hubminji": "ko", "hubbob": "en-challenge"}   # each student's edition (hub/course.py)
    PREFIX = "hub"      # build/screenshots/<PREFIX>-NN-*.png, <PREFIX>.log (the hub's), <PREFIX>-timings.json
    TIMES = {}          # the module's measured times (the hub's start is added), written after the last step
    CURRENT_PAGE = hub_fixtures.CURRENT_PAGE          # for conftest's screenshot of a failed step

Two such modules may run at once (`make test` runs test files on two workers): their users differ, and what they
share on this machine is taken in turn under a file lock: useradd/userdel (/etc/passwd), `make hub`'s set-up
(hub/prepare.py creates the instructors' group) and the folders above the repository that are opened for the users
while any of the hubs runs.
"""
import contextlib
import fcntl
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from tests.browser.jupyter_servers import (
    ROOT,
    SCREENSHOTS,
    Screens,
    _signal_group,
    open_page,
)
from tests.serving import first_answer, free_port

CURRENT_PAGE = {}  # the page a failed step's screenshot is taken of (see ``shown``)
LOCK = Path(tempfile.gettempdir()) / "transformer-hub-tests.lock"
OPENED = Path(tempfile.gettempdir()) / "transformer-hub-tests.opened.json"  # who holds the opened folders, and their modes


@contextlib.contextmanager
def machine_lock():
    """This machine's users, groups and folder modes, changed by one hub test at a time."""
    with open(LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---------------------------------------------------------------- the class: system users, the hub

def _remove_user(name):
    if subprocess.run(["id", name], capture_output=True, check=False).returncode == 0:
        subprocess.run(["userdel", "--force", "--remove", name], capture_output=True, check=False)


def _class_of(module):
    return [module.TEACHER, *module.STUDENTS]


@pytest.fixture(scope="module")
def accounts(request):
    """The class's system users, each with a random password; removed, with their homes, afterwards."""
    if os.geteuid() != 0:
        pytest.fail("the hub's class test runs as root (CI does): it creates system users, and JupyterHub "
                    "checks their passwords with PAM and starts each user's server as that user")
    passwords = {}
    with machine_lock():
        for name in _class_of(request.module):
            _remove_user(name)  # a run that was killed may have left it
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
            passwords[name] = secrets.token_urlsafe(12)
            subprocess.run(["chpasswd"], input=f"{name}:{passwords[name]}\n", text=True, check=True)
    yield passwords
    with machine_lock():
        for name in passwords:
            _remove_user(name)


class Hub:
    """`make hub` on free ports, with a hub folder and class file of its own, stopped as a person would (Ctrl-C)."""

    def __init__(self, folder, class_file, times):
        self.folder, self.class_file, self.times = folder, class_file, times
        self.log = folder / "hub.log"
        self.exchange = folder / "state" / "exchange"
        self.process = None

    def start(self):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.live_port = free_port()  # the class-live service's (hub/live; TRANSFORMER_LIVE_PORT), a free one too
        variables = {"HUB_DIR": self.folder / "state", "HUB_CLASS": self.class_file, "HUB_PORT": self.port,
                     "HUB_API_PORT": free_port(), "HUB_PROXY_API_PORT": free_port()}
        self.output = open(self.log, "ab")  # noqa: SIM115  (closed by stop())
        with machine_lock():  # hub/prepare.py (the instructors' group) one hub at a time
            # What `make hub` installs first (make test's hub-tool has, unless requirements changed since): not timed.
            tools = subprocess.run(["make", "--no-print-directory", "hub-tool", "sandbox-tool"], cwd=ROOT,
                                   stdout=self.output, stderr=subprocess.STDOUT, timeout=1800, check=False)
            if tools.returncode != 0:
                pytest.fail(f"`make hub-tool` failed (status {tools.returncode}):\n{self.log_text()[-4000:]}")
            started = time.monotonic()
            self.process = subprocess.Popen(
                ["make", "--no-print-directory", "hub", *(f"{k}={v}" for k, v in variables.items())], cwd=ROOT,
                env={**os.environ, "TRANSFORMER_LIVE_PORT": str(self.live_port)},
                stdout=self.output, stderr=subprocess.STDOUT, start_new_session=True)
            first_answer(f"{self.base}/hub/api", self.process, 180, self.log_text, "`make hub`", interval=0.3)
        self.times["hub start (make hub until the hub answers), s"] = round(time.monotonic() - started, 1)
        return self

    def stop(self):
        """SIGINT to JupyterHub (it stops its services, the proxy and the users' servers), then what is left of the
        group, and of the processes the hub started in sessions of their own: none should be, and none may outlive
        the test (a user's server left running holds its port and the user's files)."""
        if self.process is None:
            return
        group = self.process.pid
        started = psutil.Process(group).children(recursive=True)
        _signal_group(group, signal.SIGINT)
        stopping = time.monotonic()
        deadline = stopping + 30
        while _signal_group(group, 0) and time.monotonic() < deadline:
            self.process.poll()
            time.sleep(0.3)
        _signal_group(group, signal.SIGKILL)
        self.process.wait(timeout=10)
        for process in started:
            with contextlib.suppress(psutil.Error):
                process.kill()
        self.times["hub stop (Ctrl-C until the hub and its processes are gone), s"] = round(time.monotonic() - stopping, 1)
        self.process = None
        self.output.close()

    def log_text(self):
        return self.log.read_bytes().decode(errors="replace") if self.log.is_file() else ""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def the_way_open():
    """The folders above this repository that other users may not enter (a clone in a private folder), opened to
    enter (o+x, not to list) while a hub test runs, so that the class's users can run their servers; their modes are
    restored when the last hub test of this machine that needs them ends (a killed run's are restored then too)."""
    me = [os.getpid(), secrets.token_hex(8)]
    with machine_lock():
        state = json.loads(OPENED.read_text()) if OPENED.is_file() else {"holders": [], "opened": []}
        state["holders"] = [holder for holder in state["holders"] if _alive(holder[0])] + [me]
        for folder in [*reversed(ROOT.parents), ROOT]:
            mode = folder.stat().st_mode
            if not mode & 0o001:
                folder.chmod((mode & 0o7777) | 0o001)
                state["opened"].append([str(folder), mode & 0o7777])
        OPENED.write_text(json.dumps(state))
    try:
        yield
    finally:
        with machine_lock():
            state = json.loads(OPENED.read_text()) if OPENED.is_file() else {"holders": [], "opened": []}
            state["holders"] = [holder for holder in state["holders"] if holder != me and _alive(holder[0])]
            if state["holders"]:
                OPENED.write_text(json.dumps(state))
            else:
                for path, mode in reversed(state["opened"]):
                    Path(path).chmod(mode)
                OPENED.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def hub(request, accounts):
    module = request.module
    folder = Path(tempfile.mkdtemp(prefix=f"transformer-{module.PREFIX}-"))
    folder.chmod(0o711)  # the exchange inside must be reachable by every user
    class_file = folder / "class.json"
    class_file.write_text(json.dumps({"instructors": [module.TEACHER], "students": module.STUDENTS}), encoding="utf-8")
    server = Hub(folder, class_file, module.TIMES)
    with the_way_open():
        try:
            yield server.start()
        finally:
            server.stop()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(server.log, SCREENSHOTS / f"{module.PREFIX}.log") if server.log.is_file() else None
            shutil.rmtree(folder, ignore_errors=True)
            times = json.dumps(module.TIMES, indent=1)
            (SCREENSHOTS / f"{module.PREFIX}-timings.json").write_text(times + "\n", encoding="utf-8")
            print(f"\n{module.PREFIX}: screenshots in {SCREENSHOTS}/{module.PREFIX}-*.png; times: {json.dumps(module.TIMES)}")


@pytest.fixture(scope="module")
def people(request, chromium, hub, accounts):
    """One browser page (its own cookies) for each person of the class: people.<name>."""
    screens = Screens(request.module.PREFIX)
    found = {}
    for name in _class_of(request.module):
        errors = []
        page = open_page(chromium, errors)
        page.on("response", lambda response, errors=errors: errors.append(f"HTTP {response.status} {response.url}")
                if response.status >= 400 else None)  # which request a console's "Failed to load resource" was
        found[name] = SimpleNamespace(name=name, page=page, errors=errors, password=accounts[name],
                                      home=Path(pwd.getpwnam(name).pw_dir))
    yield SimpleNamespace(screens=screens, **found)
    CURRENT_PAGE.clear()
    for person in found.values():
        person.page.close()


# ---------------------------------------------------------------- what a person does in the hub's pages

def shown(person):
    """The person's browser page, made the one a failed step's screenshot is taken of."""
    CURRENT_PAGE["page"] = person.page
    return person.page


def send_login_form(page, person):
    """The hub's login form (the page shows it), filled with the person's name and password and sent."""
    page.locator("input[name=username]").fill(person.name)
    page.locator("input[name=password]").fill(person.password)
    page.locator("input[type=submit], button[type=submit]").first.click()


def log_in(hub, person, lands_on):
    """The hub's login; waits until the browser is at /user/<name>/<lands_on> (a regex): the person's server."""
    page = shown(person)
    page.goto(f"{hub.base}/hub/login")
    send_login_form(page, person)
    page.wait_for_url(re.compile(rf"/user/{person.name}/{lands_on}"), timeout=180_000)


def open_terminal(hub, person):
    page = person.page
    page.goto(f"{hub.base}/user/{person.name}/lab?reset")  # a fresh layout: the Launcher
    page.locator(".jp-LauncherCard", has_text="Terminal").first.click()
    page.locator(".jp-Terminal .xterm").last.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # the shell's prompt
    return page


def run_in_terminal(hub, person, name, script, timeout=300):
    """Run ``script`` (one shell line) in a new terminal of ``person``; its exit status and output.

    The script is written to a file in the person's home (theirs, mode 0600) and the terminal is given one short
    line that runs it: xterm.js takes typed keys one at a time, so typing a long script took a minute. The output
    also goes to a file in the home, which the test (root) reads back; the terminal shows its last lines for the
    screenshot.
    """
    page = open_terminal(hub, person)
    script_file = person.home / f".hub-step-{name}.sh"
    log, status = person.home / f".hub-step-{name}.log", person.home / f".hub-step-{name}.status"
    for old in (log, status):
        old.unlink(missing_ok=True)
    script_file.write_text(script + "\n", encoding="utf-8")
    owner = pwd.getpwnam(person.name)
    os.chown(script_file, owner.pw_uid, owner.pw_gid)
    script_file.chmod(0o600)
    page.locator(".jp-Terminal .xterm").last.click()
    page.keyboard.type(f"bash ~/{script_file.name} > ~/{log.name} 2>&1; echo $? > ~/{status.name}; tail -n 30 ~/{log.name}\n")
    deadline = time.monotonic() + timeout
    while not (status.is_file() and status.read_text().strip()):
        if time.monotonic() > deadline:
            pytest.fail(f"{person.name}'s terminal step {name} did not finish within {timeout} s:\n"
                        f"{log.read_text(errors='replace')[-3000:] if log.is_file() else ''}")
        time.sleep(0.5)
    page.wait_for_timeout(800)
    return int(status.read_text()), log.read_text(errors="replace")


def open_assignment_list(page):
    """Nbgrader > Assignment List; the items that the Nbgrader menu showed."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").first.click()
    entry = page.locator(".lm-Menu-item", has_text="Assignment List").first
    entry.wait_for()
    items = page.locator(".lm-Menu-item:visible").all_inner_texts()
    entry.click()
    page.locator("#released_assignments_list").wait_for()
    return [item.strip() for item in items]


def row(page, section, text):
    """The Assignment List's row of an assignment (not the rows of its notebooks, nested in it)."""
    return page.locator(f"#{section} .list_item:not(.nested_list_item)", has_text=text)
