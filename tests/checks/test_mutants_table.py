"""A fast slice of the mutation table (tests/mutants; the whole table is `make mutants`).

cosmic-ray's mutants of a few units, and the walk's hand-written mistakes, run as a learner's code: no
check prints a mistake id that the mutant's behaviour does not support, every mutant that changes
behaviour fails the visible test, and the walk's mistakes get the ids that their own variants match.
"""
import pytest

from tests.mutants import WALK, evaluate, mutants

# Units whose mutants once printed a wrong id, or whose walk mistakes needed an id; about 30 s of CPU.
SLICE = ("PositionwiseFeedForward", "PositionalEncoding", "MultiHeadAttention", "scaled_dot_product_attention",
         "EncoderLayer", "AddNorm", "Generator", "make_pad_mask")

# (unit, the mutant's change) of behaviour-changing mutants the visible test may let through, and why: none today.
VISIBLE_ALLOWANCE = {}


@pytest.fixture(scope="module")
def results():
    return {unit: [evaluate(m) for m in mutants(unit)] for unit in SLICE}


@pytest.mark.parametrize("unit", SLICE)
def test_no_wrong_ids(results, unit):
    wrong = [(r.mutant.label, r.mutant.change, r.wrong) for r in results[unit] if r.wrong]
    assert not wrong, wrong


@pytest.mark.parametrize("unit", SLICE)
def test_every_behaviour_change_fails_the_visible_test(results, unit):
    changing = [r for r in results[unit] if r.changes_behaviour]
    assert changing  # the slice means something
    survivors = [r.mutant.change for r in changing
                 if not r.visible and (unit, r.mutant.change) not in VISIBLE_ALLOWANCE]
    assert not survivors, survivors


@pytest.mark.parametrize("unit", SLICE)
def test_walk_mistakes_get_their_ids(results, unit):
    """The walk's mistakes (tests.mutants.WALK) print the id their own variant matches, and none without one."""
    walked = [r for r in results[unit] if r.mutant.operator.startswith("walk")]
    assert len(walked) == len(WALK.get(unit, ()))
    for result in walked:
        expect = WALK[unit][result.mutant.occurrence][2]
        want = (expect,) if expect else ()
        assert result.printed["visible"] == want, (result.mutant.change, result.visible)
        assert result.printed["hidden"] == want or not result.hidden, (result.mutant.change, result.hidden)


@pytest.mark.parametrize("unit", SLICE)
def test_equivalent_mutants_say_why(results, unit):
    from tests.mutants.equivalent import why_equivalent

    unexplained = [r.mutant.change for r in results[unit] if not r.error and not r.changes_behaviour
                   and why_equivalent(r.mutant) == "no reason recorded"]
    assert not unexplained, unexplained


def test_the_judge_tells_a_wrong_id_from_a_right_one():
    """The walk's FFN without w_2 once got [ffn-activation-after-output]: the judge calls that id wrong there,
    and right on the FFN that does apply the ReLU after w_2."""
    from tests.mutants import build, judge_of

    judge = judge_of("PositionwiseFeedForward")
    walked = [m for m in mutants("PositionwiseFeedForward") if m.operator == "walk"]
    no_w2, relu_after = (judge.outcomes(build(walked[i])) for i in (0, 2))
    assert not judge.justified(("ffn-activation-after-output",), no_w2)
    assert judge.justified(("ffn-activation-after-output",), relu_after)
    assert not judge.justified(("ffn-no-activation",), relu_after)
