"""The verdict is decided outside the learner's process (autograder/grading/run/judge.py, verify.py).

The learner's code runs in a unit server child and only computes; the checks, the reference
and the verdict stay in this process.
"""
import time

import nbformat
import pytest

from autograder.grading.bookkeeping.config import Settings
from sandbox_servers.budget import WALL_BACKSTOP
from autograder.grading.run.verify import Verifier
from autograder.grading.bookkeeping.source import load_assignment
from autograder.paths import COURSE, SOLUTIONS, assignment_ids
from tests.course_files import NO_SCALE_ATTENTION

ASSIGNMENTS = assignment_ids()

# An empty answer that attacks its grader: it walks every frame it can reach, writes forged
# "passed" reports and frames to every descriptor, and replaces the checks in its own process.
ATTACK = '''
import gc, os, sys, json
frame = sys._getframe()
while frame is not None:
    frame.f_locals.get("token")
    frame = frame.f_back
for fd in range(64):
    for forged in (json.dumps({"passed": True, "seq": 1}).encode() + b"\\n", b"\\x00\\x00\\x00\\x05hello"):
        try:
            os.write(fd, forged)
        except OSError:
            pass
try:
    import learner_kit.visible
    learner_kit.visible.visible_problem = lambda *args, **kwargs: ""
except ImportError:
    pass
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    raise NotImplementedError()
'''
ENDLESS = '''
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    while True:
        pass
'''


def serving_judge(budget_s, cell_timeout):
    """A judge with its unit server (in the sandbox) for a module's tests: a fixture yields from it."""
    judge = Verifier(Settings(notebook_budget_s=budget_s), cell_timeout=cell_timeout)
    judge.start()
    yield judge
    judge.close()


@pytest.fixture(scope="module")
def judge():
    yield from serving_judge(20, 10)


def notebook(folder, assignment):
    return nbformat.read(str(folder / assignment / f"{assignment}.ipynb"), as_version=4)


def with_answer(assignment, grade_id, source):
    nb = notebook(COURSE, assignment)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = source
    return nb


def attention_source():
    return load_assignment(SOLUTIONS, "01-attention")[0]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_solution_passes_and_the_release_fails(judge, assignment):
    source = load_assignment(SOLUTIONS, assignment)[0]
    solved = judge.verify(source, notebook(SOLUTIONS, assignment))
    assert all(passed for passed, _ in solved.values()), {g: m for g, (p, m) in solved.items() if not p}
    untouched = judge.verify(source, notebook(COURSE, assignment))
    assert not any(passed for passed, _ in untouched.values())
    assert all("[not-implemented]" in message for _, message in untouched.values())


def test_a_mistake_is_named_from_outside(judge):
    verdicts = judge.verify(attention_source(), with_answer("01-attention", "scaled_dot_product_attention", NO_SCALE_ATTENTION))
    # the device aspect also compares values on the devices it runs (the CPU here), so it names the mistake too
    for grade_id in ("visible", "hidden-values", "hidden-masks", "hidden-float64", "hidden-device"):
        passed, message = verdicts[f"scaled_dot_product_attention-{grade_id}"]
        assert not passed and "[sdpa-no-scale]" in message, (grade_id, message)


def test_an_attacking_empty_answer_gains_nothing(judge):
    verdicts = judge.verify(attention_source(), with_answer("01-attention", "scaled_dot_product_attention", ATTACK))
    assert not any(passed for passed, _ in verdicts.values()), verdicts
    again = judge.verify(attention_source(), notebook(SOLUTIONS, "01-attention"))  # the next notebook is unharmed
    assert all(passed for passed, _ in again.values())


def test_an_endless_loop_costs_its_notebook_its_budget_and_nothing_more(judge):
    server = judge.server.process.pid
    start = time.monotonic()
    verdicts = judge.verify(attention_source(), with_answer("01-attention", "scaled_dot_product_attention", ENDLESS))
    took = time.monotonic() - start
    assert judge.server.process.pid == server  # only the notebook's child was stopped, not the server
    assert not any(passed for passed, _ in verdicts.values())
    assert any("time budget" in message for _, message in verdicts.values()), verdicts
    # The budget is the notebook's CPU time where the kernel counts it (a loaded machine stretches its wall time),
    # with the wall clock as a backstop: either way no more than the backstop, and the time to stop it.
    assert took < 20 * WALL_BACKSTOP + 15, took
    again = judge.verify(attention_source(), notebook(SOLUTIONS, "01-attention"))
    assert all(passed for passed, _ in again.values())


WRONG_SPLIT = '''def split_heads(x, n_head):
    B, L, D = x.shape
    return x.view(B, n_head, L, D // n_head)
'''
WRONG_PAD_MASK = '''def make_pad_mask(tokens, pad_idx=0):
    return (tokens == pad_idx)[:, None, None, :]
'''


PRE_NORM_LAYER = '''class EncoderLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x, mask=None):
        y = self.norm1(x)
        x = x + self.dropout1(self.self_attn(y, y, y, mask))
        return x + self.dropout2(self.ffn(self.norm2(x)))
'''


@pytest.mark.parametrize("assignment, helper, source, composite", [
    ("02-multi-head", "split_heads", WRONG_SPLIT, "MultiHeadAttention"),
    ("06-masks", "make_pad_mask", WRONG_PAD_MASK, "make_tgt_mask"),
    ("05-encoder", "EncoderLayer", PRE_NORM_LAYER, "Encoder"),
])
def test_a_wrong_helper_costs_only_its_own_cells(judge, assignment, helper, source, composite):
    nb = notebook(SOLUTIONS, assignment)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == helper:
            cell.source = source
    verdicts = judge.verify(load_assignment(SOLUTIONS, assignment)[0], nb)
    assert not verdicts[f"{helper}-visible"][0] and not verdicts[f"{helper}-hidden-values"][0]
    composite_cells = {g: v for g, v in verdicts.items() if g.startswith(f"{composite}-")}
    assert composite_cells and all(passed for passed, _ in composite_cells.values()), composite_cells


STRICT_ATTENTION = '''def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    if query.dim() != 3:
        raise ValueError("I only take 3-D inputs")
    scores = query @ key.transpose(-2, -1) / query.size(-1) ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = torch.softmax(scores, dim=-1)
    if dropout is not None:
        weights = dropout(weights)
    return weights @ value, weights
'''


def test_the_learners_own_error_is_told_with_its_line_from_outside(judge):
    verdicts = judge.verify(attention_source(), with_answer("01-attention", "scaled_dot_product_attention", STRICT_ATTENTION))
    failing = [message for passed, message in verdicts.values() if not passed]
    assert failing, verdicts
    message = failing[0]
    assert message.startswith("[runtime-error] "), message
    assert "ValueError: I only take 3-D inputs" in message
    assert 'line 3 of your cell, `raise ValueError("I only take 3-D inputs")`' in message, message


TARGET_MASK_WITHOUT_PAD = '''
def make_tgt_mask(tgt, pad_idx=0):
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return causal.unsqueeze(0).expand(tgt.size(0), 1, tgt.size(-1), tgt.size(-1))
'''


def test_the_visible_cell_names_from_outside_what_the_notebooks_own_checks_name(judge):
    """The notebook's specific checks run beside the learner's code, so the grader does not run them;
    where the stored cases see only wrong values, the hidden diagnosis names the mistake instead."""
    source = load_assignment(SOLUTIONS, "06-masks")[0]
    solved = notebook(SOLUTIONS, "06-masks")  # the other blanks answered
    for cell in solved.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "make_tgt_mask":
            cell.source = TARGET_MASK_WITHOUT_PAD
    verdicts = judge.verify(source, solved)
    passed, message = verdicts["make_tgt_mask-visible"]
    assert not passed and message.startswith("[mask-tgt-missing-pad]"), message


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_graded_cell_of_the_course_is_decided_outside(assignment):
    """A graded cell the judge does not recognise would run in the learner's process, its verdict theirs."""
    from types import SimpleNamespace

    from autograder.grading.run.judge import graded_call

    for cell in notebook(SOLUTIONS, assignment).cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade"):
            assert graded_call(SimpleNamespace(source=cell.source, grade_id=meta["grade_id"])) is not None, meta["grade_id"]


def test_a_mistake_no_id_names_is_located_from_outside(judge):
    """In the sandbox too, a mistake without a misconception id is told where it parts from the reference: the
    child records the learner's computation (run_case with trace), the grader compares it with the reference's."""
    source = load_assignment(SOLUTIONS, "07-decoder")[0]
    submitted = notebook(SOLUTIONS, "07-decoder")
    for cell in submitted.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "DecoderLayer":
            right = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))"
            assert right in cell.source
            cell.source = cell.source.replace(right, "x = self.norm2(self.dropout2(self.cross_attn(x, memory, memory, src_mask)))")
    verdicts = judge.verify(source, submitted)
    for grade_id in ("DecoderLayer-visible", "DecoderLayer-hidden-values"):
        passed, message = verdicts[grade_id]
        assert not passed and "Where it parts from the reference: `self.norm2` is called with the output of " \
                              "`self.cross_attn` as `input`; the exercise passes the cross-attention sublayer's " \
                              "residual sum there, which is that plus the output of `self.norm1`." in message, \
            (grade_id, message)
    assert all(passed for grade_id, (passed, _) in verdicts.items() if grade_id.startswith("Decoder-")), {g: v for g, v in verdicts.items() if g.startswith("Decoder-") and not v[0]}
