"""The notebook's time budget has one owner, sandbox_servers/budget.py: every place that keeps it takes its figure
from there, the instructor reads one description of it (--help, the Settings field, README.md) and the learner one
sentence when it runs out, in each language."""
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.grading.bookkeeping.config import Settings
from autograder.grading.run import forked_kernels, judge, verify
from learner_kit.i18n import speaking
from sandbox_servers import budget, unit_server, wire
from sandbox_servers.budget import HELP, WALL_BACKSTOP, NotebookBudget, out_of_time

ROOT = Path(__file__).resolve().parents[2]
CODE = [path for folder in ("learner_kit", "sandbox_servers", "autograder") for path in sorted((ROOT / folder).rglob("*.py"))
        if "locales" not in path.parts]
SETTINGS = Settings(notebook_budget_s=30)


def flat(text):
    return " ".join(text.split())


# ---------------------------------------------------------------- the budget's meaning
def test_the_budget_counts_cpu_time_with_a_wall_clock_backstop_of_two_budgets():
    of = NotebookBudget.of(SETTINGS)
    assert of == NotebookBudget(30) and WALL_BACKSTOP == 2
    assert of.cpu_limit_s == 30 and of.rlimit_cpu == (30, 35)
    assert of.wall_s(cpu_counted=True) == 60 and of.wall_s(cpu_counted=False) == 30
    assert of.deadline(100.0, cpu_counted=True) == 160.0 and of.deadline(100.0) == 130.0
    assert of.left_s(12) == 18
    assert of.limits(memory_mb=3072, file_mb=64) == {"memory_mb": 3072, "file_mb": 64, "cpu_s": 30}
    assert NotebookBudget.from_limits(of.limits()) == of and NotebookBudget.from_limits({}) is None
    assert Settings().notebook_budget_s == budget.DEFAULT_S == NotebookBudget().seconds


# ---------------------------------------------------------------- every enforcement point asks the module
class RecordingServer:
    """A unit server that records what the verifier asks for and starts no child."""

    started = True

    def __init__(self, cpu_counted):
        self.asked, self.cpu_counted = [], cpu_counted

    def notebook(self, cells, cell_timeout, limits, budget_s, language="en", cuda=False):
        self.asked.append((limits, budget_s))
        return SimpleNamespace(cpu_counted=self.cpu_counted, cuda=False, dead=None, end=lambda: None), {}


@pytest.mark.parametrize("cpu_counted", [True, False])
def test_the_verifier_sends_the_budget_and_keeps_its_deadline(cpu_counted):
    server = RecordingServer(cpu_counted)
    limits = NotebookBudget.of(SETTINGS).limits(memory_mb=SETTINGS.verifier_memory_mb, file_mb=64)
    run = verify.NotebookRun(server, 10, limits, NotebookBudget.of(SETTINGS).seconds, "en")
    run.start()
    sent_limits, sent_s = server.asked[0]
    assert NotebookBudget.from_limits(sent_limits) == NotebookBudget(30)
    assert 29 < sent_s <= 30  # what is left of it
    assert run.deadline == NotebookBudget(30).deadline(run.begun, cpu_counted)


def test_the_verifier_takes_its_limits_from_the_budget(monkeypatch):
    asked = []

    class Run:
        def __init__(self, server, cell_timeout, limits, budget_s, language):
            asked.append((limits, budget_s))

        def start(self):
            raise judge.SessionFailure("stopped here")

        def out_of_time(self):
            return False

    monkeypatch.setattr(verify, "NotebookRun", Run)
    verifier = SimpleNamespace(settings=SETTINGS, server=None, cell_timeout=10)
    verify.Verifier._verify(verifier, SimpleNamespace(graded=[]), None, "en")
    assert asked == [(NotebookBudget(30).limits(memory_mb=SETTINGS.verifier_memory_mb, file_mb=64), 30)]


@pytest.mark.parametrize("cpu_counted", [True, False])
def test_the_judges_session_stops_at_the_budgets_wall_clock_deadline(cpu_counted):
    replies = iter([{"started": 1, "cpu_counted": cpu_counted}, {"loaded": True}])
    server = judge.UnitServer.__new__(judge.UnitServer)
    server.started, server.workdir, server.start, server.send = True, "/tmp", lambda: None, lambda message: None
    server.receive = lambda deadline: next(replies)
    before = time.monotonic()
    session, _ = server.notebook([], 10, NotebookBudget(30).limits(), 30)
    assert NotebookBudget(30).deadline(before, cpu_counted) <= session.deadline
    assert session.deadline <= NotebookBudget(30).deadline(time.monotonic(), cpu_counted)
    assert session.cpu_counted is cpu_counted


def test_the_unit_server_stops_a_notebook_at_the_budgets_cpu_seconds():
    """wait_for_child ends the child once its cgroup has counted more than the budget's CPU seconds, not before."""
    def waited(counted_s):
        child = subprocess.Popen(["sleep", "30"], start_new_session=True)
        control_read, control_write = os.pipe()
        cgroup = SimpleNamespace(memory=False, name=None, events=None, cpu_seconds=lambda: counted_s)
        if counted_s <= 30:
            os.write(control_write, b"k")  # under the budget: only the grader's kill ends it
        try:
            _, reason = unit_server.wait_for_child(child.pid, control_read, 0, False, cgroup, NotebookBudget(30))
        finally:
            os.close(control_read)
            os.close(control_write)
            child.kill()
            child.wait()
        return reason

    assert waited(30.5) == "time"
    assert waited(29.5) is None


def test_the_kernels_watchdog_keeps_what_is_left_of_the_budget(monkeypatch):
    monkeypatch.setattr(forked_kernels.Watchdog, "start", lambda self: None)
    server = SimpleNamespace(budget=NotebookBudget.of(SETTINGS), time_left_s=None)
    before = time.monotonic()
    whole = forked_kernels.Watchdog(None, server)
    assert before + 30 <= whole.deadline <= time.monotonic() + 30
    server.time_left_s = NotebookBudget.of(SETTINGS).left_s(22)
    left = forked_kernels.Watchdog(None, server)
    assert left.deadline <= time.monotonic() + 8
    assert forked_kernels.Watchdog(None, SimpleNamespace(budget=None, time_left_s=None)).deadline is None


def test_every_cpu_limit_and_backstop_comes_from_the_budget_module():
    """No other module sets RLIMIT_CPU from a figure of its own, defines a backstop of its own, or words the
    learner's out-of-time sentence (the instructor's words about the budget, in the report, are another matter)."""
    for path in CODE:
        if path.name == "budget.py" and path.parent.name == "sandbox_servers":
            continue
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        for call in re.findall(r"setrlimit\(resource\.RLIMIT_CPU, ([^\n]*)\)", text):
            assert call.endswith(".rlimit_cpu"), (where, call)
        assert not re.search(r"^WALL_BACKSTOP\s*=", text, re.MULTILINE), where
        assert not re.search(r"""tr\(\s*["'][^"']*(ran past|used up) its time budget""", text), where


# ---------------------------------------------------------------- one description for the instructor
def test_help_settings_and_readme_say_the_same():
    from autograder import cli

    grade = next(action for action in cli.build_parser()._subparsers._group_actions[0].choices.values()
                 if action.prog.endswith(" grade"))
    flag = next(action for action in grade._actions if "--budget" in action.option_strings)
    assert flag.help == HELP  # (its default: Settings', test above)
    assert flat(HELP) in flat(grade.format_help())
    assert flat(HELP) in flat((ROOT / "README.md").read_text(encoding="utf-8"))
    traits = getattr(Settings, "class_traits", None)
    if traits is not None:  # Settings as traitlets: the field's help is HELP itself
        assert traits()["notebook_budget_s"].help == HELP
    else:
        source = (ROOT / "autograder/grading/bookkeeping/config.py").read_text(encoding="utf-8")
        assert re.search(r"notebook_budget_s\b.*budget\.(HELP|DEFAULT_S)", source)


# ---------------------------------------------------------------- one sentence for the learner
def sentences_where_it_runs_out(monkeypatch):
    """What the learner reads from each place that stops a notebook out of its budget of 30 s."""
    limits = NotebookBudget(30).limits(memory_mb=3072)
    found = {
        "the cgroup's count": judge.exit_reason({"exited": -9, "reason": "time"}, limits),
        "a process's RLIMIT_CPU": judge.exit_reason({"exited": -signal.SIGXCPU, "reason": None}, limits),
    }

    class Closed:
        def receive(self, deadline):
            raise wire.ChannelClosed("end of file")

        def kill_child(self):
            pass

        def close(self):
            pass

    session = judge.Session(Closed(), time.monotonic() - 1, limits)
    with pytest.raises(judge.SessionFailure) as stopped:
        session.receive_reply(1)
    found["the judge's wall clock"] = str(stopped.value)

    run = verify.NotebookRun(None, 10, limits, 30, "en")
    run.deadline = time.monotonic() - 1
    with pytest.raises(judge.SessionFailure) as restarted:
        run.start()
    found["a restart past the deadline"] = str(restarted.value)

    monkeypatch.setattr(forked_kernels.Watchdog, "start", lambda self: None)
    watchdog = forked_kernels.Watchdog(None, SimpleNamespace(budget=NotebookBudget(30), time_left_s=None))
    watchdog.deadline = time.monotonic() - 1
    found["nbgrader's kernel"] = watchdog.over_time()[1].removeprefix("TimeoutError: ")

    from autograder.grading.run.worker import GradingWorker

    found["the kernel run not started"] = GradingWorker._kernel_run(
        SimpleNamespace(settings=SETTINGS), None, {"n": None}, SimpleNamespace(forget=lambda packed: None), 0, True)
    return found


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_learner_reads_one_sentence_wherever_the_budget_runs_out(monkeypatch, lang):
    import autograder.checks  # noqa: F401  (registers the grader's translations)

    with speaking(lang):
        expected = out_of_time(30)
        found = sentences_where_it_runs_out(monkeypatch)
    assert found == dict.fromkeys(found, expected)
    if lang == "ko":
        assert re.search(r"[\uac00-\ud7a3]", expected) and "30초" in expected
    else:
        assert expected == "it ran past its time budget of 30 s and was stopped"


# ---------------------------------------------------------------- names that are not the budget
def test_the_budgets_homonyms_have_names_of_their_own():
    assert not hasattr(unit_server, "CellTimeout") and issubclass(unit_server.CellOutOfTime, BaseException)
    quota = wire.ElementQuota()
    with pytest.raises(wire.ChannelClosed, match="tensor elements"):
        quota.take_elements(wire.MAX_ELEMENTS + 1)


@pytest.mark.parametrize("cpu_counted", [True, False])
def test_the_graders_own_work_between_requests_is_not_the_notebooks_time(cpu_counted):
    """The clock runs while the child has a request to answer: the grader's checks between a reply and the next
    request (slow on a busy machine) move the session's and the run's deadlines on; the child's own time does not."""
    sent = []

    replies = iter([{"started": 1, "cpu_counted": cpu_counted}, {"loaded": True}])

    def receive(deadline):
        if "seq" not in sent[-1]:  # the notebook's start
            return next(replies)
        time.sleep(CHILD_S)  # the child works
        return {"seq": sent[-1]["seq"]}

    server = judge.UnitServer.__new__(judge.UnitServer)
    server.started, server.workdir, server.start, server.send = True, "/tmp", lambda: None, sent.append
    server.receive = receive
    run = verify.NotebookRun(server, 10, NotebookBudget(30).limits(), 30, "en")
    run.start()
    session = run.session
    asked = time.monotonic()
    session.ask({"op": "first"})
    session_deadline, run_deadline = session.deadline, run.deadline
    time.sleep(GRADER_S)  # the grader's turn: its checks on the reply
    asking = time.monotonic()
    session.ask({"op": "second"})
    moved = session.deadline - session_deadline
    assert GRADER_S <= moved < asking - asked - CHILD_S + 0.3  # the grader's turn, none of the child's
    assert run.deadline - run_deadline == pytest.approx(moved)
    assert not run.out_of_time()


GRADER_S, CHILD_S = 0.5, 0.6
