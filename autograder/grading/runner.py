"""A grading run: find the submissions, grade them in N isolated jobs, merge, write the outputs.

Each job is a worker process with its own scratch course directory and SQLite gradebook
(SQLite takes one writer at a time), under a memory limit its notebook kernels inherit.
Results come back through OUT/state/, which also lets an interrupted run resume: a
submission whose inputs are unchanged is not graded again.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.grading import sandbox
from autograder.grading.combine import zero_submission
from autograder.grading.config import configured_db_url
from autograder.grading.feedback_page import write_fallbacks
from autograder.grading.gradebook import build_template, prepare_course_gradebook, store_scores
from autograder.grading.layout import find_submissions
from autograder.grading.limits import limiter
from autograder.grading.report import write_results
from autograder.grading.source import known_assignments, load_assignment
from autograder.grading.state import grader_digest, input_key, read_state, write_state
from autograder.paths import ROOT


class GradingError(Exception):
    """Grading could not run at all (bad arguments, no sources, a broken gradebook, no sandbox)."""


NO_SANDBOX_WARNING = ("graded with --no-sandbox: learners' code ran with the grader's rights and view of this "
                      "machine; do not trust these grades for untrusted submissions")


def split(items, jobs):
    """``items`` dealt round-robin into at most ``jobs`` non-empty shares."""
    shares = [items[i::jobs] for i in range(jobs)]
    return [share for share in shares if share]


def worker_env():
    """The environment of a worker and of the kernels it starts: this checkout's packages come first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_share(number, share, keys, settings, out: Path, scratch: Path, template: Path):
    """Grade ``share`` in worker processes, one at a time; when a worker dies (a learner's code can
    kill its parent), the submission it was grading gets 0 and a new worker takes the rest."""
    remaining = list(share)
    while remaining:
        plan = {
            "settings": settings.to_json(), "scratch": str(scratch / f"job-{number}"), "out": str(out), "template_db": str(template),
            "submissions": [{"student": s.student, "assignment": s.assignment, "folder": str(s.folder), "key": keys[s.key]} for s in remaining],
        }
        plan_path = scratch / f"plan-{number}.json"
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        with open(out / "logs" / f"job-{number}.log", "a", encoding="utf-8") as log:
            command = [sys.executable, "-m", "autograder.grading.worker", str(plan_path)]
            subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=worker_env(),
                           preexec_fn=limiter(memory_mb=settings.kernel_memory_mb))
        remaining = [s for s in remaining if read_state(out, s, keys[s.key]) is None]
        if remaining:
            lost, remaining = remaining[0], remaining[1:]
            why = "Not graded: the grading process stopped while grading this submission (was it killed from the notebook?)."
            records = zero_submission(lost, load_assignment(Path(settings.source_dir), lost.assignment), why)
            write_fallbacks(out, lost, records)
            write_state(out, lost, keys[lost.key], records)


def run_jobs(todo, keys, jobs, settings, out: Path, scratch: Path, template: Path):
    shutil.rmtree(out / "logs", ignore_errors=True)
    (out / "logs").mkdir(parents=True)
    shares = split(todo, jobs)
    with ThreadPoolExecutor(max_workers=len(shares) or 1) as pool:
        for future in [pool.submit(run_share, n, share, keys, settings, out, scratch, template) for n, share in enumerate(shares)]:
            future.result()


def readable_sources(source_dir: Path):
    """({assignment: source notebooks}, warnings): an unreadable source costs only its assignment."""
    sources, warnings = {}, []
    for assignment in known_assignments(source_dir):
        try:
            sources[assignment] = load_assignment(source_dir, assignment)
        except Exception as error:  # nbformat raises several kinds
            warnings.append(f"{source_dir / assignment}: source notebook unreadable ({type(error).__name__}: {error}); its submissions are not graded")
    return sources, warnings


def collect(out: Path, submissions, sources, keys):
    """Every submission's saved records, in order (0 points, and why, where none were saved)."""
    records = []
    for submission in submissions:
        saved = read_state(out, submission, keys[submission.key])
        if saved is None:
            why = f"Not graded: the grading job stopped before this submission (see {out / 'logs'})."
            saved = zero_submission(submission, sources[submission.assignment], why)
        records += saved
    return records


def grade(submitted: Path, out: Path, jobs=1, settings=None, db_url=None, fresh=False, log=print):
    """Grade everything under ``submitted`` into ``out``; returns the records."""
    source_dir, submitted, out = Path(settings.source_dir), submitted.resolve(), out.resolve()
    if not submitted.is_dir():
        raise GradingError(f"{submitted}: no such folder (expected SUBMITTED/<student>/<assignment>/<notebook>.ipynb)")
    if not source_dir.is_dir() or not known_assignments(source_dir):
        raise GradingError(f"{source_dir}: no source notebooks to grade against")
    if submitted == out or submitted in out.parents:
        raise GradingError("--out must not be the submitted folder or inside it (SUBMITTED is never modified)")
    if settings.sandbox:
        try:
            sandbox.check_available()
        except sandbox.SandboxUnavailable as error:
            raise GradingError(str(error)) from None
    sources, warnings = readable_sources(source_dir)
    if not settings.sandbox:
        warnings.insert(0, NO_SANDBOX_WARNING)
    elif sandbox.missing_cap_warning():
        warnings.insert(0, sandbox.missing_cap_warning())
    submissions, more = find_submissions(submitted, set(sources))
    warnings += more
    for warning in warnings:
        log(f"warning: {warning}")
    out.mkdir(parents=True, exist_ok=True)
    unsandboxed = out / "WARNING-no-sandbox.txt"
    if not settings.sandbox:
        unsandboxed.write_text(NO_SANDBOX_WARNING + "\n", encoding="utf-8")
    elif unsandboxed.exists():
        unsandboxed.unlink()
    grader = grader_digest()  # ~0.2 s: the grader's files and every installed package
    keys = {s.key: input_key(s, sources[s.assignment], settings, grader) for s in submissions}
    todo = [s for s in submissions if fresh or read_state(out, s, keys[s.key]) is None]
    log(f"{len(submissions)} submission(s); {len(submissions) - len(todo)} already graded; grading {len(todo)} with {jobs} job(s)")
    assignments = sorted({s.assignment for s in submissions})
    db_url = db_url or configured_db_url() or f"sqlite:///{out / 'gradebook.db'}"
    with tempfile.TemporaryDirectory(prefix="autograder-") as scratch:
        template = build_template(settings, assignments) if assignments else None
        if todo:
            run_jobs(sorted(todo, key=lambda s: (s.assignment, s.student)), keys, jobs, settings, out, Path(scratch), template)
        if template:
            prepare_course_gradebook(settings, db_url, template, assignments)
    records = collect(out, submissions, sources, keys)
    if records:
        store_scores(db_url, records)
    write_results(out, records)
    return records
