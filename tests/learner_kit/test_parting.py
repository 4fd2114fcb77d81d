"""Where a capstone unit parts from the reference, in notebook 10's own checks (learner_kit.parting).

make_batch, noam_rate and greedy_decode are checked by notebook 10's cells, not by stored cases; their
fingerprints hold only the cases of those cells and the reference's traced run on each. A symptom a cell
reports (wrong values, an error) is followed by where the learner's computation parts from the reference's.
Each statement is read back here against the learner's own values, taken without learner_kit.trace.
"""
import re

import pytest
import torch

from autograder import reference
from autograder.checks import train
from learner_kit import parting, stand_ins
from learner_kit.locate import HEADING
from learner_kit.visible import fingerprint_file
from tests.visible_cells import visible_cell, visible_cell_message

CAPSTONE = ("make_batch", "noam_rate", "greedy_decode")


def where(unit, candidate):
    return parting.where_it_parts(parting.load_runs(unit), candidate)


@pytest.mark.parametrize("unit", CAPSTONE)
def test_the_stored_cases_are_the_notebook_cells_own(unit):
    cell = visible_cell(unit)
    for case in train.CAPSTONE[unit].visible_cases():
        for name, value in case.items():
            if isinstance(value, torch.Tensor) and value.dtype != torch.bool:
                assert str(value.tolist()) in cell.replace("\n", ""), (unit, name)
    if unit == "noam_rate":
        assert all(f"noam_rate({case['step']}, 64, 100)" in cell or str(case["step"]) in cell
                   for case in train.CAPSTONE[unit].visible_cases())
    if unit == "greedy_decode":
        assert "StepModel(vocab_size=9)" in cell and "max_len=6" in cell and "bos_idx=1" in cell


@pytest.mark.parametrize("unit", CAPSTONE)
def test_the_reference_parts_nowhere(unit):
    assert where(unit, getattr(reference, unit)) == ""


def test_right_answers_written_otherwise_part_nowhere():
    def noam_rate(step, d_model, warmup, factor=1.0):
        step = max(step, 1)
        if step < warmup:
            return factor * d_model ** -0.5 * step / warmup ** 1.5
        return factor / (d_model * step) ** 0.5

    def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
        memory = model.encode(src, src_mask)
        tokens = [torch.full((src.size(0),), bos_idx, dtype=torch.long)]
        for _ in range(max_len - 1):
            ys = torch.stack(tokens, dim=1)
            out = model.decode(memory, src_mask, ys, reference.make_subsequent_mask(ys.size(1)))
            tokens.append(model.generator(out[:, -1]).argmax(dim=-1))
            if eos_idx is not None and all((torch.stack(tokens, dim=1) == eos_idx).any(dim=1).tolist()):
                break
        return torch.stack(tokens, dim=1)

    assert where("noam_rate", noam_rate) == ""
    assert where("greedy_decode", greedy_decode) == ""


def test_greedy_arguments_swapped_are_told_by_what_encode_received():
    def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
        memory = model.encode(src_mask, src)  # the arguments in the wrong order
        ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long)
        for _ in range(max_len - 1):
            out = model.decode(memory, src_mask, ys, reference.make_subsequent_mask(ys.size(1)))
            ys = torch.cat([ys, model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)], dim=1)
        return ys

    text = where("greedy_decode", greedy_decode)
    assert text == f"{HEADING} `model.encode` is called with `src_mask` as `src`; the reference passes `src`."
    # read back without the recorder: the stand-in's encode saw the source mask as its `src`
    case = parting.arguments(parting.load_runs("greedy_decode")["cases"][0])
    seen = []
    case["model"].encode = lambda src, src_mask: seen.append(src) or torch.zeros(2, 3, 2)
    try:
        greedy_decode(*case.values())
    except RuntimeError:
        pass  # what follows encode may break on its output: only what encode received is read here
    assert torch.equal(seen[0], case["src_mask"])


def test_a_result_from_before_the_last_step_is_told_so():
    def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
        memory = model.encode(src, src_mask)
        ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long)
        before = ys
        for _ in range(max_len - 1):
            before = ys
            out = model.decode(memory, src_mask, ys, reference.make_subsequent_mask(ys.size(1)))
            ys = torch.cat([ys, model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)], dim=1)
        return before

    text = where("greedy_decode", greedy_decode)
    assert text == f"{HEADING} your `result` holds the values of `ys` with the next token appended, not the final `result`."
    case = parting.load_runs("greedy_decode")["cases"][0]
    mine = greedy_decode(*parting.arguments(case).values())
    theirs = reference.greedy_decode(*parting.arguments(case).values())
    assert torch.equal(mine, theirs[:, :-1])  # an earlier concatenation: the reference's ys one step before


def test_a_power_of_the_wrong_sign_is_told_at_the_power():
    def noam_rate(step, d_model, warmup, factor=1.0):
        step = max(step, 1)
        return factor * d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)

    text = where("noam_rate", noam_rate)
    assert text == (f"{HEADING} no number in your computation equals the scale d_model^−0.5; the exercise computes "
                    "that step from `d_model`. Your own power gets the same input but is called with the arguments "
                    "(0.5); the reference's with (-0.5).")
    assert noam_rate(1, 64, 100) == pytest.approx(reference.noam_rate(1, 64, 100) * 64)  # d_model ** 0.5 / ** -0.5


def test_numbers_that_take_another_path_as_tensors_are_not_located():
    def noam_rate(step, d_model, warmup, factor=1.0):
        return len(str(step)) * 1e-3  # str() of a tensor is not str() of a number: a record would mislead

    assert noam_rate(1, 64, 100) != reference.noam_rate(1, 64, 100)
    assert where("noam_rate", noam_rate) == ""


def test_a_python_error_before_any_step_is_told_so():
    def make_batch(src, tgt, pad_idx=0):
        tgt_in, tgt_out = tgt_in[:, :-1], tgt[:, 1:]  # noqa: F821 - the learner's slip: a name read before it is set
        return {}

    text = where("make_batch", make_batch)
    assert text == f"{HEADING} the error is raised before your code computes anything."


def test_the_notebook_cell_prints_the_location_under_its_symptom():
    def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
        memory = model.encode(src, src_mask)
        ys = torch.full((src.size(-1), 1), bos_idx, dtype=torch.long, device=src.device)  # the wrong axis
        for _ in range(max_len - 1):
            out = model.decode(memory, src_mask, ys, reference.make_subsequent_mask(ys.size(1), device=src.device))
            ys = torch.cat([ys, model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)], dim=1)
        return ys

    text = visible_cell_message("greedy_decode", greedy_decode)
    assert text.startswith("[runtime-error]") or text.startswith("[shape]"), text
    located = [line for line in text.splitlines() if line.startswith(HEADING)]
    assert located == [f"{HEADING} `model.decode` gets, as `tgt`, a tensor of shape (3, 1) (the reference's has "
                       "shape (2, 1)). The exercise passes the start tokens `ys` (every row bos_idx) there."], text
    src = torch.tensor([[1, 4, 4], [2, 4, 0]])
    assert tuple(torch.full((src.size(-1), 1), 1).shape) == (3, 1)  # what the learner's ys is, read back


@pytest.mark.parametrize("unit", CAPSTONE)
def test_a_capstone_unit_has_runs_but_no_stored_cases(unit):
    assert parting.load_runs(unit)["judged_by"] == parting.JUDGED_BY_NOTEBOOK
    assert not fingerprint_file(unit).is_file()  # <unit>.pt would mean stored cases (judge.py, the zoo)


def test_a_stand_in_model_is_stored_as_plain_data():
    stored = parting.load_runs("greedy_decode")["cases"][0]["model"]
    assert stored == {"stand_in": "StepModel", "init": {"vocab_size": 9}}
    assert isinstance(stand_ins.from_plain(stored), stand_ins.StepModel)
    assert re.fullmatch(r"[A-Za-z]+", stored["stand_in"])
