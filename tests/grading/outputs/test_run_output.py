"""What `autograder grade` tells the instructor: a line per submission without a terminal, Ctrl-C as one line
(exit 130) with the run resumable, a SUBMITTED given one level too deep (exit 2), a misnamed notebook and an
unknown assignment folder named in the terminal and the report.

The fixture course of tests/fixtures/grading_course.py, a few students.
"""
import csv
import html
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main as cli
from autograder.grading.outputs.report import problem_summary, submission_line
from autograder.grading.run.runner import Progress
from tests.fixtures.grading_course import SOURCES, write_sources, write_submissions

ROOT = Path(__file__).resolve().parents[3]
CLASS = ["mistake", "perfect", "untouched"]  # two assignments each: 6 submissions
SUBMISSION_LINE = re.compile(r"^\[(\d+)/(\d+)\] (\S+/fx-\w+): [\d.]+ / [\d.]+ points in [\d.]+ s", re.M)


def command(submitted, out, source, *options):
    return [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--source", str(source),
            "--timeout", "15", "--budget", "60", *options]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return write_sources(tmp_path_factory.mktemp("source") / "source")


def port_8787_taken():
    """A socket on 127.0.0.1:8787, Dask's default dashboard port, as on a shared machine (None where it is taken)."""
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
        return taken
    except OSError:  # someone else holds it: as good
        taken.close()
        return None


def graded_keys(out: Path):
    return [json.loads(line)["submission"] for line in (out / "logs" / "tasks.jsonl").read_text().splitlines()]


def test_ctrl_c_prints_one_line_and_a_rerun_resumes(tmp_path, source):
    submitted, out = write_submissions(tmp_path / "submitted", CLASS), tmp_path / "out"
    taken = port_8787_taken()
    try:  # the terminal's Ctrl-C: SIGINT to the whole process group (the client and its Dask workers)
        running = subprocess.Popen(command(submitted, out, source, "--jobs", "2"), cwd=ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 300
        while not (out / "state").is_dir() or not list((out / "state").rglob("*.json")):
            assert time.monotonic() < deadline and running.poll() is None, "no submission was graded"
            time.sleep(0.1)
        os.killpg(running.pid, signal.SIGINT)
        _, stderr = running.communicate(timeout=120)
    finally:
        if taken:
            taken.close()
    assert running.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr[-3000:]
    assert "already in use" not in stderr, stderr  # no dashboard on Dask's fixed port
    (said,) = [line for line in stderr.splitlines() if line.startswith("interrupted")]
    found = re.fullmatch(rf"interrupted: (\d+) of 6 submissions graded and kept in {re.escape(str(out))}; "
                         "run the same command again to resume", said)
    assert found, said
    graded = int(found.group(1))
    assert 1 <= graded < 6, said
    # no terminal (a pipe): one line per finished submission, as in a log file
    assert [int(n) for n, *_ in SUBMISSION_LINE.findall(stderr)] == list(range(1, graded + 1)), stderr
    before = set(graded_keys(out))
    assert len(before) == graded

    rerun = subprocess.run(command(submitted, out, source, "--jobs", "2"), cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"6 submission(s); {graded} already graded; grading {6 - graded} with 2 job(s)" in rerun.stderr
    again = graded_keys(out)  # OUT/logs/ is this run's: the submissions graded before are not graded again
    assert sorted(again + list(before)) == sorted(f"{s}/{a}" for s in CLASS for a in ("fx-attn", "fx-ctrl"))
    assert sorted(key for *_, key in SUBMISSION_LINE.findall(rerun.stderr)) == sorted(again)
    records = json.loads((out / "results.json").read_text())
    assert {(r["student"], r["assignment"]) for r in records} == {(s, a) for s in CLASS for a in ("fx-attn", "fx-ctrl")}


def test_a_misnamed_notebook_and_an_unknown_assignment_are_named_in_the_terminal_and_the_report(tmp_path, source):
    submitted, out = write_submissions(tmp_path / "submitted", ["perfect"]), tmp_path / "out"
    (submitted / "perfect" / "fx-attn" / "fx-attn.ipynb").unlink()
    (submitted / "perfect" / "fx-attn").rmdir()
    (submitted / "dave" / "fx-attn").mkdir(parents=True)
    nbformat.write(SOURCES["fx-attn"](), str(submitted / "dave" / "fx-attn" / "fx-attn-dave-final.ipynb"))
    (submitted / "perfect" / "no-such-assignment").mkdir()
    result = subprocess.run(command(submitted, out, source, "--table"), cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    stderr = result.stderr
    assert "warning: perfect/no-such-assignment: unknown assignment id 'no-such-assignment'" in stderr
    why = ("graded 0: no notebook named fx-attn.ipynb was submitted (the folder holds: fx-attn-dave-final.ipynb; "
           "to be graded, the notebook must be named fx-attn.ipynb)")
    assert re.search(rf"^\[\d/2\] dave/fx-attn: 0 / 3 points in [\d.]+ s; {re.escape(why)}", stderr, re.M), stderr
    assert f"  dave/fx-attn: {why}" in stderr  # again in the summary at the end
    assert "1 notebook(s) graded 0 because no notebook of the expected name was found: they count 0 in gradebook.csv" in stderr
    assert result.stdout.splitlines()[0].split()[:2] == ["student", "assignment"]  # --table: the grade table
    assert re.search(r"^dave\s+fx-attn\s+0 / 3", result.stdout, re.M)

    page = (out / "report.html").read_text(encoding="utf-8")
    glance = page[page.index('<section id="glance">'):page.index('<section id="misconceptions">')]
    assert "1 notebook(s) graded 0 because no notebook of the expected name was found (dave/fx-attn)" in glance
    help_section = page[page.index('<section id="help">'):page.index('<section id="scores">')]
    assert "In SUBMITTED but not graded (1)" in help_section
    assert html.escape("perfect/no-such-assignment: unknown assignment id 'no-such-assignment'") in help_section
    assert html.escape("fx-attn-dave-final.ipynb; to be graded, the notebook must be named fx-attn.ipynb") in help_section
    run = page[page.index('<section id="run">'):]
    assert "No warnings" not in run and "1 folder(s) or file(s) in SUBMITTED not graded" in run
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        rows = {row["SIS Login ID"]: row for row in csv.DictReader(handle)}
    assert rows["dave"]["fx-attn"] == "0" and rows["perfect"]["fx-ctrl"] == "2"  # as in nbgrader's gradebook (README)


@pytest.mark.parametrize("given, said", [
    ("submitted/alice", "SUBMITTED looks like one student's folder (its folders fx-attn, fx-ctrl are assignment ids): "
                        "give its parent, laid out as SUBMITTED/<student>/<assignment>/<notebook>.ipynb"),
    ("submitted/alice/fx-attn", "SUBMITTED holds no student folder (it holds fx-attn.ipynb: is it one submission's "
                                "folder?); give the folder laid out as SUBMITTED/<student>/<assignment>/<notebook>.ipynb"),
    ("empty", "SUBMITTED holds no student folder; give the folder laid out as"),
])
def test_a_folder_that_is_not_submitted_is_an_error(tmp_path, source, capsys, given, said):
    write_submissions(tmp_path / "submitted", ["perfect"])
    (tmp_path / "submitted" / "perfect").rename(tmp_path / "submitted" / "alice")
    (tmp_path / "submitted" / "alice" / "fx-attn" / ".ipynb_checkpoints").mkdir()  # hidden: not a student
    (tmp_path / "empty" / ".ipynb_checkpoints").mkdir(parents=True)
    status = cli(["grade", str(tmp_path / given), "--out", str(tmp_path / "out"), "--source", str(source)])
    assert status == 2
    assert f"autograder: {tmp_path / given}: {said}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_without_a_terminal_a_line_per_submission_on_a_terminal_only_the_stopped_ones(capsys):
    class Done:
        def __init__(self, student):
            self.key = f"{student}/fx-attn"

    def result(student, points, feedback=()):
        records = [{"student": student, "assignment": "fx-attn", "notebook": "fx-attn", "grade_id": g, "points": points,
                    "max_points": 1, "feedback": list(feedback)} for g in ("a-visible", "a-hidden-values")]
        return {"records": records, "timing": {"started": 10.0, "ended": 12.5}}

    budget = ("nbgrader could not run this notebook to the end (TimeoutError: the notebook ran past its time budget "
              "of 120 s and was stopped); graded outside the notebook kernel only.")
    results = [("ada", result("ada", 1)), ("bob", result("bob", 0, [budget]))]
    lines = []
    progress = Progress(2, lines.append, terminal=False)
    for student, done in results:
        progress.finished(Done(student), done)
    progress.close()
    assert lines == ["[1/2] ada/fx-attn: 2 / 2 points in 2.5 s",
                     f"[2/2] bob/fx-attn: 0 / 2 points in 2.5 s; stopped (time budget): {budget}"]
    capsys.readouterr()
    progress = Progress(2, lines.append, terminal=True)  # a tqdm bar, and the stopped submission above it
    for student, done in results:
        progress.finished(Done(student), done)
    progress.close()
    assert len(lines) == 2 and lines[1] in capsys.readouterr().err
    assert submission_line("ada/fx-attn", result("ada", 1)["records"]) == "ada/fx-attn: 2 / 2 points"
    assert problem_summary(result("ada", 1)["records"], Path("OUT")) == []


def test_every_warning_of_the_run_reaches_the_report(tmp_path, source):
    """A run that grades nothing (no sandbox needed): its terminal warnings are in the report's run section."""
    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.run.runner import NO_SANDBOX_WARNING, grade

    submitted, out, said = tmp_path / "submitted", tmp_path / "out", []
    (submitted / "ada" / "no-such-assignment").mkdir(parents=True)
    assert grade(submitted, out, settings=Settings(source_dir=str(source), sandbox=False), log=said.append) == []
    assert f"warning: {NO_SANDBOX_WARNING}" in said
    assert any(line.startswith("warning: ada/no-such-assignment: unknown assignment id") for line in said)
    page = (out / "report.html").read_text(encoding="utf-8")
    run = page[page.index('<section id="run">'):]
    assert html.escape(NO_SANDBOX_WARNING) in run and run.count(html.escape(NO_SANDBOX_WARNING)) == 1
    assert "1 folder(s) or file(s) in SUBMITTED not graded" in run
    help_section = page[page.index('<section id="help">'):page.index('<section id="scores">')]
    assert "In SUBMITTED but not graded (1)" in help_section and "ada/no-such-assignment" in help_section


def test_the_cluster_shuts_down_while_the_class_outputs_are_written(tmp_path, source, monkeypatch):
    """cluster.Closing: Dask's shutdown (2-4 s) runs in its own thread while the client writes the course gradebook
    and the report; grade() returns once it has ended, and a shutdown that fails costs a warning, not the grades.
    Once no submission is left to hand out and a worker is free, the report's libraries are imported beforehand."""
    import threading

    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.run import cluster, runner
    from autograder.grading.run.runner import grade

    monkeypatch.setattr(runner, "END_IMPORTS", threading.Event())

    submitted, out, said, seen = write_submissions(tmp_path / "submitted", ["perfect"]), tmp_path / "out", [], {}
    start = cluster.Closing.start

    def watched_start(self, close):
        def close_after_the_report():
            seen["thread"] = threading.current_thread()
            deadline = time.monotonic() + 120
            while not (out / "report.html").exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # a shutdown that blocked the client would never see the report
            seen["report_first"] = (out / "report.html").exists()
            close()
            seen["closed"] = True
            raise RuntimeError("a worker would not stop")
        start(self, close_after_the_report)

    monkeypatch.setattr(cluster.Closing, "start", watched_start)
    records = grade(submitted, out, settings=Settings(source_dir=str(source), sandbox=False), log=said.append)
    assert seen["thread"] is not threading.main_thread() and seen["report_first"] and seen.get("closed")
    assert not seen["thread"].is_alive()  # waited for
    assert records and sum(r["points"] for r in records) > 0
    assert "warning: Dask did not shut down cleanly (RuntimeError: a worker would not stop)" in said, said
    assert runner.END_IMPORTS.is_set()


def test_what_the_end_of_a_run_imports_is_imported_once_before_it():
    code = ("import sys\n"
            "from autograder.grading.run import runner\n"
            "assert 'seaborn' not in sys.modules\n"
            "runner.import_what_the_end_needs()\n"
            "assert {'seaborn', 'pandas', 'matplotlib.figure', 'nbgrader.api'} <= set(sys.modules)\n"
            "del sys.modules['seaborn']\n"
            "runner.import_what_the_end_needs()\n"
            "assert 'seaborn' not in sys.modules\n")  # once
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
