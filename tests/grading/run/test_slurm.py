"""`autograder grade --slurm` on a real one-node Slurm cluster (tests/fixtures/slurm_cluster.py: Debian's slurmctld,
slurmd and munge, started here), and the checks of an external scheduler's settings.

- A small class of the fixture course graded on Slurm, two jobs of one worker each, the job of a worker that grades
  cancelled with scancel half-way: the job is replaced (adapt) and the scores are those of local runs.
- A partition that is DOWN: no worker ever joins, and the grader says so within seconds, naming Slurm's reason.
- A `dask scheduler` started with Dask's defaults and no worker: the grader names the two settings that differ from
  its own, says that no worker has joined, and names the memory settings of a worker started with Dask's defaults.

The Slurm tests need `make slurm-tool` (slurm-wlm's daemons and munge, from apt; a prerequisite of `make test`);
without them they are skipped, except on CI, where they fail.
"""
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fixtures.grading_course import write_sources, write_submissions
from tests.fixtures.slurm_cluster import SlurmCluster, missing
from tests.serving import stop_processes

ROOT = Path(__file__).resolve().parents[3]
CLASS = ["perfect", "mistake", "cheat-transformer", "os-exit", "untouched"]
BUDGET_S = 15


def not_installed():
    """What `make slurm-tool` installs and this machine lacks."""
    try:
        import dask_jobqueue  # noqa: F401
    except ImportError:
        return [*missing(), "dask-jobqueue"]
    return missing()


needs_slurm = pytest.mark.skipif(bool(not_installed()) and not os.environ.get("CI"),
                                 reason=f"{', '.join(not_installed())} not installed: make slurm-tool")


class Grader:
    """`autograder grade` in a process of its own, its stderr read line by line as it comes."""

    def __init__(self, submitted, out, source, *options, env=None):
        command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--source",
                   str(source), "--timeout", "10", "--budget", str(BUDGET_S), *options]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                        env=env, start_new_session=True)
        self.lines, self.queue = [], queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            self.queue.put(line.rstrip("\n"))
        self.queue.put(None)

    def wait_for(self, wanted, timeout):
        """The first line of stderr for which ``wanted(line)`` holds, within ``timeout`` seconds (else fail)."""
        deadline = time.monotonic() + timeout
        for line in self.lines:
            if wanted(line):
                return line
        while time.monotonic() < deadline:
            try:
                line = self.queue.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            if wanted(line):
                return line
        pytest.fail(f"not seen within {timeout} s; stderr so far:\n" + "\n".join(self.lines[-40:]))

    def finished(self, timeout=600):
        self.process.wait(timeout=timeout)
        while (line := self.queue.get(timeout=30)) is not None:
            self.lines.append(line)
        assert self.process.returncode == 0, "\n".join(self.lines[-60:])
        return "\n".join(self.lines)

    def stop(self, how=signal.SIGINT):
        """Ctrl-C (Dask and its Slurm jobs are shut down), or ``how``."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, how)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def scores(out):
    return {(r["student"], r["assignment"], r["grade_id"]): r["points"] for r in json.loads((out / "results.json").read_text())}


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    if not_installed():
        pytest.fail(f"{', '.join(not_installed())} not installed: make slurm-tool installs them")
    with SlurmCluster(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("slurm-course")
    return {"base": base, "source": write_sources(base / "source"), "submitted": write_submissions(base / "submitted", CLASS)}


# The points of each graded cell of CLASS, as local runs give them (`--jobs 1` and `--jobs 2` agree: test_dask.py).
EXPECTED = {
    ("perfect", "fx-attn"): {"scaled_scores-visible": 1, "scaled_scores-hidden-values": 1, "double-hidden-values": 1},
    ("perfect", "fx-ctrl"): {"add-visible": 1, "add-hidden-values": 1},
    ("mistake", "fx-attn"): {"scaled_scores-visible": 1, "scaled_scores-hidden-values": 0, "double-hidden-values": 1},
    ("mistake", "fx-ctrl"): {"add-visible": 1, "add-hidden-values": 1},
    ("cheat-transformer", "fx-attn"): {"scaled_scores-visible": 0, "scaled_scores-hidden-values": 0,
                                       "double-hidden-values": 1},
    ("cheat-transformer", "fx-ctrl"): {"add-visible": 1, "add-hidden-values": 1},
    ("os-exit", "fx-attn"): {"scaled_scores-visible": 1, "scaled_scores-hidden-values": 1, "double-hidden-values": 0},
    ("os-exit", "fx-ctrl"): {"add-visible": 1, "add-hidden-values": 1},
    ("untouched", "fx-attn"): {"scaled_scores-visible": 0, "scaled_scores-hidden-values": 0, "double-hidden-values": 0},
    ("untouched", "fx-ctrl"): {"add-visible": 0, "add-hidden-values": 0},
}


def job_of(worker, logs):
    """The Slurm job whose worker is ``worker`` (tcp://host:port), from the jobs' output files (NAME-JOBID.err)."""
    for path in logs.glob("*.err"):
        if re.search(rf"Start worker at:\s+{re.escape(worker)}\s*$", path.read_text(errors="replace"), re.MULTILINE):
            return path.stem.rsplit("-", 1)[1]
    return None


@needs_slurm
def test_a_class_graded_on_slurm_scores_as_locally_even_when_a_job_is_cancelled(slurm, course):
    """The README's recipe, on this machine's one-node cluster: two jobs of one worker each (the node has 2 CPUs on
    CI), the default memory a worker (6G; half the node where that is less); a working job cancelled half-way (the other
    held still meanwhile), replaced by adapt while the class is still being graded."""
    out = course["base"] / "slurm"
    memory = [] if slurm.memory_mb >= 2 * 6144 else ["--slurm-worker-memory", f"{slurm.memory_mb // 2}M"]
    grader = Grader(course["submitted"], out, course["source"], "--slurm", "--jobs", "2", "--slurm-workers-per-job", "1",
                    "--slurm-walltime", "00:30:00", *memory, env=slurm.env)
    try:
        plan = grader.wait_for(lambda line: line.startswith("Slurm: 2 worker(s) as 2 job(s)"), 120)
        assert f"a node there has {slurm.cpus} CPU(s) and {slurm.memory_mb} MiB" in plan, plan
        tasks = out / "logs" / "tasks.jsonl"
        deadline = time.monotonic() + 300
        while not (tasks.is_file() and tasks.read_text().strip()):  # a first submission graded
            assert time.monotonic() < deadline and grader.process.poll() is None, "\n".join(grader.lines[-40:])
            time.sleep(0.2)
        worker = json.loads(tasks.read_text().splitlines()[0])["worker"]
        job = job_of(worker, out / "logs" / "slurm")
        before = slurm.jobs()
        assert before.get(job, ("",))[0] == "RUNNING", (worker, job, before)
        # The other job held still (suspended) meanwhile: on a quick machine its worker would otherwise finish the
        # class alone before a replacement came, and the replacement would go unseen.
        others = [other for other in before if other != job]
        for other in others:
            slurm.command("scontrol", "suspend", other)
        slurm.command("scancel", job)  # a worker that grades: it held the next submission, or was about to
        deadline = time.monotonic() + 90  # adapt submits another job (dask-jobqueue checks every second or so)
        while not set(slurm.jobs()) - set(before):
            assert time.monotonic() < deadline, f"the cancelled job was not replaced: {slurm.jobs()}"
            time.sleep(0.5)
        for other in others:
            slurm.command("scontrol", "resume", other)
        stderr = grader.finished()
    finally:
        grader.stop()
    assert "grading 10 on Slurm with 2 worker(s)" in stderr, stderr
    assert "warning: the Dask scheduler" not in stderr and "warning: Dask worker(s)" not in stderr, stderr
    assert len(list((out / "logs" / "slurm").glob("*.err"))) >= 3, sorted((out / "logs" / "slurm").iterdir())
    assert scores(out) == {(student, assignment, cell): points for (student, assignment), cells in EXPECTED.items()
                           for cell, points in cells.items()}


@needs_slurm
def test_no_worker_on_a_partition_that_is_down_is_said_with_slurms_reason(slurm, course):
    out = course["base"] / "closed"
    grader = Grader(course["submitted"], out, course["source"], "--slurm", "--slurm-partition", "closed",
                    "--jobs", "1", env=slurm.env)
    try:
        grader.wait_for(lambda line: line.startswith("Slurm: 1 worker(s) as 1 job(s)"), 120)
        started = time.monotonic()
        line = grader.wait_for(lambda line: "no Dask worker has joined" in line, 15)
        assert time.monotonic() - started < 12, line
        assert "PENDING (PartitionDown)" in line, line
        assert any("partition closed is DOWN" in earlier for earlier in grader.lines), grader.lines
    finally:
        grader.stop()
    assert grader.process.returncode == 130, grader.lines  # Ctrl-C while waiting: stopped, and said so
    deadline = time.monotonic() + 20
    while slurm.jobs() and time.monotonic() < deadline:  # its pending job was cancelled on the way out
        time.sleep(0.5)
    assert not slurm.jobs(), slurm.jobs()


@pytest.fixture()
def default_scheduler(tmp_path):
    """A `dask scheduler` with Dask's own settings (no DASK_ variables): the README's are not there."""
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler_file = tmp_path / "scheduler.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith("DASK_")}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", str(scheduler_file)], env=env, cwd=tmp_path,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    deadline = time.monotonic() + 60
    while not scheduler_file.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    address = json.loads(scheduler_file.read_text())["address"]

    def add_worker(*options):
        processes.append(subprocess.Popen([dask, "worker", address, "--no-dashboard", "--host", "127.0.0.1", *options],
                                          env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    try:
        yield address, add_worker
    finally:
        stop_processes(processes[::-1])


def test_a_scheduler_with_dasks_defaults_is_named_and_waiting_for_workers_is_said(course, default_scheduler):
    address, add_worker = default_scheduler
    grader = Grader(course["submitted"], course["base"] / "defaults", course["source"], "--scheduler", address)
    try:
        grader.wait_for(lambda line: line.startswith(f"Dask cluster at {address}: 0 worker(s)"), 120)
        started = time.monotonic()
        failures = grader.wait_for(lambda line: "distributed.scheduler.allowed-failures" in line, 10)
        assert failures.startswith("warning: the Dask scheduler has distributed.scheduler.allowed-failures = 3, not 1"), failures
        assert "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1" in failures
        saturation = grader.wait_for(lambda line: "distributed.scheduler.worker-saturation" in line, 10)
        assert "worker-saturation = 1.1, not 1.0" in saturation, saturation
        waiting = grader.wait_for(lambda line: "no Dask worker has joined" in line, 15)
        assert time.monotonic() - started < 12, waiting
        assert waiting.startswith(f"no Dask worker has joined the Dask cluster at {address} yet"), waiting
        add_worker("--nthreads", "2")  # Dask's defaults: pause at 80 % of its memory, spill, two threads
        # read from its nanny as soon as it joins (not held up by its set-up); a deadline for a loaded machine, where
        # starting `dask worker` and its worker process took over a minute (a quiet one: seconds)
        pause = grader.wait_for(lambda line: "distributed.worker.memory.pause" in line, 240)
        assert "have distributed.worker.memory.pause = 0.8, not False" in pause, pause
        assert "DASK_DISTRIBUTED__WORKER__MEMORY__PAUSE=False" in pause, pause
        threads = grader.wait_for(lambda line: "have nthreads = 2, not 1" in line, 10)
        assert "--nthreads 1" in threads, threads
    finally:
        grader.stop(signal.SIGKILL)  # not Ctrl-C: that waits for the worker's set-up, which is not the point here


SCONTROL = """\
PartitionName=small AllowGroups=ALL Default=YES MaxTime=01:00:00 MaxMemPerNode=6500 MaxCPUsPerNode=UNLIMITED State=UP
PartitionName=big AllowGroups=ALL Default=NO MaxTime=UNLIMITED MaxMemPerNode=UNLIMITED MaxCPUsPerNode=16 State=DOWN
"""
SINFO = {"small": "n1|4|7800|idle\nn2|8|16000|mixed\nn3|64|500000|down*\n", "big": "b1|32|256000|idle\n"}


def fake_slurm(argv, timeout=30):
    if argv[:2] == ["scontrol", "show"]:
        return SCONTROL
    if argv[0] == "sinfo":
        return SINFO[argv[argv.index("-p") + 1]]
    raise AssertionError(argv)


def test_a_job_never_asks_for_more_than_a_node_of_the_partition_has():
    from autograder.grading.run import slurm

    small = slurm.query_partition(None, run=fake_slurm)  # the default partition; its smallest node that is up
    assert (small.name, small.cpus, small.memory_mb, small.max_time, small.nodes_up) == ("small", 4, 6500, "01:00:00", 2)
    big = slurm.query_partition("big", run=fake_slurm)
    assert (big.cpus, big.memory_mb, big.state, big.max_time) == (16, 256000, "DOWN", None)
    with pytest.raises(slurm.SlurmError, match="no partition 'gpu'"):
        slurm.query_partition("gpu", run=fake_slurm)
    plan = slurm.make_plan(slurm.Options(), 8, small)  # 6 GiB a worker (the default): one fits the 6500 MiB
    assert (plan.workers_per_job, plan.jobs, plan.job_memory_mb, plan.walltime) == (1, 8, 6144, "01:00:00")
    plan = slurm.make_plan(slurm.Options(worker_memory=slurm.parse_size("1500M")), 10, small)
    assert (plan.workers_per_job, plan.jobs, plan.workers, plan.job_memory_mb) == (4, 3, 12, 6000)
    assert plan.walltime == "01:00:00" and any("MaxTime" in note for note in plan.notes), plan.notes
    assert plan.lifetime_s == 3600 - 360
    plan = slurm.make_plan(slurm.Options(worker_memory=2 * slurm.GiB, workers_per_job=8), 8, small)
    assert (plan.workers_per_job, plan.jobs) == (3, 3) and any("more than a node" in note for note in plan.notes)
    assert any("is DOWN" in note for note in slurm.make_plan(slurm.Options(), 4, big).notes)
    with pytest.raises(slurm.SlurmError, match="less than one grading worker"):
        slurm.make_plan(slurm.Options(worker_memory=8 * slurm.GiB), 1, small)
    assert slurm.parse_size("6G") == 6 * slurm.GiB and slurm.parse_size("3072") == 3 * slurm.GiB
    assert slurm.seconds("1-02:03:04") == 93784 and slurm.seconds("30") == 1800 and slurm.seconds("00:30:00") == 1800


def test_the_workers_get_the_graders_dask_settings_in_their_job_script():
    from autograder.grading.run import cluster, slurm

    lines = slurm.worker_environment({**cluster.WORKER_MEMORY_CONFIG, **cluster.WORKER_CONFIG})
    assert "export DASK_DISTRIBUTED__WORKER__MEMORY__PAUSE=False" in lines
    assert "export DASK_DISTRIBUTED__WORKER__MEMORY__TERMINATE=0.95" in lines
    assert "export DASK_DISTRIBUTED__WORKER__DAEMON=False" in lines
    import dask.config

    environ = dict(line.removeprefix("export ").split("=", 1) for line in lines)
    parsed = dask.config.collect_env(environ)  # as Dask reads them in the job
    assert parsed["distributed"]["worker"] == {"memory": {"target": False, "spill": False, "pause": False,
                                                          "terminate": 0.95}, "daemon": False}


def test_slurm_options_that_cannot_work_stop_the_run_before_anything_is_graded(tmp_path, monkeypatch, capsys):
    from autograder.cli import main

    submitted = write_submissions(tmp_path / "submitted", ["perfect"])
    grade = ["grade", str(submitted), "--out", str(tmp_path / "out")]
    assert main([*grade, "--slurm-partition", "grading"]) == 2
    assert "--slurm-partition: only with --slurm" in capsys.readouterr().err
    assert main([*grade, "--slurm", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "exclude each other" in capsys.readouterr().err
    assert main([*grade, "--slurm", "--slurm-worker-memory", "lots"]) == 2
    assert "give a size such as 3G" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))  # no Slurm commands here
    assert main([*grade, "--slurm"]) == 2
    assert "scontrol was not found: --slurm needs Slurm's commands" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
