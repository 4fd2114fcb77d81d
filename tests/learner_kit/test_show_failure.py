"""A cell that stops on an error in a learner's kernel brings its message into view; nothing else changes.

JupyterLab's Run All leaves the page at the notebook's end when a cell fails (the browser test
tests/browser/test_learner_lab.py shows the message is then on screen); here, in a real kernel: which cells
get the scroll, and that the grader's runs (NBGRADER_EXECUTION) and passing cells get no extra output.
"""
import nbformat
from nbclient import NotebookClient

from learner_kit.show_failure import SCROLL

SETUP = "from learner_kit.plotting import attention_heatmap"


def run(*sources):
    """The cells of a notebook of ``sources`` after a real kernel ran them (it inherits this process's environment)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return nb.cells


def scrolls(cell):
    return [o for o in cell.outputs if o.get("data", {}).get("application/javascript") == SCROLL]


def test_a_failing_cell_scrolls_its_message_into_view_and_a_passing_one_does_not(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    cells = run(SETUP, "x = 1", "assert False, 'the message'", "def broken(:\n    pass")
    assert not scrolls(cells[0]) and not scrolls(cells[1]), "a cell that ran without error got the scroll"
    failing = cells[2]
    assert [o.output_type for o in failing.outputs] == ["error", "display_data"], failing.outputs
    (scroll,) = scrolls(failing)
    assert scroll["data"]["text/plain"] == "", "a reopened (untrusted) notebook must show nothing in its place"
    assert len(scrolls(cells[3])) == 1, "a cell Python cannot read (SyntaxError) must be brought into view too"


def test_the_graders_runs_get_no_scroll(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    cells = run(SETUP, "assert False")
    assert [o.output_type for o in cells[1].outputs] == ["error"], cells[1].outputs


def test_plain_python_registers_nothing():
    from learner_kit import show_failure
    assert show_failure._kernel_shell() is None
    show_failure.watch()  # no IPython here: a no-op, no error
