"""The checks' own mutants: knobs default to the reference, each mistake shows on the probes,
no two mistakes look alike there, and a failing check names each of them."""
import itertools

import pytest

from autograder.checks import ASPECTS, UNITS, CheckFailure, core
from learner_kit import harness

VARIANTS = [(unit, mistake_id, variant) for unit, spec in UNITS.items()
            for mistake_id, group in spec.mutants.items() for variant in group]
IDS = [f"{mistake_id}-{i}" for i, (_, mistake_id, _) in enumerate(VARIANTS)]


def _outcomes(unit, target):
    spec = UNITS[unit]
    call = spec.build_call()
    return [(harness.run(target, call, case), case) for case in spec.probes()]


@pytest.mark.parametrize("unit", [u for u, spec in UNITS.items() if spec.mutants])
def test_knobs_default_to_the_reference(unit):
    knobbed = UNITS[unit].knobbed
    assert knobbed is not None, f"set UnitSpec.knobbed of {unit} to the knobbed copy its mutants come from"
    for (mine, case), (theirs, _) in zip(_outcomes(unit, knobbed), _outcomes(unit, UNITS[unit].reference)):
        assert harness.same_outcome(mine, theirs, case), case.label


@pytest.mark.parametrize("unit, mistake_id, variant", VARIANTS, ids=IDS)
def test_each_mistake_runs_and_differs_on_some_probe(unit, mistake_id, variant):
    pairs = list(zip(_outcomes(unit, variant), _outcomes(unit, UNITS[unit].reference)))
    assert any(mine.outputs is not None for (mine, _), _ in pairs), "errors on every probe: it could match any error"
    assert any(not harness.same_outcome(mine, theirs, case) for (mine, case), (theirs, _) in pairs)


@pytest.mark.parametrize("unit", list(UNITS))
def test_different_mistakes_differ_on_some_probe(unit):
    behaviours = [(mistake_id, _outcomes(unit, v)) for u, mistake_id, v in VARIANTS if u == unit]
    for (first, a), (second, b) in itertools.combinations(behaviours, 2):
        if first != second:
            assert any(not harness.same_outcome(x, y, case) for (x, case), (y, _) in zip(a, b)), (first, second)


class _Unwatched(core._Checker):
    """A checker that runs the mutants without the runtime guards (they call the reference)."""

    def run(self, case, backprop=None, trace=False):
        return harness.run(self.candidate, self.call, case, backprop=backprop, trace=trace)


@pytest.mark.parametrize("unit, mistake_id, variant", VARIANTS, ids=IDS)
def test_a_failing_check_names_each_mistake(unit, mistake_id, variant):
    spec, named = UNITS[unit], []
    for aspect in spec.cases:
        if aspect == "device":
            continue
        try:
            checker = _Unwatched(spec, variant)
            checker.examine(spec.cases["values"]()[0], values=False)
            getattr(checker, ASPECTS[aspect])(aspect)
        except CheckFailure as failure:
            named.append(failure.mistake_id)
    assert named and set(named) == {mistake_id}
