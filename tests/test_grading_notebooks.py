"""Done-when of the notebooks: through real nbgrader autograde (`autograder grade`), every source
notebook scores full marks and every untouched release notebook scores 0.

Parametrized over solutions/*/, so it covers notebooks as they land; one grading run for all.
"""
import json
import shutil
import subprocess
import sys

import pytest

from autograder.paths import COURSE, ROOT, SOLUTIONS, assignment_ids

ASSIGNMENTS = assignment_ids()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("notebooks")
    for student, folder in (("perfect", SOLUTIONS), ("untouched", COURSE)):
        for assignment in ASSIGNMENTS:
            notebook = folder / assignment / f"{assignment}.ipynb"
            if notebook.is_file():
                (base / "submitted" / student / assignment).mkdir(parents=True)
                shutil.copyfile(notebook, base / "submitted" / student / assignment / notebook.name)
    command = [sys.executable, "-m", "autograder", "grade", str(base / "submitted"), "--out", str(base / "out"), "--jobs", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((base / "out" / "results.json").read_text())


def cells(graded, student, assignment):
    return [r for r in graded if (r["student"], r["assignment"]) == (student, assignment)]


@pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_source_notebook_scores_full_marks(graded, assignment):
    records = cells(graded, "perfect", assignment)
    assert records, f"no graded cells for {assignment}"
    lost = {r["grade_id"]: r["feedback"] for r in records if r["points"] != r["max_points"]}
    assert not lost, lost


@pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_release_scores_zero(graded, assignment):
    if not (COURSE / assignment / f"{assignment}.ipynb").is_file():
        pytest.skip(f"course/{assignment} not released yet")
    records = cells(graded, "untouched", assignment)
    assert records and sum(r["points"] for r in records) == 0, [(r["grade_id"], r["points"]) for r in records if r["points"]]
