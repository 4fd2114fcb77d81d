"""A location names the reference's step as the exercise names it, in English and in Korean (issue 48).

Where no known mistake explains a wrong answer, its message says where the learner's computation parts from the
reference's (learner_kit.locate). That place used to be told in the reference's operators ("the reference's
division of a part or view of its matrix product (shape (2, 4, 3, 5))"); it is now told by the step's name in the
exercise's formula or shape table (learner_kit.steps: "the scores divided by √d_k"), and with the shapes of the
one case the message names, as the learner's code holds them (a 4-D `@` runs as a `bmm` on folded (8, 3, 6)
operands, a shape no learner wrote). The wrong answers are learner-style mutants (tests/mutants/learner_style.py),
one or more per exercise whose hidden values check ends in a location; each message is checked in both languages:

- it names the labelled step, in the words the notebook uses (the expected words below);
- it has no phrase of the old kind ("the reference's division", "its matrix product", "(none)");
- every shape it quotes fits the case the message names (no folded batch-and-head axis);
- the Korean one says shape (GLOSSARY.md: never 모양), never 배치 (batch) for an arrangement, never "(없음)", and
  keeps no particle undecided (을(를)).

This file names no learner_kit.steps object, so it also runs against the code before the labels (it fails there).
"""
import re

import pytest
import torch

from autograder.checks import UNITS, CheckFailure, check
from learner_kit import i18n
from tests.mutants import build
from tests.mutants.learner_style import mutants

HEADINGS = {"en": "Where it parts from the reference:", "ko": "기준 구현과 갈라지는 곳:"}

# (unit, mutant) -> (English words the location must hold, Korean words)
NAMED = {
    ("scaled_dot_product_attention", "drop-call#0"): ("equals the attention weights (the softmax over the keys)",
                                                      "어텐션 가중치(키 축에 대한 소프트맥스)와 같은 값"),
    ("scaled_dot_product_attention", "axis#3"): ("equals the scores divided by √d_k; the exercise computes that step "
                                                 "from the unscaled scores Q·Kᵀ", "√d_k로 나눈 점수와 같은 값"),
    ("scaled_dot_product_attention", "swap-names#3"): ("and gives the unscaled scores Q·Kᵀ",
                                                       "스케일링하기 전의 점수(Q·Kᵀ)를 계산합니다"),
    ("MultiHeadAttention", "swap-args#0"): ("equal to the values split into heads. In the exercise, that step gets "
                                           "tensors of shapes (2, 4, 3, 5), (2, 4, 5, 6) and gives the output",
                                           "헤드로 나눈 밸류와 같은 값"),
    ("MultiHeadAttention", "swap-names#9"): ("The exercise passes the heads merged back there.",
                                            "과제에서는 그 자리에 다시 합친 헤드를 넘깁니다."),
    ("AdditiveAttention", "drop-call#0"): ("equals the attention weights (the softmax over the keys)",
                                           "어텐션 가중치(키 축에 대한 소프트맥스)와 같은 값"),
    ("AdditiveAttention", "swap-names#6"): ("equals the output (the weights times the values)",
                                            "출력(가중치 곱하기 밸류)과 같은 값"),
    ("LayerNorm", "reduction#0"): ("equals the mean μ over the last axis", "마지막 축에 대한 평균(μ)과 같은 값"),
    ("LayerNorm", "power#0"): ("equals the standard deviation √(σ² + ε); the exercise computes that step from the "
                               "variance plus ε", "표준편차(√(σ² + ε))와 같은 값"),
    ("LayerNorm", "reuse-submodule#1"): ("equals the centred input times γ", "평균을 뺀 입력에 γ를 곱한 값"),
    ("PositionalEncoding", "constant#6"): ("equal to the sines (the even columns of `pe`)",
                                           "사인(`pe`의 짝수 열)과 같은 값"),
    ("PositionalEncoding", "constant#7"): ("equals `x` plus the first L rows of `pe`",
                                           "`x`에 `pe`의 앞쪽 L개 행을 더한 값과 같은 값"),
    ("EncoderLayer", "double-call#4"): ("The exercise passes the feed-forward sublayer's residual sum there.",
                                       "FFN 서브레이어의 잔차 덧셈 결과를 넘깁니다"),
    ("DecoderLayer", "double-call#6"): ("The exercise passes the feed-forward sublayer's residual sum there.",
                                       "FFN 서브레이어의 잔차 덧셈 결과를 넘깁니다"),
    ("make_subsequent_mask", "axis#1"): ("equals the look-ahead mask (True on and below the diagonal)",
                                         "룩어헤드 마스크(대각선과 그 아래에서 True)와 같은 값"),
    ("make_tgt_mask", "drop-call#0"): ("equals the look-ahead mask (True on and below the diagonal)",
                                       "룩어헤드 마스크(대각선과 그 아래에서 True)와 같은 값"),
    ("Generator", "axis#2"): ("equals the log-probabilities (the log-softmax over the vocabulary)",
                              "로그 확률(어휘에 대한 로그 소프트맥스)과 같은 값"),
    ("LabelSmoothingLoss", "mask#0"): ("equals the rows whose target is padding", "타깃이 패딩인 행과 같은 값"),
    # 10-train's other units: the rate, the batch, greedy decoding (numbers traced as 0-dim tensors)
    ("noam_rate", "power#3"): ("equals the decay term step^−0.5", "감소 항(step^−0.5)과 같은 수"),
    ("noam_rate", "power#1"): ("equals the scale d_model^−0.5", "배율(d_model^−0.5)과 같은 수"),
    ("noam_rate", "constant#1"): ("equals the comparison max(step, 1) makes (step 0 read as step 1)",
                                  "max(step, 1)의 비교(스텝 0을 스텝 1로 읽는 비교)와 같은 수"),
    ("make_batch", "swap-names#0"): ("equals the padding mask of `tgt_in`; the exercise computes that step from the "
                                     "decoder's input `tgt_in` (tgt without its last token)",
                                     "`tgt_in`의 패딩 마스크와 같은 값"),
    ("make_batch", "constant#0"): ("equals the real (non-padding) tokens of `tgt_out`; the exercise computes that step "
                                   "from the expected output `tgt_out` (tgt without its first token)",
                                   "`tgt_out`의 실제(패딩이 아닌) 토큰과 같은 값"),
    ("greedy_decode", "constant#4"): ("The exercise passes the last position's vector there.", "마지막 위치의 벡터"),
    ("greedy_decode", "double-call#1"): ("The exercise passes `ys` with the next token appended there.",
                                         "다음 토큰을 덧붙인 `ys`"),
    ("greedy_decode", "axis#6"): ("equal to the start tokens `ys` (every row bos_idx)",
                                  "시작 토큰(모든 행이 bos_idx인 `ys`)"),
}
# locations that had "(none)" for what a step was given: now a sentence that says what it meant
SAID_PLAINLY = {
    ("make_tgt_mask", "double-call#0"): ("which was given no tensor", "텐서를 하나도 받지 않았습니다"),
    ("make_subsequent_mask", "axis#1"): ("the reference's with its tensors only", "기준 구현은 텐서만 넘깁니다"),
}

OPERATORS = ("softmax", "log-softmax", "matrix product", "division", "multiplication", "addition", "subtraction",
             "masked_fill", "mean", "sum", "variance", "square root", "tril", "logical AND", "logical NOT",
             "comparison", "sine", "cosine", "tanh", "relu", "exponential", "power")
OLD_WORDS = re.compile(r"the reference's (?:%s)\b|\bits (?:%s)\b|the same (?:%s)\b[^.]* as the reference's|\(none\)"
                       % (("|".join(map(re.escape, OPERATORS)),) * 3))
UNDECIDED = re.compile(r"을\(를\)|은\(는\)|이\(가\)|과\(와\)|\(으\)로")
SHAPE = re.compile(r"\((\d+)(?:, \d+)*,?\)")


def _mutant(unit, label):
    return next(m for m in mutants(unit) if m.label == label)


def located(unit, candidate, lang):
    """(the message of the hidden values check in `lang`, its location line)."""
    with i18n.speaking(lang):
        try:
            check(unit, candidate, "values")
        except CheckFailure as failure:
            text = str(failure)
        else:
            return "", ""
    line = next((line for line in text.splitlines() if HEADINGS[lang] in line), "")
    return text, line


def _values_cases(unit):
    """The unit's values cases: a UnitSpec's, or those of 10-train's units checked on their own (noam_rate,
    make_batch, greedy_decode: autograder/checks/train.py)."""
    if unit in UNITS:
        return UNITS[unit].cases["values"]()
    from autograder.checks import train

    return {"noam_rate": train._noam_cases, "make_batch": train._batch_cases, "greedy_decode": train._greedy_cases}[unit]()


def named_case(unit, text):
    """The values case whose label the message quotes (its first, where it quotes none)."""
    cases = _values_cases(unit)
    return next((case for case in cases if case.label and case.label in text), cases[0])


def fits_the_case(line, case, init):
    """Whether every shape quoted in `line` starts with an axis size the case's own tensors or arguments have, or the
    module's constructor was given (a table of max_len rows); a `bmm`'s folded batch-and-head axis is none of them."""
    given = getattr(case, "inputs", None) or case.args
    sizes = {1} | {size for value in given.values() if isinstance(value, torch.Tensor) for size in value.shape}
    sizes |= {value for value in [*given.values(), *(init or ())] if isinstance(value, int)}
    shown = line.split(":", 1)[1].split(" is called with the arguments")[0]  # an operator's arguments are no shape
    return all(int(first) in sizes for first in SHAPE.findall(shown))


CASES = sorted(set(NAMED) | set(SAID_PLAINLY))


@pytest.mark.parametrize("unit, label", CASES, ids=[f"{u}-{m}" for u, m in CASES])
def test_a_location_names_the_exercises_step(unit, label):
    candidate = build(_mutant(unit, label))
    english, en_line = located(unit, candidate, "en")
    korean, ko_line = located(unit, candidate, "ko")
    assert en_line and ko_line, english
    words = [NAMED.get((unit, label)), SAID_PLAINLY.get((unit, label))]
    for pair in filter(None, words):
        assert pair[0] in en_line, en_line
        assert pair[1] in ko_line, ko_line
    assert not OLD_WORDS.search(en_line), en_line
    assert not re.search(r"\(없음\)|배치|모양", ko_line), ko_line
    assert not UNDECIDED.search(ko_line), ko_line
    init = UNITS[unit].build_call().init if unit in UNITS else None
    assert fits_the_case(en_line, named_case(unit, english), init), en_line


def test_a_4d_matrix_product_is_told_in_the_shapes_the_code_holds():
    """The visible check's 4-D case: the reference's `@` runs as a `bmm` on (8, 3, 6) and (8, 6, 5), folded views of
    (2, 4, 3, 6) and (2, 4, 6, 5); the location quotes the latter, and the case's label says which input it is."""
    from learner_kit.visible import visible_problem

    candidate = build(_mutant("scaled_dot_product_attention", "axis#5"))
    for lang in ("en", "ko"):
        with i18n.speaking(lang):
            message = visible_problem("scaled_dot_product_attention", candidate)
        line = next(line for line in message.splitlines() if HEADINGS[lang] in line)
        assert "(2, 4, 3, 6), (2, 4, 6, 5)" in line and "(8, " not in line, line


def test_every_step_name_has_its_korean_text():
    """learner_kit.steps's labels are read through learner_kit.locales.ko.steps, not tr() (tests/learner_kit/test_i18n.py finds
    literal templates only): each has its Korean text, in Hangul, with no particle left to decide."""
    from learner_kit.steps import every_label

    korean = i18n.translations("ko")
    missing = [label for label in every_label() if label not in korean]
    assert missing == []
    assert all(re.search("[\uac00-\ud7a3]", korean[label]) and not UNDECIDED.search(korean[label])
               for label in every_label())
