"""Every function the challenge level blanks has a docstring that states its contract.

At the challenge level a learner sees, of each function that holds a blank, only its signature and its
docstring (autograder/levels.py): the docstring is the contract. So, in both languages:

- every such function has a docstring;
- an `__init__` docstring names every attribute the checks and the later notebooks look up: the submodules,
  parameters and buffers that the reference's constructor registers on the module itself, and its plain
  attributes (`n_head`, `d_k`, `eps` ...), as a built reference module holds them;
- any other docstring states shapes, at least one of the form `(B, L, d_model)`, `(..., L_q, d_k)` or `(N,)`
  (noam_rate, which takes and returns Python numbers, excepted).

The reference (autograder/reference.py) is the model answer every check compares against, so what it holds
is what a learner's module must hold.
"""
import ast
import re

import pytest
import torch

from autograder import reference
from autograder.build_notebooks import notebook
from autograder.levels import _is_marker, _outer_functions_with_blanks
from autograder.paths import EDITIONS, sources_dir

IDS = sorted(md.stem for md in sources_dir("en").glob("[0-9][0-9]-*.md"))
CASES = [(lang, assignment) for lang in EDITIONS for assignment in IDS
         if (sources_dir(lang) / f"{assignment}.md").is_file()]
# Small constructor arguments for each graded module, enough to build the reference and list what it holds.
BUILD = {
    "MultiHeadAttention": (8, 2), "LayerNorm": (8,), "AddNorm": (8,), "PositionwiseFeedForward": (8, 16),
    "Embeddings": (11, 8), "PositionalEncoding": (8, 20), "EncoderLayer": (8, 2, 16), "Encoder": (8, 2, 16, 2),
    "DecoderLayer": (8, 2, 16), "Decoder": (8, 2, 16, 2), "Generator": (8, 11), "Transformer": (11, 13, 8, 2, 1, 16),
    "AdditiveAttention": (4, 6), "AdditiveMultiHeadAttention": (8, 2), "LabelSmoothingLoss": (11,),
}
NO_SHAPES = {"noam_rate"}  # Python numbers in, a Python number out
SHAPE = re.compile(r"\((?:\.\.\.|B\b|N\b|1\b)[^()]*\)")


def attributes(unit):
    """The names a built reference module holds on itself: submodules, parameters, buffers, plain attributes."""
    module = getattr(reference, unit)(*BUILD[unit])
    names = {name for name, _ in module.named_children()}
    names |= {name for name, _ in module.named_parameters(recurse=False)}
    names |= {name for name, _ in module.named_buffers(recurse=False)}
    names |= {name for name in vars(module) if not name.startswith("_") and name != "training"}
    return names


def blanked_functions(answer_source):
    """[(function node, its docstring or None)]: the functions the challenge level blanks below the docstring."""
    lines = answer_source.split("\n")
    markers = [number for number, line in enumerate(lines, 1) if _is_marker(line)]
    return [(function, ast.get_docstring(function))
            for function, _ in _outer_functions_with_blanks(ast.parse(answer_source), lines, markers)]


def contract_gaps(unit, answer_source):
    """What the docstrings of ``unit``'s blanked functions leave out, one line each."""
    gaps = []
    for function, docstring in blanked_functions(answer_source):
        where = f"{unit}.{function.name}" if function.name != unit else unit
        if not docstring:
            gaps.append(f"{where}: no docstring")
        elif function.name == "__init__":
            missing = sorted(name for name in attributes(unit) if not re.search(rf"(?<![A-Za-z0-9_.]){name}(?![A-Za-z0-9_])", docstring))
            if missing:
                gaps.append(f"{where}: the docstring does not name {', '.join(missing)}")
        elif unit not in NO_SHAPES and not SHAPE.search(docstring):
            gaps.append(f"{where}: the docstring states no shape")
    return gaps


def answer_cells(assignment, lang):
    return {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in notebook(assignment, lang, "guided").cells
            if cell.metadata.get("nbgrader", {}).get("solution")}


@pytest.mark.parametrize("lang, assignment", CASES)
def test_every_challenge_function_states_its_contract(lang, assignment):
    gaps = [gap for unit, source in answer_cells(assignment, lang).items() for gap in contract_gaps(unit, source)]
    assert gaps == []


def test_every_module_unit_can_be_listed():
    """Each graded module of the reference is in BUILD, so that its `__init__` is checked, not skipped."""
    modules = {name for name, obj in vars(reference).items()
               if isinstance(obj, type) and issubclass(obj, torch.nn.Module) and obj.__module__ == reference.__name__
               and not name.startswith("_")}
    assert modules <= set(BUILD)
    assert {"w_q", "w_k", "w_v", "w_o", "dropout", "n_head", "d_k", "attn", "score"} <= attributes(
        "AdditiveMultiHeadAttention")


def test_the_contract_check_is_not_blind():
    cell = ("class Decoder(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
            "        ### BEGIN SOLUTION\n        self.layers = None\n        ### END SOLUTION\n\n"
            "    def forward(self, x):\n        \"\"\"x through every layer.\"\"\"\n"
            "        ### BEGIN SOLUTION\n        return x\n        ### END SOLUTION\n")
    assert contract_gaps("Decoder", cell) == ["Decoder.__init__: no docstring",
                                              "Decoder.forward: the docstring states no shape"]
    named = cell.replace("super().__init__()", '"""layers: the stack."""\n        super().__init__()').replace(
        "x through every layer.", "x (B, L, d_model) -> (B, L, d_model).")
    assert contract_gaps("Decoder", named) == []
    assert contract_gaps("MultiHeadAttention", named.replace("Decoder", "MultiHeadAttention"))[0].startswith(
        "MultiHeadAttention.__init__: the docstring does not name attn, d_k, dropout, n_head, w_k")
