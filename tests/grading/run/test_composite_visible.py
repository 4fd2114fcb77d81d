"""A composite's visible cell at grading: one mistake costs one unit.

A composite unit calls or builds other graded units of its notebook (MultiHeadAttention calls
split_heads, Decoder builds DecoderLayer). The judge decides its visible cell with the course's right
versions of those parts (replays and stand-ins, autograder/checks/isolation.py), and where the learner's
own part is wrong, its verdict is decisive: the notebook kernel's run of the cell, which uses the wrong
part, may not lower it (judge.Verdict, combine.py). A wrong composite still fails.
"""
from pathlib import Path

import pytest

from autograder.grading.run.combine import combined_records
from autograder.grading.run.judge import Verdict
from autograder.grading.bookkeeping.layout import Submission
from autograder.grading.bookkeeping.source import TEST, Cell, SourceNotebook, load_assignment
from autograder.paths import SOLUTIONS
from tests.grading.run.test_judge import PRE_NORM_LAYER, WRONG_SPLIT, notebook, serving_judge

WRONG_PARTS = {
    "split_heads": WRONG_SPLIT,
    "make_subsequent_mask": '''def make_subsequent_mask(size, device=None):
    return torch.triu(torch.ones(1, size, size, dtype=torch.bool, device=device))
''',
    "EncoderLayer": PRE_NORM_LAYER,
    "DecoderLayer": '''class DecoderLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d_model), nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout1, self.dropout2, self.dropout3 = nn.Dropout(dropout), nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, x, x, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))
''',
    "Generator": '''class Generator(nn.Module):
    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        return F.softmax(self.proj(x), dim=-1)
''',
    "AdditiveAttention": '''class AdditiveAttention(nn.Module):
    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3)).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = scores.softmax(-1)
        return weights @ value, weights
''',
}

# composite -> (its notebook, its wrong part, a textual mistake in the solution's composite cell: (right, wrong))
COMPOSITES = {
    "MultiHeadAttention": ("02-multi-head", "split_heads", ("self.w_o(merge_heads(out))", "merge_heads(out)")),
    "make_tgt_mask": ("06-masks", "make_subsequent_mask", ("return pad & causal", "return pad | causal")),
    "Encoder": ("05-encoder", "EncoderLayer", ("x = layer(x, mask)", "x = layer(x, None)")),
    "Decoder": ("07-decoder", "DecoderLayer", ("layer(x, memory, src_mask, tgt_mask)", "layer(x, memory, src_mask, None)")),
    "Transformer": ("08-generator", "Generator", ("memory = self.encode(src, src_mask)", "memory = self.encode(src, None)")),
    "AdditiveMultiHeadAttention": ("09-additive-attention", "AdditiveAttention",
                                   ("self.score(q, k, v, mask, self.dropout)", "self.score(q, k, v, None, self.dropout)")),
}


@pytest.fixture(scope="module")
def judge():
    yield from serving_judge(60, 30)


def submitted(assignment, part, wrong_composite=None):
    """The solution notebook with a wrong `part`, and (optionally) a textual mistake in the composite's cell."""
    nb = notebook(SOLUTIONS, assignment)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == part:
            cell.source = WRONG_PARTS[part]
        elif wrong_composite is not None and grade_id == wrong_composite[0]:
            right, wrong = wrong_composite[1]
            assert right in cell.source, (grade_id, right)
            cell.source = cell.source.replace(right, wrong)
    return nb


@pytest.mark.parametrize("composite", COMPOSITES)
def test_a_wrong_part_costs_its_own_cells_not_the_composites_visible_cell(judge, composite):
    assignment, part, mistake = COMPOSITES[composite]
    source = load_assignment(SOLUTIONS, assignment)[0]
    verdicts = judge.verify(source, submitted(assignment, part))
    assert not verdicts[f"{part}-visible"][0], verdicts[f"{part}-visible"]
    visible = verdicts[f"{composite}-visible"]
    passed, message = visible
    assert passed and visible.decisive, visible  # the kernel's run (with the wrong part) may not lower it
    assert f"fix `{part}` first" in message, message
    # a wrong composite beside the same wrong part still fails its visible cell, and nothing makes that decisive
    wrong = judge.verify(source, submitted(assignment, part, (composite, mistake)))[f"{composite}-visible"]
    assert not wrong[0] and not wrong.decisive, wrong


def test_a_right_notebook_gives_no_decisive_verdict(judge):
    """With every part right, the kernel's run of a composite's cell judges the composite alone: it may lower."""
    verdicts = judge.verify(load_assignment(SOLUTIONS, "07-decoder")[0], notebook(SOLUTIONS, "07-decoder"))
    assert all(passed and not verdict.decisive for verdict in verdicts.values() for passed in verdict[:1]), verdicts


def test_a_decisive_verdict_is_not_lowered_by_the_kernels_run_and_a_plain_one_is():
    cells = (Cell(TEST, "", "Decoder-visible", 1.0), Cell(TEST, "", "Decoder-hidden-values", 2.0))
    source = SourceNotebook("07-decoder", "07-decoder", Path("07-decoder.ipynb"), cells)
    submission = Submission("s", "07-decoder", Path("."))
    kernel = {"Decoder-visible": (0.0, ["AssertionError: [decoder-self-attn-unmasked] ..."]),
              "Decoder-hidden-values": (0.0, ["AssertionError: [wrong-values] ..."])}
    note = "Your Decoder is right: ... fix `DecoderLayer` first."
    verdicts = {"Decoder-visible": Verdict(True, note, decisive=True), "Decoder-hidden-values": Verdict(True, "")}
    records = combined_records(submission, source, kernel, verdicts)
    assert [(r["points"], r["feedback"]) for r in records] == [(1, [note]), (0, ["AssertionError: [wrong-values] ..."])]
    failed = {"Decoder-visible": Verdict(False, "[wrong-values] no", decisive=True), "Decoder-hidden-values": (True, "")}
    assert combined_records(submission, source, {**kernel, "Decoder-visible": (1.0, [])}, failed)[0]["points"] == 0


@pytest.mark.parametrize("part, composite", [("Generator", "Transformer"), ("DecoderLayer", "Decoder"),
                                             ("EncoderLayer", "Encoder"),
                                             ("AdditiveAttention", "AdditiveMultiHeadAttention")])
def test_a_part_that_cannot_be_built_costs_no_hidden_cell_of_a_right_composite(part, composite):
    """The blank part (its constructor still raises NotImplementedError) beside a right composite: the hidden checks
    judge the composite again with stand-ins, and the probes that build a fresh one (the Transformer's dropout and
    Xavier properties) build it from the same stand-ins (sandbox_servers.probes._fresh), not from the blank part."""
    import contextlib
    import inspect
    import io

    from autograder import reference
    from autograder.checks import aspects_of, check

    namespace = {"__name__": "__main__"}
    exec(compile(inspect.getsource(reference), "<provided cells>", "exec"), namespace)
    exec(f"class {part}(nn.Module):\n    def __init__(self, *args, **kwargs):\n        raise NotImplementedError()\n",
         namespace)
    exec(compile(inspect.getsource(getattr(reference, composite)), "<answer cell>", "exec"), namespace)
    for aspect in aspects_of(composite):
        with contextlib.redirect_stdout(io.StringIO()):
            check(composite, namespace[composite], aspect)  # raises CheckFailure if the blank part costs it
