"""The run's outputs: OUT/results.json, OUT/grades.csv, the run's warnings and logs, and what the terminal shows."""
import csv
import json
import re
import unicodedata
from pathlib import Path

from autograder.grading.outputs.failures import (
    NOT_GRADED,
    record_failure,
    records_say_failures,
)

MISCONCEPTION = re.compile(r"\[([a-z][a-z0-9-]*)\]")
FIELDS = ["student", "assignment", "notebook", "grade_id", "points", "max_points"]
RUN_WARNINGS = Path("logs") / "warnings.txt"  # under OUT: the run's warnings as the terminal showed them
NO_NOTEBOOK = "no notebook named"  # how layout.read_notebook starts the reason of a notebook not found under its name
MESSAGE_CHARS = 300  # of a message, in a terminal line
NOT_GRADED_LOG = Path("logs") / "not-graded.txt"  # under OUT: what SUBMITTED holds that was not graded, and why


def state_file(out: Path, student, assignment):
    """OUT/state/<student>/<assignment>.json: a submission's saved results (run/state.py writes and reads them)."""
    return out / "state" / student / f"{assignment}.json"


def write_results(out: Path, records):
    (out / "results.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows({k: cell(v) for k, v in r.items()} for r in records)


# ------------------------------------------------------------------ what a student wrote, on the way out

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # OWASP's CSV injection list: a spreadsheet evaluates such a cell


def cell(value):
    """``value`` as a CSV cell an LMS or a spreadsheet imports as text (OWASP's CSV injection advice): a string that
    begins with = + - @ TAB or CR gets a leading apostrophe (the id ``=HYPERLINK(...)`` stays visible, is never
    evaluated); numbers, and strings that are numbers (-1.5, a score), are left as they are."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value


UNSEEN = {"Cc", "Cf", "Zl", "Zp"}  # control and format characters, line and paragraph separators


def escaped(text):
    """``text`` with every control character (ANSI/OSC escape sequences, carriage returns, line breaks, Unicode's
    bidirectional overrides...) written as its Python escape, so that what a student wrote prints as inert text
    in the instructor's terminal: it cannot retitle or clear it, move the cursor, or draw a line of its own."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if unicodedata.category(c) not in UNSEEN else ascii(c)[1:-1] for c in text)


def write_lines(path: Path, lines):
    """``lines`` into ``path``, one per line (a line's own line breaks and runs of spaces made one space)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{' '.join(line.split())}\n" for line in lines), encoding="utf-8")


def read_lines(path: Path):
    """The lines of ``path``, or None where there is no such file (an OUT made before it existed)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def write_not_graded(out: Path, warnings):
    """OUT/logs/not-graded.txt: what SUBMITTED holds that this run did not grade, and why (layout.find_submissions'
    warnings, one per line), for the class report."""
    write_lines(out / NOT_GRADED_LOG, warnings)


def read_not_graded(out: Path):
    """The lines of OUT/logs/not-graded.txt, or None where there is none (OUT made before it existed)."""
    return read_lines(out / NOT_GRADED_LOG)


def totals(records):
    """{(student, assignment): [points, max_points]} in first-seen order."""
    sums = {}
    for r in records:
        entry = sums.setdefault((r["student"], r["assignment"]), [0, 0])
        entry[0] += r["points"]
        entry[1] += r["max_points"]
    return sums


def grade_table(records):
    """One line per submission: student, assignment, points / max, and the ids of what lost points."""
    lines = [f"{'student':<20} {'assignment':<24} {'points':>9}  lost points on"]
    for (student, assignment), (points, maximum) in totals(records).items():
        lost = [r for r in records if (r["student"], r["assignment"]) == (student, assignment) and r["points"] < r["max_points"]]
        ids = sorted({i for r in lost for f in r["feedback"] for i in MISCONCEPTION.findall(f)})
        why = ", ".join(ids) if ids else ", ".join(r["grade_id"] for r in lost[:3])
        lines.append(f"{student:<20} {assignment:<24} {points:>4g} / {maximum:<3g} {why}")
    return "\n".join(lines)


# ------------------------------------------------------------------ what stopped a notebook, for the terminal

def stops(records, recorded=None):
    """[(student/assignment, text)]: each notebook of ``records`` that was not graded normally (missing, unreadable,
    stopped by a limit, a grading error: failures.record_failure), once, with what happened. ``recorded``: whether
    they were written by a run that records failures (the run says so of its own; default: failures.
    records_say_failures)."""
    recorded = records_say_failures(records) if recorded is None else recorded
    found = {}
    for r in records:
        where = (f"{r['student']}/{r['assignment']}", r["notebook"])
        if where not in found:
            problem = record_failure(r, recorded)
            if problem:
                named = f"{r['notebook']}.ipynb: " if r["notebook"] != r["assignment"] else ""
                found[where] = named + stop_text(*problem)
    return [(key, text) for (key, _), text in found.items()]


def stop_text(kind, what, message):
    """A notebook's failure (failures.record_failure) as the terminal says it."""
    message = " ".join(message.split())
    for prefix in NOT_GRADED:
        message = message.removeprefix(prefix).strip()
    message = message[:MESSAGE_CHARS] + ("..." if len(message) > MESSAGE_CHARS else "")
    return {"unreadable": "graded 0: ", "limit": f"stopped ({what}): ", "grader": "grading error: "}[kind] + message


def submission_line(key, records, seconds=None, problems=()):
    """One finished submission in the terminal: who and what, points / max, seconds, what stopped it (``stops``)."""
    points, maximum = next(iter(totals(records).values()), (0, 0))
    line = f"{key}: {points:g} / {maximum:g} points" + (f" in {seconds:.1f} s" if seconds is not None else "")
    return line + "".join(f"; {text}" for _, text in problems)


def problem_summary(records, out: Path, shown=10):
    """Terminal lines after a run: the notebooks not graded normally (the first ``shown``), where to read them all,
    and what to do about those graded 0 because no notebook of the expected name was found."""
    problems = stops(records)
    if not problems:
        return []
    lines = [f"{len(problems)} notebook(s) not graded normally (all of them in {out / 'report.html'}):"]
    lines += [f"  {key}: {text}" for key, text in problems[:shown]]
    if len(problems) > shown:
        lines.append(f"  ... and {len(problems) - shown} more")
    misnamed = sum(NO_NOTEBOOK in text for _, text in problems)
    if misnamed:
        lines.append(f"{misnamed} notebook(s) graded 0 because no notebook of the expected name was found: they "
                     "count 0 in gradebook.csv, as in nbgrader's gradebook. Rename the notebook in SUBMITTED and run "
                     "the same command again: only those submissions are graded again.")
    return lines
