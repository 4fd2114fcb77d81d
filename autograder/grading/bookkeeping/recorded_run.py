"""nbgrader's autograde without running the learner's code again: RecordedRun takes Execute's place.

The notebook's one run happens in the unit server's child (verify.py): it gives the verdicts and
what each cell printed and showed. nbgrader's own steps before and after Execute stay (restoring
the hidden tests and locked cells, the gradebook's submission, grade and comment rows, late
penalties), so its gradebook, feedback and formgrader work as with a kernel run. RecordedRun
fills the outputs in: each cell the learner's process ran gets what it printed there, and each
graded test cell gets "This test passed." when its verdict passed and the verdict's message as an
error when it failed, which nbgrader's SaveAutoGrades scores as 0. No output the learner's code made ever
reaches a graded cell, so nothing it prints can raise a score.
"""
import base64
import copy
from contextlib import contextmanager

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.bookkeeping.grader_output import ERROR_OUTPUT, message_output
from autograder.grading.bookkeeping.source import nbgrader_meta
from learner_kit.i18n import tr

RUN_INDEX = "autograder_run_index"  # cell metadata, set on the scratch copy only: the cell's index as submitted
_RUNS = {}  # {notebook name: (outputs {index: [outputs]}, verdicts {grade_id: (passed, message)})}, while autograding


@contextmanager
def recorded(runs):
    """The runs RecordedRun reads while nbgrader autogrades one submission: {notebook: (outputs, verdicts)}."""
    _RUNS.clear()
    _RUNS.update(runs)
    try:
        yield
    finally:
        _RUNS.clear()


def tag_cells(notebook):
    """Mark each code cell of the scratch copy with its index as submitted (payload_segments' "key")."""
    for index, cell in enumerate(notebook.cells):
        if cell.get("cell_type") == "code":
            cell.setdefault("metadata", {})[RUN_INDEX] = index
    return notebook


def verdict_outputs(verdict):
    """A graded cell's outputs: a line that it passed, or its verdict's message as an error (nbgrader scores 0)."""
    passed, message = verdict
    if passed:
        return [nbformat.v4.new_output("stream", name="stdout", text=tr("This test passed.") + "\n")]
    return [message_output(message)]


def png_data(value, max_bytes=1 << 20):
    """The base64 text of a PNG the child sent as a 1-D uint8 tensor, or None."""
    import torch

    if not (isinstance(value, torch.Tensor) and value.dtype == torch.uint8 and value.dim() == 1
            and 8 <= value.numel() <= max_bytes):
        return None
    data = value.numpy().tobytes()
    return base64.b64encode(data).decode("ascii") if data.startswith(b"\x89PNG\r\n\x1a\n") else None


def shown_outputs(raw, limit=50, max_chars=10_000):
    """nbformat outputs from what the child says one cell printed and showed: strings and PNG images only,
    rebuilt here (it comes from the learner's process); anything else is dropped. The feedback page sanitises
    HTML (feedback_page.py) as it did a kernel's outputs."""
    outputs = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        kind, text = item.get("type"), item["text"][:max_chars]
        if kind == "stream" and item.get("name") in ("stdout", "stderr"):
            outputs.append(nbformat.v4.new_output("stream", name=item["name"], text=text))
        elif kind == "result":
            outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": text}, execution_count=None))
        elif kind == "html":
            outputs.append(nbformat.v4.new_output("display_data", data={"text/html": text}))
        elif kind == "png" and (picture := png_data(item.get("data"))) is not None:
            outputs.append(nbformat.v4.new_output("display_data", data={"image/png": picture, "text/plain": "<Figure>"}))
        elif kind == "error" and isinstance(item.get("ename"), str):
            ename = item["ename"][:200] if item["ename"] != ERROR_OUTPUT else "Error"  # that name is the grader's
            outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=text, traceback=[f"{ename}: {text}"]))
    return outputs[:limit]


class RecordedRun(NbGraderPreprocessor):
    """In Execute's place: the outputs of the notebook's one run, and the verdicts as the graded cells' outputs."""

    def preprocess(self, nb, resources):
        outputs, verdicts = _RUNS.get(resources["nbgrader"]["notebook"], ({}, {}))
        for cell in nb.cells:
            index = cell.get("metadata", {}).pop(RUN_INDEX, None)
            if cell.cell_type != "code":
                continue
            cell.execution_count = None
            meta = nbgrader_meta(cell)
            if meta.get("grade") and not meta.get("solution"):
                verdict = verdicts.get(meta.get("grade_id"), (False, tr("This cell was not judged.")))
                cell.outputs = verdict_outputs(verdict)
            else:
                cell.outputs = copy.deepcopy(outputs.get(index, []))
        return nb, resources
