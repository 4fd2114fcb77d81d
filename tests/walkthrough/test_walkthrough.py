"""Every walkthrough row gets the message it is listed with: the named id, and no later cell crashing."""
import pytest

from tests.course_files import ASSIGNMENTS
from tests.walkthrough.rows import all_rows
from tests.walkthrough.runner import named_id, play

ROWS = [row for row in all_rows() if row.notebook in ASSIGNMENTS]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.notebook}:{r.unit}:{r.what[:40]}" for r in ROWS])
def test_the_learner_reads_the_right_message(row):
    played = play(row)
    if row.expect:
        assert not played.passed, f"the visible test passed: {played.message}"
        assert named_id(played.message) == row.expect, played.message
        assert "Traceback" not in played.message
    else:
        assert row.why_unseen, "a mistake the visible test lets through says why"
        assert played.passed, played.message
    assert not played.later_error, f"a later cell crashed after the failed test: {played.later_error}"


def test_every_notebook_is_walked_through():
    walked = {row.notebook for row in ROWS}
    assert walked == set(ASSIGNMENTS)
