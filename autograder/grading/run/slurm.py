"""`autograder grade --slurm`: the grading workers as Slurm jobs (dask-jobqueue's SLURMCluster), sized from what the
partition's nodes offer, replaced when they end, and explained while none has joined.

    autograder grade SUBMITTED --out OUT --slurm --jobs 8 [--slurm-partition P] [--slurm-account A]
                     [--slurm-walltime 02:00:00] [--slurm-workers-per-job K] [--slurm-worker-memory 3G]

``--jobs N`` is, as always, how many submissions are graded at the same time: N single-threaded workers, K to a Slurm
job (ceil(N / K) jobs, one core and ``--slurm-worker-memory`` per worker). The scheduler runs in this process (the
login node), with the grader's settings (cluster.SCHEDULER_CONFIG); the workers get the local cluster's
(cluster.WORKER_MEMORY_CONFIG, single-threaded, not daemonic) as DASK_* variables in the job script, and the same
worker plugin when they join. What a job asks for is what the partition's nodes have at most: sinfo's CPUs and
memory of the smallest node that is up (or of any node, when none is), capped by the partition's MaxCPUsPerNode,
MaxMemPerNode and MaxTime. ``adapt`` keeps the number of jobs: a job that ends (scancel, its walltime, a node lost) is
replaced within seconds; each worker leaves on its own a little before its job's walltime (Dask's --lifetime), so
that the submission it held goes to another worker without counting as a failure.

While no worker has joined, the grader says so within seconds and names each job's state and Slurm's reason
(``squeue``: Resources, Priority, PartitionDown, ...), again every 30 s (cluster.Watch).

Everything here but ``cluster()`` uses the standard library only: cli.py imports it to check the options and
Slurm's view of the partition before anything is graded (SlurmError: exit status 2).
"""
import logging
import math
import os
import re
import shlex
import shutil
import subprocess
import uuid
from dataclasses import dataclass, field

GiB = 2**30
# What one worker's share of its job must hold, so that Slurm's limit never decides a grade: the worker and its
# sandboxes' servers with PyTorch loaded (their tree peaked at 1.3 GiB of RSS on the demo class, README: 1.5 GiB),
# plus what the sandbox lets one learner's run hold (Settings.verifier_memory_mb, 3 GiB; nbgrader's kernel with
# --kernel-run, kernel_memory_mb, 4 GiB, after it) and its in-memory /tmp (sandbox.TMP_BYTES, 0.5 GiB). With less, a notebook that uses memory honestly has its worker ended by Slurm's
# cgroup (retried once elsewhere, then given 0: "the grading worker stopped twice") instead of being graded, or
# stopped by the sandbox with its reason, as on a local run.
WORKER_MEMORY = 6 * GiB
WORKERS_PER_JOB = 4  # at most, by default: small jobs wait less for room in a partition than whole nodes
WALLTIME = "02:00:00"
START_TIMEOUT_S = 300  # a worker's start, its set-up for grading included; and how long it outlives a lost scheduler
UNLIMITED = ("UNLIMITED", "INFINITE", "NONE", "")


class SlurmError(Exception):
    """Grading on Slurm cannot start: no Slurm commands, no such partition, a worker that fits no node."""


@dataclass
class Options:
    partition: str | None = None
    account: str | None = None
    walltime: str = WALLTIME
    workers_per_job: int | None = None
    worker_memory: int = WORKER_MEMORY
    interface: str | None = None
    extra: list = field(default_factory=list)  # more #SBATCH directives, e.g. --qos=short


@dataclass
class Partition:
    name: str
    cpus: int  # per node, on the smallest node that is up (any node, when none is)
    memory_mb: int  # per node, likewise (sinfo's RealMemory, in MB as Slurm counts them: MiB)
    state: str  # UP, DOWN, DRAIN, INACTIVE
    max_time: str | None  # the partition's MaxTime; None when unlimited
    nodes: int
    nodes_up: int


@dataclass
class Plan:
    """What the run asks Slurm for (``describe`` says it in one line)."""

    partition: Partition
    options: Options
    workers: int
    workers_per_job: int
    jobs: int
    walltime: str
    lifetime_s: int
    notes: list
    job_name: str = field(default_factory=lambda: f"autograder-{uuid.uuid4().hex[:8]}")
    log_directory: str | None = None  # the jobs' output files (the runner sets OUT/logs/slurm)

    @property
    def job_memory_mb(self):
        return self.workers_per_job * math.ceil(self.options.worker_memory / 2**20)

    def describe(self):
        memory = f"{self.options.worker_memory / GiB:g} GiB"
        return (f"Slurm: {self.workers} worker(s) as {self.jobs} job(s) of {self.workers_per_job} worker(s) on partition "
                f"{self.partition.name} (each job {self.workers_per_job} CPU(s) and {self.job_memory_mb} MiB: one core and "
                f"{memory} a worker; a node there has {self.partition.cpus} CPU(s) and {self.partition.memory_mb} MiB), "
                f"walltime {self.walltime}, job name {self.job_name}")


def options_given(args):
    """The --slurm-* options given on the command line (an error when they come without --slurm)."""
    given = [name for name in ("slurm_partition", "slurm_account", "slurm_workers_per_job", "slurm_interface")
             if getattr(args, name) is not None]
    given += ["slurm_option"] if args.slurm_option else []
    given += ["slurm_walltime"] if args.slurm_walltime != WALLTIME else []
    given += ["slurm_worker_memory"] if args.slurm_worker_memory != f"{WORKER_MEMORY // GiB}G" else []
    return ["--" + name.replace("_", "-") for name in given]


def plan_from_args(args, out=None, run=None):
    """The Plan for ``autograder grade --slurm`` (SlurmError when it cannot be made: said, exit status 2); the jobs'
    output goes to OUT/logs/slurm/."""
    if not args.slurm:
        raise SlurmError(f"{', '.join(options_given(args))}: only with --slurm")
    if args.scheduler:
        raise SlurmError("--slurm and --scheduler exclude each other: --slurm starts its own scheduler here")
    options = Options(partition=args.slurm_partition, account=args.slurm_account, walltime=args.slurm_walltime,
                      workers_per_job=args.slurm_workers_per_job, worker_memory=parse_size(args.slurm_worker_memory),
                      interface=args.slurm_interface, extra=list(args.slurm_option))
    plan = make_plan(options, args.jobs, query_partition(options.partition, run))
    if out is not None:
        plan.log_directory = str(out.resolve() / "logs" / "slurm")
    return plan


SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)


def parse_size(text):
    """Bytes of a size as Slurm writes it (3G, 3072M, 2.5G; K, M, G, T are powers of 1024, as for sbatch --mem)."""
    match = SIZE.match(str(text))
    if not match:
        raise SlurmError(f"--slurm-worker-memory {text!r}: give a size such as 3G or 3072M")
    value = float(match[1]) * {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[(match[2] or "M").upper()]
    if value < 256 * 2**20:
        raise SlurmError(f"--slurm-worker-memory {text!r}: a worker needs far more than that (the default is "
                         f"{WORKER_MEMORY // GiB}G)")
    return int(value)


def slurm_command(name):
    path = shutil.which(name)
    if path is None:
        raise SlurmError(f"{name} was not found: --slurm needs Slurm's commands (sinfo, sbatch, squeue, scancel) on "
                         "this machine's PATH, a login node of the cluster")
    return path


def run_slurm(argv, timeout=30):
    """A Slurm command's standard output (SlurmError with its message when it fails)."""
    try:
        done = subprocess.run([slurm_command(argv[0]), *argv[1:]], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{' '.join(argv)} did not answer in {timeout} s: is slurmctld reachable?") from None
    if done.returncode != 0:
        raise SlurmError(f"{' '.join(map(shlex.quote, argv))} failed: {(done.stderr or done.stdout).strip()[:500]}")
    return done.stdout


def key_values(line):
    """scontrol's one-line records: {key: value} (a value may hold spaces only where it is the last key's)."""
    return dict(token.split("=", 1) for token in line.split() if "=" in token)


DOWN_STATES = ("DOWN", "DRAIN", "FAIL", "INVAL", "UNKNOWN", "NOT_RESPONDING", "FUTURE", "POWER")


def query_partition(name=None, run=None):
    """What a node of partition ``name`` (Slurm's default one when None) offers: sinfo and scontrol's answer."""
    run = run or run_slurm
    partitions = [key_values(line) for line in run(["scontrol", "show", "partition", "-o"]).splitlines() if line.strip()]
    if not partitions:
        raise SlurmError("scontrol show partition lists no partition: this Slurm cluster has none")
    if name is None:
        defaults = [p for p in partitions if p.get("Default") == "YES"]
        if not defaults:
            raise SlurmError("Slurm has no default partition: name one with --slurm-partition (one of "
                             f"{', '.join(p.get('PartitionName', '?') for p in partitions)})")
        info = defaults[0]
    else:
        info = next((p for p in partitions if p.get("PartitionName") == name), None)
        if info is None:
            raise SlurmError(f"Slurm has no partition {name!r} (it has {', '.join(p.get('PartitionName', '?') for p in partitions)})")
    name = info["PartitionName"]
    nodes = []
    for line in run(["sinfo", "-h", "-N", "-p", name, "-o", "%N|%c|%m|%T"]).splitlines():
        parts = line.strip().split("|")
        if len(parts) == 4 and parts[1].isdigit() and parts[2].rstrip("+").isdigit():
            nodes.append((parts[0], int(parts[1]), int(parts[2].rstrip("+")), parts[3].upper()))
    if not nodes:
        raise SlurmError(f"partition {name} has no nodes (sinfo -N -p {name} lists none)")
    up = [n for n in nodes if not any(state in n[3] for state in DOWN_STATES)]
    usable = up or nodes
    cpus, memory = min(n[1] for n in usable), min(n[2] for n in usable)
    if info.get("MaxCPUsPerNode", "UNLIMITED").isdigit():
        cpus = min(cpus, int(info["MaxCPUsPerNode"]))
    if info.get("MaxMemPerNode", "UNLIMITED").isdigit():
        memory = min(memory, int(info["MaxMemPerNode"]))
    max_time = info.get("MaxTime", "UNLIMITED")
    return Partition(name=name, cpus=cpus, memory_mb=memory, state=info.get("State", "UP"),
                     max_time=None if max_time.upper() in UNLIMITED else max_time, nodes=len(nodes), nodes_up=len(up))


TIME = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(?:(\d+):)?(\d+)$")


def seconds(walltime):
    """Seconds of a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS)."""
    text = walltime.strip()
    days = 0
    if "-" in text:
        day, text = text.split("-", 1)
        if not day.isdigit():
            raise SlurmError(f"walltime {walltime!r}: not a Slurm time such as 02:00:00")
        days = int(day)
        parts = text.split(":")
        if not all(p.isdigit() for p in parts) or len(parts) > 3:
            raise SlurmError(f"walltime {walltime!r}: not a Slurm time such as 02:00:00")
        hours, minutes, secs = (list(map(int, parts)) + [0, 0])[:3]
    else:
        parts = text.split(":")
        if not all(p.isdigit() for p in parts) or not 1 <= len(parts) <= 3:
            raise SlurmError(f"walltime {walltime!r}: not a Slurm time such as 02:00:00")
        numbers = list(map(int, parts))
        hours, minutes, secs = {1: (0, numbers[0], 0), 2: (0, *numbers), 3: tuple(numbers)}[len(numbers)]
    return ((days * 24 + hours) * 60 + minutes) * 60 + secs


def hms(total):
    return f"{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def make_plan(options, workers, partition):
    """How many jobs of how many workers, within what a node of ``partition`` has (SlurmError when not even one
    worker fits a node)."""
    notes = []
    worker_mb = math.ceil(options.worker_memory / 2**20)
    fits = min(partition.cpus, partition.memory_mb // worker_mb)
    if fits < 1:
        raise SlurmError(f"a node of partition {partition.name} has {partition.cpus} CPU(s) and {partition.memory_mb} MiB "
                         f"of memory: less than one grading worker's {worker_mb} MiB (--slurm-worker-memory); choose "
                         "another partition or give a worker less memory")
    per_job = min(WORKERS_PER_JOB, fits, workers) if options.workers_per_job is None else options.workers_per_job
    if per_job < 1:
        raise SlurmError("--slurm-workers-per-job must be at least 1")
    if per_job > fits:
        notes.append(f"--slurm-workers-per-job {per_job} is more than a node of partition {partition.name} holds "
                     f"({partition.cpus} CPU(s), {partition.memory_mb} MiB, {worker_mb} MiB a worker): {fits} a job")
        per_job = fits
    jobs = math.ceil(workers / per_job)
    if jobs * per_job != workers:
        notes.append(f"{jobs * per_job} workers rather than {workers}: {jobs} job(s) of {per_job}")
    walltime = seconds(options.walltime)
    if partition.max_time is not None and seconds(partition.max_time) < walltime:
        notes.append(f"walltime {options.walltime} is more than partition {partition.name}'s MaxTime "
                     f"{partition.max_time}: {partition.max_time} it is")
        walltime = seconds(partition.max_time)
    if walltime < 120:
        raise SlurmError(f"walltime {hms(walltime)} is too short for a grading worker (its set-up alone takes up to a "
                         "minute)")
    if partition.state.upper() != "UP":
        notes.append(f"partition {partition.name} is {partition.state}: its jobs wait until it is UP")
    # A worker leaves on its own a little before the walltime, so that its submission is not killed with it.
    lifetime = walltime - min(600, max(60, walltime // 10))
    return Plan(partition=partition, options=options, workers=jobs * per_job, workers_per_job=per_job, jobs=jobs,
                walltime=hms(walltime), lifetime_s=lifetime, notes=notes)


def worker_environment(settings):
    """``export`` lines for the job script: Dask's settings of a grading worker as DASK_* variables."""
    lines = []
    for key, value in settings.items():
        variable = "DASK_" + "__".join(part.upper().replace("-", "_") for part in key.split("."))
        lines.append(f"export {variable}={shlex.quote(str(value))}")
    return lines


def cluster(plan, worker_settings):
    """dask-jobqueue's SLURMCluster for ``plan`` (no job submitted yet: ``adapt`` them). Made inside the grader's
    dask.config (cluster.grading_client), so the scheduler it starts here has SCHEDULER_CONFIG."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise SlurmError("--slurm needs dask-jobqueue: pip install -r requirements-slurm.txt (make slurm-tool)") from None
    import sys

    options = plan.options
    worker_mb = math.ceil(options.worker_memory / 2**20)
    if plan.log_directory:
        os.makedirs(plan.log_directory, exist_ok=True)
    return SLURMCluster(
        queue=plan.partition.name, account=options.account, walltime=plan.walltime,
        cores=plan.workers_per_job, processes=plan.workers_per_job, memory=f"{plan.workers_per_job * worker_mb}MiB",
        job_mem=f"{plan.workers_per_job * worker_mb}M", job_name=plan.job_name, python=sys.executable,
        interface=options.interface, log_directory=plan.log_directory, job_extra_directives=list(options.extra),
        job_script_prologue=worker_environment(worker_settings),
        worker_extra_args=["--lifetime", f"{plan.lifetime_s}s", "--lifetime-stagger", "30s"],
        # A worker that joins sets up for grading as it starts (the plugin is registered by then): up to a minute or
        # two on a busy node, within the nanny's start timeout, which is death_timeout (dask-jobqueue's default, 60 s,
        # ended workers half-way through their set-up on a loaded node, over and over).
        death_timeout=START_TIMEOUT_S,
        scheduler_options={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        silence_logs=logging.CRITICAL)  # a worker lost is the run's business (retried, then said), not Dask's log's


def job_ids(slurm_cluster):
    """The Slurm job ids the cluster submitted so far (running, pending or ended)."""
    ids = []
    for job in list(getattr(slurm_cluster, "workers", {}).values()):
        job_id = getattr(job, "job_id", None)
        if job_id:
            ids.append(str(job_id))
    return ids


def queue_report(plan, slurm_cluster=None, run=None):
    """The jobs of this run as squeue shows them, e.g. "job 12 PENDING (PartitionDown), job 13 RUNNING on node3"."""
    run = run or run_slurm
    try:
        lines = run(["squeue", "-h", "--name", plan.job_name, "-o", "%i|%T|%r|%N"], timeout=15).splitlines()
    except SlurmError as error:
        return f"squeue did not answer ({error})"
    jobs = []
    for line in lines:
        parts = line.strip().split("|")
        if len(parts) != 4:
            continue
        job, state, reason, node = parts
        where = f" on {node}" if node and state == "RUNNING" else ""
        why = f" ({reason})" if reason and reason.upper() != "NONE" else ""
        jobs.append(f"job {job} {state}{why}{where}")
    if not jobs:
        submitted = job_ids(slurm_cluster) if slurm_cluster is not None else []
        return ("no job of this run is in Slurm's queue" + (f" (submitted: {', '.join(submitted)}; ended?" if submitted
                else " (none submitted yet") + f"; their output: {plan.log_directory or 'the working directory'})")
    return f"Slurm: {', '.join(jobs)}"
