"""The sandbox's third round (issue 35): what a determined student tried, and what holds now.

- Memory is counted and limited by the kernel (a cgroup per notebook): memfd files and System V
  shared memory count, and nothing of a notebook (shared memory, /dev/shm, POSIX queues) is left
  for the next one on the same worker.
- No notebook stops the class's run: JSON nested too deep, or a notebook too large to read, costs
  only its own submission; honest students beside it keep their marks.
- Nothing a student writes reaches the instructor's terminal or spreadsheet raw: control characters
  are escaped, CSV cells that a spreadsheet would evaluate are prefixed.
- The grader's own errors are told apart by a field it sets, not by the learner's words.
- The CPU time of all of a notebook's processes is counted by the kernel.

One unit server (in the sandbox) for the memory attacks, one `autograder grade` of a small class for the rest.
"""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.grading.bookkeeping import layout
from autograder.grading.outputs import class_report, report
from autograder.grading.run import sandbox
from autograder.grading.bookkeeping.config import Settings
from autograder.grading.run.verify import Verifier, submitted_answers
from autograder.paths import SOLUTIONS
from tests.fixtures.grading_course import SOURCES, replace_answer, write_sources
from tests.grading.run.test_sandbox import attention, with_answer

ROOT = Path(__file__).resolve().parents[3]
LIMIT_MB = 1024  # the notebook's memory in these tests: each attack holds about 1.5 GiB

RIGHT = "\n" + submitted_answers(nbformat.read(str(SOLUTIONS / "01-attention" / "01-attention.ipynb"), as_version=4))[
    "scaled_dot_product_attention"]

# 24 memfd files of 64 MiB, written (1.5 GiB in memory), held open: no process maps them, so none has them resident.
MEMFD = '''
import os
held = []
for number in range(24):
    fd = os.memfd_create(f"hoard{number}")
    for _ in range(4):
        os.write(fd, b"x" * (16 << 20))
    held.append(fd)
''' + RIGHT

# 6 System V segments of 256 MiB, touched, then detached: they outlive every process of the notebook.
SYSV = '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
for _ in range({segments}):
    segment = libc.shmget(0, {mb} << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, {mb} << 20)
    libc.shmdt(ctypes.c_void_p(address))
'''

LEAVE = SYSV.format(segments=1, mb=64) + '''
open("/dev/shm/left-for-the-next", "wb").write(b"x" * (8 << 20))
''' + RIGHT

# 200 forked sleepers make each look at the processes' memory slow (the poll then waits ten times as long before
# the next): 1.5 GiB held for 2 s meanwhile, then let go.
SLEEPERS = '''
import os, time
for _ in range(200):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
hoard = bytearray(1536 << 20)
time.sleep(2)
del hoard
''' + RIGHT

# An honest answer that fails where a notebook before it left anything behind.
FIND_LEFTOVERS = '''
import os
left = [line for line in open("/proc/sysvipc/shm").read().splitlines()[1:]]
assert not left, f"System V shared memory left by another notebook: {left}"
assert not os.listdir("/dev/shm"), f"/dev/shm holds {os.listdir('/dev/shm')}"
''' + RIGHT


@pytest.fixture(scope="module")
def verifier():
    sandbox.check_available()
    verifier = Verifier(Settings(notebook_budget_s=60, sandbox=True, verifier_memory_mb=LIMIT_MB), cell_timeout=30)
    verifier.start()
    yield verifier
    verifier.close()


def verdicts(verifier, answer):
    return verifier.verify(attention(), with_answer(answer))


def kernel_counts_memory():
    """Whether this machine lets the grader have the kernel count memory (root, cgroup v1's memory controller)."""
    return os.geteuid() == 0 and os.access("/sys/fs/cgroup/memory/memory.limit_in_bytes", os.W_OK)


def test_memfd_files_count_as_the_notebooks_memory(verifier):
    if not kernel_counts_memory():
        assert "not counted by the kernel" in sandbox.missing_memory_warning()
        pytest.skip("no cgroup v1 memory controller here: the run warns (missing_memory_warning)")
    got = verdicts(verifier, MEMFD)
    assert not any(passed for passed, _ in got.values()), got
    assert any(f"more than {LIMIT_MB} MiB" in message for _, message in got.values()), got


def test_many_processes_do_not_slow_the_memory_limit_down(verifier):
    if not kernel_counts_memory():
        pytest.skip("no cgroup v1 memory controller here: the run warns (missing_memory_warning)")
    got = verdicts(verifier, SLEEPERS)
    assert not any(passed for passed, _ in got.values()), got
    assert any(f"more than {LIMIT_MB} MiB" in message for _, message in got.values()), got


def test_detached_system_v_memory_counts_and_the_next_notebook_finds_nothing(verifier):
    if not kernel_counts_memory():
        pytest.skip("no cgroup v1 memory controller here: the run warns (missing_memory_warning)")
    got = verdicts(verifier, SYSV.format(segments=6, mb=256) + RIGHT)
    assert not any(passed for passed, _ in got.values()), got
    assert any(f"more than {LIMIT_MB} MiB" in message for _, message in got.values()), got
    verdicts(verifier, LEAVE)  # within the limit, but leaves a segment and a file in /dev/shm
    honest = verdicts(verifier, FIND_LEFTOVERS)
    assert all(passed for passed, _ in honest.values()), honest


def test_the_notebooks_cpu_time_is_counted_by_the_kernel():
    """Two processes of the notebook burning CPU together: the server reads their sum from the notebook's cgroup."""
    if sandbox.v1_hierarchy("cpuacct") is None:
        assert "not counted together" in sandbox.missing_cpu_warning()
        pytest.skip("no cgroup v1 cpuacct controller here: the run warns (missing_cpu_warning)")
    script = """
import os, sys, time
sys.path.insert(0, "/sandbox/code")
from sandbox_servers import processes
cgroup = processes.NotebookCgroup.from_arguments(sys.argv)
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    os.read(read, 1)
    grandchild = os.fork()
    while time.process_time() < 0.6:  # 0.6 s of CPU time in each of the two
        pass
    if grandchild:
        os.waitpid(grandchild, 0)
    os._exit(0)
print("failed:", cgroup.start(pid, 256 << 20))
os.write(write, b"g")
os.waitpid(pid, 0)
print("cpu", cgroup.cpu_seconds())
processes.kill_all_others()
cgroup.remove()
"""
    cap = sandbox.ProcessCap()
    try:
        line = cap.wrap(sandbox.command([sys.executable, "-I", "-c", script], {"PATH": "/usr/bin:/bin"}))
        result = subprocess.run(line, capture_output=True, text=True, timeout=60)
    finally:
        cap.remove()
    assert "failed: []" in result.stdout, result.stdout + result.stderr[-2000:]
    cpu = float(result.stdout.split("cpu")[-1])
    assert 1.2 <= cpu < 5, result.stdout  # both processes' time, as the kernel counted it


# ------------------------------------------------------------------ a class with attackers beside honest students

DEEP = '{"cells": [], "metadata": {"x": ' + "[" * 1100 + "]" * 1100 + '}, "nbformat": 4, "nbformat_minor": 5}'
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[1A[40/40] all submissions graded"  # retitle, clear, a line of its own
FORMULA = '=HYPERLINK("http:evil.example","x")'
STUDENTS = {
    "honest-a": None,
    "honest-b": None,
    "deep": DEEP,  # 2 kB of JSON nested 1,100 levels deep
    "huge": "huge",  # a notebook over the size cap (a valid one: its last cell's output is large)
    "many-markdown": "many-markdown",  # 100,000 Markdown cells (12 MB): 476 s of nbgrader's steps before the cap
    "many-code": "many-code",  # 60,000 empty code cells: 426 s before the cap
    # its answer cell stops with a TimeoutError of its own words: a failure the terminal names, with them
    "escapes": f"raise TimeoutError({ESCAPES!r})\n",
    "words": "def add(a, b):\n    raise ValueError('Not graded: internal grading error (the grader broke)')\n",
    FORMULA: None,
}


def write_class(submitted: Path):
    for student, how in STUDENTS.items():
        folder = submitted / student / "fx-ctrl"
        folder.mkdir(parents=True)
        path = folder / "fx-ctrl.ipynb"
        nb = SOURCES["fx-ctrl"]()
        if how is None:
            nbformat.write(nb, str(path))
        elif how == DEEP:
            path.write_text(DEEP, encoding="utf-8")
        elif how == "many-markdown":
            nb.cells += [nbformat.v4.new_markdown_cell(f"A note of mine, number {i}: " + "words " * 10) for i in range(100_000)]
            nbformat.write(nb, str(path))
        elif how == "many-code":
            nb.cells += [nbformat.v4.new_code_cell("") for _ in range(60_000)]
            nbformat.write(nb, str(path))
        elif how == "huge":
            nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * (33 << 20))]
            nb.cells[0].execution_count = 1
            nbformat.write(nb, str(path))
        else:
            nbformat.write(replace_answer(nb, "add", how), str(path))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("round3")
    source = write_sources(base / "source")
    write_class(base / "submitted")
    command = [sys.executable, "-m", "autograder", "grade", str(base / "submitted"), "--out", str(base / "out"),
               "--jobs", "1", "--source", str(source), "--timeout", "15", "--budget", "30"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT,
                            env={**os.environ, "AUTOGRADER_RUN_TAG": f"round3{os.getpid()}"})
    return base / "out", result


def totals(out):
    scores = {}
    for r in json.loads((out / "results.json").read_text(encoding="utf-8")):
        scores.setdefault(r["student"], []).append(r)
    return scores


def test_one_bad_notebook_stops_no_ones_run(graded):
    out, result = graded
    assert result.returncode == 0, result.stderr[-3000:]
    scores = totals(out)
    for student in ("honest-a", "honest-b", FORMULA):  # full marks beside the attackers
        assert all(r["points"] == r["max_points"] for r in scores[student]), scores[student]
    deep = scores["deep"]
    assert all(r["points"] == 0 for r in deep) and "RecursionError" in deep[0]["feedback"][0], deep
    assert (out / "gradebook.csv").is_file() and (out / "grades.csv").is_file()


def test_a_notebook_over_the_size_cap_is_not_read(graded):
    out, result = graded
    huge = totals(out)["huge"]
    assert all(r["points"] == 0 for r in huge) and "more than the 32 MiB a notebook may be" in huge[0]["feedback"][0], huge


@pytest.mark.parametrize("student, cells", [("many-markdown", "100,"), ("many-code", "60,")])
def test_a_notebook_of_too_many_cells_costs_only_itself(graded, student, cells):
    """Refused when read, before nbgrader's steps (about 5 ms a cell) could hold a worker for minutes; named in
    the report; the honest students beside it keep full marks (test_one_bad_notebook_stops_no_ones_run)."""
    out, result = graded
    records = totals(out)[student]
    told = f"more than the {layout.MAX_CELLS:,} a notebook of this course may have"
    assert all(r["points"] == 0 for r in records) and told in records[0]["feedback"][0] and cells in records[0]["feedback"][0]
    worked = [json.loads(line) for line in (out / "logs" / "tasks.jsonl").read_text().splitlines()]
    assert any(student in w["submission"] for w in worked), "the grader has no record of grading it"
    assert told in (out / "report.html").read_text(encoding="utf-8"), "the class report does not say why it got 0"


def test_the_cell_cap_leaves_the_course_room():
    """COURSE_CELLS is the course's largest notebook (every edition and level), and MAX_CELLS ten times it."""
    largest = max(len(nbformat.read(path, as_version=4).cells) for folder in ("course", "ko/course", "challenge/course",
                  "challenge/ko/course") for path in (ROOT / folder).glob("*/*.ipynb"))
    assert largest == layout.COURSE_CELLS and layout.MAX_CELLS >= 10 * largest


def test_no_control_character_reaches_the_terminal(graded):
    out, result = graded
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr and "\r" not in result.stderr
    assert "\\x1b]0;pwned\\x07" in result.stderr  # shown, as inert text
    assert report.escaped(ESCAPES + "\r") == "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[1A[40/40] all submissions graded\\r"
    assert report.escaped("bidi \u202etxt.exe\nnext") == "bidi \\u202etxt.exe\\nnext"


def test_no_cell_starts_a_formula_in_the_csv_files(graded):
    out, _ = graded
    for name in ("grades.csv", "gradebook.csv"):
        with open(out / name, newline="", encoding="utf-8") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        assert "'" + FORMULA in cells, (name, cells)
        assert not [cell for cell in cells if cell[:1] in ("=", "+", "@", "\t", "\r")], (name, cells)
        assert not [cell for cell in cells if cell.startswith("-") and not cell.lstrip("-").replace(".", "").isdigit()]
    assert report.cell("-1.5") == "-1.5" and report.cell("-x") == "'-x" and report.cell(3) == 3


def test_the_graders_words_in_a_learners_error_are_not_a_grading_error(graded):
    out, result = graded
    words = totals(out)["words"]
    assert all(r["points"] == 0 for r in words)
    assert not any(r.get("grader_error") for r in words)
    assert "grading error:" not in "\n".join(line for line in result.stderr.splitlines() if "words/" in line)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "0 notebook(s) hit a grading error" in page or "hit a grading error" not in page
    message = "ValueError: Not graded: internal grading error (the grader broke)"
    assert class_report.failure_in_messages([message]) is None
    assert class_report.failure_in_messages(["Not graded: internal grading error (KeyError: 'x')."], True)[0] == "grader"
