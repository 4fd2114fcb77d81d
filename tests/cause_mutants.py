"""Wrong answers that break a checked property in several ways, each with the causes that are true of it (issue 48).

A property check that sees a symptom may say a cause ("dropout is applied twice"), and a named mistake's first line
says one too ("The target mask blocks padding but not the future."). For every check that can print a cause, this
module makes wrong answers that break the same property in other ways: another order of arguments, another rate,
`|` for `&`, a step done twice, an extra module, the step in another place. Most come from the learner-style
generator's operators (tests/mutants/learner_style.py: drop-call, double-call, mask, swap-args, axis, constant) run
on the reference's source and kept where they touch the property; the rest are written out as edits of the
reference's source (a rate of the learner's own, a dropout module built inside forward, dropout on another term).

Each answer carries the keys of the causes true of it (CAUSES: key -> the words that say it). Only an answer whose
cause is the one a sentence names may get that sentence: tests/checks/test_cause_sentences.py holds the checks to it.

    python -m tests.cause_mutants [--second-round | --third-round] [--visible] [--quiet]
        the cause-guess table: per check, its answers and the causes printed (true, observation only, false), by
        the hidden checks or (--visible) the visible ones
"""
import contextlib
import io
import re
import sys
from dataclasses import dataclass, field
from functools import cache

from autograder.checks import CheckFailure, check
from tests.mutants import Mutant, build, unit_source
from tests.mutants.learner_style import mutants as learner_style

# cause key -> a fragment of the sentence (English) that states it, in any version of the checks: the old sentences
# (before issue 48) and the new ones, so that the table reads both.
CAUSES = {
    # AddNorm's dropout property
    "addnorm-dropout-unused": ("the `dropout` submodule is never applied. It belongs on sublayer_out",),
    "addnorm-dropout-misplaced": ("Is dropout applied to x, to the sum, or after the norm?",
                                  "dropout is applied to another term than sublayer_out"),
    # PositionwiseFeedForward's dropout properties
    "ffn-dropout-always-on": ("Is dropout called as F.dropout(h, p) without training=self.training?",
                              "a dropout that does not switch off in evaluation mode"),
    "ffn-dropout-unused": ("the `dropout` submodule is never applied. It belongs on the hidden activations",),
    "ffn-dropout-misplaced": ("Is dropout applied to the input, or to w_2's output, instead of between the ReLU and w_2?",
                              "dropout acts on another tensor than the hidden activations"),
    "ffn-dropout-twice": ("dropout is applied twice",),
    # the weights returned with a dropout module in training mode (scaled_dot_product_attention, AdditiveAttention)
    "weights-after-dropout": ("return the weights from before dropout", "return the weights before dropout",
                              "the weights you return are the dropped ones"),
    # PositionalEncoding's dropout property (issue 48, second round)
    "pe-dropout-unused": ("It belongs on the sum x + pe.",),
    "pe-dropout-one-term": ("Is dropout applied to one of the two terms only?", "acts on one of the two terms only"),
    # EncoderLayer's: the old question (true of an unused dropout and of a misplaced one alike), the new causes
    "enc-dropout-question": ("Are dropout1 and dropout2 applied to the sublayers' outputs, before each add?",),
    "enc-dropout1-unused": ("EncoderLayer in which `dropout1` is never applied",),
    "enc-dropout2-unused": ("EncoderLayer in which `dropout2` is never applied",),
    "enc-dropouts-unused": ("EncoderLayer in which `dropout1` and `dropout2` are never applied",),
    "enc-dropout-misplaced": ("whose dropout1 or dropout2 acts on another term than its sublayer's output",),
    # DecoderLayer's
    "dec-rate-not-passed": ("some dropout inside it did not get dropout=0.0",
                            "does not get the layer's `dropout` and drops with a rate of its own (0.1, the default)"),
    "dec-dropout1-unused": ("dropout1 is never applied",),
    "dec-dropout2-unused": ("dropout2 is never applied",),
    "dec-dropout3-unused": ("dropout3 is never applied",),
    "dec-dropout-misplaced": ("Does every sublayer's output go through its own dropout, before the add and not after the "
                              "norm?", "a dropout acts on another term than its sublayer's output"),
    # the multi-head modules' (heads.dropout_reaches_weights; additive._dropout_not_on_heads_output): the old sentence
    # of MultiHeadAttention said unused and elsewhere at once
    "mha-dropout-question": ("self.dropout does not act on the attention weights (or acts elsewhere too)",),
    "mha-dropout-unused": ("that never applies self.dropout",),
    "kept-dropped": ("they must be those before dropout", "keeps the dropped weights in self.attn"),
    "amha-dropout-unused": ("self.dropout does not reach the attention weights", "self.dropout never reaches the "
                            "attention weights"),
    "amha-dropout-on-heads-output": ("acts on the heads' output, not on the attention weights",),
    # the attention functions' dropout case (core._dropout_problem): the old question said twice and elsewhere at once
    "attn-dropout-question": ("Is dropout applied to the weights, once, before they multiply the values?",),
    "attn-dropout-twice": ("applies the dropout module to the weights twice",),
    "attn-dropout-elsewhere": ("whose dropout acts on another tensor than the weights",),
    "attn-dropout-unused": ("is the dropout module used?", "never applies the dropout module it is given"),
    # the decoder's mask properties (DecoderLayer and Decoder)
    "tgt-mask-missing": ("the target mask must reach the masked self-attention", "does not get the target mask"),
    "src-mask-missing": ("src_mask must reach the cross-attention", "does not get the source mask"),
    # named mistakes' first lines
    "tgt-mask-blocks-padding": ("The target mask blocks padding but not the future.",),
    "embed-not-scaled": ("The embeddings are not multiplied by √d_model.",),
    # the third round (issue 48): the rate, the stacks' layers, the generator, the Transformer, greedy decoding
    "noam-no-warmup": ("The learning-rate schedule has no warm-up.",),
    "noam-larger-term": ("Your rates are the larger of the two terms at every step",),
    "noam-d-model-too-large": ("Your rates are d_model times too large",),
    "noam-zero-division": ("0 ** -0.5 divides by zero",),
    "stack-repeats-one-layer": ("The stack repeats one layer object instead of n_layers independent layers.",),
    "gen-probabilities-first": ("without forming the probabilities first",
                                "forms the probabilities first and then takes their log"),
    "tf-rate-not-passed": ("some dropout did not get the `dropout` argument (a default p = 0.1 still drops)",
                           "dropout acts at a rate of its own, 0.1 (the default), not at the model's `dropout`"),
    "tf-dropout-reaches-none": ("the `dropout` argument reaches no dropout",),
    "tgt-embedded-with-src": ("The target tokens are embedded with src_embed.",),
    "greedy-no-feedback": ("Greedy decoding does not feed its own predictions back.",),
    "greedy-newest-only": ("Each step decodes only the newest token",),
    "greedy-first-position": ("what the decoder predicts at its first position",),
    "greedy-no-generator": ("the argmax of the decoder's output itself",),
}


def printed_causes(message):
    """The keys of the causes a message states."""
    text = (message or "").lower()
    return frozenset(key for key, fragments in CAUSES.items() if any(f.lower() in text for f in fragments))


@dataclass(frozen=True)
class Answer:
    """One wrong answer: the unit's whole source, changed; the aspect whose check reads it; the causes true of it."""

    check: str  # the check that can print a cause: "AddNorm dropout", "make_tgt_mask [mask-tgt-missing-causal]", ...
    unit: str
    label: str
    source: str
    causes: frozenset = field(default_factory=frozenset)
    aspect: str = "properties"

    def build(self):
        return build(Mutant(self.unit, "cause", 0, self.source, self.label))


def _edit(unit, old, new):
    source = unit_source(unit)
    assert source.count(old) == 1, (unit, old)
    return source.replace(old, new)


def _edits(check_name, unit, edits, aspect="properties"):
    """Answers written out: (label, old text, new text, causes)."""
    return [Answer(check_name, unit, label, _edit(unit, old, new), frozenset(causes), aspect)
            for label, old, new, causes in edits]


def _operators(check_name, unit, operators, keep, causes_of, aspect="properties"):
    """The learner-style generator's mutants of `unit` by `operators` whose change `keep` accepts; their causes by
    `causes_of(change)`."""
    return [Answer(check_name, unit, f"{m.operator}#{m.occurrence} {m.change}", m.source, frozenset(causes_of(m.change)),
                   aspect)
            for m in learner_style(unit, operators) if keep(m.change)]


# ------------------------------------------------------------------ the answers, per check

ADDNORM = "self.norm(x + self.dropout(sublayer_out))"
FFN = "self.w_2(self.dropout(torch.relu(self.w_1(x))))"
SDPA_RETURN = "return dropped @ value, weights"


def _addnorm():
    name = "AddNorm: dropout on sublayer_out"
    return _operators(name, "AddNorm", ("drop-call", "double-call", "swap-names", "stale-read"),
                      keep=lambda change: "dropout" in change,
                      causes_of=lambda change: {"addnorm-dropout-unused"} if "self.norm(x + sublayer_out)" in change
                      else ()) + _edits(name, "AddNorm", [
        ("rate of its own, F.dropout(s, 0.1)", ADDNORM, "self.norm(x + F.dropout(sublayer_out, 0.1, self.training))", ()),
        ("rate of its own, F.dropout(s, 0.3)", ADDNORM, "self.norm(x + F.dropout(sublayer_out, 0.3, self.training))", ()),
        ("nn.Dropout() built in forward (p = 0.5)", ADDNORM, "self.norm(x + nn.Dropout()(sublayer_out))", ()),
        ("nn.Dropout(0.1) built in forward", ADDNORM, "self.norm(x + nn.Dropout(0.1)(sublayer_out))", ()),
        ("dropout on x", ADDNORM, "self.norm(self.dropout(x) + sublayer_out)", {"addnorm-dropout-misplaced"}),
        ("dropout on the sum", ADDNORM, "self.norm(self.dropout(x + sublayer_out))", {"addnorm-dropout-misplaced"}),
        ("dropout after the norm", ADDNORM, "self.dropout(self.norm(x + sublayer_out))", {"addnorm-dropout-misplaced"}),
        ("dropout on x and on sublayer_out", ADDNORM, "self.norm(self.dropout(x) + self.dropout(sublayer_out))",
         {"addnorm-dropout-misplaced"}),
        ("the norm applied twice", ADDNORM, "self.norm(self.norm(x + self.dropout(sublayer_out)))", ()),
        ("an extra dropout module of its own on x", ADDNORM, "self.norm(nn.Dropout(0.1)(x) + self.dropout(sublayer_out))",
         ()),
    ])


def _ffn():
    name = "PositionwiseFeedForward: dropout on the hidden activations, once, off in eval"

    def causes_of(change):
        if "self.w_2(torch.relu(self.w_1(x)))" in change:
            return {"ffn-dropout-unused"}
        if "self.dropout(self.dropout(" in change:
            return {"ffn-dropout-twice"}
        return ()
    return _operators(name, "PositionwiseFeedForward", ("drop-call", "double-call"),
                      keep=lambda change: "dropout" in change, causes_of=causes_of) + _edits(
        name, "PositionwiseFeedForward", [
            ("F.dropout(h, self.dropout.p) without training", FFN,
             "self.w_2(F.dropout(torch.relu(self.w_1(x)), self.dropout.p))", {"ffn-dropout-always-on"}),
            ("F.dropout(h, 0.1) without training (the rate the module is built with)", FFN,
             "self.w_2(F.dropout(torch.relu(self.w_1(x)), 0.1))", {"ffn-dropout-always-on"}),
            ("nn.Dropout() built in forward (p = 0.5)", FFN, "self.w_2(nn.Dropout()(torch.relu(self.w_1(x))))", ()),
            ("F.dropout(h, 0.5) without training (another rate)", FFN,
             "self.w_2(F.dropout(torch.relu(self.w_1(x)), 0.5))", ()),
            ("rate of its own, F.dropout(h, 0.1, training)", FFN,
             "self.w_2(F.dropout(torch.relu(self.w_1(x)), 0.1, self.training))", ()),
            ("rate of its own, F.dropout(h, 0.75, training)", FFN,
             "self.w_2(F.dropout(torch.relu(self.w_1(x)), 0.75, self.training))", ()),
            ("dropout on the input", FFN, "self.w_2(torch.relu(self.w_1(self.dropout(x))))", {"ffn-dropout-misplaced"}),
            ("dropout on w_2's output", FFN, "self.dropout(self.w_2(torch.relu(self.w_1(x))))", {"ffn-dropout-misplaced"}),
            ("dropout on the hidden activations and on w_2's output", FFN,
             "self.dropout(self.w_2(self.dropout(torch.relu(self.w_1(x)))))", {"ffn-dropout-misplaced"}),
            ("dropout twice on the hidden activations", FFN,
             "self.w_2(self.dropout(self.dropout(torch.relu(self.w_1(x)))))", {"ffn-dropout-twice"}),
            # the module, then F.dropout at the rate the check sets on the module: dropout is applied twice
            ("the dropout module, then F.dropout(h, 0.5, training)", FFN,
             "self.w_2(F.dropout(self.dropout(torch.relu(self.w_1(x))), 0.5, self.training))", {"ffn-dropout-twice"}),
            ("an extra nn.Dropout(0.5) built in forward after the dropout module", FFN,
             "self.w_2(nn.Dropout(0.5)(self.dropout(torch.relu(self.w_1(x)))))", ()),
        ])


def _weights_returned(unit):
    name = f"{unit}: the weights returned with a dropout module"
    answers = _operators(name, unit, ("swap-names", "axis", "result-order", "drop-call", "double-call", "mask"),
                         keep=lambda change: any(w in change for w in ("softmax", "dropout", "dropped", "masked_fill")),
                         causes_of=lambda change: ())
    answers = [a for a in answers if "return dropped @ value, dropped" not in a.source]
    return answers + _edits(name, unit, [
        ("returns the dropped weights", SDPA_RETURN, "return dropped @ value, dropped", {"weights-after-dropout"}),
        ("the mask applied after the softmax", "weights = _masked_softmax(scores, mask)",
         "weights = scores.softmax(dim=-1)\n    weights = weights.masked_fill(~mask, 0.0) if mask is not None else weights"
         if unit == "scaled_dot_product_attention" else
         "weights = scores.softmax(dim=-1)\n        weights = weights.masked_fill(~mask, 0.0) if mask is not None "
         "else weights", ()),
        ("the softmax over the queries", "weights = _masked_softmax(scores, mask)",
         "weights = scores.masked_fill(~mask, -1e9).softmax(dim=-2) if mask is not None else scores.softmax(dim=-2)", ()),
        ("dropout applied to the weights twice", "dropped = dropout(weights)", "dropped = dropout(dropout(weights))", ()),
        ("the weights renormalised after dropout", "dropped = dropout(weights)",
         "dropped = dropout(weights)\n" + (" " * (4 if unit == "scaled_dot_product_attention" else 8))
         + "dropped = dropped / dropped.sum(-1, keepdim=True) if dropout is not None else dropped", ()),
    ])


def _tgt_mask():
    name = "make_tgt_mask: [mask-tgt-missing-causal] and [mask-tgt-missing-pad]"
    both = "make_pad_mask(tgt, pad_idx) & make_subsequent_mask(tgt.size(-1), device=tgt.device)"

    def causes_of(change):
        return ()
    return _operators(name, "make_tgt_mask", ("mask", "drop-call", "swap-args"), keep=lambda change: True,
                      causes_of=causes_of, aspect="values") + _edits(name, "make_tgt_mask", [
        ("the padding mask alone", both, "make_pad_mask(tgt, pad_idx)", {"tgt-mask-blocks-padding"}),
        ("the padding mask alone, expanded to (B, 1, L, L)", both,
         "make_pad_mask(tgt, pad_idx).expand(-1, -1, tgt.size(-1), -1)", {"tgt-mask-blocks-padding"}),
        ("pad | causal", both, "make_pad_mask(tgt, pad_idx) | make_subsequent_mask(tgt.size(-1), device=tgt.device)", ()),
        ("pad | ~causal", both,
         "make_pad_mask(tgt, pad_idx) | ~make_subsequent_mask(tgt.size(-1), device=tgt.device)", ()),
        ("the causal mask alone", both, "make_subsequent_mask(tgt.size(-1), device=tgt.device)", ()),
    ], aspect="values")


def _embeddings():
    name = "Embeddings: [embed-no-scale]"
    scaled = "self.lut(tokens) * math.sqrt(self.d_model)"
    return _operators(name, "Embeddings", ("drop-call", "double-call", "power", "constant"), keep=lambda change: True,
                      causes_of=lambda change: {"embed-not-scaled"} if change.endswith("-> `return self.lut(tokens)`")
                      else (), aspect="values") + _edits(name, "Embeddings", [
        ("no scaling", scaled, "self.lut(tokens)", {"embed-not-scaled"}),
        ("scaled twice", scaled, "self.lut(tokens) * math.sqrt(self.d_model) * math.sqrt(self.d_model)", ()),
        ("multiplied by d_model", scaled, "self.lut(tokens) * self.d_model", ()),
        ("divided by √d_model", scaled, "self.lut(tokens) / math.sqrt(self.d_model)", {"embed-not-scaled"}),
    ], aspect="values")


# ------------------------------------------------------------------ the second round (issue 48): the dropout checks
# of PositionalEncoding, EncoderLayer, DecoderLayer, the multi-head modules and the attention functions' dropout case


def _dropout_operators(check_name, unit, causes_of, operators=("drop-call", "double-call"), aspect="properties"):
    return _operators(check_name, unit, operators, keep=lambda change: "dropout" in change, causes_of=causes_of,
                      aspect=aspect)


def _positional():
    name = "PositionalEncoding: dropout on the sum x + pe"
    sum_ = "self.dropout(x + self.pe[:, : x.size(1)])"
    return _dropout_operators(name, "PositionalEncoding", lambda change: {"pe-dropout-unused"} if change.endswith(
        "-> `return x + self.pe[:, :x.size(1)]`") else ()) + _edits(name, "PositionalEncoding", [
        ("rate of its own, F.dropout(s, 0.1, training)", sum_, "F.dropout(x + self.pe[:, : x.size(1)], 0.1, self.training)",
         ()),
        ("nn.Dropout() built in forward (p = 0.5)", sum_, "nn.Dropout()(x + self.pe[:, : x.size(1)])", ()),
        ("F.dropout(s, self.dropout.p) without training", sum_, "F.dropout(x + self.pe[:, : x.size(1)], self.dropout.p)",
         ()),
        ("dropout on x", sum_, "self.dropout(x) + self.pe[:, : x.size(1)]", {"pe-dropout-one-term"}),
        ("dropout on pe", sum_, "x + self.dropout(self.pe[:, : x.size(1)])", {"pe-dropout-one-term"}),
        ("F.dropout on x at the module's rate", sum_,
         "F.dropout(x, self.dropout.p, self.training) + self.pe[:, : x.size(1)]", {"pe-dropout-one-term"}),
        ("dropout on x, pe added twice", sum_, "self.dropout(x + self.pe[:, : x.size(1)]) + self.pe[:, : x.size(1)]", ()),
        ("dropout on x, then on the sum", sum_, "self.dropout(self.dropout(x) + self.pe[:, : x.size(1)])", ()),
        ("the table scaled by 2", sum_, "self.dropout(x + 2 * self.pe[:, : x.size(1)])", ()),
    ])


def _encoder_layer():
    name = "EncoderLayer: dropout1 and dropout2 on the sublayers' outputs"
    first = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)))"
    second = "return self.norm2(x + self.dropout2(self.ffn(x)))"

    def causes_of(change):
        if change.endswith("`x = self.norm1(x + self.self_attn(x, x, x, mask))`"):
            return {"enc-dropout1-unused", "enc-dropout-question"}
        if change.endswith("`return self.norm2(x + self.ffn(x))`"):
            return {"enc-dropout2-unused", "enc-dropout-question"}
        return ()
    misplaced = {"enc-dropout-misplaced", "enc-dropout-question"}
    return _dropout_operators(name, "EncoderLayer", causes_of) + _edits(name, "EncoderLayer", [
        ("dropout1 on x", first, "x = self.norm1(self.dropout1(x) + self.self_attn(x, x, x, mask))", misplaced),
        ("dropout1 on the sum", first, "x = self.norm1(self.dropout1(x + self.self_attn(x, x, x, mask)))", misplaced),
        ("dropout2 after the norm", second, "return self.dropout2(self.norm2(x + self.ffn(x)))", misplaced),
        ("dropout1 for both sublayers", second, "return self.norm2(x + self.dropout1(self.ffn(x)))", ()),
        ("rate of its own, F.dropout(attn, 0.1, training)", first,
         "x = self.norm1(x + F.dropout(self.self_attn(x, x, x, mask), 0.1, self.training))", ()),
        ("nn.Dropout() built in forward (p = 0.5)", second, "return self.norm2(x + nn.Dropout()(self.ffn(x)))", ()),
        ("an extra nn.Dropout(0.1) of its own on the ffn's input", second,
         "return self.norm2(x + self.dropout2(self.ffn(nn.Dropout(0.1)(x))))", ()),
    ]) + [Answer(name, "EncoderLayer", "neither dropout applied",
                 _edit("EncoderLayer", first + "\n        " + second,
                       "x = self.norm1(x + self.self_attn(x, x, x, mask))\n        return self.norm2(x + self.ffn(x))"),
                 frozenset({"enc-dropouts-unused", "enc-dropout-question"}))]


def _decoder_layer():
    name = "DecoderLayer: dropout=0.0 reaches every sublayer; dropout1-3 on the sublayers' outputs"
    first = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))"
    second = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))"
    third = "return self.norm3(x + self.dropout3(self.ffn(x)))"
    built = "self.self_attn = MultiHeadAttention(d_model, n_head, dropout)"
    ffn = "self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)"

    def causes_of(change):
        for number, line in ((1, "`x = self.norm1(x + self.self_attn(x, x, x, tgt_mask))`"),
                             (2, "`x = self.norm2(x + self.cross_attn(x, memory, memory, src_mask))`"),
                             (3, "`return self.norm3(x + self.ffn(x))`")):
            if change.endswith(line):
                return {f"dec-dropout{number}-unused"}
        return ()
    misplaced = {"dec-dropout-misplaced"}
    return _dropout_operators(name, "DecoderLayer", causes_of) + _edits(name, "DecoderLayer", [
        ("self_attn built without dropout", built, "self.self_attn = MultiHeadAttention(d_model, n_head)",
         {"dec-rate-not-passed"}),
        ("ffn built without dropout", ffn, "self.ffn = PositionwiseFeedForward(d_model, d_ff)", {"dec-rate-not-passed"}),
        ("ffn built with a hard-coded 0.1", ffn, "self.ffn = PositionwiseFeedForward(d_model, d_ff, 0.1)",
         {"dec-rate-not-passed"}),
        ("self_attn built with a hard-coded 0.2", built, "self.self_attn = MultiHeadAttention(d_model, n_head, 0.2)", ()),
        ("dropout3 replaced by F.dropout(out, 0.1, training)", third,
         "return self.norm3(x + F.dropout(self.ffn(x), 0.1, self.training))", ()),
        ("dropout1 for the cross-attention too", second,
         "x = self.norm2(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))", {"dec-dropout2-unused"}),
        ("dropout2 on x", second, "x = self.norm2(self.dropout2(x) + self.cross_attn(x, memory, memory, src_mask))",
         misplaced),
        ("dropout3 after the norm", third, "return self.dropout3(self.norm3(x + self.ffn(x)))", misplaced),
        ("dropout1 on the sum", first, "x = self.norm1(self.dropout1(x + self.self_attn(x, x, x, tgt_mask)))", misplaced),
        ("dropout2 twice", second,
         "x = self.norm2(x + self.dropout2(self.dropout2(self.cross_attn(x, memory, memory, src_mask))))", ()),
    ])


def _multi_head():
    name = "MultiHeadAttention: self.dropout on the weights only; self.attn before dropout"
    attend = "return scaled_dot_product_attention(q, k, v, mask, self.dropout)"
    forward = "out, self.attn = self.attend(q, k, v, mask)  # (B, h, L_q, d_k)\n        return self.w_o(merge_heads(out))"
    return _edits(name, "MultiHeadAttention", [
        ("no dropout handed to the attention", attend, "return scaled_dot_product_attention(q, k, v, mask)",
         {"mha-dropout-unused", "mha-dropout-question"}),
        ("None handed to the attention", attend, "return scaled_dot_product_attention(q, k, v, mask, None)",
         {"mha-dropout-unused", "mha-dropout-question"}),
        ("nn.Dropout(0.1) built in forward", attend,
         "return scaled_dot_product_attention(q, k, v, mask, nn.Dropout(0.1))", ()),
        ("F.dropout at a rate of its own", attend,
         "return scaled_dot_product_attention(q, k, v, mask, lambda w: F.dropout(w, 0.1, self.training))", ()),
        # a dropout on the heads' output leaves w_o's bias under p = 1: the property cannot see it (no cause)
        ("dropout on the weights and on the heads' output", forward,
         "out, self.attn = self.attend(q, k, v, mask)\n        return self.w_o(self.dropout(merge_heads(out)))", ()),
        ("self.attn dropped again", forward,
         "out, weights = self.attend(q, k, v, mask)\n        self.attn = self.dropout(weights)\n"
         "        return self.w_o(merge_heads(out))", {"kept-dropped"}),
        ("self.attn halved", forward,
         "out, weights = self.attend(q, k, v, mask)\n        self.attn = weights / 2\n"
         "        return self.w_o(merge_heads(out))", ()),
        ("dropout on the query", "q = split_heads(self.w_q(query), self.n_head)",
         "q = split_heads(self.w_q(self.dropout(query)), self.n_head)", ()),
    ]) + [Answer(name, "MultiHeadAttention", "dropout on the heads' output only (unseen: w_o's bias under p = 1)",
                 _edit("MultiHeadAttention", attend, "return scaled_dot_product_attention(q, k, v, mask)").replace(
                     "return self.w_o(merge_heads(out))", "return self.w_o(self.dropout(merge_heads(out)))"))]


def _additive_multi_head():
    name = "AdditiveMultiHeadAttention: self.dropout given to self.score"
    attend = "return self.score(q, k, v, mask, self.dropout)"
    return _dropout_operators(name, "AdditiveMultiHeadAttention", lambda change: (), operators=("swap-args",))[3:5] + _edits(
        name, "AdditiveMultiHeadAttention", [
            ("no dropout given to self.score", attend, "return self.score(q, k, v, mask)", {"amha-dropout-unused"}),
            ("None given to self.score", attend, "return self.score(q, k, v, mask, None)", {"amha-dropout-unused"}),
            ("dropout on the heads' output only", attend,
             "out, weights = self.score(q, k, v, mask)\n        return self.dropout(out), weights",
             {"amha-dropout-on-heads-output"}),
            ("dropout on the weights and on the heads' output", attend,
             "out, weights = self.score(q, k, v, mask, self.dropout)\n        return self.dropout(out), weights", ()),
            ("nn.Dropout(0.1) built in forward", attend, "return self.score(q, k, v, mask, nn.Dropout(0.1))", ()),
            ("the dropped weights kept", attend,
             "out, weights = self.score(q, k, v, mask, self.dropout)\n        return out, self.dropout(weights)",
             {"kept-dropped"}),
            # its own random draw: no knob of the reference reproduces it, so no cause is said (true as it would be)
            ("dropout on the heads' output at a rate of its own", attend,
             "out, weights = self.score(q, k, v, mask)\n        return F.dropout(out, 0.1, self.training), weights", ()),
        ])


def _dropout_case(unit):
    name = f"{unit}: the output with a dropout module (values)"
    pad = " " * (4 if unit == "scaled_dot_product_attention" else 8)
    line = "dropped = dropout(weights) if dropout is not None else weights"
    both = line + "\n" + pad + "return dropped @ value, weights"
    return _edits(name, unit, [
        ("dropout never applied", line, "dropped = weights", {"attn-dropout-unused", "attn-dropout-question"}),
        ("dropout applied twice", line, "dropped = dropout(dropout(weights)) if dropout is not None else weights",
         {"attn-dropout-twice", "attn-dropout-question"}),
        ("dropout on the output", both, "out = weights @ value\n" + pad
         + "return (dropout(out) if dropout is not None else out), weights", {"attn-dropout-elsewhere",
                                                                              "attn-dropout-question"}),
        ("dropout on the values", both, "return weights @ (dropout(value) if dropout is not None else value), weights",
         {"attn-dropout-elsewhere", "attn-dropout-question"}),
        ("dropout on the scores", "weights = _masked_softmax(scores, mask)",
         "weights = _masked_softmax(dropout(scores) if dropout is not None else scores, mask)", ()),
        ("rate of its own, F.dropout(w, 0.1)", line, "dropped = F.dropout(weights, 0.1) if dropout is not None else weights",
         ()),
        ("renormalised after dropout", line, line + "\n" + pad + "dropped = dropped / dropped.sum(-1, keepdim=True)",
         ()),
        ("weights doubled before dropout", line, "dropped = dropout(2 * weights) if dropout is not None else weights", ()),
    ], aspect="values")


def _decoder_masks():
    name = "DecoderLayer and Decoder: tgt_mask reaches the self-attention, src_mask the cross-attention"
    first = "self.self_attn(x, x, x, tgt_mask)"
    second = "self.cross_attn(x, memory, memory, src_mask)"
    start = "x = self.norm1("
    layer = _edits(name, "DecoderLayer", [
        ("self-attention without a mask", first, "self.self_attn(x, x, x)", {"tgt-mask-missing"}),
        ("self-attention with None", first, "self.self_attn(x, x, x, None)", {"tgt-mask-missing"}),
        ("the target mask inverted", first, "self.self_attn(x, x, x, ~tgt_mask if tgt_mask is not None else None)", ()),
        ("an extra mean over the positions", start, "x = x + x.mean(dim=1, keepdim=True)\n        x = self.norm1(", ()),
        ("nn.Dropout() built in forward on the ffn's output", "self.dropout3(self.ffn(x))",
         "nn.Dropout()(self.ffn(x))", ()),
        ("cross-attention without a mask", second, "self.cross_attn(x, memory, memory)", {"src-mask-missing"}),
        ("the source mask inverted", second,
         "self.cross_attn(x, memory, memory, ~src_mask if src_mask is not None else None)", ()),
        ("memory's mean added to x", start, "x = x + memory.mean(dim=1, keepdim=True)\n        x = self.norm1(", ()),
    ])
    call = "x = layer(x, memory, src_mask, tgt_mask)"
    stack = _edits(name, "Decoder", [
        ("no target mask passed on", call, "x = layer(x, memory, src_mask)", {"tgt-mask-missing"}),
        ("no source mask passed on", call, "x = layer(x, memory, None, tgt_mask)", {"src-mask-missing"}),
        ("an extra mean over the positions", call, "x = layer(x + x.mean(dim=1, keepdim=True), memory, src_mask, tgt_mask)",
         ()),
        ("memory's mean added to x", call, "x = layer(x + memory.mean(dim=1, keepdim=True), memory, src_mask, tgt_mask)",
         ()),
    ])
    return layer + stack


def second_round():
    """The answers made for the second round of issue 48: checks no earlier answer reached."""
    return (*_positional(), *_encoder_layer(), *_decoder_layer(), *_multi_head(), *_additive_multi_head(),
            *_dropout_case("scaled_dot_product_attention"), *_dropout_case("AdditiveAttention"), *_decoder_masks())


# ------------------------------------------------------------------ the third round (issue 48): the rate, the stacks'
# layers, the generator, the Transformer's dropout and target embedding, greedy decoding


def _noam_causes(change):
    if "d_model ** 0.5 *" in change:
        return {"noam-d-model-too-large"}
    # a warm-up term that is the decay term again, or never the smaller one: the rates are the decay alone
    if change.endswith(("step * step ** (-1.5))`", "step * warmup)`", "step * warmup ** 1.5)`")):
        return {"noam-no-warmup"}
    return ()


def _noam():
    name = "noam_rate: the schedule (lookalikes: the larger term, d_model times too large; [noam-no-warmup])"
    both = "min(step**-0.5, step * warmup**-1.5)"
    values = _operators(name, "noam_rate", ("swap-args", "swap-names", "power", "constant"), keep=lambda change: True,
                        causes_of=_noam_causes, aspect="values") + _edits(name, "noam_rate", [
        ("max for min", both, "max(step**-0.5, step * warmup**-1.5)", {"noam-larger-term"}),
        ("d_model ** 0.5", "d_model**-0.5", "d_model**0.5", {"noam-d-model-too-large"}),
        ("no warm-up: the decay alone", both, "step**-0.5", {"noam-no-warmup"}),
        ("the warm-up term alone", both, "step * warmup**-1.5", ()),
        ("twice the larger term", both, "2 * max(step**-0.5, step * warmup**-1.5)", ()),
        ("max for min and d_model ** 0.5", "d_model**-0.5 * " + both, "d_model**0.5 * max(step**-0.5, step * warmup**-1.5)",
         ()),
        ("d_model ** -1", "d_model**-0.5", "d_model**-1", ()),
        ("the decay alone, times 2", both, "2 * step**-0.5", ()),
        ("warmup ** -0.5 in the warm-up term", both, "min(step**-0.5, step * warmup**-0.5)", ()),
    ], aspect="values")
    step_zero = _edits("noam_rate: step 0 is step 1", "noam_rate", [
        ("no step-0 guard: 0 ** -0.5", "step = max(step, 1)\n    ", "", {"noam-zero-division"}),
        ("no step-0 guard: 1 / step ** 0.5", "step = max(step, 1)\n    return factor * d_model**-0.5 * min(step**-0.5,",
         "return factor * d_model**-0.5 * min(1 / step**0.5,", ()),
        ("no step-0 guard: warmup / step in the decay",
         "step = max(step, 1)\n    return factor * d_model**-0.5 * min(step**-0.5,",
         "return factor * d_model**-0.5 * min(warmup / step / warmup * step**0.5,", ()),
    ])
    return values + step_zero


def _stacks():
    answers_ = []
    for unit, layer, call in (("Encoder", "EncoderLayer", "x = layer(x, mask)"),
                              ("Decoder", "DecoderLayer", "x = layer(x, memory, src_mask, tgt_mask)")):
        name = f"{unit}: n_layers independent layer objects in `layers`"
        built = f"nn.ModuleList({layer}(d_model, n_head, d_ff, dropout) for _ in range(n_layers))"
        loop = f"for layer in self.layers:\n            {call}"
        answers_ += _edits(name, unit, [
            ("one layer object repeated", built, f"nn.ModuleList([{layer}(d_model, n_head, d_ff, dropout)] * n_layers)",
             {"stack-repeats-one-layer"}),
            ("the first layer run n_layers times", loop, "for _ in self.layers:\n            "
             + call.replace("layer(", "self.layers[0]("), ()),
            ("one feed-forward shared by every layer", built, built + "\n        for layer in self.layers[1:]:\n"
             "            layer.ffn = self.layers[0].ffn", ()),
            ("a Python list of layers", built, f"[{layer}(d_model, n_head, d_ff, dropout) for _ in range(n_layers)]", ()),
            ("n_layers - 1 layers", built, built.replace("range(n_layers)", "range(n_layers - 1)"), ()),
            ("the last layer run twice", loop, loop + "\n        x = self.layers[-1](" + call.split("layer(")[1], ()),
        ])
    return answers_


def _generator():
    name = "Generator: log-probabilities, finite for confident logits"
    line = "F.log_softmax(self.proj(x), dim=-1)"
    return _operators(name, "Generator", ("drop-call", "double-call", "axis"), keep=lambda change: True,
                      causes_of=lambda change: ()) + _edits(name, "Generator", [
        ("the log of the softmax", line, "torch.log(F.softmax(self.proj(x), dim=-1))", {"gen-probabilities-first"}),
        ("softmax, then .log()", line, "self.proj(x).softmax(dim=-1).log()", {"gen-probabilities-first"}),
        ("log-sum-exp without the largest logit subtracted", line,
         "self.proj(x) - self.proj(x).exp().sum(dim=-1, keepdim=True).log()", ()),
        ("exp over its sum, then the log", line,
         "(self.proj(x).exp() / self.proj(x).exp().sum(dim=-1, keepdim=True)).log()", ()),
        ("the log of the softmax, clamped at 1e-12", line, "torch.log(F.softmax(self.proj(x), dim=-1).clamp_min(1e-12))", ()),
        # exp of the log-probabilities is the probabilities: formed first, then their log
        ("log_softmax, then a log of its exp", line, "torch.log(torch.exp(F.log_softmax(self.proj(x), dim=-1)))",
         {"gen-probabilities-first"}),
    ])


def _transformer():
    name = "Transformer: `dropout` reaches every part; decode reads the target through tgt_embed"
    src_pe = "nn.Sequential(Embeddings(src_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))"
    encoder = "Encoder(d_model, n_head, d_ff, n_layers, dropout)"
    decoder = "Decoder(d_model, n_head, d_ff, n_layers, dropout)"
    decode = "self.decoder(self.tgt_embed(tgt),"
    rate = {"tf-rate-not-passed"}
    return _edits(name, "Transformer", [
        ("src_embed's positional encoding without dropout", src_pe, src_pe.replace("max_len, dropout", "max_len"), rate),
        ("the encoder without dropout", encoder, "Encoder(d_model, n_head, d_ff, n_layers)", rate),
        ("the decoder with a hard-coded 0.1", decoder, "Decoder(d_model, n_head, d_ff, n_layers, 0.1)", rate),
        ("the decoder with a hard-coded 0.2", decoder, "Decoder(d_model, n_head, d_ff, n_layers, 0.2)", ()),
        # a dropout at 0.1 where tgt_embed's positional encoding drops: the sentence says where, not how it was built
        ("an extra F.dropout(0.1) on the decoder's input", decode,
         "self.decoder(F.dropout(self.tgt_embed(tgt), 0.1, self.training),", rate),
        ("the encoder's output dropped at 0.1 in encode", "return self.encoder(self.src_embed(src), src_mask)",
         "return F.dropout(self.encoder(self.src_embed(src), src_mask), 0.1, self.training)", ()),
        ("every part built with dropout 0.0", "super().__init__()\n", "super().__init__()\n        dropout = 0.0\n",
         {"tf-dropout-reaches-none"}),
        ("the target embedded with src_embed", decode, "self.decoder(self.src_embed(tgt),", {"tgt-embedded-with-src"}),
        ("src_embed(tgt) added to tgt_embed(tgt)", decode, "self.decoder(self.tgt_embed(tgt) + self.src_embed(tgt),", ()),
        ("the decoder reads the memory's mean, not the target", decode,
         "self.decoder(memory.mean(dim=1, keepdim=True).expand(-1, tgt.size(1), -1),", ()),
    ])


def _greedy():
    name = "greedy_decode: feeds back everything so far, the last position, through the generator"
    read = "ys, make_subsequent_mask(ys.size(1), device=src.device)"

    def causes_of(change):
        # the stand-in model's generator reverses the features: applied twice it gives back the decoder's output, so
        # those tokens are the argmax of the decoder's output itself (what the sentence says of the results)
        if "next_token = out[:, -1].argmax(dim=-1, keepdim=True)" in change or "model.generator(model.generator(" in change:
            return {"greedy-no-generator"}
        if "out[:, -0]" in change:
            return {"greedy-first-position"}
        return ()
    return _operators(name, "greedy_decode", ("swap-args", "drop-call", "double-call", "axis", "constant", "mask"),
                      keep=lambda change: True, causes_of=causes_of, aspect="values") + _edits(name, "greedy_decode", [
        ("decodes the newest token alone", read, "ys[:, -1:], make_subsequent_mask(1, device=src.device)",
         {"greedy-newest-only"}),
        ("decodes the start token alone", read, "ys[:, :1], make_subsequent_mask(1, device=src.device)",
         {"greedy-no-feedback"}),
        ("decodes the last two tokens", read,
         "ys[:, -2:], make_subsequent_mask(min(2, ys.size(1)), device=src.device)", ()),
        ("reads the first position", "model.generator(out[:, -1])", "model.generator(out[:, 0])",
         {"greedy-first-position"}),
        ("reads the mean over the positions", "model.generator(out[:, -1])", "model.generator(out.mean(dim=1))", ()),
        # a softmax keeps the argmax: the tokens are the argmax of the decoder's output itself
        ("the argmax of the decoder's last output, softmaxed", "model.generator(out[:, -1])", "out[:, -1].softmax(dim=-1)",
         {"greedy-no-generator"}),
        ("no causal mask given to decode", read, "ys, None", ()),
    ], aspect="values")


def third_round():
    """The answers made for the third round of issue 48: the rate, the stacks' layers, the generator, the Transformer
    and greedy decoding."""
    return (*_noam(), *_stacks(), *_generator(), *_transformer(), *_greedy())


@cache
def answers():
    """Every generated answer, check by check."""
    return (*_addnorm(), *_ffn(), *_weights_returned("scaled_dot_product_attention"),
            *_weights_returned("AdditiveAttention"), *_tgt_mask(), *_embeddings(), *second_round(), *third_round())


def message(answer):
    """The hidden check's message on the answer's aspect ('' when it passes, 'not built: ...' when it cannot run)."""
    try:
        candidate = answer.build()
    except Exception as error:  # noqa: BLE001 - an edit that is not valid code
        return f"not built: {type(error).__name__}: {error}"
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            check(answer.unit, candidate, answer.aspect)
        except CheckFailure as failure:
            return str(failure)
    return ""


def visible_message(answer):
    """The visible check's message on the answer (learner_kit.visible.visible_problem: the stored cases and the
    `dropout` argument; the notebooks' own checks are not run here): '' when it passes."""
    from learner_kit.visible import visible_problem

    try:
        candidate = answer.build()
    except Exception as error:  # noqa: BLE001 - an edit that is not valid code
        return f"not built: {type(error).__name__}: {error}"
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            return visible_problem(answer.unit, candidate)
        except ValueError:  # no visible checks for the unit
            return ""


def false_causes(answer, text):
    """The causes a message states that are not true of the answer."""
    return printed_causes(text) - answer.causes


GENERIC = ("wrong-values", "nan", "shape", "runtime-error", "property-violated", "wrong-gradients", "wrong-interface")


def _named(text):
    """Whether a message names a known mistake (its id is not a symptom's)."""
    found = re.match(r"\[([\w-]+)\]", text or "")
    return bool(found) and found.group(1) not in GENERIC


def _is_located(text):
    try:
        from learner_kit.locate import is_located
    except ImportError:
        return "Where it parts from the reference" in text
    return any(is_located(line) for line in text.splitlines())


def table(out=sys.stdout, chosen=None, verbose=True, side=None):
    """The cause-guess table: per check, its answers, how many failed, and of those how many got a true cause, the
    observation only (located: with where the computation parts from the reference), or a false cause. `side`:
    the hidden checks' messages (message, the default) or the visible ones' (visible_message)."""
    rows = {}
    side = side or message
    for answer in chosen if chosen is not None else answers():
        text = side(answer)
        row = rows.setdefault(answer.check, {"answers": 0, "failed": 0, "named": 0, "cause": 0, "observed": 0,
                                             "located": 0, "false": 0, "labels": []})
        row["answers"] += 1
        failed = bool(text) and not text.startswith("not built")
        row["failed"] += failed
        wrong = false_causes(answer, text)
        right = printed_causes(text) & answer.causes
        row["false"] += bool(wrong)
        row["cause"] += bool(right) and not wrong
        row["observed"] += failed and not right and not wrong
        row["located"] += failed and not right and not wrong and _is_located(text)
        row["named"] += failed and _named(text)
        row["labels"].append((answer.label, sorted(answer.causes), sorted(printed_causes(text)), sorted(wrong),
                              (text.splitlines() or [""])[0][:90]))
    total = {key: sum(row[key] for row in rows.values())
             for key in ("answers", "failed", "named", "cause", "observed", "located", "false")}
    for name, row in rows.items():
        print(f"{name}: {row['answers']} answers, {row['failed']} failed ({row['named']} named): {row['cause']} true cause, "
              f"{row['observed']} observation only ({row['located']} located), {row['false']} false cause", file=out)
        for label, true, printed, wrong, first in row["labels"] if verbose else ():
            mark = "FALSE " if wrong else "      "
            print(f"   {mark}{label[:90]:<90} true {true} printed {printed}  | {first}", file=out)
    print(f"all: {total['answers']} answers, {total['failed']} failed ({total['named']} named): {total['cause']} true cause, "
          f"{total['observed']} "
          f"observation only ({total['located']} located), {total['false']} false cause", file=out)
    return rows


if __name__ == "__main__":
    table(chosen=second_round() if "--second-round" in sys.argv else third_round() if "--third-round" in sys.argv
          else None, verbose="--quiet" not in sys.argv,
          side=visible_message if "--visible" in sys.argv else message)
    sys.exit(0)


__all__ = ["Answer", "CAUSES", "answers", "false_causes", "message", "printed_causes", "second_round", "table", "third_round", "visible_message", "re"]
