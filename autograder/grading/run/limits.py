"""Resource limits for the processes that run learners' code, and how to stop them."""
import os
import resource
import signal

from sandbox_servers.budget import NotebookBudget

MB = 1024 * 1024


def limiter(memory_mb=None, cpu_s=None, file_mb=None):
    """A ``preexec_fn`` that caps address space, CPU seconds and written file size (children inherit them)."""

    def apply():
        if memory_mb:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * MB, memory_mb * MB))
        if cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, NotebookBudget(cpu_s).rlimit_cpu)
        if file_mb:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb * MB, file_mb * MB))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
