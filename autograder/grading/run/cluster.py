"""Dask as the scheduler of `autograder grade`: one task per submission, on a laptop or a cluster.

    --jobs N               a local cluster of N single-threaded worker processes, torn down after
    --scheduler ADDRESS    an existing Dask cluster (tcp://host:8786): its workers need this course
                           installed (same checkout and environment; see autograder/grading/README.md)
    --slurm                workers as Slurm jobs, the scheduler here (slurm.py)

With --scheduler and --slurm the scheduler's settings and each worker's memory settings are read as they
join and compared with the grader's (SCHEDULER_CONFIG, WORKER_MEMORY_CONFIG): each difference is a warning
that names the setting. While no worker has joined, the grader says so within seconds, and again every 30 s
(Watch; with --slurm, squeue's state and reason for each job).

Every worker gets a GradingWorker (worker.py) when it starts, through a worker plugin that
carries the settings, the source notebooks and the gradebook template: the scratch course,
the kernel server and the unit server are set up once per worker, not per task; on a cluster kept between runs
(--scheduler), once for as long as the course and the settings stay the same (register, set_up_already). Tasks are
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
import hashlib
import json
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
WORKER_CONFIG = {"distributed.worker.daemon": False,  # our workers start servers of their own
                 "distributed.admin.system-monitor.gil.enabled": False}
PLUGIN_NAME = "autograder-grading"


class GradingPlugin(WorkerPlugin):
    """Sets up a worker.GradingWorker in every worker process (started now or later), and closes it."""

    def __init__(self, settings, sources, template, editions=None):
        self.settings, self.sources, self.template, self.editions = settings, sources, template, editions or {}
        self.key = setup_key(settings, sources, template, self.editions)

    def setup(self, worker):
        from autograder.grading.run.worker import GradingWorker

        scratch = tempfile.mkdtemp(prefix="autograder-worker-", dir=worker.local_directory)
        worker.autograder = GradingWorker(self.settings, self.sources, self.template, scratch, self.editions)
        worker.autograder.key = self.key

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
def grading_client(jobs=1, scheduler=None, log=print, warn=None, closing=None):
    """(A Dask client, an Event set by Ctrl-C), on an existing cluster at ``scheduler`` (an address), on Slurm jobs
    (``scheduler`` a slurm.Plan: --slurm) or on a local cluster of ``jobs``. ``warn``: where a setting that differs
    from the grader's is said (scheduler_differences, worker_differences). ``closing``: a Closing that shuts the
    client and cluster down in its thread once the block ends normally (the client goes on with the class's
    outputs meanwhile, which need no worker); after an error or Ctrl-C they shut down here, before the block's end.

    In the block, and while the client and the cluster shut down after it here (a second Ctrl-C cannot break that),
    Ctrl-C only sets the Event; ``finished`` raises KeyboardInterrupt between two results. Python's own
    handler raises it wherever the main thread is, and Dask's scheduler runs a garbage-collector callback
    there, which swallows it with a traceback. Then the handler of before is back. While a local cluster's
    workers start (a few seconds), Ctrl-C is ignored, so that they start ignoring it (see dask_setup).
    """
    ctrl_c = threading.Event()

    def note(signum, frame):
        ctrl_c.set()

    with dask.config.set({**SCHEDULER_CONFIG, **WORKER_CONFIG, **WORKER_MEMORY_CONFIG}), \
            sigint_restored(), contextlib.ExitStack() as stack:
        warn = warn or (lambda line: log(f"warning: {line}"))
        slurm = None if scheduler is None or isinstance(scheduler, str) else scheduler
        if slurm is not None:
            scheduler = None
        if scheduler:
            set_sigint(note)
            client = closed_last(stack, Client(scheduler, timeout="60s", set_as_default=False))
            dashboard = client.dashboard_link if client.scheduler_info().get("services", {}).get("dashboard") else None
            workers = len(client.scheduler_info().get("workers", {}))
            log(f"Dask cluster at {scheduler}: {workers} worker(s)" + (f"; dashboard {dashboard}" if dashboard else ""))
            for line in scheduler_differences(client):
                warn(line)
            stack.enter_context(Watch(client, log, warn, where=f"the Dask cluster at {scheduler}"))
        elif slurm is not None:
            from autograder.grading.run import slurm as slurm_jobs

            jobs_cluster = stack.enter_context(slurm_jobs.cluster(slurm, {**WORKER_MEMORY_CONFIG, **WORKER_CONFIG}))
            set_sigint(note)  # after dask_jobqueue's import, which sets a handler of its own (sys.exit)
            client = closed_last(stack, Client(jobs_cluster, set_as_default=False))
            for line in [slurm.describe(), *slurm.notes]:
                log(line)
            for line in scheduler_differences(client):  # ours: in this process, made with SCHEDULER_CONFIG
                warn(line)
            jobs_cluster.adapt(minimum_jobs=slurm.jobs, maximum_jobs=slurm.jobs)  # a job that ends is replaced
            stack.enter_context(Watch(client, log, warn, where="from Slurm",
                                      describe=lambda: slurm_jobs.queue_report(slurm, jobs_cluster)))
        else:
            set_sigint(signal.SIG_IGN)  # inherited by the worker processes as they start
            client = closed_last(stack, Client(stack.enter_context(local_cluster(jobs)), set_as_default=False))
            set_sigint(note)
        yield client, ctrl_c
        if closing is not None:
            closing.start(stack.pop_all().close)


def closed_last(stack, client):
    """``client``, closed by ``stack`` (first, before the cluster it was made for). Not made Dask's default client
    (which ties it to this thread's context and config: it could not then be closed from Closing's thread); every
    call here names it."""
    stack.callback(client.close)
    return client


class Closing:
    """A cluster's shutdown (its workers' teardown, their processes' end: 2-4 s) in a thread of its own.

    Not a daemon: a command that ends before ``wait`` still lets the workers end (a local cluster's are not daemon
    processes, WORKER_CONFIG). Ctrl-C meanwhile reaches the main thread as before the cluster started."""

    def __init__(self):
        self.thread, self.error = None, None

    def start(self, close):
        def run():
            try:
                close()
            except BaseException as error:  # said by wait(), in the main thread
                self.error = error
        self.thread = threading.Thread(target=run, name="autograder cluster shutdown")
        self.thread.start()

    def wait(self):
        """Wait for the shutdown to end; what it raised, or None."""
        if self.thread is not None:
            self.thread.join()
        return self.error


WHY = {"distributed.scheduler.allowed-failures": "how often a submission whose worker dies is tried again",
       "distributed.scheduler.worker-saturation": "a worker takes one submission per thread, the rest wait at the "
                                                  "scheduler for whichever worker is free first",
       "distributed.worker.memory.target": "grading keeps no data to spill",
       "distributed.worker.memory.spill": "grading keeps no data to spill",
       "distributed.worker.memory.pause": "a paused worker takes no submission, and grading keeps no data that "
                                          "pausing would let it free",
       "distributed.worker.memory.terminate": "the backstop on a worker's own memory (its nanny ends it past that "
                                              "share of its memory limit)",
       "nthreads": "one submission at a time in a worker process: `dask worker --nthreads 1`"}


def variable(key):
    """The environment variable that sets Dask's setting ``key`` (DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES)."""
    return "DASK_" + "__".join(part.upper().replace("-", "_") for part in key.split("."))


def same(found, wanted):
    if isinstance(wanted, bool) or isinstance(found, bool) or found is None or wanted is None:
        return found is wanted or found == wanted and type(found) is type(wanted)
    try:
        return abs(float(found) - float(wanted)) < 1e-9
    except (TypeError, ValueError):
        return found == wanted


def scheduler_differences(client):
    """A line for each of the scheduler's settings that differs from SCHEDULER_CONFIG, read from the scheduler
    itself (an external one may have been started with Dask's defaults: 3 allowed failures, saturation 1.1)."""
    def read(dask_scheduler=None):  # nested: pickled by value, so a scheduler without this course can run it
        return {"distributed.scheduler.allowed-failures": dask_scheduler.allowed_failures,
                "distributed.scheduler.worker-saturation": dask_scheduler.WORKER_SATURATION}

    try:
        found = client.run_on_scheduler(read)
    except Exception as error:
        return [f"the Dask scheduler's settings could not be read ({type(error).__name__}: {str(error)[:200]}); "
                "it should run with " + ", ".join(f"{key} = {value}" for key, value in SCHEDULER_CONFIG.items())]
    lines = []
    for key, wanted in SCHEDULER_CONFIG.items():
        if not same(found.get(key), wanted):
            lines.append(f"the Dask scheduler has {key} = {found.get(key)}, not {wanted} as the grader sets it "
                         f"({WHY[key]}); start the scheduler with {variable(key)}={wanted} "
                         "(autograder/grading/README.md)")
    return lines


def worker_differences(client, workers, said=None):
    """A line for each memory setting (WORKER_MEMORY_CONFIG) or thread count of ``workers`` that differs from a local
    grading worker's, each (setting, value) said once per ``said`` (a set kept across calls). Read from each worker's
    nanny where it has one (the worker's own event loop is busy for a while as it joins: the grading plugin sets it
    up), which hands its settings to the worker it starts; else from the worker."""
    def read(dask_worker=None):  # nested: pickled by value. dask_worker: a Nanny, or a Worker without one
        import dask

        memory, config = dask_worker.memory_manager, getattr(dask_worker, "config", None)  # a Nanny's: its worker's

        def setting(name):
            return dask.config.get(f"distributed.worker.memory.{name}", **({"config": config} if isinstance(config, dict) else {}))

        found = {f"distributed.worker.memory.{name}": getattr(memory, f"memory_{name}_fraction", None) for name in
                 ("target", "spill", "pause", "terminate")}
        found = {key: setting(key.rsplit(".", 1)[1]) if value is None else value for key, value in found.items()}
        threads = dask_worker.state.nthreads if hasattr(dask_worker, "state") else dask_worker.nthreads  # Worker, Nanny
        return {**found, "nthreads": threads}

    said = set() if said is None else said
    info = client.scheduler_info(n_workers=-1).get("workers", {})
    nannies = [w for w in sorted(workers) if info.get(w, {}).get("nanny")]
    alone = [w for w in sorted(workers) if w not in nannies]
    found = {}
    if nannies:  # raises where one left meanwhile
        found.update(client.run(read, workers=nannies, nanny=True, on_error="return"))
    if alone:
        found.update(client.run(read, workers=alone, on_error="return"))
    wanted = {**WORKER_MEMORY_CONFIG, "nthreads": 1}
    differ = {}
    for worker, settings in sorted(found.items()):
        if not isinstance(settings, dict):
            continue  # it left meanwhile
        for key, value in wanted.items():
            if not same(settings.get(key), value) and (key, repr(settings.get(key))) not in said:
                differ.setdefault((key, repr(settings.get(key))), (settings.get(key), []))[1].append(worker)
    lines = []
    for (key, shown), (value, where) in differ.items():
        said.add((key, shown))
        how = ("start it with --nthreads 1" if key == "nthreads" else f"start it with {variable(key)}={wanted[key]}")
        lines.append(f"Dask worker(s) {', '.join(where[:3])}{' and others' if len(where) > 3 else ''} have {key} = "
                     f"{value}, not {wanted[key]} as a grading worker ({WHY[key]}); {how} (autograder/grading/README.md)")
    return lines


class Watch:
    """A thread that watches the workers of an external or Slurm cluster while grading: each worker's settings are
    checked as it joins (worker_differences, said through ``warn``), and while no worker is there the run says so,
    within FIRST_S and then every EVERY_S, with ``describe()``'s line (Slurm's jobs and reasons) where given."""

    FIRST_S, EVERY_S, POLL_S = 5, 30, 1

    def __init__(self, client, log, warn, where, describe=None):
        self.client, self.log, self.warn, self.where, self.describe = client, log, warn, where, describe
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="autograder-watch", daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=2)  # one blocked on a worker busy setting up: the client's close ends its call

    def run(self):
        seen, said, joined = set(), set(), False
        waiting_since, told_at = time.monotonic(), None
        while not self.stop.wait(self.POLL_S):
            try:
                workers = set(self.client.nthreads())
            except Exception:  # the client is closing, or the scheduler is not answering now: ask again
                continue
            if workers - seen:
                try:
                    lines = worker_differences(self.client, workers - seen, said)
                except Exception:  # one of them left (a worker that failed to start): the others are read next time
                    lines = None
                if lines is not None:
                    seen |= workers
                for line in lines or []:
                    self.warn(line)
            now = time.monotonic()
            joined = joined or bool(workers)
            if workers:
                if told_at is not None:
                    self.log(f"{len(workers)} worker(s) joined {self.where} after {now - waiting_since:.0f} s of waiting")
                waiting_since = told_at = None
                continue
            waiting_since = waiting_since or now
            if now - (told_at or waiting_since) >= (self.FIRST_S if told_at is None else self.EVERY_S):
                told_at = now
                try:
                    detail = self.describe() if self.describe else ""
                except Exception as error:
                    detail = f"({type(error).__name__}: {str(error)[:200]})"
                self.log(f"no Dask worker has joined {self.where} {'any more' if joined else 'yet'} (waited "
                         f"{now - waiting_since:.0f} s): the submissions wait for one" + (f"; {detail}" if detail else ""))


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
    """Run in every local worker process as it starts (a Dask preload): Ctrl-C is the client's to handle, and the
    worker has a session of its own.

    The process started with Ctrl-C ignored (SIG_IGN, from the client); a handler that does nothing
    takes over, because SIG_IGN would be inherited by the sandboxes' servers, and their kernels.
    Linux's autogroup scheduler shares a busy machine's CPU between sessions first: in the command's session, the
    workers would share one share with whatever else was started there, where Jupyter gives each kernel (stock
    nbgrader's too) a session, and so a share, of its own, as the sandboxes do their children (README: under load).
    A worker still ends with the client: Dask's worker process watches its parent, not its process group.
    """
    global LOCAL_WORKER
    LOCAL_WORKER = True
    set_sigint(_ignore)
    with contextlib.suppress(OSError):  # EPERM where it leads a process group already: it keeps the one it has
        os.setsid()


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


def setup_key(settings, sources, template, editions):
    """What a worker's grading set-up is made from, as one digest: two runs with the same may share a set-up."""
    digest = hashlib.sha256(json.dumps([settings.to_json(), sources], sort_keys=True).encode())
    digest.update(template)
    for lang in sorted(editions):
        notebooks, edition_template = editions[lang]
        digest.update(json.dumps([lang, notebooks], sort_keys=True).encode())
        digest.update(edition_template)
    return digest.hexdigest()


def register(client, settings, sources, template, editions=None):
    """Give every worker of ``client``'s cluster (present and future) its grading set-up; False where every worker
    already has this very set-up (a cluster kept between runs, --scheduler: nothing is set up again).

    A worker that dies while the scheduler hands the plugin round (a Slurm job cancelled, a worker that fails to
    start) breaks the hand-out, not the registration: the scheduler keeps the plugin for workers to come, and it is
    handed round again (a worker that had it is set up anew), up to three times."""
    plugin = GradingPlugin(settings, sources, template, editions)
    if set_up_already(client, plugin.key):
        return False
    for attempt in range(3):
        try:
            client.register_plugin(plugin, name=PLUGIN_NAME)
            return True
        except OSError:  # distributed's CommClosedError: the worker's connection closed under it
            if attempt == 2:
                raise
            time.sleep(1)


def set_up_already(client, key):
    """Whether every worker of ``client``'s cluster is set up from ``key`` (setup_key) and the scheduler keeps the
    plugin for workers to come (registering replaces it on every worker, so theirs is the one kept). The workers'
    unit servers, kept too, still fork a fresh process for each notebook (a worker restarts its server if it has
    died): a kept set-up holds nothing of any learner."""
    name = PLUGIN_NAME
    try:  # functions defined here travel by value (cloudpickle): a scheduler without the course can run them
        kept = client.run_on_scheduler(lambda dask_scheduler: name in dask_scheduler.worker_plugins)
        keys = client.run(lambda dask_worker: getattr(getattr(dask_worker, "autograder", None), "key", None))
    except Exception:  # noqa: BLE001 -- a worker leaving, a scheduler of another version: set up anew
        return False
    return kept is True and bool(keys) and all(found == key for found in keys.values())
