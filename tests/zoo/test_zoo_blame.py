"""One wrong helper costs its own unit only (blame.py)."""
import pytest

from .blame import blame_cases, blame_run


@pytest.mark.parametrize("case", blame_cases(), ids=str)
def test_a_wrong_helper_costs_only_its_own_unit(case):
    run = blame_run(case)
    assert run.losing == (run.helper,), f"a wrong {run.helper} ({run.specimen}) cost: {', '.join(run.losing) or 'nothing'}"
