"""OUT/gradebook.csv: nbgrader's gradebook as an LMS gradebook imports it (Canvas, Moodle).

An nbgrader export plugin, so it runs the usual way too:

    nbgrader export --exporter=autograder.grading.lms_export.LmsGradebookExport --to=gradebook.csv \\
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
"""
import csv

from nbgrader.plugins import ExportPlugin
from traitlets import Bool, Unicode

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def number(value):
    value = float(value or 0.0)
    return str(int(value)) if value.is_integer() else f"{round(value, 6):g}"


class LmsGradebookExport(ExportPlugin):
    """One row per student, one column per assignment (points), and a Points Possible row (max)."""

    points_possible_row = Bool(True, help="write the 'Points Possible' row (Canvas) after the header").tag(config=True)
    id_column = Unicode("SIS Login ID", help="the column that holds nbgrader's student id").tag(config=True)

    def export(self, gradebook):
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
        self.log.info("Exporting %d students x %d assignments to %s", len(students), len(assignments), dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header + [a.name for a in assignments])
            if self.points_possible_row:
                writer.writerow(["Points Possible"] + [""] * (len(header) - 1) + [number(a.max_score) for a in assignments])
            for student in students:
                row = dict.fromkeys(header, "")
                row["Student"] = (f"{student.last_name}, {student.first_name}" if student.last_name and student.first_name
                                  else student.last_name or student.first_name or student.id)
                row[self.id_column] = student.id
                writer.writerow([row[h] for h in header] + [number(scores[(student.id, a.name)])
                                                           if (student.id, a.name) in scores else ""
                                                           for a in assignments])


def export_gradebook(db_url, to, **settings):
    """Write the gradebook at ``db_url`` to ``to`` with :class:`LmsGradebookExport` (what `nbgrader export` does)."""
    import warnings

    from nbgrader.api import Gradebook

    from autograder.paths import put_python_scripts_on_path

    put_python_scripts_on_path()  # nbgrader runs alembic by name
    with Gradebook(db_url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's warnings inside nbgrader
        LmsGradebookExport(to=str(to), **settings).export(gradebook)
    return to
