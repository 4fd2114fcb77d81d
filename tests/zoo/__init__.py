"""The zoo: implementations written as learners write them, run through autograder.checks.

Bugs must fail the listed aspects with the expected id; right answers must pass every
aspect of their unit. They are written independently of the checks' mutants (other
styles, other code paths), so that the checks are not tested against themselves.

A family adds a module named zoo_<family>.py here that decorates its specimens with
@bug(...) or @right(...); load_all() finds it.
"""
import contextlib
import importlib
import io
import pkgutil
from dataclasses import dataclass
from typing import Callable

from autograder.checks import CheckFailure, aspects_of, check


@dataclass(frozen=True)
class Specimen:
    unit: str
    candidate: object
    expect: str | tuple | None  # the id (or ids, for several mistakes at once) the check must name; None: right
    aspects: tuple  # aspects to run (a right answer: all of its unit's)
    patch: Callable | None = None  # context manager active during the check (tampering)
    visible: str | None = None  # the id the unit's visible test cell (the notebook's, English) must print; None: not run

    @property
    def expected_ids(self):
        return self.expect if isinstance(self.expect, tuple) else (self.expect,)

    def named_by(self, failure):
        """Whether `failure` names exactly the expected ids (in any order)."""
        return failure is not None and set(failure.mistake_ids) == set(self.expected_ids)

    @property
    def name(self):
        return getattr(self.candidate, "__name__", None) or getattr(self.patch, "__name__", "specimen")


BUGS, RIGHTS = [], []


def bug(unit, mistake_id, *aspects, patch=None, visible=None):
    """Register a wrong `unit` that must fail each aspect (default: values) naming `mistake_id`.

    `mistake_id` is a tuple for code with several mistakes at once: each must be named. With `visible`, the
    unit's visible test cell in its notebook must fail too, its message starting with `[visible]`
    (test_zoo_visible.py): a visible test that passes the bug, or names a mistake it did not make, fails."""

    def register(candidate):
        BUGS.append(Specimen(unit, candidate, mistake_id, aspects or ("values",), patch, visible))
        return candidate

    return register


def right(unit):
    """Register a right `unit`: it must pass every aspect the unit has."""

    def register(candidate):
        RIGHTS.append(Specimen(unit, candidate, None, aspects_of(unit)))
        return candidate

    return register


def load_all():
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("zoo_"):
            importlib.import_module(f"{__name__}.{module.name}")
    return BUGS, RIGHTS


def run_check(specimen, aspect):
    """(failure, printed): the CheckFailure raised (or None) and what a passing check printed."""
    printed = io.StringIO()
    with specimen.patch() if specimen.patch else contextlib.nullcontext(), contextlib.redirect_stdout(printed):
        try:
            check(specimen.unit, specimen.candidate, aspect)
        except CheckFailure as failure:
            return failure, ""
    return None, printed.getvalue()


@contextlib.contextmanager
def patched(owner, name, value):
    """Replace owner.name by value for the duration, as a learner's notebook might."""
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)
