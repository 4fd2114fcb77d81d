"""Every bug in the zoo fails its aspects naming its id; every right answer passes everything."""
import pytest

from . import load_all, run_check

BUGS, RIGHTS = load_all()


@pytest.mark.parametrize(
    "specimen, aspect",
    [pytest.param(s, a, id=f"{s.expect}-{s.name}-{a}") for s in BUGS for a in s.aspects],
)
def test_bug_is_caught_and_named(specimen, aspect):
    failure, printed = run_check(specimen, aspect)
    assert failure is not None, f"{specimen.name} passed {aspect}: {printed}"
    first_line = str(failure).splitlines()[0]
    assert failure.mistake_id == specimen.expect, str(failure)
    assert first_line.startswith(f"[{specimen.expect}] ")


@pytest.mark.parametrize(
    "specimen, aspect",
    [pytest.param(s, a, id=f"{s.unit}-{s.name}-{a}") for s in RIGHTS for a in s.aspects],
)
def test_right_answer_passes(specimen, aspect):
    failure, printed = run_check(specimen, aspect)
    assert failure is None, str(failure)
    assert printed == f"✓ {specimen.unit}: {aspect} passed\n"
