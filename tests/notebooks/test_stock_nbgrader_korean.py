"""Stock nbgrader, with ko/nbgrader_config.py, releases and autogrades the Korean edition as it does the English one.

Everything written goes to a temporary folder (release, submitted, autograded, gradebook); ko/ is only read.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.paths import edition_root, solutions_dir

ASSIGNMENT = "01-attention"
KO = edition_root("ko")
pytestmark = pytest.mark.skipif(not (solutions_dir("ko") / ASSIGNMENT).is_dir(), reason="no Korean 01-attention")


def nbgrader(*args, scratch: Path):
    flags = [f"--CourseDirectory.release_directory={scratch / 'release'}",
             f"--CourseDirectory.submitted_directory={scratch / 'submitted'}",
             f"--CourseDirectory.autograded_directory={scratch / 'autograded'}",
             f"--CourseDirectory.db_url=sqlite:///{scratch / 'gradebook.db'}", f"--Exchange.root={scratch / 'exchange'}"]
    bin_dir = Path(sys.executable).parent
    env_path = f"{bin_dir}:/usr/bin:/bin"  # nbgrader runs alembic by name
    return subprocess.run([str(bin_dir / "nbgrader"), *args, *flags], cwd=KO, capture_output=True, text=True,
                          timeout=600, env={"PATH": env_path, "HOME": str(scratch), "NBGRADER_EXECUTION": "autograde",
                                            "MPLBACKEND": "Agg"})


def test_stock_nbgrader_releases_and_autogrades_the_korean_edition(tmp_path):
    released = nbgrader("generate_assignment", ASSIGNMENT, "--force", scratch=tmp_path)
    assert released.returncode == 0, released.stderr[-3000:]
    notebook = tmp_path / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = notebook.read_text(encoding="utf-8")
    assert "BEGIN HIDDEN TESTS" not in text and "어텐션" in text

    # a learner who submits the solution notebook: full marks, graded by the hidden tests in the kernel
    folder = tmp_path / "submitted" / "learner" / ASSIGNMENT
    folder.mkdir(parents=True)
    shutil.copyfile(solutions_dir("ko") / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"{ASSIGNMENT}.ipynb")
    graded = nbgrader("autograde", ASSIGNMENT, "--create", "--force", scratch=tmp_path)
    assert graded.returncode == 0, graded.stderr[-3000:]
    autograded = nbformat.read(tmp_path / "autograded" / "learner" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    errors = [output for cell in autograded.cells for output in cell.get("outputs", []) if output.output_type == "error"]
    assert errors == []

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, "learner")
        assert submission.max_score > 0 and submission.score == submission.max_score
