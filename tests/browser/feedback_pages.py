"""Submissions of the fixture course graded by `autograder grade`, for a browser test to open their feedback pages."""
import subprocess
import sys

import nbformat

from tests.browser.jupyter_servers import ROOT
from tests.fixtures.grading_course import write_sources


def graded_feedback_pages(base, notebooks, timeout=600):
    """{student: the feedback page's path} once ``notebooks`` ({student: (assignment, notebook)}) are graded in one
    `autograder grade` run of the fixture course (cells given ids)."""
    source = write_sources(base / "source")
    for student, (assignment, notebook) in notebooks.items():
        for number, cell in enumerate(notebook.cells):
            cell.id = f"cell-{number:03d}"
        folder = base / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{assignment}.ipynb"))
    result = subprocess.run([sys.executable, "-m", "autograder", "grade", str(base / "submitted"), "--out", str(base / "out"),
                             "--source", str(source), "--jobs", "1", "--timeout", "15", "--budget", "30"],
                            capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    pages = {student: base / "out" / "feedback" / student / assignment / f"{assignment}.html"
             for student, (assignment, _) in notebooks.items()}
    for page in pages.values():
        assert page.is_file(), result.stderr[-3000:]
    return pages


def graded_feedback_page(base, student, assignment, notebook):
    """The path of ``notebook``'s feedback page once graded as ``student``'s ``assignment`` (cells given ids)."""
    return graded_feedback_pages(base, {student: (assignment, notebook)}, timeout=300)[student]
