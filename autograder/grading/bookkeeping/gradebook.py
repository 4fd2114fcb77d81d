"""nbgrader gradebooks: the template each job copies, and the course's own gradebook that gets the final scores.

Only the parent process writes the course gradebook, after the jobs are done, so it may be a
SQLite file (the default, OUT/gradebook.db) or a shared PostgreSQL database (CourseDirectory.db_url).
"""
import hashlib
import os
import shutil
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path

from autograder import environment
from autograder.grading.bookkeeping.config import scratch_config
from autograder.paths import put_python_scripts_on_path


def register_assignments(settings, db_url, assignments):
    """Enter ``assignments`` (their cells, points and hidden tests) in the gradebook at ``db_url``."""
    from nbgrader.apps import NbGraderAPI

    put_python_scripts_on_path()
    with tempfile.TemporaryDirectory() as scratch:
        api = NbGraderAPI(config=scratch_config(settings, Path(scratch), db_url))
        for assignment in assignments:
            result = api.generate_assignment(assignment, force=True, create=True)
            if not result["success"]:
                raise RuntimeError(f"nbgrader could not enter {assignment} in the gradebook:\n{result.get('error')}")


def cache_dir():
    return environment.cache_dir()


def template_path(settings, assignments):
    """Where the cached template for ``assignments`` is (build_template), whether it exists or not."""
    digest = hashlib.sha256(version("nbgrader").encode())  # not nbgrader.__version__: importing nbgrader costs 2 s
    for assignment in assignments:
        for notebook in sorted((Path(settings.source_dir) / assignment).glob("*.ipynb")):
            digest.update(assignment.encode() + b"\0" + notebook.name.encode() + b"\0" + notebook.read_bytes())
    return cache_dir() / f"gradebook-{digest.hexdigest()[:24]}.db"


def template_cached(settings, assignments):
    return template_path(settings, assignments).is_file()


def build_template(settings, assignments):
    """A SQLite gradebook that knows ``assignments``, cached by the content of their sources.

    Creating a gradebook and entering an assignment costs seconds; a later run reuses it.
    """
    path = template_path(settings, assignments)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        register_assignments(settings, f"sqlite:///{partial}", assignments)
        os.replace(partial, path)
    return path


def sqlite_file(db_url):
    return Path(db_url[len("sqlite:///"):]) if db_url.startswith("sqlite:///") else None


def prepare_course_gradebook(settings, db_url, template: Path, assignments):
    """Make the course gradebook know ``assignments`` (a copy of the template when it is a new SQLite file)."""
    path = sqlite_file(db_url)
    if path is not None and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, path)
    else:
        register_assignments(settings, db_url, assignments)


def store_scores(db_url, records, timestamps=None, comments=None):
    """Enter ``records`` in the gradebook as nbgrader's autograde does (SaveAutoGrades): each submission with its
    notebooks, one grade per graded cell whose auto_score is the final points, and the comments of the answer cells.

    ``timestamps``: {"student/assignment": timestamp.txt's text or None}, as formgrader compares it with the
    submitted folder's. ``comments``: {(student, assignment): {notebook: {grade_id: comment}}}, nbgrader's automatic
    comments ("No response." on an answer left as released) from the jobs' gradebooks. A manual score or comment
    entered in formgrader is kept (nbgrader keeps them apart from the automatic ones); where the automatic score
    under a manual one changed, the grade is marked for review again, as nbgrader's autograde marks it.
    """
    from nbgrader.api import Gradebook

    timestamps = timestamps or {}
    with Gradebook(db_url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's autoflush warnings inside nbgrader: harmless
        for student, assignment in sorted({(r["student"], r["assignment"]) for r in records}):
            gradebook.update_or_create_student(student)
            submission = gradebook.update_or_create_submission(assignment, student)
            submission.timestamp = _timestamp(timestamps.get(f"{student}/{assignment}"))
        for r in records:
            grade = gradebook.find_grade(r["grade_id"], r["notebook"], r["assignment"], r["student"])
            changed = grade.auto_score is None or float(grade.auto_score) != float(r["points"])
            grade.auto_score = r["points"]
            if grade.manual_score is None:
                grade.needs_manual_grade = False
            elif changed:
                grade.needs_manual_grade = True
        if comments is not None:
            for student, assignment, notebook in sorted({(r["student"], r["assignment"], r["notebook"]) for r in records}):
                given = comments.get((student, assignment), {}).get(notebook, {})
                for comment in gradebook.find_submission_notebook(notebook, assignment, student).comments:
                    comment.auto_comment = given.get(comment.name)
        gradebook.db.commit()


def _timestamp(text):
    """timestamp.txt's text as nbgrader parses it (utils.parse_utc), or None where it is missing or unreadable."""
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text.strip()) if text and text.strip() else None
    except (ValueError, OverflowError, LookupError):  # dateutil's ParserError is a ValueError
        return None


def roster_names(entry):
    """(first name, last name) from a roster row's Student column: "Last, First" as Canvas writes it, else "First
    Last" (the last word the last name; a single name is the last name); (None, None) where it has none."""
    name = " ".join((entry.get("Student") or "").split())
    if not name:
        return None, None
    if "," in name:
        last, first = (part.strip() for part in name.split(",", 1))
        return first, last  # one of them may be "": formgrader shows "Last, " rather than "Last, None"
    first, _, last = name.rpartition(" ")
    return first, last


def name_students(db_url, roster):
    """nbgrader's student table from the roster ({student id: row}, lms_export.read_roster): the first and last
    names formgrader shows ("None, None" without them) and lms_user_id (the roster's ID), for the gradebook's
    students that the roster holds. Only what the roster has is written; scores and grades are not touched."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for student in gradebook.students:
            entry = roster.get(student.id)
            if entry is None:
                continue
            first, last = roster_names(entry)
            if last is not None:
                student.first_name, student.last_name = first, last
            if entry.get("ID"):
                student.lms_user_id = entry["ID"]
        gradebook.db.commit()
