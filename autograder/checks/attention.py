"""Checks of 01-attention: scaled_dot_product_attention.

Dimensions all differ (B=2, n_head=4, L_q=3, L_k=5, d_k=6, d_v=7), so an axis mixed up
shows. The probes are chosen so that every mutant differs from the reference on at least
one of them: a full mask with mixed rows (mask mistakes, softmax axis, returned scores),
a 4-D case where L_k = d_k = n_head, the one shape on which a key transposed on the
wrong axes (or not at all) still runs and can be told apart by its values, and one where
batch = n_head = L_k = d_k, on which `key.T` (every axis reversed) runs too. One probe and one value case have
scores in the hundreds: a softmax written as exp / sum, without subtracting the row's maximum, overflows there
(the same slip notebook 08 rejects for the generator).
"""
import math
from functools import partial

import torch

from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import UnitSpec, register

B, H, L_Q, L_K, D_K, D_V = 2, 4, 3, 5, 6, 7


def _sdpa(query, key, value, mask=None, dropout=None, *, scale="sqrt", key_axes=(-2, -1), softmax_dim=-1,
          mask_use="before", fill="min", returns="weights", dropout_at="weights"):
    """The reference with knobs: each default is the reference's behaviour, each other value a mistake."""
    turned = key.permute(*reversed(range(key.dim()))) if key_axes == "all" else key.transpose(*key_axes) if key_axes else key
    scores = query @ turned
    scores = scores / {"sqrt": math.sqrt(query.size(-1)), "dk": query.size(-1), "none": 1}[scale]
    raw = scores
    fill = {"min": torch.finfo(scores.dtype).min, "-inf": -math.inf}.get(fill, fill)
    blocked = None if mask is None or mask_use == "ignored" else mask if mask_use == "inverted" else ~mask
    if blocked is not None and mask_use != "after-softmax":
        scores = scores.masked_fill(blocked, fill)
    weights = scores.softmax(dim=softmax_dim)
    if blocked is not None and mask_use == "after-softmax":
        weights = weights.masked_fill(blocked, fill)
    if dropout is not None and dropout_at != "weights":  # the places core._dropout_problem's causes name
        return dropped_elsewhere(weights, value, dropout, dropout_at), weights
    dropped = dropout(weights) if dropout is not None else weights
    return dropped @ value, {"weights": weights, "scores": scores, "raw-scores": raw, "dropped": dropped}[returns]


def dropped_elsewhere(weights, value, dropout, at):
    """weights @ value with `dropout` acting at `at`: None (never applied), "twice" (on the weights, twice),
    "value" (on the values), "output" (on the product)."""
    if at == "twice":
        return dropout(dropout(weights)) @ value
    if at == "value":
        return weights @ dropout(value)
    if at == "output":
        return dropout(weights @ value)
    return weights @ value


# The fill values learners use; they matter once the mask is misapplied. The first, the
# reference's own, is left at the knob's default: a mistake with the default fill then combines
# with another mistake that sets the fill (core.combine takes a knob from one side only), e.g. a
# mask inverted and filled with 0, or -1e9 with the masked scores returned.
_FILLS = ({}, {"fill": "-inf"}, {"fill": -1e9})

MUTANTS = {
    "sdpa-no-scale": (partial(_sdpa, scale="none"),),
    "sdpa-scale-dk": (partial(_sdpa, scale="dk"),),
    # with -inf, a key blocked for every query makes a NaN column: the softmax axis is still the mistake
    "sdpa-softmax-dim": tuple(partial(_sdpa, softmax_dim=d, **f) for f in ({}, {"fill": "-inf"}) for d in (-2, 1, 0)),
    "sdpa-mask-inverted": tuple(partial(_sdpa, mask_use="inverted", **f) for f in _FILLS),
    "sdpa-mask-ignored": (partial(_sdpa, mask_use="ignored"),),
    "sdpa-mask-after-softmax": tuple(partial(_sdpa, mask_use="after-softmax", **f) for f in ({"fill": 0.0}, *_FILLS)),
    "sdpa-mask-fill-zero": (partial(_sdpa, fill=0.0),),
    # key_axes="all": `key.T`, which reverses every axis (it runs only where batch = n_head = L_k = d_k)
    "sdpa-key-transpose": (partial(_sdpa, key_axes=()), partial(_sdpa, key_axes=(1, 2)), partial(_sdpa, key_axes="all")),
    "sdpa-returns-scores": (*(partial(_sdpa, returns="scores", **f) for f in _FILLS),
                            partial(_sdpa, returns="raw-scores")),
}


def _case(seed, lead, label, l_q=L_Q, l_k=L_K, d_k=D_K, d_v=D_V, mask=None, dropout=None, grad=False, **fields):
    """A float32 case with leading axes `lead`; `fields` go to Case (compare, torch_seed)."""
    args = inputs.attention_inputs(seed, lead, l_q, l_k, d_k, d_v, mask, dropout, grad)
    return Case(args, label=label, **fields).to(torch.float32)


def _large(seed, label):
    """3-D inputs whose scores reach the hundreds: e^score overflows float32 (above 88), so a softmax written as
    exp / sum without subtracting each row's largest score first gives inf / inf = NaN."""
    case = _case(seed, (B,), label)
    scaled = {name: value * 12 if name in ("query", "key") else value for name, value in case.inputs.items()}
    return Case(scaled, label=case.label, dtype=case.dtype)


def _padded(seed, **more):
    mask = inputs.padding_mask([4, 2], L_K)
    return _case(seed, (B, H), tr("4-D inputs with a padding mask (B, 1, 1, L_k)"), mask=mask, **more)


def _mixed(seed, **more):
    mask = inputs.mixed_mask(seed, (B, 1, L_Q, L_K))
    return _case(seed, (B, H), tr("4-D inputs with a mask of shape (B, 1, L_q, L_k)"), mask=mask, **more)


def _dropped(seed):
    """A dropout module in training mode: the weights returned are those before dropout (COURSE.md), rows summing to 1."""
    return _case(seed, (B, H), tr("4-D inputs and a dropout module in training mode"),
                 dropout=torch.nn.Dropout(0.5).train(), torch_seed=7)


def _weights_before_dropout(outcome, case):
    """With a dropout module in training mode, the weights returned are those before dropout: rows summing to 1."""
    dropout = case.inputs.get("dropout")
    if not isinstance(dropout, torch.nn.Dropout) or not dropout.training or dropout.p == 0:
        return ""
    sums = outcome.outputs["weights"].detach().sum(dim=-1)
    if torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
        return ""
    return Observed(tr("With a dropout module in training mode, the weights you return have rows summing to "
                       "{total:.4g}, not 1.", total=float(sums.flatten()[0])),
                    causes=[Cause(_dropped_weights, (partial(_sdpa, returns="dropped"),))], key="rows off")


def _dropped_weights():
    return tr("Your results are those of an attention that returns the dropped weights: the weights you return are the "
              "dropped ones. Return the weights from before dropout; only the output uses the dropped ones.")


def _values_cases():
    return [
        _case(1, (B,), tr("3-D inputs (batch, position, feature)")),
        _case(2, (B, H), tr("4-D inputs (batch, head, position, feature)")),
        _large(4, tr("3-D inputs whose scores reach the hundreds (e^score overflows float32 above 88)")),
        _case(3, (B, H), tr("4-D inputs and a dropout module in training mode (the output must be the dropped weights "
                            "times the values)"),
              dropout=torch.nn.Dropout(0.5).train(), compare=("output",), torch_seed=7),
    ]


def _mask_cases():
    staircase = inputs.staircase_mask(L_Q, L_K)
    return [_padded(11), _mixed(12),
            _case(13, (B,), tr("3-D inputs with a (L_q, L_k) mask shared by the batch"), mask=staircase)]


def _probes():
    square = inputs.padding_mask([3, 2], 4)
    return [
        _mixed(101),
        _case(102, (B, H), tr("4-D inputs where L_k = d_k = n_head = 4, with a padding mask"),
              d_k=4, l_k=4, d_v=5, mask=square),
        _case(103, (B,), tr("3-D inputs (batch, position, feature)")),
        _case(104, (3, 3), tr("4-D inputs where batch = n_head = L_k = d_k = 3"), l_k=3, d_k=3),
        _large(105, tr("3-D inputs whose scores reach the hundreds (e^score overflows float32 above 88)")),
    ]


register(UnitSpec(
    name="scaled_dot_product_attention",
    outputs={"weights": "return.1", "output": "return.0"},  # weights first: their differences teach more
    axes={"weights": ("query", "key"), "output": ("query", "feature")},
    cases={
        "values": _values_cases,
        "masks": _mask_cases,
        "float64": lambda: [c.to(torch.float64) for c in (_case(2, (B, H), tr("4-D inputs in float64")), _mixed(12))],
        "grad": lambda: [_mixed(12, grad=True)],
        "device": lambda: [_padded(11)],
        "properties": lambda: [_padded(11), _mixed(12), _dropped(3)],
    },
    probes=_probes,
    mutants=MUTANTS,
    knobbed=_sdpa,
    dropout_knob=lambda at: partial(_sdpa, dropout_at=at),
    properties=(_weights_before_dropout, ("rows_sum_to_one", "weights"), ("masked_zero", "weights", "mask")),
    picture="weights",
))
