"""What the two sandboxed servers (unit_server.py, kernel_server.py) do to the processes around them.

Each server forks the processes that run a learner's code. It keeps itself out of their reach
(not dumpable: nothing it forks may trace it or read its memory), and after each notebook it
kills whatever that notebook left running: in a sandbox of its own (its own pid namespace),
every process but itself, and empties the folders that notebook could write (empty_folder).
"""
import os
import resource
import shutil
import signal
import time

PR_SET_DUMPABLE = 4
MAX_PROCESSES = 256  # processes and threads in one sandbox: a kernel with its threads needs about 20


def limit_processes(limit=MAX_PROCESSES):
    """Cap the processes (threads included) of this sandbox's user, so a fork bomb fails with EAGAIN.

    Called inside the sandbox: Linux counts them per user namespace, so each sandbox has its own
    count. The cap does not hold where the sandbox runs as root on the host (autograder/grading/sandbox.py
    runs it as an unprivileged user wherever it can).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def set_dumpable(dumpable):
    """Whether processes of the same user may trace this one or read its memory (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, int(bool(dumpable)), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def kill_session(pid):
    """SIGKILL to the session (process group) that ``pid`` leads, if it still exists."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def reap():
    """{pid: exit code} of every child of this process that has ended, collected now."""
    ended = {}
    try:
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if not pid:
                return ended
            ended[pid] = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        return ended


def kill_all_others(rounds=500):
    """In a pid namespace of our own: kill every process but this one, until none is left.

    Ended children are reaped first in each round (a zombie can still be signalled, so kill(-1)
    would not report that none is left). Returns {pid: exit code} of the children reaped.
    """
    ended = {}
    for _ in range(rounds):
        ended.update(reap())
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break
        time.sleep(0.002)
    ended.update(reap())
    return ended


# ---------------------------------------------------------------- memory: resident, not address space
# A learner's memory is limited by what it holds in RAM, not by the address space it maps:
# PyPI's CUDA build of torch maps 3-5 GB of address space on import alone (more with many
# threads, far more once CUDA starts), with about 0.5 GB resident. RLIMIT_AS would fail right
# answers there; a watch on resident anonymous memory holds a memory bomb on every build.

def _kb_fields(path, *fields):
    """The `kB` fields of a /proc file (status, smaps_rollup) summed, in bytes; None where it cannot be read
    (the process is gone, or is not dumpable and so not ours to read) or has none of them (an older kernel:
    smaps_rollup has Pss_Anon since Linux 5.8)."""
    total, found = 0, False
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if line.startswith(fields):
                    total, found = total + int(line.split()[1]) * 1024, True
    except (OSError, ValueError, IndexError):
        return None
    return total if found else None


def _session_of(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[3])  # state ppid pgrp session ...
    except (OSError, ValueError, IndexError):
        return None


def learner_pids(own_pid=None, sessions=None):
    """The processes a watch counts: in a pid namespace of the sandbox's own (``sessions`` None),
    every process but ``own_pid``; elsewhere, those in one of ``sessions`` (each child leads its own)."""
    own_pid = os.getpid() if own_pid is None else own_pid
    pids = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return pids
    for name in names:
        if not name.isdigit() or int(name) == own_pid:
            continue
        if sessions is None or _session_of(int(name)) in sessions:
            pids.append(int(name))
    return pids


def resident_bytes(pids, limit=None):
    """The resident anonymous and shared-memory bytes of ``pids`` together: what a memory bomb grows
    (file-backed pages such as torch's and CUDA's libraries are the page cache's, and are not counted).

    The quick sum of each process's RssAnon + RssShmem is an upper bound: a page a fork still shares
    with its parent counts in both (torch's few hundred MB in every forked process). Where that bound
    is over ``limit``, the exact sum is returned instead: smaps_rollup's proportional Pss_Anon +
    Pss_Shmem, where a page shared by n processes counts 1/n in each (slower: it walks page tables).
    """
    quick = {pid: _kb_fields(f"/proc/{pid}/status", b"RssAnon:", b"RssShmem:") or 0 for pid in pids}
    if limit is None or sum(quick.values()) <= limit:
        return sum(quick.values())
    exact = ((pid, _kb_fields(f"/proc/{pid}/smaps_rollup", b"Pss_Anon:", b"Pss_Shmem:")) for pid in pids)
    return sum(quick[pid] if share is None else share for pid, share in exact)  # unreadable: the bound


# ---------------------------------------------------------------- files a notebook left


def empty_folder(folder, keep=()):
    """Remove everything in ``folder`` but the names in ``keep``, once the notebook's processes have ended
    (nothing changes under us): folders it locked are unlocked first, links are removed, never followed."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name in keep:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                unlock(entry.path)
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def unlock(folder):
    """Make ``folder`` and every folder under it readable and writable to us (a notebook may lock them);
    no link is followed."""
    _chmod(folder)
    for top, folders, _ in os.walk(folder):  # a folder is listed after its parent's turn has unlocked it
        for name in folders:
            if not os.path.islink(os.path.join(top, name)):
                _chmod(os.path.join(top, name))


def _chmod(path):
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
