"""check() itself: its output, its isolation, the guards and the messages."""
import inspect
import math
import traceback
import types

import pytest
import torch

from autograder import reference
from autograder.checks import UNITS, CheckFailure, check, guards, pictures
from learner_kit import harness


def _copy_of_reference():
    """The reference's code as if a learner had written it: right, but not from autograder."""
    module = types.ModuleType("learner_notebook")
    exec(compile(inspect.getsource(reference), "<learner notebook>", "exec"), module.__dict__)
    return module


LEARNER = _copy_of_reference()
ALL = [(unit, aspect) for unit, spec in UNITS.items() for aspect in spec.cases]


def test_unknown_unit_or_aspect_is_the_caller_s_error():
    with pytest.raises(ValueError, match="no checks for unit"):
        check("Nonsense", LEARNER.split_heads, "values")
    with pytest.raises(ValueError, match="has no aspect 'masks'"):
        check("split_heads", LEARNER.split_heads, "masks")


@pytest.mark.parametrize("unit, aspect", ALL)
def test_a_pass_prints_one_line_and_leaves_no_trace(unit, aspect, capfd):
    torch.manual_seed(123)
    state, threads, dtype = torch.get_rng_state(), torch.get_num_threads(), torch.get_default_dtype()
    check(unit, getattr(LEARNER, unit), aspect)
    out, err = capfd.readouterr()
    assert out == f"✓ {unit}: {aspect} passed\n" and err == ""
    assert torch.equal(torch.get_rng_state(), state)
    assert (torch.get_num_threads(), torch.get_default_dtype()) == (threads, dtype)


def test_a_failure_is_short_first_line_id_and_no_tensor_dump():
    def unscaled(query, key, value, mask=None, dropout=None):
        scores = query @ key.transpose(-2, -1)
        weights = (scores if mask is None else scores.masked_fill(~mask, -1e9)).softmax(-1)
        return weights @ value, weights

    with pytest.raises(CheckFailure) as caught:
        check("scaled_dot_product_attention", unscaled, "values")
    message = str(caught.value)
    assert message.splitlines()[0].startswith("[sdpa-no-scale] ")
    assert "tensor(" not in message and len(message) < 800
    assert "max abs difference" in message and " at batch " in message
    assert len(traceback.extract_tb(caught.value.__traceback__)) <= 2  # the test's frame and check's


def test_meta_operations_that_cannot_run_are_inconclusive(capsys):
    def uses_item(query, key, value, mask=None, dropout=None):
        scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        exp = (scores - scores.max().item()).exp()  # .item() cannot run on meta
        weights = exp / exp.sum(-1, keepdim=True)
        return weights @ value, weights

    check("scaled_dot_product_attention", uses_item, "device")
    assert "device passed" in capsys.readouterr().out


def test_a_float32_constant_in_float64_gets_its_hint():
    def float32_scale(query, key, value, mask=None, dropout=None):
        scale = torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32, device=query.device)
        scores = query @ key.transpose(-2, -1) / scale
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = scores.softmax(-1)
        return weights @ value, weights

    with pytest.raises(CheckFailure, match="float32 precision: if a constant") as caught:
        check("scaled_dot_product_attention", float32_scale, "float64")
    assert caught.value.mistake_id == "wrong-values"


@pytest.mark.parametrize("unit", list(UNITS))
def test_a_clean_environment_is_not_tampering(unit):
    assert guards.tampering(UNITS[unit], getattr(LEARNER, unit)) == ""


def test_device_errors_are_told_from_other_meta_failures():
    meta = torch.zeros(3, device="meta")
    for make, counts in [(lambda: meta + torch.zeros(3), True), (lambda: meta.item(), False),
                         (lambda: meta.tolist(), False), (lambda: meta[meta > 0], False)]:
        try:
            make()
        except Exception as error:  # noqa: BLE001 - whatever torch raises is the point
            assert guards.is_device_error(error) is counts, error


def test_state_dict_problems_name_the_submodule():
    module = torch.nn.Sequential()
    module.add_module("linears", torch.nn.Linear(2, 2))
    problems = harness.load_weights(module, {"w_o.weight": torch.zeros(2, 2), "linears.weight": torch.zeros(3, 2)})
    text = " ".join(problems)
    assert "Missing: `w_o` (w_o.weight)" in text
    assert "Not in the exercise: `linears` (linears.bias)" in text
    assert "`linears.weight` has shape (2, 2), expected (3, 2)" in text


def test_attention_figure_is_three_titled_maps():
    mine = torch.rand(2, 4, 3, 5)
    theirs = mine.clone()
    theirs[1, 2] += 0.5
    figure = pictures.attention_figure(mine, theirs, "weights")
    titled = [axis for axis in figure.axes if axis.get_title()]
    assert [axis.get_title() for axis in titled] == ["your weights", "expected weights", "yours − expected"]
    assert all(axis.get_xlabel() == "key" and axis.get_ylabel() == "query" for axis in titled)
    assert figure._suptitle.get_text() == "batch 1, head 2"
    assert not pictures.in_notebook()


def test_results_without_a_gradient_are_told_so_without_a_guess_at_why():
    """Results computed under torch.no_grad() carry no gradient: the message says that, not "is something detached?"."""
    def under_no_grad(query, key, value, mask=None, dropout=None):
        with torch.no_grad():
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
            if mask is not None:
                scores = scores.masked_fill(~mask, -1e9)
            weights = scores.softmax(-1)
            return weights @ value, weights

    with pytest.raises(CheckFailure) as caught:
        check("scaled_dot_product_attention", under_no_grad, "grad")
    assert "no gradient flows back from them" in str(caught.value) and "detached?" not in str(caught.value)
