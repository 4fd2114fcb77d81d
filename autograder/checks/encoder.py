"""Checks of 05-encoder: Embeddings, PositionalEncoding, EncoderLayer, Encoder.

Dimensions all differ (B=2, L=5, d_model=12, n_head=3 so d_k=4, d_ff=20, vocabulary 7,
max_len 9, n_layers 2). Padding masks (B, 1, 1, L) leave 5 and 3 real tokens; a mixed
mask (B, 1, L, L) blocks other pairs. The "properties" aspect of the layer and the stack
is the behaviour that padding exists for: changing what the padded positions of x hold
must not change the output at any real position; and the dropouts, which the other aspects
(in eval mode) never see: the layer and the stack are built with dropout=0.3, which every
dropout of the layer (its sublayers' too) and each layer of the stack must get; with every
dropout set to drop everything (p=1, training mode), PositionalEncoding returns zeros (its
dropout acts on x + pe) and the layer returns norm2(norm1(x)) (each sublayer's output
vanishes before its residual add).

PositionalEncoding keeps its table in the buffer `pe`. Module checks copy only the
reference's parameters into the learner's module, so its "values" aspect judges the
learner's own table together with forward (the slice, the sum, dropout), and names a
table mistake through PE_TABLE_MUTANTS; its "properties" aspect looks at the table the
learner's __init__ builds, on a fresh instance, against the same known mistakes.

A table mistake written otherwise than those mutants is named by reading the table itself
(_table_mistakes): every feature is fitted as sin(w·pos) or cos(w·pos). When every feature
is such a sinusoid, the even ones sines and the odd ones cosines, a feature that is not the
paper's proves `pe-wrong-frequency`; cosines at the even features and sines at the odd ones
prove `pe-sin-cos-swapped` (and a wrong frequency too when a feature is not the swapped
table's). A table whose pairs go as e^(i·k·v) over the pair index k at each position (the
position fed to the frequency, the pair index to the angle) is `pe-wrong-frequency` too.
Anything else (a phase, floored angles, sines and cosines in halves) proves neither. In the
"values" aspect the table is read from forward's results, output - x, which the last probe
(x of zeros, all max_len positions) gives whole; it is trusted only when it is the same for
every batch row and every case.
"""
import itertools
import math
import re

import torch
from torch import nn

from autograder import reference
from learner_kit import harness
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import CheckFailure, UnitSpec, register, variant_class

B, L, D_MODEL, N_HEAD, D_FF, N_LAYERS = 2, 5, 12, 3, 20, 2
VOCAB, MAX_LEN = 7, 9
DROPOUT = 0.3  # the layer and the stack are built with it (not the default 0.1), so that passing it on shows
_LENGTHS = [5, 3]  # real tokens per batch row; row 1 has two padded positions


# ------------------------------------------------------------------ knobbed references


class _Embeddings(reference.Embeddings):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    scale = "sqrt"  # the factor: "sqrt" (the paper's), None (no scaling), "inverse" (1/sqrt(d_model)), "d_model"

    def forward(self, tokens):
        vectors = self.lut(tokens)
        factor = {"sqrt": math.sqrt(self.d_model), None: 1.0, "inverse": 1 / math.sqrt(self.d_model),
                  "d_model": self.d_model}[self.scale]
        return vectors * factor


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

    # what the dropout acts on, for the causes of _dropout_on_the_sum: "sum" (x + pe), None, "x", "pe"
    dropout_on = "sum"

    def forward(self, x):
        pe = self.pe[:, : x.size(1)]
        if self.dropout_on == "sum":
            return self.dropout(x + pe)
        if self.dropout_on == "x":
            return self.dropout(x) + pe
        return x + self.dropout(pe) if self.dropout_on == "pe" else x + pe


class _EncoderLayer(reference.EncoderLayer):
    """The reference with knobs: pre-norm, which residual adds happen, whether the mask is used."""

    prenorm = False
    residual = (True, True)  # (attention sublayer, feed-forward sublayer)
    use_mask = True
    # what dropout1 and dropout2 act on, for the causes of _dropouts_on_sublayer_outputs: "out" (the sublayer's
    # output), None (never applied), "x" (the residual), "sum" (x + out), "norm" (the norm's output)
    dropout_on = ("out", "out")

    def forward(self, x, mask=None):
        mask = mask if self.use_mask else None
        x = self._sublayer(x, lambda y: self.self_attn(y, y, y, mask), self.norm1, self.dropout1, self.residual[0],
                           self.dropout_on[0])
        return self._sublayer(x, self.ffn, self.norm2, self.dropout2, self.residual[1], self.dropout_on[1])

    def _sublayer(self, x, function, norm, dropout, residual, on="out"):
        if self.prenorm:
            out = dropout(function(norm(x)))
            return x + out if residual else out
        return sublayer_with_dropout(x, function, norm, dropout, residual, on)


def sublayer_with_dropout(x, function, norm, dropout, residual=True, on="out"):
    """norm(x + dropout(function(x))), the dropout acting on `on`: "out", None, "x", "sum" or "norm"."""
    out = function(x)
    out = dropout(out) if on == "out" else out
    skip = dropout(x) if on == "x" else x
    total = skip + out if residual else out
    normed = norm(dropout(total) if on == "sum" else total)
    return dropout(normed) if on == "norm" else normed


DROPOUT_ELSEWHERE = ("x", "sum", "norm")  # the places a sublayer's dropout goes in the knobbed layers' causes


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


def _tokens(seed, length=L, low=0):
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(low, VOCAB, (B, length), generator=generator)
    return Case({"tokens": tokens},
                label=tr("tokens ({batch}, {length}), ids from {low} to {high}", batch=B, length=length, low=low, high=VOCAB - 1))


def _embed_case(seed, dtype=torch.float32, length=L, low=0):
    return _tokens(seed, length, low).to(dtype)


def _pe_case(seed, dtype=torch.float32, grad=False, length=L):
    drawn = inputs.normal(seed, x=(B, length, D_MODEL))
    args = inputs.needing_grad(drawn) if grad else drawn
    label = tr("x ({batch}, {length}, {d_model}) with max_len {max_len}", batch=B, length=length, d_model=D_MODEL,
               max_len=MAX_LEN)
    return Case(args, label=label).to(dtype)


def _pe_zeros():
    """x of zeros over all max_len positions: forward's output is the learner's whole table."""
    label = tr("x of zeros ({batch}, {length}, {d_model}) with max_len {max_len}", batch=B, length=MAX_LEN, d_model=D_MODEL,
               max_len=MAX_LEN)
    return Case({"x": torch.zeros(B, MAX_LEN, D_MODEL)}, label=label)


def _x_case(seed, mask=None, dtype=torch.float32, grad=False):
    """x (B, L, d_model) and a mask: None, "padding" (B, 1, 1, L) or "mixed" (B, 1, L, L)."""
    x = inputs.normal(seed, x=(B, L, D_MODEL))
    x = inputs.needing_grad(x) if grad else x
    if mask == "padding":
        x["mask"] = inputs.padding_mask(_LENGTHS, L)
        label = tr("x ({batch}, {length}, {d_model}) with a padding mask (B, 1, 1, L): rows of {first} and {second} real "
                   "tokens", batch=B, length=L, d_model=D_MODEL, first=_LENGTHS[0], second=_LENGTHS[1])
    elif mask == "mixed":
        x["mask"] = inputs.mixed_mask(seed, (B, 1, L, L))
        label = tr("x ({batch}, {length}, {d_model}) with a mask of shape (B, 1, L, L)", batch=B, length=L, d_model=D_MODEL)
    else:
        label = tr("x ({batch}, {length}, {d_model}) without a mask", batch=B, length=L, d_model=D_MODEL)
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
            return tr("Run again with other values at the padded positions of x, your code raised {error}",
                      error=harness.describe_error(error))
    before = outcome.outputs["output"].detach()
    if not isinstance(out, torch.Tensor) or out.shape != before.shape:
        return tr("Run again with other values at the padded positions of x, your code returned something of another "
                  "shape.")
    keep = real[..., None].expand(before.shape)
    if not harness.close(out[keep], before[keep]):
        gap = (out - before).abs().masked_fill(~keep, 0)
        where = harness.position([int(i) for i in (gap == gap.max()).nonzero()[0]], ("batch", "position", "feature"))
        return tr("Changing only what the padded positions of x hold (mask False) changed the output at a real position "
                  "({where}, by {gap:.3g}). Padding must be invisible to every real token.", where=where, gap=float(gap.max()))
    return ""


def independent_layers(stack, n_layers):
    """A property: the `stack` ("encoder", "decoder") holds n_layers different layer objects."""

    def independent(outcome, case):
        name = tr("encoder") if stack == "encoder" else tr("decoder")  # the stack's name in the learner's language
        try:
            layers = probes.probe("module_list", outcome.instance, "layers")
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return tr("Reading the {stack}'s `layers` raised {error}", stack=name, error=harness.describe_error(error))
        if not layers["is_module_list"]:
            return tr("The {stack} should keep its layers in an nn.ModuleList called `layers`.", stack=name)
        count, distinct = layers["count"], layers["distinct"]
        if count != n_layers:
            return tr("Built with n_layers={n_layers}, `layers` holds {count} layers.", n_layers=n_layers, count=count)
        if distinct != count:
            if distinct > 1:
                detail = tr("The {stack}'s `layers` has {count} slots but only {distinct} distinct layer objects.",
                            stack=name, count=count, distinct=distinct)
            else:
                detail = tr("The {stack}'s `layers` has {count} slots but only {distinct} distinct layer object.",
                            stack=name, count=count, distinct=distinct)
            raise CheckFailure("encoder-shared-layers", detail)
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
        return tr("Building PositionalEncoding({d_model}, max_len={max_len}) raised {error}", d_model=D_MODEL,
                  max_len=MAX_LEN, error=harness.describe_error(error))
    if built["kind"] == "parameter":
        return tr("The table `pe` is a parameter: it is fixed, so it belongs in a buffer.")
    if built["kind"] == "attribute":
        return tr("The table `pe` is an attribute, not a buffer: keep it with self.register_buffer('pe', ...) so that "
                  "it moves with .to(device) and is saved with the model, but is never trained.")
    if built["kind"] != "buffer":
        return tr("The table `pe` is missing, not a buffer: keep it with self.register_buffer('pe', ...) so that it "
                  "moves with .to(device) and is saved with the model, but is never trained.")
    return built["value"]


_FIT_TOLERANCE = 5e-3  # a float32 table's angles reach ~2e4 rad here (frequencies > 1): their sines carry ~1e-3


def _zero_phase_fit(column, wave):
    """(w, residual) of the wave(w * pos) closest to `column` (float64, positions 0, 1, ...), or None if none is close.

    `wave` is torch.sin or torch.cos. w is found from the first positions, then refined by
    Gauss-Newton on all of them; close means within _FIT_TOLERANCE at every position.
    """
    pos = torch.arange(len(column), dtype=torch.float64)
    if len(column) < 3 or abs(float(column[0]) - float(wave(torch.zeros(())))) > _FIT_TOLERANCE:
        return None
    first, second = float(column[1].clamp(-1, 1)), float(column[2])
    if wave is torch.sin:
        guesses = [math.asin(first), math.pi - math.asin(first)]
        if abs(first) > 0.1:  # sin 2w = 2 sin w cos w: well conditioned where asin is not (w near pi/2)
            guesses.append(math.atan2(first, second / (2 * first)))
    else:
        guesses = [math.acos(first)]
    best = None
    for w in guesses:
        for _ in range(6):
            error = wave(w * pos) - column
            slope = pos * (torch.cos(w * pos) if wave is torch.sin else -torch.sin(w * pos))
            norm = float((slope * slope).sum())
            step = float((slope * error).sum()) / norm if norm > 1e-12 else 0.0
            if float((wave((w - step) * pos) - column).abs().max()) >= float(error.abs().max()):
                break
            w -= step
        residual = float((wave(w * pos) - column).abs().max())
        if best is None or residual < best[1]:
            best = (w, residual)
    return best if best[1] <= _FIT_TOLERANCE else None


def _paper_table(positions, d_model, sin_even=True):
    """The paper's table (positions, d_model) in float64; with sin_even=False, cos and sin in each other's place."""
    angle = torch.arange(positions, dtype=torch.float64)[:, None] * 10000.0 ** (
        -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    first, second = (torch.sin, torch.cos) if sin_even else (torch.cos, torch.sin)
    table = torch.zeros(positions, d_model, dtype=torch.float64)
    table[:, 0::2], table[:, 1::2] = first(angle), second(angle)
    return table


def _position_in_frequency(table):
    """Whether each row goes as (sin, cos)(k * v) over the pair index k: the position fed to the frequency."""
    pairs = table.shape[1] // 2
    if pairs < 3:
        return False
    turn = torch.complex(table[:, 1::2], table[:, 0::2])  # cos + i sin of each pair's angle
    v = torch.angle(turn[:, 1])
    fitted = torch.polar(torch.ones_like(v)[:, None].expand(-1, pairs), v[:, None] * torch.arange(pairs, dtype=torch.float64))
    return bool((turn - fitted).abs().max() <= _FIT_TOLERANCE) and not _close_table(table, _paper_table(*table.shape))


def _close_table(mine, theirs, tolerance=1e-3):
    return bool((mine - theirs).abs().max() <= tolerance)


def _features(columns):
    return ", ".join(str(c) for c in columns[:6]) + (" …" if len(columns) > 6 else "")


def _turn(w, wave):
    """w as the frequency it shows on integer positions: in [0, 2 pi) for a sine, [0, pi] for a cosine."""
    w = w % (2 * math.pi)
    return min(w, 2 * math.pi - w) if wave == "cos" else w


def _table_mistakes(table):
    """(ids, sentence): the table mistakes a learner's table (positions, d_model) proves, and what it shows.

    ids is () when it proves none (the sentence may still say what is off). Needs 3 positions or more.
    """
    table = table.detach().to("cpu", torch.float64)
    positions, d_model = table.shape
    if positions < 3 or d_model % 2:
        return (), ""
    empty = [c for c in range(d_model) if not bool(table[:, c].any())]
    # sin(0·pos) fits a column of zeros; where half the features or more are 0, what shows is features never
    # filled in (pe[:, 0::2] written, the odd ones left), not a frequency. One such column (i = 0 with a wrong
    # angle) still goes to the fit below.
    if len(empty) >= d_model // 2:
        return (), (tr("features {features} are 0 at every position: each feature holds a sine or a cosine of the "
                       "position (sin at the even features 2i, cos at the odd ones 2i+1).", features=_features(empty))
                    if len(empty) > 1 else
                    tr("feature {features} is 0 at every position: each feature holds a sine or a cosine of the "
                       "position (sin at the even features 2i, cos at the odd ones 2i+1).", features=_features(empty)))
    waves, fits = [], []
    for column in table.T:
        for name, wave in (("sin", torch.sin), ("cos", torch.cos)):
            fit = _zero_phase_fit(column, wave)
            if fit is not None:
                waves.append(name)
                fits.append(fit)
                break
        else:
            if _position_in_frequency(table):
                return ("pe-wrong-frequency",), tr("each position's row turns with the pair index (sin and cos of "
                                                    "k·v at pair k): the position went into the frequency, the pair "
                                                    "index into the angle.")
            return (), ""
    paper = ["sin" if c % 2 == 0 else "cos" for c in range(d_model)]
    swapped = ["cos" if c % 2 == 0 else "sin" for c in range(d_model)]
    if waves not in (paper, swapped):
        misplaced = [c for c in range(d_model) if waves[c] != paper[c]]
        if len(misplaced) > 1:
            return (), tr("it holds sines and cosines of the position, but features {features} hold the other one: "
                          "feature 2i takes sin(pos / 10000^(2i/d_model)) and feature 2i+1 its cosine, interleaved.",
                          features=_features(misplaced))
        return (), tr("it holds sines and cosines of the position, but feature {features} holds the other one: "
                      "feature 2i takes sin(pos / 10000^(2i/d_model)) and feature 2i+1 its cosine, interleaved.",
                      features=_features(misplaced))
    want = _paper_table(positions, d_model, sin_even=waves == paper)
    gaps = (table - want).abs().amax(dim=0)
    off = [c for c in range(d_model) if float(gaps[c]) > max(1e-3, 10 * fits[c][1])]
    ids = () if waves == paper else ("pe-sin-cos-swapped",)
    if not off:
        return (ids, "") if ids and _close_table(table, want) else ((), "")
    c = off[0]
    paper_w = 10000.0 ** (-(c - c % 2) / d_model)
    features, wave, w = _features(off), waves[c], _turn(fits[c][0], waves[c])
    if len(off) > 1:
        sentence = tr("features {features} turn at other frequencies than 1/10000^(2i/d_model): feature {c} goes as "
                      "{wave}({w:.4g}·pos) where it should be {wave}({paper_w:.4g}·pos).",
                      features=features, c=c, wave=wave, w=w, paper_w=paper_w)
    else:
        sentence = tr("feature {features} turns at other frequencies than 1/10000^(2i/d_model): feature {c} goes as "
                      "{wave}({w:.4g}·pos) where it should be {wave}({paper_w:.4g}·pos).",
                      features=features, c=c, wave=wave, w=w, paper_w=paper_w)
    return (*ids, "pe-wrong-frequency"), sentence


def _table_from_outputs(outcomes, cases):
    """The table forward added to x (positions, d_model), read from every case, or None when it is no fixed table."""
    rows = None
    for outcome, case in zip(outcomes, cases):
        x, out = case.inputs.get("x"), (outcome.outputs or {}).get("output")
        if not isinstance(x, torch.Tensor) or not isinstance(out, torch.Tensor) or out.shape != x.shape or x.dim() != 3:
            return None
        added = out.detach().to("cpu", torch.float64) - x.detach().to("cpu", torch.float64)
        if not _close_table(added, added[:1].expand_as(added), 1e-4):  # the same for every batch row
            return None
        added = added[0]
        if rows is not None:
            common = min(len(rows), len(added))
            if not _close_table(rows[:common], added[:common], 1e-4):  # the same in every case
                return None
        if rows is None or len(added) > len(rows):
            rows = added
    return rows


def _table_diagnoser(outcomes, cases):
    """A diagnoser: the table mistake that forward's results prove (see _table_mistakes), or ''."""
    table = _table_from_outputs(outcomes, cases)
    if table is None:
        return ""
    ids, _ = _table_mistakes(table)
    return ids if len(ids) > 1 else ids[0] if ids else ""


def _sinusoid_table(outcome, case):
    """The learner's own table (from a fresh instance, not the copied one) is the sinusoidal encoding."""
    mine = _table(outcome.instance)
    if isinstance(mine, str):
        return mine
    want = _table(reference.PositionalEncoding)
    if mine.shape != want.shape:
        return tr("The buffer `pe` has shape {shape}; it should be (1, max_len, d_model) = {expected}.",
                  shape=tuple(mine.shape), expected=tuple(want.shape))
    if torch.allclose(mine, want, rtol=1e-5, atol=1e-6):
        return ""
    difference = harness.describe_difference("pe[0]", mine[0], want[0], ("position", "feature"))
    for mistake_id, variants in PE_TABLE_MUTANTS.items():
        # Loose: a table built in float32 holds angles up to ~1e4 here, and their sines only to ~1e-3.
        if any(torch.allclose(mine, _table(variant), rtol=0, atol=1e-2) for variant in variants):
            raise CheckFailure(mistake_id, tr("In the table your __init__ builds, {difference}", difference=difference))
    ids, sentence = _table_mistakes(mine[0])
    if ids:
        raise CheckFailure(ids, tr("In the table your __init__ builds, {sentence} {difference}", sentence=sentence,
                                   difference=difference))
    if sentence:
        return tr("The table `pe` is not the sinusoidal encoding: {sentence} {difference}", sentence=sentence,
                  difference=difference)
    return tr("The table `pe` is not the sinusoidal encoding: {difference}", difference=difference)


def _dropout_on_the_sum(outcome, case):
    """With its dropout dropping everything (p=1, training mode), forward returns zeros: dropout acts on x + pe."""
    x = case.inputs["x"].detach()
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, x)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with its dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error))
    if not isinstance(dropped, torch.Tensor) or dropped.shape != x.shape:
        return tr("Run with its dropout dropping everything (p=1, training mode), forward did not return a tensor of x's "
                  "shape.")
    if bool((dropped == 0).all()):
        return ""
    if harness.close(dropped, outcome.outputs["output"].detach()):
        return Observed(tr("With its dropout set to drop everything (p=1, training mode), forward returns what it "
                           "returns without dropout."),
                        causes=[Cause(_pe_dropout_unused, (variant_class(_PositionalEncoding, dropout_on=None),))],
                        key="no effect")
    largest = float(dropped.abs().max())
    return Observed(tr("With its dropout set to drop everything (p=1, training mode), forward should return zeros, "
                       "since dropout acts on the whole sum x + pe; yours keeps values up to {largest:.3g}.",
                       largest=largest),
                    causes=[Cause(_pe_dropout_on_one_term, tuple(variant_class(_PositionalEncoding, dropout_on=on)
                                                                 for on in ("x", "pe")))],
                    key=("keeps", f"{largest:.4g}"))


def _pe_dropout_unused():
    return tr("The `dropout` submodule is never applied. It belongs on the sum x + pe.")


def _pe_dropout_on_one_term():
    return tr("Your results are those of a PositionalEncoding whose dropout acts on one of the two terms only (x or "
              "pe): it belongs on the whole sum x + pe.")


def _dropouts_on_sublayer_outputs(outcome, case):
    """With every dropout dropping everything (p=1, training mode), both sublayers' outputs vanish before their
    residual adds: the layer returns norm2(norm1(x))."""
    x, mask = case.inputs["x"].detach(), case.inputs.get("mask")
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, x, mask)
        want = probes.probe("call_method", outcome.instance, "norm2",
                            probes.probe("call_method", outcome.instance, "norm1", x))
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with every dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error))
    if not isinstance(dropped, torch.Tensor) or dropped.shape != x.shape:
        return tr("Run with every dropout dropping everything (p=1, training mode), the layer did not return a tensor of "
                  "x's shape.")
    if harness.close(dropped, want):
        return ""
    gap = float((dropped - want).abs().max())
    return Observed(tr("With every dropout set to drop everything (p=1, training mode), both sublayers' outputs should "
                       "vanish before their residual adds, leaving norm2(norm1(x)); yours differs by up to {gap:.3g}.",
                       gap=gap), causes=_LAYER_DROPOUT_CAUSES, key=("differs", f"{gap:.4g}"))


def _layer_dropout_unused(names):
    def sentence():
        if len(names) > 1:
            return tr("Your results are those of an EncoderLayer in which {names} are never applied: each sublayer's "
                      "output goes through its own dropout (dropout1, dropout2) before its residual add.",
                      names=harness.joined(f"`{name}`" for name in names))
        return tr("Your results are those of an EncoderLayer in which {names} is never applied: each sublayer's "
                  "output goes through its own dropout (dropout1, dropout2) before its residual add.",
                  names=f"`{names[0]}`")
    return sentence


def _layer_dropout_elsewhere():
    return tr("Your results are those of an EncoderLayer whose dropout1 or dropout2 acts on another term than its "
              "sublayer's output (x, the sum, or the norm's output): each belongs on its sublayer's output alone, "
              "before the residual add.")


_LAYER_DROPOUT_CAUSES = (
    Cause(_layer_dropout_unused(("dropout1",)), (variant_class(_EncoderLayer, dropout_on=(None, "out")),)),
    Cause(_layer_dropout_unused(("dropout2",)), (variant_class(_EncoderLayer, dropout_on=("out", None)),)),
    Cause(_layer_dropout_unused(("dropout1", "dropout2")), (variant_class(_EncoderLayer, dropout_on=(None, None)),)),
    Cause(_layer_dropout_elsewhere, tuple(variant_class(_EncoderLayer, dropout_on=on)
                                          for on in itertools.product(("out", None, *DROPOUT_ELSEWHERE), repeat=2)
                                          if set(on) & set(DROPOUT_ELSEWHERE))),
)


def _dropouts_in(text):
    """{dotted name: p} of the nn.Dropout modules in a module's repr ("0-2" names a run of equal list items)."""
    found, path = {}, []
    for line in text.splitlines()[1:]:
        match = re.match(r"(\s*)\(([^)]+)\): (?:\d+ x )?(\w+)\((.*)", line)
        if not match:
            continue
        path = path[:len(match.group(1)) // 2 - 1] + [match.group(2)]
        rate = re.search(r"p=([0-9.eE+-]+)", match.group(4))
        if match.group(3) == "Dropout" and rate:
            found[".".join(path)] = float(rate.group(1))
    return found


def dropout_rates(unit, which):
    """A property: the dropouts of the module whose dotted names match `which` (a regex) drop with DROPOUT, the rate
    it was built with."""

    def rates(outcome, case):
        try:
            text = probes.probe("call_method", outcome.instance, "__repr__")
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return tr("Printing your {unit} raised {error}", unit=unit, error=harness.describe_error(error))
        found = _dropouts_in(text) if isinstance(text, str) else {}
        other = [f"`{name}` (p={p:g})" for name, p in found.items() if re.fullmatch(which, name) and p != DROPOUT]
        if not other:
            return ""
        listed = ", ".join(other[:4]) + (tr(" and {count} more", count=len(other) - 4) if len(other) > 4 else "")
        if unit == "EncoderLayer":
            return tr("Built with dropout={rate}, your {unit} has dropouts with another rate: {listed}. Pass `dropout` on "
                      "to every sublayer you build.", rate=DROPOUT, unit=unit, listed=listed)
        return tr("Built with dropout={rate}, your {unit} has dropouts with another rate: {listed}. Pass `dropout` on "
                  "to every layer you build.", rate=DROPOUT, unit=unit, listed=listed)

    rates.__doc__ = f"The dropouts of the {unit} ({which}) drop with the rate it was built with."
    return rates


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
        # no padding id 0 here: nn.Embedding(..., padding_idx=0) rightly keeps that row's gradient at zero
        "grad": lambda: [_embed_case(204, low=1)],
        "device": lambda: [_embed_case(201)],
    },
    probes=lambda: [_embed_case(301)],
    # Not multiplied by sqrt(d_model): no factor, or another one (divided by it, or d_model itself).
    mutants={"embed-no-scale": tuple(variant_class(_Embeddings, scale=f) for f in (None, "inverse", "d_model"))},
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
    probes=lambda: [_pe_case(311), _pe_case(312, length=3), _pe_zeros()],
    mutants=PE_TABLE_MUTANTS,
    knobbed=_PositionalEncoding,
    properties=(_sinusoid_table, _dropout_on_the_sum),
    diagnosers=(_table_diagnoser,),
))

register(UnitSpec(
    name="EncoderLayer",
    init=(D_MODEL, N_HEAD, D_FF, DROPOUT),
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
    properties=(_padding_changes_nothing, dropout_rates("EncoderLayer", r".*"), _dropouts_on_sublayer_outputs),
))

register(UnitSpec(
    name="Encoder",
    init=(D_MODEL, N_HEAD, D_FF, N_LAYERS, DROPOUT),
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
    # the rate each layer gets: its own dropout1 and dropout2 (its sublayers' are the layer's business)
    properties=(independent_layers("encoder", N_LAYERS), _padding_changes_nothing,
                dropout_rates("Encoder", r"layers\.[0-9-]+\.dropout[12]")),
    stand_ins=("EncoderLayer",),
))
