"""What a learner sees when a visible test fails: the message (and their line), not a traceback through the
test cell and learner_kit (learner_kit.messages.TestFailed renders itself in IPython)."""
import nbformat
from nbclient import NotebookClient

from autograder.paths import ROOT

WRONG = '''
import math, torch
from learner_kit.visible import check_visible

def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ value, weights
'''


def test_a_failing_visible_test_shows_its_message_only():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(WRONG),
        nbformat.v4.new_code_cell('check_visible("scaled_dot_product_attention", scaled_dot_product_attention)'),
    ])
    NotebookClient(notebook, timeout=120, allow_errors=True, resources={"metadata": {"path": str(ROOT)}}).execute()
    (error,) = [o for o in notebook.cells[1].outputs if o.output_type == "error"]
    shown = "\n".join(error.traceback)
    assert "[sdpa-no-scale]" in shown and shown.count("\n") < 15, shown
    assert "visible.py" not in shown and "check_visible(" not in shown and "Traceback" not in shown, shown
    assert shown.startswith("\x1b[0;31mAssertionError\x1b[0m: [sdpa-no-scale]"), shown
    assert error.evalue.startswith("[sdpa-no-scale]")
