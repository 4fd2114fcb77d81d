"""Done-when of the notebooks: through real nbgrader autograde (`autograder grade`), every source
notebook scores full marks and every untouched release notebook scores 0; and a wrong answer
that replaces the checks themselves scores exactly what the same wrong answer scores honestly.

Parametrized over solutions/*/, so it covers notebooks as they land; one grading run for all.
The Korean edition (ko/solutions, ko/course) is graded in the same run, against the same sources:
the same points, the feedback in Korean.
"""
import json
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder.paths import COURSE, ROOT, SOLUTIONS, assignment_ids, course_dir, solutions_dir
from tests.course_files import NO_SCALE_ATTENTION

ASSIGNMENTS = assignment_ids()
KOREAN = assignment_ids("ko")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
# What the cheat adds to a wrong attention (NO_SCALE_ATTENTION): the hidden and visible checks replaced.
REPLACING_THE_CHECKS = """
import autograder.checks, autograder.checks.core, learner_kit.visible
autograder.checks.check = autograder.checks.core.check = lambda *args, **kwargs: print("passed")
learner_kit.visible.visible_problem = lambda *args, **kwargs: ""
"""


def write_attention_answer(submitted, student, source, release=COURSE):
    nb = nbformat.read(release / "01-attention" / "01-attention.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scaled_dot_product_attention":
            cell.source = source
    (submitted / student / "01-attention").mkdir(parents=True)
    nbformat.write(nb, submitted / student / "01-attention" / "01-attention.ipynb")


@pytest.fixture(scope="module")
def graded_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("notebooks")
    for student, folder in (("perfect", SOLUTIONS), ("untouched", COURSE),
                            ("perfect-ko", solutions_dir("ko")), ("untouched-ko", course_dir("ko"))):
        for assignment in ASSIGNMENTS:
            notebook = folder / assignment / f"{assignment}.ipynb"
            if notebook.is_file():
                (base / "submitted" / student / assignment).mkdir(parents=True)
                shutil.copyfile(notebook, base / "submitted" / student / assignment / notebook.name)
    if "01-attention" in ASSIGNMENTS:
        write_attention_answer(base / "submitted", "honest-no-scale", NO_SCALE_ATTENTION)
        write_attention_answer(base / "submitted", "cheat-check", NO_SCALE_ATTENTION + REPLACING_THE_CHECKS)
    if "01-attention" in KOREAN:
        write_attention_answer(base / "submitted", "honest-no-scale-ko", NO_SCALE_ATTENTION, course_dir("ko"))
    command = [sys.executable, "-m", "autograder", "grade", str(base / "submitted"), "--out", str(base / "out"), "--jobs", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((base / "out" / "results.json").read_text()), base / "out"


@pytest.fixture(scope="module")
def graded(graded_run):
    return graded_run[0]


def cells(graded, student, assignment):
    return [r for r in graded if (r["student"], r["assignment"]) == (student, assignment)]


@pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_source_notebook_scores_full_marks(graded, assignment):
    records = cells(graded, "perfect", assignment)
    assert records, f"no graded cells for {assignment}"
    lost = {r["grade_id"]: r["feedback"] for r in records if r["points"] != r["max_points"]}
    assert not lost, lost


@pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_release_scores_zero(graded, assignment):
    if not (COURSE / assignment / f"{assignment}.ipynb").is_file():
        pytest.skip(f"course/{assignment} not released yet")
    records = cells(graded, "untouched", assignment)
    assert records and sum(r["points"] for r in records) == 0, [(r["grade_id"], r["points"]) for r in records if r["points"]]


@pytest.mark.skipif("01-attention" not in ASSIGNMENTS, reason="01-attention not written yet")
def test_replacing_the_checks_gains_nothing(graded):
    cheat = {r["grade_id"]: r["points"] for r in cells(graded, "cheat-check", "01-attention")}
    honest = {r["grade_id"]: r["points"] for r in cells(graded, "honest-no-scale", "01-attention")}
    assert cheat and cheat == honest
    assert honest["scaled_dot_product_attention-hidden-values"] == 0  # (device and properties are earned: they hold)
    values = next(r for r in cells(graded, "cheat-check", "01-attention") if r["grade_id"].endswith("hidden-values"))
    assert any("[sdpa-no-scale]" in message for message in values["feedback"]), values


@pytest.mark.parametrize("assignment", KOREAN)
def test_korean_edition_grades_like_the_english_one(graded, assignment):
    """The Korean source scores full marks and the untouched Korean release 0, cell for cell as in English."""
    perfect = {r["grade_id"]: (r["points"], r["max_points"]) for r in cells(graded, "perfect-ko", assignment)}
    assert perfect == {r["grade_id"]: (r["points"], r["max_points"]) for r in cells(graded, "perfect", assignment)}
    assert all(points == most for points, most in perfect.values()), perfect
    untouched = cells(graded, "untouched-ko", assignment)
    assert untouched and sum(r["points"] for r in untouched) == 0
    said = [line for r in untouched for line in r["feedback"] if "[not-implemented]" in line]
    assert said and all(HANGUL.search(line) for line in said), said[:2]


@pytest.mark.skipif("01-attention" not in KOREAN, reason="no Korean 01-attention")
def test_korean_feedback_names_the_same_mistake_in_korean(graded):
    korean = {r["grade_id"]: r for r in cells(graded, "honest-no-scale-ko", "01-attention")}
    english = {r["grade_id"]: r for r in cells(graded, "honest-no-scale", "01-attention")}
    assert {k: r["points"] for k, r in korean.items()} == {k: r["points"] for k, r in english.items()}
    ids = re.compile(r"\[([a-z0-9-]+)\]")
    for grade_id, record in korean.items():
        assert sorted(ids.findall(" ".join(record["feedback"]))) == sorted(ids.findall(" ".join(english[grade_id]["feedback"])))
    values = "\n".join(korean["scaled_dot_product_attention-hidden-values"]["feedback"])
    assert "[sdpa-no-scale]" in values and HANGUL.search(values), values
    assert not HANGUL.search("\n".join(english["scaled_dot_product_attention-hidden-values"]["feedback"]))


@pytest.mark.skipif("01-attention" not in KOREAN, reason="no Korean 01-attention")
def test_korean_feedback_page_shows_the_korean_test_cells(graded_run):
    """A Korean submission is autograded against the Korean source: its feedback page keeps the Korean visible test."""
    _, out = graded_run
    korean = (out / "feedback" / "honest-no-scale-ko" / "01-attention" / "01-attention.html").read_text(encoding="utf-8")
    english = (out / "feedback" / "honest-no-scale" / "01-attention" / "01-attention.html").read_text(encoding="utf-8")
    said = "여러분의 코드가 직접 계산합니다"  # the docstring of a check in the Korean visible test cell
    assert said in korean and said not in english
    assert "BEGIN HIDDEN TESTS" not in korean and "[sdpa-no-scale]" in korean
