"""The positional-encoding table checks of autograder.checks.encoder.

PositionalEncoding's known mistakes live only in the table its __init__ builds (module
checks copy parameters, not buffers, so that table is the learner's own). These tests
check the table mutants themselves: the knobbed table at its defaults is the reference's,
every mistake differs from it and from the other ids, and both the "values" and the
"properties" checks name each one.
"""
import itertools

import pytest
import torch

from autograder import reference
from autograder.checks import UNITS, CheckFailure, core, encoder
from learner_kit import harness

TABLE_VARIANTS = [(mistake_id, variant) for mistake_id, group in encoder.PE_TABLE_MUTANTS.items() for variant in group]
IDS = [f"{mistake_id}-{i}" for i, (mistake_id, _) in enumerate(TABLE_VARIANTS)]


def test_knobbed_table_defaults_to_the_reference():
    assert torch.equal(encoder._table(encoder._PositionalEncoding), encoder._table(reference.PositionalEncoding))


@pytest.mark.parametrize("mistake_id, variant", TABLE_VARIANTS, ids=IDS)
def test_each_table_mistake_differs_from_the_reference(mistake_id, variant):
    assert not torch.allclose(encoder._table(variant), encoder._table(reference.PositionalEncoding), atol=1e-2)


def test_different_table_mistakes_differ():
    for (first, a), (second, b) in itertools.combinations(TABLE_VARIANTS, 2):
        if first != second:
            assert not torch.allclose(encoder._table(a), encoder._table(b), atol=1e-2), (first, second)


class _Unwatched(core._Checker):
    """A checker without the runtime guards: the variants subclass the reference."""

    def run(self, case, backprop=None, trace=False):
        return harness.run(self.candidate, self.call, case, backprop=backprop, trace=trace)


@pytest.mark.parametrize("mistake_id, variant", TABLE_VARIANTS, ids=IDS)
def test_properties_name_each_table_mistake(mistake_id, variant):
    spec = UNITS["PositionalEncoding"]
    checker = _Unwatched(spec, variant)
    # the learner's own table is judged, and its mistake named (the device aspect compares CPU values too)
    for aspect in ("values", "properties", "device"):
        with pytest.raises(CheckFailure) as failure:
            getattr(checker, core.ASPECTS[aspect])(aspect)
        assert failure.value.mistake_id == mistake_id, aspect
