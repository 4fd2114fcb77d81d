"""Every bug in the zoo fails its aspects naming its id (test_zoo_rights.py: right answers; test_zoo_blame.py:
one wrong helper costs one unit). Three files, so that parallel runs (pytest-xdist, --dist loadfile) spread them."""
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
    assert specimen.named_by(failure), str(failure)
    first_line = str(failure).splitlines()[0]
    assert first_line.startswith(f"[{specimen.expected_ids[0]}] ") or len(specimen.expected_ids) > 1, first_line
    for mistake_id in specimen.expected_ids:
        assert f"[{mistake_id}] " in str(failure)
