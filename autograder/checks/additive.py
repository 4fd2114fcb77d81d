"""Checks of 09-additive-attention: AdditiveAttention, AdditiveMultiHeadAttention.

Dimensions all differ (B=2, n_head=4, L_q=3, L_k=5, d_k=6, d_hidden=7, d_v=8; the
multi-head module has d_model=24 and 4 heads of 6). The reference weights get noise of
standard deviation 0.5 on top of their initialisation, so the hidden pre-activations are
of order 1: there `tanh` is far from linear, and a score without it (or with another
non-linearity) differs from the reference's by much more than the tolerance.

Mistakes: the score without `tanh` (none at all, `relu` in its place, or a non-linearity
after `v`, as in the notes this course grew from: `relu(W_a [q; k])`), the softmax over an
axis other than the keys, and a mask that has no effect. A single query (L_q = 1, as in
greedy decoding) is one of the value cases: a `.squeeze()` without an axis drops its axis
too. With a dropout module in training mode, the weights returned are those before dropout
(property), and in the multi-head module `self.dropout` must reach them (property: with
every dropout dropping everything, the heads' output is 0, so the output is w_o's bias) and only them
(property: at p = 0.5 what reaches w_o is not the heads' output with each number dropped or doubled).
The scorer has exactly the exercise's parameters (property): a bias on `v` changes no result.

    from autograder.checks import check
    check("AdditiveAttention", AdditiveAttention, "values")
"""
from functools import partial

import torch

from autograder import reference
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .attention import dropped_elsewhere
from .causes import Cause, Observed
from .core import UnitSpec, check, register, variant_class  # noqa: F401  (check: see the docstring)
from .heads import DROPOUT_CAUSES, dropout_reaches_weights

B, H, L_Q, L_K, D_K, D_HIDDEN, D_V = 2, 4, 3, 5, 6, 7, 8
D_MODEL = H * D_K
NOISE = 0.5


def _additive(scorer, query, key, value, mask=None, dropout=None, *, activation="tanh", softmax_dim=-1,
              use_mask=True, return_dropped=False, dropout_at="weights"):
    """AdditiveAttention.forward with knobs; each default is the reference's behaviour."""
    hidden = scorer.w_q(query).unsqueeze(-2) + scorer.w_k(key).unsqueeze(-3)  # (..., L_q, L_k, d_hidden)
    if activation == "tanh":
        scores = scorer.v(torch.tanh(hidden))
    elif activation == "none":
        scores = scorer.v(hidden)
    elif activation == "relu":
        scores = scorer.v(torch.relu(hidden))
    elif activation == "relu-after":
        scores = torch.relu(scorer.v(hidden))
    elif activation == "tanh-after":
        scores = torch.tanh(scorer.v(hidden))
    else:
        raise ValueError(activation)
    scores = scores.squeeze(-1)  # (..., L_q, L_k)
    if mask is not None and use_mask:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=softmax_dim)
    if dropout is not None and dropout_at != "weights":  # the places core._dropout_problem's causes name
        return dropped_elsewhere(weights, value, dropout, dropout_at), weights
    dropped = dropout(weights) if dropout is not None else weights
    return dropped @ value, dropped if return_dropped else weights


class _AdditiveAttention(reference.AdditiveAttention):
    """The reference with knobs (class attributes, set by variant_class)."""

    activation = "tanh"
    softmax_dim = -1
    use_mask = True
    return_dropped = False  # the cause of _weights_before_dropout
    dropout_at = "weights"  # the causes of core._dropout_problem: see dropped_elsewhere

    def forward(self, query, key, value, mask=None, dropout=None):
        return _additive(self, query, key, value, mask, dropout, activation=self.activation,
                         softmax_dim=self.softmax_dim, use_mask=self.use_mask, return_dropped=self.return_dropped,
                         dropout_at=self.dropout_at)


class _AdditiveMultiHeadAttention(reference.AdditiveMultiHeadAttention):
    """The reference multi-head module whose shared scorer has the same knobs."""

    activation = "tanh"
    softmax_dim = -1
    use_mask = True
    # the causes of its dropout properties (heads.dropout_reaches_weights, _dropout_not_on_heads_output): where
    # self.dropout acts ("weights", None, "output": the heads' merged output, "weights+output"), and which weights
    # self.attn keeps ("weights", "dropped")
    dropout_at = "weights"
    keep = "weights"

    def forward(self, query, key, value, mask=None):
        q = reference.split_heads(self.w_q(query), self.n_head)
        k = reference.split_heads(self.w_k(key), self.n_head)
        v = reference.split_heads(self.w_v(value), self.n_head)
        out, self.attn = self.attend(q, k, v, mask)
        merged = reference.merge_heads(out)
        return self.w_o(self.dropout(merged) if self.dropout_at in ("output", "weights+output") else merged)

    def attend(self, q, k, v, mask):
        dropout = self.dropout if self.dropout_at in ("weights", "weights+output") else None
        return _additive(self.score, q, k, v, mask, dropout, activation=self.activation,
                         softmax_dim=self.softmax_dim, use_mask=self.use_mask, return_dropped=self.keep == "dropped")


def _mutants(base, softmax_dims):
    return {
        "additive-no-tanh": tuple(variant_class(base, activation=a)
                                  for a in ("none", "relu", "relu-after", "tanh-after")),
        "additive-softmax-dim": tuple(variant_class(base, softmax_dim=d) for d in softmax_dims),
        "additive-mask-ignored": (variant_class(base, use_mask=False),),
    }


# ------------------------------------------------------------------ AdditiveAttention

def _weights_before_dropout(outcome, case):
    """With a dropout module in training mode, the weights returned still sum to 1: they are those before dropout."""
    dropout = case.inputs.get("dropout")
    if not (isinstance(dropout, torch.nn.Dropout) and dropout.training and dropout.p > 0):
        return ""
    sums = outcome.outputs["weights"].detach().double().sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-5):
        total = float(sums.flatten()[(sums.flatten() - 1).abs().argmax()])
        return Observed(tr("With a dropout module in training mode, the weights you return no longer sum to 1 over the "
                           "keys (one row sums to {total:.4g}).", total=total),
                        causes=[Cause(_dropped_weights, (variant_class(_AdditiveAttention, return_dropped=True),))],
                        key="rows off")
    return ""


def _dropped_weights():
    return tr("Your results are those of an attention that returns the dropped weights: the weights you return are the "
              "dropped ones. Return the weights before dropout; only the output is computed from the dropped ones.")


def _exercise_parameters(outcome, case):
    """The scorer has exactly the exercise's parameters (w_q, w_k, v, all without bias). A bias on v changes no result
    (it adds the same number to every score of a row, which the softmax cancels), so only this property sees it."""
    if not outcome.weight_problems:
        return ""
    extra = "v.bias" in " ".join(outcome.weight_problems)
    return tr("Parameter names differ from the exercise's.") + " " + " ".join(outcome.weight_problems) + (tr(
        " A bias on v adds the same number to every score of a row, which the softmax cancels: a parameter that never "
        "learns (its gradient is always 0). The exercise builds v = nn.Linear(d_hidden, 1, bias=False).") if extra else "")


def _case(seed, lead, label, l_q=L_Q, l_k=L_K, mask=None, dropout=None, grad=False, **fields):
    """Inputs with leading axes `lead` (float64, cast per aspect); `fields` go to Case."""
    args = inputs.normal(seed, query=(*lead, l_q, D_K), key=(*lead, l_k, D_K), value=(*lead, l_k, D_V))
    if grad:
        args = inputs.needing_grad(args)
    if mask is not None or dropout is not None:
        args["mask"] = mask
    if dropout is not None:
        args["dropout"] = dropout
    return Case(args, label=label, **fields).to(torch.float32)


def _padded(seed, **more):
    return _case(seed, (B, H), tr("4-D inputs (batch, head, position, feature) with a padding mask (B, 1, 1, L_k)"),
                 mask=inputs.padding_mask([4, 2], L_K), **more)


def _mixed(seed, **more):
    return _case(seed, (B, H), tr("4-D inputs with a mask of shape (B, 1, L_q, L_k)"),
                 mask=inputs.mixed_mask(seed, (B, 1, L_Q, L_K)), **more)


def _staircase(seed, **more):
    return _case(seed, (B,), tr("3-D inputs with an (L_q, L_k) mask shared by the batch"),
                 mask=inputs.staircase_mask(L_Q, L_K), **more)


register(UnitSpec(
    name="AdditiveAttention",
    init=(D_K, D_HIDDEN),
    outputs={"weights": "return.1", "output": "return.0"},  # weights first: their differences teach more
    axes={"weights": ("query", "key"), "output": ("query", "feature")},
    cases={
        "values": lambda: [
            _case(201, (B,), tr("3-D inputs (batch, position, feature)")),
            _case(202, (B, H), tr("4-D inputs (batch, head, position, feature)")),
            _case(203, (B, H), tr("4-D inputs and a dropout module in training mode (the output must be the dropped "
                                  "weights times the values)"),
                  dropout=torch.nn.Dropout(0.5).train(), compare=("output",), torch_seed=7),
            _case(204, (B,), tr("3-D inputs with a single query (L_q = 1)"), l_q=1),
        ],
        "masks": lambda: [_padded(211), _mixed(212), _staircase(213)],
        "float64": lambda: [c.to(torch.float64) for c in (_case(202, (B, H), tr("4-D inputs in float64")), _mixed(212))],
        "grad": lambda: [_mixed(212, grad=True)],
        "device": lambda: [_padded(211)],
        "properties": lambda: [_padded(211), _mixed(212), _padded(214, dropout=torch.nn.Dropout(0.5).train(),
                                                                 torch_seed=7)],
    },
    probes=lambda: [_mixed(301), _case(302, (B,), tr("3-D inputs (batch, position, feature)"))],
    mutants=_mutants(_AdditiveAttention, (-2, 1, 0)),
    knobbed=_AdditiveAttention,
    dropout_knob=lambda at: variant_class(_AdditiveAttention, dropout_at=at),
    properties=(_exercise_parameters, _weights_before_dropout, ("rows_sum_to_one", "weights"),
                ("masked_zero", "weights", "mask")),
    picture="weights",
    weight_noise=NOISE,
))


# ------------------------------------------------------------------ AdditiveMultiHeadAttention

def _attention_case(seed, label, l_q=L_Q, l_k=L_K, mask=None, dtype=torch.float32, grad=False):
    """Cross-attention: query, key and value are three different tensors."""
    args = inputs.normal(seed, query=(B, l_q, D_MODEL), key=(B, l_k, D_MODEL), value=(B, l_k, D_MODEL))
    if grad:
        args = inputs.needing_grad(args)
    if mask is not None:
        args["mask"] = mask
    return Case(args, label=label).to(dtype)


def _cross(seed, **more):
    label = tr("cross-attention: query (B, L_q, d_model), key and value (B, L_k, d_model), three different tensors")
    return _attention_case(seed, label, **more)


def _mha_padded(seed, **more):
    return _attention_case(seed, tr("cross-attention with a padding mask (B, 1, 1, L_k)"),
                           mask=inputs.padding_mask([4, 2], L_K), **more)


def _mha_mixed(seed, **more):
    return _attention_case(seed, tr("cross-attention with a mask of shape (B, 1, L_q, L_k)"),
                           mask=inputs.mixed_mask(seed, (B, 1, L_Q, L_K)), **more)


def _mha_shared(seed, **more):
    return _attention_case(seed, tr("cross-attention with an (L_q, L_k) mask shared by the batch and the heads"),
                           mask=inputs.staircase_mask(L_Q, L_K), **more)


def _dropout_not_in_score():
    return tr("Your results are those of an AdditiveMultiHeadAttention whose self.dropout never reaches the attention "
              "weights: give it to self.score, which applies it to the weights.")


def _kept_dropped():
    return tr("Your results are those of an AdditiveMultiHeadAttention that keeps the dropped weights in self.attn: "
              "keep the weights from before dropout (self.score returns them).")


DROPOUT_CAUSES["AdditiveMultiHeadAttention"] = (_dropout_not_in_score, _kept_dropped, _AdditiveMultiHeadAttention)


def _dropout_on_heads_output():
    return tr("Your results are those of an AdditiveMultiHeadAttention whose dropout acts on the heads' output, not on "
              "the attention weights. Give self.dropout to self.score, which applies it to the weights before they "
              "multiply the values.")


def _dropout_not_on_heads_output(outcome, case):
    """With dropout p = 0.5 in training mode, what reaches w_o is the heads' output computed from dropped weights: not
    the heads' output itself dropped (every number either 0 or doubled), which a dropout that drops everything (the
    property above) cannot tell apart from dropped weights."""
    args = [value.detach() if isinstance(value, torch.Tensor) else value for value in case.inputs.values()]
    try:
        plain = probes.probe("input_reaching", outcome.instance, "w_o", 0.0, *args)
        dropped = probes.probe("input_reaching", outcome.instance, "w_o", 0.5, *args)
    except Exception:  # noqa: BLE001 - an error here is the values aspect's to name
        return ""
    if not isinstance(plain, torch.Tensor) or not isinstance(dropped, torch.Tensor) or plain.shape != dropped.shape:
        return ""  # w_o not called as a module (F.linear with its weight): nothing to read
    zero = dropped == 0
    doubled = torch.isclose(dropped, 2 * plain, rtol=1e-5, atol=1e-6) & (plain != 0)
    if bool((zero | doubled).all()) and bool(zero.any()) and bool(doubled.any()):
        return Observed(tr("With dropout p = 0.5 in training mode, every number reaching w_o is either 0 or doubled."),
                        causes=[Cause(_dropout_on_heads_output,
                                      (variant_class(_AdditiveMultiHeadAttention, dropout_at="output"),))],
                        key="0 or doubled")
    return ""


def _self_attention(seed):
    x = inputs.normal(seed, x=(B, L_K, D_MODEL))["x"]
    label = tr("self-attention: query, key and value are one tensor")
    return Case({"query": x, "key": x, "value": x}, label=label).to(torch.float32)


register(UnitSpec(
    name="AdditiveMultiHeadAttention",
    init=(D_MODEL, H),
    outputs={"attn": "attr.attn", "output": "return"},
    axes={"attn": ("batch", "head", "query", "key"), "output": ("query", "feature")},
    cases={
        "values": lambda: [_cross(221), _self_attention(222)],
        "masks": lambda: [_mha_padded(223), _mha_mixed(224), _mha_shared(225)],
        "float64": lambda: [_cross(221, dtype=torch.float64), _mha_padded(223, dtype=torch.float64)],
        "grad": lambda: [_mha_padded(223, grad=True)],
        "device": lambda: [_mha_padded(223)],
        "properties": lambda: [_mha_padded(226)],
    },
    probes=lambda: [_mha_mixed(321), _attention_case(322, tr("cross-attention with L_q = L_k = 4"), l_q=4, l_k=4)],
    mutants=_mutants(_AdditiveMultiHeadAttention, (-2, 1)),
    knobbed=_AdditiveMultiHeadAttention,
    properties=(partial(dropout_reaches_weights, unit="AdditiveMultiHeadAttention", explain_failures=True),
                _dropout_not_on_heads_output, ("rows_sum_to_one", "attn"), ("masked_zero", "attn", "mask")),
    grad_outputs=("output",),
    picture="attn",
    weight_noise=0.3,
    stand_ins=("AdditiveAttention",),
))
