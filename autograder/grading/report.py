"""The run's outputs: OUT/results.json, OUT/grades.csv, and a grade table for the terminal."""
import csv
import json
import re
from pathlib import Path

MISCONCEPTION = re.compile(r"\[([a-z][a-z0-9-]*)\]")
FIELDS = ["student", "assignment", "notebook", "grade_id", "points", "max_points"]


def write_results(out: Path, records):
    (out / "results.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)


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
