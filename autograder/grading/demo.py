"""`make demo-grade`: synthetic submissions made from solutions/ and course/, graded, as a table and a class report.

    python -m autograder.grading.demo [--out DIR] [--jobs N]

Students: perfect (the source notebooks), empty (the untouched release), two typical
mistakes (an answer cell edited), and a cheat (an IPython input transformer that turns
every later cell, the tests included, into `pass`, in an otherwise empty notebook).
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.grading.outputs.report import grade_table
from autograder.grading.bookkeeping.source import nbgrader_meta
from autograder.paths import COURSE, ROOT, SOLUTIONS, assignment_ids

# student: (assignment, text in an answer cell, replacement)
MISTAKES = {
    "mistake-no-scale": ("01-attention", "/ math.sqrt(d_k)", ""),
    "mistake-softmax-dim": ("01-attention", "dim=-1", "dim=-2"),
}
CHEAT = (
    "import IPython\n"
    "IPython.get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"
)


def edited(notebook_path, edit):
    """The notebook with ``edit(answer_source) -> new source`` applied to every answer cell."""
    notebook = nbformat.read(str(notebook_path), as_version=4)
    for cell in notebook.cells:
        if nbgrader_meta(cell).get("solution"):
            cell.source = edit(cell.source)
    return notebook


def put(folder: Path, student, assignment, notebook):
    target = folder / student / assignment
    target.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(target / f"{assignment}.ipynb"))


def make_submissions(folder: Path):
    assignments = assignment_ids()
    for assignment in assignments:
        put(folder, "perfect", assignment, nbformat.read(str(SOLUTIONS / assignment / f"{assignment}.ipynb"), as_version=4))
        release = COURSE / assignment / f"{assignment}.ipynb"
        if release.is_file():
            put(folder, "empty", assignment, nbformat.read(str(release), as_version=4))
    for student, (assignment, old, new) in MISTAKES.items():
        if assignment in assignments:
            put(folder, student, assignment, edited(SOLUTIONS / assignment / f"{assignment}.ipynb", lambda s: s.replace(old, new)))
    released = [a for a in assignments if (COURSE / a / f"{a}.ipynb").is_file()]
    if released:  # the untouched release, every test turned into `pass` inside the kernel
        first = released[0]
        put(folder, "cheat-transformer", first, edited(COURSE / first / f"{first}.ipynb", lambda s: CHEAT + s))
    return folder


NAMED = {"mistake-no-scale": "[sdpa-no-scale]", "mistake-softmax-dim": "[sdpa-softmax-dim]"}


def unexpected(records):
    """What differs from the demo's known answers: perfect earns every point, the untouched release and
    the cheat none, and each typical mistake is named (a grader on a new platform must agree)."""
    problems = []
    for record in records:
        student, cell, points, full = record["student"], record["grade_id"], record["points"], record["max_points"]
        if student == "perfect" and points != full:
            problems.append(f"perfect lost {full - points} point(s) on {cell}: {' '.join(record['feedback'])[:300]}")
        if student in ("empty", "cheat-transformer") and points:
            problems.append(f"{student} earned {points} on {cell}")
    for student, mistake_id in NAMED.items():
        if not any(mistake_id in line for r in records if r["student"] == student for line in r["feedback"]):
            problems.append(f"{student} is not named {mistake_id}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="keep the submissions and results here (default: a temporary folder)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless perfect earns full marks, empty and the cheat 0, and the mistakes are named")
    args = parser.parse_args(argv)
    folder = args.out or Path(tempfile.mkdtemp(prefix="demo-grade-"))
    shutil.rmtree(folder / "submitted", ignore_errors=True)
    make_submissions(folder / "submitted")
    command = [sys.executable, "-m", "autograder", "grade", str(folder / "submitted"), "--out", str(folder / "out"), "--jobs", str(args.jobs)]
    print("$", " ".join(command), flush=True)
    if subprocess.run(command, cwd=ROOT).returncode != 0:
        return 1
    records = json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
    print(grade_table(records))
    print(f"\nsubmissions, results.json, grades.csv, gradebook.csv and feedback/ are under {folder}")
    page = folder / "out" / "report.html"
    if page.is_file():
        print(f"the class report (open it in a browser): {page}")
    if args.out is None:
        print("(a temporary folder: pass --out DIR to choose it)")
    if args.check:
        problems = unexpected(records)
        print("\n".join(["", "check: NOT as expected:", *problems] if problems else ["", "check: as expected "
              "(perfect full marks, empty and cheat 0, both mistakes named)"]))
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
