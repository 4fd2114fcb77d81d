"""Find the submissions in a folder laid out as nbgrader's submitted/ and read them safely."""
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.grading.outputs.report import NO_NOTEBOOK


@dataclass(frozen=True)
class Packed:
    """A submission as a grading worker receives it: its notebooks read and checked by the client
    (which alone sees SUBMITTED), as plain data that travels to a worker on any machine."""

    student: str
    assignment: str
    notebooks: dict  # notebook name -> its text (nbformat 4 JSON)
    unreadable: dict  # notebook name -> why it cannot be graded
    timestamp: str | None = None  # timestamp.txt, where submitted

    @property
    def key(self):
        return f"{self.student}/{self.assignment}"


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    folder: Path  # SUBMITTED/<student>/<assignment>

    @property
    def key(self):
        return f"{self.student}/{self.assignment}"


GLOB = set("*?[]")


def why_not_an_id(name):
    """Why the folder name ``name`` cannot be a student id, or None when it can.

    nbgrader finds students in submitted/ with the glob ``*``, which skips names starting with a dot
    (``nbgrader autograde`` would never grade ``.hidden`` or ``...``), and reads an id as a glob
    pattern after stripping surrounding spaces: ``*`` or ``bob `` would grade other folders than theirs.
    """
    if name.startswith("."):
        return "a name starting with a dot (a hidden folder: nbgrader never lists one)"
    if GLOB & set(name):
        return "a name with a glob character (* ? [ ]), which nbgrader reads as a pattern matching other students"
    if name != name.strip() or not name.isprintable():
        return "a name with surrounding spaces (which nbgrader strips) or unprintable characters (a tab, a newline)"
    return None


def _plain_dirs(folder: Path, warnings, where="", ids=False):
    """The folders in ``folder`` that can be graded; every other folder is named in ``warnings`` with why not.

    A symbolic link is never followed (it could lead anywhere); a hidden folder (``.x``, ``...``) is
    refused at every level, and with ``ids`` any name that cannot be a student id (why_not_an_id).
    What is found is a plain folder directly inside ``folder`` (iterdir never yields ``.`` or ``..``).
    """
    found = []
    for path in sorted(folder.iterdir()):
        why = why_not_an_id(path.name) if ids or path.name.startswith(".") else None
        if path.is_symlink():
            warnings.append(f"{where}{path.name}: a symbolic link; submissions must be plain folders and files, not followed")
        elif path.is_dir() and why:
            warnings.append(f"{where}{path.name!r}: {why}; not graded (rename the folder to grade it)")
        elif path.is_dir():
            found.append(path)
    return found


def find_submissions(submitted: Path, known_assignments):
    """(submissions, warnings): every SUBMITTED/<student>/<assignment>/ whose assignment is known; every other
    folder or file there (but hidden files) is named in a warning with the reason it is not graded."""
    submissions, warnings = [], []
    for stray in sorted(p for p in submitted.iterdir() if p.is_file() and not p.is_symlink() and not p.name.startswith(".")):
        warnings.append(f"{stray.name!r}: a file where a student folder was expected; ignored")
    for student in _plain_dirs(submitted, warnings, ids=True):
        for folder in _plain_dirs(student, warnings, f"{student.name}/"):
            if folder.name in known_assignments:
                submissions.append(Submission(student.name, folder.name, folder))
            else:
                warnings.append(
                    f"{student.name}/{folder.name}: unknown assignment id {folder.name!r} "
                    f"(known: {', '.join(sorted(known_assignments)) or 'none'}); not graded"
                )
        for stray in sorted(p for p in student.iterdir() if p.is_file() and not p.is_symlink() and not p.name.startswith(".")):
            warnings.append(f"{student.name}/{stray.name}: a file where an assignment folder was expected; ignored")
    return submissions, warnings


LAYOUT = "SUBMITTED/<student>/<assignment>/<notebook>.ipynb"


def misplaced(submitted: Path, known_assignments, submissions):
    """Why ``submitted`` is not a submitted/ folder at all, or None: it holds no student folder (it may be one
    submission's folder), or nothing was found in it and its folders are named like assignments (one student's)."""
    folders = sorted(p.name for p in submitted.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        notebooks = sorted(p.name for p in submitted.glob("*.ipynb"))
        held = f" (it holds {', '.join(notebooks[:3])}: is it one submission's folder?)" if notebooks else ""
        return f"{submitted}: SUBMITTED holds no student folder{held}; give the folder laid out as {LAYOUT}"
    assignments = [name for name in folders if name in known_assignments]
    if assignments and not submissions:
        return (f"{submitted}: SUBMITTED looks like one student's folder (its folders {', '.join(assignments[:3])} are "
                f"assignment ids): give its parent, laid out as {LAYOUT}")
    return None


# The most cells a submitted notebook may have. The grader's bookkeeping around the one run (nbgrader's autograde and
# feedback steps) costs about 5 ms a cell: 100,000 Markdown cells held a worker for 476 s, outside every budget of the
# learner's run. The course's largest notebook has COURSE_CELLS; a learner's scratch cells fit many times over.
COURSE_CELLS = 94
MAX_CELLS = 1_000


def read_notebook(path: Path):
    """(notebook, None) when ``path`` is a readable notebook (nbformat 3 and 4; upgraded to 4), else (None, why not)."""
    if path.is_symlink():
        return None, f"{path.name} is a symbolic link; submit the notebook itself (links are not followed)"
    if not path.is_file():
        others = sorted(p.name for p in path.parent.glob("*")) if path.parent.is_dir() else []
        held = ", ".join(others) or "nothing"
        if any(other.endswith(".ipynb") for other in others):  # misnamed, most likely
            held += f"; to be graded, the notebook must be named {path.name}"
        return None, f"{NO_NOTEBOOK} {path.name} was submitted (the folder holds: {held})"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return None, f"{path.name} could not be read: {error}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"{path.name} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); is it a notebook?"
    cells = data.get("cells") if isinstance(data, dict) else None
    worksheets = data.get("worksheets") if isinstance(data, dict) else None  # nbformat 3
    if not isinstance(cells, list) and not isinstance(worksheets, list):
        return None, f"{path.name} is JSON but not a Jupyter notebook (no list of cells)"
    count = len(cells) if isinstance(cells, list) else sum(
        len(sheet.get("cells") or []) if isinstance(sheet, dict) else 0 for sheet in worksheets)
    if count > MAX_CELLS:
        return None, (f"{path.name} has {count:,} cells, more than the {MAX_CELLS:,} a notebook of this course may have "
                      f"(the course's have at most {COURSE_CELLS}); it was not graded: delete the cells you added and "
                      "submit it again")
    try:
        notebook = nbformat.reads(text, as_version=4)
    except Exception as error:  # nbformat raises many kinds on malformed notebooks
        return None, f"{path.name} is not a notebook nbformat can read: {type(error).__name__}: {error}"
    if not any(isinstance(cell.get("metadata", {}).get("nbgrader"), dict) for cell in notebook.cells):
        return None, (f"{path.name} has no nbgrader cell metadata, so its answers cannot be found: it is not the "
                      "released notebook (was it re-created, or its cells copied into a new notebook?). "
                      "Work in the released notebook and submit that")
    return notebook, None


MAX_TIMESTAMP_BYTES = 1000


def pack(submission, notebook_names):
    """The Packed form of ``submission``: each notebook of ``notebook_names`` read (or why not), its timestamp."""
    notebooks, unreadable = {}, {}
    for name in notebook_names:
        notebook, why = read_notebook(submission.folder / f"{name}.ipynb")
        if notebook is None:
            unreadable[name] = why
        else:
            notebooks[name] = nbformat.writes(notebook)
    stamp, timestamp = submission.folder / "timestamp.txt", None
    if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size <= MAX_TIMESTAMP_BYTES:
        timestamp = stamp.read_text(encoding="utf-8", errors="replace")
    return Packed(submission.student, submission.assignment, notebooks, unreadable, timestamp)
