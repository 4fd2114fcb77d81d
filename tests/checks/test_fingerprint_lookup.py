"""A lookup in the shipped fingerprints earns nothing at grading.

learner_kit/fingerprints/<unit>.pt ships the visible cases' inputs and the reference's results (the
learner's notebook compares against them, with no solution code). An answer that looks its inputs up
there passes the notebook's visible test; the grader decides the visible cell on those cases and on
the same cases with their inputs drawn anew (autograder.checks.core.fresh_inputs_problem).
"""
import torch

from autograder.checks.core import UNITS, redrawn
from tests.grading.run import test_grading_platform
from tests.grading.run.test_grading_platform import verdicts_of

judge = test_grading_platform.judge  # the platform tests' fixture: a judge with the sandbox, one per module

LOOKUP = '''
import torch
from learner_kit.visible import load

_stored = load("scaled_dot_product_attention")

def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    for case, result in zip(_stored["cases"], _stored["reference"]):
        shipped = case["inputs"]["query"]
        if shipped.shape == query.shape and torch.equal(shipped, query.detach()) and "outputs" in result:
            return result["outputs"]["output"].clone(), result["outputs"]["weights"].clone()
    weights = torch.full((*query.shape[:-1], key.shape[-2]), 1.0 / key.shape[-2], dtype=query.dtype)
    return weights @ value, weights
'''


def test_a_lookup_of_the_shipped_results_loses_the_visible_point(judge):
    verdicts = verdicts_of(judge, LOOKUP)
    passed, message = verdicts["visible"]
    assert not passed and "On new inputs of the same shapes" in message, message
    assert not any(passed for passed, _ in verdicts.values()), verdicts


def test_redrawn_inputs_differ_and_keep_what_matters():
    """Floats and integers drawn anew within their range; masks, sizes and modules kept."""
    for name in ("scaled_dot_product_attention", "make_pad_mask", "Embeddings"):
        for case in UNITS[name].probes():
            fresh = redrawn(case, 7)
            for key, value in case.inputs.items():
                new = fresh.inputs[key]
                if not isinstance(value, torch.Tensor):
                    assert new is value
                elif value.dtype == torch.bool:
                    assert torch.equal(new, value)
                else:
                    assert new.shape == value.shape and new.dtype == value.dtype
                    assert value.numel() < 4 or not torch.equal(new, value), (name, key)
                    if not value.is_floating_point():
                        assert value.min() <= new.min() and new.max() <= value.max()


BUILT_IN = '''
import torch.nn.functional as F

def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    output = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    scores = query @ key.transpose(-2, -1) / query.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return output, scores.softmax(dim=-1)
'''


def test_a_forbidden_built_in_loses_the_visible_point_too(judge):
    """The notebook's visible test watches for built-ins beside the learner's code; the grader's own run of the
    visible cases is watched too (the checks' Watch), so PyTorch's attention earns nothing at all."""
    verdicts = verdicts_of(judge, BUILT_IN)
    assert not any(passed for passed, _ in verdicts.values()), verdicts
    assert "[forbidden-builtin]" in verdicts["visible"][1], verdicts["visible"]
