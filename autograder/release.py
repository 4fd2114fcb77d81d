"""Regenerate the release notebooks (course/) from the sources (solutions/) with nbgrader.

    python -m autograder.release [ASSIGNMENT_ID ...] [--lang ko] [--level challenge] [--to DIR]

The release is never edited by hand: tests/notebooks/test_release.py regenerates it into a
temporary folder and fails if it differs from what is committed. Each released notebook
carries the metadata its kernel writes on start (kernelspec, the full language_info), so
that opening it does not mark it unsaved (`make lab` brings Python's version up to date
in the learner's copy). ``--lang ko`` releases the Korean edition, ko/solutions into ko/course;
``--level challenge`` the challenge level (autograder/levels.py), challenge/solutions into
challenge/course (challenge/ko/... with ``--lang ko``). An edition's glossary goes out with
each of its levels.

A released notebook keeps its source's metadata, the mark that names the Markdown it is built from
(build_notebooks.built_mark), but not the maintainers' one-line mark cell: learners are not told what not to edit.
"""
import argparse
import shutil
import tempfile
from pathlib import Path

import nbformat

from autograder.build_notebooks import MARK_CELL_ID
from autograder.levels import DEFAULT_LEVEL, LEVELS
from autograder.paths import EDITIONS, assignment_ids, course_dir, edition_root, put_python_scripts_on_path, sources_dir
from learner_kit.workspace import stamp_kernel

GLOSSARY = "GLOSSARY.md"  # an edition's page of terms (Korean, English, the paper's symbol), beside its notebooks


def generate_release(assignments, release_dir: Path, lang="en", level=DEFAULT_LEVEL):
    """Run nbgrader's generate_assignment for ``assignments`` of edition ``lang`` and ``level`` into ``release_dir``."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    put_python_scripts_on_path()
    release_dir = release_dir.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        config = Config()
        config.CourseDirectory.root = str(edition_root(lang, level))
        config.CourseDirectory.source_directory = "solutions"
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
                without_mark_cell(notebook)
                stamp_kernel(notebook)


def without_mark_cell(notebook: Path):
    """Take the maintainers' mark cell (build_notebooks.mark_cell) out of a released notebook."""
    nb = nbformat.read(notebook, as_version=4)
    kept = [cell for cell in nb.cells if cell.get("id") != MARK_CELL_ID]
    if len(kept) != len(nb.cells):
        nb.cells = kept
        nbformat.write(nb, notebook)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: all under solutions/)")
    parser.add_argument("--lang", choices=EDITIONS, default="en", help="the edition (default en)")
    parser.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL, help="the level (default guided)")
    parser.add_argument("--to", type=Path, help="release folder (default: the edition's and level's course/)")
    args = parser.parse_args(argv)
    assignments = args.assignments or assignment_ids(args.lang, args.level)
    release_dir = args.to or course_dir(args.lang, args.level)
    generate_release(assignments, release_dir, args.lang, args.level)
    for assignment in assignments:
        print(f"released {release_dir}/{assignment}/")
    glossary = sources_dir(args.lang) / GLOSSARY
    if args.lang != "en" and glossary.is_file():  # the edition's glossary page goes out with its notebooks
        shutil.copyfile(glossary, release_dir / GLOSSARY)
        print(f"released {release_dir / GLOSSARY}")


if __name__ == "__main__":
    main()
