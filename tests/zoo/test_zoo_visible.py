"""The visible test cell of a notebook (English), run on a zoo bug that lists `visible=`: it must fail, and its
message must start with that id. A visible test that passes the bug, or names a mistake the code did not make (a
heuristic that fits several mistakes), fails here. The cell runs as in its notebook, after the provided code: the
other units of the course are the reference's, the unit under test is the specimen."""
import pytest

from tests.visible_cells import visible_cell_message

from . import load_all

BUGS, _ = load_all()


def visible_message(specimen):
    """The first line the visible cell raises with the specimen as its unit, or '' when it passes."""
    names = specimen.visible[1] if isinstance(specimen.visible, tuple) else {}
    message = visible_cell_message(specimen.unit, specimen.candidate, names)
    return message.splitlines()[0] if message else ""


@pytest.mark.parametrize("specimen", [pytest.param(s, id=f"{s.unit}-{s.name}") for s in BUGS if s.visible])
def test_visible_cell_fails_and_names_only_what_is_proven(specimen):
    expected = specimen.visible[0] if isinstance(specimen.visible, tuple) else specimen.visible
    message = visible_message(specimen)
    assert message, f"{specimen.name} passed the visible test of {specimen.unit}"
    assert message.startswith(f"[{expected}] "), message
