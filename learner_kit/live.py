"""The class's live view: each visible test's outcome, sent to the instructor's page on the class's JupyterHub.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

    from learner_kit import live
    live.off()     # stop sending (kept in your home folder, for every notebook); live.on() sends again

On the hub (the hub gives a student's server TRANSFORMER_LIVE_URL, the service's Unix socket on the machine, and
TRANSFORMER_LIVE_TOKEN, a token JupyterHub scopes to that service alone), each run of a visible test cell sends one
event to the hub's `class-live` service: the unit, "passed" or the id of the mistake the test named ("failed" where it
named none), the notebook, the level, the language and the time. Never code, values or messages, and never the
server's own JUPYTERHUB_API_TOKEN. Anywhere else (`make lab`, Colab, the grader) nothing is sent and no thread is
started. TRANSFORMER_LIVE=off, or live.off(), stops it too.

Sending never holds up the notebook: events wait in a small queue (the oldest dropped beyond MAX_QUEUED) that a
daemon thread posts, with short timeouts, retrying with back-off while the service is down or as long as it asks
(429, Retry-After; a retry resends the same event_id, which the service stores once). Nothing here raises into the
learner's cell.

In a notebook the tests report through `tested` (check_visible) and `tested_in_cell` (the capstone's checks,
learner_kit.explain): the cell's outcome per unit is sent once, when the cell has finished, so that the first
time a line below the test's own output says what went to the live view and how to stop it.
"""
import atexit
import collections
import contextlib
import http.client
import json
import os
import re
import socket
import threading
import time
import urllib.parse
import uuid
from importlib import resources
from pathlib import Path

from learner_kit import i18n
from learner_kit.i18n import tr

URL_VARIABLE = "TRANSFORMER_LIVE_URL"  # the service's base URL, ending with '/' (the hub sets it for students):
# http+unix://<its socket's path, %-encoded>/services/class-live/ on the hub, or http(s)://
TOKEN_VARIABLE = "TRANSFORMER_LIVE_TOKEN"  # the hub's token for class-live alone (kernels inherit it)
SWITCH_VARIABLE = "TRANSFORMER_LIVE"  # "off": send nothing, whatever live.json says
PASSED, FAILED = "passed", "failed"
LEVELS, DEFAULT_LEVEL = ("guided", "challenge"), "guided"
LEVEL_KEY = "course_level"  # a notebook's level, in its metadata (written by the builder; autograder/levels.py)
ASSIGNMENT_ID = re.compile(r"\d\d-[a-z0-9-]{1,60}")  # 01-attention, ...: an assignment's folder and notebook
MAX_QUEUED = 500  # events kept while the service is down; older ones are dropped
POST_TIMEOUT_S = 5
FIRST_RETRY_S, LAST_RETRY_S = 1.0, 30.0  # back-off between retries while the service cannot be reached
MAX_WAIT_S = 300.0  # the longest Retry-After that is followed (a longer one is cut to this)
EXIT_FLUSH_S = 1.5  # at the kernel's exit, how long what is still queued may take to go out


# ---------------------------------------------------------------- on or off

def settings_file():
    """Where the learner's choice is kept: ~/.config/transformer-course/live.json (or under XDG_CONFIG_HOME)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "transformer-course" / "live.json"


def _chosen_on():
    try:
        return json.loads(settings_file().read_text(encoding="utf-8")).get("send", True) is not False
    except (OSError, ValueError, AttributeError):  # no file (the default: on), or one that is not ours
        return True


def on_the_hub():
    """Whether this kernel runs on the class's hub: both the service's URL and its token are set."""
    return bool(os.environ.get(URL_VARIABLE, "").strip() and os.environ.get(TOKEN_VARIABLE, "").strip())


def active():
    """Whether a visible test's outcome is sent now: on the hub, not graded (nbgrader sets NBGRADER_EXECUTION),
    not switched off (TRANSFORMER_LIVE=off, live.off()), and not inside quiet()."""
    return (on_the_hub() and not os.environ.get("NBGRADER_EXECUTION")
            and os.environ.get(SWITCH_VARIABLE, "").strip().lower() != "off" and not _quiet.depth and _chosen_on())


def off():
    """Stop sending your visible tests' outcomes, in every notebook, until live.on(); what is still queued is dropped."""
    _save_choice(False)
    if _sender is not None:
        _sender.clear()
    print(tr("Your visible tests' outcomes are no longer sent to the instructor's live view (live.on() sends them again)."))


def on():
    """Send your visible tests' outcomes again (on the class's hub only)."""
    _save_choice(True)
    if os.environ.get(SWITCH_VARIABLE, "").strip().lower() == "off":
        print(tr("TRANSFORMER_LIVE=off is set for this kernel: nothing is sent until it is unset."))
    elif on_the_hub():
        print(tr("Your visible tests' outcomes are sent to the instructor's live view again (live.off() stops it)."))
    else:
        print(tr("Outcomes are sent only on the class's JupyterHub: here nothing is sent."))


def _save_choice(send):
    path = settings_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"send": send}) + "\n", encoding="utf-8")
    except OSError as error:  # the choice still holds for this kernel: TRANSFORMER_LIVE is read on every report
        os.environ[SWITCH_VARIABLE] = "on" if send else "off"
        print(tr("Could not save the choice in {path} ({error}): it holds for this kernel only.",
                 path=path, error=type(error).__name__))


class _Quiet(threading.local):
    depth = 0


_quiet = _Quiet()


@contextlib.contextmanager
def quiet():
    """Send nothing inside the block: tests run for another purpose (learner_kit.progress's table)."""
    _quiet.depth += 1
    try:
        yield
    finally:
        _quiet.depth -= 1


# ---------------------------------------------------------------- what is sent

def known_unit(unit):
    """Whether `unit` is a graded unit of the course (it has a fingerprint: stored cases, or runs of a unit its
    notebook checks itself)."""
    folder = resources.files("learner_kit") / "fingerprints"
    return isinstance(unit, str) and any((folder / f"{unit}{suffix}.pt").is_file() for suffix in ("", ".runs"))


def outcome_of(error):
    """The outcome a test that raised `error` reports: the id in its message's first [brackets] when the course's
    catalogue knows it, else "failed"."""
    from learner_kit.messages import CATALOGUE

    found = re.search(r"\[([a-z0-9-]+)\]", str(error))
    return found.group(1) if found and found.group(1) in CATALOGUE else FAILED


def _notebook_file():
    """The notebook this kernel runs (jupyter-server gives its kernels JPY_SESSION_NAME), or None."""
    named = os.environ.get("JPY_SESSION_NAME", "").strip()
    if not named:
        return None
    path = Path(named)
    for candidate in (path, Path.cwd() / path.name):
        if candidate.suffix == ".ipynb" and candidate.is_file():
            return candidate.resolve()
    return None


def assignment_id(notebook):
    """The assignment a notebook belongs to (its folder, 01-attention/, or its name, 01-attention.ipynb), or None."""
    if notebook is None:
        return None
    for name in (notebook.parent.name, notebook.stem):
        if ASSIGNMENT_ID.fullmatch(name):
            return name
    return None


_levels = {}  # notebook path -> its level (read once per kernel)


def notebook_level(notebook):
    """The level a notebook was released at (its metadata's course_level), guided where it says none."""
    if notebook is None:
        return DEFAULT_LEVEL
    if notebook not in _levels:
        try:
            level = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get(LEVEL_KEY)
        except (OSError, ValueError, AttributeError):
            level = None
        _levels[notebook] = level if level in LEVELS else DEFAULT_LEVEL
    return _levels[notebook]


def event(unit, outcome):
    """The event for one run of a visible test: exactly the service's fields (hub/live), nothing of the code."""
    notebook = _notebook_file()
    return {"event_id": uuid.uuid4().hex, "notebook": assignment_id(notebook), "unit": unit, "outcome": outcome,
            "level": notebook_level(notebook), "lang": i18n.language(), "time": time.time()}


# ---------------------------------------------------------------- reporting

_announced = False


def report(unit, outcome):
    """Send one visible test run's outcome ("passed", a misconception id, or "failed"), if active(); the first time
    in this kernel, say so below the test's output. Never raises, never waits for the network."""
    global _announced
    try:
        if not active() or not known_unit(unit):
            return
        if outcome not in (PASSED, FAILED):
            from learner_kit.messages import CATALOGUE

            outcome = outcome if outcome in CATALOGUE else FAILED
        _sending().put(os.environ[URL_VARIABLE].strip(), os.environ[TOKEN_VARIABLE].strip(), event(unit, outcome))
        if not _announced:
            _announced = True
            print(tr("This test's outcome (its unit, and passed or the mistake's id; never your code) goes to your "
                     "instructor's live view of the class; to stop that, run `from learner_kit import live; live.off()`."))
    except Exception:  # noqa: BLE001 - the live view is a courtesy: the learner's cell never fails because of it
        pass


def tested(unit, outcome):
    """A visible test of `unit` ended with `outcome`: in a notebook cell, reported when the cell ends (once per unit
    and cell); elsewhere, now."""
    if _quiet.depth or not on_the_hub():
        return
    if not _note_in_cell(unit, outcome, final=True):
        report(unit, outcome)


def tested_in_cell(unit, outcome):
    """One of the checks a notebook cell runs on `unit` ended with `outcome` (learner_kit.explain): the cell's first
    failure, else "passed", is reported when the cell ends. Outside a notebook cell there is no test run to speak
    of, and nothing is reported. A check that passed says only that the cell has not failed yet: the cell passes
    if it ends without an error (stopped by the learner, Ctrl-C or the stop button, it reports nothing)."""
    if not _quiet.depth and on_the_hub():
        _note_in_cell(unit, outcome, final=outcome != PASSED)


_in_cell = {}  # unit -> (the outcome of the running cell's tests of it: the first failure, else passed; final?)


def _note_in_cell(unit, outcome, final):
    """Keep the outcome for the end of the running IPython cell; False outside IPython."""
    shell = _shell()
    if shell is None:
        return False
    if _report_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _report_cell)
    if _in_cell.get(unit, (PASSED, False))[0] == PASSED:
        _in_cell[unit] = (outcome, final or _in_cell.get(unit, (PASSED, False))[1])
    return True


def _report_cell(result=None):
    """IPython's post_run_cell: report each unit the cell tested, once (its output is shown by then)."""
    finished = dict(_in_cell)
    _in_cell.clear()
    error = getattr(result, "error_in_exec", None)
    for unit, (outcome, final) in finished.items():
        if not final and error is not None:  # its checks passed, but the cell did not end well
            if not isinstance(error, Exception):  # interrupted: the test did not finish
                continue
            outcome = outcome_of(error)
        report(unit, outcome)


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


# ---------------------------------------------------------------- the sender

class Sender:
    """A daemon thread that posts queued events in order; an event leaves the queue once the service answered it."""

    def __init__(self):
        self.queue = collections.deque()
        self.changed = threading.Condition()
        self.thread = None
        self.dropped = 0  # events dropped because the queue was full
        self.stopped = False  # the service said the course has ended (410): nothing more to send

    def put(self, url, token, body):
        with self.changed:
            if self.stopped:
                return
            self.queue.append((url, token, body))
            while len(self.queue) > MAX_QUEUED:
                self.queue.popleft()
                self.dropped += 1
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="transformer-live", daemon=True)
                self.thread.start()
            self.changed.notify_all()

    def clear(self):
        with self.changed:
            self.queue.clear()
            self.changed.notify_all()

    def wait_sent(self, timeout):
        """Wait until the queue is empty, at most `timeout` seconds; whether it is."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.queue and time.monotonic() < deadline:
                self.changed.wait(deadline - time.monotonic())
            return not self.queue

    def _run(self):
        pause = FIRST_RETRY_S
        while True:
            with self.changed:
                while not self.queue:
                    self.changed.wait()
                item = self.queue[0]
            answer, asked = send(*item)
            with self.changed:
                if answer == "retry":  # wait (new events only join the queue), then resend the head, if still there
                    resend_at = time.monotonic() + (asked if asked is not None else pause)
                    while self.queue and time.monotonic() < resend_at:
                        self.changed.wait(resend_at - time.monotonic())
                    pause = pause if asked is not None else min(pause * 2, LAST_RETRY_S)
                    continue
                pause = FIRST_RETRY_S
                if answer == "ended":
                    self.stopped = True
                    self.queue.clear()
                elif self.queue and self.queue[0] is item:  # stored, or refused for good: it leaves the queue
                    self.queue.popleft()
                self.changed.notify_all()


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket (the hub's class-live listens on one that only root can create)."""

    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def connect(url, timeout=POST_TIMEOUT_S):
    """(connection, path) for `url`: http+unix://<socket path, %-encoded>/path, http:// or https://. No proxy of the
    environment is used (what is sent carries a token). ValueError for any other address."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "http+unix" and parts.netloc:
        return _UnixConnection(urllib.parse.unquote(parts.netloc), timeout), parts.path
    if parts.scheme in ("http", "https") and parts.hostname:
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        return kind(parts.hostname, parts.port, timeout=timeout), parts.path
    raise ValueError(f"not an address of the live view: {url!r}")


def post(url, token, body):
    """POST one event: "stored" (200), "refused" (a 4xx other than 410 and 429, or an address that is no URL:
    resending cannot help), "ended" (410: the course has ended), or "retry" (no answer, or the service is busy or
    failing)."""
    return send(url, token, body)[0]


def send(url, token, body):
    """post's answer, and the seconds the service asked to wait before sending again (429's Retry-After), or None."""
    try:
        connection, path = connect(url)
    except ValueError:
        return "refused", None
    try:
        connection.request("POST", path.rstrip("/") + "/api/events", body=json.dumps(body).encode(),
                           headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
    except Exception:  # noqa: BLE001 - no socket, refused connection, timeout: the service is not there now
        return "retry", None
    finally:
        connection.close()
    status = response.status
    if status == 200:
        return "stored", None
    if status == 410:
        return "ended", None
    if status == 429:
        asked = response.getheader("Retry-After", "")
        return "retry", min(max(float(asked), 1.0), MAX_WAIT_S) if asked.isascii() and asked.isdigit() else None
    return ("refused" if 400 <= status < 500 else "retry"), None


_sender = None
_sender_lock = threading.Lock()


def _sending():
    global _sender
    with _sender_lock:
        if _sender is None:
            _sender = Sender()
            atexit.register(_flush_at_exit)
        return _sender


def wait_sent(timeout=5.0):
    """Wait until every queued event was answered (at most `timeout` s); whether none is left. True if none was sent."""
    return _sender is None or _sender.wait_sent(timeout)


def _flush_at_exit():
    if _sender is not None:
        _sender.wait_sent(EXIT_FLUSH_S)
