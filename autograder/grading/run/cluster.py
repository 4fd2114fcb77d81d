"""Dask as the scheduler of `autograder grade`: one task per submission, on a laptop or a cluster.

    --jobs N               a local cluster of N single-threaded worker processes, torn down after
    --scheduler ADDRESS    an existing Dask cluster (tcp://host:8786): its workers need this course
                           installed (same checkout and environment; see autograder/grading/README.md)

Every worker gets a GradingWorker (worker.py) when it starts, through a worker plugin that
carries the settings, the source notebooks and the gradebook template: the scratch course,
the kernel server and the unit server are set up once per worker, not per task. Tasks are
packed submissions (layout.Packed: plain data, read by the client, which alone sees
SUBMITTED); results come back to the client, which alone writes OUT. Dask hands each task to
whichever worker is free, so a slow notebook delays only itself. A worker that dies while
grading costs that submission one retry (ALLOWED_FAILURES), then the task fails and the
client gives it 0 with a message.

Ctrl-C: the terminal sends it to the client and to a local cluster's workers. The workers ignore it
(their tracebacks would flood the terminal); the client notes it and stops between two results
(``finished``), then shuts Dask down, and the command says how far it got (cli.py).
"""
import contextlib
import logging
import os
import signal
import tempfile
import threading
import time

import dask
from distributed import Client, LocalCluster, WorkerPlugin, get_worker

ALLOWED_FAILURES = 1  # a submission whose worker dies is retried once on another, then given 0
# The scheduler's settings (set here for a local cluster; an external scheduler is started with the
# same, as DASK_DISTRIBUTED__SCHEDULER__... variables: README): one task at a time per worker thread,
# the rest held by the scheduler, so that a free worker always gets the next submission.
WORKER_MEMORY_CONFIG = {"distributed.worker.memory.target": False, "distributed.worker.memory.spill": False,
                        "distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": 0.95}
SCHEDULER_CONFIG = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                    "distributed.scheduler.worker-saturation": 1.0}
PLUGIN_NAME = "autograder-grading"


class GradingPlugin(WorkerPlugin):
    """Sets up a worker.GradingWorker in every worker process (started now or later), and closes it."""

    def __init__(self, settings, sources, template, editions=None):
        self.settings, self.sources, self.template, self.editions = settings, sources, template, editions or {}

    def setup(self, worker):
        from autograder.grading.run.worker import GradingWorker

        scratch = tempfile.mkdtemp(prefix="autograder-worker-", dir=worker.local_directory)
        worker.autograder = GradingWorker(self.settings, self.sources, self.template, scratch, self.editions)

    def teardown(self, worker):
        grading = getattr(worker, "autograder", None)
        if grading is None:
            return
        if LOCAL_WORKER and GRADING.is_set():
            # Closed with a submission half-graded: the client was stopped (Ctrl-C). Dask cannot stop the task's
            # thread, which goes on until it fails; what it prints meanwhile is nobody's business.
            drop_output()
        grading.close()


LOCAL_WORKER = False  # this process is a worker of a local cluster (dask_setup)
GRADING = threading.Event()  # a grade_task runs in this process


def grade_task(packed):
    """The task: grade one packed submission on this worker (see worker.GradingWorker.grade)."""
    worker = get_worker()
    grading = getattr(worker, "autograder", None)
    if grading is None:
        raise RuntimeError("this Dask worker has no grading set-up: was the autograder plugin registered?")
    started = time.time()
    GRADING.set()
    try:
        result = grading.grade(packed)
    finally:
        GRADING.clear()
    return {**result, "timing": {"worker": worker.address, "started": started, "ended": time.time()}}


def drop_output():
    """This process's standard output and error go to /dev/null from now on."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


@contextlib.contextmanager
def grading_client(jobs=1, scheduler=None, log=print):
    """(A Dask client, an Event set by Ctrl-C), on an existing cluster at ``scheduler`` or a local one of ``jobs``.

    In the block, and while the client and the cluster shut down after it (a second Ctrl-C cannot break that),
    Ctrl-C only sets the Event; ``finished`` raises KeyboardInterrupt between two results. Python's own
    handler raises it wherever the main thread is, and Dask's scheduler runs a garbage-collector callback
    there, which swallows it with a traceback. Then the handler of before is back. While a local cluster's
    workers start (a few seconds), Ctrl-C is ignored, so that they start ignoring it (see dask_setup).
    """
    ctrl_c = threading.Event()

    def note(signum, frame):
        ctrl_c.set()

    with dask.config.set({**SCHEDULER_CONFIG,
                          "distributed.worker.daemon": False,  # our workers start servers of their own
                          "distributed.admin.system-monitor.gil.enabled": False, **WORKER_MEMORY_CONFIG}), \
            sigint_restored(), contextlib.ExitStack() as stack:
        if scheduler:
            set_sigint(note)
            client = stack.enter_context(Client(scheduler, timeout="60s"))
            dashboard = client.dashboard_link if client.scheduler_info().get("services", {}).get("dashboard") else None
            workers = len(client.scheduler_info().get("workers", {}))
            log(f"Dask cluster at {scheduler}: {workers} worker(s)" + (f"; dashboard {dashboard}" if dashboard else ""))
        else:
            set_sigint(signal.SIG_IGN)  # inherited by the worker processes as they start
            client = stack.enter_context(Client(stack.enter_context(local_cluster(jobs))))
            set_sigint(note)
        yield client, ctrl_c


def finished(running, ctrl_c, poll_s=0.2):
    """The futures of ``running`` (a distributed.as_completed, which may grow meanwhile) as they finish;
    KeyboardInterrupt, between two of them, once ``ctrl_c`` is set (grading_client)."""
    while not running.is_empty():
        if ctrl_c.is_set():
            raise KeyboardInterrupt
        batch = running.next_batch(block=False)
        if not batch:
            ctrl_c.wait(poll_s)
        yield from batch


JUDGE_MEMORY_BYTES = 8 * 2**30  # what one worker (the judge, the checks, nbgrader) may hold: 1-2 GiB honestly


def judge_memory_limit():
    """A backstop on each local worker's own memory (the learner's code runs in its sandboxes, limited there):
    Dask's nanny ends a worker past 95 % of it, and its submission is retried once, then given 0 with a
    message. Replies are bounded before the judge reads them (sandbox_servers.wire), so only a grader bug gets
    here. Dask's spilling and pausing are off (WORKER_MEMORY_CONFIG): grading keeps no data to spill."""
    import psutil

    return min(JUDGE_MEMORY_BYTES, psutil.virtual_memory().total)


def local_cluster(jobs):
    """A LocalCluster of ``jobs`` single-threaded worker processes, quiet on a shared machine.

    No dashboard; its scheduler's HTTP server (health and metrics routes, which Dask always starts) on a
    free port of 127.0.0.1: the default, 8787, is often taken on a shared machine, and Dask then warns.
    """
    return LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, memory_limit=judge_memory_limit(),
                        dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                        worker_dashboard_address=None, preload=[__name__], silence_logs=logging.ERROR)


def dask_setup(worker):
    """Run in every local worker process as it starts (a Dask preload): Ctrl-C is the client's to handle.

    The process started with Ctrl-C ignored (SIG_IGN, from the client); a handler that does nothing
    takes over, because SIG_IGN would be inherited by the sandboxes' servers, and their kernels.
    """
    global LOCAL_WORKER
    LOCAL_WORKER = True
    set_sigint(_ignore)


def _ignore(signum, frame):
    pass


def set_sigint(handler):
    """Ctrl-C's handler, where Python can set one (the main thread)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


@contextlib.contextmanager
def sigint_restored():
    """Ctrl-C's handler as it was before the block, after it."""
    previous = signal.getsignal(signal.SIGINT)  # None: not set from Python, then left as it is
    try:
        yield
    finally:
        if previous is not None:
            set_sigint(previous)


def register(client, settings, sources, template, editions=None):
    """Give every worker of ``client``'s cluster (present and future) its grading set-up."""
    client.register_plugin(GradingPlugin(settings, sources, template, editions), name=PLUGIN_NAME)
