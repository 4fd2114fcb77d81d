"""A property check says what it observed; a cause only where one is proven (issue 48).

A property of one unit (a function `(outcome, case) -> sentence or ''`, see core.UnitSpec.properties) that sees a
symptom may know causes that would give it: dropout applied twice, dropout on another term. Such a property returns
an `Observed`: its text is the observation alone (what was run, what came out, where), and it carries the causes
with the knob settings of the reference that have each (`Cause.variants`). The checker (core._Checker) adds a
cause's sentence only when one of its variants reproduces the learner's results on that cell's cases: the same
outcome on every case of the properties aspect and every probe (each run with a fixed torch seed, so that a dropout
acting in evaluation mode draws alike), and the same finding of the property itself (`Observed.key`). Otherwise the
message is the observation, and where the computation parts from the reference when that can be told: the same
rule as a named mistake's id, which a knob must also reproduce.
"""
from dataclasses import dataclass, replace
from typing import Callable

from learner_kit import harness


@dataclass(frozen=True)
class Cause:
    """One cause a property may state: its sentence (a function, so that it speaks the learner's language when it
    is said) and the knobbed variants of the reference that have exactly that cause."""

    sentence: Callable[[], str]
    variants: tuple


class Observed(str):
    """What a property observed (the str itself), the causes that may explain it, and `key`: what a variant of the
    reference must also make the property find (by default the text; a finding read from random draws gives a key
    of what is not random in it)."""

    def __new__(cls, text, causes=(), key=None):
        found = super().__new__(cls, text)
        found.causes, found.key = tuple(causes), (str(text) if key is None else key)
        return found


def _seeded(case):
    return case if case.torch_seed is not None else replace(case, torch_seed=0)


def reproduces(checker, variant, prop, finding, case):
    """Whether `variant` behaves like the learner's unit on the cell's cases and makes `prop` find what it found."""
    spec = checker.spec
    for one in (case, *spec.cases["properties"](), *spec.probes()):
        one = _seeded(one)
        if not harness.same_outcome(checker.run(one), harness.run(variant, checker.call, one), one):
            return False
    theirs = harness.run(variant, checker.call, case)
    if theirs.outputs is None:
        return False
    found = prop(theirs, case)
    return isinstance(found, Observed) and found.key == finding.key


def explained(checker, prop, finding, case):
    """The finding's text, followed by the sentence of the first of its causes that a variant proves, if any."""
    text = str(finding)
    for cause in getattr(finding, "causes", ()):
        if any(reproduces(checker, variant, prop, finding, case) for variant in cause.variants):
            return f"{text} {cause.sentence()}"
    return text
