"""Checks of 08-generator: Generator, Transformer.

Generator: d_model 8, vocabulary 11, x of shape (2, 3, 8) and (4, 8). The 2-D case is how
greedy decoding calls it (the last position of every row), and it is the case that shows a
normalisation over a fixed axis 2 instead of the last one. Its "properties" aspect checks
that the outputs are log-probabilities (exp sums to 1 over the vocabulary), and that they
stay finite for confident logits (differences of a few hundred), where log(softmax(z))
underflows to log 0 = -inf.

Transformer: source vocabulary 11, target vocabulary 13, d_model 12, 3 heads, 2 layers,
d_ff 20, max_len 16; src (2, 7) and tgt (2, 5), the second row of each padded. Target ids
stay below 11 in most cases, so that embedding the target with src_embed runs and can be
matched by its values; one case uses the whole target vocabulary. Its "properties" aspect
checks encode and decode on their own (shapes and values), that decode depends on
tgt_embed and not on src_embed, that the `dropout` argument reaches every dropout (a fresh
model built with dropout 0.0 gives the same results in training mode as in evaluation mode,
one built with 0.5 does not), and the Xavier-uniform initialisation of a fresh model: within
the bound, and with the standard deviation of U(-a, a), which tells it from PyTorch's default
start (nn.Linear's is 0.52 to 0.67 of it for these shapes, nn.Embedding's several times more).
"""
import itertools
import math

import torch
import torch.nn.functional as F

from autograder import reference
from learner_kit import harness
from sandbox_servers import probes
from learner_kit.harness import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import CheckFailure, UNITS, UnitSpec, register, variant_class

B, L, D_MODEL, VOCAB = 2, 3, 8, 11

SRC_VOCAB, TGT_VOCAB, T_D_MODEL, T_N_HEAD, T_LAYERS, T_D_FF, T_MAX_LEN = 11, 13, 12, 3, 2, 20, 16
L_SRC, L_TGT = 7, 5
TRANSFORMER_INIT = (SRC_VOCAB, TGT_VOCAB, T_D_MODEL, T_N_HEAD, T_LAYERS, T_D_FF, 0.1, T_MAX_LEN)


# ------------------------------------------------------------------ knobbed references


def _normalise(logits, output, dim):
    if output == "logits":
        return logits
    if output == "softmax":
        return logits.softmax(dim=dim)
    if output == "log-of-softmax":  # the probabilities first, then their log
        return logits.softmax(dim=dim).log()
    return F.log_softmax(logits, dim=dim)


class _Generator(reference.Generator):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    output = "log_softmax"  # or "softmax", "logits", "log-of-softmax"
    dim = -1

    def forward(self, x):
        return _normalise(self.proj(x), self.output, self.dim)


class _Transformer(reference.Transformer):
    """The reference with knobs: which table embeds the target, and what the generator step returns."""

    tgt_embedding = "tgt_embed"
    output = "log_softmax"
    dim = -1
    # for the cause of _dropout_argument: whether src_embed's and tgt_embed's positional encodings, the encoder and the
    # decoder are built with the model's `dropout` (False: with their constructors' default rate, 0.1)
    rate_passed = (True, True, True, True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)  # the reference's parts in its order: one seed, same weights
        for part, passed in zip((self.src_embed[1], self.tgt_embed[1], self.encoder, self.decoder), self.rate_passed):
            if not passed:
                for module in part.modules():
                    if isinstance(module, torch.nn.Dropout):
                        module.p = 0.1

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(getattr(self, self.tgt_embedding)(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        hidden = self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)
        return _normalise(self.generator.proj(hidden), self.output, self.dim)


GENERATOR_MUTANTS = {
    "generator-softmax": (variant_class(_Generator, output="softmax"),),
    "generator-logits": (variant_class(_Generator, output="logits"),),
    "generator-wrong-dim": tuple(variant_class(_Generator, dim=d) for d in (0, 1, 2, -2)),
}

TRANSFORMER_MUTANTS = {
    "transformer-tgt-uses-src-embed": (variant_class(_Transformer, tgt_embedding="src_embed"),),
    # The model is as wrong as its generator: name the generator's mistake when the model shows it.
    "generator-softmax": (variant_class(_Transformer, output="softmax"),),
    "generator-logits": (variant_class(_Transformer, output="logits"),),
    "generator-wrong-dim": tuple(variant_class(_Transformer, dim=d) for d in (0, 1)),
}


# ------------------------------------------------------------------ cases


def _x(seed, shape=(B, L, D_MODEL), dtype=torch.float32, grad=False, scale=1.0):
    drawn = {"x": scale * inputs.normal(seed, x=shape)["x"]}
    drawn = inputs.needing_grad(drawn) if grad else drawn
    label = (f"x {tuple(shape)}" if scale == 1.0 else
             tr("x {shape}, entries of size about {scale:g} (confident logits)", shape=tuple(shape), scale=scale))
    return Case(drawn, label=label).to(dtype)


def _tokens(seed, padded=True, tgt_high=SRC_VOCAB, causal_only=False, dtype=torch.float32):
    """src (B, L_src) and tgt (B, L_tgt) ids (pad 0), the source padding mask and a target mask."""
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(1, SRC_VOCAB, (B, L_SRC), generator=generator)
    tgt = torch.randint(1, tgt_high, (B, L_TGT), generator=generator)
    if padded:
        src[1, L_SRC - 3:] = 0
        tgt[1, L_TGT - 2:] = 0
    src_mask = (src != 0)[:, None, None, :]
    causal = torch.ones(L_TGT, L_TGT, dtype=torch.bool).tril()
    tgt_mask = causal[None] if causal_only else (tgt != 0)[:, None, None, :] & causal
    label = (tr("src ({batch}, {l_src}) and tgt ({batch}, {l_tgt}) ids", batch=B, l_src=L_SRC, l_tgt=L_TGT)
             + (tr(", row 1 of each padded") if padded else "")
             + (tr(", target ids up to {top}", top=tgt_high - 1) if tgt_high != SRC_VOCAB else "")
             + (tr(", tgt_mask the causal mask (1, L_tgt, L_tgt) alone") if causal_only else
                tr(", src_mask (B, 1, 1, L_src) and tgt_mask (B, 1, L_tgt, L_tgt)")))
    return Case({"src": src, "tgt": tgt, "src_mask": src_mask, "tgt_mask": tgt_mask}, label=label).to(dtype)


# ------------------------------------------------------------------ properties: Generator


def _log_probabilities(outcome, case):
    """exp of the output sums to 1 over the last axis, at every position."""
    out = outcome.outputs["output"].detach().double()
    total = out.exp().sum(dim=-1)
    off = (total - 1).abs() > 1e-4
    if bool(off.any()):
        where = harness.position([int(i) for i in off.nonzero()[0]], ("position",))
        return tr("exp of your output should sum to 1 over the vocabulary (the last axis) at every position; at {where} "
                  "it sums to {total:.4g}.", where=where, total=float(total[off][0]))
    return ""


def _finite_when_confident(outcome, case):
    """Log-probabilities stay finite when the logits differ by hundreds."""
    out = outcome.outputs["output"].detach()
    bad = ~torch.isfinite(out)
    if bool(bad.any()):
        where = harness.position([int(i) for i in bad.nonzero()[0]], ("position", "word"))
        return Observed(tr("With confident logits (scores hundreds apart, as a trained model gives) your output holds "
                           "{value} at {where}.", value=float(out[bad][0]), where=where),
                        causes=[Cause(_probabilities_first, (variant_class(_Generator, output="log-of-softmax"),))])
    return ""


def _probabilities_first():
    return tr("Your results are those of a generator that forms the probabilities first and then takes their log: a "
              "probability below ~1e-45 is 0 in float32, and log 0 = -inf. Compute the log-probabilities in one stable "
              "step.")


# ------------------------------------------------------------------ properties: Transformer


def _args(case):
    return [value.detach() if isinstance(value, torch.Tensor) else value for value in case.inputs.values()]


def _target_embedding(outcome, case):
    """With memory fixed, decode changes with tgt_embed's weights and not with src_embed's."""
    model = outcome.instance
    src, tgt, src_mask, tgt_mask = _args(case)
    results = {}
    try:
        memory = probes.probe("call_method", model, "encode", src, src_mask)
        before = probes.probe("call_method", model, "decode", memory, src_mask, tgt, tgt_mask)
        for side in ("src_embed", "tgt_embed"):
            results[side] = probes.probe("with_noise", model, side, "decode", memory, src_mask, tgt, tgt_mask)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Calling encode and decode on their own raised {error}", error=harness.describe_error(error))
    if not harness.close(results["src_embed"], before) and not harness.close(results["tgt_embed"], before):
        return tr("With the encoder's memory fixed, changing the weights of src_embed changed what decode returns, and "
                  "so did changing tgt_embed's: decode must read the target through tgt_embed alone.")
    if not harness.close(results["src_embed"], before):
        raise CheckFailure("transformer-tgt-uses-src-embed", tr(
            "With the encoder's memory fixed, changing the weights of src_embed changed what decode returns: decode "
            "must read the target through tgt_embed."))
    if harness.close(results["tgt_embed"], before):  # nor with src_embed's: no embedding of the target is seen
        return tr("Changing the weights of tgt_embed does not change what decode returns: decode must read the target "
                  "through tgt_embed.")
    return ""


def _methods(outcome, case):
    """encode and decode return what the reference's return, and forward is generator(decode(encode(...)))."""
    model = outcome.instance
    src, tgt, src_mask, tgt_mask = _args(case)
    with harness.isolated(), torch.no_grad():
        want_model = reference.Transformer(*TRANSFORMER_INIT)
        harness.load_weights(want_model, UNITS["Transformer"].build_call().weights)
        want_model.eval().to(dtype=case.dtype)
        want_memory = want_model.encode(src, src_mask)
        want_hidden = want_model.decode(want_memory, src_mask, tgt, tgt_mask)
    try:
        memory = probes.probe("call_method", model, "encode", src, src_mask)
        hidden = probes.probe("call_method", model, "decode", want_memory, src_mask, tgt, tgt_mask)
        generated = probes.probe("call_method", model, "generator", hidden)
    except Exception as error:  # noqa: BLE001
        return tr("Calling encode, decode and generator on their own raised {error}", error=harness.describe_error(error))
    axes = ("position", "feature")
    for name, mine, theirs, call in (("memory", memory, want_memory, "encode(src, src_mask)"),
                                     ("decoded", hidden, want_hidden, "decode(memory, src_mask, tgt, tgt_mask)")):
        if not isinstance(mine, torch.Tensor) or mine.shape != theirs.shape:
            shape = tuple(mine.shape) if isinstance(mine, torch.Tensor) else type(mine).__name__
            return tr("{call} returns {shape}; it should return {expected}: (B, length, d_model).",
                      call=call, shape=shape, expected=tuple(theirs.shape))
        if not harness.close(mine, theirs):
            return tr("{call} differs from the exercise's: {difference}", call=call,
                      difference=harness.describe_difference(name, mine, theirs, axes))
    forward = outcome.outputs["output"].detach()
    if not isinstance(generated, torch.Tensor) or generated.shape != forward.shape or not harness.close(generated, forward):
        return tr("forward(src, tgt, src_mask, tgt_mask) should equal generator(decode(encode(src, src_mask), ...)), "
                  "and it does not.")
    return ""


def _dropout_argument(outcome, case):
    """The constructor's dropout reaches every dropout: with 0.0 training mode changes nothing, with 0.5 it does."""
    for p, should_change in ((0.0, False), (0.5, True)):
        init = TRANSFORMER_INIT[:6] + (p,) + TRANSFORMER_INIT[7:]
        try:
            got = probes.probe("training_call", outcome.instance, init, 3, *_args(case))
        except Exception as error:  # noqa: BLE001
            return tr("Building a Transformer{init} and calling it raised {error}", init=init,
                      error=harness.describe_error(error))
        changed = not harness.close(got["training"], got["evaluation"])
        if changed and not should_change:
            gap = float((got["training"] - got["evaluation"]).abs().max())
            return Observed(tr("Built with dropout=0.0, your model gives other results in training mode than in "
                               "evaluation mode (by up to {gap:.3g}): something random acts in it although it was built "
                               "with dropout=0.0.", gap=gap), causes=_RATE_CAUSES, key=("training differs", f"{gap:.4g}"))
        if should_change and not changed:
            return tr("Built with dropout=0.5, your model gives the same results in training mode as in evaluation "
                      "mode: nothing in it dropped.")
    return ""


def _rate_not_passed():
    return tr("Your results are those of a Transformer in which dropout acts at a rate of its own, 0.1 (the default), "
              "not at the model's `dropout`, where src_embed's or tgt_embed's positional encoding, the encoder or the "
              "decoder drops: every dropout takes the `dropout` argument.")


_RATE_CAUSES = (Cause(_rate_not_passed, tuple(variant_class(_Transformer, rate_passed=passed)
                                              for passed in itertools.product((True, False), repeat=4)
                                              if not all(passed))),)


def _xavier(outcome, case):
    """Every parameter with 2 or more dimensions of a freshly built model is Xavier-uniform."""
    try:
        fresh = probes.probe("fresh_parameters", outcome.instance, TRANSFORMER_INIT)
    except Exception as error:  # noqa: BLE001
        return tr("Building a Transformer{init} raised {error}", init=TRANSFORMER_INIT, error=harness.describe_error(error))
    for name, parameter in fresh.items():
        if parameter.dim() < 2:
            continue
        weight = parameter.detach().double()
        receptive = weight[0][0].numel()  # 1 for a matrix
        fan_in, fan_out = weight.size(1) * receptive, weight.size(0) * receptive
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        largest, spread = float(weight.abs().max()), float(weight.std())
        # what the numbers show, never how they came to be: a default start and nn.init.normal_ can look alike
        default = 1.0 if "lut" in name.split(".") else 1 / math.sqrt(3 * fan_in)  # nn.Embedding's N(0, 1), nn.Linear's
        as_default = tr(" That standard deviation is also what PyTorch's default start gives this layer ({default:.3g}).",
                        default=default) if abs(spread / default - 1) < 0.1 else ""
        if largest > bound * (1 + 1e-6):
            return tr("`{name}` starts with values up to {largest:.3g} (standard deviation {spread:.3g}), beyond the "
                      "Xavier-uniform bound √(6 / (fan_in + fan_out)) = {bound:.3g}: every weight matrix (2 or more "
                      "dimensions) should start Xavier-uniform (nn.init.xavier_uniform_, once all submodules exist).",
                      name=name, largest=largest, spread=spread, bound=bound) + as_default
        if abs(spread / (bound / math.sqrt(3)) - 1) > 0.25:
            return tr("`{name}` starts with standard deviation {spread:.3g}; Xavier-uniform gives {xavier:.3g}. "
                      "Initialise every weight matrix with nn.init.xavier_uniform_, last in __init__, once every "
                      "submodule exists.", name=name, spread=spread, xavier=bound / math.sqrt(3)) + as_default
    return ""


# ------------------------------------------------------------------ units

register(UnitSpec(
    name="Generator",
    init=(D_MODEL, VOCAB),
    outputs={"output": "return"},
    axes={"output": ("position", "word")},
    cases={
        "values": lambda: [_x(801), _x(802, shape=(4, D_MODEL))],
        "float64": lambda: [_x(803, dtype=torch.float64)],
        "grad": lambda: [_x(804, grad=True)],
        "device": lambda: [_x(801)],
        "properties": lambda: [_x(805), _x(806, shape=(4, D_MODEL)), _x(807, scale=300.0)],
    },
    probes=lambda: [_x(881), _x(882, shape=(4, D_MODEL))],
    mutants=GENERATOR_MUTANTS,
    knobbed=_Generator,
    properties=(_log_probabilities, _finite_when_confident),
))

register(UnitSpec(
    name="Transformer",
    init=TRANSFORMER_INIT,
    outputs={"output": "return"},
    axes={"output": ("position", "word")},
    cases={
        "values": lambda: [_tokens(811, padded=False), _tokens(812), _tokens(813, tgt_high=TGT_VOCAB)],
        "masks": lambda: [_tokens(814), _tokens(815, causal_only=True)],
        "float64": lambda: [_tokens(816, dtype=torch.float64)],
        "grad": lambda: [_tokens(817)],
        "device": lambda: [_tokens(812)],
        "properties": lambda: [_tokens(818)],
    },
    probes=lambda: [_tokens(891), _tokens(892, padded=False)],
    mutants=TRANSFORMER_MUTANTS,
    knobbed=_Transformer,
    properties=(_target_embedding, _methods, _dropout_argument, _xavier),
    stand_ins=("Generator",),
))
