"""Checks of 06-masks: make_pad_mask, make_subsequent_mask, make_tgt_mask.

Masks are bool, so results must be equal exactly. Token batches hold padding at the end of
some rows only, and one case uses pad_idx=1 with 0 as an ordinary token. Several
mistakes only change the shape (a pad mask on the wrong axis, a target mask missing one of
its parts); they are named by their shape. A mask made on a fixed device is named
mask-fixed-device by the device aspect.
"""
from functools import partial

import torch

from learner_kit.calls import Case
from learner_kit.i18n import tr
from learner_kit.replay import VALUES

from .core import UnitSpec, register

# Probes (also the visible cases): (2, 5); the hidden cases differ: (3, 6).
_PROBE_TOKENS = torch.tensor([[5, 3, 8, 0, 0], [7, 2, 4, 6, 9]])  # row 0 ends in two pads (pad_idx 0)
_PROBE_TOKENS_PAD_1 = torch.tensor([[0, 4, 1, 1, 1], [3, 0, 2, 5, 1]])  # pad_idx 1; 0 is an ordinary token
_TOKENS = torch.tensor([[4, 4, 2, 9, 0, 0], [1, 3, 3, 8, 6, 2], [7, 5, 0, 0, 0, 0]])
_TOKENS_PAD_1 = torch.tensor([[2, 0, 6, 3, 1, 1], [0, 0, 4, 1, 1, 1], [5, 8, 3, 7, 9, 0]])


def _pad_mask(tokens, pad_idx=0, *, axes=(1, 2), inverted=False):
    """make_pad_mask with knobs: where the new axes go, and which way round the test is."""
    keep = tokens == pad_idx if inverted else tokens != pad_idx
    for axis in axes:
        keep = keep.unsqueeze(axis)
    return keep


def _subsequent(size, device=None, *, diagonal=0, upper=False):
    """make_subsequent_mask with knobs: which triangle, from which diagonal."""
    ones = torch.ones(1, size, size, dtype=torch.bool, device=device)
    return torch.triu(ones, diagonal) if upper else torch.tril(ones, diagonal)


def _tgt_mask(tgt, pad_idx=0, *, pad=True, causal=True, pad_inverted=False, shape=(1, 1), combine="and",
              expand=False):
    """make_tgt_mask with knobs: which parts it combines and how (& or |), the padding test, the causal
    part's shape, and whether a lone causal part is expanded to (B, 1, L, L)."""
    size = tgt.size(-1)
    sub = _subsequent(size, tgt.device).reshape(*shape, size, size)
    padding = _pad_mask(tgt, pad_idx, inverted=pad_inverted)
    if pad and causal:
        return padding & sub if combine == "and" else padding | sub
    if causal and expand:
        return sub.expand(tgt.size(0), 1, size, size)
    return sub if causal else padding


def _token_cases(tokens, tokens_pad_1):
    """A batch padded with 0, and one padded with 1 in which 0 is an ordinary token."""
    shape = tuple(tokens.shape)
    return [
        Case({"tokens": tokens}, label=tr("tokens {shape} with padding (pad_idx 0) at the end of some rows", shape=shape)),
        Case({"tokens": tokens_pad_1, "pad_idx": 1},
             label=tr("tokens {shape} with pad_idx=1 (0 is an ordinary token there)", shape=shape)),
    ]


def _token_unit(name, mutants, knobbed, isolate=None):
    """make_pad_mask and make_tgt_mask: the same cases, results of shape (B, 1, L_q or 1, L_k)."""
    register(UnitSpec(
        name=name,
        outputs={"output": "return"},
        axes={"output": ("head", "query", "key")},
        cases={
            "values": lambda: _token_cases(_TOKENS, _TOKENS_PAD_1),
            "device": lambda: _token_cases(_TOKENS, _TOKENS_PAD_1)[:1],
        },
        probes=lambda: _token_cases(_PROBE_TOKENS, _PROBE_TOKENS_PAD_1),
        mutants=mutants,
        knobbed=knobbed,
        device_id="mask-fixed-device",
        isolate=isolate or {},
    ))


_token_unit("make_pad_mask", knobbed=_pad_mask, mutants={
    "mask-pad-wrong-axis": tuple(partial(_pad_mask, axes=a) for a in ((1, 3), (2, 3), (1,))),
    "mask-pad-inverted": (partial(_pad_mask, inverted=True),),
})

_token_unit("make_tgt_mask", knobbed=_tgt_mask, isolate={"make_pad_mask": VALUES, "make_subsequent_mask": VALUES}, mutants={
    "mask-tgt-missing-pad": tuple(partial(_tgt_mask, pad=False, shape=s) for s in ((1, 1), (1,)))
    + (partial(_tgt_mask, pad=False, expand=True),),  # the triangle alone, expanded to the right shape
    # without the causal part, or with | in place of & (a real key is visible wherever it is)
    "mask-tgt-missing-causal": (partial(_tgt_mask, causal=False), partial(_tgt_mask, combine="or")),
    "mask-pad-inverted": (partial(_tgt_mask, pad_inverted=True),),
})

register(UnitSpec(
    name="make_subsequent_mask",
    outputs={"output": "return"},
    axes={"output": ("query", "key")},
    cases={
        "values": lambda: [Case({"size": 5}, label="size 5"), Case({"size": 1}, label="size 1")],
        "device": lambda: [Case({"size": 5, "device": torch.device("cpu")}, label=tr("size 5 and a device"))],
    },
    probes=lambda: [Case({"size": 4}, label="size 4")],
    mutants={
        "mask-causal-diagonal-blocked": (partial(_subsequent, diagonal=-1),),
        "mask-causal-transposed": tuple(partial(_subsequent, diagonal=d, upper=True) for d in (0, 1)),
    },
    knobbed=_subsequent,
    device_id="mask-fixed-device",
))
