"""Play one Mistake in its notebook, in this process, as the learner's kernel would run it.

The notebook is the solution notebook (solutions/<id>/<id>.ipynb) with its hidden tests left
out: the other blanks of the notebook hold right answers, the mistake's unit holds the
mistake. Cells are compiled under file names that linecache knows, as IPython does, so a
message can quote the learner's line. The cells before the unit's answer cell run once per
unit and are shared by its mistakes (each mistake runs on a copy of that namespace).
"""
import contextlib
import io
import json
import linecache
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Played:
    message: str  # what the unit's visible test cell said: its error's text, or what it printed
    passed: bool  # the test cell raised nothing
    later_error: str  # the first error of a later cell ('' if none)


def notebook_path(notebook):
    return ROOT / "solutions" / notebook / f"{notebook}.ipynb"


@lru_cache(maxsize=None)
def _cells(notebook):
    cells = json.loads(notebook_path(notebook).read_text())["cells"]
    return [(c["metadata"].get("nbgrader", {}).get("grade_id", ""), "".join(c["source"]))
            for c in cells if c["cell_type"] == "code"]


def _is_hidden(source):
    """Cells a walkthrough skips: hidden tests, and the progress table (all ten notebooks, seconds)."""
    return "### BEGIN HIDDEN TESTS" in source or "show_progress(" in source


def _answer_index(notebook, unit):
    for index, (grade_id, _) in enumerate(_cells(notebook)):
        if grade_id == unit:
            return index
    raise ValueError(f"{notebook} has no answer cell for {unit!r}")


def _test_index(notebook, unit):
    for index, (grade_id, source) in enumerate(_cells(notebook)):
        if grade_id == f"{unit}-visible" or (grade_id.startswith(f"{unit}-") and not _is_hidden(source)
                                              and "visible" in grade_id):
            return index
    raise ValueError(f"{notebook} has no visible test cell for {unit!r}")


_counter = [0]


def _run_cell(source, namespace):
    _counter[0] += 1
    name = f"<walkthrough-cell-{_counter[0]}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(source, name, "exec"), namespace)
    plt.close("all")
    return out.getvalue()


@lru_cache(maxsize=None)
def _prefix(notebook, unit):
    """The namespace after every cell before the unit's answer cell."""
    os.environ.pop("NBGRADER_EXECUTION", None)
    namespace = {"__name__": "__main__"}
    for _, source in _cells(notebook)[:_answer_index(notebook, unit)]:
        if not _is_hidden(source):
            _run_cell(source, namespace)
    return namespace


def play(mistake):
    """Run the mistake's answer cell, the cells after it up to its unit's visible test, and (with
    later_cells) the notebook's later cells up to the next answer cell."""
    cells, start = _cells(mistake.notebook), _answer_index(mistake.notebook, mistake.unit)
    test = _test_index(mistake.notebook, mistake.unit)
    namespace = dict(_prefix(mistake.notebook, mistake.unit))
    _run_cell(mistake.code, namespace)
    for _, source in cells[start + 1:test]:
        if not _is_hidden(source):
            _run_cell(source, namespace)
    try:
        message, passed = _run_cell(cells[test][1], namespace).strip(), True
    except Exception as error:  # the test's verdict
        message, passed = (str(error) or type(error).__name__), False
    later_error = ""
    if mistake.later_cells:
        for grade_id, source in cells[test + 1:]:
            if _is_hidden(source) or "-visible" in grade_id:
                continue
            if grade_id and not grade_id.startswith("provided"):
                break  # the next answer cell: the next unit's own story
            try:
                _run_cell(source, namespace)
            except Exception as error:
                later_error = f"{type(error).__name__}: {error}"
                break
    return Played(message, passed, later_error)


def named_id(message):
    """'sdpa-no-scale' from '[sdpa-no-scale] ...' (the first id of the message), or ''."""
    if message.startswith("["):
        return message[1:message.index("]")] if "]" in message else ""
    return ""
