"""`autograder grade` on a tiny fixture course: scores, feedback, cheats, robustness, determinism.

One grading run of every fixture student (two jobs), plus one serial rerun of a few of them.
"""
import csv
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from sandbox_servers.budget import WALL_BACKSTOP
from autograder.grading.run.state import grader_digest
from tests.fixtures.grading_course import DAEMON_TAG, STUDENTS, write_sources, write_submissions

ROOT = Path(__file__).resolve().parents[2]
CHEATERS = [s for s in STUDENTS if s.startswith("cheat-") and s != "cheat-points"]
CRASHERS = ["loop", "sys-exit", "os-exit", "memory-bomb", "flood"]
RERUN = ["perfect", "mistake", "cheat-transformer", "os-exit"]
BUDGET_S = 30  # one notebook's budget: five cells of time.sleep(10**6) would take 5 x 15 s without it


RUN_TAG = f"test{os.getpid()}"  # this run's pids cgroups are named with it (other runs may grade meanwhile)


def grade(submitted, out, source, jobs=1, *extra):
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--jobs", str(jobs),
               "--source", str(source), "--timeout", "15", "--budget", str(BUDGET_S), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "AUTOGRADER_RUN_TAG": RUN_TAG})


def tree_hash(folder: Path):
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode() + (path.read_bytes() if path.is_file() else b"/"))
    return digest.hexdigest()


def scores(records):
    return {(r["student"], r["assignment"], r["grade_id"]): r["points"] for r in records}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    source = write_sources(base / "source")
    submitted = write_submissions(base / "submitted")
    (submitted / "perfect" / "no-such-assignment").mkdir()
    (submitted / "broken" / "fx-ctrl").mkdir(parents=True)
    (submitted / "broken" / "fx-ctrl" / "fx-ctrl.ipynb").write_text("{ not json", encoding="utf-8")
    (submitted / "misnamed" / "fx-ctrl").mkdir(parents=True)
    (submitted / "misnamed" / "fx-ctrl" / "notes.txt").write_text("hello", encoding="utf-8")
    write_bad_inputs(submitted, source)
    before, source_before = tree_hash(submitted), tree_hash(source)
    caps_before = process_caps()
    decoy = socket.socket(socket.AF_UNIX)  # the peek student's target: a listening socket beside OUT
    decoy.bind(str(base / "decoy.sock"))
    decoy.listen()
    result = grade(submitted, base / "out", source, 2)
    decoy.close()
    records = json.loads((base / "out" / "results.json").read_text()) if result.returncode == 0 else None
    tasks = (base / "out" / "logs" / "tasks.jsonl").read_text().splitlines() if result.returncode == 0 else []
    return {"base": base, "source": source, "submitted": submitted, "before": before, "result": result, "records": records,
            "source_before": source_before, "caps_left": process_caps() - caps_before,
            "tasks": [json.loads(line) for line in tasks if line.strip()]}


def process_caps():
    """The pids cgroups of this test run's sandboxes (sandbox.ProcessCap, named with RUN_TAG) that exist now."""
    from autograder.grading.run import sandbox

    base = sandbox.pids_hierarchy() or sandbox.PIDS_HIERARCHIES[0]  # under this process's own cgroup (issue 52)
    mine = f"autograder-{RUN_TAG}-"
    return {name for name in os.listdir(base) if name.startswith(mine)} if os.path.isdir(base) else set()


def write_bad_inputs(submitted, source):
    """An nbformat 3 notebook, notebooks and folders that are symbolic links, a notebook without nbgrader metadata."""
    perfect = submitted / "perfect" / "fx-ctrl" / "fx-ctrl.ipynb"
    (submitted / "format-3" / "fx-ctrl").mkdir(parents=True)
    nbformat.write(nbformat.convert(nbformat.read(str(perfect), as_version=4), 3),
                   str(submitted / "format-3" / "fx-ctrl" / "fx-ctrl.ipynb"), version=3)
    (submitted / "linker" / "fx-ctrl").mkdir(parents=True)
    (submitted / "linker" / "fx-ctrl" / "fx-ctrl.ipynb").symlink_to(source / "fx-ctrl" / "fx-ctrl.ipynb")
    (submitted / "linked-student").symlink_to(submitted / "perfect", target_is_directory=True)
    plain = nbformat.read(str(perfect), as_version=4)
    for cell in plain.cells:
        cell.metadata.pop("nbgrader", None)
    (submitted / "plain" / "fx-ctrl").mkdir(parents=True)
    nbformat.write(plain, str(submitted / "plain" / "fx-ctrl" / "fx-ctrl.ipynb"))


def points(course, student, assignment="fx-attn"):
    return {r["grade_id"]: r["points"] for r in course["records"] if (r["student"], r["assignment"]) == (student, assignment)}


def total(course, student, assignment="fx-attn"):
    return sum(points(course, student, assignment).values())


def test_run_succeeds_and_leaves_submissions_unchanged(course):
    assert course["result"].returncode == 0, course["result"].stderr[-3000:]
    assert tree_hash(course["submitted"]) == course["before"]
    assert "unknown assignment id 'no-such-assignment'" in course["result"].stderr


def test_outputs_have_one_row_per_graded_cell(course):
    out = course["base"] / "out"
    records = course["records"]
    assert set(records[0]) == {"student", "assignment", "level", "notebook", "grade_id", "points", "max_points", "feedback"}
    assert {r["level"] for r in records} == {"guided"}, "a notebook without course_level metadata is the guided level"
    with open(out / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(records) and "feedback" not in rows[0]
    assert len([r for r in records if r["student"] == "perfect"]) == 5
    for student, work in STUDENTS.items():
        for assignment in work:
            assert (out / "feedback" / student / assignment / f"{assignment}.html").is_file()


def test_perfect_full_marks_untouched_zero(course):
    assert total(course, "perfect") == 3 and total(course, "perfect", "fx-ctrl") == 2
    assert total(course, "untouched") == 0 and total(course, "untouched", "fx-ctrl") == 0


def test_typical_mistake_loses_points_with_its_id(course):
    assert points(course, "mistake") == {"scaled_scores-visible": 1, "scaled_scores-hidden-values": 0, "double-hidden-values": 1}
    (record,) = [r for r in course["records"] if r["student"] == "mistake" and r["grade_id"] == "scaled_scores-hidden-values"]
    assert any("[sdpa-no-scale]" in message for message in record["feedback"])


def test_feedback_hides_hidden_tests(course):
    page = (course["base"] / "out" / "feedback" / "mistake" / "fx-attn" / "fx-attn.html").read_text()
    assert "sdpa-no-scale" in page
    assert "arange" not in page and "HIDDEN TESTS" not in page


@pytest.mark.parametrize("student", CHEATERS)
def test_cheats_gain_nothing_and_controls_keep_their_marks(course, student):
    attn = points(course, student)
    assert attn["scaled_scores-hidden-values"] == 0, attn
    assert all(r["max_points"] == 1 for r in course["records"] if r["student"] == student)
    assert total(course, student, "fx-ctrl") == 2


def test_duplicated_cells_grade_like_the_last_copy(course):
    records = [r for r in course["records"] if (r["student"], r["assignment"]) == ("duplicated-cells", "fx-attn")]
    assert [(r["grade_id"], r["points"], r["max_points"]) for r in records] == [
        ("scaled_scores-visible", 1, 1), ("scaled_scores-hidden-values", 1, 1), ("double-hidden-values", 1, 1)]


def test_points_metadata_is_ignored(course):
    assert points(course, "cheat-points") == {"scaled_scores-visible": 1, "scaled_scores-hidden-values": 1, "double-hidden-values": 1}


@pytest.mark.parametrize("student", CRASHERS)
def test_broken_cell_costs_only_its_unit(course, student):
    attn = points(course, student)
    assert attn["scaled_scores-visible"] == 1 and attn["scaled_scores-hidden-values"] == 1, attn
    assert total(course, student, "fx-ctrl") == 2


def test_killing_its_parent_stops_only_its_own_sandbox(course):
    """The notebook's parents (the kernel server, the unit server) are in its sandbox: the grader is out of reach."""
    records = [r for r in course["records"] if r["student"] == "kill-grader"]
    assert records and not any("grading process stopped" in m for r in records for m in r["feedback"])
    assert total(course, "kill-grader", "fx-ctrl") == 2
    assert total(course, "kill-grader") <= 3


def test_unreadable_notebooks_get_zero_with_a_reason(course):
    broken = [r for r in course["records"] if r["student"] == "broken"]
    assert len(broken) == 2 and all(r["points"] == 0 for r in broken)
    assert "not valid JSON" in broken[0]["feedback"][0]
    misnamed = [r for r in course["records"] if r["student"] == "misnamed"]
    assert len(misnamed) == 2 and "no notebook named fx-ctrl.ipynb" in misnamed[0]["feedback"][0]


def test_serial_rerun_gives_identical_scores_and_resumes(course, tmp_path):
    code = grader_digest()
    submitted = write_submissions(tmp_path / "submitted", RERUN)
    result = grade(submitted, tmp_path / "out", course["source"], 1)
    assert result.returncode == 0, result.stderr[-3000:]
    again = scores(json.loads((tmp_path / "out" / "results.json").read_text()))
    first = {key: value for key, value in scores(course["records"]).items() if key[0] in RERUN}
    assert again == first
    resumed = grade(submitted, tmp_path / "out", course["source"], 1)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    if grader_digest() == code:  # else someone edited the grader or the checks meanwhile: regrading is right
        assert "grading 0 with" in resumed.stderr, resumed.stderr[-2000:]
    assert scores(json.loads((tmp_path / "out" / "results.json").read_text())) == again


def test_missing_submitted_folder_is_an_error(tmp_path, course):
    result = grade(tmp_path / "nothing-here", tmp_path / "out", course["source"])
    assert result.returncode != 0 and "no such folder" in result.stderr


def test_bad_inputs_get_a_clear_reason_and_nothing_else(course):
    assert total(course, "format-3", "fx-ctrl") == 2  # nbformat 3 is upgraded and graded
    linker = [r for r in course["records"] if r["student"] == "linker"]
    assert linker and all(r["points"] == 0 and "symbolic link" in r["feedback"][0] for r in linker)
    assert not [r for r in course["records"] if r["student"] == "linked-student"]
    assert "linked-student: a symbolic link" in course["result"].stderr
    plain = [r for r in course["records"] if r["student"] == "plain"]
    assert plain and all(r["points"] == 0 and "no nbgrader cell metadata" in r["feedback"][0] for r in plain)


def test_feedback_is_safe_to_open(course):
    assert total(course, "feedback-script") == 3  # a right answer, whatever it displays
    page = (course["base"] / "out" / "feedback" / "feedback-script" / "fx-attn" / "fx-attn.html").read_bytes()
    assert b"<script>window.PWNED" not in page and b"&lt;script&gt;window.PWNED" in page  # shown as text, never run
    assert b"<b>bold</b>" in page  # harmless HTML stays
    assert len(page) < 1_000_000, len(page)  # 3 MB printed on one line is cut
    assert b"output was cut]" in page  # by the notebook's run (unit_server.MAX_OUTPUT_CHARS; LimitOutputBytes with --kernel-run)


def test_added_sleeping_cells_cost_one_budget_and_no_points(course):
    assert total(course, "sleeper") == 3 and total(course, "sleeper", "fx-ctrl") == 2  # its answers are right
    feedback = [m for r in course["records"] if r["student"] == "sleeper" and r["assignment"] == "fx-attn" for m in r["feedback"]]
    assert any("for its outputs stopped (it ran past its time budget" in message for message in feedback), feedback
    (task,) = [t for t in course["tasks"] if t["submission"] == "sleeper/fx-attn"]
    # One budget, not two (the sleeping cells ran once). A sleeping notebook uses no CPU time, so the wall clock's
    # backstop (WALL_BACKSTOP budgets, sandbox_servers/budget.py) is what stops it; run twice it would take twice that.
    assert task["ended"] - task["started"] < (WALL_BACKSTOP + 1) * 30, task


def test_filling_the_sandboxs_disk_is_stopped_and_costs_no_points(course):
    assert total(course, "disk-filler") == 3 and total(course, "disk-filler", "fx-ctrl") == 2  # its answers are right
    page = (course["base"] / "out" / "feedback" / "disk-filler" / "fx-attn" / "fx-attn.html").read_text()
    written = int(re.search(r"wrote (\d+) MiB in all", page).group(1))
    assert written <= 512, written  # the sandbox's /tmp is full before its 1280 MiB
    assert "No space left on device" in page


def test_forging_and_poisoning_from_the_notebook_reach_nothing(course):
    forged = points(course, "cheat-forge")
    assert forged["scaled_scores-visible"] == forged["scaled_scores-hidden-values"] == 0  # its empty answer
    assert total(course, "cheat-forge", "fx-ctrl") == 2
    assert total(course, "perfect") == 3 and total(course, "mistake") == 2  # everyone else as an honest run grades them
    assert tree_hash(course["source"]) == course["source_before"]
    import site

    assert not any(os.path.exists(os.path.join(folder, "forged.pth")) for folder in site.getsitepackages())
    page = (course["base"] / "out" / "feedback" / "cheat-forge" / "fx-attn" / "fx-attn.html").read_text()
    assert "grading0" not in page and "solutions" not in page  # it saw nothing of the grader's folders


def test_without_the_sandbox_grades_the_same_and_says_so(course, tmp_path):
    submitted = write_submissions(tmp_path / "submitted", ["perfect", "mistake"])
    result = grade(submitted, tmp_path / "out", course["source"], 1, "--no-sandbox")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--no-sandbox" in result.stderr and (tmp_path / "out" / "WARNING-no-sandbox.txt").is_file()
    unsandboxed = scores(json.loads((tmp_path / "out" / "results.json").read_text()))
    assert unsandboxed == {key: value for key, value in scores(course["records"]).items() if key[0] in ("perfect", "mistake")}


def test_a_fork_bomb_is_capped_and_costs_only_its_own_time(course):
    from autograder.grading.run import sandbox

    assert total(course, "fork-bomb") == 3 and total(course, "fork-bomb", "fx-ctrl") == 2  # its answers are right
    page = (course["base"] / "out" / "feedback" / "fork-bomb" / "fx-attn" / "fx-attn.html").read_text()
    forked = int(re.search(r"forked (\d+) processes", page).group(1))
    if sandbox.missing_cap_warning() is None:
        assert 100 < forked < sandbox.MAX_PROCESSES, forked  # the cap held (the kernel's own threads count too)
    else:
        assert sandbox.missing_cap_warning() in course["result"].stderr
    assert not course["caps_left"]  # every sandbox's cgroup of the run removed


def test_a_notebook_finds_no_socket_of_the_graders(course):
    assert total(course, "peek") == 3
    page = (course["base"] / "out" / "feedback" / "peek" / "fx-attn" / "fx-attn.html").read_text()
    own, foreign = map(int, re.search(r"own sockets (\d+), foreign sockets (\d+)", page).groups())
    assert foreign == 0, page[page.index("own sockets"):][:300]  # (with --kernel-run: tests/grading/run/test_kernel_isolation.py)


def test_no_process_started_by_a_notebook_outlives_it(course):
    assert total(course, "daemon") == 3
    survivors = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline[:2] == [b"sleep", DAEMON_TAG.encode()]:
            survivors.append(pid)
    assert not survivors, "a process started in a notebook's kernel outlived the grading run"
