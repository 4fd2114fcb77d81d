"""A named, specific mistake outranks a generic symptom, and every message names what happened.

Each test here is an item of issue 16 that failed before: a NaN hiding a softmax over the wrong
axis, PyTorch's own NotImplementedError taken for a blank, gamma and beta as plain tensors named
as a missing affine, a learner's own LayerNorm or a Python list of layers told as a list of names,
a notebook's specific checks that spoke only after the generic value check, a scalar result's
difference with no location, and shape errors with the wrong hint.
"""
import pytest
import torch

from autograder.checks import CheckFailure, check
from learner_kit import harness, static_hints
from sandbox_servers import wire
from learner_kit.messages import format_message, hint_for_error
from learner_kit.visible import check_visible, visible_problem
from tests.learner_kit.test_learner_errors import cell

SOFTMAX_OVER_QUERIES_WITH_INF = '''
import math
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-2)
    if dropout is not None:
        weights = dropout(weights)
    return weights @ value, weights
'''

PLAIN_TENSOR_LAYER_NORM = '''
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = torch.ones(d_model)
        self.beta = torch.zeros(d_model)
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta
'''

OWN_LAYER_NORM_IN_ADD_NORM = '''
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma, self.beta, self.eps = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), eps

    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


class AddNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_out):
        return self.norm(x + self.dropout(sublayer_out))
'''

LAYERS_IN_A_LIST = '''
from autograder.reference import EncoderLayer as Layer  # a stand-in for the learner's own (tests only)

class Encoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = [Layer(d_model, n_head, d_ff, dropout) for _ in range(n_layers)]

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x
'''

FLOAT_MASK_AND = '''
def make_tgt_mask(tgt, pad_idx=0):
    pad = (tgt != pad_idx).float()[:, None, None, :]
    causal = torch.tril(torch.ones(tgt.size(-1), tgt.size(-1), device=tgt.device)).float()
    return pad & causal
'''

BLANK = '''
def make_tgt_mask(tgt, pad_idx=0):
    # YOUR CODE HERE
    raise NotImplementedError()
'''


def test_a_nan_from_minus_infinity_does_not_hide_a_softmax_over_the_wrong_axis():
    unit = cell(SOFTMAX_OVER_QUERIES_WITH_INF, "scaled_dot_product_attention", "/tmp/ipykernel_0/cell_nan.py")
    message = visible_problem("scaled_dot_product_attention", unit)
    assert message.startswith("[sdpa-softmax-dim]"), message
    assert "look at what your code does with blocked positions" not in message
    with pytest.raises(CheckFailure) as caught:
        check("scaled_dot_product_attention", unit, "masks")
    assert caught.value.mistake_id == "sdpa-softmax-dim"


def test_pytorchs_own_not_implemented_error_is_no_blank():
    unit = cell(FLOAT_MASK_AND, "make_tgt_mask", "/tmp/ipykernel_0/cell_float_mask.py")
    message = visible_problem("make_tgt_mask", unit)
    assert message.startswith("[runtime-error]"), message
    assert "bitwise_and" in message and "a mask is bool" in message
    with pytest.raises(CheckFailure) as caught:
        check("make_tgt_mask", unit, "values")
    assert caught.value.mistake_id == "runtime-error"


def test_the_learners_own_raise_is_a_blank_also_across_the_sandbox():
    unit = cell(BLANK, "make_tgt_mask", "/tmp/ipykernel_0/cell_blank.py")
    assert visible_problem("make_tgt_mask", unit).startswith("[not-implemented]")
    try:
        unit(torch.ones(1, 3, dtype=torch.long))
    except NotImplementedError as error:
        harness.mark_learner_line(error, unit)
        assert harness.is_blank(wire.rebuilt_error(wire.error_info(error)))
    float_and = cell(FLOAT_MASK_AND, "make_tgt_mask", "/tmp/ipykernel_0/cell_float_mask2.py")
    try:
        float_and(torch.ones(1, 3, dtype=torch.long))
    except NotImplementedError as error:
        harness.mark_learner_line(error, float_and)
        assert error.learner_line.endswith("`return pad & causal`")
        assert not harness.is_blank(wire.rebuilt_error(wire.error_info(error)))


def test_gamma_and_beta_as_plain_tensors_are_told_to_be_parameters_not_missing():
    unit = cell(PLAIN_TENSOR_LAYER_NORM, "LayerNorm", "/tmp/ipykernel_0/cell_plain.py")
    message = visible_problem("LayerNorm", unit)
    assert message.startswith("[wrong-interface]") and "nn.Parameter" in message, message
    with pytest.raises(CheckFailure) as caught:
        check("LayerNorm", unit, "values")
    assert caught.value.mistake_id == "wrong-interface" and "nn.Parameter" in str(caught.value)


def test_add_norm_on_the_learners_own_layer_norm_is_told_to_use_pytorchs():
    unit = cell(OWN_LAYER_NORM_IN_ADD_NORM, "AddNorm", "/tmp/ipykernel_0/cell_own_ln.py")
    message = visible_problem("AddNorm", unit)
    assert "use `nn.LayerNorm` here, as the exercise says" in message, message
    assert "Not in the exercise" not in message and "Missing" not in message


def test_a_python_list_of_layers_is_told_to_be_a_module_list_in_one_sentence():
    unit = cell(LAYERS_IN_A_LIST, "Encoder", "/tmp/ipykernel_0/cell_list.py")
    message = visible_problem("Encoder", unit)
    assert message.startswith("[wrong-interface]") and "nn.ModuleList" in message, message
    assert len(message) < 600 and "layers.0" not in message


def test_a_scalar_result_says_what_it_is_and_what_was_expected():
    text = harness.describe_difference("loss", torch.tensor(3.407), torch.tensor(3.4295))
    assert text == "`loss` is 3.407, expected 3.4295 (a difference of 0.0225)."


@pytest.mark.parametrize("make_error, fragment", [
    (lambda: torch.randn(6, 8) @ torch.randn(4, 4), "d_model where d_k is meant"),
    (lambda: torch.randn(2, 3, 4) @ torch.randn(2, 3, 4), "`.T`, which reverses them all"),
    (lambda: torch.cat([torch.randn(2, 5), torch.randn(2)]), "keepdim=True"),
    (lambda: torch.nn.Module()(1), "no `forward` method"),
])
def test_shape_errors_get_the_hint_of_their_likely_cause(make_error, fragment):
    with pytest.raises(Exception) as caught:
        make_error()
    assert fragment in hint_for_error(caught.value)


def test_static_hints_say_what_dot_t_and_a_reduction_without_keepdim_do():
    found = static_hints.hints("def f(query, key):\n    s = query @ key.T\n    return s - s.mean(-1)\n")
    assert any("`key.T` reverses every axis" in hint for hint in found)
    assert any("`s.mean(-1)` drops the axis it reduces" in hint for hint in found)
    assert not static_hints.hints("def f(x):\n    return x.sum() + x.mean(-1, keepdim=True)\n")


# ------------------------------------------------------- the notebook's specific checks first

# The last key's padding is forgotten: no stored mistake behaves so, only the specific check names it.
TARGET_MASK_WITHOUT_PAD = '''
def make_tgt_mask(tgt, pad_idx=0):
    causal = torch.tril(torch.ones(tgt.size(-1), tgt.size(-1), dtype=torch.bool, device=tgt.device))
    pad = tgt != pad_idx
    pad[:, -1] = True
    return causal & pad[:, None, None, :]
'''


def _no_pad_key(unit):
    def no_pad_key():
        allowed = unit(torch.tensor([[1, 5, 0]]))
        assert not allowed[..., 2].any(), format_message("mask-tgt-missing-pad", "A query may attend to a pad key.")
    return no_pad_key


def test_a_specific_check_speaks_before_the_generic_wrong_values():
    unit = cell(TARGET_MASK_WITHOUT_PAD, "make_tgt_mask", "/tmp/ipykernel_0/cell_no_pad.py")
    assert visible_problem("make_tgt_mask", unit).startswith("[wrong-values]")
    with pytest.raises(AssertionError) as caught:
        check_visible("make_tgt_mask", unit, _no_pad_key(unit))
    # The check's sentence speaks before the stored cases' generic wrong values. Its id does not: this mask blocks
    # the padding everywhere but the last position, which the id's own mistake (no padding part at all) does not
    # reproduce on the stored cases, so the id is not proven (visible._unless_disproved).
    assert str(caught.value).startswith("[property-violated]") and "A query may attend to a pad key." in str(caught.value)


def test_a_specific_checks_id_stands_where_its_mistake_is_the_learners():
    unit = cell(TARGET_MASK_WITHOUT_PAD.replace("    pad[:, -1] = True\n", "    pad = torch.ones_like(pad)\n"),
                "make_tgt_mask", "/tmp/ipykernel_0/cell_no_pad_at_all.py")
    with pytest.raises(AssertionError) as caught:
        check_visible("make_tgt_mask", unit, _no_pad_key(unit))
    assert str(caught.value).startswith("[mask-tgt-missing-pad]")


def test_a_named_mistake_of_the_stored_cases_is_not_overruled_and_a_crashing_check_gives_way():
    unit = cell(FLOAT_MASK_AND.replace("float()", "bool()").replace("torch.tril(", "torch.triu("),
                "make_tgt_mask", "/tmp/ipykernel_0/cell_triu.py")
    first = visible_problem("make_tgt_mask", unit)

    def crashes():
        raise IndexError("a check that cannot read these results")

    with pytest.raises(AssertionError) as caught:
        check_visible("make_tgt_mask", unit, crashes)
    assert str(caught.value).split("\n")[0] == first.split("\n")[0]


def test_an_error_in_the_learners_code_during_a_specific_check_is_a_runtime_error_with_its_line(capsys):
    unit = cell(FLOAT_MASK_AND.replace("float()", "bool()"), "make_tgt_mask", "/tmp/ipykernel_0/cell_meta.py")

    def one_sentence_without_a_batch_axis():
        unit(torch.ones(3, dtype=torch.long))  # the learner's indexing of a (B, L) batch raises

    check_visible("make_tgt_mask", unit)
    assert "All visible tests passed for make_tgt_mask." in capsys.readouterr().out
    with pytest.raises(AssertionError) as caught:
        check_visible("make_tgt_mask", unit, one_sentence_without_a_batch_axis)
    assert str(caught.value).startswith("[runtime-error]")
    assert "line 2 of your cell, `pad = (tgt != pad_idx).bool()[:, None, None, :]`" in str(caught.value)


ALIASED_PROJECTIONS = '''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q, self.w_k, self.w_v = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.projections = nn.ModuleList([self.w_q, self.w_k, self.w_v])  # the same layers, a second name
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        return query * 0, None
'''


def test_a_second_name_for_a_right_parameter_is_not_reported_as_extra():
    unit = cell(ALIASED_PROJECTIONS, "MultiHeadAttention", "/tmp/ipykernel_0/cell_alias.py")
    module = unit(8, 2)
    weights = {k: v.clone() for k, v in module.state_dict().items() if not k.startswith("projections")}
    assert harness.load_weights(module, weights) == ()


def test_an_error_raised_by_pytorch_inside_the_learners_line_is_not_called_their_own():
    unit = cell('''
def init(weight):
    torch.nn.init.xavier_uniform_(weight)
    return weight
''', "init", "/tmp/ipykernel_0/cell_xavier.py")
    with pytest.raises(ValueError) as caught:
        unit(torch.ones(3))  # xavier needs two axes: PyTorch raises, inside the learner's line
    harness.mark_learner_line(caught.value, unit)
    text = harness.describe_error(caught.value)
    assert "Raised at line 2 of your cell" in text and "Your own code raised it" not in text
