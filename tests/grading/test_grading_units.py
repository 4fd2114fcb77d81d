"""Fast checks of the grading pipeline's pure parts: report validation, min-combination, safe reading."""
from pathlib import Path

from autograder.grading.run.combine import combined_records
from autograder.grading.bookkeeping.layout import Submission, read_notebook
from autograder.grading.bookkeeping.source import TEST, Cell, SourceNotebook
from autograder.grading.run.judge import graded_call
from autograder.grading.run.verify import definitions_only

GRADED = {"a-visible", "a-hidden-values"}


def test_graded_cells_are_read_as_calls_of_the_checks():
    hidden = Cell(TEST, '### BEGIN HIDDEN TESTS\nfrom autograder.checks import check\ncheck("LayerNorm", LayerNorm, "grad")\n', "LayerNorm-hidden-grad", 1.0)
    visible = Cell(TEST, 'problem = visible_problem("split_heads", split_heads)\nassert not problem, problem\n', "split_heads-visible", 1.0)
    asserts_only = Cell(TEST, "assert noam_rate(1, 8, 4) > 0\n", "noam_rate-visible", 1.0)
    free_form = Cell(TEST, "assert double(21) == 42\n", "double-hidden-values", 1.0)
    assert (graded_call(hidden).unit, graded_call(hidden).name, graded_call(hidden).aspect) == ("LayerNorm", "LayerNorm", "grad")
    assert (graded_call(visible).unit, graded_call(visible).aspect) == ("split_heads", "visible")
    assert (graded_call(asserts_only).unit, graded_call(asserts_only).aspect) == ("noam_rate", "visible")
    assert graded_call(free_form) is None


def test_definitions_only_keeps_imports_functions_and_classes():
    kept = definitions_only("import math\nx = expensive()\ndef f():\n    return 1\nprint(x)\nclass C:\n    pass\n")
    assert "import math" in kept and "def f" in kept and "class C" in kept
    assert "expensive" not in kept and "print" not in kept
    assert definitions_only("%matplotlib inline\n") == ""


def notebook():
    cells = (Cell(TEST, "", "a-visible", 1.0), Cell(TEST, "", "a-hidden-values", 2.0))
    return SourceNotebook("01-a", "01-a", Path("01-a.ipynb"), cells)


def test_the_kernel_can_only_lower_a_score():
    submission = Submission("s", "01-a", Path("."))
    nbgrader = {"a-visible": (1.0, []), "a-hidden-values": (0.0, ["AssertionError: [id] no"])}
    verdicts = {"a-visible": (False, "[tampering] replaced"), "a-hidden-values": (True, "")}
    records = combined_records(submission, notebook(), nbgrader, verdicts)
    assert [(r["points"], r["max_points"]) for r in records] == [(0, 1), (0, 2)]
    assert records[0]["feedback"] == ["[tampering] replaced"]
    assert records[1]["feedback"] == ["AssertionError: [id] no"]


def test_without_nbgrader_the_out_of_kernel_result_stands_alone():
    submission = Submission("s", "01-a", Path("."))
    verdicts = {"a-visible": (True, ""), "a-hidden-values": (False, "Not graded: stopped")}
    records = combined_records(submission, notebook(), None, verdicts, "DeadKernelError: Kernel died")
    assert [r["points"] for r in records] == [1, 0]
    assert "Kernel died" in records[0]["feedback"][0]


def test_unreadable_notebooks_are_explained(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{ nope", encoding="utf-8")
    (tmp_path / "list.ipynb").write_text("[1, 2]", encoding="utf-8")
    assert "not valid JSON" in read_notebook(tmp_path / "bad.ipynb")[1]
    assert "not a Jupyter notebook" in read_notebook(tmp_path / "list.ipynb")[1]
    assert "no notebook named missing.ipynb" in read_notebook(tmp_path / "missing.ipynb")[1]


def test_saved_results_are_reused_only_under_the_same_key(tmp_path):
    from autograder.grading.run.state import read_state, write_state

    submission = Submission("s", "01-a", tmp_path)
    write_state(tmp_path, submission, "key-1", [{"points": 1}])
    assert read_state(tmp_path, submission, "key-1") == [{"points": 1}]
    assert read_state(tmp_path, submission, "key-2") is None


def test_grading_processes_skip_the_slow_iri_grammar_and_still_validate_notebooks():
    import subprocess
    import sys

    script = (
        "import sys, autograder.grading.run.runner, nbformat\n"
        "from autograder.paths import SOLUTIONS\n"
        "nb = nbformat.read(next(SOLUTIONS.glob('*/*.ipynb')), as_version=4)\n"
        "nbformat.validate(nb)\n"
        "nb.cells[0]['cell_type'] = 'no such type'\n"
        "try:\n    nbformat.validate(nb)\nexcept nbformat.ValidationError:\n    print('invalid caught')\n"
        "print('rfc3987_syntax loaded' if sys.modules.get('rfc3987_syntax') else 'rfc3987_syntax skipped')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["invalid", "caught", "rfc3987_syntax", "skipped"]
