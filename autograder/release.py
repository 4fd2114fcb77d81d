"""Regenerate the release notebooks (course/) from the sources (solutions/) with nbgrader.

    python -m autograder.release [ASSIGNMENT_ID ...] [--to DIR]

The release is never edited by hand: tests/test_release.py regenerates it into a
temporary folder and fails if it differs from what is committed. Each released notebook
carries the metadata its kernel writes on start (kernelspec, the full language_info), so
that opening it does not mark it unsaved (`make lab` brings Python's version up to date
in the learner's copy).
"""
import argparse
import shutil
import tempfile
from pathlib import Path

from autograder.paths import ROOT, SOLUTIONS, assignment_ids, put_python_scripts_on_path
from learner_kit.workspace import stamp_kernel


def generate_release(assignments, release_dir: Path):
    """Run nbgrader's generate_assignment for ``assignments`` into ``release_dir``."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    put_python_scripts_on_path()
    release_dir = release_dir.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        config = Config()
        config.CourseDirectory.root = str(ROOT)
        config.CourseDirectory.source_directory = SOLUTIONS.name
        config.CourseDirectory.release_directory = str(release_dir)
        config.CourseDirectory.db_url = f"sqlite:///{scratch}/gradebook.db"  # throwaway: a release needs no grades
        config.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
        config.Exchange.root = scratch
        api = NbGraderAPI(config=config)
        for assignment in assignments:
            shutil.rmtree(release_dir / assignment, ignore_errors=True)
            result = api.generate_assignment(assignment, force=True)
            if not result["success"]:
                raise RuntimeError(f"nbgrader could not release {assignment}:\n{result['error']}\n{result['log']}")
            for notebook in sorted((release_dir / assignment).glob("*.ipynb")):
                stamp_kernel(notebook)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all under solutions/)")
    parser.add_argument("--to", type=Path, default=ROOT / "course", help="release folder (default: course/)")
    args = parser.parse_args(argv)
    assignments = args.assignments or assignment_ids()
    generate_release(assignments, args.to)
    for assignment in assignments:
        print(f"released {args.to}/{assignment}/")


if __name__ == "__main__":
    main()
