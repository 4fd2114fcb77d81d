"""The class's figures of merit, from clean records in one pass: scores per submission and unit, the mistake ids
each student's feedback names, and the notebooks that were not graded normally (failures.record_failure).

A mistake id is named by a feedback message when a line of it starts with ``[id]`` (after an
exception's name, as in ``AssertionError: [sdpa-no-scale] ...``): the syntax of
report.MISCONCEPTION, anchored where a check writes it, so that an id a message only mentions
as another possible cause ("... ([sdpa-returns-scores])") is not counted.
"""
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from autograder.grading.outputs.class_report.records import unit_of
from autograder.grading.outputs.failures import (
    job_stopped,
    record_failure,
    records_say_failures,
)
from autograder.grading.outputs.report import MISCONCEPTION
from autograder.levels import DEFAULT_LEVEL

NAMED = re.compile(r"^(?:[A-Za-z_][\w.]*: *)?" + MISCONCEPTION.pattern, re.MULTILINE)
UNANSWERED = "not-implemented"  # a blank left as it was: not a misconception, shown apart
# Ids any unit can get (COURSE.md section 4's last row, and the catalogue's generic ones): at equal
# frequency, the ids that name an idea of one unit come first.
GENERIC = {"runtime-error", "shape", "nan", "device", "inplace-input", "forbidden-builtin", "tampering",
           "wrong-values", "wrong-gradients", "wrong-interface", "property-violated"}
# Graded outside nbgrader's kernel only (combine.py's note): a warning of the run, not a failure of the notebook.
OUTSIDE_ONLY = ("graded outside the notebook kernel only", "노트북 커널 밖에서만 채점했습니다")


def named_ids(messages):
    """The mistake ids named by ``messages``, in order, each once."""
    found = []
    for message in messages:
        for mistake in NAMED.findall(message):
            if mistake not in found:
                found.append(mistake)
    return found


def percent(part, whole):
    return 100.0 * part / whole if whole else None


def unit_labels(units):
    """A short label per (assignment, unit): the unit's name, with its assignment where names repeat."""
    names = Counter(unit for _, unit in units)
    return {u: (u[1] if names[u[1]] == 1 else f"{u[1]} ({u[0]})") for u in units}


@dataclass
class ClassData:
    """Everything the page shows of a class (analyse)."""
    records: list
    bad_records: int = 0
    students: list = field(default_factory=list)
    levels: dict = field(default_factory=dict)  # (student, assignment) -> the level it was released at
    assignments: list = field(default_factory=list)
    submissions: dict = field(default_factory=dict)  # (student, assignment) -> [points, max]
    assignment_max: dict = field(default_factory=dict)  # assignment -> its max points
    units: list = field(default_factory=list)  # (assignment, unit), in course order
    unit_notebook: dict = field(default_factory=dict)  # (assignment, unit) -> notebook
    unit_scores: dict = field(default_factory=dict)  # (assignment, unit) -> {student: [points, max]}
    mistakes: dict = field(default_factory=dict)  # id -> {(assignment, unit): set of students}
    student_ids: dict = field(default_factory=dict)  # student -> Counter of ids
    lost_unnamed: dict = field(default_factory=dict)  # (assignment, unit) -> students who lost points, no id named
    problems: dict = field(default_factory=dict)  # (student, assignment, notebook) -> (kind, what, message)
    outside_only: set = field(default_factory=set)  # (student, assignment, notebook) graded outside the kernel only
    job_stopped: set = field(default_factory=set)  # (student, assignment) the grading job stopped before

    @property
    def submitters(self):
        found = defaultdict(set)
        for student, assignment in self.submissions:
            found[assignment].add(student)
        return found


def analyse(records, bad_records=0):
    """Everything the page shows, from clean records, in one pass."""
    data = ClassData(records=records, bad_records=bad_records)
    students, assignments, units = {}, {}, {}
    unit_scores = defaultdict(dict)
    mistakes = defaultdict(lambda: defaultdict(set))
    student_ids = defaultdict(Counter)
    lost_unnamed = defaultdict(set)
    recorded = records_say_failures(records)
    for r in records:
        student, assignment, notebook = r["student"], r["assignment"], r["notebook"]
        students.setdefault(student, None)
        assignments.setdefault(assignment, None)
        unit = (assignment, unit_of(r["grade_id"]))
        units.setdefault(unit, len(units))
        data.unit_notebook.setdefault(unit, notebook)
        total = data.submissions.setdefault((student, assignment), [0.0, 0.0])
        data.levels.setdefault((student, assignment), r.get("level", DEFAULT_LEVEL))
        total[0] += r["points"]
        total[1] += r["max_points"]
        score = unit_scores[unit].setdefault(student, [0.0, 0.0])
        score[0] += r["points"]
        score[1] += r["max_points"]
        ids = named_ids(r["feedback"])
        for mistake in ids:
            mistakes[mistake][unit].add(student)
        if ids:
            student_ids[student].update(ids)
        elif r["points"] < r["max_points"]:
            lost_unnamed[unit].add(student)
        where = (student, assignment, notebook)
        if where not in data.problems:
            problem = record_failure(r, recorded)
            if problem:
                data.problems[where] = problem
                if job_stopped(r, recorded, problem):
                    data.job_stopped.add((student, assignment))
        if any(fragment in message for message in r["feedback"] for fragment in OUTSIDE_ONLY):
            data.outside_only.add(where)
    data.students = sorted(students)
    data.assignments = sorted(assignments)
    data.units = sorted(units, key=lambda u: (u[0], units[u]))
    data.unit_scores = dict(unit_scores)
    data.mistakes = {m: dict(where) for m, where in mistakes.items()}
    data.student_ids = dict(student_ids)
    data.lost_unnamed = dict(lost_unnamed)
    for (_, assignment), (_, maximum) in data.submissions.items():
        data.assignment_max[assignment] = max(data.assignment_max.get(assignment, 0.0), maximum)
    return data


def mistake_ranking(data):
    """[(id, students, {unit: count})], most students first (ties: more units, an id of one unit's idea before a
    generic one, then the id); not-implemented apart."""
    ranking = []
    for mistake, where in data.mistakes.items():
        if mistake == UNANSWERED:
            continue
        students = set().union(*where.values())
        ranking.append((mistake, students, {unit: len(s) for unit, s in where.items()}))
    ranking.sort(key=lambda item: (-len(item[1]), -len(item[2]), item[0] in GENERIC, item[0]))
    return ranking


def full_marks(scores):
    """Students of {student: [points, max]} with full marks."""
    return {s for s, (points, maximum) in scores.items() if points >= maximum - 1e-9}


def student_totals(data):
    """[(student, points, possible, share %, missing assignments)], a missing assignment counting 0 of its max."""
    rows = []
    for student in data.students:
        points = sum(data.submissions[(student, a)][0] for a in data.assignments if (student, a) in data.submissions)
        possible = sum(data.assignment_max[a] for a in data.assignments)
        missing = [a for a in data.assignments if (student, a) not in data.submissions]
        rows.append((student, points, possible, percent(points, possible), missing))
    return rows
