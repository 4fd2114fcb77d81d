"""Where a grading run's time goes: each stage timed where it happens, so that the next change is chosen from figures.

A task (one submission, worker.py) runs inside ``recording()``; the code it calls marks its stages with
``stage(name)``, a context manager that adds the stage's elapsed wall time and this thread's CPU time to the
task's record (outside a recording it does nothing, so the pieces stay usable alone). Stages nest: an inner
stage's time is its own, not also its parent's, so a record's stages never count a second twice and, with
``OTHER`` (what no stage claimed), they add up to the task's wall time. The record goes back with the task's
result and is kept in the submission's state (state.write_state's ``timing["stages"]``); what the client does
for each submission and once per run (``RUN_FILE``) is recorded by runner.py. `make bench` prints them
(``table``). The CPU time is the grading thread's own: the learner's code runs in the sandbox's processes, so
its CPU time is not in it (their wall time is, in the stages that wait for them).
"""
import json
import threading
import time
from contextlib import contextmanager
from pathlib import Path

# Per notebook, in the order a submission meets them. READ: the client's reading and checks of the submission
# (runner.guarded_pack) and the worker's parsing; SANDBOX: the notebook's child forked from the unit server (a
# restarted child's too); RUN: the learner's cells (answer, provided and own cells); VERDICTS: the judge's checks
# and diagnosis of each graded cell; GRADEBOOK: nbgrader's scores read back, the final ones written into the
# worker's gradebook, the records combined; WRITING: the client writing the submission into OUT.
READ, SANDBOX, RUN, VERDICTS = "read and checks", "sandbox start (and end)", "learner's run", "verdicts and diagnosis"
AUTOGRADE, FEEDBACK, GRADEBOOK, WRITING = "nbgrader autograde", "feedback page", "gradebook", "writing OUT"
OTHER = "the rest of the task"
STAGES = (READ, SANDBOX, RUN, VERDICTS, AUTOGRADE, FEEDBACK, GRADEBOOK, WRITING, OTHER)
# Once per worker: the unit server's start (torch imported), waited for in the worker's set-up (a part of SETUP);
# met inside a task only where a server died and the next notebook starts another.
UNIT_SERVER = "unit server start"
# Once per run (runner.py): from the process's start to grading, and after the last result.
PROCESS, BEFORE, CLUSTER, SETUP = "command start and exit (imports)", "sources, hashes, template", "cluster start", "worker set-up"
SHUTDOWN, END_GRADEBOOK, END_OUTPUTS = "cluster shutdown", "course gradebook (end)", "results, gradebook.csv, report (end)"
FIXED = (PROCESS, BEFORE, CLUSTER, SETUP, UNIT_SERVER)
END = (SHUTDOWN, END_GRADEBOOK, END_OUTPUTS)
RUN_FILE = Path("logs") / "stages.json"  # under OUT


class Record:
    """Seconds of wall and CPU time per stage, exclusive of the stages nested in it."""

    def __init__(self):
        self.wall, self.cpu = {}, {}
        self.begun_wall, self.begun_cpu = time.perf_counter(), time.thread_time()
        self.stack = []  # [name, wall at (re)start, cpu at (re)start] of the open stages, innermost last

    def add(self, name, wall, cpu):
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu

    def _charge_top(self, now_wall, now_cpu):
        if self.stack:
            top = self.stack[-1]
            self.add(top[0], now_wall - top[1], now_cpu - top[2])

    def enter(self, name):
        now_wall, now_cpu = time.perf_counter(), time.thread_time()
        self._charge_top(now_wall, now_cpu)
        self.stack.append([name, now_wall, now_cpu])

    def leave(self):
        now_wall, now_cpu = time.perf_counter(), time.thread_time()
        self._charge_top(now_wall, now_cpu)
        self.stack.pop()
        if self.stack:
            self.stack[-1][1:] = [now_wall, now_cpu]

    def finish(self, notebooks):
        """The record as plain data: {"wall": {stage: s}, "cpu": {stage: s}, "total_wall", "total_cpu", "notebooks"};
        OTHER is what no stage claimed."""
        total_wall, total_cpu = time.perf_counter() - self.begun_wall, time.thread_time() - self.begun_cpu
        self.wall[OTHER] = max(0.0, total_wall - sum(v for k, v in self.wall.items() if k != OTHER))
        self.cpu[OTHER] = max(0.0, total_cpu - sum(v for k, v in self.cpu.items() if k != OTHER))
        return {"wall": {k: round(v, 4) for k, v in self.wall.items()}, "cpu": {k: round(v, 4) for k, v in self.cpu.items()},
                "total_wall": round(total_wall, 4), "total_cpu": round(total_cpu, 4), "notebooks": notebooks}


_local = threading.local()


@contextmanager
def recording():
    """A fresh Record for this thread's stages in the block (the one before it, if any, comes back after)."""
    previous, record = getattr(_local, "record", None), Record()
    _local.record = record
    try:
        yield record
    finally:
        _local.record = previous


@contextmanager
def stage(name):
    """Add the block's time to this thread's record under ``name`` (nothing without a recording)."""
    record = getattr(_local, "record", None)
    if record is None:
        yield
        return
    record.enter(name)
    try:
        yield
    finally:
        record.leave()


class Clock:
    """Seconds between marks, for the client's once-per-run stages (runner.py): ``mark(name)`` gives ``name`` the
    time since the previous mark."""

    def __init__(self, start=None):
        self.last, self.seconds = time.perf_counter() if start is None else start, {}
        self.started = self.last
        self.client = {}  # {stage: seconds} of the client's own per-submission stages (READ, WRITING), summed

    @contextmanager
    def client_stage(self, name):
        """Add the block's wall time to the client's per-submission ``name``; the marks' clock is not moved."""
        begun = time.perf_counter()
        try:
            yield
        finally:
            self.client[name] = self.client.get(name, 0.0) + time.perf_counter() - begun

    def mark(self, name):
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self.last
        self.last = now

    def skip(self):
        self.last = time.perf_counter()


def write_run(out: Path, data):
    """OUT/logs/stages.json: the run's own stages (runner.grade)."""
    path = Path(out) / RUN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def read_run(out: Path):
    try:
        data = json.loads((Path(out) / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def task_records(out: Path):
    """[(submission key, timing)] of the states under OUT/state/ that hold a stages record (worker.grade's)."""
    found = []
    for path in sorted((Path(out) / "state").glob("*/*.json")):
        try:
            timing = json.loads(path.read_text(encoding="utf-8")).get("timing") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(timing, dict) and isinstance(timing.get("stages"), dict):
            found.append((f"{path.parent.name}/{path.stem}", timing))
    return found


def table(out: Path, wall_s=None):
    """The run's stages from OUT: {"rows": [(stage, total s, s per notebook, share %)] per notebook (STAGES, with
    each task's wall and the client's), "fixed": [(stage, s)] once per run (FIXED, then END), "notebooks",
    "task_wall": the tasks' wall seconds in all, "cpu": {stage: s}}. Shares are of the per-notebook stages' sum.
    ``wall_s``: the command's wall time, where it is known (bench.py): what the run did not spend in
    runner.grade is the command's start (Python, its imports) and exit (PROCESS)."""
    tasks, run = task_records(out), read_run(out)
    wall, cpu, notebooks, task_wall = dict.fromkeys(STAGES, 0.0), dict.fromkeys(STAGES, 0.0), 0, 0.0
    fixed = dict.fromkeys(FIXED + END, 0.0)
    setup, workers = {}, 0  # {part: seconds} of the workers' set-ups (worker.GradingWorker), summed over them
    for _, timing in tasks:
        record = timing["stages"]
        if isinstance(record.get("setup"), dict):
            workers += 1
            for name, seconds in record["setup"].get("wall", {}).items():
                setup[name] = setup.get(name, 0.0) + seconds
        notebooks += int(record.get("notebooks") or 0)
        task_wall += float(timing.get("ended", 0) - timing.get("started", 0))
        for name, seconds in record.get("wall", {}).items():
            (fixed if name in fixed else wall)[name] = (fixed if name in fixed else wall).get(name, 0.0) + seconds
        for name, seconds in record.get("cpu", {}).items():
            cpu[name] = cpu.get(name, 0.0) + seconds
    for name, seconds in (run.get("client") or {}).items():  # the client's per-submission stages, summed
        wall[name] = wall.get(name, 0.0) + seconds
    for name, seconds in (run.get("fixed") or {}).items():
        fixed[name] = fixed.get(name, 0.0) + seconds
    if wall_s is not None and run.get("grade_s") is not None:
        fixed[PROCESS] = max(0.0, wall_s - float(run["grade_s"]))
    per_notebook = sum(wall.values())
    rows = [(name, seconds, seconds / max(notebooks, 1), 100 * seconds / per_notebook if per_notebook else 0.0)
            for name, seconds in wall.items()]
    return {"rows": rows, "fixed": list(fixed.items()), "notebooks": notebooks, "task_wall": task_wall, "cpu": cpu,
            "setup": setup, "workers": workers}


def format_table(data, label):
    """``table``'s figures as text lines."""
    lines = [f"{label}: {data['notebooks']} notebook(s)",
             f"  {'stage (per notebook)':<40} {'total s':>9} {'s/notebook':>11} {'share':>7} {'CPU s':>8}"]
    for name, seconds, each, share in data["rows"]:
        lines.append(f"  {name:<40} {seconds:9.1f} {each:11.3f} {share:6.1f}% {data['cpu'].get(name, 0.0):8.1f}")
    lines.append(f"  {'sum':<40} {sum(r[1] for r in data['rows']):9.1f} "
                 f"{sum(r[2] for r in data['rows']):11.3f} {'100.0%':>7}")
    lines.append(f"  {'once per run':<40} {'s':>9}")
    for name, seconds in data["fixed"]:
        lines.append(f"  {name:<40} {seconds:9.1f}")
        if name == SETUP and data.get("workers"):
            lines.append(f"    each worker's, the mean of {data['workers']}: " + ", ".join(
                f"{'other' if part == OTHER else part} {value / data['workers']:.1f} s"
                for part, value in data["setup"].items()))
    return lines
