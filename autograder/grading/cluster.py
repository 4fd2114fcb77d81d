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
"""
import contextlib
import logging
import tempfile
import time

import dask
from distributed import Client, LocalCluster, WorkerPlugin, get_worker

ALLOWED_FAILURES = 1  # a submission whose worker dies is retried once on another, then given 0
# The scheduler's settings (set here for a local cluster; an external scheduler is started with the
# same, as DASK_DISTRIBUTED__SCHEDULER__... variables: README): one task at a time per worker thread,
# the rest held by the scheduler, so that a free worker always gets the next submission.
SCHEDULER_CONFIG = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                    "distributed.scheduler.worker-saturation": 1.0}
PLUGIN_NAME = "autograder-grading"


class GradingPlugin(WorkerPlugin):
    """Sets up a worker.GradingWorker in every worker process (started now or later), and closes it."""

    def __init__(self, settings, sources, template, editions=None):
        self.settings, self.sources, self.template, self.editions = settings, sources, template, editions or {}

    def setup(self, worker):
        from autograder.grading.worker import GradingWorker

        scratch = tempfile.mkdtemp(prefix="autograder-worker-", dir=worker.local_directory)
        worker.autograder = GradingWorker(self.settings, self.sources, self.template, scratch, self.editions)

    def teardown(self, worker):
        grading = getattr(worker, "autograder", None)
        if grading is not None:
            grading.close()


def grade_task(packed):
    """The task: grade one packed submission on this worker (see worker.GradingWorker.grade)."""
    worker = get_worker()
    grading = getattr(worker, "autograder", None)
    if grading is None:
        raise RuntimeError("this Dask worker has no grading set-up: was the autograder plugin registered?")
    started = time.time()
    result = grading.grade(packed)
    return {**result, "timing": {"worker": worker.address, "started": started, "ended": time.time()}}


@contextlib.contextmanager
def grading_client(jobs=1, scheduler=None, log=print):
    """A Dask client: on an existing cluster at ``scheduler``, or on a local one of ``jobs`` workers."""
    with dask.config.set({**SCHEDULER_CONFIG,
                          "distributed.worker.daemon": False,  # our workers start servers of their own
                          "distributed.admin.system-monitor.gil.enabled": False}):
        if scheduler:
            with Client(scheduler, timeout="60s") as client:
                dashboard = client.dashboard_link if client.scheduler_info().get("services", {}).get("dashboard") else None
                workers = len(client.scheduler_info().get("workers", {}))
                log(f"Dask cluster at {scheduler}: {workers} worker(s)" + (f"; dashboard {dashboard}" if dashboard else ""))
                yield client
            return
        quiet = {"silence_logs": logging.ERROR}
        with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=None,
                          worker_dashboard_address=None, **quiet) as local, Client(local) as client:
            yield client


def register(client, settings, sources, template, editions=None):
    """Give every worker of ``client``'s cluster (present and future) its grading set-up."""
    client.register_plugin(GradingPlugin(settings, sources, template, editions), name=PLUGIN_NAME)
