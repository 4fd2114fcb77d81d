"""A pair of known mistakes whose results differed from a learner's unit on one case is not tried again for that
unit (core._Checker._pairs_ruled_out): the later aspects' diagnoses run fewer known mistakes and say the same,
and a learner who makes a pair still has it named in every aspect."""
import torch

from autograder import reference
from autograder.checks import ASPECTS, UNITS, CheckFailure, core
from autograder.checks.core import mistake_pairs
from learner_kit import harness
from learner_kit.calls import CallOutcome, Case
from learner_kit.naming import name_mistake


class _Unwatched(core._Checker):
    """A checker without the runtime guards, so that a test's own class can stand for a learner's."""

    def run(self, case, backprop=None, trace=False):
        return harness.run(self.candidate, self.call, case, backprop=backprop, trace=trace)


class _CrossResidualDropped(reference.DecoderLayer):
    """A mistake no known mistake or pair explains: no residual around cross-attention."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


def _failures(candidate, aspects, fresh_candidate_each_time):
    """{aspect: (mistake id, message)} of the aspects that fail, and the known outcomes each diagnosis asked for."""
    spec, found, asked = UNITS["DecoderLayer"], {}, {}
    original = core._Checker.known_outcome

    for aspect in aspects:
        count = [0]

        def counting(self, *args, count=count):
            count[0] += 1
            return original(self, *args)

        unit = type(candidate.__name__, (candidate,), {}) if fresh_candidate_each_time else candidate
        core._Checker.known_outcome = counting
        try:
            checker = _Unwatched(spec, unit, aspect)
            getattr(checker, ASPECTS[aspect])(aspect)
        except CheckFailure as failure:
            found[aspect] = (failure.mistake_id, str(failure))
        finally:
            core._Checker.known_outcome = original
        asked[aspect] = count[0]
    return found, asked


ASPECTS_WITH_VALUES = ("values", "masks", "float64")


def test_later_aspects_try_fewer_known_mistakes_and_say_the_same():
    kept, asked = _failures(_CrossResidualDropped, ASPECTS_WITH_VALUES, fresh_candidate_each_time=False)
    alone, asked_alone = _failures(_CrossResidualDropped, ASPECTS_WITH_VALUES, fresh_candidate_each_time=True)
    assert kept.keys() == set(ASPECTS_WITH_VALUES) and kept == alone
    pairs = len(mistake_pairs("DecoderLayer"))
    assert asked["values"] == asked_alone["values"] >= pairs
    for aspect in ASPECTS_WITH_VALUES[1:]:
        assert asked_alone[aspect] >= pairs, aspect
        assert asked[aspect] < pairs, f"{aspect}: the pairs ruled out on 'values' were tried again"


def test_a_pair_made_by_the_learner_is_named_in_every_aspect():
    (first, second), variant = next((ids, v) for ids, v in mistake_pairs("DecoderLayer") if ids[0] != ids[1])
    # a subclass of the pair, so that the checks run it as a learner's class (not as their own variant)
    learner = type("DecoderLayer", (variant,), {})
    kept, _ = _failures(learner, ASPECTS_WITH_VALUES, fresh_candidate_each_time=False)
    assert kept, "the pair fails no aspect"
    for aspect, (mistake_id, _) in kept.items():
        assert set(mistake_id if isinstance(mistake_id, tuple) else (mistake_id,)) <= {first, second}, aspect


def _outcome(value):
    return CallOutcome(inputs={}, outputs={"output": torch.tensor([value])})


def test_name_mistake_reports_only_the_known_mistakes_unlike_the_learner():
    cases = [Case(inputs={}, label="failing"), Case(inputs={}, label="probe")]
    learner, want = [_outcome(1.0), _outcome(2.0)], _outcome(0.0)
    variants = [
        ("like the reference on the failing case", [_outcome(0.0), _outcome(5.0)]),
        ("unlike on the failing case", [_outcome(3.0), _outcome(2.0)]),
        ("unlike on the probe", [_outcome(1.0), _outcome(4.0)]),
        ("the learner's", [_outcome(1.0), _outcome(2.0)]),
        ("after the one named", [_outcome(9.0), _outcome(9.0)]),
    ]
    unlike = []
    assert name_mistake(learner, iter(variants), cases, want, unlike=unlike.append) == "the learner's"
    assert unlike == [1, 2]
