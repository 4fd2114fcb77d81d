"""Reading what the class report is made of: OUT/results.json's records, OUT/logs/ and the timings kept in OUT/state/.

Each part is read defensively: a record that cannot be read is counted and skipped, a log that is missing or
unreadable is None, so that a page can always be made from what there is.
"""
import json
import math
import re
import time
from pathlib import Path

from autograder.grading.outputs.failures import FAILURE, GRADER_ERROR, clean_failure
from autograder.grading.outputs.report import (
    RUN_WARNINGS,
    read_lines,
    read_not_graded,
    state_file,
)
from autograder.levels import DEFAULT_LEVEL

TRACEBACK_LINES = ("Traceback", "  File ", "    ", "During handling", "The above exception")


def unit_of(grade_id):
    """``Unit-visible`` / ``Unit-hidden-aspect`` -> ``Unit`` (any other grade id is its own unit)."""
    if grade_id.endswith("-visible"):
        return grade_id[: -len("-visible")]
    head, sep, _ = grade_id.rpartition("-hidden-")
    return head if sep and head else grade_id


def clean_records(raw):
    """(records with the expected types, number of records that could not be read). A record keeps its "failure"
    field only where it had one (failures.records_say_failures tells a run that records them from an older one)."""
    if not isinstance(raw, list):
        return [], 1
    records, bad = [], 0
    for r in raw:
        try:
            points, maximum = float(r.get("points") or 0), float(r.get("max_points") or 0)
            if not (math.isfinite(points) and math.isfinite(maximum)):
                raise ValueError("not a finite number")
            feedback = r.get("feedback") or []
            feedback = [feedback] if isinstance(feedback, str) else [str(f) for f in feedback]
            record = {"student": str(r["student"]), "assignment": str(r["assignment"]),
                      "notebook": str(r.get("notebook") or ""), "grade_id": str(r["grade_id"]),
                      "points": points, "max_points": maximum, "feedback": feedback,
                      "level": str(r.get("level") or DEFAULT_LEVEL), GRADER_ERROR: r.get(GRADER_ERROR) is True}
            if FAILURE in r:
                record[FAILURE] = clean_failure(r[FAILURE], feedback)
            records.append(record)
        except (KeyError, TypeError, ValueError, AttributeError):
            bad += 1
    return records, bad


def parse_log(text):
    """({submission: {phase: seconds}}, {submission: [notes]}) of grading.log's text (a later block of a
    submission replaces an earlier one)."""
    phases, notes, current = {}, {}, None
    for line in text.splitlines():
        start = re.match(r"^grading (\S.*)$", line)
        timed = re.match(r"^  (.+?): (\d+(?:\.\d+)?) s$", line)
        if start:
            current = start.group(1)
            phases[current], notes[current] = {}, []
        elif timed and current is not None:
            phase = re.sub(r" of \S+$", "", timed.group(1))
            phases[current][phase] = phases[current].get(phase, 0.0) + float(timed.group(2))
        elif current is not None and line.strip() and not line.startswith(TRACEBACK_LINES):
            notes[current].append(line.strip())  # a note of the grader's, or the last line of a traceback
    return phases, {k: v for k, v in notes.items() if v}


def read_logs(out: Path):
    """Run facts from OUT/logs/, the last run's (each part None where its file is missing or unreadable)."""
    facts = {"phases": None, "notes": None, "tasks": None, "not_graded": read_not_graded(out),
             "warnings": read_lines(out / RUN_WARNINGS)}
    log = out / "logs" / "grading.log"
    if log.is_file():
        try:
            facts["phases"], facts["notes"] = parse_log(log.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            pass
    tasks = out / "logs" / "tasks.jsonl"
    if tasks.is_file():
        rows = []
        try:
            for line in tasks.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    row = json.loads(line)
                    rows.append({"submission": str(row["submission"]), "worker": str(row.get("worker", "")),
                                 "started": float(row["started"]), "ended": float(row["ended"])})
                except (ValueError, KeyError, TypeError):
                    continue
            facts["tasks"] = rows
        except OSError:
            pass
    return facts


def read_timing(out: Path, student, assignment):
    """The ``timing`` saved with a submission's results (run/state.write_state), or None (no state, or an older one)."""
    try:
        data = json.loads(state_file(out, student, assignment).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    timing = data.get("timing") if isinstance(data, dict) else None
    return timing if isinstance(timing, dict) else None


def run_label(seconds):
    """A run's id as the runner writes it (its start, UTC) from a time.time()."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def kept_timings(out: Path, submissions, facts):
    """{student/assignment: {"run", "worker", "started", "ended", "phases", "notes"}} of the submissions whose
    results are kept, from the run that graded each: its state (OUT/state/, written by that run), else the
    last run's logs (an OUT from before states kept timings). A submission with neither is left out."""
    tasks = {t["submission"]: t for t in facts.get("tasks") or []}
    last_run = run_label(min(t["started"] for t in tasks.values())) if tasks else None
    phases, notes = facts.get("phases") or {}, facts.get("notes") or {}
    timings = {}
    for student, assignment in submissions:
        key = f"{student}/{assignment}"
        saved = read_timing(out, student, assignment)
        if saved is not None:
            saved_phases, saved_notes = parse_log(str(saved.get("log") or ""))
            try:
                timings[key] = {"run": str(saved.get("run") or ""), "worker": str(saved.get("worker", "")),
                                "started": float(saved["started"]), "ended": float(saved["ended"]),
                                "phases": saved_phases.get(key, {}), "notes": saved_notes.get(key, [])}
                continue
            except (KeyError, TypeError, ValueError):
                pass
        if key in tasks or key in phases:
            task = tasks.get(key, {})
            timings[key] = {"run": last_run or "", "worker": task.get("worker", ""), "started": task.get("started"),
                            "ended": task.get("ended"), "phases": phases.get(key, {}), "notes": notes.get(key, [])}
    return timings
