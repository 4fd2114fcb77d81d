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

**Assignment columns as the roster names them.** Canvas's gradebook export (and so a roster made from it) heads
each assignment ``<title> (<Canvas's assignment id>)``, and Canvas's import finds the assignment by that id (by the
exact title only where there is none; a header it cannot find becomes a new assignment). Where the roster has such a
column for an assignment (its title = nbgrader's assignment name), gradebook.csv's column is headed the same; a
roster with such columns but none for an assignment, or two for one, is named in a warning.

**What the import found** (``autograder collect-zip``: its findings file, FINDINGS_FILE in the collected folder;
``--LmsGradebookExport.imported=PATH``, ``autograder report OUT --imported SUBMITTED``, or OUT/IMPORTED_COPY): each
student's findings in a last column, NOTES_COLUMN ("01-attention: marked late by Canvas (_LATE)"; "2 different
files submitted, none graded"), whose ``Points Possible`` cell is ``(read only)``, as Canvas's own export marks the
columns its import ignores (its total scores); Moodle's import takes only the columns mapped to a grade item or its
feedback (each is "Ignore" until mapped). Canvas drops a read-only column only where its import finds every row's
student; where it does not (a student graded but not in the roster, named in a warning), its preview offers the
column as a new assignment: leave it out with ``--LmsGradebookExport.notes_column=False``. A roster student with no
graded submission whose files the import left out is named as such, not as "no submission".
"""
import csv
import json
import logging
import re
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


FINDINGS_FILE = ".collect-zip.json"  # in the folder collect-zip fills: what it found (collect_zip.write_findings)
FINDINGS_FORMAT = 1
IMPORTED_COPY = "import-findings.json"  # under OUT: the findings of the SUBMITTED graded there, for the report and CSV
NOTES_COLUMN = "Notes from collect-zip"
READ_ONLY = "(read only)"  # Canvas's mark, in its export's Points Possible row, of a column its import ignores
CANVAS_ASSIGNMENT = re.compile(r"\A(?P<title>.*)\s\((?P<id>\d+)\)\Z", re.S)  # Canvas's Assignment.title_and_id
NOT_ASSIGNMENTS = re.compile(r"Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
                             r"Override Score|Override Grade|Override Status")  # Canvas's import skips these headers
FINDING_NOTES = {  # kind: what a student's row says of it (kinds without a student, or without an assignment, none)
    "late": "marked late by {lms} (_LATE)",
    "duplicate": "{count} different files submitted, none graded",
    "too-big": "a file too big to be a notebook, not graded",
    "unreadable": "a file that could not be read, not graded",
    "kept": "the download's file differs from the notebook graded (kept)",
}


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


def roster_warnings(graded, roster, findings=()):
    """The warnings of an export with a roster: graded students not in it, its students with no submission (those
    whose files the import left out apart: ``findings``, read_findings')."""
    warnings = []
    unknown = sorted(set(graded) - set(roster))
    absent = sorted(set(roster) - set(graded))
    left_out = {}
    for finding in findings:
        if finding["student"] in absent and finding["kind"] in FINDING_NOTES and finding["kind"] != "late":
            left_out.setdefault(finding["student"], []).append(finding)
    if left_out:
        warnings.append(f"{len(left_out)} student(s) of the roster have no graded submission because the import "
                        "(collect-zip) left their files out: "
                        + "; ".join(f"{student} ({student_notes(left_out[student])})"
                                    for student in sorted(left_out)[:NAMES_SHOWN])
                        + (f" and {len(left_out) - NAMES_SHOWN} more" if len(left_out) > NAMES_SHOWN else "")
                        + ". Their row in gradebook.csv has blank scores: copy the right notebook into SUBMITTED by "
                          "hand and grade again (the class report lists every file left out, and why).")
        absent = [student for student in absent if student not in left_out]
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


FINDING_FIELDS = ("kind", "download", "file", "why", "student", "assignment", "notebook", "lms")


def read_findings(path):
    """(findings, problem): what collect-zip found (a list of {FINDING_FIELDS: str}, every download's), from its
    findings file or the folder holding it (FINDINGS_FILE), or from OUT/IMPORTED_COPY; problem: None, or why the
    file could not be used (findings then [])."""
    path = Path(path)
    if path.is_dir():
        path = path / FINDINGS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], f"{path}: no such file (collect-zip writes it in the folder it fills)"
    except (OSError, ValueError) as error:
        return [], f"{path}: not readable as collect-zip's findings ({type(error).__name__}: {error})"
    downloads = data.get("downloads") if isinstance(data, dict) and data.get("format") == FINDINGS_FORMAT else None
    if not isinstance(downloads, dict):
        return [], f"{path}: not collect-zip's findings (no format {FINDINGS_FORMAT} with downloads)"
    findings = []
    for name, about in sorted(downloads.items()):
        for item in (about.get("findings") if isinstance(about, dict) else None) or []:
            if isinstance(item, dict) and all(isinstance(item.get(k, ""), str) for k in FINDING_FIELDS) and item.get("kind"):
                findings.append({k: item.get(k, "") for k in FINDING_FIELDS} | {"download": item.get("download") or name})
    return findings, None


def keep_findings(imported, out):
    """OUT/IMPORTED_COPY: collect-zip's findings (``imported``: the folder it filled, or its file), which the class
    report and gradebook.csv of OUT read from then on (``autograder report --imported``; a grading run of a folder
    that holds FINDINGS_FILE may call it too). None, or why not (nothing is copied then)."""
    import shutil

    imported, out = Path(imported), Path(out)
    _, problem = read_findings(imported)
    if problem:
        return problem
    if not out.is_dir():
        return f"{out}: no such folder (the --out folder of autograder grade)"
    partial = out / f".{IMPORTED_COPY}.partial"
    shutil.copyfile(imported / FINDINGS_FILE if imported.is_dir() else imported, partial)
    partial.replace(out / IMPORTED_COPY)
    return None


def student_notes(findings):
    """One student's findings as gradebook.csv's note: "01-attention: marked late by Canvas (_LATE); ..." """
    notes = []
    for finding in sorted(findings, key=lambda f: (f["assignment"], f["kind"] != "late", f["kind"])):
        template = FINDING_NOTES.get(finding["kind"])
        if template is None or not finding["assignment"]:
            continue
        count = sum(1 for f in findings if f["kind"] == "duplicate" and f["assignment"] == finding["assignment"])
        note = f"{finding['assignment']}: " + template.format(lms=finding["lms"] or "the LMS", count=count)
        if note not in notes:
            notes.append(note)
    return "; ".join(notes)


def roster_assignment_columns(path, assignments):
    """({assignment: the roster's header for it}, warnings): the roster's assignment columns (Canvas's export heads
    them "<title> (<id>)") whose title is an assignment's name; warnings where the roster has such columns but none
    for an assignment (Canvas would make it a new assignment), or two for one."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return {}, []  # read_roster says why
    fixed = {column.lower() for column in HEADER} | {ROSTER_ID, NOTES_COLUMN.lower(), "notes"}
    by_title, canvas_columns = {}, 0
    for column in header:
        name = (column or "").strip()
        if not name or name.lower() in fixed or NOT_ASSIGNMENTS.search(name):
            continue
        titled = CANVAS_ASSIGNMENT.match(name)
        canvas_columns += bool(titled)
        by_title.setdefault((titled.group("title") if titled else name).strip(), []).append(name)
    columns, warnings = {}, []
    for assignment in assignments:
        found = by_title.get(assignment, [])
        if len(found) == 1:
            columns[assignment] = found[0]
        elif len(found) > 1:
            warnings.append(f"the roster has {len(found)} columns for the assignment {assignment} ({', '.join(found)}): "
                            f"gradebook.csv heads its column {assignment!r}, which Canvas matches by title only; keep "
                            "one of them in the roster (Canvas's export of the gradebook)")
        elif canvas_columns:
            warnings.append(f"the roster (Canvas's gradebook export) has no column for the assignment {assignment}: "
                            f"Canvas's import of gradebook.csv makes a new assignment {assignment!r} unless one has that "
                            "exact title; create it in Canvas and export the roster again, or rename it there")
    return columns, warnings


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
    imported = Unicode("", help="collect-zip's findings file (or the folder it filled): each student's findings "
                                "in a last, read-only column").tag(config=True)
    notes_column = Bool(True, help="write the import's findings in a last column (Canvas's import ignores it as read "
                                   "only where it finds every student; False leaves it out)").tag(config=True)

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
        findings, problem = read_findings(self.imported) if self.imported else ([], None)
        warnings = [f"the import's findings are not in gradebook.csv: {problem}"] if problem else []
        warnings += roster_warnings(graded, roster, findings) if self.roster else []
        titles, column_warnings = (roster_assignment_columns(self.roster, [a.name for a in assignments])
                                   if self.roster else ({}, []))
        warnings += column_warnings
        extra = sorted(set(roster) - graded) if not wanted_students else []  # the roster's students with no submission
        per_student = {}
        for finding in findings:
            per_student.setdefault(finding["student"], []).append(finding)
        notes = {student: student_notes(per_student.get(student, [])) for student in sorted(graded) + extra}
        notes = {student: note for student, note in notes.items() if note} if self.notes_column else {}
        if notes:
            warnings.append(f"gradebook.csv's last column, {NOTES_COLUMN!r}, holds what the import found for "
                            f"{len(notes)} student(s) (late, left out): Canvas's import ignores it (its Points Possible "
                            f"cell is {READ_ONLY!r}, as Canvas marks its own total columns); in Moodle's import leave "
                            "it mapped to Ignore")
        for warning in warnings:
            self.log.warning(warning)
        self.log.info("Exporting %d students x %d assignments to %s", len(students), len(assignments), dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = SafeWriter(handle)
            writer.writerow(header + [titles.get(a.name, a.name) for a in assignments] + ([NOTES_COLUMN] if notes else []))
            if self.points_possible_row:
                writer.writerow(["Points Possible"] + [""] * (len(header) - 1) + [number(a.max_score) for a in assignments]
                                + ([READ_ONLY] if notes else []))
            for student in students:
                row = dict.fromkeys(header, "")
                row["Student"] = (f"{student.last_name}, {student.first_name}" if student.last_name and student.first_name
                                  else student.last_name or student.first_name or student.id)
                row[self.id_column] = student.id
                row.update({column: value for column, value in roster.get(student.id, {}).items() if value})
                writer.writerow([row[h] for h in header] + [number(scores[(student.id, a.name)])
                                                           if (student.id, a.name) in scores else ""
                                                           for a in assignments]
                                + ([notes.get(student.id, "")] if notes else []))
            for student in extra:  # in the roster, never graded: blank scores (the warning says so)
                row = dict.fromkeys(header, "")
                row.update({"Student": student, self.id_column: student})
                row.update({column: value for column, value in roster[student].items() if value})
                writer.writerow([row[h] for h in header] + [""] * len(assignments)
                                + ([notes.get(student, "")] if notes else []))
        return warnings


def export_gradebook(db_url, to, warn=None, **settings):
    """Write the gradebook at ``db_url`` to ``to`` with :class:`LmsGradebookExport` (what `nbgrader export` does);
    ``warn`` gets each warning (a roster's, ``roster=PATH``). RosterError where the roster cannot be used. The import's
    findings: ``imported=PATH``, else IMPORTED_COPY beside ``to`` (OUT's) where there is one."""
    import warnings

    copy = Path(to).parent / IMPORTED_COPY
    if not settings.get("imported") and copy.is_file():
        settings["imported"] = str(copy)

    from nbgrader.api import Gradebook

    from autograder.paths import put_python_scripts_on_path

    put_python_scripts_on_path()  # nbgrader runs alembic by name
    with Gradebook(db_url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's warnings inside nbgrader
        warnings_ = LmsGradebookExport(to=str(to), log=QUIET, **settings).export(gradebook)
    for warning in warnings_ if warn else ():
        warn(warning)
    return to
