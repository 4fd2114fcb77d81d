"""`autograder grade` on Dask: the same scores on 1 or 2 local workers and on an external cluster,
a worker killed half-way costs nothing, and an endless loop holds up nobody else.

The fixture course of tests/fixtures/grading_course.py, with a small class: fast students, one that sleeps
through its notebook's budget, and (in the two-worker run) one whose answer loops until its budget stops it.
Grading runs: one worker, two workers (which the scheduling test reads too), an external cluster, and three of
part of the class on a cluster kept between them.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tests.fixtures.grading_course import _with_answer, write_sources, write_submissions
from tests.serving import stop_processes

ROOT = Path(__file__).resolve().parents[3]
CLASS = ["perfect", "mistake", "cheat-transformer", "os-exit", "flood", "sleeper"]
BUDGET_S = 20


def grade(submitted, out, source, *options):
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--source", str(source),
               "--timeout", "10", "--budget", str(BUDGET_S), *options]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(process, timeout=600):
    stdout, stderr = process.communicate(timeout=timeout)
    assert process.returncode == 0, stderr[-3000:]
    return stderr


def scores(out):
    return {(r["student"], r["assignment"], r["grade_id"]): r["points"] for r in json.loads((out / "results.json").read_text())}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("dask")
    source = write_sources(base / "source")
    submitted = write_submissions(base / "submitted", CLASS)
    finished(grade(submitted, base / "one", source, "--jobs", "1"))
    return {"base": base, "source": source, "submitted": submitted, "one": scores(base / "one")}


LOOP = "def scaled_scores(q, k):\n    while True:\n        pass\n"


@pytest.fixture(scope="module")
def two_workers(course):
    """The class and one more student, whose answer loops, graded on two local workers: its stderr, its wall time."""
    submitted = course["base"] / "submitted-two"  # the class's own folder stays as it is, for the external cluster
    shutil.copytree(course["submitted"], submitted)
    loop = submitted / "a-loop" / "fx-attn"
    loop.mkdir(parents=True)
    nbformat.write(_with_answer("scaled_scores", LOOP)(), str(loop / "fx-attn.ipynb"))
    started = time.monotonic()
    stderr = finished(grade(submitted, course["base"] / "two", course["source"], "--jobs", "2"))
    return {"stderr": stderr, "took": time.monotonic() - started, "out": course["base"] / "two"}


def test_one_and_two_local_workers_give_the_same_scores(course, two_workers):
    assert "with 2 job(s)" in two_workers["stderr"]
    two = scores(two_workers["out"])
    assert {key: points for key, points in two.items() if key[0] != "a-loop"} == course["one"]
    assert course["one"][("perfect", "fx-attn", "scaled_scores-hidden-values")] == 1
    assert course["one"][("mistake", "fx-attn", "scaled_scores-hidden-values")] == 0


@pytest.fixture()
def external_cluster(tmp_path):
    """A `dask scheduler` and two `dask worker` processes (no nanny: a killed worker stays dead) on 127.0.0.1."""
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler_file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tmp_path}
    configured = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
                  "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}  # as the README says to start one
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", str(scheduler_file)], env=configured, **quiet)]
    deadline = time.monotonic() + 60
    while not scheduler_file.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    address = json.loads(scheduler_file.read_text())["address"]
    workers = [subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                 "--host", "127.0.0.1"], **quiet) for _ in range(2)]
    processes += workers
    try:
        yield address, workers
    finally:
        stop_processes(processes[::-1])  # workers first, asked to stop (their sandboxes go with them), then killed


def test_an_external_cluster_gives_the_same_scores_even_when_a_worker_is_killed(course, external_cluster):
    address, workers = external_cluster
    out = course["base"] / "external"
    running = grade(course["submitted"], out, course["source"], "--scheduler", address)
    deadline = time.monotonic() + 300
    while not list((out / "state").rglob("*.json")) if (out / "state").is_dir() else True:
        assert time.monotonic() < deadline and running.poll() is None, "no submission was graded"
        time.sleep(0.2)
    os.kill(workers[0].pid, signal.SIGKILL)  # in the middle of the run: it held a task, or was about to
    stderr = finished(running)
    assert f"Dask cluster at {address}: 2 worker(s)" in stderr
    assert scores(out) == course["one"]


def test_a_kept_cluster_grades_again_without_setting_up_again(course, external_cluster):
    """A cluster kept between runs (a service): a second run of the same course and settings finds its workers set
    up (cluster.register: their unit servers kept, each notebook still run in a fresh process) and scores as the
    first; a run with other settings sets them up anew."""
    address, _ = external_cluster
    submitted = course["base"] / "submitted-kept"  # the quick students: three runs of the class
    for student in ("perfect", "mistake", "cheat-transformer", "os-exit"):
        shutil.copytree(course["submitted"] / student, submitted / student)
    expected = {key: points for key, points in course["one"].items() if (submitted / key[0]).is_dir()}
    said = []
    for run, options in (("first", ()), ("second", ()), ("other-budget", ("--budget", str(BUDGET_S + 5)))):
        out = course["base"] / f"kept-{run}"
        said.append(finished(grade(submitted, out, course["source"], "--scheduler", address, *options)))
        assert scores(out) == expected, run
    kept = "(kept from the last run on this cluster: the same course and settings)"
    assert [kept in stderr for stderr in said] == [False, True, False], said


def test_an_endless_loop_holds_up_nobody_else(two_workers):
    out = two_workers["out"]
    tasks = [json.loads(line) for line in (out / "logs" / "tasks.jsonl").read_text().splitlines()]
    loop_task = next(t for t in tasks if t["submission"] == "a-loop/fx-attn")
    others = [t for t in tasks if t is not loop_task]
    later = [t for t in others if t["started"] >= loop_task["started"]]  # handed out while the loop ran, or after
    meanwhile = [t for t in others if t["worker"] != loop_task["worker"]
                 and t["started"] < loop_task["ended"] and t["ended"] > loop_task["started"]]
    assert meanwhile or not later, tasks  # while one worker sat in the loop, the other went on grading
    assert scores(out)[("a-loop", "fx-attn", "scaled_scores-hidden-values")] == 0
    # the loop's budget and the sleeper's, each on its worker, the others' grading and the start-up
    assert two_workers["took"] < 2 * BUDGET_S + 90, two_workers["took"]
    # One budget for the notebook in all: its one run used it up, and nbgrader's autograde ran no kernel.
    log = (out / "logs" / "grading.log").read_text()
    block = log[log.index("grading a-loop/fx-attn"):]
    block = block[:block.find("\ngrading ", 1) if "\ngrading " in block else None]
    assert "nbgrader autograde (no kernel)" in block, block
    judged = float(re.search(r"notebook run and verdicts of fx-attn: ([\d.]+) s", block)[1])
    assert judged < BUDGET_S + 15, block  # the budget stops the loop (its limit is polled: a few seconds late at most)


def test_every_stage_is_timed_and_they_add_up(course):
    """run/stages.py on the one-worker run: `make bench`'s table has every stage, and in each task the stages add
    up to the task's wall time with next to nothing left unclaimed, so that a stage lost later shows here."""
    from autograder.grading.run import stages

    out = course["base"] / "one"
    data = stages.table(out)
    assert [row[0] for row in data["rows"]] == list(stages.STAGES)
    tasks = stages.task_records(out)
    assert len(tasks) == len(list(course["submitted"].glob("*/*"))), tasks  # every submission's state holds its stages
    for key, timing in tasks:
        wall, record = timing["ended"] - timing["started"], timing["stages"]
        assert abs(sum(record["wall"].values()) - wall) <= 0.03 * wall + 0.05, (key, wall, record)
        assert record["wall"][stages.OTHER] <= 0.03 * wall + 0.05, (key, wall, record)
    rows = {row[0]: row[1] for row in data["rows"]}
    met = (stages.READ, stages.SANDBOX, stages.RUN, stages.VERDICTS, stages.AUTOGRADE, stages.FEEDBACK, stages.GRADEBOOK,
           stages.WRITING)
    assert all(rows[name] > 0 for name in met), rows
    fixed = dict(data["fixed"])
    assert all(fixed[name] > 0 for name in (stages.BEFORE, stages.CLUSTER, stages.SETUP,
                                            stages.END_GRADEBOOK, stages.END_OUTPUTS)), fixed
    # the worker waits for its unit server in its set-up, so that no learner's notebook waits for it
    assert data["setup"].get(stages.UNIT_SERVER, 0) > 0, data["setup"]


LOCAL_WORKER = """
import os, sys
from distributed import Client
from autograder.grading.run import cluster
with cluster.local_cluster(1) as local, Client(local, set_as_default=False) as client:
    (worker,) = client.run(lambda: (os.getpid(), os.getsid(0))).values()
    print(os.getsid(0), *worker, flush=True)
    sys.stdin.readline()
"""


def alive(pid):
    """``pid`` runs (exists and is no zombie waiting for a parent that will not reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_a_local_worker_has_a_session_of_its_own_and_still_ends_with_the_client():
    """Its own session: its own share of a busy machine's CPU under Linux's autogroup (cluster.dask_setup). Out of the
    command's process group, it must still end when the client is killed outright."""
    client = subprocess.Popen([sys.executable, "-c", LOCAL_WORKER], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        client_session, worker, worker_session = map(int, client.stdout.readline().split())
        assert worker_session == worker != client_session
        client.kill()
        client.wait(timeout=30)
        deadline = time.monotonic() + 60
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not alive(worker), f"the worker {worker} outlived its client"
    finally:
        if client.poll() is None:
            client.kill()
