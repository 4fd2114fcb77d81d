"""learner_kit is what learners receive: it holds no solution and never imports autograder."""
import ast
import inspect
from pathlib import Path

import pytest

import learner_kit
from autograder import reference

SOURCES = sorted(Path(learner_kit.__file__).parent.rglob("*.py"))
GRADED_UNITS = {name for name, value in vars(reference).items()
                if not name.startswith("_") and (inspect.isfunction(value) or inspect.isclass(value))
                and value.__module__ == reference.__name__}


def test_the_graded_units_are_known():
    assert {"scaled_dot_product_attention", "MultiHeadAttention", "greedy_decode"} <= GRADED_UNITS


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_no_definition_of_a_graded_unit_and_no_autograder_import(source):
    tree = ast.parse(source.read_text(), filename=str(source))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assert node.name not in GRADED_UNITS, f"{source.name} defines {node.name}"
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] == "autograder" for a in node.names), f"{source.name} imports autograder"
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] != "autograder", f"{source.name} imports from autograder"


def test_fingerprints_are_plain_data():
    import torch

    for file in (Path(learner_kit.__file__).parent / "fingerprints").glob("*.pt"):
        torch.load(file, weights_only=True)  # raises on anything but tensors and plain containers
