"""Messages that say where a learner's computation parts from the reference's (learner_kit.trace, .locate).

Each mistake below is written as a learner writes it (the reference's text with one change, run as the
learner's cell) and is one no known mistake names. The hidden check must then say where the code parts,
and what it says must be true of that code: each statement is checked here against the mutant's own
values, read with hooks of this test's own (not with learner_kit.trace).
"""
import inspect
import math
import types

import pytest
import torch

from autograder import reference
from autograder.checks import UNITS, CheckFailure, check
from autograder.grading.run.judge import _trace
from learner_kit import harness
from learner_kit.locate import is_located, locate
from learner_kit.trace import Recorder

SOURCE = inspect.getsource(reference)


def learner_unit(unit, old, new):
    """The reference module with `old` replaced by `new`, run as a learner's cell; its `unit`."""
    changed = SOURCE.replace(old, new, 1)
    assert changed != SOURCE, old
    cell = types.ModuleType("learner_cell")
    exec(compile(changed, "<learner-cell>", "exec"), cell.__dict__)
    return getattr(cell, unit)


def message(unit, candidate, aspect="values"):
    with pytest.raises(CheckFailure) as failure:
        check(unit, candidate, aspect)
    return str(failure.value)


def captured(unit, candidate, aspect="values"):
    """For the learner's module and the reference's, with the checks' weights, on the aspect's first case:
    {submodule name: (its first call's first argument, what that call returned)}, read with plain hooks."""
    spec = UNITS[unit]
    call, case = spec.build_call(), spec.cases[aspect]()[0]
    seen = {}
    for side, target in (("learner", candidate), ("reference", spec.reference)):
        module, calls, handles = harness.run(target, call, case).instance, {}, []
        for name, sub in module.named_children():
            def hook(_, args, output, name=name):
                calls.setdefault(name, (args[0].detach(), output.detach()))
            handles.append(sub.register_forward_hook(hook))
        with torch.no_grad():
            module(*case.inputs.values())
        for handle in handles:
            handle.remove()
        seen[side] = calls
    return seen["learner"], seen["reference"]


# --------------------------------------------------------------------------- composites: which call, what it got

def test_a_residual_left_out_is_told_at_the_norm_that_misses_it():
    candidate = learner_unit("DecoderLayer", "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))",
                             "x = self.norm2(self.dropout2(self.cross_attn(x, memory, memory, src_mask)))")
    text = message("DecoderLayer", candidate)
    assert text.startswith("[wrong-values]") and is_located(text)
    assert "`self.norm2` is called with the output of `self.cross_attn` as `input`" in text
    assert "the exercise passes the cross-attention sublayer's residual sum there, which is that plus the output of " \
           "`self.norm1`" in text
    mine, theirs = captured("DecoderLayer", candidate)  # both statements, read off the two modules
    assert torch.allclose(mine["norm2"][0], mine["cross_attn"][1])
    assert torch.allclose(theirs["norm2"][0], theirs["cross_attn"][1] + theirs["norm1"][1])


def test_a_step_reading_a_stale_variable_is_told_by_the_value_it_read():
    candidate = learner_unit("DecoderLayer", "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))",
                             "y = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))")
    text = message("DecoderLayer", candidate)
    assert "`self.ffn` is called with the output of `self.norm1` as `x`; the reference passes the output of " \
           "`self.norm2`." in text
    mine, theirs = captured("DecoderLayer", candidate)
    assert torch.allclose(mine["ffn"][0], mine["norm1"][1]) and torch.allclose(theirs["ffn"][0], theirs["norm2"][1])


def test_a_submodule_reused_for_another_is_told():
    candidate = learner_unit("DecoderLayer", "self.cross_attn(x, memory, memory, src_mask)",
                             "self.self_attn(x, memory, memory, src_mask)")
    text = message("DecoderLayer", candidate)
    assert is_located(text) and "`self.cross_attn`" in text


# --------------------------------------------------------------------------- leaf units: which step, which argument

def test_a_softmax_without_dim_is_told_by_the_axis_it_took():
    def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
        scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = torch.nn.functional.softmax(scores)  # no dim: PyTorch picks axis 0 for 3-D input
        return weights @ value, weights

    text = message("scaled_dot_product_attention", scaled_dot_product_attention)
    assert is_located(text)
    assert "the attention weights (the softmax over the keys)" in text and "the arguments (0, False)" in text


def test_a_variance_that_is_not_centred_is_told_at_the_variance():
    candidate = learner_unit("LayerNorm", "var = x.var(dim=-1, keepdim=True, correction=0)",
                             "var = (x ** 2).mean(dim=-1, keepdim=True)")
    text = message("LayerNorm", candidate)
    assert "[layernorm-unbiased-var]" not in text
    assert "equals the variance σ² over the last axis; the exercise computes that step from `x`." in text


def test_a_square_root_taken_twice_is_told_by_what_the_division_got():
    candidate = learner_unit("LayerNorm", "torch.sqrt(var + self.eps)", "torch.sqrt(torch.sqrt(var + self.eps))")
    text = message("LayerNorm", candidate)
    assert "[layernorm-unbiased-var]" not in text
    assert "Your own division gets, as its input number 2, the square root of the reference's." in text


def test_results_in_the_wrong_order_are_told_so():
    def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
        weights = (query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))).softmax(-1)
        return weights, weights @ value

    text = message("scaled_dot_product_attention", scaled_dot_product_attention)
    assert "holds the values the reference returns as" in text


def test_an_error_is_told_at_the_operator_that_raised_with_what_it_was_given():
    candidate = learner_unit("scaled_dot_product_attention", "return dropped @ value, weights",
                             "return dropped @ value.transpose(-2, -1), weights")
    text = message("scaled_dot_product_attention", candidate)
    assert text.startswith("[runtime-error]")
    assert "the error comes from your matrix product, given values of shape (2, 3, 5) equal to the attention " \
           "weights (the softmax over the keys) and `value` rearranged (shape (2, 7, 5))" in text
    assert "In the exercise, that step gets tensors of shapes (2, 3, 5), (2, 5, 7) and gives the output (the " \
           "weights times the values)." in text


def test_an_error_outside_any_operator_is_not_located():
    def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
        weights = (query @ key.transpose(-2, -1)).softmax(-1)
        raise ValueError("my own check failed")

    assert not is_located(message("scaled_dot_product_attention", scaled_dot_product_attention))


# --------------------------------------------------------------------------- what locate never does

def test_a_right_answer_written_otherwise_parts_nowhere():
    def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
        scores = torch.einsum("...qd,...kd->...qk", query, key) * query.size(-1) ** -0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))  # another fill: the same softmax
        weights = torch.softmax(scores, dim=-1)
        return weights @ value, weights

    spec = UNITS["scaled_dot_product_attention"]
    call = spec.build_call()
    for case in spec.cases["masks"]():
        mine = harness.run(scaled_dot_product_attention, call, case, trace=True)
        theirs = harness.run(spec.reference, call, case, trace=True)
        assert locate(mine.trace, theirs.trace, case.inputs, (mine.outputs, theirs.outputs)) == ""


def test_a_record_cut_short_says_nothing():
    spec = UNITS["LayerNorm"]
    call, case = spec.build_call(), spec.cases["values"]()[0]
    theirs = harness.run(spec.reference, call, case, trace=True).trace
    mine = dict(theirs, ops=theirs["ops"][:2], complete=False)
    assert locate(mine, theirs, case.inputs) == ""


def test_the_recorder_keeps_within_its_budget_and_leaves_no_hooks():
    layer = reference.DecoderLayer(8, 2, 16).eval()
    x = torch.randn(2, 3, 8)
    with Recorder({"x": x}, layer) as recorder:
        for _ in range(300):
            layer(x, x)
    record = recorder.record()
    assert not record["complete"] and len(record["calls"]) <= 200
    assert all(not m._forward_pre_hooks and not m._forward_hooks for m in layer.modules())


@pytest.mark.parametrize("forged", [
    None, 7, "calls", {"calls": "x", "ops": []}, {"calls": [{"name": 3}], "ops": [{"op": None}], "complete": True},
    {"calls": [{"name": "w", "args": {"a": "not a tensor"}, "depth": True}], "ops": [
        {"op": "softmax", "inputs": [["op", 10 ** 9], ["input", []], 5], "args": [{}, 1], "output": "x"}],
     "complete": True},
    {"calls": [], "ops": [], "given": ["x", None, 3], "complete": True}, {"calls": [], "ops": [], "given": "x"},
])
def test_a_forged_record_from_the_sandbox_is_rebuilt_or_refused(forged):
    rebuilt = _trace(forged)
    spec = UNITS["LayerNorm"]
    call, case = spec.build_call(), spec.cases["values"]()[0]
    theirs = harness.run(spec.reference, call, case, trace=True).trace
    assert rebuilt is None or set(rebuilt) == {"calls", "ops", "given", "complete", "raised"}
    assert rebuilt is None or all(isinstance(v, torch.Tensor) for v in rebuilt["given"])
    assert isinstance(locate(rebuilt, theirs, case.inputs), str)  # never raises
