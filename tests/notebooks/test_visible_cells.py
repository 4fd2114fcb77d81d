"""Every visible test cell lets a named mistake speak first and turns every error into a message.

A unit with stored visible cases is checked through `check_visible(unit, candidate, *specific)`
(learner_kit/visible.py), which runs the notebook's own specific checks as well and lets a named
mistake outrank a generic symptom; the old pattern (`assert not problem, problem`, then the
specific checks) let the generic value check speak first and never reached them.
"""
import pytest

from learner_kit.visible import fingerprint_file
from tests.course_files import ASSIGNMENTS, source_notebook


def _visible_cells():
    for assignment in ASSIGNMENTS:
        for cell in source_notebook(assignment).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if cell.cell_type == "code" and grade_id.endswith("-visible"):
                yield assignment, grade_id[: -len("-visible")], cell.source


# units without stored cases (make_batch, noam_rate, greedy_decode) check themselves by their own means
CELLS = [(a, unit, source) for a, unit, source in _visible_cells() if fingerprint_file(unit).is_file()]


def test_there_are_visible_cells_to_look_at():
    assert len(CELLS) >= 20


@pytest.mark.parametrize("assignment, unit, source", CELLS, ids=[f"{a}:{u}" for a, u, _ in CELLS])
def test_a_unit_with_stored_cases_is_checked_by_check_visible(assignment, unit, source):
    assert f'check_visible("{unit}", {unit}' in source, source
    assert "assert not problem, problem" not in source
