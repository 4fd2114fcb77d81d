"""A grading worker's state and its one task: grade one packed submission.

A GradingWorker lives as long as the Dask worker process that holds it (cluster.py's
plugin): its scratch nbgrader course and gradebook copy and its unit server (with
--kernel-run, its kernel server too) are set up once, then every submission it is handed
is graded in them, one after another. It never sees SUBMITTED or OUT: a submission arrives
packed (layout.Packed) and its records and feedback pages go back to the client, which alone
writes OUT.
"""
import time

_IMPORT_BEGUN = time.perf_counter()  # this module's imports (torch, nbgrader's, the checks'): a worker's set-up
import contextlib  # noqa: E402
import copy
import io
import re
import shutil
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path

import nbformat

from autograder.checks import core as checks_core
from autograder.grading.run.combine import combined_records, mark_failures, public, zero_records, zero_submission
from autograder.grading.outputs.failures import KERNEL_STOPPED, RECORDS_SAY_FAILURES, TIME_BUDGET, kernel_stop, mark
from autograder.grading.bookkeeping.config import Settings, cell_timeout
from autograder.grading.run.forked_kernels import KERNELS
from autograder.grading.run.stages import AUTOGRADE, FEEDBACK, GRADEBOOK, READ, recording, stage
from autograder.grading.bookkeeping.recorded_run import recorded, tag_cells
from autograder.grading.bookkeeping.scratch import ScratchCourse
from autograder.grading.bookkeeping.source import load_assignment
from autograder.grading.run.verify import Verifier
from learner_kit.i18n import notebook_language, speaking, tr
from sandbox_servers.budget import NotebookBudget

IMPORT_S = time.perf_counter() - _IMPORT_BEGUN


@contextmanager
def timed(what):
    """Log how long ``what`` took (the logs show where grading time goes)."""
    start = time.perf_counter()
    yield
    print(f"  {what}: {time.perf_counter() - start:.2f} s", flush=True)


# Below this many seconds left of a notebook's budget after its verdicts, nbgrader's kernel run is not started.
MIN_KERNEL_RUN_S = 5

ERROR_LINE = re.compile(r"^[\w.]*(Error|Exception|Interrupt)\b.*")


def short_reason(error_text):
    """The most telling line of nbgrader's error text (e.g. "DeadKernelError: Kernel died")."""
    lines = [line.strip() for line in str(error_text).splitlines() if line.strip()]
    errors = [line for line in lines if ERROR_LINE.match(line) and "NbGraderException" not in line]
    return ((errors or lines or ["unknown error"])[-1])[:300]


def stopped_note(why):
    """What the records say where the run for the notebook's outputs stopped (after every verdict was in)."""
    return tr("The run of this notebook for its outputs stopped ({why}): the cells after that point show no output; "
              "no points depend on them.", why=why)


def outputs_with_stop_note(run):
    """{index as submitted: outputs} of a NotebookRun (verify.py), with a note in the cell where it stopped."""
    outputs = dict(run.outputs) if run is not None else {}
    if run is not None and run.stopped:
        key, why = run.stopped
        note = stopped_note(why)
        outputs[key] = [*outputs.get(key, []),
                        nbformat.v4.new_output("error", ename="NotebookStopped", evalue=note, traceback=[note])]
    return outputs


class GradingWorker:
    """One worker's scratch course and unit server (and kernel server); ``grade`` grades one packed submission.

    ``sources``: {assignment: {notebook name: source notebook text}} and ``template``: the bytes of the
    gradebook template (gradebook.build_template), both as the client has them, written into ``scratch``
    so that a worker on another machine grades against exactly what the client would.
    """

    def __init__(self, settings: Settings, sources: dict, template: bytes, scratch: Path, editions=None):
        warnings.filterwarnings("ignore", message=".*not in session.*")  # SQLAlchemy noise from nbgrader's autograde
        with recording() as record:  # the set-up's own stages (stages.py), sent with this worker's first result
            self.scratch = Path(scratch)
            with stage("scratch course"):
                self.settings = self._scratch_settings(settings, sources, template, "")
            if self.settings.kernel_run:
                with stage("kernel server spawn"):
                    KERNELS.configure(self.settings.sandbox, self.scratch / "ipc", budget_s=self.settings.notebook_budget_s,
                                      memory_mb=self.settings.kernel_memory_mb)
                    KERNELS.start()  # preloads while the rest starts up
            with stage("scratch course"):
                self.course = ScratchCourse(self.settings, self.scratch / "course", self.scratch / "template.db")
                # The other editions' nbgrader courses ({language: (notebook texts, template)}, runner.edition_payloads):
                # a submission in one of their languages is autograded there, so its test cells and feedback stay in it.
                self.edition_courses, self.edition_assignments = {}, {}
                for lang, (notebooks, edition_template) in (editions or {}).items():
                    edition_settings = self._scratch_settings(settings, notebooks, edition_template, f"-{lang}")
                    self.edition_courses[lang] = ScratchCourse(edition_settings, self.scratch / f"course-{lang}", self.scratch / f"template-{lang}.db")
                    self.edition_assignments[lang] = set(notebooks)
            with stage("unit server spawn"):
                self.verifier = Verifier(self.settings, cell_timeout(self.settings))
                self.verifier.start()
            self.verifier.wait_ready()  # its stage is the unit server's start (stages.UNIT_SERVER)
            if not self.settings.sandbox:  # learners' code runs here: their first meta-device run would import it
                with stage("torch._dynamo (checks' warm-up)"):
                    checks_core.warm_up()  # loaded before any learner's budget runs
            # In the sandbox (its unit server imports it for the children it forks), the checks here run nothing on
            # meta (isolation.replays records on the CPU); a rare diagnosis on meta imports it in the grader's turn,
            # which no learner's clock counts (judge.Session.resume_clock).
            self.setup = record.finish(0)
        self.setup["wall"]["imports (worker.py)"] = round(IMPORT_S, 4)

    def _scratch_settings(self, settings, sources, template, suffix):
        """Write ``sources`` ({assignment: {name: text}}) and the gradebook template into the scratch folder."""
        source_dir = self.scratch / f"source{suffix}"
        for assignment, notebooks in sources.items():
            (source_dir / assignment).mkdir(parents=True, exist_ok=True)
            for name, text in notebooks.items():
                (source_dir / assignment / f"{name}.ipynb").write_text(text, encoding="utf-8")
        (self.scratch / f"template{suffix}.db").write_bytes(template)
        return Settings(**{**settings.to_json(), "source_dir": str(source_dir)})

    def course_for(self, packed, notebooks):
        """(The nbgrader course of the submission's edition, its language): the language its notebooks are in."""
        languages = {notebook_language(nb) for nb in notebooks.values()}
        lang = languages.pop() if len(languages) == 1 else "en"
        if packed.assignment in self.edition_assignments.get(lang, ()):
            return self.edition_courses[lang], lang
        return self.course, lang

    def grade(self, packed):
        """{"records", "feedback": {notebook: HTML bytes}, "autograded": {notebook: nbformat JSON}, "comments":
        {notebook: {grade_id: comment}}, "language", "log"} for one layout.Packed submission; "autograded" holds the notebooks
        formgrader shows the instructor, "comments" nbgrader's automatic comments on their answer cells."""
        log = io.StringIO()
        shown, comments = {}, {}
        with contextlib.redirect_stdout(log), recording() as record:  # stages.py: where the task's time goes
            print(f"grading {packed.key}", flush=True)
            with stage(READ):
                sources = load_assignment(Path(self.settings.source_dir), packed.assignment)
            course, language = self.course, "en"  # until the submission's edition is known
            try:
                with stage(READ):
                    notebooks = {name: nbformat.reads(text, as_version=4) for name, text in packed.notebooks.items()}
                    course, language = self.course_for(packed, notebooks)
                with speaking(language):  # the grader's own sentences in the submission's language
                    records = self.grade_notebooks(packed, sources, notebooks, course, shown, comments)
            except Exception:  # a grader bug must not take the other submissions down
                shown.clear()  # its notebooks would not match its zero records
                comments.clear()
                records = zero_submission(packed, sources, f"Not graded: internal grading error ({short_reason(traceback.format_exc())}).")
                for record in records:
                    record["grader_error"] = True  # the grader's failure, by this field (failures.record_failure)
                traceback.print_exc(file=log)
            pages = {}
            try:
                with timed("nbgrader generate_feedback"), stage(FEEDBACK):
                    pages = {name: path.read_bytes() for name, path in course.feedback(packed).items()}
            except Exception:
                traceback.print_exc(file=log)
            stages = record.finish(len(sources))
            if self.setup is not None:  # once per worker: with its first result
                stages["setup"], self.setup = self.setup, None
        return {"records": public(records), "feedback": pages, "autograded": shown, "comments": comments,
                "language": language, "log": log.getvalue(), "stages": stages, RECORDS_SAY_FAILURES: True}

    def grade_notebooks(self, packed, sources, notebooks, course, shown, comments):
        """The records of every source notebook of the submission's assignment, autograded in ``course``;
        ``shown`` gets {notebook: the autograded notebook's JSON} (scratch.record_final), ``comments``
        {notebook: nbgrader's comments on its answer cells}."""
        # The learner's code runs once, in the unit server's child: that run gives the verdicts and what each
        # cell printed, and nbgrader's autograde then does its bookkeeping with those outputs, without a kernel
        # (recorded_run.py). With --kernel-run, nbgrader's kernel also runs the notebook, within what is left
        # of the notebook's one budget, and may only lower a score.
        verdicts, runs, spent, out_of_time = {}, {}, 0.0, False
        for source in sources:
            if source.name in notebooks:
                started = time.monotonic()
                with timed(f"notebook run and verdicts of {source.name}"):
                    verdicts[source.name] = self.verifier.verify(source, notebooks[source.name])
                runs[source.name] = self.verifier.run
                spent = max(spent, time.monotonic() - started)
                out_of_time = out_of_time or self.verifier.out_of_time
        if self.settings.kernel_run:
            left_s = NotebookBudget.of(self.settings).left_s(spent)
            failure = self._kernel_run(packed, notebooks, course, left_s, out_of_time)
        else:
            failure = self._recorded_run(packed, notebooks, course, {
                name: (outputs_with_stop_note(run), verdicts[name]) for name, run in runs.items()})
        records = []
        for source in sources:
            if source.name not in notebooks:
                why = packed.unreadable.get(source.name, f"no notebook named {source.name}.ipynb was submitted")
                records += zero_records(packed, source, f"Not graded: {why}.")  # no "failure": see failures.record_failure
                continue
            with stage(GRADEBOOK), course.gradebook() as gradebook:
                verdicts_here = verdicts[source.name]
                autograded = course.autograded(packed, source.name)  # read once: for the results, then the final
                nbgrader = course.results(packed, source, autograded, gradebook)
                reason = short_reason(failure) if failure else "no autograded notebook"
                notebook_records = combined_records(packed, source, nbgrader, verdicts_here, reason)
                for entry in notebook_records:  # a verdict the grader's own failure made says so by a field, not in words
                    if getattr(verdicts_here.get(entry["grade_id"]), "grader_error", False) is True:
                        entry["grader_error"] = True
                nbgrader_stopped = (self.kernel_stop if self.settings.kernel_run else KERNEL_STOPPED) if nbgrader is None else None
                mark_failures(notebook_records, verdicts_here, nbgrader_stopped)
                stopped = getattr(runs.get(source.name), "stopped", None)
                if stopped and notebook_records and not self.settings.kernel_run:  # said once, for the instructor
                    notebook_records[0]["feedback"].append(stopped_note(stopped[1]))
                    mark(notebook_records[0], runs[source.name].stopped_by, len(notebook_records[0]["feedback"]) - 1)
                final = course.record_final(packed, source.name, notebook_records, notebooks[source.name], autograded,
                                            gradebook)
                if final is not None:
                    shown[source.name] = final
                    comments[source.name] = course.comments(packed, source.name, gradebook)
            records += notebook_records
        return records

    @staticmethod
    def _recorded_run(packed, notebooks, course, runs):
        """nbgrader's autograde of ``notebooks`` with the outputs and verdicts of their one run; its error text or None."""
        if not notebooks:
            return None
        with timed("nbgrader autograde (no kernel)"), stage(AUTOGRADE), recorded(runs):
            return course.autograde(packed, {name: tag_cells(copy.deepcopy(nb)) for name, nb in notebooks.items()},
                                    packed.timestamp)

    def _kernel_run(self, packed, notebooks, course, left_s, out_of_time):
        """nbgrader's autograde of ``notebooks`` in its kernel (--kernel-run), with ``left_s`` seconds of the notebook's
        budget; its error text or None.
        Not run where the judge's run used the whole budget: the same code would only spend it again."""
        self.kernel_stop = KERNEL_STOPPED  # what stopped nbgrader's run, where it did not finish (a record's failure)
        if not notebooks:
            return None
        if out_of_time or left_s < MIN_KERNEL_RUN_S:
            self.kernel_stop = TIME_BUDGET
            course.forget(packed)
            print(f"  nbgrader autograde: not run ({max(left_s, 0):.0f} s of the budget left)", flush=True)
            return NotebookBudget.of(self.settings).out_of_time()  # where it was judged: not run again
        KERNELS.stopped, KERNELS.time_left_s = None, left_s
        try:
            with timed("nbgrader autograde"), stage(AUTOGRADE):
                failure = course.autograde(packed, notebooks, packed.timestamp)
        finally:
            KERNELS.time_left_s = None
        if failure and KERNELS.stopped:
            failure = KERNELS.stopped  # the watchdog's reason, not the dead kernel's error it caused
            self.kernel_stop = kernel_stop(failure)
        return failure

    def close(self):
        self.verifier.close()
        if self.settings.kernel_run:
            KERNELS.shut_down()
        shutil.rmtree(self.scratch, ignore_errors=True)
