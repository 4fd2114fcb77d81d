"""Issue 36's loose ends around the roster and the run's warnings, on the tiny fixture course.

- A rerun with ``--roster`` added resumes: the roster is read at the end only, and importing nbgrader's plugins
  (which the roster's export does) no longer changes the environment's fingerprint.
- The roster's names reach nbgrader's student table (formgrader showed "None, None").
- Student ids that differ only in case (``ivan``, ``Ivan``) are named in a warning.
- Every warning the run printed is in the report (it said "No warnings" after two roster warnings).
- Issue 52: a package installed beside the course's (dask-jobqueue, for Slurm) made a resumed run grade everything
  again; only the pinned packages that grading imports, and what they require, decide it now (a fake
  ``*.dist-info`` on PYTHONPATH stands for an installed package: nothing is installed into the venv).
"""
import html
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.fixtures.grading_course import SOURCES, write_sources

ROOT = Path(__file__).resolve().parents[2]

# Each run in a fresh interpreter, as from the terminal. The grader's own files are pinned to one file for the
# fingerprint: other people editing learner_kit/ while the test runs must not make it regrade (the environment's
# part, where the bug was, is the real one).
PINNED_GRADER = """
import os, sys
import autograder.grading.run.state as state
state.grader_files = lambda: [state.ROOT / "autograder" / "grading" / "run" / "state.py"]
if os.environ.get("STOP_BEFORE_GRADING"):  # the run says what it would grade, then stops (exit status 3)
    import autograder.grading.run.runner as runner
    assert callable(runner.run_tasks)
    runner.run_tasks = lambda *args, **kwargs: sys.exit(3)
from autograder.cli import main
sys.exit(main(sys.argv[1:]))
"""

ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
perfect,"Lovelace, Ada",1001,S-1001,ada.l,Section A
ivan,Ivan Petrov,1002,S-1002,ivan.p,Section B
cy,"Young, Cy",1003,S-1003,cy.y,Section A
"""


def run(*args, cache=None, installed=None, stop=False):
    """``installed``: a folder of fake packages (fake_package) put first on the run's PYTHONPATH; ``stop``: grade
    nothing (STOP_BEFORE_GRADING)."""
    command = [sys.executable, "-c", PINNED_GRADER, *map(str, args)]
    path = os.pathsep.join(p for p in (str(installed or ""), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "AUTOGRADER_RUN_TAG": f"roster{os.getpid()}",
                               **({"AUTOGRADER_CACHE": str(cache)} if cache else {}),
                               **({"PYTHONPATH": path} if path else {}), **({"STOP_BEFORE_GRADING": "1"} if stop else {})})


def fake_package(folder, name, version):
    """What pip leaves of an installed package that importlib.metadata reads: NAME-VERSION.dist-info/METADATA."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("roster")
    source = write_sources(base / "source")
    for student in ("perfect", "ivan", "Ivan"):
        (base / "submitted" / student / "fx-ctrl").mkdir(parents=True)
        nbformat.write(SOURCES["fx-ctrl"](), str(base / "submitted" / student / "fx-ctrl" / "fx-ctrl.ipynb"))
    (base / "roster.csv").write_text(ROSTER, encoding="utf-8")
    grade = ["grade", base / "submitted", "--out", base / "out", "--source", source, "--budget", "60"]
    first = run(*grade, cache=base / "cache")  # a first run: no gradebook template cached yet
    second = run(*grade, "--roster", base / "roster.csv", cache=base / "cache")
    # Issue 52, on a copy of OUT: a tool installed beside the course keeps every result; another NumPy would regrade
    # them all (the run says so, then stops: grading them again is the first run's).
    shutil.copytree(base / "out", base / "out-tool")
    tool = run(*grade[:3], base / "out-tool", *grade[4:], cache=base / "cache",
               installed=fake_package(base / "tool", "an-unrelated-tool", "1.0"))
    numpy = run(*grade[:3], base / "out-tool", *grade[4:], cache=base / "cache", stop=True,
                installed=fake_package(base / "numpy", "numpy", "1.26.4"))
    return {"base": base, "out": base / "out", "first": first, "second": second, "tool": tool, "numpy": numpy}


def test_the_environment_fingerprint_does_not_depend_on_what_was_imported():
    """Importing nbgrader's export plugins put setuptools' vendored packages on sys.path: the same environment
    then had another fingerprint, and a run with --roster regraded everything."""
    code = ("from autograder.grading.run.state import environment_fingerprint as f\n"
            "before = f()\n"
            "import autograder.grading.outputs.lms_export, nbgrader.plugins, nbgrader.apps.zipcollectapp\n"
            "print(before == f())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.stdout.strip() == "True", result.stdout + result.stderr[-2000:]


def test_a_rerun_with_the_roster_added_resumes(runs):
    assert runs["first"].returncode == 0, runs["first"].stderr[-3000:]
    assert runs["second"].returncode == 0, runs["second"].stderr[-3000:]
    assert "3 submission(s); 0 already graded; grading 3" in runs["first"].stderr
    assert "3 submission(s); 3 already graded; grading 0" in runs["second"].stderr, runs["second"].stderr[-3000:]


def test_a_package_installed_beside_the_course_keeps_every_result(runs):
    """Every installed package counted toward "already graded": installing dask-jobqueue to grade on Slurm threw
    all the earlier results away (issue 52: 0 of 23 kept)."""
    assert runs["tool"].returncode == 0, runs["tool"].stderr[-3000:]
    assert "3 submission(s); 3 already graded; grading 0" in runs["tool"].stderr, runs["tool"].stderr[-3000:]


def test_another_version_of_a_package_that_grading_imports_regrades(runs):
    assert runs["numpy"].returncode == 3, runs["numpy"].stderr[-3000:]  # stopped where grading would start
    assert "3 submission(s); 0 already graded; grading 3" in runs["numpy"].stderr, runs["numpy"].stderr[-3000:]


def test_the_fingerprint_holds_the_pinned_packages_and_what_they_require_only():
    from autograder.grading.run.state import environment_fingerprint

    listed = dict(line.split("==") for line in environment_fingerprint().splitlines()[1:] if "==" in line)
    for name in ("torch", "numpy", "nbgrader", "nbformat", "nbconvert", "ipykernel", "distributed"):  # pinned
        assert name in listed, name
    for name in ("jupyter-client", "traitlets", "jinja2", "pyzmq", "sympy"):  # required by them
        assert name in listed, name
    assert "tinycss2" in listed  # an extra they ask for: nbconvert requires bleach[css]
    assert "pip" not in listed and "wheel" not in listed


def test_a_first_run_says_what_it_prepares_before_the_progress(runs):
    """About 80 s of silence on a first run of the whole course (the gradebook template, the workers' set-up)."""
    said = runs["first"].stderr
    counted = said.index("3 submission(s); 0 already graded")
    template = said.index("preparing nbgrader's gradebook for 1 assignment(s)")
    workers = said.index("starting 1 grading worker(s) and setting them up")
    assert counted < template < workers < said.index("Dask: cluster ready") < said.index("[1/3]")
    assert "preparing nbgrader's gradebook" not in runs["second"].stderr  # cached: nothing to say


def test_the_roster_fills_the_gradebook_and_its_student_table(runs):
    table = (runs["out"] / "gradebook.csv").read_text(encoding="utf-8").splitlines()
    assert '"Lovelace, Ada",1001,S-1001,ada.l,Section A,2' in table
    with sqlite3.connect(runs["out"] / "gradebook.db") as db:
        students = {row[0]: row[1:] for row in db.execute("select id, first_name, last_name, lms_user_id from student")}
    assert students["perfect"] == ("Ada", "Lovelace", "1001")
    assert students["ivan"] == ("Ivan", "Petrov", "1002")  # "First Last" without a comma
    assert students["Ivan"] == (None, None, None)  # not in the roster: left as nbgrader had it


def test_ids_that_differ_only_in_case_are_named(runs):
    said = runs["first"].stderr
    assert "warning: the student ids Ivan and ivan differ only in case: they are graded as 2 different students" in said
    # and the roster's side: Ivan is graded, not in the roster, which holds ivan (also graded): no false pair
    assert "1 student(s) graded but not in the roster: Ivan." in runs["second"].stderr


def test_every_warning_the_run_printed_is_in_the_report(runs):
    said = [line[len("warning: "):] for line in runs["second"].stderr.splitlines() if line.startswith("warning: ")]
    assert any(line.startswith("1 student(s) of the roster have no submission: cy.") for line in said)
    assert any("differ only in case" in line for line in said)
    page = (runs["out"] / "report.html").read_text(encoding="utf-8")
    run_section = page[page.index('<section id="run">'):]
    assert "No warnings" not in run_section
    for line in said:
        assert html.escape(line[:80], quote=False) in run_section or html.escape(line[:80]) in run_section, line


def test_the_report_command_shows_the_rosters_warnings_too(runs, tmp_path):
    roster = tmp_path / "other.csv"
    roster.write_text("student_id,Student\nperfect,\"Lovelace, Ada\"\nivan,Ivan Petrov\nIvan,Ivan Ivanov\nzed,Zed\n",
                      encoding="utf-8")
    result = run("report", runs["out"], "--roster", roster)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning: 1 student(s) of the roster have no submission: zed." in result.stderr
    page = (runs["out"] / "report.html").read_text(encoding="utf-8")
    assert "1 student(s) of the roster have no submission: zed." in page[page.index('<section id="run">'):]
    with sqlite3.connect(runs["out"] / "gradebook.db") as db:
        assert db.execute("select first_name, last_name from student where id = 'Ivan'").fetchone() == ("Ivan", "Ivanov")
    results = json.loads((runs["out"] / "results.json").read_text(encoding="utf-8"))
    assert {r["student"] for r in results} == {"perfect", "ivan", "Ivan"}  # the report changes no grade
