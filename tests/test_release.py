"""course/ is made by `make release` from solutions/, never by hand, and gives no answer away."""
import pytest

from autograder.release import generate_release
from autograder.paths import EDITIONS, assignment_ids
from tests.course_files import ASSIGNMENTS, EDITION_ASSIGNMENTS, release_notebook, solution_lines, source_notebook

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")


def _cells(nb):
    return [(cell.cell_type, cell.source, cell.metadata.get("nbgrader")) for cell in nb.cells]


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    """{edition: a folder with everything `make release` generates for it now}"""
    releases = {}
    for lang in EDITIONS:
        releases[lang] = tmp_path_factory.mktemp(f"release-{lang}")
        if assignment_ids(lang):
            generate_release(assignment_ids(lang), releases[lang], lang)
    return releases


@pytest.mark.parametrize("lang, assignment", EDITION_ASSIGNMENTS)
def test_course_is_exactly_what_release_generates(lang, assignment, fresh_release):
    committed = release_notebook(assignment, lang=lang)
    regenerated = release_notebook(assignment, fresh_release[lang])
    assert _cells(committed) == _cells(regenerated), (
        f"the {lang} release of {assignment} differs from what `make release` generates from its solutions: "
        "edit notebooks/*.md, rebuild solutions/ and run `make release` instead of editing course/ by hand"
    )


@pytest.mark.parametrize("lang, assignment", EDITION_ASSIGNMENTS)
def test_release_notebook_holds_none_of_its_own_solution_lines(lang, assignment):
    text = "\n".join(cell.source for cell in release_notebook(assignment, lang=lang).cells)
    leaked = sorted(line for line in solution_lines(source_notebook(assignment, lang)) if line in text)
    assert not leaked, f"the {lang} release of {assignment} shows lines of its own solutions: {leaked}"


@pytest.mark.parametrize("lang, assignment", EDITION_ASSIGNMENTS)
def test_release_notebook_has_no_hidden_tests_or_outputs(lang, assignment):
    for cell in release_notebook(assignment, lang=lang).cells:
        assert "BEGIN HIDDEN TESTS" not in cell.source
        assert "BEGIN SOLUTION" not in cell.source
        assert not cell.get("outputs"), "release notebooks are handed out without outputs"


@pytest.mark.parametrize("lang, assignment", EDITION_ASSIGNMENTS)
def test_release_notebook_carries_the_metadata_its_kernel_writes(lang, assignment, fresh_release):
    """Opening it in JupyterLab does not mark it unsaved: kernelspec and the full language_info are there."""
    metadata = release_notebook(assignment, fresh_release[lang]).metadata
    assert metadata["course_language"] == lang, "the grader reads the submission's language from here"
    assert metadata["kernelspec"]["name"] == "python3"
    assert set(metadata["language_info"]) >= {"name", "version", "mimetype", "codemirror_mode", "pygments_lexer",
                                              "nbconvert_exporter", "file_extension"}

