"""Checks of 07-decoder: DecoderLayer, Decoder.

Dimensions all differ (B=2, L_tgt=5, L_src=7, d_model=12, n_head=3 so d_k=4, d_ff=20,
n_layers 2). The source padding mask (B, 1, 1, L_src) leaves 7 and 4 real tokens; the target
mask (B, 1, L_tgt, L_tgt) is causal and leaves 5 and 3 real tokens. Weights get a little
noise, so that the three LayerNorms differ and using one in another's place shows.

Most role mistakes (memory as the query of cross-attention, masks in each other's place)
fail with an error when L_tgt != L_src; the square probe (L_tgt = L_src = 6) lets them run,
so that their values can be matched. Cross-attention's roles are known in every other way of
drawing query, key and value from x and memory, each with the source mask, the target mask
(the mask that fits keys from x) or none. The "properties" aspect is the behaviour the masks
exist for, whatever the weights: changing later target positions of x must not change the
output at earlier positions (causality), and changing what the padded source positions of
memory hold must not change any output. For DecoderLayer it also holds dropout, which the
value aspects (run in eval mode) cannot see: built with dropout=0.0 the layer is the same in
training mode; each of dropout1-3 acts; and with every dropout dropping everything (p=1,
training mode), each sublayer's output is dropped before its residual add, so the layer
returns norm3(norm2(norm1(x))).
"""
import inspect
import itertools

import torch
from torch import nn

from autograder import reference
from learner_kit import harness
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import UnitSpec, register, variant_class
from .encoder import DROPOUT_ELSEWHERE, independent_layers, knobbed_layers, sublayer_with_dropout

B, L_TGT, L_SRC, D_MODEL, N_HEAD, D_FF, N_LAYERS = 2, 5, 7, 12, 3, 20, 2
_SQUARE = 6  # the probe where L_tgt = L_src, so that swapped roles run
_SEQUENCE_AXES = {"output": ("position", "feature")}


# ------------------------------------------------------------------ knobbed references


class _DecoderLayer(reference.DecoderLayer):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    cross_roles = ("x", "memory", "memory")  # where cross-attention's query, key and value come from
    masks_swapped = False  # self-attention gets src_mask and cross-attention tgt_mask
    cross_mask = "src"  # the mask cross-attention gets: "src" (tgt when masks_swapped), "tgt", or None
    self_masked = True  # False: self-attention runs without a mask
    order = ("self", "cross", "ffn")  # the order the sublayers run in
    norms_follow = "position"  # "position": norm1 after the first sublayer run; "sublayer": norm1 after self_attn
    prenorm = False
    # for the causes of _dropout_acts: what dropout1-3 act on ("out": the sublayer's output; None: never applied;
    # "x", "sum", "norm": see encoder.sublayer_with_dropout), and whether self_attn, cross_attn and ffn are built
    # with the layer's `dropout` (False: with their own default rate)
    dropout_on = ("out", "out", "out")
    rate_passed = (True, True, True)

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)  # the reference's parts in its order: one seed, same weights
        for part, passed in zip((self.self_attn, self.cross_attn, self.ffn), self.rate_passed):
            if not passed:  # built without the layer's rate: the part's own default
                part.dropout.p = inspect.signature(type(part)).parameters["dropout"].default

    _NUMBER = {"self": 0, "cross": 1, "ffn": 2}

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        self_mask, cross_mask = (src_mask, tgt_mask) if self.masks_swapped else (tgt_mask, src_mask)
        self_mask = self_mask if self.self_masked else None
        cross_mask = {"src": cross_mask, "tgt": tgt_mask, None: None}[self.cross_mask]
        sublayers = {
            "self": lambda y: self.self_attn(y, y, y, self_mask),
            "cross": lambda y: self.cross_attn(*({"x": y, "memory": memory}[role] for role in self.cross_roles), cross_mask),
            "ffn": self.ffn,
        }
        norms = (self.norm1, self.norm2, self.norm3)
        dropouts = (self.dropout1, self.dropout2, self.dropout3)
        for step, name in enumerate(self.order):
            number = step if self.norms_follow == "position" else self._NUMBER[name]
            norm, dropout = norms[number], dropouts[number]
            if self.prenorm:
                x = x + dropout(sublayers[name](norm(x)))
            else:
                x = sublayer_with_dropout(x, sublayers[name], norm, dropout, True, self.dropout_on[number])
        return x


class _Decoder(reference.Decoder):
    """The reference with knobs: the class of its layers, one layer object repeated, the masks passed on."""

    layer = _DecoderLayer
    shared = False
    masks_swapped = False  # each layer gets (tgt_mask, src_mask) in place of (src_mask, tgt_mask)
    pass_tgt_mask = True

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = knobbed_layers(self.layer, n_layers, self.shared, d_model, n_head, d_ff, dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        src, tgt = (tgt_mask, src_mask) if self.masks_swapped else (src_mask, tgt_mask)
        tgt = tgt if self.pass_tgt_mask else None
        for layer in self.layers:
            x = layer(x, memory, src, tgt)
        return x


_ROLES = [r for r in itertools.product(("x", "memory"), repeat=3) if r != ("x", "memory", "memory")]
_ORDERS = [o for o in itertools.permutations(("self", "cross", "ffn")) if o != ("self", "cross", "ffn")]

LAYER_MUTANTS = {
    # every other source of query, key and value, each with the source mask, the target mask or none
    # (the mask often follows the keys: tgt_mask once they come from x)
    "decoder-cross-qkv-swapped": tuple(variant_class(_DecoderLayer, cross_roles=r, cross_mask=m)
                                       for r in _ROLES for m in ("src", "tgt", None)),
    "decoder-masks-swapped": (variant_class(_DecoderLayer, masks_swapped=True),),
    "decoder-self-attn-unmasked": (variant_class(_DecoderLayer, self_masked=False),),
    "decoder-sublayer-order": tuple(variant_class(_DecoderLayer, order=o, norms_follow=f)
                                    for o in _ORDERS for f in ("position", "sublayer")),
    "encoder-prenorm": (variant_class(_DecoderLayer, prenorm=True),),
}

DECODER_MUTANTS = {
    "encoder-shared-layers": (variant_class(_Decoder, shared=True),),
    "decoder-masks-swapped": (variant_class(_Decoder, masks_swapped=True),),
    "decoder-self-attn-unmasked": (variant_class(_Decoder, pass_tgt_mask=False),),
}
# A stack is as wrong as its layers: name the layer's mistake when the stack shows it.
for _id, _layers in LAYER_MUTANTS.items():
    DECODER_MUTANTS[_id] = DECODER_MUTANTS.get(_id, ()) + tuple(variant_class(_Decoder, layer=layer) for layer in _layers)


# ------------------------------------------------------------------ cases


def _causal_padding(lengths, length):
    """(B, 1, L, L): key j visible to query i when j <= i and j is a real token."""
    return inputs.padding_mask(lengths, length) & torch.ones(length, length, dtype=torch.bool).tril()


def _case(seed, masks=None, dtype=torch.float32, grad=False, l_tgt=L_TGT, l_src=L_SRC):
    """x (B, l_tgt, d_model), memory (B, l_src, d_model) and masks: None, "padding" or "mixed"."""
    drawn = inputs.normal(seed, x=(B, l_tgt, D_MODEL), memory=(B, l_src, D_MODEL))
    drawn = inputs.needing_grad(drawn) if grad else drawn
    shapes = f"x ({B}, {l_tgt}, {D_MODEL}), memory ({B}, {l_src}, {D_MODEL})"
    if masks == "padding":
        src_lengths, tgt_lengths = [l_src, l_src - 3], [l_tgt, l_tgt - 2]
        src_mask, tgt_mask = inputs.padding_mask(src_lengths, l_src), _causal_padding(tgt_lengths, l_tgt)
        label = tr("{shapes}, a source padding mask (B, 1, 1, L_src) with {src_first} and {src_second} real "
                   "tokens, a causal target mask (B, 1, L_tgt, L_tgt) with {tgt_first} and {tgt_second}", shapes=shapes,
                   src_first=src_lengths[0], src_second=src_lengths[1], tgt_first=tgt_lengths[0], tgt_second=tgt_lengths[1])
    elif masks == "mixed":
        src_mask, tgt_mask = inputs.mixed_mask(seed, (B, 1, l_tgt, l_src)), inputs.mixed_mask(seed + 1, (B, 1, l_tgt, l_tgt))
        label = tr("{shapes}, masks of shape (B, 1, L_tgt, L_src) and (B, 1, L_tgt, L_tgt) blocking scattered keys",
                   shapes=shapes)
    else:
        src_mask = tgt_mask = None
        label = tr("{shapes}, no masks", shapes=shapes)
    args = {"x": drawn["x"], "memory": drawn["memory"], "src_mask": src_mask, "tgt_mask": tgt_mask}
    return Case(args, label=label).to(dtype)


def _probes(offset):
    return [
        _case(offset + 1, "padding", l_tgt=_SQUARE, l_src=_SQUARE),
        _case(offset + 2, "padding"),
    ]


def _cases(offset):
    return {
        "values": lambda: [_case(offset + 1), _case(offset + 2, "padding")],
        "masks": lambda: [_case(offset + 3, "padding"), _case(offset + 4, "mixed")],
        "float64": lambda: [_case(offset + 5, "padding", dtype=torch.float64)],
        "grad": lambda: [_case(offset + 6, "padding", grad=True)],
        "device": lambda: [_case(offset + 2, "padding")],
        "properties": lambda: [_case(offset + 7, "padding")],
    }


# ------------------------------------------------------------------ properties


def _noise_like(tensor, seed):
    generator = torch.Generator().manual_seed(seed)
    noise = 10 * torch.randn(tensor.shape, generator=generator, dtype=torch.float64)
    return noise.to(dtype=tensor.dtype, device=tensor.device)


def _rerun(outcome, case, change, **changed):
    """The learner's module on the case's inputs with some replaced: (output, '') or (None, what went wrong).

    `change` says what was replaced, in the learner's language: the clause that follows "Run again after"."""
    args = {name: value.detach() if isinstance(value, torch.Tensor) else value for name, value in case.inputs.items()}
    args.update(changed)
    with harness.isolated(), torch.no_grad():
        try:
            out = probes.probe("call", outcome.instance, *args.values())
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return None, tr("Run again after {change}, your code raised {error}", change=change,
                            error=harness.describe_error(error))
    if not isinstance(out, torch.Tensor) or out.shape != outcome.outputs["output"].shape:
        return None, tr("Run again after {change}, your code returned something of another shape.", change=change)
    return out, ""


def _first_max(gap, axes=("batch", "position", "feature")):
    return harness.position([int(i) for i in (gap == gap.max()).nonzero()[0]], axes)


def future_invisible(variants):
    """A property: changing target positions start… of x leaves the output at positions < start as it was. Its
    cause (the target mask does not reach the masked self-attention) is said only where one of `variants` (the
    unit's knobbed reference with that mistake) reproduces the learner's results."""

    def invisible(outcome, case):
        tgt_mask = case.inputs.get("tgt_mask")
        if tgt_mask is None or bool((tgt_mask & ~torch.ones_like(tgt_mask).tril()).any()):
            return ""  # only a causal target mask promises this
        x = case.inputs["x"].detach()
        before = outcome.outputs["output"].detach()
        for start in (1, x.size(1) - 1):
            changed = x.clone()
            changed[:, start:] = _noise_like(x, 98)[:, start:]
            change = tr("changing target positions {start} and later of x", start=start)
            out, problem = _rerun(outcome, case, change, x=changed)
            if problem:
                return problem
            if not harness.close(out[:, :start], before[:, :start]):
                gap = (out[:, :start] - before[:, :start]).abs()
                return Observed(tr("With a causal tgt_mask, {change} changed the output at an earlier position "
                                   "({where}, by {gap:.3g}). Position i may depend on target positions 0 … i only.",
                                   change=change, where=_first_max(gap), gap=float(gap.max())),
                                causes=[Cause(_tgt_mask_missing, variants)],
                                key=("earlier", start, f"{float(gap.max()):.4g}"))
        return ""

    invisible.__doc__ = future_invisible.__doc__
    return invisible


def _tgt_mask_missing():
    return tr("Your results are those of a decoder whose masked self-attention does not get the target mask: "
              "tgt_mask must reach the masked self-attention.")


def source_padding_invisible(variants):
    """A property: changing what the padded source positions of memory hold changes no output at all. Its cause
    (src_mask does not reach the cross-attention) is said only where one of `variants` reproduces the learner's."""

    def invisible(outcome, case):
        src_mask = case.inputs.get("src_mask")
        if src_mask is None or src_mask.shape[1:3] != (1, 1):
            return ""
        memory = case.inputs["memory"].detach()
        real = src_mask[:, 0, 0, :, None]  # (B, L_src, 1): True at real source tokens
        change = tr("changing only the padded source positions of memory (src_mask False)")
        out, problem = _rerun(outcome, case, change, memory=torch.where(real, memory, _noise_like(memory, 97)))
        if problem:
            return problem
        before = outcome.outputs["output"].detach()
        if not harness.close(out, before):
            gap = (out - before).abs()
            return Observed(tr("Changing only the padded source positions of memory (src_mask False) changed the "
                               "output ({where}, by {gap:.3g}). No target position may read the source's padding.",
                               where=_first_max(gap), gap=float(gap.max())),
                            causes=[Cause(_src_mask_missing, variants)], key=("padding read", f"{float(gap.max()):.4g}"))
        return ""

    invisible.__doc__ = source_padding_invisible.__doc__
    return invisible


def _src_mask_missing():
    return tr("Your results are those of a decoder whose cross-attention does not get the source mask: src_mask must "
              "reach the cross-attention.")


def _dropout_acts(outcome, case):
    """Dropout, which the value aspects (eval mode) cannot see. Built with dropout=0.0, the layer gives the
    same output in training mode as in evaluation mode (the argument reaches every sublayer); each of
    dropout1-3 alone changes the output; and with every dropout dropping everything (p=1, training mode)
    each sublayer's output is dropped before its residual add, so the layer returns norm3(norm2(norm1(x))).

    (Decoder has no such property: a fresh stack is built from the learner's own DecoderLayer, so a
    wrong layer would cost the stack too; its visible test checks that `dropout` reaches every layer.)"""
    args = [value.detach() if isinstance(value, torch.Tensor) else value for value in case.inputs.values()]
    init = (D_MODEL, N_HEAD, D_FF, 0.0)
    try:
        runs = probes.probe("training_call", outcome.instance, init, 0, *args)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Built as DecoderLayer{init} and run in training mode, your code raised {error}", init=init,
                  error=harness.describe_error(error))
    if not harness.close(runs["training"], runs["evaluation"]):
        gap = float((runs["training"] - runs["evaluation"]).abs().max())
        return Observed(tr("Built as DecoderLayer{init}, your layer gives other outputs in training mode than in "
                           "evaluation mode (by up to {gap:.3g}): something random acts in it although it was built "
                           "with dropout=0.0.", init=init, gap=gap),
                        causes=_RATE_CAUSES, key=("training differs", f"{gap:.4g}"))
    before = outcome.outputs["output"].detach()
    for number in (1, 2, 3):
        try:
            dropped = probes.probe("call_dropping", outcome.instance, [f"dropout{number}"], *args)
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return tr("Run with only dropout{number} dropping everything (p=1, training mode), your code raised {error}",
                      number=number, error=harness.describe_error(error))
        if isinstance(dropped, torch.Tensor) and dropped.shape == before.shape and harness.close(dropped, before):
            return Observed(tr("Run with only dropout{number} dropping everything (p=1, training mode), the output is "
                               "the same as without dropout.", number=number),
                            causes=[_UNUSED_CAUSES[number - 1]], key=("no effect", number))
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, *args)
        expected = case.inputs["x"].detach()
        for number in (1, 2, 3):  # the learner's own norms
            expected = probes.probe("call_method", outcome.instance, f"norm{number}", expected)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with every dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error))
    if not isinstance(dropped, torch.Tensor) or dropped.shape != expected.shape:
        return tr("Run with every dropout dropping everything (p=1, training mode), your code did not return a tensor "
                  "of the input's shape.")
    if not harness.close(dropped, expected):
        gap = (dropped - expected).abs()
        return Observed(tr("Run with every dropout dropping everything (p=1, training mode), each sublayer's output is "
                           "dropped before its residual add, so the layer should return norm3(norm2(norm1(x))); yours "
                           "differs (at {where}, by {gap:.3g}).", where=_first_max(gap), gap=float(gap.max())),
                        causes=[_ELSEWHERE_CAUSE], key=("differs", f"{float(gap.max()):.4g}"))
    return ""


def _rate_not_passed():
    return tr("Your results are those of a DecoderLayer in which a sublayer (self_attn, cross_attn or ffn) does not get "
              "the layer's `dropout` and drops with a rate of its own (0.1, the default): pass `dropout` on to every "
              "sublayer you build.")


def _dropout_unused(number):
    return lambda: tr("Your results are those of a DecoderLayer in which dropout{number} is never applied. Each "
                      "sublayer's output goes through its own dropout (dropout1, dropout2, dropout3).", number=number)


def _dropout_elsewhere():
    return tr("Your results are those of a DecoderLayer in which a dropout acts on another term than its sublayer's "
              "output (x, the sum, or the norm's output): each sublayer's output goes through its own dropout, "
              "before the add and not after the norm.")


def _places(**at):
    """dropout_on with the places given by index (`at={0: "x"}` is dropout1 on x), the rest on the outputs."""
    return tuple(at.get(str(i), "out") for i in range(3))


_RATE_CAUSES = (Cause(_rate_not_passed, tuple(variant_class(_DecoderLayer, rate_passed=passed)
                                              for passed in itertools.product((True, False), repeat=3)
                                              if not all(passed))),)
_UNUSED_CAUSES = tuple(Cause(_dropout_unused(n), (variant_class(_DecoderLayer, dropout_on=_places(**{str(n - 1): None})),))
                       for n in (1, 2, 3))
_ELSEWHERE_CAUSE = Cause(_dropout_elsewhere, tuple(
    variant_class(_DecoderLayer, dropout_on=on) for on in
    (*(_places(**{str(i): at}) for i in range(3) for at in DROPOUT_ELSEWHERE), *((at,) * 3 for at in DROPOUT_ELSEWHERE))))


# ------------------------------------------------------------------ units

register(UnitSpec(
    name="DecoderLayer",
    init=(D_MODEL, N_HEAD, D_FF),
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases=_cases(700),
    probes=lambda: _probes(780),
    mutants=LAYER_MUTANTS,
    knobbed=_DecoderLayer,
    properties=(future_invisible((variant_class(_DecoderLayer, self_masked=False),
                                  variant_class(_DecoderLayer, masks_swapped=True))),
                source_padding_invisible((variant_class(_DecoderLayer, cross_mask=None),
                                          variant_class(_DecoderLayer, cross_mask="tgt"))),
                _dropout_acts),
    weight_noise=0.1,
))

register(UnitSpec(
    name="Decoder",
    init=(D_MODEL, N_HEAD, D_FF, N_LAYERS),
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases=_cases(720),
    probes=lambda: _probes(790),
    mutants=DECODER_MUTANTS,
    knobbed=_Decoder,
    properties=(independent_layers("decoder", N_LAYERS),
                future_invisible((variant_class(_Decoder, pass_tgt_mask=False), variant_class(_Decoder, masks_swapped=True),
                                  variant_class(_Decoder, layer=variant_class(_DecoderLayer, self_masked=False)),
                                  variant_class(_Decoder, layer=variant_class(_DecoderLayer, masks_swapped=True)))),
                source_padding_invisible((variant_class(_Decoder, layer=variant_class(_DecoderLayer, cross_mask=None)),
                                          variant_class(_Decoder, layer=variant_class(_DecoderLayer, cross_mask="tgt"))))),
    weight_noise=0.1,
    stand_ins=("DecoderLayer",),
))
