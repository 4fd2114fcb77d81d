"""`make bench`: the same N perfect students graded by stock `nbgrader autograde` and by `autograder grade`.

    python -m autograder.grading.bench [--students N] [--jobs J] [--assignment ID]

Both use the course's nbgrader_config.py. Stock: the `nbgrader autograde` command, its
gradebook prepared beforehand (not timed). Ours: the whole `autograder grade` command
(gradebook template already cached, feedback HTML and out-of-kernel checks included).
Prints both times, seconds per notebook and the ratio; fails if the scores differ.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.grading.config import Settings
from autograder.grading.gradebook import build_template
from autograder.grading.source import load_assignment
from autograder.paths import ROOT, SOLUTIONS, assignment_ids, put_python_scripts_on_path


def timed_run(command, **kwargs):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} ... failed:\n{result.stderr[-3000:]}")
    return time.perf_counter() - start


def stock(scratch: Path, assignment, students):
    """Seconds for `nbgrader autograde`, and its scores {(student, grade_id): points}."""
    from nbgrader.api import Gradebook

    db_url = f"sqlite:///{scratch / 'gradebook.db'}"
    flags = [f"--CourseDirectory.root={scratch}", f"--CourseDirectory.source_directory={SOLUTIONS}",
             f"--CourseDirectory.release_directory={scratch / 'release'}", f"--CourseDirectory.db_url={db_url}",
             f"--Exchange.root={scratch / 'exchange'}"]
    nbgrader = [str(Path(sys.executable).with_name("nbgrader"))]
    timed_run(nbgrader + ["generate_assignment", assignment, "--force"] + flags)
    seconds = timed_run(nbgrader + ["autograde", assignment, "--force"] + flags)
    cells = load_assignment(SOLUTIONS, assignment)[0]
    with Gradebook(db_url) as gradebook:
        scores = {(s, c.grade_id): gradebook.find_grade(c.grade_id, cells.name, assignment, s).score for s in students for c in cells.graded}
    return seconds, scores


def ours(scratch: Path, jobs):
    command = [sys.executable, "-m", "autograder", "grade", str(scratch / "submitted"), "--out", str(scratch / "ours"), "--jobs", str(jobs)]
    seconds = timed_run(command)
    records = json.loads((scratch / "ours" / "results.json").read_text(encoding="utf-8"))
    return seconds, {(r["student"], r["grade_id"]): float(r["points"]) for r in records}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--assignment", default=(assignment_ids() or [None])[0])
    args = parser.parse_args(argv)
    if args.assignment is None:
        sys.exit("no notebooks under solutions/ to benchmark")
    put_python_scripts_on_path()
    build_template(Settings(), [args.assignment])  # cached, as on any run after the first
    students = [f"student-{n:02d}" for n in range(args.students)]
    source = SOLUTIONS / args.assignment / f"{args.assignment}.ipynb"
    with tempfile.TemporaryDirectory(prefix="bench-") as folder:
        scratch = Path(folder)
        for student in students:
            (scratch / "submitted" / student / args.assignment).mkdir(parents=True)
            shutil.copyfile(source, scratch / "submitted" / student / args.assignment / source.name)
        stock_s, stock_scores = stock(scratch, args.assignment, students)
        ours_s, our_scores = ours(scratch, args.jobs)
    n = len(students)
    print(f"{args.assignment}: {n} perfect students, {os.cpu_count()} CPU cores")
    print(f"stock nbgrader autograde       : {stock_s:6.1f} s  ({stock_s / n:.2f} s per notebook)")
    print(f"autograder grade --jobs {args.jobs:<6} : {ours_s:6.1f} s  ({ours_s / n:.2f} s per notebook)")
    print(f"ratio stock / ours             : {stock_s / ours_s:.2f}x")
    same = stock_scores == our_scores
    print(f"identical scores               : {'yes' if same else 'NO'}")
    if not same:
        diff = {k: (v, our_scores.get(k)) for k, v in stock_scores.items() if our_scores.get(k) != v}
        print(f"differences (stock, ours): {diff}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
