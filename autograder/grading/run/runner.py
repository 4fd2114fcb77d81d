"""A grading run: find the submissions, grade them on Dask workers, write the outputs.

Each worker (cluster.py, worker.py) has its own scratch course directory and SQLite gradebook
(SQLite takes one writer at a time). Results come back to this process, which writes OUT:
OUT/state/ lets an interrupted run resume (a submission whose inputs are unchanged is not
graded again).
"""
import contextlib
import hashlib
import json
import shutil
import sys
import threading
import time
from pathlib import Path

from autograder.grading.run import sandbox
from autograder.grading.run.combine import zero_submission
from autograder.grading.bookkeeping.config import Settings, configured_course_id, configured_db_url
from autograder.grading.outputs.failures import JOB_STOPPED, RECORDS_SAY_FAILURES, WORKER_DIED, mark
from autograder.grading.bookkeeping.gradebook import build_template, prepare_course_gradebook, store_scores, template_cached
from autograder.grading.bookkeeping.layout import MAX_TIMESTAMP_BYTES, Packed, find_submissions, misplaced, pack
from autograder.grading.outputs.report import (RUN_WARNINGS, escaped, read_lines, stops, submission_line, write_lines,
                                              write_not_graded, write_results)
from autograder.grading.bookkeeping.source import known_assignments, load_assignment
from autograder.grading.run import stages
from autograder.grading.run.state import autograded_path, grader_digest, input_key, read_comments, read_state, write_state
from autograder.levels import DEFAULT_LEVEL, LEVEL_KEY, LEVELS
from autograder.paths import EDITIONS


class GradingError(Exception):
    """Grading could not run at all (bad arguments, no sources, SUBMITTED not laid out as expected, no sandbox)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run, once Dask is shut down: ``graded`` of its ``total`` submissions are saved in OUT."""

    def __init__(self, graded, total):
        super().__init__(f"{graded} of {total} submissions graded")
        self.graded, self.total = graded, total


class Progress:
    """The terminal while grading. On a terminal, a tqdm bar, and above it each submission that was not graded
    normally; elsewhere (a log file, CI, a cluster job: tqdm would print nothing) one line per finished submission."""

    def __init__(self, total, log=print, terminal=None):
        from tqdm import tqdm

        self.total, self.done, self.log = total, 0, log
        terminal = sys.stderr.isatty() if terminal is None else terminal
        self.bar = tqdm(total=total, desc="grading", unit="submission", file=sys.stderr) if terminal else None

    def finished(self, submission, result):
        """``submission`` graded: ``result`` is its task's (records, and the worker's timing where the task ran)."""
        self.done += 1
        timing = result.get("timing")
        seconds = timing["ended"] - timing["started"] if timing else None
        problems = stops(result["records"], recorded=result.get(RECORDS_SAY_FAILURES))
        line = escaped(f"[{self.done}/{self.total}] " + submission_line(submission.key, result["records"], seconds, problems))
        if self.bar is None:
            self.log(line)
            return
        if problems:
            self.bar.write(line, file=sys.stderr)
        self.bar.update()

    def close(self):
        if self.bar is not None:
            self.bar.close()


def escaping(log):
    """``log`` with each line's control characters escaped (report.escaped): what a student wrote reaches the
    terminal as inert text."""
    return lambda line: log(escaped(line))


NO_SANDBOX_WARNING = ("graded with --no-sandbox: learners' code ran with the grader's rights and view of this "
                      "machine; do not trust these grades for untrusted submissions")


def run_tasks(todo, keys, sources, settings, out: Path, template: Path, jobs=1, scheduler=None, log=print, editions=None,
              warn=None, clock=None, closing=None):
    """Grade ``todo`` on Dask (cluster.py), one task per submission; write each result as it comes back.

    The client alone writes OUT: each submission's state (for resuming) and feedback as soon as
    it is graded, so an interrupted run keeps what was done. A submission whose task failed (its
    worker died twice, or the grader broke) gets 0 with the reason. ``editions``: {language: (source
    dir, {assignment: source notebooks})} of the course's other editions (edition_sources). ``clock``: a
    stages.Clock that gets the run's own stages (cluster start, worker set-up, the client's per-submission work).
    ``closing``: a cluster.Closing, to shut Dask down in the background once every result is in (the caller waits).
    """
    clock = clock or stages.Clock()
    from distributed import as_completed

    from autograder.grading.run import cluster

    log = escaping(log)
    warn = warn or (lambda line: log(f"warning: {line}"))
    logs = out / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    notebooks = {a: {nb.name: nb.path.read_text(encoding="utf-8") for nb in sources[a]} for a in {s.assignment for s in todo}}
    started, run = time.perf_counter(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # run: kept in each state
    if not scheduler:  # a first run spends a minute here (each worker's unit server, scratch course): say so
        log(f"starting {jobs} grading worker(s) and setting them up (a few seconds; up to a minute or two the first "
            "time on a busy machine)...")
    clock.mark(stages.BEFORE)
    with cluster.grading_client(jobs, scheduler, log, warn=warn, closing=closing) as (client, ctrl_c):
        ready = time.perf_counter()
        clock.mark(stages.CLUSTER)
        fresh = cluster.register(client, settings, notebooks, template.read_bytes(),
                                 edition_payloads(editions or {}, todo, settings))
        clock.mark(stages.SETUP)
        log(f"Dask: cluster ready in {ready - started:.1f} s, workers set up for grading in {time.perf_counter() - ready:.1f} s"
            + ("" if fresh else " (kept from the last run on this cluster: the same course and settings)"))
        futures, waiting = {}, iter(todo)

        def submit_next():  # a submission is read only when it is about to be handed out
            submission = next(waiting, None)
            if submission is None:
                return None
            with clock.client_stage(stages.READ):
                packed = guarded_pack(submission, [nb.name for nb in sources[submission.assignment]])
            future = client.submit(cluster.grade_task, packed, key=f"grade-{submission.key}-{keys[submission.key][:12]}", pure=False)
            futures[future] = submission
            return future

        # At most a few tasks per worker thread in flight: the class's notebooks are never all in memory at once.
        threads = sum(client.nthreads().values())
        window = max(8, 4 * threads)
        progress = Progress(len(todo), log)
        try:
            running = as_completed([f for f in (submit_next() for _ in range(window)) if f is not None], loop=client.loop)
            for future in cluster.finished(running, ctrl_c):
                submission = futures.pop(future)
                following = submit_next()
                if following is not None:
                    running.add(following)
                elif len(futures) < threads:  # a worker has nothing left to grade: a core for the imports
                    import_what_the_end_needs()
                result = task_result(future, submission, sources[submission.assignment])
                try:
                    with clock.client_stage(stages.WRITING):
                        save_result(out, submission, keys[submission.key], result, run)
                        write_logs(logs, submission, result)
                except Exception as error:  # one submission's outputs that cannot be written cost only it
                    warn(f"{submission.key}: its results could not be saved ({type(error).__name__}: "
                         f"{str(error)[:300]}); it counts 0 until graded again")
                progress.finished(submission, result)
        finally:
            progress.close()
        clock.grading_s = time.perf_counter() - clock.last  # the results' wait, not a stage of its own
        clock.skip()
    clock.mark(stages.SHUTDOWN)


END_IMPORTS = threading.Event()  # set once import_what_the_end_needs has run in this process


def import_what_the_end_needs():
    """Import what the end of a run needs (nbgrader's gradebook and export, the class report's libraries: about two
    seconds), once per process, where the client would otherwise wait: every submission is handed out and a worker
    has nothing left to grade, so a core is free. In the client's own thread, before the cluster's shutdown starts
    in another (cluster.Closing): two threads importing at once can each get a module the other half imported."""
    if END_IMPORTS.is_set():
        return
    END_IMPORTS.set()
    from autograder.grading.outputs.class_report import figures

    with contextlib.suppress(Exception):  # imported again where needed, which says what failed
        import nbgrader.api  # noqa: F401

        import autograder.grading.outputs.lms_export  # noqa: F401
        figures.import_libraries()


MAX_NOTEBOOK_BYTES = 32 * 2**20  # a submitted notebook larger than this is not read (the course's are under 1 MiB)


def too_large(path: Path):
    """Why the notebook at ``path`` is not read (its size, looked at before any byte is), or None."""
    try:
        info = path.lstat()
    except OSError:
        return None  # missing: layout.read_notebook says so
    if info.st_size > MAX_NOTEBOOK_BYTES:
        return (f"{path.name} is {info.st_size / 2**20:.0f} MiB, more than the {MAX_NOTEBOOK_BYTES >> 20} MiB a "
                "notebook may be; it was not read (clear its outputs and submit it again)")
    return None


def guarded_pack(submission, notebook_names):
    """layout.pack's Packed form of ``submission``, each notebook read inside a guard: one that is too large (read
    by none of the grader's processes), or that breaks its parser (a RecursionError from JSON nested 1,000 levels
    deep, a MemoryError), is unreadable with the reason, and costs no other notebook or submission anything."""
    notebooks, unreadable = {}, {}
    for name in notebook_names:
        why = too_large(submission.folder / f"{name}.ipynb")
        if why is None:
            try:
                one = pack(submission, [name])
            except Exception as error:  # RecursionError, MemoryError, and whatever else a parser raises
                why = (f"{name}.ipynb could not be read ({type(error).__name__}: {escaped(str(error))[:200]}); "
                       "is it a notebook saved by Jupyter?")
            else:
                notebooks.update(one.notebooks)
                unreadable.update(one.unreadable)
                continue
        unreadable[name] = why
    return Packed(submission.student, submission.assignment, notebooks, unreadable, timestamp(submission))


def grader_error(records):
    """``records`` marked as the grader's own failure (failures.GRADER_ERROR): told apart by this field, which
    only the grader sets, not by their words."""
    return [{**r, "grader_error": True} for r in records]


def task_result(future, submission, source_notebooks):
    """A finished task's result; 0 points, and why, where the task failed (its worker died twice, or the grader broke)."""
    from distributed.scheduler import KilledWorker

    try:
        return future.result()
    except Exception as error:
        lost = ("Not graded: the grading worker stopped twice while grading this submission (a notebook that ends its "
                "process does that, and so does a worker the machine or the cluster lost)")
        why = (lost if isinstance(error, KilledWorker) else
               f"Not graded: internal grading error ({type(error).__name__}: {str(error)[:300]}).")
        records = grader_error(zero_submission(submission, source_notebooks, why))
        if isinstance(error, KilledWorker):
            records = [mark(r, WORKER_DIED) for r in records]
        return {"records": records, "feedback": {}, "log": "", RECORDS_SAY_FAILURES: True}


def write_logs(logs: Path, submission, result):
    """A graded submission's log (grading.log), and which worker graded it from when to when (tasks.jsonl)."""
    with open(logs / "grading.log", "a", encoding="utf-8") as handle:
        handle.write(result["log"])
    if "timing" in result:  # time.time() on that worker
        with open(logs / "tasks.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"submission": submission.key, **result["timing"]}) + "\n")


def save_result(out: Path, submission, key, result, run=None):
    """A graded submission into OUT: its feedback pages (a plain page where nbgrader made none), its autograded
    notebooks (for formgrader) and its state."""
    from autograder.grading.outputs.feedback_page import feedback_folder, write_fallbacks  # not before the first result

    autograded = result.get("autograded", {})
    kept = out / "autograded" / submission.student / submission.assignment
    shutil.rmtree(kept, ignore_errors=True)  # no notebook of an earlier grading of it stays
    kept.mkdir(parents=True)  # formgrader counts a submission autograded where this folder exists
    for notebook, text in autograded.items():
        autograded_path(out, submission.student, submission.assignment, Path(notebook).name).write_text(text, encoding="utf-8")
    stamp = timestamp(submission)
    if stamp is not None:  # as nbgrader's autograde copies it: formgrader compares it with the gradebook's
        (kept / "timestamp.txt").write_text(stamp, encoding="utf-8")
    folder = feedback_folder(out, submission)
    folder.mkdir(parents=True, exist_ok=True)
    for notebook, page in result["feedback"].items():
        (folder / f"{Path(notebook).name}.html").write_bytes(page)
    write_fallbacks(out, submission, [r for r in result["records"] if r["notebook"] not in result["feedback"]],
                    result.get("language"))
    timing = {"run": run, **result["timing"], "log": result["log"],  # for the report; stages: worker.grade's (bench)
              **({"stages": result["stages"]} if "stages" in result else {})} if "timing" in result else None
    comments = result.get("comments", {})
    write_state(out, submission, key, result["records"], {Path(nb).name: comments.get(nb, {}) for nb in autograded}, timing)


def timestamp(submission):
    """The submission's timestamp.txt (read as layout.pack reads it, for the worker's nbgrader), or None."""
    stamp = submission.folder / "timestamp.txt"
    if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size <= MAX_TIMESTAMP_BYTES:
        return stamp.read_text(encoding="utf-8", errors="replace")
    return None


def edition_sources(source_dir: Path, sources):
    """({language: (source dir, {assignment: source notebooks})} of the course's other editions, warnings).

    An edition lives beside the sources as in this repository (solutions/ and ko/solutions/): its
    notebooks are the same programs in another language (tests/notebooks/test_editions.py). A Korean submission
    is autograded by nbgrader against the Korean source, so that its test cells and feedback page
    stay Korean; the points come from the same hidden tests. An edition's assignment whose graded
    cells (ids, points) differ from the main source's is not used: those submissions get the main one.
    """
    editions, warnings = {}, []
    for lang in EDITIONS:
        folder = Path(source_dir).parent / lang / "solutions"
        if lang == "en" or not folder.is_dir():
            continue
        found, unreadable = readable_sources(folder)
        warnings += unreadable
        same = {}
        for assignment, notebooks in found.items():
            if _graded_cells(notebooks) == _graded_cells(sources.get(assignment, [])):
                same[assignment] = notebooks
            else:
                warnings.append(f"{folder / assignment}: its graded cells differ from {Path(source_dir) / assignment}; "
                                f"{lang} submissions of it are autograded against the latter")
        if same:
            editions[lang] = (folder, same)
    return editions, warnings


def _edition_digest(editions, assignment):
    """What a submission's grade depends on in the other editions' sources (its feedback's test cells)."""
    digest = hashlib.sha256()
    for lang in sorted(editions):
        for nb in editions[lang][1].get(assignment, []):
            digest.update(lang.encode() + nb.path.read_bytes())
    return digest.hexdigest() if editions else ""


def _graded_cells(notebooks):
    return sorted((nb.name, cell.grade_id, cell.points) for nb in notebooks for cell in nb.graded)


def edition_payloads(editions, todo, settings):
    """{language: (notebook texts, gradebook template bytes)} of the editions, for the assignments to grade."""
    assignments = {s.assignment for s in todo}
    payloads = {}
    for lang, (folder, found) in editions.items():
        present = sorted(assignments & set(found))
        if present:
            notebooks = {a: {nb.name: nb.path.read_text(encoding="utf-8") for nb in found[a]} for a in present}
            edition_settings = Settings(**{**settings.to_json(), "source_dir": str(folder)})
            payloads[lang] = (notebooks, build_template(edition_settings, present).read_bytes())
    return payloads


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
    """Every submission's saved records, in order (0 points, and why, where none were saved), each with the
    submission's level."""
    records = []
    for submission in submissions:
        saved = read_state(out, submission, keys[submission.key])
        if saved is None:
            why = f"Not graded: the grading job stopped before this submission (see {out / 'logs'})."
            saved = [mark(r, JOB_STOPPED) for r in grader_error(zero_submission(submission, sources[submission.assignment], why))]
        level = submission_level(submission, [nb.name for nb in sources[submission.assignment]])
        records += [{"student": r["student"], "assignment": r["assignment"], "level": level, **r} for r in saved]
    return records


def submission_level(submission, notebook_names):
    """The level its notebooks were released at (autograder/levels.py: their metadata's course_level), guided
    where none says (a notebook released before the levels, or one that cannot be read). Both levels are graded
    by the same hidden tests against the same source: the level is recorded, it changes no points."""
    for name in notebook_names:
        path = submission.folder / f"{name}.ipynb"
        if path.is_symlink() or not path.is_file() or too_large(path):  # never followed, as layout.read_notebook does not
            continue
        try:
            level = json.loads(path.read_text(encoding="utf-8"))["metadata"].get(LEVEL_KEY)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, MemoryError):
            continue
        if level in LEVELS:
            return level
    return DEFAULT_LEVEL


def grade(submitted: Path, out: Path, jobs=1, settings=None, db_url=None, fresh=False, log=print, scheduler=None,
          roster=None):
    """Grade everything under ``submitted`` into ``out``; returns the records.

    ``roster``: a roster CSV (lms_export.read_roster), read at the end only, for gradebook.csv and the names in
    nbgrader's student table: it is no input of a grade, so it never makes a submission count as not yet graded.
    Every warning the run prints goes into OUT/logs/warnings.txt, which the class report shows.
    GradingError when grading cannot run; Interrupted on Ctrl-C once submissions are being graded.
    """
    clock = stages.Clock()  # the run's own stages (stages.py), written into OUT/logs/stages.json at the end
    log = escaping(log)
    printed = []  # the warnings printed once the first ones are out (a result not saved, the roster's...)
    written = []  # set once OUT/logs/warnings.txt is written (run_tasks empties OUT/logs/ first)

    def warn(line):
        printed.append(line)
        log(f"warning: {line}")
        if written:
            write_lines(out / RUN_WARNINGS, warnings + printed)
    source_dir, submitted, out = Path(settings.source_dir), submitted.resolve(), out.resolve()
    if not submitted.is_dir():
        raise GradingError(f"{submitted}: no such folder (expected SUBMITTED/<student>/<assignment>/<notebook>.ipynb)")
    if not source_dir.is_dir() or not known_assignments(source_dir):
        raise GradingError(f"{source_dir}: no source notebooks to grade against")
    if submitted == out or submitted in out.parents:
        raise GradingError("--out must not be the submitted folder or inside it (SUBMITTED is never modified)")
    sources, warnings = readable_sources(source_dir)
    submissions, not_graded = find_submissions(submitted, set(sources))
    wrong_folder = misplaced(submitted, set(sources), submissions)
    if wrong_folder:
        raise GradingError(wrong_folder)
    if settings.sandbox:
        try:
            sandbox.check_available()
        except sandbox.SandboxUnavailable as error:
            raise GradingError(str(error)) from None
    if not settings.sandbox:
        warnings.insert(0, NO_SANDBOX_WARNING)
    else:
        missing = [sandbox.missing_cap_warning(), sandbox.missing_memory_warning(), sandbox.missing_cpu_warning()]
        warnings[:0] = [line for line in missing if line]
    editions, edition_warnings = edition_sources(source_dir, sources)
    warnings += edition_warnings + case_clashes(sorted({s.student for s in submissions}))
    for warning in warnings + not_graded:
        log(f"warning: {warning}")
    out.mkdir(parents=True, exist_ok=True)
    unsandboxed = out / "WARNING-no-sandbox.txt"
    if not settings.sandbox:
        unsandboxed.write_text(NO_SANDBOX_WARNING + "\n", encoding="utf-8")
    elif unsandboxed.exists():
        unsandboxed.unlink()
    grader = grader_digest()  # ~0.2 s: the grader's files and the packages grading may import
    keys = {s.key: input_key(s, sources[s.assignment], settings, grader + _edition_digest(editions, s.assignment))
            for s in submissions}
    todo = [s for s in submissions if fresh or read_state(out, s, keys[s.key]) is None]
    where = (f"on the Dask cluster at {scheduler}" if isinstance(scheduler, str) else f"on Slurm with {scheduler.workers} "
             "worker(s)" if scheduler else f"with {jobs} job(s)")  # scheduler: an address, or a slurm.Plan (--slurm)
    log(f"{len(submissions)} submission(s); {len(submissions) - len(todo)} already graded; grading {len(todo)} {where}")
    assignments = sorted({s.assignment for s in submissions})
    db_url = db_url or configured_db_url() or f"sqlite:///{out / 'gradebook.db'}"
    closing = None  # a cluster.Closing once there is a cluster: it shuts down while the outputs are written
    try:
        if assignments and not template_cached(settings, assignments):
            log(f"preparing nbgrader's gradebook for {len(assignments)} assignment(s) (once: later runs reuse it)...")
        template = build_template(settings, assignments) if assignments else None
        clock.mark(stages.BEFORE)
        if todo:
            from autograder.grading.run.cluster import Closing

            closing = Closing()
            run_tasks(sorted(todo, key=lambda s: (s.assignment, s.student)), keys, sources, settings, out, template,
                      jobs, scheduler, log, editions, warn, clock, closing)
        # after run_tasks, which empties OUT/logs/; for the class report
        write_not_graded(out, not_graded)
        from autograder.grading.outputs.lms_export import FINDINGS_FILE, keep_findings  # nbgrader: not at the start

        if (submitted / FINDINGS_FILE).is_file():  # what collect-zip found, for the class report and gradebook.csv
            problem = keep_findings(submitted, out)
            if problem:
                warn(f"collect-zip's findings in {submitted / FINDINGS_FILE} were not kept: {problem}")
        write_lines(out / RUN_WARNINGS, warnings + printed)
        written.append(True)
        clock.mark(stages.END_OUTPUTS)
        if template:
            prepare_course_gradebook(settings, db_url, template, assignments)
        records = collect(out, submissions, sources, keys)
        if records:
            store_scores(db_url, records, {s.key: timestamp(s) for s in submissions},
                         {(s.student, s.assignment): read_comments(out, s) for s in submissions})
        clock.mark(stages.END_GRADEBOOK)
        write_results(out, records)
        write_class_outputs(out, records, db_url, log, roster, warn)
        clock.mark(stages.END_OUTPUTS)
        failed = closing.wait() if closing is not None else None
        clock.mark(stages.SHUTDOWN)  # what is left of it once the outputs are written
        if failed is not None:  # every grade is written by now: only said
            log(f"warning: Dask did not shut down cleanly ({type(failed).__name__}: {str(failed)[:300]})")
        write_run_stages(out, clock, len(todo))
    except KeyboardInterrupt:
        raise Interrupted(sum(read_state(out, s, keys[s.key]) is not None for s in submissions), len(submissions)) from None
    finally:  # after an error or Ctrl-C too: no worker outlives the call (a second Ctrl-C leaves it to the exit)
        if closing is not None:
            with contextlib.suppress(KeyboardInterrupt):
                closing.wait()
    return records


def write_run_stages(out: Path, clock, graded):
    """OUT/logs/stages.json: the run's own stages (`make bench` reads them with the workers', stages.table);
    ``grade_s``: this function's wall time so far (the command's start and exit are the rest of its wall time)."""
    try:
        stages.write_run(out, {"fixed": dict(clock.seconds), "client": clock.client, "submissions": graded,
                               "grading_s": getattr(clock, "grading_s", 0.0), "grade_s": time.perf_counter() - clock.started})
    except OSError:
        pass


def write_class_outputs(out: Path, records, db_url, log=print, roster=None, warn=None):
    """OUT/gradebook.csv (with the roster's columns and names, where one is given), then OUT/report.html, after
    the grades are safe: a failure here only warns. ``warn`` gets each warning (default: printed), before the
    report is written, so that the report shows them (OUT/logs/warnings.txt)."""
    if warn is None:
        def warn(line):
            log(f"warning: {line}")
            write_lines(out / RUN_WARNINGS, (read_lines(out / RUN_WARNINGS) or []) + [line])
    if records:
        try:
            from autograder.grading.outputs.lms_export import export_gradebook

            export_gradebook(db_url, out / "gradebook.csv", warn=warn, **({"roster": str(roster)} if roster else {}))
        except Exception as error:
            warn(f"gradebook.csv was not written ({type(error).__name__}: {error})")
        if roster:
            try:
                from autograder.grading.bookkeeping.gradebook import name_students
                from autograder.grading.outputs.lms_export import read_roster

                name_students(db_url, read_roster(roster))
            except Exception as error:
                warn(f"the roster's names were not entered in the gradebook ({type(error).__name__}: {error})")
    try:
        from autograder.grading.outputs.class_report import write_report

        write_report(out, records, course=configured_course_id())
    except Exception as error:  # the report is a view of results.json: never worth losing a run over
        log(f"warning: the class report was not written ({type(error).__name__}: {error}); "
            f"try again with: autograder report {out}")


def case_clashes(students):
    """A warning for each set of student ids that differ only in case (``ivan`` and ``Ivan``): nbgrader's ids are
    compared exactly, so they are graded as different students, which may be one learner who submitted twice."""
    groups = {}
    for student in students:
        groups.setdefault(student.casefold(), []).append(student)
    return [f"the student ids {' and '.join(sorted(group))} differ only in case: they are graded as {len(group)} "
            "different students (nbgrader compares ids exactly); if they are one learner, keep one folder in "
            "SUBMITTED and grade again" for group in groups.values() if len(group) > 1]
