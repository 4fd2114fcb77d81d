"""Visible checks: the reference passes, every known mistake is named, fingerprints are fresh."""
import pytest

from autograder import fingerprints, reference
from autograder.checks import UNITS
from learner_kit.visible import check_visible, visible_problem

VARIANTS = [pytest.param(unit, mistake_id, variant, id=f"{mistake_id}-{index}")
            for unit, spec in UNITS.items()
            for mistake_id, group in spec.mutants.items()
            for index, variant in enumerate(group)]


@pytest.mark.parametrize("unit", list(UNITS))
def test_reference_passes(unit, capsys):
    check_visible(unit, getattr(reference, unit))
    assert capsys.readouterr().out == f"All visible tests passed for {unit}.\n"


@pytest.mark.parametrize("unit, mistake_id, variant", VARIANTS)
def test_every_known_mistake_is_named(unit, mistake_id, variant):
    with pytest.raises(AssertionError) as failure:
        check_visible(unit, variant)
    assert str(failure.value).startswith(f"[{mistake_id}] ")


def test_not_implemented_and_wrong_kind():
    def stub(query, key, value, mask=None, dropout=None):
        raise NotImplementedError()

    assert visible_problem("scaled_dot_product_attention", stub).startswith("[not-implemented]")
    assert visible_problem("MultiHeadAttention", reference.scaled_dot_product_attention).startswith("[wrong-interface]")
    assert visible_problem("MultiHeadAttention", reference.MultiHeadAttention(24, 4)).startswith("[wrong-interface]")


def test_an_unnamed_error_gets_its_hint():
    def misspelt(query, key, value, mask=None, dropout=None):
        return query.masked_fil(mask, 0), None

    message = visible_problem("scaled_dot_product_attention", misspelt)
    assert message.startswith("[runtime-error]") and "masked_fill" in message


def test_committed_fingerprints_are_fresh():
    outdated = fingerprints.stale()
    assert not outdated, f"stale fingerprints {sorted(outdated)}: run `python -m autograder.fingerprints`"
