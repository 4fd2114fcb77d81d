"""What a feedback page shows of the learner's figures, as the README says it (issue 36: it said the feedback showed
"its figures", and the pages had none). The course's notebooks draw every figure only outside grading
(learner_kit.plotting.grading(): drawing costs grading time, and notebook 10's guard keeps its training out of
it), so a graded notebook's page shows its printed results and the grader's messages, and the README says so.
tests/browser/test_instructor_formgrader.py opens a graded page and finds no image in it."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRAWS = re.compile(r"plt\.|attention_heatmap\(|attention_grid\(|\.imshow\(")


@pytest.mark.parametrize("folder", ["solutions", "ko/solutions", "challenge/solutions", "challenge/ko/solutions"])
def test_every_figure_of_the_course_is_drawn_outside_grading_only(folder):
    drawing = []
    for path in sorted((ROOT / folder).glob("*/*.ipynb")):
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "code" and DRAWS.search(source):
                drawing.append((path.name, number, "grading()" in source))
    assert drawing, f"no figure found in {folder}: the pattern no longer finds them"
    assert all(guarded for _, _, guarded in drawing), [d for d in drawing if not d[2]]


def test_the_readme_says_what_the_feedback_shows():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "printed, its figures)" not in text
    assert ("so a feedback page shows the learner's printed results and the grader's messages, not the maps, which "
            "the learner sees in the lab") in text
