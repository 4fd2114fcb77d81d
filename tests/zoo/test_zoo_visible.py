"""The visible test cell of a notebook (English), run on a zoo bug that lists `visible=`: it must fail, and its
message must start with that id. A visible test that passes the bug, or names a mistake the code did not make (a
heuristic that fits several mistakes), fails here. The cell runs as in its notebook, after the provided code: the
other units of the course are the reference's, the unit under test is the specimen."""
import contextlib
import io
import math
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference
from learner_kit import i18n
from learner_kit.explain import explain_errors
from learner_kit.messages import format_message
from learner_kit.visible import check_visible, passed

from . import load_all

BUGS, _ = load_all()
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def visible_cell(unit):
    """The source of `unit`'s visible test cell, from the English notebook that holds it."""
    pattern = re.compile(r"```python test " + re.escape(unit) + r"-visible 1\n(.*?)\n```", re.S)
    for notebook in sorted(NOTEBOOKS.glob("*.md")):
        found = pattern.search(notebook.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    raise LookupError(f"no visible test cell for {unit}")


def visible_message(specimen):
    """The first line the visible cell raises with the specimen as its unit, or '' when it passes."""
    expected, names = specimen.visible if isinstance(specimen.visible, tuple) else (specimen.visible, {})
    namespace = {name: getattr(reference, name) for name in dir(reference) if not name.startswith("_")}
    namespace.update(torch=torch, nn=nn, F=F, math=math, format_message=format_message, check_visible=check_visible,
                     passed=passed, explain_errors=explain_errors, __name__="__main__")
    namespace.update(names)
    namespace[specimen.unit] = specimen.candidate
    with i18n.speaking("en"), contextlib.redirect_stdout(io.StringIO()):
        try:
            exec(compile(visible_cell(specimen.unit), f"{specimen.unit}-visible", "exec"), namespace)
        except AssertionError as failure:
            return str(failure).splitlines()[0] if str(failure) else "AssertionError"
    return ""


@pytest.mark.parametrize("specimen", [pytest.param(s, id=f"{s.unit}-{s.name}") for s in BUGS if s.visible])
def test_visible_cell_fails_and_names_only_what_is_proven(specimen):
    expected = specimen.visible[0] if isinstance(specimen.visible, tuple) else specimen.visible
    message = visible_message(specimen)
    assert message, f"{specimen.name} passed the visible test of {specimen.unit}"
    assert message.startswith(f"[{expected}] "), message
