"""The notebooks' prose is true of the notebook the learner has, at each level (issue 48's prose findings).

- At the challenge level every function that holds a blank is blank from its docstring down, so a hint that
  says part of it "is written for you" is true only of the guided level and must say so.
- The FFN's share of a layer's weights (notebook 04) is computed for an encoder layer, and true only of one: a
  decoder layer has a second attention, and there the FFN holds about half.
"""
import re

import nbformat
import pytest

from autograder.build_notebooks import MARK_CELL_ID
from autograder.paths import EDITIONS, solutions_dir

WRITTEN_FOR_YOU = {"en": (r"written for you", r"guided level"), "ko": (r"이미 적혀", r"가이드 단계")}


def markdown(lang, level, assignment):
    path = solutions_dir(lang, level) / assignment / f"{assignment}.ipynb"
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown" and c.id != MARK_CELL_ID]


def challenge_notebooks():
    return [(lang, path.parent.name) for lang in EDITIONS for path in solutions_dir(lang, "challenge").glob("*/*.ipynb")]


@pytest.mark.parametrize("lang, assignment", challenge_notebooks())
def test_no_challenge_hint_says_code_is_written_for_the_learner(lang, assignment):
    claim, qualifier = WRITTEN_FOR_YOU[lang]
    for text in markdown(lang, "challenge", assignment):
        for sentence in re.split(r"(?<=[.。])\s+|\n", text):
            if re.search(claim, sentence):
                assert re.search(qualifier, sentence), f"{assignment} ({lang}, challenge) says: {sentence.strip()!r}"


@pytest.mark.parametrize("lang, words", [("en", "each encoder layer"), ("ko", "인코더 레이어 하나의 가중치")])
def test_the_ffns_share_is_said_of_an_encoder_layer(lang, words):
    intro = markdown(lang, "guided", "04-feed-forward")[0]
    assert "3분의 2" in intro or "two thirds" in intro, "the claim moved: update this test"
    assert words in intro, f"04's introduction says the FFN's share of a layer without saying which: {intro[:400]!r}"


CALL = re.compile(r"\b[A-Za-z_][\w.]*\([^()]*,[^()]*\)")  # a call with two arguments or more


def blanks_with_their_words(source):
    """(the solution's lines, the comment lines right above the blank and the cell's docstrings) of each blank."""
    lines, found = source.splitlines(), []
    docstrings = " ".join(re.findall(r'"""(.*?)"""', source, re.S))
    for at, line in enumerate(lines):
        if line.strip() == "### BEGIN SOLUTION":
            end = next(i for i in range(at, len(lines)) if lines[i].strip() == "### END SOLUTION")
            above = []
            for previous in reversed(lines[:at]):
                if not previous.strip().startswith("#"):
                    break
                above.append(previous)
            found.append(("\n".join(lines[at + 1:end]), "\n".join(above) + "\n" + docstrings))
    return found


@pytest.mark.parametrize("lang", EDITIONS)
def test_no_blank_is_written_out_above_it(lang):
    """A blank's comment and its function's docstring say what to build, never the call that builds it: the
    Encoder's `layers` comment and docstring held `EncoderLayer(d_model, n_head, d_ff, dropout)`, its answer."""
    written_out = []
    for path in sorted(solutions_dir(lang).glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
            if cell.cell_type != "code" or "### BEGIN SOLUTION" not in cell.source:
                continue
            for solution, words in blanks_with_their_words(cell.source):
                for call in CALL.findall(solution):
                    if call in words:
                        written_out.append(f"{path.parent.name} {grade_id}: {call}")
    assert written_out == [], "\n".join(written_out)


def _mha_with(attend):
    """The reference MultiHeadAttention with its per-head attention call replaced by ``attend(q, k, v, mask, drop)``."""
    from autograder import reference

    class Variant(reference.MultiHeadAttention):
        def attend(self, q, k, v, mask):
            return attend(q, k, v, mask, self.dropout)

    return Variant


@pytest.mark.parametrize("name, attend, false_cause", [
    # attention called with its arguments in another order: the keys are projected with w_k, and passed as the values
    ("keys passed as values", lambda q, k, v, m, d: __import__("autograder.reference").reference
     .scaled_dot_product_attention(q, v, k, m, d), "the keys must be projected with w_k"),
    # something added after w_o: the merged heads do go through w_o
    ("a residual after w_o", None, "the merged heads must go through w_o"),
])
def test_a_visible_cells_own_checks_state_no_cause_they_did_not_test(name, attend, false_cause):
    """Notebook 02's own checks saw a symptom (w_k changes nothing; w_o at zero leaves an output) and named a cause
    that may be false of the learner's code: they say what they saw and where to look (issue 48)."""
    from autograder import reference
    from tests.visible_cells import visible_cell_message

    if attend is None:
        class Candidate(reference.MultiHeadAttention):
            def forward(self, query, key, value, mask=None):
                return super().forward(query, key, value, mask) + query
    else:
        Candidate = _mha_with(attend)
    message = visible_cell_message("MultiHeadAttention", Candidate)
    assert message, f"{name}: the visible test passes"
    assert false_cause not in message, f"{name}: {message}"


def _challenge_cell(lang, assignment, grade_id):
    path = solutions_dir(lang, "challenge") / assignment / f"{assignment}.ipynb"
    return next(c.source for c in nbformat.read(path, as_version=4).cells
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.mark.parametrize("lang, dropout", [("en", "ropout"), ("ko", "드롭아웃")])
@pytest.mark.parametrize("assignment, unit, where", [("02-multi-head", "MultiHeadAttention", "def forward"),
                                                     ("03-add-norm", "AddNorm", "def forward")])
def test_challenge_docstrings_say_where_dropout_acts(lang, dropout, assignment, unit, where):
    """At the challenge level the body is blank below the docstring, so the docstring is the whole contract: where
    dropout acts is checked (visible and hidden), so it is said there, not only in the prose above."""
    source = _challenge_cell(lang, assignment, unit)
    docstring = source.split(where, 1)[1].split('"""')[1]
    assert dropout in docstring, f"{unit}.forward's challenge docstring ({lang}) says nothing of dropout: {docstring!r}"


RECIPES = {  # what the idea hint of a challenge exercise must not spell out: its steps, its attributes
    ("02-multi-head", "MultiHeadAttention"): ("self.attn", "self.dropout", "w_o", "w_q", "nn.Linear"),
    ("10-train", "greedy_decode"): ("model.encode", "model.decode", "argmax", "last position", "마지막 위치", "append",
                                    "덧붙"),
}


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("assignment, unit", list(RECIPES))
def test_the_challenge_idea_is_no_recipe(lang, assignment, unit):
    """The first hint of an exercise is its idea; at the challenge level it named every step and attribute."""
    card = next(text for text in markdown(lang, "challenge", assignment) if f"`{unit}`" in text
                and "<details>" in text)
    idea = card.split("</summary>", 1)[1].split("<details>", 1)[0]  # up to the next hint, nested in it
    named = [name for name in RECIPES[assignment, unit] if name in idea]
    assert named == [], f"{unit}'s idea hint ({lang}) spells out the recipe: {named}"


# ---------------------------------------------------------------- the cells' own checks: a cause only where observed

def _sdpa(scale_axis=-1, drop_times=1):
    """Scaled dot-product attention scaled by the size of ``scale_axis`` of the queries, dropout applied ``drop_times``."""
    import math

    import torch

    def attention(query, key, value, mask=None, dropout=None):
        scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(scale_axis))
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        dropped = weights
        for _ in range(drop_times if dropout is not None else 0):
            dropped = dropout(dropped)
        return dropped @ value, weights
    return attention


def _add_norm(rate=None, on="sublayer"):
    """The reference AddNorm with its rate fixed at ``rate`` (when given) and dropout acting ``on`` another place."""
    from autograder import reference

    class Candidate(reference.AddNorm):
        def __init__(self, d_model, dropout=0.1):
            super().__init__(d_model, dropout if rate is None else rate)

        def forward(self, x, sublayer_out):
            if on == "x":
                return self.norm(self.dropout(x) + sublayer_out)
            if on == "norm":
                return self.dropout(self.norm(x + sublayer_out))
            return super().forward(x, sublayer_out)
    return Candidate


def _ffn(rate=None, on="hidden"):
    """The reference FFN with its rate fixed at ``rate`` (when given) and dropout acting ``on`` another place."""
    import torch

    from autograder import reference

    class Candidate(reference.PositionwiseFeedForward):
        def __init__(self, d_model, d_ff, dropout=0.1):
            super().__init__(d_model, d_ff, dropout if rate is None else rate)

        def forward(self, x):
            if on == "input":
                return self.w_2(torch.relu(self.w_1(self.dropout(x))))
            if on == "output":
                return self.dropout(self.w_2(torch.relu(self.w_1(x))))
            return super().forward(x)
    return Candidate


def _additive_mask_after_softmax():
    import torch

    from autograder import reference

    class Candidate(reference.AdditiveAttention):
        def forward(self, query, key, value, mask=None, dropout=None):
            q, k = self.w_q(query).unsqueeze(-2), self.w_k(key).unsqueeze(-3)
            weights = torch.softmax(self.v(torch.tanh(q + k)).squeeze(-1), dim=-1)
            if mask is not None:
                weights = weights * mask
            dropped = dropout(weights) if dropout is not None else weights
            return dropped @ value, weights
    return Candidate


def _decoder_layer(kind):
    """The reference DecoderLayer with dropout1 or norm1 called but its result left unused (a functional norm in its
    place), or dropout1 acting on x: each reaches notebook 07's own checks."""
    import torch.nn.functional as F

    from autograder import reference

    class Candidate(reference.DecoderLayer):
        def forward(self, x, memory, src_mask=None, tgt_mask=None):
            attended = self.self_attn(x, x, x, tgt_mask)
            if kind == "dropout1 unused":
                self.dropout1(attended)
                x = self.norm1(x + attended)
            elif kind == "norm1 unused":
                self.norm1(x + self.dropout1(attended))
                x = F.layer_norm(x + self.dropout1(attended), x.shape[-1:], eps=self.norm1.eps)
            else:  # dropout1 on x
                x = self.norm1(self.dropout1(x) + attended)
            x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
            return self.norm3(x + self.dropout3(self.ffn(x)))
    return Candidate


def _transformer(kind):
    """A Transformer that reads the target through both tables, or drops with a rate of its own in the generator."""
    import torch.nn.functional as F

    from autograder import reference

    class Candidate(reference.Transformer):
        def decode(self, memory, src_mask, tgt, tgt_mask):
            embedded = self.tgt_embed(tgt)
            if kind == "both tables":
                embedded = embedded + self.src_embed(tgt)
            return self.decoder(embedded, memory, src_mask, tgt_mask)

        def forward(self, src, tgt, src_mask, tgt_mask):
            decoded = self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)
            if kind == "generator dropout":
                decoded = F.dropout(decoded, 0.2, self.training)
            return self.generator(decoded)
    return Candidate


def _noam_dividing_by_the_step():
    from autograder import reference

    def noam_rate(step, d_model, warmup, factor=1.0):
        if step == 0:
            raise ZeroDivisionError("division by zero")  # what 1 / step ** 0.5 raises at step 0
        return reference.noam_rate(step, d_model, warmup, factor)
    return noam_rate


# unit, answer, what the message must say (en, ko), what it must not (the cause it used to guess)
OWN_CHECK_CASES = {
    # notebook 08: the target read through src_embed as well as tgt_embed; a rate of the model's own
    # (its stored cases' location is the message: the cell's own check no longer names the mistake over it)
    "decode reads both tables": ("Transformer", lambda: _transformer("both tables"),
                                 ("The reference passes the output of `self.tgt_embed`.",
                                  "기준 구현은 `self.tgt_embed`의 출력을 넘깁니다."),
                                 ("[transformer-tgt-uses-src-embed]", "[transformer-tgt-uses-src-embed]")),
    "a dropout rate of its own": ("Transformer", lambda: _transformer("generator dropout"),
                                  ("something in it still acts in training mode", "무언가가 학습 모드에서 여전히"),
                                  ("a default p = 0.1", "기본값 p = 0.1")),
    # notebook 10: step 0 divides by zero, whatever the formula's form
    "step 0 divided by": ("noam_rate", _noam_dividing_by_the_step,
                          ("before dividing by the step", "스텝으로 나누거나"), ("step ** -0.5", "step ** -0.5")),
    "scaled by the number of queries": ("scaled_dot_product_attention", lambda: _sdpa(scale_axis=-2),
                                        ("depend on the other queries", "다른 쿼리들"),
                                        ("Check what your scaling", "스케일링을 무엇으로 계산하는지")),
    "dropout twice on the weights": ("scaled_dot_product_attention", lambda: _sdpa(drop_times=2),
                                     ("acts on the weights twice", "두 번 적용"), ("neither", "둘 다 아닌")),
    "AddNorm's rate hard-coded": ("AddNorm", lambda: _add_norm(rate=0.1),
                                  ("p = 0.1: the rate given", "p = 0.1입니다. 생성자에 준 비율"), ("Is dropout", "적용했거나")),
    "AddNorm's dropout on x": ("AddNorm", lambda: _add_norm(on="x"),
                               ("dropout zeroed x", "x를 0으로"), ("Is dropout", "적용했거나")),
    "AddNorm's dropout after the norm": ("AddNorm", lambda: _add_norm(on="norm"),
                                         ("zeroed the sum or the norm's output", "합이나 정규화의 출력"), ("Is dropout", "적용했거나")),
    "the FFN's default nn.Dropout()": ("PositionwiseFeedForward", lambda: _ffn(rate=0.5),
                                       ("p = 0.5: the rate given", "p = 0.5입니다. 생성자에 준 비율"), ("Is dropout", "적용하지 않았나요")),
    "the FFN's dropout on its input": ("PositionwiseFeedForward", lambda: _ffn(on="input"),
                                       ("dropout zeroed the input x", "입력 x를 0으로"), ("Is dropout", "적용하지 않았나요")),
    "the FFN's dropout on its output": ("PositionwiseFeedForward", lambda: _ffn(on="output"),
                                        ("dropout zeroed w_2's output", "w_2의 출력을 0으로"), ("Is dropout", "적용하지 않았나요")),
    "additive mask after the softmax": ("AdditiveAttention", _additive_mask_after_softmax,
                                        ("the mask acts after the softmax", "마스크가 소프트맥스 뒤에 적용"),
                                        ("before dropout", "드롭아웃 전의")),
    # notebook 07: a module called whose result is left unused is applied; where dropout acts is not told by p = 1
    "DecoderLayer's dropout1 called, its result unused": (
        "DecoderLayer", lambda: _decoder_layer("dropout1 unused"),
        ("nothing dropout1 drops reaches the output", "dropout1 모듈이 버린 값은 출력에 전혀 닿지 않습니다"),
        ("is never applied", "한 번도 적용되지")),
    "DecoderLayer's norm1 called, its result unused": (
        "DecoderLayer", lambda: _decoder_layer("norm1 unused"),
        ("Doubling norm1.weight does not change the output.", "norm1.weight를 두 배로 해도 출력이 바뀌지 않습니다."),
        ("is never applied", "한 번도 적용되지")),
    "DecoderLayer's dropout1 on x": (
        "DecoderLayer", lambda: _decoder_layer("dropout1 on x"),
        ("Yours differs, by up to", "만큼 다릅니다"), ("is a dropout applied after a norm", "정규화 뒤에 적용했거나")),
}


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("name", list(OWN_CHECK_CASES))
def test_own_checks_say_what_they_saw(name, lang):
    """Each answer breaks the property one way; the cell's message names that way, observed on the answer, and no
    longer the cause the check used to guess (a placement for a rate, a scaling for a count of queries, dropout for
    a mask)."""
    from tests.visible_cells import visible_cell_message

    unit, answer, says, guessed = OWN_CHECK_CASES[name]
    index = EDITIONS.index(lang)
    message = visible_cell_message(unit, answer(), lang=lang)
    assert says[index] in message, f"{name} ({lang}): {message}"
    assert guessed[index] not in message, f"{name} ({lang}): {message}"
