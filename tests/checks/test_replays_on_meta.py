"""Replays for the meta device recorded on the CPU (isolation.replays) are those a recording on meta makes: the
same keys, answers of the same shapes and dtypes on meta, the same gather indices; and recording them runs
nothing on meta."""
import subprocess
import sys

import pytest
import torch

from autograder.checks import UNITS, isolation
from learner_kit.replay import REARRANGE

ISOLATING = sorted(name for name, spec in UNITS.items() if spec.isolate and "device" in spec.cases)


def _meta_cases(spec):
    return [case.to(device="meta") for case in spec.cases["device"]()]


def test_some_units_isolate_graded_functions_on_the_device_aspect():
    assert {"MultiHeadAttention", "make_tgt_mask"} <= set(ISOLATING)


@pytest.mark.parametrize("unit_name", ISOLATING)
def test_meta_replays_recorded_on_the_cpu_equal_a_recording_on_meta(unit_name):
    spec = UNITS[unit_name]
    call = spec.build_call()
    for case in _meta_cases(spec):
        quick, on_meta = isolation.replays(spec, call, case), isolation._recorded(spec, call, case)
        assert quick.keys() == on_meta.keys()
        for name, replay in on_meta.items():
            assert replay.entries, f"{name}: the reference made no call to record"
            assert quick[name].entries.keys() == replay.entries.keys(), name
            for key, answer in replay.entries.items():
                mine = quick[name].entries[key]
                if replay.kind == REARRANGE:
                    assert torch.equal(mine[0], answer[0]) and mine[1] == answer[1], name
                else:
                    assert (mine.device.type, mine.shape, mine.dtype) == ("meta", answer.shape, answer.dtype), name


def test_recording_meta_replays_runs_nothing_on_meta():
    """The first meta-device run in a process imports torch._dynamo: a fresh interpreter that records every
    isolating unit's meta replays must not have it imported (the grading worker then never imports it)."""
    code = ("import sys\nfrom autograder.checks import UNITS, isolation\n"
            f"for name in {ISOLATING!r}:\n"
            "    spec = UNITS[name]\n"
            "    for case in spec.cases['device']():\n"
            "        isolation.replays(spec, spec.build_call(), case.to(device='meta'))\n"
            "print('torch._dynamo' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
