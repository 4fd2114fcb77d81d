"""Issue 52: the sandbox's cgroups are made under the cgroup the grader runs in (a Slurm job's, a container's), so
the site's limits hold for learners' code; they were made at the top of each hierarchy, out of the site's reach.

A grader process is put in a memory cgroup made here (a stand-in for Slurm's job cgroup), whose limit leaves
HEADROOM_MB beside what the grader and its unit server hold; a notebook then holds HOARD_MB, more than that but
less than its own limit (NOTEBOOK_MB): the kernel stops it, and its cgroup is found under the job's. Root on
cgroup v1 only (elsewhere the grader makes no memory cgroup: README, sandbox_servers/README.md).
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.grading.run import sandbox

ROOT = Path(__file__).resolve().parents[3]
MEMORY = f"{sandbox.V1_ROOT}/memory"
HEADROOM_MB, HOARD_MB, NOTEBOOK_MB = 300, 704, 1024

# The grader: joins the job's cgroup, grades a right answer (the unit server is then up, torch imported), sets the
# job's limit to what it holds plus HEADROOM_MB, then grades an answer that holds HOARD_MB for a while, looking
# meanwhile at the cgroups of the notebook's processes (/proc/PID/cgroup, from outside the sandbox).
GRADER = """
import json, os, sys, threading, time
job, headroom, hoard, notebook_mb = sys.argv[1], *map(int, sys.argv[2:5])
with open(f"{job}/cgroup.procs", "w") as handle:
    handle.write(str(os.getpid()))
from autograder.grading.bookkeeping.config import Settings
from autograder.grading.run.verify import Verifier
from autograder.grading.run.verify import submitted_answers
from autograder.paths import SOLUTIONS
import nbformat
from tests.grading.run.test_sandbox import attention, with_answer
RIGHT_ANSWER = "\\n" + submitted_answers(nbformat.read(str(SOLUTIONS / "01-attention" / "01-attention.ipynb"),
                                                    as_version=4))["scaled_dot_product_attention"]

seen, done = set(), threading.Event()
def look():
    while not done.is_set():
        for folder, _, files in os.walk(job):
            if "notebook-" in os.path.basename(folder) and "cgroup.procs" in files:
                for pid in open(f"{folder}/cgroup.procs").read().split():
                    try:
                        line = [line for line in open(f"/proc/{pid}/cgroup") if ":memory:" in line][0].strip()
                    except (OSError, IndexError):
                        continue
                    if not line.endswith(":memory:/"):  # one that has ended shows the top until it is reaped
                        seen.add(line)
        time.sleep(0.05)

verifier = Verifier(Settings(notebook_budget_s=60, sandbox=True, verifier_memory_mb=notebook_mb), cell_timeout=30)
verifier.start()
right = verifier.verify(attention(), with_answer(RIGHT_ANSWER))
held = int(open(f"{job}/memory.usage_in_bytes").read())
for name in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"):
    if os.path.exists(f"{job}/{name}"):
        open(f"{job}/{name}", "w").write(str(held + (headroom << 20)))
threading.Thread(target=look, daemon=True).start()
answer = f"import time\\ntime.sleep(0.5)\\nhoard = [b'x' * (16 << 20) for _ in range({hoard} // 16)]\\n"
hoarded = verifier.verify(attention(), with_answer(answer + RIGHT_ANSWER))
done.set()
verifier.close()
print("RESULT", json.dumps({"right": right, "hoarded": hoarded, "seen": sorted(seen), "held": held,
                            "peak": int(open(f"{job}/memory.max_usage_in_bytes").read())}))
"""


def own_memory_cgroup():
    """This process's memory cgroup's folder (/proc/self/cgroup; where MEMORY mounts the hierarchy's top), or None."""
    try:
        own = [line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines() if ":memory:" in line]
    except OSError:
        return None
    folder = Path(MEMORY, own[0].strip("/")) if own else None
    return folder if folder and os.access(folder / "cgroup.procs", os.W_OK) and os.access(folder, os.W_OK) else None


def job_cgroup_possible():
    return os.geteuid() == 0 and sandbox.v1_hierarchy("memory") is not None and own_memory_cgroup() is not None


@pytest.fixture
def job():
    """A memory cgroup under this process's own (a Slurm job's stand-in), removed after the test."""
    folder = own_memory_cgroup() / f"job-{os.getpid()}"
    folder.mkdir()
    yield folder
    for _ in range(100):  # its processes leave a moment after they end
        try:
            sandbox.remove_tree(str(folder))
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.05)


@pytest.mark.skipif(not job_cgroup_possible(), reason="the grader makes memory cgroups as root on cgroup v1 only, "
                    "and this test makes its job's cgroup under its own")
def test_the_jobs_memory_limit_holds_for_learners_code(job):
    command = [sys.executable, "-c", GRADER, str(job), str(HEADROOM_MB), str(HOARD_MB), str(NOTEBOOK_MB)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT,
                            env={**os.environ, "AUTOGRADER_RUN_TAG": f"nested{os.getpid()}"})
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-3000:]
    got = json.loads(lines[-1][len("RESULT "):])
    assert all(passed for passed, _ in got["right"].values()), got["right"]
    # Over the job's limit, under the notebook's own: stopped, and told it used too much memory.
    assert not any(passed for passed, _ in got["hoarded"].values()), got["hoarded"]
    assert any("MiB" in message for _, message in got["hoarded"].values()), got["hoarded"]
    # The notebook's processes were in a cgroup under the job's: JOB/autograder-.../notebook-N.
    under = "/" + str(job.relative_to(MEMORY)) + f"/autograder-nested{os.getpid()}-"
    assert got["seen"] and all(line.split(":", 2)[2].startswith(under) and "/notebook-" in line
                                for line in got["seen"]), (under, got["seen"])
    # Nothing of the sandbox's is left under the job (the grader removed its cgroups).
    assert not [name for name in os.listdir(job) if name.startswith("autograder-")]


# ------------------------------------------------------------------ which folder, on files that stand for /proc and /sys

def fake_machine(tmp_path, monkeypatch, proc_cgroup, mount_root="/"):
    top = tmp_path / "cgroup"
    (tmp_path / "proc-cgroup").write_text(proc_cgroup)
    (tmp_path / "mountinfo").write_text(f"41 31 0:38 {mount_root} {top} rw,relatime - cgroup2 cgroup2 rw\n")
    monkeypatch.setattr(sandbox, "PROC_CGROUP", str(tmp_path / "proc-cgroup"))
    monkeypatch.setattr(sandbox, "PROC_MOUNTINFO", str(tmp_path / "mountinfo"))
    monkeypatch.setattr(sandbox, "_TOLD", set())
    return top


def cgroup_folder(path, pids=False):
    path.mkdir(parents=True, exist_ok=True)
    (path / "cgroup.procs").write_text("")
    (path / "cgroup.subtree_control").write_text("memory pids\n" if pids else "memory\n")
    return path


def v2_usable(base):
    return os.access(f"{base}/cgroup.procs", os.W_OK) and "pids" in Path(base, "cgroup.subtree_control").read_text().split()


def test_v1_under_its_own_cgroup_and_the_top_where_that_cannot_be_written(tmp_path, monkeypatch, capsys):
    top = fake_machine(tmp_path, monkeypatch, "5:pids:/docker/abc/slurm/job_7\n4:memory:/x\n", mount_root="/docker/abc")
    cgroup_folder(top)
    own = cgroup_folder(top / "slurm" / "job_7")
    assert sandbox.own_cgroup(str(top), "pids") == "slurm/job_7"  # the container's mount begins at /docker/abc
    writable = lambda base: os.access(f"{base}/cgroup.procs", os.W_OK)
    assert sandbox.cgroup_parent(str(top), "pids", writable) == f"{top}/slurm/job_7"
    assert capsys.readouterr().err == ""
    (own / "cgroup.procs").unlink()  # not writable there
    for _ in range(2):
        assert sandbox.cgroup_parent(str(top), "pids", writable) == str(top)
    said = capsys.readouterr().err
    assert said.count("made at the top of") == 1 and "slurm/job_7" in said  # once


def test_v2_beside_its_own_cgroup_where_the_parent_enables_pids(tmp_path, monkeypatch):
    top = fake_machine(tmp_path, monkeypatch, "0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n")
    cgroup_folder(top, pids=True)
    step = top / "system.slice" / "slurmstepd.scope" / "job_7" / "step_batch" / "user"
    cgroup_folder(step / "task_0")  # the worker's own: it holds processes, so no controller below it
    cgroup_folder(step, pids=True)
    assert sandbox.cgroup_parent(str(top), "", v2_usable) == str(step)
    cgroup_folder(step, pids=False)
    assert sandbox.cgroup_parent(str(top), "", v2_usable) == str(top)


@pytest.mark.skipif(not job_cgroup_possible(), reason="the grader makes memory cgroups as root on cgroup v1 only, "
                    "and this test makes its job's cgroup under its own")
def test_a_killed_workers_cgroups_are_swept_under_the_same_parent(job):
    """A worker killed outright leaves its empty autograder-* cgroups in its job's; the next sandbox made there removes
    those older than sandbox.STALE_CAP_S (a young one may be another worker's, about to be joined)."""
    code = f"""
import json, os, sys, time
from autograder.grading.run import sandbox
with open("{job}/cgroup.procs", "w") as handle:
    handle.write(str(os.getpid()))
for name, age in (("autograder-stale", 2 * sandbox.STALE_CAP_S), ("autograder-young", 0)):
    os.mkdir("{job}/" + name)
    os.utime("{job}/" + name, (time.time() - age, time.time() - age))
cap = sandbox.ProcessCap(controllers=("memory",))
cap.wrap(["true"])
print("made", os.path.relpath(cap.folders["memory"], "{job}"))
cap.remove()
print("left", json.dumps(sorted(os.listdir("{job}"))))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "made autograder-" in result.stdout  # under the job's cgroup
    left = [name for name in json.loads(result.stdout.split("left", 1)[1]) if name.startswith("autograder-")]
    assert left == ["autograder-young"], result.stdout
