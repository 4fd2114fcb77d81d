"""The learner's side of the class's live view (learner_kit.live): what a kernel sends, when, and when not.

A small HTTP server stands in for the hub's class-live service (hub/live). Each learner is a child Python process
(a kernel's environment, its own home folder) that runs the notebooks' real visible test cells
(tests/visible_cells.py) as cells of an IPython shell, on the reference's units and on planted mistakes.
"""
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from learner_kit import live
from learner_kit.messages import CATALOGUE
from tests.serving import JSONHandler, ThreadedServer, free_port

ROOT = Path(__file__).resolve().parents[2]
SERVICE_PATH = "/services/class-live/"
TOKEN = "learner-token-1"
SPEC_KEYS = {"event_id", "notebook", "unit", "outcome", "level", "lang", "time"}
SDPA = "scaled_dot_product_attention"
HUB_ONLY = (live.URL_VARIABLE, live.TOKEN_VARIABLE, live.SWITCH_VARIABLE, "JPY_SESSION_NAME", "NBGRADER_EXECUTION",
            "XDG_CONFIG_HOME")


class Service(ThreadedServer):
    """Stands in for the class-live service: records every request; answers `failures` 503s first, then 200."""

    def __init__(self, port=None, failures=0):
        self.requests, self.failures, self.lock = [], failures, threading.Lock()
        service = self

        class Handler(JSONHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with service.lock:
                    status = 503 if service.failures > 0 else 200
                    service.failures -= status == 503
                    service.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                             "body": body, "status": status})
                self.send_json(status, {"stored": body.get("event_id")} if status == 200 else {})

        super().__init__(Handler, port or 0)
        self.url = f"http://127.0.0.1:{self.port}{SERVICE_PATH}"

    def stored(self):
        with self.lock:
            return [r["body"] for r in self.requests if r["status"] == 200]


@pytest.fixture
def service():
    running = Service()
    yield running
    running.close()


# A learner's kernel: the notebooks' real visible test cells, run as cells of an IPython shell.
KERNEL = r'''
import json, math, sys, threading
import torch
import torch.nn.functional as F
from torch import nn
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from autograder import reference
from autograder.checks import UNITS
from learner_kit import live
from learner_kit.explain import explain_errors
from learner_kit.messages import format_message
from learner_kit.visible import check_visible, passed
from tests.visible_cells import visible_cell

shell = InteractiveShell.instance()
shell.user_ns.update({name: getattr(reference, name) for name in dir(reference) if not name.startswith("_")})
shell.user_ns.update(torch=torch, nn=nn, F=F, math=math, format_message=format_message, check_visible=check_visible,
                     passed=passed, explain_errors=explain_errors)
cells = []

def cell(source):
    with capture_output() as shown:
        result = shell.run_cell(source, store_history=True)
    error = result.error_in_exec
    said = (str(error).splitlines() or [type(error).__name__])[0] if error else ""
    cells.append({"error": said, "shown": shown.stdout})

def test_cell(unit, candidate=None):
    """The notebook's visible test cell of `unit`, on `candidate` (else the answer cell run before it)."""
    if candidate is not None:
        shell.user_ns[unit] = candidate
    cell(visible_cell(unit))

def mistake(unit, mistake_id):
    return UNITS[unit].mutants[mistake_id][0]

def done():
    sent = live.wait_sent(30)
    print(json.dumps({"cells": cells, "sent": sent, "threads": sorted(t.name for t in threading.enumerate())}))
'''


def kernel(script, home, hub_url=None, **env):
    """Run `script` after KERNEL in a learner's process (HOME=home; on the hub when `hub_url`); done()'s JSON."""
    environment = {key: value for key, value in os.environ.items() if key not in HUB_ONLY}
    environment.update(HOME=str(home), PYTHONPATH=str(ROOT), IPYTHONDIR=str(home / ".ipython"))
    if hub_url:
        environment.update({live.URL_VARIABLE: hub_url, live.TOKEN_VARIABLE: TOKEN})
    environment.update(env)
    ran = subprocess.run([sys.executable, "-c", KERNEL + script], check=False, capture_output=True, text=True, cwd=ROOT,
                         env=environment, timeout=300)
    assert ran.returncode == 0, ran.stderr[-4000:]
    return json.loads(ran.stdout.strip().splitlines()[-1])


PASS_THEN_MISTAKE = f"""
test_cell("{SDPA}", reference.scaled_dot_product_attention)
test_cell("{SDPA}", mistake("{SDPA}", "sdpa-mask-inverted"))
done()
"""


@pytest.mark.parametrize("hub_env", [{}, {live.URL_VARIABLE: "URL"}, {live.TOKEN_VARIABLE: TOKEN}])
def test_off_the_hub_nothing_is_sent_and_no_thread_starts(service, tmp_path, hub_env):
    """`make lab`, Colab, a hub server without the service's URL: the tests run as ever, nothing else happens."""
    env = {key: service.url if value == "URL" else value for key, value in hub_env.items()}
    said = kernel(PASS_THEN_MISTAKE, tmp_path, **env)
    assert said["cells"][0] == {"error": "", "shown": f"All visible tests passed for {SDPA}.\n"}
    assert said["cells"][1]["error"].startswith("[sdpa-mask-inverted]")
    assert "live" not in said["cells"][1]["shown"]
    assert "transformer-live" not in said["threads"]
    assert service.requests == []


def test_on_the_hub_each_test_cell_sends_one_event_of_the_spec(service, tmp_path):
    said = kernel(PASS_THEN_MISTAKE, tmp_path, hub_url=service.url)
    assert said["sent"] and "transformer-live" in said["threads"]
    assert [r["path"] for r in service.requests] == [SERVICE_PATH + "api/events"] * 2
    assert {r["authorization"] for r in service.requests} == {f"token {TOKEN}"}
    events = service.stored()
    assert [set(event) for event in events] == [SPEC_KEYS, SPEC_KEYS]
    assert [(e["unit"], e["outcome"]) for e in events] == [(SDPA, "passed"), (SDPA, "sdpa-mask-inverted")]
    assert {(e["notebook"], e["level"], e["lang"]) for e in events} == {(None, "guided", "en")}  # no notebook file
    assert all(len(e["event_id"]) == 32 and int(e["event_id"], 16) >= 0 for e in events)
    assert events[0]["event_id"] != events[1]["event_id"]
    assert all(isinstance(e["time"], float) and abs(e["time"] - time.time()) < 300 for e in events)
    # the first report says so, once, below the test's own output
    first, second = (c["shown"] for c in said["cells"])
    assert first.startswith(f"All visible tests passed for {SDPA}.\n") and "live.off()" in first.splitlines()[-1]
    assert "live.off()" not in second


def test_only_the_token_the_hub_made_for_the_service_is_sent_never_the_servers(service, tmp_path):
    """A student's server has JupyterHub's JUPYTERHUB_API_TOKEN (it opens her files and kernels) and the hub's
    TRANSFORMER_LIVE_TOKEN (class-live's alone): only the latter leaves the kernel; with the server's token alone,
    nothing is sent at all."""
    servers = "the-servers-own-token-0123456789abcdef"
    kernel(PASS_THEN_MISTAKE, tmp_path, TRANSFORMER_LIVE_URL=service.url, TRANSFORMER_LIVE_TOKEN="the-live-token",
           JUPYTERHUB_API_TOKEN=servers)
    assert [r["authorization"] for r in service.requests] == ["token the-live-token"] * 2
    assert servers not in json.dumps(service.requests)
    service.requests.clear()
    said = kernel(PASS_THEN_MISTAKE, tmp_path / "2", TRANSFORMER_LIVE_URL=service.url, JUPYTERHUB_API_TOKEN=servers)
    assert service.requests == [] and "transformer-live" not in said["threads"]


def test_the_notebook_its_level_and_language_come_from_the_notebook_the_kernel_runs(service, tmp_path):
    """jupyter-server tells the kernel its notebook (JPY_SESSION_NAME); the notebook's metadata its level."""
    folder = tmp_path / "01-attention"
    folder.mkdir()
    notebook = nbformat.v4.new_notebook(metadata={"course_language": "ko", "course_level": "challenge"})
    nbformat.write(notebook, folder / "01-attention.ipynb")
    script = f'cell("from learner_kit.i18n import set_language\\nset_language(\\"ko\\")")\n{PASS_THEN_MISTAKE}'
    said = kernel(script, tmp_path, hub_url=service.url, JPY_SESSION_NAME=str(folder / "01-attention.ipynb"))
    events = service.stored()
    assert {(e["notebook"], e["level"], e["lang"]) for e in events} == {("01-attention", "challenge", "ko")}
    notice = said["cells"][1]["shown"].splitlines()[-1]
    assert "live.off()" in notice and any("\uac00" <= ch <= "\ud7a3" for ch in notice), notice


CAPSTONE = """
cell('''def noam_rate(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return factor * d_model ** -0.5 * step ** -0.5
''')
test_cell("noam_rate")
test_cell("noam_rate", reference.noam_rate)
done()
"""


def test_a_capstone_test_cell_reports_once_for_all_its_checks(service, tmp_path):
    """Notebook 10's checks run one by one under explain_errors: one event per cell run, its first failure's id."""
    said = kernel(CAPSTONE, tmp_path, hub_url=service.url)
    failing, passing = said["cells"][1:]
    shown_id = failing["error"][1:failing["error"].index("]")]
    assert shown_id in CATALOGUE and shown_id != "runtime-error", failing
    events = service.stored()
    assert [(e["unit"], e["outcome"]) for e in events] == [("noam_rate", shown_id), ("noam_rate", "passed")]
    assert passing["shown"] == "All visible tests passed for noam_rate.\n"  # the notice went with the first report


def test_unknown_ids_and_units_and_cells_that_stop(service, tmp_path):
    """An id the catalogue does not know is "failed", a unit that is not graded is not sent; a capstone cell whose
    checks passed but that was then stopped reports nothing, one that broke reports "failed"."""
    script = f"""
def broken(query, key, value, mask=None, dropout=None):
    raise ValueError("no")
test_cell("{SDPA}", broken)
cell('from learner_kit import live\\nlive.tested("{SDPA}", "made-up-id")\\nlive.tested("no_such_unit", "passed")')
cell("with explain_errors(noam_rate):\\n    pass\\nraise KeyboardInterrupt")  # stopped: no outcome to report
cell("with explain_errors(noam_rate):\\n    pass\\nraise ValueError('the cell broke after the check')")
done()
"""
    kernel(script, tmp_path, hub_url=service.url)
    assert [(e["unit"], e["outcome"]) for e in service.stored()] == [
        (SDPA, "runtime-error"), (SDPA, "failed"), ("noam_rate", "failed")]


@pytest.mark.parametrize("how", ["environment", "live.off()"])
def test_opting_out_stops_sending(service, tmp_path, how):
    if how == "environment":
        said = kernel(PASS_THEN_MISTAKE, tmp_path, hub_url=service.url, TRANSFORMER_LIVE="off")
    else:
        said = kernel('cell("from learner_kit import live\\nlive.off()")\n' + PASS_THEN_MISTAKE, tmp_path,
                      hub_url=service.url)
        assert "no longer sent" in said["cells"][0]["shown"]
        assert json.loads((tmp_path / ".config" / "transformer-course" / "live.json").read_text()) == {"send": False}
        again = kernel(PASS_THEN_MISTAKE, tmp_path, hub_url=service.url)  # a new kernel: the choice holds
        assert "live.off()" not in again["cells"][0]["shown"]
    assert service.requests == [] and "transformer-live" not in said["threads"]
    if how == "live.off()":
        kernel('cell("from learner_kit import live\\nlive.on()")\n' + PASS_THEN_MISTAKE, tmp_path, hub_url=service.url)
        assert [e["outcome"] for e in service.stored()] == ["passed", "sdpa-mask-inverted"]


def test_a_service_that_is_down_then_failing_then_up_gets_every_event_with_its_first_id(tmp_path):
    """Nothing listens at first, then the service answers 503 twice, then stores: each event arrives once, in order,
    with the event_id it was queued with; the learner's cells never waited for it."""
    port = free_port()
    script = f"""
started = __import__("time").monotonic()
test_cell("{SDPA}", reference.scaled_dot_product_attention)
test_cell("{SDPA}", mistake("{SDPA}", "sdpa-no-scale"))
cell('from learner_kit import live\\nlive.tested("{SDPA}", "passed")')
queued = [body["event_id"] for _, _, body in live._sender.queue]
print(json.dumps({{"queued": queued}}), flush=True)
sys.stdin.readline()  # the service is up now
done()
"""
    environment = {key: value for key, value in os.environ.items() if key not in HUB_ONLY}
    environment.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), IPYTHONDIR=str(tmp_path / ".ipython"),
                       **{live.URL_VARIABLE: f"http://127.0.0.1:{port}{SERVICE_PATH}", live.TOKEN_VARIABLE: TOKEN})
    learner = subprocess.Popen([sys.executable, "-c", KERNEL + script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT, env=environment)
    try:
        queued = json.loads(learner.stdout.readline())["queued"]
        assert len(queued) == 3, learner.stderr.read() if not queued else queued
        time.sleep(1.5)  # the sender has tried and found nobody
        service = Service(port=port, failures=2)
        learner.stdin.write("\n")
        learner.stdin.flush()
        said = json.loads(learner.stdout.read().strip().splitlines()[-1])
        learner.wait(timeout=60)
    finally:
        learner.kill()
    service.close()
    assert said["sent"]
    tried = [r["body"]["event_id"] for r in service.requests if r["status"] == 503]
    assert tried == [queued[0], queued[0]]  # the head of the queue, resent with its id
    assert [e["event_id"] for e in service.stored()] == queued
    assert [e["outcome"] for e in service.stored()] == ["passed", "sdpa-no-scale", "passed"]


def test_the_queue_is_bounded_and_reporting_never_raises(monkeypatch):
    """While nobody answers, the newest MAX_QUEUED events wait; a broken address or a refusal raises nothing."""
    monkeypatch.setattr(live, "MAX_QUEUED", 3)
    sender = live.Sender()
    nowhere = f"http://127.0.0.1:{free_port()}/"
    for number in range(5):
        sender.put(nowhere, TOKEN, {"event_id": str(number)})
    with sender.changed:
        assert [body["event_id"] for _, _, body in sender.queue] == ["2", "3", "4"] and sender.dropped == 2
    sender.clear()
    assert sender.wait_sent(5)
    assert live.post("http://[::1", TOKEN, {}) == "refused"  # an address that is no URL: dropped, never retried
    assert live.post(nowhere, TOKEN, {}) == "retry"
    monkeypatch.setenv(live.URL_VARIABLE, "not a url")
    monkeypatch.setenv(live.TOKEN_VARIABLE, TOKEN)
    monkeypatch.setattr(live, "_sending", lambda: 1 / 0)
    live.report(SDPA, "passed")  # nothing raised into the notebook


def test_refusals_drop_the_event_and_the_courses_end_stops_sending():
    answers = iter([400, 401, 410])

    class Refusing(JSONHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(next(answers))
            self.end_headers()

    server = ThreadedServer(Refusing)
    try:
        url = f"http://127.0.0.1:{server.port}/"
        assert [live.post(url, TOKEN, {}) for _ in range(3)] == ["refused", "refused", "ended"]
    finally:
        server.close()


def test_a_429_is_sent_again_after_its_retry_after_not_sooner():
    """The service limits each student's rate (hub/live/events.py): 429 with Retry-After; the sender waits that long
    (2 s here, where its own back-off would wait 1 s), then the same event is stored."""
    seen = []

    class Limiting(JSONHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            seen.append((time.monotonic(), body["event_id"]))
            if len(seen) == 1:
                self.send_response(429)
                self.send_header("Retry-After", "2")
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send_json(200, {"stored": body["event_id"]})

    server = ThreadedServer(Limiting)
    try:
        sender = live.Sender()
        sender.put(f"http://127.0.0.1:{server.port}/", TOKEN, {"event_id": "e1"})
        assert sender.wait_sent(10)
    finally:
        server.close()
    assert [event_id for _, event_id in seen] == ["e1", "e1"]
    assert seen[1][0] - seen[0][0] >= 2.0


def test_the_progress_table_reports_nothing(service, tmp_path):
    """show_progress runs every visible test of the workspace: those runs are not the learner's test runs."""
    workspace = tmp_path / "workspace"
    (workspace / "01-attention").mkdir(parents=True)
    (workspace / "01-attention" / "01-attention.ipynb").write_bytes(
        (ROOT / "solutions" / "01-attention" / "01-attention.ipynb").read_bytes())
    script = f'cell("from learner_kit.progress import show_progress\\nshow_progress({str(workspace)!r}, in_process=True)")\ndone()'
    said = kernel(script, tmp_path, hub_url=service.url)
    assert "passed" in said["cells"][0]["shown"]
    assert service.requests == [] and "transformer-live" not in said["threads"]


def test_the_sandboxed_grader_reports_nothing(service, tmp_path):
    """`autograder grade`, with the hub's variables in its own environment: a submission whose visible test passes
    and that calls live.report itself sends nothing (grading kernels get a fixed environment, NBGRADER_EXECUTION)."""
    source = tmp_path / "source"
    (source / "01-attention").mkdir(parents=True)
    (source / "01-attention" / "01-attention.ipynb").write_bytes(
        (ROOT / "solutions" / "01-attention" / "01-attention.ipynb").read_bytes())
    submission = nbformat.read(source / "01-attention" / "01-attention.ipynb", as_version=4)
    submission.cells.append(nbformat.v4.new_code_cell(
        f'from learner_kit import live\nlive.report("{SDPA}", "passed")\nlive.tested("{SDPA}", "passed")\n'
        "live.wait_sent(5)"))
    (tmp_path / "submitted" / "learner" / "01-attention").mkdir(parents=True)
    nbformat.write(submission, tmp_path / "submitted" / "learner" / "01-attention" / "01-attention.ipynb")
    environment = {**os.environ, live.URL_VARIABLE: service.url, live.TOKEN_VARIABLE: TOKEN,
                   "AUTOGRADER_RUN_TAG": f"live{os.getpid()}"}
    environment.pop(live.SWITCH_VARIABLE, None)
    ran = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted"), "--out",
                          str(tmp_path / "out"), "--source", str(source), "--timeout", "60"],
                         check=False, capture_output=True, text=True, cwd=ROOT, env=environment, timeout=600)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    records = json.loads((tmp_path / "out" / "results.json").read_text())
    visible = [r for r in records if r["grade_id"] == f"{SDPA}-visible"]
    assert visible and visible[0]["points"] == visible[0]["max_points"], visible  # the visible test did run and pass
    time.sleep(1)
    assert service.requests == []
