"""Issue 48 (A): the contract and the checks agree, in the exercise's own words.

- A graded module's `dropout` argument reaches every part it configures: built with another rate, each part that
  drops has it (learner_kit/arguments.py, in the visible check and in the hidden `properties` aspect, in both
  languages). `super().__init__(d_model, n_head)` in AdditiveMultiHeadAttention passed every check before.
- greedy_decode with eos_idx *may* stop once every row has produced it (COURSE.md; the right-answer zoo's
  `greedy_right_runs_to_max_len` never stops early): the notebook said it stops, and its visible cell refused a
  decoder that stops a step later while the hidden checks took it. The words now say "may", and the visible cell
  takes what the hidden checks take.
"""
import contextlib
import inspect
import io

import pytest
import torch

from autograder import reference
from autograder.checks import CheckFailure, check
from autograder.grading.bookkeeping.source import load_assignment
from autograder.paths import solutions_dir
from learner_kit.i18n import speaking
from learner_kit.visible import visible_problem

# unit -> (the reference's text, the same text with the rate lost)
LOST_RATE = {
    "AdditiveMultiHeadAttention": ("super().__init__(d_model, n_head, dropout)", "super().__init__(d_model, n_head)"),
    "MultiHeadAttention": ("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)"),
    "AddNorm": ("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout()"),
    "PositionwiseFeedForward": ("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)"),
    "PositionalEncoding": ("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)"),
    "EncoderLayer": ("MultiHeadAttention(d_model, n_head, dropout)", "MultiHeadAttention(d_model, n_head)"),
    "Encoder": ("EncoderLayer(d_model, n_head, d_ff, dropout)", "EncoderLayer(d_model, n_head, d_ff)"),
    "DecoderLayer": ("self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)",
                     "self.ffn = PositionwiseFeedForward(d_model, d_ff)"),
    "Decoder": ("DecoderLayer(d_model, n_head, d_ff, dropout)", "DecoderLayer(d_model, n_head, d_ff)"),
    "Transformer": ("PositionalEncoding(d_model, max_len, dropout))", "PositionalEncoding(d_model, max_len))"),
}


def namespace(*edits):
    """The reference as provided code, with each (unit, right text, wrong text) of `edits` as the learner's answer."""
    found = {"__name__": "__main__"}
    exec(compile(inspect.getsource(reference), "<provided cells>", "exec"), found)
    for unit, right, wrong in edits:
        source = inspect.getsource(getattr(reference, unit))
        assert right in source, (unit, right)
        exec(compile(source.replace(right, wrong), "<answer cell>", "exec"), found)
    return found


def hidden(unit, candidate):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(unit, candidate, "properties")
    except CheckFailure as failure:
        return str(failure)
    return ""


@pytest.mark.parametrize("unit", LOST_RATE)
def test_a_lost_dropout_rate_fails_the_visible_and_the_hidden_check(unit):
    learner = namespace((unit, *LOST_RATE[unit]))[unit]
    seen = visible_problem(unit, learner)
    assert seen.startswith("[property-violated]") and "`dropout` argument does not reach" in seen, seen
    assert "p = 0.1" in seen or "p = 0.5" in seen, seen  # what was observed: the rate the part got
    found = hidden(unit, learner)  # DecoderLayer, Encoder(Layer) and Transformer had a property of their own already
    assert found.startswith("[property-violated]") and "dropout" in found, found
    with speaking("ko"):
        assert "`dropout` 인자가 그 부분" in visible_problem(unit, learner)


def test_additive_multi_head_attention_names_the_part_and_the_rates():
    learner = namespace(("AdditiveMultiHeadAttention", *LOST_RATE["AdditiveMultiHeadAttention"]))
    message = hidden("AdditiveMultiHeadAttention", learner["AdditiveMultiHeadAttention"])
    assert "AdditiveMultiHeadAttention(24, 4, 0.3), with dropout=0.3" in message, message
    assert "`dropout` (p = 0.1)" in message, message


def test_the_reference_keeps_every_rate():
    right = namespace()
    for unit in LOST_RATE:
        assert visible_problem(unit, right[unit]) == "", unit
        assert hidden(unit, right[unit]) == "", unit


def test_a_part_that_loses_the_rate_costs_the_part_not_the_composite_that_passes_it_on():
    """EncoderLayer loses the rate of its self-attention: its own checks fail, Encoder (which passes `dropout` to
    every layer) is judged with stand-ins for its layers and keeps its points."""
    wrong_layer = namespace(("EncoderLayer", *LOST_RATE["EncoderLayer"]))
    assert visible_problem("EncoderLayer", wrong_layer["EncoderLayer"])
    assert visible_problem("Encoder", wrong_layer["Encoder"]) == ""
    assert hidden("Encoder", wrong_layer["Encoder"]) == ""


# ---------------------------------------------------------------- greedy_decode: "may stop"

def _greedy(stop_late):
    """The reference's loop; with `stop_late` it stops one step after every row has produced eos_idx."""
    @torch.no_grad()
    def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
        memory = model.encode(src, src_mask)
        ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
        every_row_had_it = False
        for _ in range(max_len - 1):
            size = ys.size(1)
            look_ahead = torch.ones(1, size, size, dtype=torch.bool, device=src.device).tril()
            out = model.decode(memory, src_mask, ys, look_ahead)
            ys = torch.cat([ys, model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)], dim=1)
            if every_row_had_it:
                break
            if eos_idx is not None and (ys == eos_idx).any(dim=1).all():
                every_row_had_it = True
                if not stop_late:
                    break
        return ys
    return greedy_decode


def _visible_cell(lang):
    cells = load_assignment(solutions_dir(lang), "10-train")[0].cells
    return next(cell.source for cell in cells if cell.grade_id == "greedy_decode-visible")


def _run_visible_cell(source, greedy_decode):
    from learner_kit.explain import explain_errors
    from learner_kit.messages import format_message

    found = {"torch": torch, "make_pad_mask": reference.make_pad_mask, "format_message": format_message,
             "explain_errors": explain_errors, "greedy_decode": greedy_decode, "__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<test cell>", "exec"), found)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_decoder_that_stops_after_every_row_has_eos_passes_the_visible_cell_as_the_hidden_checks(lang):
    late = _greedy(stop_late=True)
    with speaking(lang):
        for aspect in ("values", "properties", "device"):
            with contextlib.redirect_stdout(io.StringIO()):
                check("greedy_decode", late, aspect)
        _run_visible_cell(_visible_cell(lang), late)  # raised "stop there" before
        _run_visible_cell(_visible_cell(lang), _greedy(stop_late=False))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_greedy_decode_docstring_says_what_the_checks_take(lang):
    """COURSE.md: 'it may stop early once every row has produced eos_idx'; the right-answer zoo never stops early."""
    path = "notebooks/10-train.md" if lang == "en" else "notebooks/ko/10-train.md"
    text = open(path, encoding="utf-8").read()
    answer = text[text.index("def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):"):]
    docstring = answer[:answer.index('"""', answer.index('"""') + 3)]
    assert ("it may stop once every row" in docstring) if lang == "en" else ("멈춰도 됨" in docstring), docstring
    assert "it stops once every row has it" not in text


def test_at_grading_the_lost_rate_costs_the_visible_and_the_properties_cell():
    """The same checks from outside the notebook's process (the judge, its probe `dropout_rates` in the sandbox)."""
    from autograder.paths import SOLUTIONS
    from tests.grading.run.test_judge import notebook, serving_judge

    nb = notebook(SOLUTIONS, "09-additive-attention")
    right, wrong = LOST_RATE["AdditiveMultiHeadAttention"]
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "AdditiveMultiHeadAttention":
            assert right in cell.source
            cell.source = cell.source.replace(right, wrong)
    judge = serving_judge(300, 120)
    verifier = next(judge)
    try:
        verdicts = verifier.verify(load_assignment(SOLUTIONS, "09-additive-attention")[0], nb)
    finally:
        next(judge, None)
    for grade_id in ("AdditiveMultiHeadAttention-visible", "AdditiveMultiHeadAttention-hidden-properties"):
        passed, message = verdicts[grade_id]
        assert not passed and "`dropout` (p = 0.1)" in message, (grade_id, message)
    assert all(passed for grade_id, (passed, _) in verdicts.items() if not grade_id.startswith("AdditiveMulti"))
