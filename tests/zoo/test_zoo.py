"""Every bug in the zoo fails its aspects naming its id; every right answer passes everything."""
import pytest

from . import load_all, run_check
from .blame import blame_cases, blame_run

BUGS, RIGHTS = load_all()


@pytest.mark.parametrize(
    "specimen, aspect",
    [pytest.param(s, a, id=f"{s.expect}-{s.name}-{a}") for s in BUGS for a in s.aspects],
)
def test_bug_is_caught_and_named(specimen, aspect):
    failure, printed = run_check(specimen, aspect)
    assert failure is not None, f"{specimen.name} passed {aspect}: {printed}"
    assert specimen.named_by(failure), str(failure)
    first_line = str(failure).splitlines()[0]
    assert first_line.startswith(f"[{specimen.expected_ids[0]}] ") or len(specimen.expected_ids) > 1, first_line
    for mistake_id in specimen.expected_ids:
        assert f"[{mistake_id}] " in str(failure)


@pytest.mark.parametrize(
    "specimen, aspect",
    [pytest.param(s, a, id=f"{s.unit}-{s.name}-{a}") for s in RIGHTS for a in s.aspects],
)
def test_right_answer_passes(specimen, aspect):
    failure, printed = run_check(specimen, aspect)
    assert failure is None, str(failure)
    assert printed == f"✓ {specimen.unit}: {aspect} passed\n"


@pytest.mark.parametrize("case", blame_cases(), ids=str)
def test_a_wrong_helper_costs_only_its_own_unit(case):
    run = blame_run(case)
    assert run.losing == (run.helper,), f"a wrong {run.helper} ({run.specimen}) cost: {', '.join(run.losing) or 'nothing'}"
