"""The capstone (10-train): its checks, its train-your-own loader, and its training, three seeds.

The training test runs the solution notebook's own code (every code cell before the
training run, graded cells left out), then trains with seeds 0, 1 and 2: each must reach
99% exact match on the 500 held-out sequences within 90 s of training, with more than half
of the cross-attention on the anti-diagonal. It takes one to two minutes:

    .venv/bin/python -m pytest tests/test_capstone.py -k seeds -s     # prints the figures
    .venv/bin/python -m tests.test_capstone                           # the same, as a table
"""
import contextlib
import inspect
import io
import json
import math
import os
import textwrap
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference
from autograder.checks import CheckFailure, check, train
from autograder.paths import SOLUTIONS

NOTEBOOK = SOLUTIONS / "10-train" / "10-train.ipynb"
TRAINING_MARKER = "# --- the training run ---"
SEEDS = (0, 1, 2)


# ------------------------------------------------------------------ the checks of make_batch, noam_rate, greedy_decode
# Written as learners write them, independently of the checks' own mutants.

def batch_right(src, tgt, pad_idx=0):
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    size = tgt_in.size(1)
    causal = torch.ones(size, size, dtype=torch.bool, device=tgt.device).tril()
    return {"src": src, "src_mask": (src != pad_idx).unsqueeze(1).unsqueeze(2), "tgt_in": tgt_in, "tgt_out": tgt_out,
            "tgt_mask": (tgt_in != pad_idx)[:, None, None, :] & causal, "n_tokens": (tgt_out != pad_idx).sum().item()}


def batch_no_shift(src, tgt, pad_idx=0):
    size = tgt.size(1)
    causal = torch.tril(torch.ones(size, size)).bool()
    return {"src": src, "src_mask": (src != pad_idx)[:, None, None], "tgt_in": tgt, "tgt_out": tgt,
            "tgt_mask": (tgt != pad_idx)[:, None, None] & causal, "n_tokens": int((tgt != pad_idx).sum())}


def batch_counts_padding(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    result["n_tokens"] = result["tgt_out"].numel()
    return result


def batch_tensor_count(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    result["n_tokens"] = (result["tgt_out"] != pad_idx).sum()
    return result


def batch_mask_from_tgt(src, tgt, pad_idx=0):
    result = batch_right(src, tgt, pad_idx)
    size = tgt.size(1)
    result["tgt_mask"] = (tgt != pad_idx)[:, None, None, :] & torch.ones(size, size, dtype=torch.bool).tril()
    return result


def batch_stub(src, tgt, pad_idx=0):
    # YOUR CODE HERE
    raise NotImplementedError()


def noam_stub(step, d_model, warmup, factor=1.0):
    # YOUR CODE HERE
    raise NotImplementedError()


@torch.no_grad()
def greedy_stub(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    # YOUR CODE HERE
    raise NotImplementedError()


def noam_right(step, d_model, warmup, factor=1.0):
    step = 1 if step == 0 else step
    return factor * (d_model ** -0.5) * min(1 / math.sqrt(step), step / warmup ** 1.5)


def noam_tensor(step, d_model, warmup, factor=1.0):
    step = torch.tensor(float(max(step, 1)))
    return factor * d_model ** -0.5 * torch.minimum(step.rsqrt(), step * warmup ** -1.5)


def noam_no_warmup(step, d_model, warmup, factor=1.0):
    return factor * d_model ** -0.5 * max(step, 1) ** -0.5


def noam_no_factor(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


@torch.no_grad()
def greedy_right(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.ones(src.size(0), 1, dtype=torch.long, device=src.device) * bos_idx
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        size = ys.size(1)
        mask = torch.tril(torch.ones(size, size, device=src.device)).bool().unsqueeze(0)
        log_probs = model.generator(model.decode(memory, src_mask, ys, mask))  # generator on every position
        next_token = log_probs[:, -1].max(dim=-1).indices
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        if eos_idx is not None:
            done |= next_token == eos_idx
            if done.all():
                break
    return ys


@torch.no_grad()
def greedy_right_runs_to_max_len(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """Never stops early, and pads after each row's eos: allowed."""
    ys = greedy_right(model, src, src_mask, max_len, bos_idx)
    if eos_idx is not None:
        after = (ys == eos_idx).long().cumsum(1).roll(1, 1).clamp(max=1).bool()
        after[:, 0] = False
        ys = ys.masked_fill(after, 0)
    return ys


@torch.no_grad()
def greedy_no_feedback(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    start = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    ys = start
    for _ in range(max_len - 1):
        out = model.decode(memory, src_mask, start, torch.ones(1, 1, 1, dtype=torch.bool, device=src.device))
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


@torch.no_grad()
def greedy_cpu_start(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long)  # on the CPU, whatever src is on
    for _ in range(max_len - 1):
        size = ys.size(1)
        out = model.decode(memory, src_mask, ys, torch.ones(1, size, size, dtype=torch.bool).tril())
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


@torch.no_grad()
def greedy_encodes_every_step(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        size = ys.size(1)
        mask = torch.ones(1, size, size, dtype=torch.bool, device=src.device).tril()
        ys = torch.cat([ys, model(src, ys, src_mask, mask)[:, -1].argmax(-1, keepdim=True)], 1)
    return ys


@torch.no_grad()
def greedy_one_too_many(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len):  # one step too many
        size = ys.size(1)
        out = model.decode(memory, src_mask, ys, torch.ones(1, size, size, dtype=torch.bool, device=src.device).tril())
        ys = torch.cat([ys, model.generator(out[:, -1]).argmax(-1, keepdim=True)], 1)
    return ys


RIGHT = [("make_batch", batch_right), ("noam_rate", noam_right), ("noam_rate", noam_tensor),
         ("greedy_decode", greedy_right), ("greedy_decode", greedy_right_runs_to_max_len)]
BUGS = [  # unit, candidate, the id each listed aspect must name
    ("make_batch", batch_no_shift, "batch-no-shift", ("values", "masks")),
    ("make_batch", batch_counts_padding, "wrong-values", ("properties",)),
    ("make_batch", batch_tensor_count, "wrong-interface", ("properties",)),
    ("make_batch", batch_mask_from_tgt, "shape", ("masks",)),
    ("make_batch", batch_stub, "not-implemented", ("values", "masks", "properties")),
    ("noam_rate", noam_no_warmup, "noam-no-warmup", ("values", "properties")),
    ("noam_rate", noam_no_factor, "wrong-values", ("values",)),
    ("noam_rate", noam_no_factor, "property-violated", ("properties",)),
    ("greedy_decode", greedy_no_feedback, "greedy-no-feedback", ("values", "properties")),
    ("greedy_decode", greedy_cpu_start, "device", ("device",)),
    ("greedy_decode", greedy_encodes_every_step, "property-violated", ("properties",)),
    ("greedy_decode", greedy_one_too_many, "shape", ("values",)),
    ("noam_rate", noam_stub, "not-implemented", ("values", "properties")),
    ("greedy_decode", greedy_stub, "not-implemented", ("values", "properties", "device")),
]


def _check(unit, candidate, aspect):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            check(unit, candidate, aspect)
        except CheckFailure as failure:
            return failure, ""
    return None, printed.getvalue()


@pytest.mark.parametrize("unit, candidate", RIGHT, ids=[c.__name__ for _, c in RIGHT])
def test_right_answers_pass_every_aspect(unit, candidate):
    for aspect in train.CAPSTONE[unit].aspects:
        failure, printed = _check(unit, candidate, aspect)
        assert failure is None, str(failure)
        assert printed == f"✓ {unit}: {aspect} passed\n"


@pytest.mark.parametrize("unit, candidate, expected, aspects", BUGS,
                         ids=[f"{e}-{c.__name__}" for _, c, e, _ in BUGS])
def test_bugs_are_named(unit, candidate, expected, aspects):
    for aspect in aspects:
        failure, printed = _check(unit, candidate, aspect)
        assert failure is not None, f"{candidate.__name__} passed {aspect}: {printed}"
        assert failure.mistake_id == expected, f"{aspect}: {failure}"
        assert str(failure).startswith(f"[{expected}] ")


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
def test_seeds_reach_99_percent_within_90_seconds(capstone, seed):
    seconds, steps, accuracy, mass = train_seed(capstone, seed)
    print(f"\nseed {seed}: {steps} steps in {seconds:.1f} s, held-out exact match {accuracy:.1%}, "
          f"anti-diagonal mass {mass:.2f}")
    assert seconds < 90, f"training took {seconds:.1f} s"
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
