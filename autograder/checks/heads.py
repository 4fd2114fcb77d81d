"""Checks of 02-multi-head: split_heads, merge_heads, MultiHeadAttention.

Dimensions all differ (B=2, L_q=3, L_k=5, n_head=4, d_k=6, d_model=24). A split or merge
without the transpose keeps the shape and only moves numbers, so those mistakes show in
values alone. Swapped query/key/value roles mostly fail with an error or a wrong shape
when L_q != L_k; the probe with L_q = L_k and three different tensors turns each
swap into values that can be matched.
"""
import itertools
import math
from functools import partial

import torch

from autograder import reference
from learner_kit import harness
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr
from learner_kit.replay import REARRANGE

from . import inputs
from .attention import _sdpa
from .causes import Cause, Observed
from .core import UnitSpec, register, variant_class

B, L_Q, L_K, N_HEAD, D_K = 2, 3, 5, 4, 6
D_MODEL = N_HEAD * D_K


def _split(x, n_head, *, transpose=True):
    """split_heads; transpose=False reshapes straight to (B, n_head, L, d_k)."""
    if transpose:
        return reference.split_heads(x, n_head)
    batch, length, d_model = x.shape
    return x.reshape(batch, n_head, length, d_model // n_head)


def _merge(x, *, transpose=True):
    """merge_heads; transpose=False reshapes straight to (B, L, d_model)."""
    if transpose:
        return reference.merge_heads(x)
    batch, n_head, length, d_k = x.shape
    return x.reshape(batch, length, n_head * d_k)


class _MultiHeadAttention(reference.MultiHeadAttention):
    """The reference with knobs, set as class attributes by variant_class(); defaults are the reference's."""

    roles = (0, 1, 2)  # which argument of forward feeds the query, key and value projections
    projections = ("w_q", "w_k", "w_v")
    output_projection = True
    scale = "d_k"
    split_transposes = True
    merge_transposes = True
    # for the causes of dropout_reaches_weights: where self.dropout acts ("weights", None, "output": the heads'
    # merged output before w_o, "weights+output"), and which weights self.attn keeps ("weights", "dropped")
    dropout_at = "weights"
    keep = "weights"

    def forward(self, query, key, value, mask=None):
        given = (query, key, value)
        q, k, v = (_split(getattr(self, layer)(given[role]), self.n_head, transpose=self.split_transposes)
                   for layer, role in zip(self.projections, self.roles))
        if self.scale == "d_model":  # the attention divides by sqrt(d_k); this makes it sqrt(d_model)
            q = q / math.sqrt(self.n_head)
        elif self.scale == "twice":  # q divided by sqrt(d_k) before the attention divides again: by d_k in all
            q = q / math.sqrt(q.size(-1))
        dropout = self.dropout if self.dropout_at in ("weights", "weights+output") else None
        if self.keep == "dropped":
            out, self.attn = _sdpa(q, k, v, mask, dropout, returns="dropped")
        else:
            out, self.attn = reference.scaled_dot_product_attention(q, k, v, mask, dropout)
        merged = _merge(out, transpose=self.merge_transposes)
        merged = self.dropout(merged) if self.dropout_at in ("output", "weights+output") else merged
        return self.w_o(merged) if self.output_projection else merged


def _variant(**knobs):
    return variant_class(_MultiHeadAttention, **knobs)


MHA_MUTANTS = {
    "heads-split-no-transpose": (_variant(split_transposes=False),
                                 _variant(split_transposes=False, merge_transposes=False)),
    "heads-merge-no-transpose": (_variant(merge_transposes=False),),
    "mha-kv-use-wq": tuple(_variant(projections=p)
                           for p in (("w_q", "w_q", "w_v"), ("w_q", "w_k", "w_q"), ("w_q", "w_q", "w_q"))),
    "mha-no-output-proj": (_variant(output_projection=False),),
    "mha-scale-dmodel": (_variant(scale="d_model"),),
    # inputs in the wrong roles: swapped, or (the query kept) one fed where another belongs (`w_v(key)`)
    "mha-qkv-swapped": tuple(_variant(roles=r) for r in dict.fromkeys(
        (*itertools.permutations(range(3)), *((0, *rest) for rest in itertools.product(range(3), repeat=2))))
        if r != (0, 1, 2)),
    # the scores divided by sqrt(d_k) twice (q scaled before the attention function scales): d_k in all
    "sdpa-scale-dk": (_variant(scale="twice"),),
}


# ------------------------------------------------------------------ cases

def _tensor_case(seed, label, dtype=torch.float32, grad=False, **shapes_and_args):
    """A case whose tensor inputs are drawn from `seed`; tuples are shapes, other values pass as they are."""
    shapes = {k: v for k, v in shapes_and_args.items() if isinstance(v, tuple)}
    tensors = inputs.normal(seed, **shapes)
    if grad:
        tensors = inputs.needing_grad(tensors)
    args = {k: tensors.get(k, v) for k, v in shapes_and_args.items()}
    return Case(args, label=label).to(dtype)


def _split_case(seed, batch, n_head, length, d_k, **more):
    label = tr("x of shape ({batch}, {length}, {d_model}) split into {n_head} heads",
               batch=batch, length=length, d_model=n_head * d_k, n_head=n_head)
    return _tensor_case(seed, label, x=(batch, length, n_head * d_k), n_head=n_head, **more)


def _merge_case(seed, batch, n_head, length, d_k, **more):
    label = tr("x of shape ({batch}, {n_head}, {length}, {d_k})", batch=batch, n_head=n_head, length=length, d_k=d_k)
    return _tensor_case(seed, label, x=(batch, n_head, length, d_k), **more)


def _attention_case(seed, label, l_q=L_Q, l_k=L_K, mask=None, **more):
    """Cross-attention: query, key and value are three different tensors."""
    shapes = {"query": (B, l_q, D_MODEL), "key": (B, l_k, D_MODEL), "value": (B, l_k, D_MODEL)}
    if mask is not None:
        shapes["mask"] = mask
    return _tensor_case(seed, label, **shapes, **more)


def _self_attention_case(seed):
    x = inputs.normal(seed, x=(B, L_K, D_MODEL))["x"]
    label = tr("self-attention: query, key and value are one tensor")
    return Case({"query": x, "key": x, "value": x}, label=label).to(torch.float32)


def _padded(seed, **more):
    mask = inputs.padding_mask([4, 2], L_K)
    return _attention_case(seed, tr("cross-attention with a padding mask (B, 1, 1, L_k)"), mask=mask, **more)


def _mixed(seed, **more):
    mask = inputs.mixed_mask(seed, (B, 1, L_Q, L_K))
    return _attention_case(seed, tr("cross-attention with a mask of shape (B, 1, L_q, L_k)"), mask=mask, **more)


def _shared(seed, **more):
    mask = inputs.staircase_mask(L_Q, L_K)
    return _attention_case(seed, tr("cross-attention with an (L_q, L_k) mask shared by the batch and the heads"), mask=mask,
                           **more)


def _dropout_unused():
    return tr("Your results are those of a MultiHeadAttention that never applies self.dropout: hand it to the "
              "attention function, which applies it to the weights.")


def _kept_dropped():
    return tr("Your results are those of a MultiHeadAttention that keeps the dropped weights in self.attn: keep the "
              "weights from before dropout (the attention function returns them).")


# The causes a multi-head module's dropout property may state, by unit: the sentences (self.dropout never applied,
# self.attn holding the dropped weights) and the knobbed reference whose knobs have them; additive.py adds its own.
# (A dropout on the heads' output as well as, or instead of, on the weights leaves w_o's bias under p = 1: this
# property cannot see it; AdditiveMultiHeadAttention's _dropout_not_on_heads_output does, at p = 0.5.)
DROPOUT_CAUSES = {"MultiHeadAttention": (_dropout_unused, _kept_dropped, _MultiHeadAttention)}


def dropout_reaches_weights(outcome, case, unit="MultiHeadAttention", explain_failures=False):
    """With its dropout dropping everything (p = 1, training mode) every attention weight is 0, so the heads give 0
    and the output is w_o's bias at every position; self.attn still holds the weights before dropout.

    What is seen is said; a cause (self.dropout never applied, the dropped weights kept) only
    where the unit's knobbed reference reproduces it (DROPOUT_CAUSES, causes.py). An error or a wrong shape under
    the probe gives way to the unit's other checks, or with `explain_failures` is reported here (a unit whose
    helpers are not the learner's, so the error is their module's own)."""
    unused, kept_dropped, knobbed = DROPOUT_CAUSES[unit]
    query = case.inputs["query"].detach()
    args = [value.detach() if isinstance(value, torch.Tensor) else value for value in case.inputs.values()]
    try:
        bias_only = probes.probe("call_method", outcome.instance, "w_o", torch.zeros_like(query))
    except Exception:  # noqa: BLE001 - no w_o taking d_model features: the values aspect names the interface
        return ""
    # MultiHeadAttention's probe runs the learner's own split_heads and merge_heads (no isolation): an error or a
    # wrong shape there is theirs, named by their own checks, and this property gives way.
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, *args)
        kept = probes.probe("tensor_attributes", outcome.instance, ["attn"])["attn"]
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with its dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error)) if explain_failures else ""
    if not isinstance(dropped, torch.Tensor) or dropped.shape != bias_only.shape:
        return tr("Run with its dropout dropping everything (p=1, training mode), your module did not return "
                  "(B, L_q, d_model).") if explain_failures else ""
    if not harness.close(dropped, bias_only):
        gap = float((dropped - bias_only).abs().max())
        return Observed(tr("With its dropout dropping every weight (p = 1, training mode) your module's output should "
                           "be w_o's bias at every position; it differs from it by up to {gap:.3g}.", gap=gap),
                        causes=[Cause(unused, (variant_class(knobbed, dropout_at=None),))],
                        key=("differs", f"{gap:.4g}"))
    if kept is not None and not torch.allclose(kept.double().sum(-1), torch.ones(kept.shape[:-1], dtype=torch.float64),
                                               atol=1e-5):
        total = kept.double().sum(-1).flatten()
        total = float(total[(total - 1).abs().argmax()])
        return Observed(tr("In training mode (its dropout dropping every weight, p = 1), the weights kept in self.attn "
                           "no longer sum to 1 over the keys (one row sums to {total:.4g}).", total=total),
                        causes=[Cause(kept_dropped, (variant_class(knobbed, keep="dropped"),))],
                        key=("rows off", f"{total:.4g}"))
    return ""


def _cross(seed, **more):
    label = tr("cross-attention: query (B, L_q, d_model), key and value (B, L_k, d_model), three different tensors")
    return _attention_case(seed, label, **more)


def _register_reshape(name, make_case, axes, mistake_id, mistake, seed):
    """split_heads and merge_heads: the same aspects, on (batch, n_head, length, d_k) = main and other."""
    main, other = (B, N_HEAD, L_Q, D_K), (3, 2, 5, 4)
    register(UnitSpec(
        name=name,
        outputs={"output": "return"},
        axes={"output": axes},
        cases={
            "values": lambda: [make_case(seed, *main), make_case(seed + 1, *other)],
            "float64": lambda: [make_case(seed + 2, *main, dtype=torch.float64)],
            "grad": lambda: [make_case(seed + 3, *main, grad=True)],
            "device": lambda: [make_case(seed, *main)],
        },
        probes=lambda: [make_case(seed + 100, *main), make_case(seed + 101, *other)],
        mutants={mistake_id: (mistake,)},
        knobbed=mistake.func,
    ))


_register_reshape("split_heads", _split_case, ("head", "position", "feature"),
                  "heads-split-no-transpose", partial(_split, transpose=False), seed=21)
_register_reshape("merge_heads", _merge_case, ("position", "feature"),
                  "heads-merge-no-transpose", partial(_merge, transpose=False), seed=31)

register(UnitSpec(
    name="MultiHeadAttention",
    init=(D_MODEL, N_HEAD),
    outputs={"attn": "attr.attn", "output": "return"},  # weights first: their differences teach more
    axes={"attn": ("batch", "head", "query", "key"), "output": ("query", "feature")},
    cases={
        "values": lambda: [_cross(41), _self_attention_case(42)],
        "masks": lambda: [_padded(43), _mixed(44), _shared(45)],
        "float64": lambda: [_cross(41, dtype=torch.float64), _padded(43, dtype=torch.float64)],
        "grad": lambda: [_padded(43, grad=True)],
        "device": lambda: [_padded(43)],
        "properties": lambda: [_padded(43), _mixed(44)],
    },
    probes=lambda: [
        _padded(141),
        _attention_case(142, tr("cross-attention with L_q = L_k = 4 and three different tensors"), l_q=4, l_k=4),
    ],
    mutants=MHA_MUTANTS,
    knobbed=_MultiHeadAttention,
    properties=(dropout_reaches_weights, ("rows_sum_to_one", "attn"), ("masked_zero", "attn", "mask")),
    grad_outputs=("output",),
    picture="attn",
    isolate={"split_heads": REARRANGE, "merge_heads": REARRANGE},
))
