"""course/ is made by `make release` from solutions/, never by hand, and gives no answer away.

Every edition at every level: course/, ko/course/, challenge/course/ and challenge/ko/course/.
"""
from pathlib import Path

import pytest

from autograder.levels import LEVEL_KEY, LEVELS
from autograder.paths import EDITIONS, ROOT, assignment_ids, course_dir, sources_dir
from autograder.release import GLOSSARY, generate_release, main
from tests.course_files import ASSIGNMENTS, LEVEL_ASSIGNMENTS, release_notebook, solution_lines, source_notebook

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")


def _cells(nb):
    return [(cell.cell_type, cell.source, cell.metadata.get("nbgrader")) for cell in nb.cells]


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    """{(edition, level): a folder with everything `make release` generates for it now}"""
    releases = {}
    for lang in EDITIONS:
        for level in LEVELS:
            releases[lang, level] = tmp_path_factory.mktemp(f"release-{lang}-{level}")
            if assignment_ids(lang, level):
                generate_release(assignment_ids(lang, level), releases[lang, level], lang, level)
    return releases


@pytest.mark.parametrize("lang, level, assignment", LEVEL_ASSIGNMENTS)
def test_course_is_exactly_what_release_generates(lang, level, assignment, fresh_release):
    committed = release_notebook(assignment, lang=lang, level=level)
    regenerated = release_notebook(assignment, fresh_release[lang, level])
    assert _cells(committed) == _cells(regenerated), (
        f"the {lang} {level} release of {assignment} differs from what `make release` generates from its solutions: "
        "edit notebooks/*.md, rebuild solutions/ and run `make release` instead of editing course/ by hand"
    )


@pytest.mark.parametrize("lang, level, assignment", LEVEL_ASSIGNMENTS)
def test_release_notebook_holds_none_of_its_own_solution_lines(lang, level, assignment):
    text = "\n".join(cell.source for cell in release_notebook(assignment, lang=lang, level=level).cells)
    # the guided blanks hold what is secret at both levels: what the challenge level blanks besides
    # (`super().__init__()`, a loop header) the guided notebook shows, and provided code may hold too
    leaked = sorted(line for line in solution_lines(source_notebook(assignment, lang)) if line in text)
    assert not leaked, f"the {lang} {level} release of {assignment} shows lines of its own solutions: {leaked}"


@pytest.mark.parametrize("lang, level, assignment", LEVEL_ASSIGNMENTS)
def test_release_notebook_has_no_hidden_tests_or_outputs(lang, level, assignment):
    for cell in release_notebook(assignment, lang=lang, level=level).cells:
        assert "BEGIN HIDDEN TESTS" not in cell.source
        assert "BEGIN SOLUTION" not in cell.source
        assert not cell.get("outputs"), "release notebooks are handed out without outputs"


@pytest.mark.parametrize("lang, level, assignment", LEVEL_ASSIGNMENTS)
def test_release_notebook_carries_the_metadata_its_kernel_writes(lang, level, assignment, fresh_release):
    """Opening it in JupyterLab does not mark it unsaved: kernelspec and the full language_info are there."""
    metadata = release_notebook(assignment, fresh_release[lang, level]).metadata
    assert metadata["course_language"] == lang, "the grader reads the submission's language from here"
    assert metadata[LEVEL_KEY] == level, "the grader records the submission's level from here"
    assert metadata["kernelspec"]["name"] == "python3"
    assert set(metadata["language_info"]) >= {"name", "version", "mimetype", "codemirror_mode", "pygments_lexer",
                                              "nbconvert_exporter", "file_extension"}


@pytest.mark.parametrize("lang", [lang for lang in EDITIONS if (sources_dir(lang) / GLOSSARY).is_file()])
def test_the_glossary_goes_out_with_both_levels(lang, tmp_path):
    """`python -m autograder.release --lang ko --level challenge` copies the edition's glossary beside its notebooks."""
    assignment = assignment_ids(lang, "challenge")[:1]
    if not assignment:
        pytest.skip(f"no {lang} challenge notebooks built")
    main([*assignment, "--lang", lang, "--level", "challenge", "--to", str(tmp_path)])
    text = (sources_dir(lang) / GLOSSARY).read_text(encoding="utf-8")
    assert (tmp_path / GLOSSARY).read_text(encoding="utf-8") == text
    for level in LEVELS:
        assert (course_dir(lang, level) / GLOSSARY).read_text(encoding="utf-8") == text, f"{lang} {level}"


def test_stock_nbgrader_at_the_root_says_nothing_about_its_root(tmp_path):
    """nbgrader_config.py names the course directory by an absolute path: with "." every nbgrader command printed
    "root '.' is not absolute" three to five times."""
    import subprocess
    import sys

    bin_dir = Path(sys.executable).parent
    (tmp_path / "exchange").mkdir()
    listed = subprocess.run([str(bin_dir / "nbgrader"), "list", f"--Exchange.root={tmp_path / 'exchange'}"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "is not absolute" not in listed.stdout + listed.stderr
