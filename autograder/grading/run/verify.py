"""A submitted notebook's one run: the verdicts, decided outside the learner's process, and its outputs.

The learner's answer cells, with the source notebook's provided code and the definitions of
its ordinary cells, run in a unit server child (sandbox_servers/unit_server.py); the judge
(judge.py) decides each graded cell here, running the checks against that child. Then the
same child runs the learner's own cells; what every cell printed and showed goes into
nbgrader's graded notebook (recorded_run.py). With --kernel-run, nbgrader's own run in a
kernel can only lower a score (combine.py), except a composite's visible cell that the judge
passed with right parts while the learner's own part is wrong (judge.Verdict.decisive).
"""
import ast
import os
import tempfile
import time
import traceback

from autograder.grading.run import sandbox
from autograder.grading.run.judge import (
    SessionFailure,
    UnitServer,
    Verdict,
    graded_call,
    judge_cell,
)
from autograder.grading.run.stages import RUN, SANDBOX, UNIT_SERVER, VERDICTS, stage
from autograder.grading.bookkeeping.recorded_run import shown_outputs
from autograder.grading.outputs.failures import NOT_GRADED_WHAT, OUTPUTS_RUN_STOPPED, RUN_STOPPED, TIME_BUDGET, answer_cell
from autograder.grading.bookkeeping.source import ANSWER, CODE, PROVIDED, TEST, as_cell
from learner_kit.i18n import notebook_language, speaking, tr
from sandbox_servers.budget import NotebookBudget

DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
MAX_MESSAGE = 2000


def submitted_answers(notebook):
    """{grade_id: source} of the submitted answer cells; the last of duplicates wins, as in nbgrader."""
    answers = {}
    for cell in notebook.cells:
        classified = as_cell(cell)
        if classified is not None and classified.kind == ANSWER:
            answers[classified.grade_id] = classified.source
    return answers


def definitions_only(source):
    """The top-level imports, functions and classes of an ordinary cell (its experiments, prints and
    figures dropped): test cells may use those names, and they cost nothing to run."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    kept = [node for node in tree.body if isinstance(node, DEFINITIONS)]
    return ast.unparse(ast.Module(body=kept, type_ignores=[]))


def payload_segments(source_notebook, submitted_notebook, keys=None):
    """[(cells the child runs, the graded cells judged after them)], in the source's order.

    The child runs the source's provided code and the definitions of its ordinary cells, with
    the learner's answer cells in place of its own; no test cell runs there (the judge decides
    them). Judging each graded cell right after the cells before it, as the notebook does,
    means that an answer cell that ends its process costs only the cells after it. ``keys``
    ({grade_id: index as submitted}, learner_layout) marks the cells whose outputs are kept
    for the graded notebook; the learner's own cells run after every verdict (NotebookRun.show).
    """
    answers, keys = submitted_answers(submitted_notebook), keys or {}
    segments, cells = [], []
    for cell in source_notebook.cells:
        if cell.kind == TEST:
            if cells or not segments:
                segments.append((cells, []))
                cells = []
            segments[-1][1].append(cell)
        elif cell.kind == ANSWER and cell.grade_id in answers:
            cells.append({"kind": "answer", "grade_id": cell.grade_id, "source": answers[cell.grade_id]})
        elif cell.kind == PROVIDED:
            cells.append({"kind": cell.kind, "grade_id": cell.grade_id, "source": cell.source})
        elif cell.kind == CODE:
            cells.append({"kind": cell.kind, "grade_id": None, "source": definitions_only(cell.source)})
        else:
            continue
        if cell.grade_id in keys:  # only answer and provided cells have one
            cells[-1]["key"] = keys[cell.grade_id]
    return segments


def learner_layout(source_notebook, submitted_notebook):
    """({grade_id: index as submitted} of the answer and provided cells, [the learner's own code cells, each with
    "key": its index]) where the submission keeps the source's graded, answer and provided cells in order, as
    nbgrader would run it (its own cells are the ones the source does not grade, run as submitted); ({}, [])
    where cells are missing or out of order: nbgrader lays it out again, and no output could go in its place."""
    skeleton = {cell.grade_id: cell for cell in source_notebook.cells if cell.kind in (TEST, ANSWER, PROVIDED)}
    kept = {}  # grade_id -> the index of its last cell (nbgrader keeps the last of duplicates)
    for index, cell in enumerate(submitted_notebook.cells):
        classified = as_cell(cell)
        if classified is not None and classified.grade_id in skeleton:
            kept[classified.grade_id] = index
    required = [grade_id for grade_id, cell in skeleton.items() if cell.kind in (TEST, PROVIDED)]
    if sorted(kept, key=kept.get) != [g for g in skeleton if g in kept] or any(g not in kept for g in required):
        return {}, []
    own, graded_places = [], set(kept.values())
    for index, cell in enumerate(submitted_notebook.cells):
        if cell.get("cell_type") == "code" and index not in graded_places:
            text = cell.get("source", "")
            own.append({"kind": CODE, "grade_id": None, "source": "".join(text) if isinstance(text, list) else str(text),
                        "key": index})
    return {g: i for g, i in kept.items() if skeleton[g].kind != TEST}, own


def child_env():
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "NBGRADER_EXECUTION": "autograde",  # the notebooks skip their figures
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        **sandbox.gpu_env(),
    }


class Verifier:
    """A unit server (torch imported once) and the judge's verdicts on one notebook after another."""

    def __init__(self, settings, cell_timeout):
        self.out_of_time = False  # set by each verify(): whether that notebook's run used its whole budget
        self.run = None  # ... and that notebook's NotebookRun: its outputs and where showing them stopped
        self.settings, self.cell_timeout = settings, cell_timeout
        env = child_env()
        # In the sandbox /tmp is the server's own; without it, each job's server needs a folder of its own.
        workdir = "/tmp/notebook" if settings.sandbox else tempfile.mkdtemp(prefix="autograder-unit-")
        cap = sandbox.ProcessCap() if settings.sandbox else None
        command = sandbox.unit_server_command(env, sandboxed=settings.sandbox, gpu=bool(sandbox.gpu_nodes()))
        self.server = UnitServer(command, env=env, workdir=workdir, cap=cap)

    def start(self):
        """Start the server now (call it early: it imports torch meanwhile)."""
        self.server.start()

    def wait_ready(self):
        """Wait until the server serves (its imports done: seconds), by starting one empty notebook's child and
        ending it. A grading worker calls this in its set-up, so that its first learner's notebook does not wait
        for the server. A server that fails here is started again by the first notebook, as any dead one is."""
        budget = NotebookBudget.of(self.settings)
        try:
            with stage(UNIT_SERVER):
                session, _ = self.server.notebook([], self.cell_timeout, budget.limits(
                    memory_mb=self.settings.verifier_memory_mb, file_mb=64), budget.seconds)
                session.end()
        except SessionFailure:
            self.server.close()

    def close(self):
        self.server.shut_down()

    def verify(self, source_notebook, submitted_notebook):
        """{grade_id: (passed, message)} for every graded cell of ``source_notebook``, in the submission's language."""
        language = notebook_language(submitted_notebook)
        with speaking(language):
            return self._verify(source_notebook, submitted_notebook, language)

    def _verify(self, source_notebook, submitted_notebook, language):
        budget = NotebookBudget.of(self.settings)
        limits = budget.limits(memory_mb=self.settings.verifier_memory_mb, file_mb=64)
        graded = source_notebook.graded
        run = NotebookRun(self.server, self.cell_timeout, limits, budget.seconds, language)
        self.out_of_time = False  # whether this notebook's run used its whole budget (worker.py then skips the kernel)
        self.run = run
        try:
            run.start()
        except SessionFailure as failure:
            self.out_of_time = run.out_of_time()
            why = tr("Not graded: the notebook's code could not be run ({failure}).", failure=failure)
            stopped_by = TIME_BUDGET if self.out_of_time else NOT_GRADED_WHAT
            return {cell.grade_id: Verdict(False, why, failure=stopped_by) for cell in graded}
        verdicts, broken = {}, {}
        keys, own_cells = learner_layout(source_notebook, submitted_notebook)
        try:
            for cells, tests in payload_segments(source_notebook, submitted_notebook, keys):
                with stage(RUN):
                    run.run_cells(cells, broken)
                with stage(VERDICTS):
                    verdicts.update(self._judge_cells(run, tests, broken))
            if not self.settings.kernel_run:  # (with --kernel-run, nbgrader's kernel shows what they print)
                with stage(RUN):
                    run.show(own_cells)
        finally:
            with stage(SANDBOX):
                run.end()
            self.out_of_time = run.out_of_time()
        return verdicts

    def _judge_cells(self, run, graded, broken):
        verdicts = {}
        for cell in graded:
            call, stopped, verdict, failed_here = graded_call(cell), False, None, False
            stopped_by = None  # what stopped the notebook's run at this cell (a record's failure)
            session = run.session_for_next_cell()
            try:
                if session.dead:
                    raise SessionFailure(session.dead)
                if call is None:
                    reply = session.ask({"op": "test_cell", "source": cell.source})
                    passed, message = reply.get("passed") is True, str(reply.get("message") or "")
                else:
                    verdict = judge_cell(session, call, run.units)
                    passed, message = verdict
            except SessionFailure as failure:
                stopped = True
                stopped_by = TIME_BUDGET if run.out_of_time() else RUN_STOPPED
                passed, message = False, tr("Not graded: the run of this notebook stopped before this cell ({failure}).",
                                            failure=failure)
            except Exception:  # a grader bug costs this cell, with a message, not the notebook
                traceback.print_exc()
                passed, message = False, tr("Not graded: internal grading error ({error}).",
                                            error=traceback.format_exc().splitlines()[-1])
                failed_here = True
            unit = cell.grade_id.split("-")[0]
            if not passed and unit in broken and not stopped:
                message += tr(" (the answer cell of {unit} stopped with {error})", unit=unit, error=broken[unit])
                stopped_by = answer_cell(broken[unit])
            if session.dead and not stopped and run.can_restart():
                message += tr(" The grader started the notebook's code again for the cells after this one.")
            verdicts[cell.grade_id] = Verdict(passed, message[:MAX_MESSAGE], getattr(verdict, "decisive", False),
                                              grader_error=failed_here, failure=stopped_by)
        return verdicts


class NotebookRun:
    """One notebook's child in the unit server, and a fresh one in its place when judging a cell ends it.

    A learner's exception inside the child costs only the request that raised it (the child
    answers with the error). A child that ends while a graded cell is judged (os._exit, a crash,
    the memory limit) costs that cell: the next cell gets a fresh child that has run the same
    cells again, within the notebook's one time budget. A child that ends while running the
    notebook's cells would end again the same way: the cells after it are lost, as before.
    """

    MAX_RESTARTS = 3

    def __init__(self, server, cell_timeout, limits, budget_s, language):
        self.server, self.cell_timeout, self.limits, self.language = server, cell_timeout, limits, language
        self.budget = NotebookBudget(budget_s)  # one budget for the notebook, restarts included
        self.begun = time.monotonic()
        self.deadline = self.budget.deadline(self.begun)
        self.backstop = False  # whether the deadline became the wall clock's backstop (start())
        self.cells = []  # every cell the child has run, in order
        self.outputs = {}  # {key: [nbformat outputs]} of the cells sent with a "key" (keep_outputs)
        self.stopped = None  # (key, why) where show() stopped
        self.stopped_by = None  # ... and what stopped it: a record's failure (outputs/failures.py)
        self.session, self.units, self.restarts, self.loading_failed = None, {}, 0, False

    def start(self):
        import torch

        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise SessionFailure(self.budget.out_of_time())
        gpu = torch.cuda.is_available()
        # stages.py: the first notebook of a server waits for it to start (torch imported): once per worker
        with stage(SANDBOX if self.server.started else UNIT_SERVER):
            self.session, _ = self.server.notebook(list(self.cells), self.cell_timeout, self.limits, remaining,
                                                   self.language, cuda=gpu)
        self.session.on_pause = self.paused
        if self.session.cpu_counted and not self.backstop:  # the CPU-time budget rules; the clock is a backstop
            self.backstop = True
            self.deadline = self.budget.deadline(self.begun, cpu_counted=True)
        self.units = {}  # RemoteUnits of the previous child are gone with it
        if gpu and not self.session.cuda and not self.restarts:
            print("  the grader has a GPU, but the notebook's process cannot use it (sandbox, driver): "
                  "the device aspect runs on the CPU and the meta device only", flush=True)

    def paused(self, seconds):
        """The grader worked ``seconds`` between a reply of the child and its next request: not the notebook's time."""
        self.deadline += seconds

    def out_of_time(self):
        """Whether this notebook's run used its whole budget: the wall clock's deadline passed, or its CPU time."""
        return time.monotonic() >= self.deadline or self.out_of_cpu

    @property
    def out_of_cpu(self):
        """Whether the server stopped this notebook's child at its CPU-time budget."""
        return self.session is not None and self.session.out_of_cpu

    def run_cells(self, cells, broken):
        """Run ``cells`` in the child; note in ``broken`` the units whose answer cell failed."""
        session = self.session_for_next_cell()
        self.cells += cells
        if session.dead or not cells:
            return
        try:
            reply = session.ask({"op": "run_cells", "cells": cells})
        except SessionFailure:
            self.loading_failed = True  # the cells after say why
            return
        failures = reply.get("answer_failures") if isinstance(reply.get("answer_failures"), dict) else {}
        broken.update({str(k).split("-")[0]: str(v) for k, v in failures.items()})
        self.keep_outputs(cells, reply)

    def keep_outputs(self, cells, reply):
        """What the cells sent with a "key" printed and showed, from the child's reply (checked: the learner's
        process made it), the first time each ran (a restarted child runs them again)."""
        keys = {cell["key"] for cell in cells if "key" in cell}
        for item in reply.get("outputs") if isinstance(reply.get("outputs"), list) else []:
            if (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and item[0] in keys
                    and item[0] not in self.outputs):
                self.outputs[item[0]] = shown_outputs(item[1])

    def show(self, cells):
        """Run the learner's own cells (learner_layout), one by one once every verdict is in, keeping what each
        printed and showed; nothing here can change a verdict. Where the run stops (the budget, a limit, a
        crash), ``stopped`` = (the key of the cell it stopped in, why), and the cells after it show nothing."""
        if cells:
            self.session_for_next_cell()  # a fresh child where judging the last cell ended this one
        for cell in cells:
            session = self.session
            try:
                if session.dead:
                    raise SessionFailure(session.dead)
                reply = session.ask({"op": "run_cells", "cells": [cell]})
            except SessionFailure as failure:
                self.stopped = (cell["key"], str(failure))
                self.stopped_by = TIME_BUDGET if self.out_of_time() else OUTPUTS_RUN_STOPPED
                return
            self.keep_outputs([cell], reply)

    def can_restart(self):
        return (not self.loading_failed and self.restarts < self.MAX_RESTARTS
                and time.monotonic() < self.deadline)

    def session_for_next_cell(self):
        """The session to use now: a fresh child's where the last one ended while judging a cell."""
        if self.session.dead and not self.session.given_up and self.can_restart():
            self.restarts += 1
            print(f"  the notebook's process ended ({self.session.dead}): started again for the next cell", flush=True)
            try:
                self.start()
            except SessionFailure as failure:
                self.loading_failed = True
                self.session.dead = self.session.dead or str(failure)
        return self.session

    def end(self):
        self.session.end()
