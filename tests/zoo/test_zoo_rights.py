"""Every right answer of the zoo passes every aspect of its unit."""
import pytest

from . import load_all, run_check

BUGS, RIGHTS = load_all()


@pytest.mark.parametrize(
    "specimen, aspect",
    [pytest.param(s, a, id=f"{s.unit}-{s.name}-{a}") for s in RIGHTS for a in s.aspects],
)
def test_right_answer_passes(specimen, aspect):
    failure, printed = run_check(specimen, aspect)
    assert failure is None, str(failure)
    assert printed == f"✓ {specimen.unit}: {aspect} passed\n"
