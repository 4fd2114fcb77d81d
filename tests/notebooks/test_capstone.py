"""The capstone (10-train): its checks, its train-your-own loader, and its training, three seeds.

The training test runs the solution notebook's own code (every code cell before the
training run, graded cells left out), then trains with seeds 0, 1 and 2: each must reach
99% exact match on the 500 held-out sequences, with more than half of the cross-attention
on the anti-diagonal. It takes one to two minutes. The training time (the issue's budget is
90 s) is a figure, printed by the benchmark, not an assertion:

    make bench-train          # python -m tests.notebooks.test_capstone: steps, seconds, accuracy, attention
"""
import contextlib
import inspect
import io
import os
import textwrap
from pathlib import Path

import nbformat
import pytest
import torch
from torch import nn

from autograder import reference
from autograder.checks import CheckFailure, check, train
from autograder.paths import SOLUTIONS

NOTEBOOK = SOLUTIONS / "10-train" / "10-train.ipynb"
TRAINING_MARKER = "# --- the training run ---"
SEEDS = (0, 1, 2)


# ------------------------------------------------------------------ the checks of make_batch, noam_rate, greedy_decode
# (their right answers and bugs are in the zoo: tests/zoo/zoo_capstone.py)

def _check(unit, candidate, aspect):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            check(unit, candidate, aspect)
        except CheckFailure as failure:
            return failure, ""
    return None, printed.getvalue()


@pytest.mark.parametrize("unit", sorted(train.CAPSTONE))
def test_the_reference_itself_is_refused(unit):
    failure, _ = _check(unit, getattr(reference, unit), next(iter(train.CAPSTONE[unit].aspects)))
    assert failure is not None and failure.mistake_id == "tampering"


@pytest.mark.parametrize("unit", sorted(train.CAPSTONE))
def test_each_mutant_differs_from_the_reference_on_a_probe(unit):
    spec = train.CAPSTONE[unit]
    for mistake_id, group in spec.mutants.items():
        for variant in group:
            assert any(not train._same(train._run(variant, p, watched=False),
                                       train._run(getattr(reference, unit), p, watched=False), spec, p)
                       for p in spec.probes()), mistake_id


def test_other_units_go_to_the_core_checks():
    failure, printed = _check("make_pad_mask", lambda tokens, pad_idx=0: (tokens != pad_idx)[:, None, None, :], "values")
    assert failure is None and printed == "✓ make_pad_mask: values passed\n"


def test_greedy_eos_cases_end_rows_at_different_steps():
    """The properties aspect must see rows that stop at different steps, and one that never stops."""
    for case in train._greedy_eos_cases():
        ys = train._run(reference.greedy_decode, case, watched=False).result
        ends = [int((row == case.args["eos_idx"]).nonzero()[0]) if (row == case.args["eos_idx"]).any() else None
                for row in ys]
        assert len(set(ends)) == len(ends) and all(e is None or e >= 1 for e in ends), ends


# ------------------------------------------------------------------ train your own: learner_kit.own_units

def _notebook(cells):
    nb = nbformat.v4.new_notebook()
    for grade_id, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"grade": False, "solution": True, "locked": False, "grade_id": grade_id,
                                     "schema_version": 3}
        nb.cells.append(cell)
    return nb


PRENORM_ENCODER_LAYER = '''
class EncoderLayer(nn.Module):
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


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A learner's workspace: right units from the reference's text, except a pre-norm EncoderLayer,
    a MultiHeadAttention that raises, and no 04-feed-forward notebook at all."""
    from learner_kit.own_units import MODEL_UNITS

    root = tmp_path_factory.mktemp("workspace")
    for assignment, units in MODEL_UNITS:
        if assignment == "04-feed-forward":
            continue
        cells = []
        for unit in units:
            source = textwrap.dedent(inspect.getsource(getattr(reference, unit)))
            if unit == "EncoderLayer":
                source = PRENORM_ENCODER_LAYER
            if unit == "MultiHeadAttention":
                source = source.replace("out, self.attn = self.attend(q, k, v, mask)",
                                        "raise NotImplementedError()")
            cells.append((unit, source))
        (root / assignment).mkdir()
        nbformat.write(_notebook(cells), root / assignment / f"{assignment}.ipynb")
    return root


def test_own_units_fall_back_where_a_unit_fails(workspace):
    from learner_kit.own_units import load_own_units

    lines = []
    mine = load_own_units(workspace, NOTEBOOK, report=lines.append)
    text = "\n".join(lines)
    assert "provided MultiHeadAttention" in text and "[not-implemented]" in text
    assert "provided PositionwiseFeedForward" in text and "was not found" in text
    assert "provided EncoderLayer" in text and "[encoder-prenorm]" in text
    for unit in ("scaled_dot_product_attention", "Encoder", "DecoderLayer", "Transformer", "make_tgt_mask"):
        assert f"yours    {unit}" in text
    assert lines[-1] == "13 of 16 units are yours."
    # the stand-in EncoderLayer is built inside the learner's namespace: it uses the units chosen there
    layer = mine["EncoderLayer"](16, 2, 24)
    assert type(layer.self_attn) is mine["MultiHeadAttention"]
    assert mine["Transformer"].encode.__globals__ is mine
    torch.manual_seed(0)
    model = mine["Transformer"](13, 13, d_model=16, n_head=2, n_layers=1, d_ff=24, dropout=0.0).eval()
    src = torch.randint(3, 13, (2, 5))
    tgt = torch.randint(3, 13, (2, 4))
    out = model(src, tgt, mine["make_pad_mask"](src), mine["make_tgt_mask"](tgt))
    assert out.shape == (2, 4, 13)


def test_own_units_holds_no_solution():
    from learner_kit import own_units

    source = Path(own_units.__file__).read_text()
    for sign_of_a_solution in ("masked_fill", ".tril", "scatter_", "sqrt", "kl_div", "argmax"):
        assert sign_of_a_solution not in source


# ------------------------------------------------------------------ training: three seeds

def notebook_namespace():
    """The namespace of the solution notebook's code up to (not including) the training run."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    namespace = {"__name__": "capstone"}
    previous = os.environ.get("NBGRADER_EXECUTION")
    os.environ["NBGRADER_EXECUTION"] = "validate"  # skips the figures (grading() is True) and the switch
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in nb.cells:
                if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
                    continue
                if TRAINING_MARKER in cell.source:
                    break
                exec(compile(cell.source, "10-train", "exec"), namespace)
    finally:
        if previous is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = previous
    return namespace


def train_seed(namespace, seed):
    """Train the notebook's model with `seed`: (seconds, steps, test accuracy, lowest anti-diagonal mass)."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = namespace["build_model"]()
    history = namespace["train"](model, seed, progress=False)
    accuracy = namespace["exact_match"](model, namespace["test_src"], namespace["test_tgt"])
    mass = namespace["anti_diagonal_mass"](namespace["cross_attention"](model, namespace["test_src"],
                                                                        namespace["test_tgt"]))
    return history["seconds"], history["step"][-1], accuracy, float(mass.mean(dim=1).min())


def _cross_attention_helpers(namespace):
    """The notebook defines cross_attention and anti_diagonal_mass after the run: run those cells too."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "def cross_attention" in cell.source:
            definitions = cell.source.split("\n\n\nweights =")[0]
            exec(compile(definitions, "10-train", "exec"), namespace)
            return namespace
    raise AssertionError("no cross_attention cell in the notebook")


@pytest.fixture(scope="module")
def capstone():
    return _cross_attention_helpers(notebook_namespace())


@pytest.mark.parametrize("seed", SEEDS)
def test_seeds_reach_99_percent(capstone, seed):
    seconds, steps, accuracy, mass = train_seed(capstone, seed)
    print(f"\nseed {seed}: {steps} steps in {seconds:.1f} s, held-out exact match {accuracy:.1%}, "
          f"anti-diagonal mass {mass:.2f}")
    # The time budget (under 90 s) is a figure of `make bench-train`, not a timed assertion.
    assert accuracy >= 0.99
    assert mass > 0.5


def main():
    namespace = _cross_attention_helpers(notebook_namespace())
    print(f"{'seed':>4} {'steps':>6} {'seconds':>8} {'exact match':>12} {'anti-diagonal':>14}")
    for seed in SEEDS:
        seconds, steps, accuracy, mass = train_seed(namespace, seed)
        print(f"{seed:>4} {steps:>6} {seconds:>8.1f} {accuracy:>12.1%} {mass:>14.2f}", flush=True)


if __name__ == "__main__":
    main()
