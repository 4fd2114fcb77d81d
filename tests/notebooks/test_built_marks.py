"""Every built notebook says it is built, and from what (autograder.build_notebooks.built_mark).

The 80 notebooks of solutions/, course/, challenge/ and ko/ are built from notebooks/*.md (and notebooks/ko/):
each names its source in its metadata and says not to edit it. The maintainers' copies (solutions/) show that as
their first cell, one line; the released copies (course/) do not: learners are not told what not to edit. Rebuilding
a notebook into a temporary folder gives the committed file.
"""
import json
from pathlib import Path

import nbformat
import pytest

from autograder.build_notebooks import BUILT_KEY, MARK_CELL_ID, build
from autograder.levels import LEVELS
from autograder.paths import EDITIONS, ROOT, course_dir, solutions_dir, sources_dir
from autograder.release import generate_release
from learner_kit.i18n import METADATA_KEY
from tests.course_files import ASSIGNMENTS, LEVEL_ASSIGNMENTS

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")

SOURCE_COPIES = [solutions_dir(lang, level) / assignment / f"{assignment}.ipynb"
                 for lang, level, assignment in LEVEL_ASSIGNMENTS]
RELEASED_COPIES = [course_dir(lang, level) / assignment / f"{assignment}.ipynb"
                   for lang, level, assignment in LEVEL_ASSIGNMENTS]
BUILT_FOLDERS = ("solutions", "course", "challenge", "ko")


def every_notebook():
    """Every notebook under the folders that hold built notebooks, whoever put it there."""
    return sorted(path for folder in BUILT_FOLDERS for path in (ROOT / folder).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in path.parts)


def mark_problems(path: Path):
    """What is wrong with the mark of the built notebook at ``path`` ([] when nothing)."""
    nb = nbformat.read(path, as_version=4)
    mark = nb.metadata.get(BUILT_KEY)
    if not isinstance(mark, dict) or not mark.get("built_from"):
        return [f"no metadata {BUILT_KEY}.built_from"]
    expected = sources_dir(nb.metadata.get(METADATA_KEY, "en")) / f"{path.parent.name}.md"
    problems = []
    if (ROOT / mark["built_from"]).resolve() != expected.resolve():
        problems.append(f"built_from is {mark['built_from']!r}, not {expected.relative_to(ROOT).as_posix()!r}")
    if not expected.is_file():
        problems.append(f"its source {expected.relative_to(ROOT).as_posix()} does not exist")
    if not mark.get("note", "").startswith("Do not edit") or mark["built_from"] not in mark["note"]:
        problems.append(f"no 'Do not edit' note naming the source: {mark.get('note')!r}")
    return problems


def without_kernel_version(path: Path):
    """The notebook's JSON, less its language_info (the release stamps the running Python's version there)."""
    content = json.loads(path.read_text(encoding="utf-8"))
    content["metadata"].pop("language_info", None)
    return content


def test_every_built_notebook_is_one_of_the_course():
    """Nothing under the built folders escapes the other tests: 2 copies x editions x levels x notebooks."""
    assert every_notebook() == sorted(SOURCE_COPIES + RELEASED_COPIES)
    assert len(SOURCE_COPIES) == len(EDITIONS) * len(LEVELS) * len(ASSIGNMENTS)


@pytest.mark.parametrize("path", every_notebook(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_notebook_names_the_source_it_is_built_from(path):
    assert mark_problems(path) == [], f"{path.relative_to(ROOT)}: rebuild it (python -m autograder.build_notebooks)"


@pytest.mark.parametrize("path", SOURCE_COPIES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_maintainers_copy_says_so_in_its_first_cell(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert (first.id, first.cell_type) == (MARK_CELL_ID, "markdown"), "the mark is the first cell"
    assert nb.metadata[BUILT_KEY]["built_from"] in first.source and len(first.source.splitlines()) == 1
    assert "nbgrader" not in first.metadata, "an ordinary cell: nbgrader neither grades nor locks it"


@pytest.mark.parametrize("path", RELEASED_COPIES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_released_copy_shows_learners_no_mark(path):
    nb = nbformat.read(path, as_version=4)
    assert all(cell.id != MARK_CELL_ID for cell in nb.cells)
    assert not any(nb.metadata[BUILT_KEY]["built_from"] in cell.source for cell in nb.cells)


def test_a_notebook_without_its_mark_or_with_a_wrong_source_is_caught(tmp_path):
    """mark_problems is not blind."""
    original = nbformat.read(SOURCE_COPIES[0], as_version=4)
    folder = tmp_path / SOURCE_COPIES[0].parent.name
    folder.mkdir()
    doctored = folder / SOURCE_COPIES[0].name
    original.metadata[BUILT_KEY] = {**original.metadata[BUILT_KEY], "built_from": "notebooks/99-gone.md"}
    nbformat.write(original, doctored)
    assert mark_problems(doctored)[0].startswith("built_from is 'notebooks/99-gone.md', not 'notebooks/")
    del original.metadata[BUILT_KEY]
    nbformat.write(original, doctored)
    assert mark_problems(doctored) == [f"no metadata {BUILT_KEY}.built_from"]


@pytest.mark.parametrize("lang", EDITIONS)
def test_rebuilding_a_challenge_notebook_gives_the_committed_file(lang, tmp_path):
    """The challenge level is built without running (it takes the committed guided notebook's outputs): the whole
    file, metadata, ids and outputs, is what the builder writes."""
    assignment = ASSIGNMENTS[0]
    rebuilt = build(assignment, lang=lang, level="challenge", to=tmp_path)
    committed = solutions_dir(lang, "challenge") / assignment / f"{assignment}.ipynb"
    assert rebuilt.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), (
        f"{committed.relative_to(ROOT)} is not what the builder writes: "
        f"python -m autograder.build_notebooks --lang {lang} --level challenge {assignment}")


def test_rebuilding_a_guided_notebook_gives_the_committed_file_less_its_outputs(tmp_path):
    """Without running it (minutes): everything but the outputs and execution counts is the committed file."""
    assignment = ASSIGNMENTS[0]
    rebuilt = nbformat.read(build(assignment, execute=False, to=tmp_path), as_version=4)
    committed = nbformat.read(solutions_dir() / assignment / f"{assignment}.ipynb", as_version=4)
    for cell in committed.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    assert rebuilt == committed


def test_releasing_a_notebook_gives_the_committed_file(tmp_path):
    assignment = ASSIGNMENTS[0]
    generate_release([assignment], tmp_path)
    committed = course_dir() / assignment / f"{assignment}.ipynb"
    assert without_kernel_version(tmp_path / assignment / committed.name) == without_kernel_version(committed), (
        f"{committed.relative_to(ROOT)} is not what `make release` writes from its solutions/ notebook")
