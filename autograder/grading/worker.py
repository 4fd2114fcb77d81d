"""One grading job: grades its share of the submissions one after another in its own scratch course.

    python -m autograder.grading.worker PLAN.json

Started by runner.py under a memory limit that every notebook kernel it starts inherits.
Each graded submission is saved at once (state.py), so a crash loses only the one at hand.
"""
import json
import re
import shutil
import sys
import time
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path

from autograder.grading.combine import combined_records, public, zero_records, zero_submission
from autograder.grading.config import Settings, cell_timeout
from autograder.grading.feedback_page import feedback_folder, write_fallbacks
from autograder.grading.forked_kernels import KERNELS
from autograder.grading.layout import Submission, read_notebook
from autograder.grading.scratch import ScratchCourse
from autograder.grading.source import load_assignment
from autograder.grading.state import write_state
from autograder.grading.verify import Verifier


@contextmanager
def timed(what):
    """Log how long ``what`` took (the job logs show where grading time goes)."""
    start = time.perf_counter()
    yield
    print(f"  {what}: {time.perf_counter() - start:.2f} s", flush=True)


ERROR_LINE = re.compile(r"^[\w.]*(Error|Exception|Interrupt)\b.*")


def short_reason(error_text):
    """The most telling line of nbgrader's error text (e.g. "DeadKernelError: Kernel died")."""
    lines = [line.strip() for line in str(error_text).splitlines() if line.strip()]
    errors = [line for line in lines if ERROR_LINE.match(line) and "NbGraderException" not in line]
    return ((errors or lines or ["unknown error"])[-1])[:300]


def grade_notebooks(course, verifier, submission, sources, workdir):
    """The records of every source notebook of ``submission``'s assignment."""
    notebooks, unreadable = {}, {}
    for source in sources:
        notebook, why = read_notebook(submission.folder / f"{source.name}.ipynb")
        if notebook is None:
            unreadable[source.name] = why
        else:
            notebooks[source.name] = notebook
    KERNELS.over_budget = KERNELS.over_limit = False
    with timed("nbgrader autograde"):
        failure = course.autograde(submission, notebooks) if notebooks else None
    if failure and KERNELS.over_budget:
        failure = f"TimeoutError: the notebook ran past its time budget of {KERNELS.budget_s} s and was stopped"
    elif failure and KERNELS.over_limit:
        failure = "OSError: the notebook wrote too much into the grader's kernel folder and was stopped"
    records = []
    for source in sources:
        if source.name in unreadable:
            records += zero_records(submission, source, f"Not graded: {unreadable[source.name]}.")
            continue
        with timed(f"out-of-kernel check of {source.name}"):
            verdicts = verifier.verify(source, notebooks[source.name])
        nbgrader = course.results(submission, source)
        reason = short_reason(failure) if failure else "no autograded notebook"
        notebook_records = combined_records(submission, source, nbgrader, verdicts, reason)
        course.record_final(submission, source.name, notebook_records)
        records += notebook_records
    return records


def publish_feedback(course, submission, records, out: Path):
    """nbgrader's feedback pages into OUT/feedback/, and a plain page where it made none."""
    pages = course.feedback(submission)
    folder = feedback_folder(out, submission)
    folder.mkdir(parents=True, exist_ok=True)
    for notebook, page in pages.items():
        shutil.copyfile(page, folder / f"{notebook}.html")
    write_fallbacks(out, submission, [r for r in records if r["notebook"] not in pages])


def grade_one(course, verifier, submission, settings, scratch: Path, out: Path):
    sources = load_assignment(Path(settings.source_dir), submission.assignment)
    workdir = scratch / "verify" / submission.student / submission.assignment
    try:
        records = grade_notebooks(course, verifier, submission, sources, workdir)
    except Exception:  # a grader bug must not take the other submissions down
        why = f"Not graded: internal grading error ({short_reason(traceback.format_exc())})."
        records = zero_submission(submission, sources, why)
        traceback.print_exc()
    try:
        with timed("nbgrader generate_feedback"):
            publish_feedback(course, submission, records, out)
    except Exception:
        traceback.print_exc()
        write_fallbacks(out, submission, records)
    shutil.rmtree(workdir, ignore_errors=True)
    return public(records)


def main(argv=None):
    warnings.filterwarnings("ignore", message=".*not in session.*")  # SQLAlchemy noise from nbgrader's autograde
    plan = json.loads(Path((argv or sys.argv[1:])[0]).read_text(encoding="utf-8"))
    settings = Settings(**plan["settings"])
    scratch, out = Path(plan["scratch"]), Path(plan["out"])
    KERNELS.configure(settings.sandbox, scratch / "ipc", budget_s=settings.notebook_budget_s)
    KERNELS.start()  # preloads while the rest starts up
    course = ScratchCourse(settings, scratch / "course", Path(plan["template_db"]))
    verifier = Verifier(settings, cell_timeout(settings))
    verifier.start()
    try:
        for item in plan["submissions"]:
            submission = Submission(item["student"], item["assignment"], Path(item["folder"]))
            print(f"grading {submission.key}", flush=True)
            write_state(out, submission, item["key"], grade_one(course, verifier, submission, settings, scratch, out))
    finally:
        verifier.close()
        KERNELS.close()


if __name__ == "__main__":
    main()
