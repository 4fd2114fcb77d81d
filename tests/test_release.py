"""course/ is made by `make release` from solutions/, never by hand, and gives no answer away."""
import pytest

from autograder.release import generate_release
from tests.course_files import ASSIGNMENTS, release_notebook, solution_lines, source_notebook

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")


def _cells(nb):
    return [(cell.cell_type, cell.source, cell.metadata.get("nbgrader")) for cell in nb.cells]


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    target = tmp_path_factory.mktemp("release")
    generate_release(ASSIGNMENTS, target)
    return target


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_course_is_exactly_what_release_generates(assignment, fresh_release):
    committed = release_notebook(assignment)
    regenerated = release_notebook(assignment, fresh_release)
    assert _cells(committed) == _cells(regenerated), (
        f"course/{assignment} differs from what `make release` generates from solutions/{assignment}: "
        "edit notebooks/*.md, rebuild solutions/ and run `make release` instead of editing course/ by hand"
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_notebook_holds_none_of_its_own_solution_lines(assignment):
    text = "\n".join(cell.source for cell in release_notebook(assignment).cells)
    leaked = sorted(line for line in solution_lines(source_notebook(assignment)) if line in text)
    assert not leaked, f"course/{assignment} shows lines of its own solutions: {leaked}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_notebook_has_no_hidden_tests_or_outputs(assignment):
    for cell in release_notebook(assignment).cells:
        assert "BEGIN HIDDEN TESTS" not in cell.source
        assert "BEGIN SOLUTION" not in cell.source
        assert not cell.get("outputs"), "release notebooks are handed out without outputs"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_notebook_carries_the_metadata_its_kernel_writes(assignment, fresh_release):
    """Opening it in JupyterLab does not mark it unsaved: kernelspec and the full language_info are there."""
    metadata = release_notebook(assignment, fresh_release).metadata
    assert metadata["kernelspec"]["name"] == "python3"
    assert set(metadata["language_info"]) >= {"name", "version", "mimetype", "codemirror_mode", "pygments_lexer",
                                              "nbconvert_exporter", "file_extension"}

