"""A property check says what it observed, and a cause only where a knob of the reference proves it (issue 48).

tests/cause_mutants.py makes, for every check that can print a cause (AddNorm's and the FFN's dropout properties,
the weights an attention returns with a dropout module, the first lines of [mask-tgt-missing-causal] and
[embed-no-scale]; in the second round the dropout properties of PositionalEncoding, EncoderLayer, DecoderLayer and
the multi-head modules, the attention functions' dropout case, and the decoder's mask properties; in the third the
rate's lookalikes and step 0, the stacks' layers, the generator's finite log-probabilities, the Transformer's dropout
and target embedding, greedy decoding's lookalikes), wrong answers that break the same property in other ways: a rate of the learner's own, a dropout
module built inside forward, `|` for `&`, a step done twice or left out, dropout on another term. Each answer
carries the causes true of it; a message may state no other. An answer whose cause a knob has still hears it.
"""
from functools import cache

import pytest

from autograder.checks import UNITS
from autograder.checks.causes import Observed
from learner_kit.i18n import speaking
from tests.cause_mutants import CAUSES, answers, false_causes, printed_causes
from tests.cause_mutants import message as _message
from learner_kit.i18n import language


@cache
def _cached(answer, lang):
    return _message(answer)


def message(answer):
    """The hidden check's message on the answer, once per answer and language."""
    return _cached(answer, language())

# causes a property states once a knob reproduces the learner's results (the rest are first lines of named
# mistakes, whose sentences are now true of every variant that names them)
PROVEN = {"addnorm-dropout-unused", "addnorm-dropout-misplaced", "ffn-dropout-always-on", "ffn-dropout-unused",
          "ffn-dropout-misplaced", "ffn-dropout-twice", "weights-after-dropout",
          # the second round: PositionalEncoding, EncoderLayer, DecoderLayer, the multi-head modules, the attention
          # functions' dropout case (core._dropout_problem)
          "pe-dropout-unused", "pe-dropout-one-term", "enc-dropout1-unused", "enc-dropout2-unused", "enc-dropouts-unused",
          "enc-dropout-misplaced", "dec-rate-not-passed", "dec-dropout1-unused", "dec-dropout2-unused",
          "dec-dropout3-unused", "dec-dropout-misplaced", "mha-dropout-unused", "kept-dropped", "amha-dropout-unused",
          "amha-dropout-on-heads-output", "attn-dropout-twice", "attn-dropout-elsewhere", "attn-dropout-unused",
          "tgt-mask-missing", "src-mask-missing",
          # the third round: the generator's log of probabilities, the Transformer's rates (knobs); the rate's and greedy
          # decoding's lookalikes and named mistakes (knobs, as before); the stacks' repeated layer (seen directly)
          "gen-probabilities-first", "tf-rate-not-passed", "noam-larger-term", "noam-d-model-too-large", "noam-no-warmup",
          "greedy-newest-only", "greedy-first-position", "greedy-no-generator", "greedy-no-feedback",
          "stack-repeats-one-layer", "tgt-embedded-with-src"}


def _failing():
    return [pytest.param(a, id=f"{a.unit}-{a.label[:70]}") for a in answers()]


@pytest.mark.parametrize("answer", _failing())
def test_a_message_states_no_cause_the_answer_does_not_have(answer):
    text = message(answer)
    assert not false_causes(answer, text), (answer.label, text)


@pytest.mark.parametrize("answer", [pytest.param(a, id=f"{a.unit}-{a.label[:70]}") for a in answers()
                                    if a.causes & PROVEN])
def test_a_cause_a_knob_reproduces_is_still_said(answer):
    text = message(answer)
    assert answer.causes & PROVEN <= printed_causes(text), (answer.label, text)


def test_every_check_that_can_print_a_cause_has_answers_with_and_without_it():
    """Each cause is met by an answer that has it and by one that breaks the same property another way."""
    by_check = {}
    for answer in answers():
        by_check.setdefault(answer.check, []).append(answer)
    for cause in CAUSES:
        checks = [name for name, found in by_check.items() if any(cause in a.causes for a in found)]
        assert checks, cause
        assert any(not (a.causes & {cause}) and a.aspect == by_check[checks[0]][0].aspect
                   for a in by_check[checks[0]]), cause


def test_the_sentences_named_in_the_issue_are_gone_where_untrue():
    """The issue's cases, one by one: each gets the observation and no cause."""
    cases = {
        ("AddNorm", "rate of its own, F.dropout(s, 0.1)"): "Is dropout applied to x",
        ("PositionwiseFeedForward", "nn.Dropout() built in forward (p = 0.5)"): "F.dropout(h, p)",
        ("make_tgt_mask", "pad | causal"): "blocks padding",
        ("Embeddings", "scaled twice"): "not multiplied",
        # the second round
        ("PositionalEncoding", "rate of its own, F.dropout(s, 0.1, training)"): "one of the two terms",
        ("EncoderLayer", "rate of its own, F.dropout(attn, 0.1, training)"): "Are dropout1 and dropout2 applied",
        ("DecoderLayer", "self_attn built with a hard-coded 0.2"): "pass `dropout` on",
        ("DecoderLayer", "dropout3 replaced by F.dropout(out, 0.1, training)"): "pass `dropout` on",
        ("MultiHeadAttention", "nn.Dropout(0.1) built in forward"): "self.dropout",
        ("MultiHeadAttention", "self.attn halved"): "before dropout",
        ("AdditiveMultiHeadAttention", "nn.Dropout(0.1) built in forward"): "self.dropout",
        ("scaled_dot_product_attention", "renormalised after dropout"): "Is dropout applied to the weights",
        ("AdditiveAttention", "rate of its own, F.dropout(w, 0.1)"): "Is dropout applied to the weights",
        ("DecoderLayer", "an extra mean over the positions"): "must reach the masked self-attention",
        ("Decoder", "memory's mean added to x"): "src_mask must reach",
    }
    found = {(a.unit, a.label): a for a in answers()}
    for key, untrue in cases.items():
        text = message(found[key])
        assert text and untrue not in text, (key, text)


def test_the_third_rounds_unproven_causes_are_gone():
    """The rate, the generator and the Transformer: answers that break a property another way than the sentence says
    get the observation (the old sentences named a cause each of these does not have)."""
    cases = {
        ("noam_rate", "no step-0 guard: 1 / step ** 0.5"): "0 ** -0.5 divides by zero",
        ("noam_rate", "no step-0 guard: warmup / step in the decay"): "0 ** -0.5 divides by zero",
        ("Generator", "exp over its sum, then the log"): "probabilities first",
        ("Generator", "log-sum-exp without the largest logit subtracted"): "probabilities first",
        ("Transformer", "the decoder with a hard-coded 0.2"): "0.1",
        ("Transformer", "the encoder's output dropped at 0.1 in encode"): "the `dropout` argument",
        ("Transformer", "src_embed(tgt) added to tgt_embed(tgt)"): "embedded with src_embed",
        ("Transformer", "the decoder reads the memory's mean, not the target"): "embedded with src_embed",
    }
    found = {(a.unit, a.label): a for a in answers()}
    for key, untrue in cases.items():
        text = message(found[key])
        assert text and untrue not in text, (key, text)


def test_a_proven_cause_of_the_third_round_speaks_korean():
    proven = next(a for a in answers() if a.unit == "Generator" and a.label == "the log of the softmax")
    unproven = next(a for a in answers() if a.unit == "Generator" and a.label == "exp over its sum, then the log")
    rate = next(a for a in answers() if a.unit == "Transformer" and a.label == "the encoder without dropout")
    with speaking("ko"):
        proven_text, unproven_text, rate_text = message(proven), message(unproven), message(rate)
    assert "확률을 먼저 만든 뒤 그 로그를 취하는" in proven_text, proven_text
    assert "확신도가 높은 로짓" in unproven_text and "먼저 만든" not in unproven_text, unproven_text
    assert "자기 비율(기본값 0.1)로 드롭아웃하는 Transformer" in rate_text, rate_text


def test_an_unproven_cause_leaves_the_observation_in_korean_too():
    answer = next(a for a in answers() if a.unit == "AddNorm" and a.label == "rate of its own, F.dropout(s, 0.1)")
    proven = next(a for a in answers() if a.unit == "AddNorm" and a.label == "dropout on x")
    with speaking("ko"):
        unproven_text, proven_text = message(answer), message(proven)
    assert "AddNorm(x, 0)" in unproven_text and "다른 항" not in unproven_text, unproven_text
    assert "다른 항" in proven_text, proven_text


def test_a_property_that_knows_causes_returns_its_observation_alone():
    """What a property returns is the observation and the causes it may have; the checker adds a cause's sentence
    only when a knob proves it (autograder/checks/causes.py)."""
    from autograder.checks import norm
    from learner_kit import harness

    answer = next(a for a in answers() if a.unit == "AddNorm" and a.label == "dropout on x")
    spec = UNITS["AddNorm"]
    case = spec.cases["properties"]()[0]
    found = norm._dropout_on_sublayer_out(harness.run(answer.build(), spec.build_call(), case), case)
    assert isinstance(found, Observed) and found.causes, found
    assert not printed_causes(found), found


def test_a_proven_cause_of_the_second_round_speaks_korean():
    """A cause a knob proves, and the observation it follows, in Korean; the particle after dropout{number} agrees."""
    answer = next(a for a in answers() if a.unit == "DecoderLayer" and a.label == "dropout1 for the cross-attention too")
    unproven = next(a for a in answers() if a.unit == "DecoderLayer" and a.label == "self_attn built with a hard-coded 0.2")
    with speaking("ko"):
        text, observed = message(answer), message(unproven)
    assert "dropout2를 한 번도 적용하지 않는 DecoderLayer" in text, text
    assert "학습 모드와 평가 모드에서 다른 출력" in observed and "넘겨 주세요" not in observed, observed
