"""SUBMITTED's layout, fast: every folder in it is graded or named with the reason it is not, in the
terminal and in the class report; nothing found lies outside SUBMITTED."""
import html
from pathlib import Path

import nbformat

from autograder.grading.bookkeeping.layout import find_submissions, why_not_an_id
from autograder.grading.outputs.report import read_not_graded
from tests.fixtures.grading_course import SOURCES, write_sources

GRADED = ["a", "alice", "bob"]
# Names nbgrader cannot take as a student id: hidden (its glob `*` skips them), `..`-like, glob
# patterns (`[ab]` would grade a and b's folder), spaces it strips, control characters.
REFUSED = [".hidden", "...", "..", "..x", ".ipynb_checkpoints", "*", "[ab]", "al?ce", " bob", "bob ", "tab\tname"]


def layout(submitted: Path):
    """A valid fx-ctrl notebook in the folder of each student of GRADED and REFUSED, and a few more things."""
    notebook = SOURCES["fx-ctrl"]()
    for student in GRADED + [name for name in REFUSED if name != ".."]:
        folder = submitted / student / "fx-ctrl"
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / "fx-ctrl.ipynb"))
    for hidden in (".fx-ctrl", ".ipynb_checkpoints"):  # hidden assignment folders of a graded student
        (submitted / "alice" / hidden).mkdir()
        nbformat.write(notebook, str(submitted / "alice" / hidden / "fx-ctrl.ipynb"))
    (submitted / "linked").symlink_to(submitted / "alice", target_is_directory=True)
    (submitted / "notes.txt").write_text("a file beside the students")
    (submitted / ".DS_Store").write_text("a hidden file: no folder, not a submission")
    return submitted


def test_every_folder_is_graded_or_named_with_the_reason(tmp_path):
    submitted = layout(tmp_path / "submitted")
    submissions, warnings = find_submissions(submitted, {"fx-ctrl"})
    assert sorted(s.key for s in submissions) == [f"{student}/fx-ctrl" for student in GRADED]
    for submission in submissions:  # each inside SUBMITTED, where it was found
        assert submission.folder.resolve().parent.parent == submitted.resolve()
        assert submission.folder == submitted / submission.student / submission.assignment
    text = "\n".join(warnings)
    for name in REFUSED:
        if name != "..":  # `..` is SUBMITTED's parent, never listed
            assert f"{name!r}: {why_not_an_id(name)}; not graded" in text, name
    assert "alice/'.fx-ctrl': a name starting with a dot" in text
    assert "alice/'.ipynb_checkpoints': a name starting with a dot" in text
    assert "linked: a symbolic link" in text and "'notes.txt': a file where a student folder was expected" in text
    assert ".DS_Store" not in text
    folders = [p for p in submitted.iterdir() if p.is_dir() and not p.is_symlink()]
    for folder in folders:  # the rule itself: graded, or named
        assert any(s.student == folder.name for s in submissions) or repr(folder.name) in text, folder.name


def test_ids_nbgrader_can_take():
    for name in ("alice", "student-01", "김민준", "o'brien", "a.b", "a..b"):
        assert why_not_an_id(name) is None, name
    for name in REFUSED:
        assert why_not_an_id(name), name


def test_a_run_names_them_in_the_terminal_and_the_report(tmp_path):
    """A run where nothing can be graded (no sandbox needed): the warnings, OUT/logs/not-graded.txt, the report."""
    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.run.runner import grade

    submitted = tmp_path / "submitted"
    for name in (".hidden", "...", "*"):
        (submitted / name / "fx-ctrl").mkdir(parents=True)
        nbformat.write(SOURCES["fx-ctrl"](), str(submitted / name / "fx-ctrl" / "fx-ctrl.ipynb"))
    source, out, lines = write_sources(tmp_path / "source"), tmp_path / "out", []
    records = grade(submitted, out, settings=Settings(source_dir=str(source), sandbox=False), log=lines.append)
    assert records == []
    said = "\n".join(lines)
    for name in (".hidden", "...", "*"):
        assert f"warning: {name!r}: " in said and "not graded" in said
    assert len(read_not_graded(out)) == 3
    report = (out / "report.html").read_text(encoding="utf-8")
    help_section = report[report.index('<section id="help">'):report.index('<section id="scores">')]
    assert "In SUBMITTED but not graded (3)" in help_section
    for name in (".hidden", "...", "*"):
        assert html.escape(repr(name)) in help_section
