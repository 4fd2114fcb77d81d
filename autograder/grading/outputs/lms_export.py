"""OUT/gradebook.csv: nbgrader's gradebook as an LMS gradebook imports it (Canvas, Moodle).

An nbgrader export plugin, so it runs the usual way too:

    nbgrader export --exporter=autograder.grading.outputs.lms_export.LmsGradebookExport --to=gradebook.csv \\
        --db=sqlite:///OUT/gradebook.db

`autograder grade` calls it in-process at the end of a run (``export_gradebook``). The shape:
one row per student, one column per assignment with the student's points, and a second row,
``Points Possible``, with each assignment's maximum (Canvas's own convention):

    Student,ID,SIS User ID,SIS Login ID,Section,01-attention,02-multi-head
    Points Possible,,,,,7,17
    "Lovelace, Ada",,,ada,,7,12.5

``SIS Login ID`` is nbgrader's student id (usually the learner's login); ``Student`` is
"last, first" where the gradebook has names, else the id. A blank score means no submission
(an LMS leaves it ungraded; nbgrader's own CSV writes 0). A submission is never blank: one whose
notebook was not found under its expected name has 0 points in the gradebook, so 0 here (the run
says so in the terminal and the report; autograder/grading/README.md says why). Scores are
nbgrader's, less any late penalty, as in nbgrader's CsvExportPlugin. For Moodle (which maps any column to its users and
grade items but would take "Points Possible" for a student), drop that row:
``--LmsGradebookExport.points_possible_row=False``.

A roster (``--roster roster.csv`` on ``autograder grade`` and ``autograder report``, or
``--LmsGradebookExport.roster=roster.csv``) fills Canvas's identifying columns: a CSV with a
``student_id`` column (nbgrader's student id; without one, its ``SIS Login ID`` is taken as
nbgrader's id) and any of ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``
(the columns of Canvas's own gradebook export, so that export, with a ``student_id`` column added,
is a roster). Students graded but not in the roster, and the roster's students with no
submission, are named in a warning: the first keep nbgrader's id in ``SIS Login ID`` and blank
ID / SIS User ID; the second get a row with blank scores (not 0), like everyone who submitted
nothing for an assignment.
"""
import csv
import logging
from pathlib import Path

from nbgrader.plugins import ExportPlugin
from traitlets import Bool, Unicode

from autograder.grading.outputs.report import cell
from learner_kit.i18n import add_translations, tr

add_translations("autograder.locales")  # the warnings below in the instructor's language (COURSE_LANG)

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
ROSTER_ID = "student_id"  # the roster's column of nbgrader's student ids
NAMES_SHOWN = 20  # students named in a roster warning
QUIET = logging.getLogger(__name__)  # export_gradebook's plugin: its caller prints the warnings
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False


class RosterError(Exception):
    """The roster cannot be used (missing, not CSV, no id column, an id twice)."""


def read_roster(path):
    """{nbgrader student id: {Canvas column: value}} from a roster CSV (see the module's docstring)."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:  # -sig: Excel's byte-order mark
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise RosterError(tr("{path}: the roster cannot be read ({error})", path=str(path), error=str(error))) from None
    columns = {name.strip().lower(): name for name in (rows[0].keys() if rows else []) if name}
    id_column = columns.get(ROSTER_ID) or columns.get("sis login id")
    if id_column is None:
        raise RosterError(tr("{path}: the roster has no student_id column (nbgrader's student id) and no SIS Login ID "
                             "column to take it from", path=str(path)))
    roster = {}
    for row in rows:
        student = (row.get(id_column) or "").strip()
        name = (row.get(columns.get("student", ""), "") or "").strip()
        if not student or name.lower() == "points possible":  # a blank line, or Canvas's row of maxima
            continue
        if student in roster:
            raise RosterError(tr("{path}: the student id {student} is in the roster twice", path=str(path),
                                 student=student))
        roster[student] = {column: (row.get(columns[column.lower()]) or "").strip() for column in HEADER
                           if column.lower() in columns}
    return roster


def named(students, shown=NAMES_SHOWN):
    listed = ", ".join(sorted(students)[:shown])
    return listed + (tr(" and {count} more", count=len(students) - shown) if len(students) > shown else "")


def roster_warnings(graded, roster):
    """The warnings of an export with a roster: graded students not in it, its students with no submission."""
    warnings = []
    unknown = sorted(set(graded) - set(roster))
    absent = sorted(set(roster) - set(graded))
    if unknown:
        warnings.append(tr("{count} student(s) graded but not in the roster: {names}. Their row in gradebook.csv keeps "
                           "nbgrader's id in SIS Login ID and leaves ID and SIS User ID blank, so the LMS matches them "
                           "by login only, or not at all: add them to the roster (student_id = nbgrader's id).",
                           count=len(unknown), names=named(unknown)))
    if absent:
        warnings.append(tr("{count} student(s) of the roster have no submission: {names}. They get a row with blank "
                           "scores, not 0 (the LMS leaves them ungraded); enter 0 in the LMS where a missing "
                           "submission should count 0.", count=len(absent), names=named(absent)))
    folded = {}
    for student in absent:
        folded.setdefault(student.casefold(), []).append(student)
    pairs = [f"{graded} / {', '.join(folded[graded.casefold()])}" for graded in unknown if graded.casefold() in folded]
    if pairs:
        warnings.append(tr("{count} graded id(s) differ only in case from an id of the roster (graded / roster): "
                           "{pairs}. Ids are compared exactly: correct the roster's student_id (or the folder's name) "
                           "if they are the same learner.", count=len(pairs), pairs="; ".join(pairs[:NAMES_SHOWN])))
    return warnings


def number(value):
    value = float(value or 0.0)
    return str(int(value)) if value.is_integer() else f"{round(value, 6):g}"


class SafeWriter:
    """csv.writer whose cells are made safe to import (report.cell: = + - @ TAB CR at the start of a student's
    id or name would be a formula in Canvas's or Moodle's spreadsheet view, or in the instructor's)."""

    def __init__(self, handle):
        self.writer = csv.writer(handle)

    def writerow(self, row):
        self.writer.writerow([cell(value) for value in row])


class LmsGradebookExport(ExportPlugin):
    """One row per student, one column per assignment (points), and a Points Possible row (max)."""

    points_possible_row = Bool(True, help="write the 'Points Possible' row (Canvas) after the header").tag(config=True)
    id_column = Unicode("SIS Login ID", help="the column that holds nbgrader's student id").tag(config=True)
    roster = Unicode("", help="a roster CSV: student_id (nbgrader's id) and the LMS's Student, ID, SIS User ID, "
                              "SIS Login ID, Section columns, which fill the rows").tag(config=True)

    def export(self, gradebook):
        """Write the CSV; returns the warnings (also logged): students missing from the roster, or from the class."""
        dest = self.to or "gradebook.csv"
        wanted_assignments = {str(a) for a in self.assignment}
        wanted_students = {str(s) for s in self.student}
        assignments = sorted((a for a in gradebook.assignments if not wanted_assignments or a.name in wanted_assignments),
                             key=lambda a: a.name)
        students = sorted((s for s in gradebook.students if not wanted_students or s.id in wanted_students),
                          key=lambda s: s.id)
        scores = {}  # (student id, assignment) -> score less the late penalty
        for assignment in assignments:
            for submission in assignment.submissions:  # one query per assignment (scores are SQL column properties)
                penalty = submission.late_submission_penalty or 0.0
                scores[(submission.student_id, assignment.name)] = max(0.0, (submission.score or 0.0) - penalty)
        header = list(HEADER)
        if self.id_column not in header:
            header.append(self.id_column)
        roster = read_roster(self.roster) if self.roster else {}
        graded = {s.id for s in students}
        warnings = roster_warnings(graded, roster) if self.roster else []
        for warning in warnings:
            self.log.warning(warning)
        extra = sorted(set(roster) - graded) if not wanted_students else []  # the roster's students with no submission
        self.log.info("Exporting %d students x %d assignments to %s", len(students), len(assignments), dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = SafeWriter(handle)
            writer.writerow(header + [a.name for a in assignments])
            if self.points_possible_row:
                writer.writerow(["Points Possible"] + [""] * (len(header) - 1) + [number(a.max_score) for a in assignments])
            for student in students:
                row = dict.fromkeys(header, "")
                row["Student"] = (f"{student.last_name}, {student.first_name}" if student.last_name and student.first_name
                                  else student.last_name or student.first_name or student.id)
                row[self.id_column] = student.id
                row.update({column: value for column, value in roster.get(student.id, {}).items() if value})
                writer.writerow([row[h] for h in header] + [number(scores[(student.id, a.name)])
                                                           if (student.id, a.name) in scores else ""
                                                           for a in assignments])
            for student in extra:  # in the roster, never graded: blank scores (the warning says so)
                row = dict.fromkeys(header, "")
                row.update({"Student": student, self.id_column: student})
                row.update({column: value for column, value in roster[student].items() if value})
                writer.writerow([row[h] for h in header] + [""] * len(assignments))
        return warnings


def export_gradebook(db_url, to, warn=None, **settings):
    """Write the gradebook at ``db_url`` to ``to`` with :class:`LmsGradebookExport` (what `nbgrader export` does);
    ``warn`` gets each warning (a roster's, ``roster=PATH``). RosterError where the roster cannot be used."""
    import warnings

    from nbgrader.api import Gradebook

    from autograder.paths import put_python_scripts_on_path

    put_python_scripts_on_path()  # nbgrader runs alembic by name
    with Gradebook(db_url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's warnings inside nbgrader
        warnings_ = LmsGradebookExport(to=str(to), log=QUIET, **settings).export(gradebook)
    for warning in warnings_ if warn else ():
        warn(warning)
    return to
