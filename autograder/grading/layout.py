"""Find the submissions in a folder laid out as nbgrader's submitted/ and read them safely."""
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    folder: Path  # SUBMITTED/<student>/<assignment>

    @property
    def key(self):
        return f"{self.student}/{self.assignment}"


def _visible_dirs(folder: Path):
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.is_dir())


def find_submissions(submitted: Path, known_assignments):
    """(submissions, warnings): every SUBMITTED/<student>/<assignment>/ whose assignment is known."""
    submissions, warnings = [], []
    for student in _visible_dirs(submitted):
        for folder in _visible_dirs(student):
            if folder.name in known_assignments:
                submissions.append(Submission(student.name, folder.name, folder))
            else:
                warnings.append(
                    f"{student.name}/{folder.name}: unknown assignment id {folder.name!r} "
                    f"(known: {', '.join(sorted(known_assignments)) or 'none'}); not graded"
                )
        for stray in sorted(p for p in student.iterdir() if p.is_file() and not p.name.startswith(".")):
            warnings.append(f"{student.name}/{stray.name}: a file where an assignment folder was expected; ignored")
    return submissions, warnings


def read_notebook(path: Path):
    """(notebook, None) when ``path`` is a readable notebook, else (None, why not)."""
    if not path.is_file():
        others = sorted(p.name for p in path.parent.glob("*")) if path.parent.is_dir() else []
        return None, f"no notebook named {path.name} was submitted (the folder holds: {', '.join(others) or 'nothing'})"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return None, f"{path.name} could not be read: {error}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"{path.name} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); is it a notebook?"
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None, f"{path.name} is JSON but not a Jupyter notebook (no list of cells)"
    try:
        return nbformat.reads(text, as_version=4), None
    except Exception as error:  # nbformat raises many kinds on malformed notebooks
        return None, f"{path.name} is not a notebook nbformat can read: {type(error).__name__}: {error}"
