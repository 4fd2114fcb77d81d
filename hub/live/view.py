"""The session as the instructor's page shows it, from its events: pure Python, no I/O (the stream feeds it).

- the heatmap: per unit and mistake id, the students who hit it in the session;
- per unit: how many students passed (their latest run of it passed), are trying (they ran it, the latest run
  failed), have not started (on the class roster, no run of it yet);
- "stuck": a student whose last N runs or more of one unit all failed with the same id (or all failed with no id
  named), the first of that streak at least M minutes ago. The streak is what `streak_after` keeps per student and
  unit; `stuck` reads it.

A snapshot for a projector holds counts only: no student's name is in it.
"""
from collections import Counter, deque
from dataclasses import dataclass

from autograder.course import ALL_UNITS, GRADED_UNITS

PASSED = "passed"
NO_ID = "failed"  # a failure that no misconception id names
RECENT = 12  # runs listed under "latest runs" (instructor only)
NOTEBOOK_OF = {unit: notebook for notebook, units in GRADED_UNITS.items() for unit in units}
UNIT_ORDER = {unit: k for k, unit in enumerate(ALL_UNITS)}


@dataclass(frozen=True)
class Streak:
    """The latest runs of one unit by one student that all had the same outcome."""
    outcome: str
    runs: int
    first: float  # when the first of them arrived (the service's clock)
    last: float


def streak_after(streak, outcome, received):
    """The streak once a run with ``outcome`` arrived at ``received`` (streak: the one before, or None)."""
    if streak is not None and streak.outcome == outcome:
        return Streak(outcome, streak.runs + 1, streak.first, received)
    return Streak(outcome, 1, received, received)


def stuck(streaks, runs, minutes, now):
    """[(student, unit, streak)] of ``streaks`` ({(student, unit): Streak}) that are stuck: at least ``runs`` runs
    failed the same way, the first at least ``minutes`` before ``now``. Longest stuck first."""
    found = [(student, unit, s) for (student, unit), s in streaks.items()
             if s.outcome != PASSED and s.runs >= runs and now - s.first >= minutes * 60]
    return sorted(found, key=lambda item: (item[2].first, item[0], item[1]))


class ClassView:
    def __init__(self, roster):
        self.roster = frozenset(roster)
        self.mistakes = {}  # (unit, id) -> set of students
        self.latest = {}  # (unit, student) -> outcome of the latest run
        self.streaks = {}  # (student, unit) -> Streak
        self.recent = deque(maxlen=RECENT)
        self.runs = Counter()  # unit -> runs in the session
        self.events = 0
        self.last_seq = 0

    def add(self, run):
        """One stored event (a dict of store.FIELDS and seq)."""
        unit, student, outcome = run["unit"], run["student"], run["outcome"]
        if outcome != PASSED:
            self.mistakes.setdefault((unit, outcome), set()).add(student)
        self.latest[(unit, student)] = outcome
        self.streaks[(student, unit)] = streak_after(self.streaks.get((student, unit)), outcome, run["received"])
        self.recent.append(run)
        self.runs[unit] += 1
        self.events += 1
        self.last_seq = max(self.last_seq, run["seq"])

    def progress(self):
        """Per unit that has runs, in course order: passed, trying, not started (numbers of students)."""
        started = {}  # unit -> {student: passed}
        for (unit, student), outcome in self.latest.items():
            started.setdefault(unit, {})[student] = outcome == PASSED
        rows = []
        for unit in sorted(started, key=UNIT_ORDER.get):
            passed = sum(started[unit].values())
            rows.append({"unit": unit, "notebook": NOTEBOOK_OF.get(unit), "runs": self.runs[unit],
                         "passed": passed, "trying": len(started[unit]) - passed,
                         "not_started": len(self.roster - started[unit].keys())})
        return rows

    def snapshot(self, now, runs, minutes, names):
        """The page's data. ``names`` False (projector): counts only."""
        heatmap = []
        for (unit, mistake), students in sorted(self.mistakes.items(),
                                                key=lambda item: (UNIT_ORDER.get(item[0][0]), -len(item[1]), item[0][1])):
            cell = {"unit": unit, "id": mistake, "count": len(students)}
            if names:
                cell["students"] = sorted(students)
            heatmap.append(cell)
        found = stuck(self.streaks, runs, minutes, now)
        data = {"events": self.events, "last_seq": self.last_seq, "roster": len(self.roster),
                "progress": self.progress(), "heatmap": heatmap, "stuck_count": len(found)}
        if names:
            data["stuck"] = [{"student": student, "unit": unit, "id": s.outcome, "runs": s.runs,
                              "minutes": round((now - s.first) / 60, 1)} for student, unit, s in found]
            data["recent"] = [{k: r[k] for k in ("seq", "student", "unit", "outcome", "lang", "level", "received")}
                              for r in reversed(self.recent)]
        return data
