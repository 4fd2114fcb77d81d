"""The time budget of one notebook (``--budget``): what it counts, the figure each place that enforces it uses,
and its words, for the instructor (HELP) and for the learner (out_of_time()).

What it counts: the notebook's run in the unit server (sandbox_servers/unit_server.py) may use ``seconds`` of CPU
time, every process of it together, where a cgroup of its own counts that time (cgroup v1's cpuacct); each of its
processes also has RLIMIT_CPU at ``seconds``. Where the CPU time is counted, the wall clock stops the run only
after WALL_BACKSTOP budgets (a notebook that sleeps uses no CPU; a busy grading machine costs no one points);
elsewhere it stops it at one budget. nbgrader's kernel (``--kernel-run``) gets what the judge's run left of the
budget, on the wall clock.

The budget lives here because both sides enforce it: the unit server (which may not import the grader) and the
grader (autograder/grading/run: verify.py, judge.py, worker.py, forked_kernels.py), which asks this module for
every figure. The learner's sentence is translated where the grader's sentences are
(autograder/locales/ko/grading.py): the grader says it, in the submission's language.
"""
from dataclasses import dataclass

from learner_kit.i18n import tr

NAME = "budget"  # the one name: the --budget flag; Settings.notebook_budget_s, the wire's "cpu_s" say it in seconds
DEFAULT_S = 120
# Where CPU time is counted, the wall clock stops a notebook only after this many budgets (one that sleeps, or
# waits on a lock, uses no CPU): generous, since a loaded grading machine may run a notebook's CPU seconds
# several times slower than they pass on the clock.
WALL_BACKSTOP = 2
RLIMIT_GRACE_S = 5  # RLIMIT_CPU's hard limit is this much above its soft one (SIGXCPU first, then SIGKILL)
LIMITS_KEY = "cpu_s"  # the budget's seconds in a notebook request's "limits" (sandbox_servers/wire.py's protocol)

HELP = (f"seconds one notebook may run in all, added cells and restarts included (default {DEFAULT_S}): CPU time "
        f"where a cgroup of its own counts it (cgroup v1), with the wall clock stopping it at {WALL_BACKSTOP} "
        "budgets; wall-clock time elsewhere")


def out_of_time(seconds):
    """The one sentence a learner reads where a notebook's run used up its budget of ``seconds`` (their language)."""
    return tr("it ran past its time budget of {seconds} s and was stopped", seconds=_shown(seconds))


def _shown(seconds):
    return int(seconds) if isinstance(seconds, (int, float)) and float(seconds).is_integer() else seconds


@dataclass(frozen=True)
class NotebookBudget:
    """One notebook's budget of ``seconds``: the figures its enforcement points use."""

    seconds: float = DEFAULT_S

    @classmethod
    def of(cls, settings):
        """The budget of a grading run's Settings (autograder/grading/bookkeeping/config.py)."""
        return cls(settings.notebook_budget_s)

    @classmethod
    def from_limits(cls, limits):
        """The budget a notebook request's ``limits`` carry (None where they carry none)."""
        seconds = (limits or {}).get(LIMITS_KEY)
        return cls(seconds) if seconds else None

    def limits(self, **others):
        """A notebook request's ``limits``: the budget's seconds under LIMITS_KEY, with ``others`` (memory_mb, file_mb)."""
        return {**others, LIMITS_KEY: self.seconds}

    @property
    def cpu_limit_s(self):
        """The CPU seconds at which the unit server stops the notebook (its cgroup's count, RLIMIT_CPU's soft limit)."""
        return self.seconds

    @property
    def rlimit_cpu(self):
        """(soft, hard) RLIMIT_CPU of each of the notebook's processes."""
        return int(self.seconds), int(self.seconds) + RLIMIT_GRACE_S

    def wall_s(self, cpu_counted):
        """Seconds the wall clock allows: WALL_BACKSTOP budgets where the kernel counts the CPU time, else one."""
        return self.seconds * (WALL_BACKSTOP if cpu_counted else 1)

    def deadline(self, begun, cpu_counted=False):
        """The time.monotonic() at which the wall clock stops a run that began at ``begun``."""
        return begun + self.wall_s(cpu_counted)

    def left_s(self, spent):
        """What is left of the budget after ``spent`` seconds of it (negative once overrun)."""
        return self.seconds - spent

    def out_of_time(self):
        """The learner's sentence for this budget (out_of_time())."""
        return out_of_time(self.seconds)
