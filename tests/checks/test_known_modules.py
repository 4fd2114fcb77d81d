"""The known mistakes' modules that a diagnosis builds the quick way (core._build_known) behave exactly as those
call_unit builds: every known mistake of every module unit, alone and in pairs, on a float32 case and on the
float64 aspect's first case (its call may load the reference's buffers too), gives the same results to the bit, or
the same error."""
import pytest
import torch

from autograder.checks import core
from autograder.checks.core import UNITS, _build_known, mistake_pairs
from learner_kit import harness

MODULE_UNITS = sorted(name for name, spec in UNITS.items() if spec.init is not None)


def _variants(unit_name):
    singles = [variant for group in UNITS[unit_name].mutants.values() for variant in group]
    return singles + [variant for _, variant in mistake_pairs(unit_name)]


def _same(quick, built):
    assert quick.error_type == built.error_type
    assert quick.problem == built.problem
    if built.outputs is None:
        assert quick.outputs is None
        return
    assert quick.outputs.keys() == built.outputs.keys()
    for name, value in built.outputs.items():
        other = quick.outputs[name]
        if isinstance(value, torch.Tensor):
            assert other.dtype == value.dtype and other.device == value.device
            assert torch.equal(other.detach(), value.detach()) or (
                value.is_floating_point() and torch.equal(other.detach().isnan(), value.detach().isnan())
                and torch.equal(other.detach().nan_to_num(), value.detach().nan_to_num())), name
        else:
            assert other == value, name


def test_every_module_unit_has_known_mistakes_to_build():
    assert MODULE_UNITS and all(_variants(name) for name in MODULE_UNITS)


@pytest.mark.parametrize("unit_name", MODULE_UNITS)
def test_a_quickly_built_known_mistake_behaves_as_one_call_unit_builds(unit_name):
    spec = UNITS[unit_name]
    calls_and_cases = [(spec.build_call(), spec.cases["values"]()[0])]
    if "float64" in spec.cases:
        calls_and_cases.append((spec.build_call(with_buffers="float64" in core.REFERENCE_BUFFER_ASPECTS),
                                spec.cases["float64"]()[0]))
    quick_built = 0
    for call, case in calls_and_cases:
        for variant in _variants(unit_name):
            module = _build_known(variant, call, case)
            quick_built += module is not None
            _same(harness.run(variant, call, case, built=module) if module is not None else harness.run(variant, call, case),
                  harness.run(variant, call, case))
    assert quick_built, "no known mistake of this unit was built the quick way"
