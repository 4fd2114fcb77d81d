"""The learner walkthrough: realistic mistakes, one at a time, and what the notebook tells the learner.

Each `cases_<notebook>.py` lists Mistake rows; runner.py plays one in the notebook as a learner
would (the earlier blanks answered, this unit's answer cell replaced by the mistake, then the
cells up to the unit's visible test); test_walkthrough.py asserts every row is named as listed;
`python -m tests.walkthrough.table` writes notebooks/WALKTHROUGH.md from the rows and the
messages they get.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    """One realistic wrong answer and what its message must name.

    `code` replaces the whole answer cell of `unit`. `expect` is the id the visible test must
    name ('' for a mistake the visible test cannot see, with `why_unseen` saying why and
    `hidden` naming the id the grader's hidden check gives). `helpful` and `gives_away` are a
    reader's judgement of the message, recorded when the row was written.
    """

    notebook: str
    unit: str
    what: str
    code: str
    expect: str
    helpful: str = "yes"
    gives_away: str = "no"
    why_unseen: str = ""
    later_cells: bool = True  # also run the cells after the test cell (figures must not crash)
