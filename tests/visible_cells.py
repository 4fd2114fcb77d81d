"""A notebook's visible test cell (English), run on a candidate unit as in its notebook: after the provided code,
the other units of the course are the reference's, the unit under test is the candidate. Used by the zoo
(tests/zoo/test_zoo_visible.py) and the mutation tables (tests/mutants), so that "passes the visible test" means
the notebook's own cell, its specific checks included, not only the stored cases."""
import contextlib
import io
import math
import re
from functools import cache
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference
from learner_kit import i18n
from learner_kit.explain import explain_errors
from learner_kit.messages import format_message
from learner_kit.visible import check_visible, passed, visible_problem

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@cache
def visible_cell(unit, lang="en"):
    """The source of `unit`'s visible test cell, from the notebook of edition `lang` that holds it, or None."""
    pattern = re.compile(r"```python test " + re.escape(unit) + r"-visible 1\n(.*?)\n```", re.S)
    for notebook in sorted((NOTEBOOKS if lang == "en" else NOTEBOOKS / lang).glob("*.md")):
        found = pattern.search(notebook.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return None


def visible_cell_message(unit, candidate, names=None, lang="en"):
    """The message the visible cell raises with `candidate` as `unit` ('' when it passes); `names` replace other
    units of the namespace (a wrong part of a composite); `lang` the edition whose cell runs, in its language."""
    source = visible_cell(unit, lang)
    if source is None:
        raise LookupError(f"no visible test cell for {unit}")
    namespace = {name: getattr(reference, name) for name in dir(reference) if not name.startswith("_")}
    namespace.update(torch=torch, nn=nn, F=F, math=math, format_message=format_message, check_visible=check_visible,
                     passed=passed, visible_problem=visible_problem, explain_errors=explain_errors,
                     __name__="__main__")
    namespace.update(names or {})
    namespace[unit] = candidate
    with i18n.speaking(lang), contextlib.redirect_stdout(io.StringIO()):
        try:
            exec(compile(source, f"{unit}-visible", "exec"), namespace)
        except AssertionError as failure:
            return str(failure) or "AssertionError"
        except Exception as error:  # noqa: BLE001 - the cell's own code broke: the learner would see a traceback
            return f"raw error from the test cell: {type(error).__name__}: {error}"
    return ""
