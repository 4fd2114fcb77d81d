"""Checks of 05-encoder: Embeddings, PositionalEncoding, EncoderLayer, Encoder.

Dimensions all differ (B=2, L=5, d_model=12, n_head=3 so d_k=4, d_ff=20, vocabulary 7,
max_len 9, n_layers 2). Padding masks (B, 1, 1, L) leave 5 and 3 real tokens; a mixed
mask (B, 1, L, L) blocks other pairs. The "properties" aspect of the layer and the stack
is the behaviour that padding exists for: changing what the padded positions of x hold
must not change the output at any real position.

PositionalEncoding keeps its table in the buffer `pe`. Module checks copy only the
reference's parameters into the learner's module, so its "values" aspect judges the
learner's own table together with forward (the slice, the sum, dropout), and names a
table mistake through PE_TABLE_MUTANTS; its "properties" aspect looks at the table the
learner's __init__ builds, on a fresh instance, against the same known mistakes.
"""
import math

import torch
from torch import nn

from autograder import reference
from learner_kit import harness, probes
from learner_kit.harness import Case

from . import inputs
from .core import CheckFailure, UnitSpec, register, variant_class

B, L, D_MODEL, N_HEAD, D_FF, N_LAYERS = 2, 5, 12, 3, 20, 2
VOCAB, MAX_LEN = 7, 9
_LENGTHS = [5, 3]  # real tokens per batch row; row 1 has two padded positions


# ------------------------------------------------------------------ knobbed references


class _Embeddings(reference.Embeddings):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    scale = True

    def forward(self, tokens):
        vectors = self.lut(tokens)
        return vectors * math.sqrt(self.d_model) if self.scale else vectors


class _PositionalEncoding(reference.PositionalEncoding):
    """The reference whose table is rebuilt with knobs: what goes in the even dimensions, which frequencies."""

    sin_even = True
    frequency = "pair"  # "pair": 10000^(-2i/d); "feature": each feature j its own 10000^(-j/d);
    # "no-two": 10000^(-i/d); "double": 10000^(-4i/d); "inverted": 10000^(+2i/d)

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__(d_model, max_len, dropout)
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
        pair = torch.arange(0, d_model, 2, dtype=torch.float64)  # 2i
        exponent = {"pair": -pair, "no-two": -pair / 2, "double": -2 * pair, "inverted": pair}.get(self.frequency)
        if exponent is None:  # "feature": feature j turns at 10000^(-j/d), so a pair's sin and cos disagree
            feature = torch.arange(d_model, dtype=torch.float64)
            angle = position * 10000.0 ** (-feature / d_model)
            even, odd = angle[:, 0::2], angle[:, 1::2]
        else:
            even = odd = position * 10000.0 ** (exponent / d_model)
        first, second = (torch.sin, torch.cos) if self.sin_even else (torch.cos, torch.sin)
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = first(even)
        pe[:, 1::2] = second(odd)
        self.pe.copy_(pe.unsqueeze(0))


class _EncoderLayer(reference.EncoderLayer):
    """The reference with knobs: pre-norm, which residual adds happen, whether the mask is used."""

    prenorm = False
    residual = (True, True)  # (attention sublayer, feed-forward sublayer)
    use_mask = True

    def forward(self, x, mask=None):
        mask = mask if self.use_mask else None
        x = self._sublayer(x, lambda y: self.self_attn(y, y, y, mask), self.norm1, self.dropout1, self.residual[0])
        return self._sublayer(x, self.ffn, self.norm2, self.dropout2, self.residual[1])

    def _sublayer(self, x, function, norm, dropout, residual):
        if self.prenorm:
            return x + dropout(function(norm(x)))
        out = dropout(function(x))
        return norm(x + out if residual else out)


def knobbed_layers(layer, n_layers, shared, *args):
    """The layers of a knobbed stack: n_layers independent ones, or (the mistake) one object repeated."""
    if shared:
        return nn.ModuleList([layer(*args)] * n_layers)
    return nn.ModuleList(layer(*args) for _ in range(n_layers))


class _Encoder(reference.Encoder):
    """The reference with knobs: the class of its layers, one layer object repeated, the mask passed on."""

    layer = _EncoderLayer
    shared = False
    pass_mask = True

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = knobbed_layers(self.layer, n_layers, self.shared, d_model, n_head, d_ff, dropout)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask if self.pass_mask else None)
        return x


LAYER_MUTANTS = {
    "encoder-prenorm": (variant_class(_EncoderLayer, prenorm=True),),
    "encoder-no-residual": tuple(variant_class(_EncoderLayer, residual=r) for r in ((False, True), (True, False), (False, False))),
    "encoder-mask-ignored": (variant_class(_EncoderLayer, use_mask=False),),
}

ENCODER_MUTANTS = {
    "encoder-shared-layers": (variant_class(_Encoder, shared=True),),
    "encoder-mask-ignored": (variant_class(_Encoder, pass_mask=False),),
    # A stack is as wrong as its layers: name the layer's mistake when the stack shows it.
    "encoder-prenorm": tuple(variant_class(_Encoder, layer=layer) for layer in LAYER_MUTANTS["encoder-prenorm"]),
    "encoder-no-residual": tuple(variant_class(_Encoder, layer=layer) for layer in LAYER_MUTANTS["encoder-no-residual"]),
}

PE_TABLE_MUTANTS = {
    "pe-sin-cos-swapped": (variant_class(_PositionalEncoding, sin_even=False),),
    "pe-wrong-frequency": tuple(variant_class(_PositionalEncoding, frequency=f)
                                for f in ("feature", "no-two", "double", "inverted")),
}


# ------------------------------------------------------------------ cases


def _tokens(seed, length=L):
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(VOCAB, (B, length), generator=generator)
    return Case({"tokens": tokens}, label=f"tokens ({B}, {length}), ids below {VOCAB}")


def _embed_case(seed, dtype=torch.float32, length=L):
    return _tokens(seed, length).to(dtype)


def _pe_case(seed, dtype=torch.float32, grad=False, length=L):
    drawn = inputs.normal(seed, x=(B, length, D_MODEL))
    args = inputs.needing_grad(drawn) if grad else drawn
    return Case(args, label=f"x ({B}, {length}, {D_MODEL}) with max_len {MAX_LEN}").to(dtype)


def _x_case(seed, mask=None, dtype=torch.float32, grad=False):
    """x (B, L, d_model) and a mask: None, "padding" (B, 1, 1, L) or "mixed" (B, 1, L, L)."""
    x = inputs.normal(seed, x=(B, L, D_MODEL))
    x = inputs.needing_grad(x) if grad else x
    if mask == "padding":
        x["mask"] = inputs.padding_mask(_LENGTHS, L)
        label = f"x ({B}, {L}, {D_MODEL}) with a padding mask (B, 1, 1, L): rows of {_LENGTHS[0]} and {_LENGTHS[1]} real tokens"
    elif mask == "mixed":
        x["mask"] = inputs.mixed_mask(seed, (B, 1, L, L))
        label = f"x ({B}, {L}, {D_MODEL}) with a mask of shape (B, 1, L, L)"
    else:
        label = f"x ({B}, {L}, {D_MODEL}) without a mask"
    return Case(x, label=label).to(dtype)


# ------------------------------------------------------------------ properties


def _padding_changes_nothing(outcome, case):
    """Changing what the padded positions of x hold leaves the output at every real position as it was."""
    mask = case.inputs.get("mask")
    if mask is None or mask.shape[1:3] != (1, 1):
        return ""
    x = case.inputs["x"].detach()
    real = mask[:, 0, 0, :]  # (B, L): True at real tokens
    generator = torch.Generator().manual_seed(99)
    noise = 10 * torch.randn(x.shape, generator=generator, dtype=torch.float64).to(dtype=x.dtype, device=x.device)
    changed = torch.where(real[..., None], x, noise)
    with harness.isolated(), torch.no_grad():
        try:
            out = probes.probe("call", outcome.instance, changed, mask)
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return f"Run again with other values at the padded positions of x, your code raised {harness.describe_error(error)}"
    before = outcome.outputs["output"].detach()
    if not isinstance(out, torch.Tensor) or out.shape != before.shape:
        return "Run again with other values at the padded positions of x, your code returned something of another shape."
    keep = real[..., None].expand(before.shape)
    if not harness.close(out[keep], before[keep]):
        gap = (out - before).abs().masked_fill(~keep, 0)
        where = harness.position([int(i) for i in (gap == gap.max()).nonzero()[0]], ("batch", "position", "feature"))
        return ("Changing only what the padded positions of x hold (mask False) changed the output at a real position "
                f"({where}, by {float(gap.max()):.3g}). Padding must be invisible to every real token.")
    return ""


def independent_layers(stack, n_layers):
    """A property: the `stack` ("encoder", "decoder") holds n_layers different layer objects."""

    def independent(outcome, case):
        try:
            layers = probes.probe("module_list", outcome.instance, "layers")
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return f"Reading the {stack}'s `layers` raised {harness.describe_error(error)}"
        if not layers["is_module_list"]:
            return f"The {stack} should keep its layers in an nn.ModuleList called `layers`."
        count, distinct = layers["count"], layers["distinct"]
        if count != n_layers:
            return f"Built with n_layers={n_layers}, `layers` holds {count} layers."
        if distinct != count:
            raise CheckFailure("encoder-shared-layers", f"The {stack}'s `layers` has {count} slots but only "
                               f"{distinct} distinct layer object{'s' if distinct > 1 else ''}.")
        return ""

    independent.__doc__ = f"The {stack} holds n_layers different layer objects."
    return independent


def _table(module):
    """The `pe` table that a fresh instance builds (float64, on the CPU), or an error sentence.

    `module` is a class, or a built module whose class is meant (the learner's, maybe in the grading sandbox).
    """
    try:
        built = probes.probe("fresh_buffer", module, (D_MODEL, MAX_LEN, 0.0), "pe")
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return f"Building PositionalEncoding({D_MODEL}, max_len={MAX_LEN}) raised {harness.describe_error(error)}"
    if built["kind"] == "parameter":
        return "The table `pe` is a parameter: it is fixed, so it belongs in a buffer."
    if built["kind"] != "buffer":
        kind = "an attribute" if built["kind"] == "attribute" else "missing"
        return (f"The table `pe` is {kind}, not a buffer: keep it with self.register_buffer('pe', ...) so that it "
                "moves with .to(device) and is saved with the model, but is never trained.")
    return built["value"]


def _sinusoid_table(outcome, case):
    """The learner's own table (from a fresh instance, not the copied one) is the sinusoidal encoding."""
    mine = _table(outcome.instance)
    if isinstance(mine, str):
        return mine
    want = _table(reference.PositionalEncoding)
    if mine.shape != want.shape:
        return f"The buffer `pe` has shape {tuple(mine.shape)}; it should be (1, max_len, d_model) = {tuple(want.shape)}."
    if torch.allclose(mine, want, rtol=1e-5, atol=1e-6):
        return ""
    for mistake_id, variants in PE_TABLE_MUTANTS.items():
        # Loose: a table built in float32 holds angles up to ~1e4 here, and their sines only to ~1e-3.
        if any(torch.allclose(mine, _table(variant), rtol=0, atol=1e-2) for variant in variants):
            raise CheckFailure(mistake_id, "In the table your __init__ builds, " + harness.describe_difference(
                "pe[0]", mine[0], want[0], ("position", "feature")))
    return "The table `pe` is not the sinusoidal encoding: " + harness.describe_difference(
        "pe[0]", mine[0], want[0], ("position", "feature"))


# ------------------------------------------------------------------ units

_SEQUENCE_AXES = {"output": ("position", "feature")}

register(UnitSpec(
    name="Embeddings",
    init=(VOCAB, D_MODEL),
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases={
        "values": lambda: [_embed_case(201), _embed_case(202, length=3)],
        "float64": lambda: [_embed_case(203, dtype=torch.float64)],
        "grad": lambda: [_embed_case(204)],
        "device": lambda: [_embed_case(201)],
    },
    probes=lambda: [_embed_case(301)],
    mutants={"embed-no-scale": (variant_class(_Embeddings, scale=False),)},
    knobbed=_Embeddings,
))

register(UnitSpec(
    name="PositionalEncoding",
    init=(D_MODEL, MAX_LEN),
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases={
        "values": lambda: [_pe_case(211), _pe_case(212, length=MAX_LEN), _pe_case(213, length=1)],
        "device": lambda: [_pe_case(211)],
        "properties": lambda: [_pe_case(214), _pe_case(215, dtype=torch.float64)],
    },
    probes=lambda: [_pe_case(311), _pe_case(312, length=3)],
    mutants=PE_TABLE_MUTANTS,
    knobbed=_PositionalEncoding,
    properties=(_sinusoid_table,),
))

register(UnitSpec(
    name="EncoderLayer",
    init=(D_MODEL, N_HEAD, D_FF),
    weight_noise=0.2,  # so that the norms' gamma and beta are not ones and zeros
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases={
        "values": lambda: [_x_case(221), _x_case(222, "padding")],
        "masks": lambda: [_x_case(223, "padding"), _x_case(224, "mixed")],
        "float64": lambda: [_x_case(225, "padding", dtype=torch.float64)],
        "grad": lambda: [_x_case(226, "padding", grad=True)],
        "device": lambda: [_x_case(222, "padding")],
        "properties": lambda: [_x_case(227, "padding")],
    },
    probes=lambda: [_x_case(321, "padding"), _x_case(322)],
    mutants=LAYER_MUTANTS,
    knobbed=_EncoderLayer,
    properties=(_padding_changes_nothing,),
))

register(UnitSpec(
    name="Encoder",
    init=(D_MODEL, N_HEAD, D_FF, N_LAYERS),
    weight_noise=0.2,  # gamma and beta not ones and zeros: an extra final norm shows
    outputs={"output": "return"},
    axes=_SEQUENCE_AXES,
    cases={
        "values": lambda: [_x_case(231), _x_case(232, "padding")],
        "masks": lambda: [_x_case(233, "padding"), _x_case(234, "mixed")],
        "float64": lambda: [_x_case(235, "padding", dtype=torch.float64)],
        "grad": lambda: [_x_case(236, "padding", grad=True)],
        "device": lambda: [_x_case(232, "padding")],
        "properties": lambda: [_x_case(237, "padding")],
    },
    probes=lambda: [_x_case(331, "padding"), _x_case(332)],
    mutants=ENCODER_MUTANTS,
    knobbed=_Encoder,
    properties=(independent_layers("encoder", N_LAYERS), _padding_changes_nothing),
    stand_ins=("EncoderLayer",),
))
