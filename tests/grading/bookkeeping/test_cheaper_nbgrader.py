"""cheaper_nbgrader.py: nbgrader's bookkeeping at less cost in a worker, with the same results and the same errors."""
import copy

import nbformat
import pytest
from jsonschema.validators import validator_for
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.preprocessors import CheckCellMetadata

from autograder.grading.bookkeeping.cheaper_nbgrader import (
    CheckCellMetadataCompiled,
    CompiledMetadataValidator,
    share_engines,
)
from autograder.grading.bookkeeping.config import Settings, scratch_config
from autograder.grading.bookkeeping.recorded_run import RecordedRun
from autograder.paths import put_python_scripts_on_path


def graded_cell(grade_id="unit", **changes):
    cell = nbformat.v4.new_code_cell("assert True")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "locked": True, "points": 1,
                                 "schema_version": 3, "solution": False, "task": False, **changes}
    return cell


def notebook(*cells):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# intro"), *cells])


def answer_cell(cell_type="code"):
    cell = (nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell)("x = 1")
    cell.metadata["nbgrader"] = {"grade": False, "grade_id": "answer", "locked": False, "schema_version": 3,
                                 "solution": True, "task": False}
    return cell


NOTEBOOKS = {
    "valid": notebook(answer_cell(), graded_cell()),
    "points not a number": notebook(graded_cell(points="two")),
    "grade not a bool": notebook(graded_cell(grade="yes")),
    "a key the schema does not know": notebook(graded_cell(extra=1)),
    "grade_id missing": notebook(graded_cell(grade_id=None)),
    "schema too old": notebook(graded_cell(schema_version=2)),
    "schema too new": notebook(graded_cell(schema_version=4)),
    "duplicate grade ids": notebook(graded_cell("same"), graded_cell("same")),
    "markdown solution cell not graded": notebook(graded_cell(), answer_cell("markdown")),
}
NOTEBOOKS["grade_id missing"].cells[1].metadata["nbgrader"].pop("grade_id")
NOTEBOOKS["nbgrader metadata not an object"] = notebook(graded_cell())
NOTEBOOKS["nbgrader metadata not an object"].cells[1].metadata["nbgrader"] = ["grade"]


def outcome(check, nb):
    """(exception type, message), or None where ``check`` accepted the notebook."""
    try:
        check(copy.deepcopy(nb))
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error), str(error)
    return None


@pytest.mark.parametrize("case", NOTEBOOKS)
def test_the_compiled_check_accepts_and_refuses_what_nbgraders_does_with_its_words(case):
    nbgraders = outcome(MetadataValidator().validate_nb, NOTEBOOKS[case])
    assert (nbgraders is None) == (case == "valid"), nbgraders
    assert outcome(CompiledMetadataValidator().validate_nb, NOTEBOOKS[case]) == nbgraders
    preprocessed = outcome(lambda nb: CheckCellMetadata().preprocess(nb, {}), NOTEBOOKS[case])
    assert outcome(lambda nb: CheckCellMetadataCompiled().preprocess(nb, {}), NOTEBOOKS[case]) == preprocessed


def test_the_schema_is_checked_once_per_process_not_for_every_cell(monkeypatch):
    CompiledMetadataValidator().validate_nb(NOTEBOOKS["valid"])  # the first check of the schema, if not made yet
    kind = validator_for(MetadataValidator().schema)
    checked = []
    monkeypatch.setattr(kind, "check_schema", classmethod(lambda cls, schema, **kw: checked.append(schema)))
    many = notebook(*[graded_cell(f"unit{k}") for k in range(30)])
    CheckCellMetadataCompiled().preprocess(many, {})
    assert checked == []
    with pytest.raises(ValidationError):
        CheckCellMetadataCompiled().preprocess(notebook(graded_cell(points="two")), {})
    CheckCellMetadata().preprocess(many, {})  # nbgrader's own: once a cell (what the compiled check saves)
    assert len(checked) == 30


def test_gradebooks_share_one_engine_per_database_and_still_see_each_others_writes(tmp_path):
    put_python_scripts_on_path()  # nbgrader runs alembic for a new gradebook
    share_engines()
    first, other = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    with Gradebook(first) as one:
        one.add_student("ada")
        engine = one.engine
    with Gradebook(first) as again, Gradebook(other) as elsewhere:
        assert again.engine is engine and elsewhere.engine is not engine
        assert [s.id for s in again.students] == ["ada"] and elsewhere.students == []
        again.add_student("grace")
    with Gradebook(first) as reopened:  # closed twice, the shared engine still opens connections
        assert sorted(s.id for s in reopened.students) == ["ada", "grace"]


def test_a_worker_course_uses_the_compiled_check_in_both_of_nbgraders_steps(tmp_path):
    config = scratch_config(Settings(source_dir=str(tmp_path)), tmp_path, f"sqlite:///{tmp_path / 'g.db'}")
    sanitize, autograde = config.Autograde.sanitize_preprocessors, config.Autograde.autograde_preprocessors
    assert CheckCellMetadata not in sanitize + autograde
    assert sanitize.count(CheckCellMetadataCompiled) == 1 and autograde.count(CheckCellMetadataCompiled) == 1
    assert RecordedRun in autograde and len(autograde) == 7 and len(sanitize) == 5  # nbgrader's steps, none lost
