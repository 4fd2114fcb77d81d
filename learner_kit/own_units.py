"""Train your own: assemble the capstone's model from the units you wrote in notebooks 01-08.

    from learner_kit.own_units import load_own_units
    mine = load_own_units()            # run from 10-train/, next to your other notebooks
    model = mine["Transformer"](...)

For each unit the model needs, in course order, the answer cell of that unit (the cell
whose nbgrader grade_id is the unit's name) is read from your notebook in the workspace
(../<assignment>/<assignment>.ipynb) and run in one shared namespace, so that your
`Transformer` is built from your `Encoder`, your `EncoderLayer` from your
`MultiHeadAttention`, and so on. Each unit must pass its visible checks first; where one
does not (or its notebook or cell is missing), the read-only version this notebook
provides stands in, and a line says so. This module holds no solution: the stand-ins are
read from the provided cells of the notebook that calls it.
"""
import ast
import contextlib
import io
import json
from pathlib import Path

from learner_kit.i18n import tr
from learner_kit.visible import visible_problem

# (assignment, the units of it the model uses), in course order: each may use the ones before.
# 03-add-norm is not here: the encoder and decoder layers use nn.LayerNorm, as the course fixes.
MODEL_UNITS = (
    ("01-attention", ("scaled_dot_product_attention",)),
    ("02-multi-head", ("split_heads", "merge_heads", "MultiHeadAttention")),
    ("04-feed-forward", ("PositionwiseFeedForward",)),
    ("05-encoder", ("Embeddings", "PositionalEncoding", "EncoderLayer", "Encoder")),
    ("06-masks", ("make_pad_mask", "make_subsequent_mask", "make_tgt_mask")),
    ("07-decoder", ("DecoderLayer", "Decoder")),
    ("08-generator", ("Generator", "Transformer")),
)
PRELUDE = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def provided_definitions(notebook):
    """{name: source} of the top-level functions and classes in the notebook's provided cells."""
    definitions = {}
    for cell in _cells(notebook):
        if cell.get("cell_type") != "code" or not _grade_id(cell).startswith("provided"):
            continue
        source = _source(cell)
        lines = source.splitlines(keepends=True)
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                definitions[node.name] = "".join(lines[first - 1: node.end_lineno])
    return definitions


def answer_cells(notebook):
    """{unit name: source} of the notebook's answer cells (nbgrader solution cells)."""
    return {_grade_id(cell): _source(cell) for cell in _cells(notebook)
            if cell.get("cell_type") == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution")}


def _run_quietly(source, namespace):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(source, "<your notebook>", "exec"), namespace)


def load_own_units(workspace="..", this_notebook="10-train.ipynb", report=print):
    """A namespace holding every unit of MODEL_UNITS: yours where it passes its visible checks.

    `workspace` holds your notebooks, one folder per assignment; `this_notebook` is the
    notebook whose provided cells supply the stand-ins. Prints one line per unit.
    """
    provided = provided_definitions(this_notebook)
    namespace = {"__name__": "your_units"}
    _run_quietly(PRELUDE, namespace)
    model_units = {unit for _, units in MODEL_UNITS for unit in units}
    for name, source in provided.items():  # private helpers of the provided units (e.g. _masked_softmax)
        if name.startswith("_"):
            _run_quietly(source, namespace)
    accepted = []
    for assignment, units in MODEL_UNITS:
        notebook = Path(workspace) / assignment / f"{assignment}.ipynb"
        cells = answer_cells(notebook) if notebook.is_file() else {}
        for unit in units:
            problem = _try_yours(unit, cells.get(unit), namespace, accepted, notebook)
            if problem:
                _run_quietly(provided[unit], namespace)
                report(tr("  provided {unit:<30} stands in: {problem}", unit=unit, problem=problem))
            else:
                accepted.append(unit)
                report(tr("  yours    {unit:<30} from {assignment}", unit=unit, assignment=assignment))
    report(tr("{count} of {total} units are yours.", count=len(accepted), total=len(model_units)))
    return namespace


def _try_yours(unit, source, namespace, accepted, notebook):
    """'' when your cell defines `unit` and it passes its visible checks (then it stays), else why not."""
    if source is None:
        return (tr("{notebook} has no answer cell for it.", notebook=notebook) if notebook.is_file() else
                tr("{notebook} was not found.", notebook=notebook))
    earlier = {name: namespace[name] for name in accepted}
    try:
        _run_quietly(source, namespace)
    except Exception as error:  # your cell may raise anything
        namespace.update(earlier)
        return tr("its cell raised {error_type}: {error}", error_type=type(error).__name__, error=error)
    namespace.update(earlier)  # the cell may not replace a unit already chosen
    candidate = namespace.get(unit)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            problem = visible_problem(unit, candidate)
    except Exception as error:  # a check that cannot even run counts as failed
        problem = f"{type(error).__name__}: {error}"
    return problem.splitlines()[0] if problem else ""
