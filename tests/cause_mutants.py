"""Wrong answers that break a checked property in several ways, each with the causes that are true of it (issue 48).

A property check that sees a symptom may say a cause ("dropout is applied twice"), and a named mistake's first line
says one too ("The target mask blocks padding but not the future."). For every check that can print a cause, this
module makes wrong answers that break the same property in other ways: another order of arguments, another rate,
`|` for `&`, a step done twice, an extra module, the step in another place. Most come from the learner-style
generator's operators (tests/mutants/learner_style.py: drop-call, double-call, mask, swap-args, axis, constant) run
on the reference's source and kept where they touch the property; the rest are written out as edits of the
reference's source (a rate of the learner's own, a dropout module built inside forward, dropout on another term).

Each answer carries the keys of the causes true of it (CAUSES: key -> the words that say it). Only an answer whose
cause is the one a sentence names may get that sentence: tests/test_cause_sentences.py holds the checks to it.

    python -m tests.cause_mutants        the table: per check, its answers and the causes printed
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
    # named mistakes' first lines
    "tgt-mask-blocks-padding": ("The target mask blocks padding but not the future.",),
    "embed-not-scaled": ("The embeddings are not multiplied by √d_model.",),
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


@cache
def answers():
    """Every generated answer, check by check."""
    return (*_addnorm(), *_ffn(), *_weights_returned("scaled_dot_product_attention"),
            *_weights_returned("AdditiveAttention"), *_tgt_mask(), *_embeddings())


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


def false_causes(answer, text):
    """The causes a message states that are not true of the answer."""
    return printed_causes(text) - answer.causes


def table(out=sys.stdout):
    """Per check: its answers, how many got a cause, how many a false one."""
    rows = {}
    for answer in answers():
        text = message(answer)
        row = rows.setdefault(answer.check, {"answers": 0, "failed": 0, "cause": 0, "false": 0, "labels": []})
        row["answers"] += 1
        row["failed"] += bool(text) and not text.startswith("not built")
        row["cause"] += bool(printed_causes(text) & answer.causes)
        wrong = false_causes(answer, text)
        row["false"] += bool(wrong)
        row["labels"].append((answer.label, sorted(answer.causes), sorted(printed_causes(text)), sorted(wrong),
                              (text.splitlines() or [""])[0][:90]))
    for name, row in rows.items():
        print(f"{name}: {row['answers']} answers, {row['failed']} failed, {row['cause']} right cause, "
              f"{row['false']} false cause", file=out)
        for label, true, printed, wrong, first in row["labels"]:
            mark = "FALSE " if wrong else "      "
            print(f"   {mark}{label[:90]:<90} true {true} printed {printed}  | {first}", file=out)
    return rows


if __name__ == "__main__":
    table()
    sys.exit(0)


__all__ = ["Answer", "CAUSES", "answers", "false_causes", "message", "printed_causes", "table", "re"]
