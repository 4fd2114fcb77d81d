"""formgrader's drill-down on an `autograder grade` run: the gradebook holds each submission as nbgrader's
autograde would (notebooks, one grade per graded cell, comments), OUT/autograded/ holds the notebooks
formgrader opens, and a rerun keeps what the instructor graded by hand.

The browser side (the pages themselves) is tests/browser/test_instructor_formgrader.py.
"""
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.fixtures.grading_course import write_sources, write_submissions

ROOT = Path(__file__).resolve().parents[3]
STUDENTS = ["perfect", "mistake", "untouched"]
STAMP = "2026-11-20 09:30:00.000000 UTC"  # the form nbgrader's exchange writes


def grade_run(submitted, out, source):
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--jobs", "1",
               "--source", str(source), "--timeout", "15", "--budget", "30"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("drilldown")
    source = write_sources(base / "source")
    submitted = write_submissions(base / "submitted", STUDENTS)
    # untouched's fx-attn as nbgrader releases it, so that its answer cells' checksums match ("No response.")
    release = nbgrader_release(source, "fx-attn", base / "release-course")
    (submitted / "untouched" / "fx-attn" / "fx-attn.ipynb").write_bytes(release.read_bytes())
    (submitted / "mistake" / "fx-attn" / "timestamp.txt").write_text(STAMP + "\n", encoding="utf-8")
    out = base / "out"
    result = grade_run(submitted, out, source)
    records = json.loads((out / "results.json").read_text())
    return {"base": base, "source": source, "submitted": submitted, "out": out, "records": records, "stderr": result.stderr}


def nbgrader_release(source, assignment, scratch):
    """nbgrader's own release of ``assignment`` (generate_assignment in a scratch course): its notebook's path."""
    from nbgrader.apps import NbGraderAPI

    from autograder.grading.bookkeeping.config import Settings, scratch_config
    from autograder.paths import put_python_scripts_on_path

    put_python_scripts_on_path()
    scratch.mkdir(parents=True)
    api = NbGraderAPI(config=scratch_config(Settings(source_dir=str(source)), scratch, f"sqlite:///{scratch / 'gradebook.db'}"))
    assert api.generate_assignment(assignment, force=True, create=True)["success"]
    return scratch / "release" / assignment / f"{assignment}.ipynb"


def formgrader_api(run, submitted=None):
    """nbgrader's API as `make formgrader GRADED=OUT SUBMITTED=...` configures it (the Makefile's target; without
    SUBMITTED, OUT/autograded stands for it)."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(run["base"])
    config.CourseDirectory.db_url = f"sqlite:///{run['out'] / 'gradebook.db'}"
    config.CourseDirectory.submitted_directory = str(submitted or run["out"] / "autograded")
    config.CourseDirectory.autograded_directory = str(run["out"] / "autograded")
    return NbGraderAPI(config=config)


def test_each_submission_notebook_has_one_grade_per_graded_cell_equal_to_results(run):
    from nbgrader.api import Gradebook

    records = run["records"]
    assert {r["student"] for r in records} == set(STUDENTS)
    with Gradebook(f"sqlite:///{run['out'] / 'gradebook.db'}") as gradebook:
        for r in records:
            grade = gradebook.find_grade(r["grade_id"], r["notebook"], r["assignment"], r["student"])
            assert grade.auto_score == pytest.approx(r["points"]), r
            assert grade.manual_score is None and not grade.needs_manual_grade, r
        for student, assignment, notebook in {(r["student"], r["assignment"], r["notebook"]) for r in records}:
            submitted = gradebook.find_submission_notebook(notebook, assignment, student)
            graded = {r["grade_id"]: r["points"] for r in records if (r["student"], r["notebook"]) == (student, notebook)}
            assert {g.name: g.auto_score for g in submitted.grades} == pytest.approx(graded)
            assert submitted.score == pytest.approx(sum(graded.values()))
        stamped = gradebook.find_submission("fx-attn", "mistake").timestamp
        assert stamped is not None and stamped.isoformat().startswith("2026-11-20T09:30:00"), stamped
        untouched = gradebook.find_comment("scaled_scores", "fx-attn", "fx-attn", "untouched").auto_comment
        answered = gradebook.find_comment("scaled_scores", "fx-attn", "fx-attn", "perfect").auto_comment
    assert (untouched, answered) == ("No response.", None)
    assert 0 < sum(r["points"] for r in records if r["student"] == "mistake") < sum(
        r["max_points"] for r in records if r["student"] == "mistake")


def test_the_autograded_notebooks_are_kept_with_outputs_and_messages(run):
    out = run["out"]
    for r in run["records"]:
        assert (out / "autograded" / r["student"] / r["assignment"] / f"{r['notebook']}.ipynb").is_file(), r
    nb = nbformat.read(str(out / "autograded" / "mistake" / "fx-attn" / "fx-attn.ipynb"), as_version=4)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    printed = "".join(o.get("text", "") for o in cells["scaled_scores-visible"].outputs if o.output_type == "stream")
    assert "This test passed." in printed, cells["scaled_scores-visible"].outputs  # the verdict, not the learner's print
    errors = [o for o in cells["scaled_scores-hidden-values"].outputs if o.output_type == "error"]
    assert errors and any("sdpa-no-scale" in o.evalue for o in errors), cells["scaled_scores-hidden-values"].outputs
    assert "BEGIN HIDDEN TESTS" in cells["scaled_scores-hidden-values"].source  # formgrader is the instructor's


def test_formgrader_lists_the_notebooks_as_autograded(run):
    # the gradebook's timestamp matches timestamp.txt's, in SUBMITTED and in OUT/autograded alike
    assert formgrader_api(run).get_autograded_students("fx-attn") == set(STUDENTS)
    api = formgrader_api(run, run["submitted"])
    assert api.get_autograded_students("fx-attn") == set(STUDENTS)
    for student in STUDENTS:
        for notebook in api.get_student_notebook_submissions(student, "fx-attn"):
            assert notebook["id"] is not None, notebook  # None: "not autograded" in formgrader
    listed = {s["student"]: s for s in api.get_notebook_submissions("fx-attn", "fx-attn")}
    assert set(listed) == set(STUDENTS)
    mistake = [r for r in run["records"] if (r["student"], r["notebook"]) == ("mistake", "fx-attn")]
    assert listed["mistake"]["score"] == pytest.approx(sum(r["points"] for r in mistake))
    assert listed["mistake"]["failed_tests"] and not listed["perfect"]["failed_tests"]


def test_a_rerun_keeps_the_manual_grade_and_regrades_a_lost_notebook(run):
    from nbgrader.api import Gradebook

    db = f"sqlite:///{run['out'] / 'gradebook.db'}"
    lost = next(r for r in run["records"] if r["student"] == "mistake" and r["points"] < r["max_points"])
    with Gradebook(db) as gradebook:
        entry = gradebook.find_grade(lost["grade_id"], lost["notebook"], lost["assignment"], "mistake")
        entry.manual_score = lost["max_points"]  # the instructor's judgement, as formgrader's API stores it
        gradebook.db.commit()
        flagged = gradebook.find_submission_notebook("fx-ctrl", "fx-ctrl", "perfect")
        flagged.flagged = True
        gradebook.db.commit()
    gone = run["out"] / "autograded" / "untouched" / "fx-ctrl" / "fx-ctrl.ipynb"
    gone.unlink()
    result = grade_run(run["submitted"], run["out"], run["source"])
    # Only untouched/fx-ctrl is graded again where the grader's code is unchanged since the first run (other
    # files of autograder/grading/ edited meanwhile regrade all: then the manual grade must survive a regrade).
    assert "untouched/fx-ctrl:" in result.stderr, result.stderr[-2000:]
    assert gone.is_file()
    assert json.loads((run["out"] / "results.json").read_text()) == run["records"]
    with Gradebook(db) as gradebook:
        entry = gradebook.find_grade(lost["grade_id"], lost["notebook"], lost["assignment"], "mistake")
        assert (entry.manual_score, entry.auto_score) == (lost["max_points"], lost["points"])
        assert not entry.needs_manual_grade  # its automatic score did not change: nothing to review
        assert entry.score == lost["max_points"]
        assert gradebook.find_submission_notebook("fx-ctrl", "fx-ctrl", "perfect").flagged
        mistake = sum(r["points"] for r in run["records"] if (r["student"], r["assignment"]) == ("mistake", "fx-attn"))
        assert gradebook.find_submission("fx-attn", "mistake").score == pytest.approx(mistake + lost["max_points"] - lost["points"])


def test_a_changed_automatic_score_under_a_manual_grade_is_marked_for_review(tmp_path):
    """The gradebook writer alone: nbgrader's rule (SaveAutoGrades) when the automatic score changes."""
    from nbgrader.api import Gradebook

    from autograder.grading.bookkeeping.gradebook import store_scores

    db = _fresh_db(tmp_path)
    record = {"student": "ada", "assignment": "fx-ctrl", "notebook": "fx-ctrl", "grade_id": "add-visible", "points": 1, "max_points": 1}
    store_scores(f"sqlite:///{db}", [record])
    with Gradebook(f"sqlite:///{db}") as gradebook:
        gradebook.find_grade("add-visible", "fx-ctrl", "fx-ctrl", "ada").manual_score = 0.5
        gradebook.db.commit()
    store_scores(f"sqlite:///{db}", [{**record, "points": 0}])
    with Gradebook(f"sqlite:///{db}") as gradebook:
        entry = gradebook.find_grade("add-visible", "fx-ctrl", "fx-ctrl", "ada")
        assert (entry.auto_score, entry.manual_score, entry.needs_manual_grade) == (0, 0.5, True)


def _fresh_db(tmp_path):
    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.bookkeeping.gradebook import register_assignments

    source = write_sources(tmp_path / "source")
    path = tmp_path / "gradebook.db"
    register_assignments(Settings(source_dir=str(source)), f"sqlite:///{path}", ["fx-ctrl"])
    return path


def test_a_saved_result_whose_autograded_notebook_is_gone_is_graded_again(tmp_path):
    from autograder.grading.bookkeeping.layout import Submission
    from autograder.grading.run.state import autograded_path, read_comments, read_state, write_state

    submission = Submission("ada", "fx-ctrl", tmp_path / "submitted" / "ada" / "fx-ctrl")
    kept = autograded_path(tmp_path, "ada", "fx-ctrl", "fx-ctrl")
    kept.parent.mkdir(parents=True)
    kept.write_text("{}", encoding="utf-8")
    write_state(tmp_path, submission, "key", [{"points": 1}], {"fx-ctrl": {"add": "No response."}})
    assert read_comments(tmp_path, submission) == {"fx-ctrl": {"add": "No response."}}
    assert read_state(tmp_path, submission, "key") == [{"points": 1}]
    kept.unlink()
    assert read_state(tmp_path, submission, "key") is None
