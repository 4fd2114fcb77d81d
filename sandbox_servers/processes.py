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
    count. The cap does not hold where the sandbox runs as root on the host (autograder/grading/run/sandbox.py
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


# ---------------------------------------------------------------- memory and CPU time: counted by the kernel
# Where the grader could make cgroups (root, cgroup v1's memory and cpuacct controllers), the sandbox's server
# gets a descriptor of its own cgroup folder in each (sandbox.ProcessCap, --memory-cgroup-fd/--cpuacct-cgroup-fd):
# no cgroup file system is mounted inside, and the server is not dumpable, so only the server can use them. Each
# notebook's child goes into a cgroup of its own under it: everything that notebook's processes hold in memory
# (anonymous memory of every process, shared memory, memfd and tmpfs pages, page tables) is charged there, the
# kernel enforces the limit (its OOM killer acts inside that cgroup only, never on the server) and counts the CPU
# time of all its processes.

IPC_RMID = 0


class NotebookCgroup:
    """The cgroups of one notebook's processes (memory, cpuacct), made under the folders ``fds`` opens:
    {"memory": fd, "cpuacct": fd}. ``start(pid, memory_bytes)`` puts the child in, with its limit;
    ``oom_kills()`` and ``cpu_seconds()`` read the kernel's counts; ``remove()`` once its processes have ended."""

    def __init__(self, fds):
        self.fds = {kind: fd for kind, fd in fds.items() if fd is not None}
        self.name, self.count, self.events = None, 0, None

    @classmethod
    def from_arguments(cls, arguments):
        """From the server's command line: ``--memory-cgroup-fd N`` and ``--cpuacct-cgroup-fd N`` (sandbox.ProcessCap)."""
        fds = {}
        for kind in ("memory", "cpuacct"):
            flag = f"--{kind}-cgroup-fd"
            if flag in arguments:
                try:
                    fd = int(arguments[arguments.index(flag) + 1])
                    os.fstat(fd)
                    fds[kind] = fd
                except (IndexError, ValueError, OSError):
                    pass
        return cls(fds)

    @property
    def memory(self):
        return "memory" in self.fds

    def _write(self, kind, name, value):
        fd = os.open(f"{self.name}/{name}", os.O_WRONLY, dir_fd=self.fds[kind])
        try:
            os.write(fd, str(value).encode())
        finally:
            os.close(fd)

    def _read(self, kind, name):
        fd = os.open(f"{self.name}/{name}", os.O_RDONLY, dir_fd=self.fds[kind])
        try:
            return os.read(fd, 4096).decode()
        finally:
            os.close(fd)

    def start(self, pid, memory_bytes):
        """Make this notebook's cgroups, its memory limit (and memory+swap where the kernel counts swap), and move
        ``pid`` (not yet running the learner's code) into them. Returns the controllers that could not be used."""
        self.count += 1
        self.name, failed = f"notebook-{self.count}", []
        for kind in list(self.fds):
            try:
                os.mkdir(self.name, 0o755, dir_fd=self.fds[kind])
                if kind == "memory" and memory_bytes:
                    self._write(kind, "memory.limit_in_bytes", memory_bytes)
                    try:
                        self._write(kind, "memory.memsw.limit_in_bytes", memory_bytes)  # swap counts too
                    except OSError:  # no swap accounting (swapaccount=0): no swap to count either, most often
                        pass
                    self._watch_oom()
                self._write(kind, "cgroup.procs", pid)
            except OSError as error:
                failed.append(f"{kind}: {error.strerror}")
                self._remove(kind)
                del self.fds[kind]
        return failed

    def _watch_oom(self):
        """An eventfd that the kernel signals when the notebook's cgroup meets its limit (cgroup v1's
        memory.oom_control notification)."""
        self.events = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        control = os.open(f"{self.name}/memory.oom_control", os.O_RDONLY, dir_fd=self.fds["memory"])
        try:
            self._write("memory", "cgroup.event_control", f"{self.events} {control}")
        except OSError:
            os.close(self.events)
            self.events = None
        finally:
            os.close(control)

    def oom_kills(self):
        """How many of the notebook's processes the kernel killed at its memory limit (0 where not counted)."""
        if not self.memory or self.name is None:
            return 0
        try:
            for line in self._read("memory", "memory.oom_control").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def counts_cpu(self):
        """Whether this notebook's CPU time is counted by the kernel (its cpuacct cgroup was made)."""
        return "cpuacct" in self.fds and self.name is not None

    def cpu_seconds(self):
        """The CPU time all of the notebook's processes have used (cpuacct.usage), or None where not counted."""
        if "cpuacct" not in self.fds or self.name is None:
            return None
        try:
            return int(self._read("cpuacct", "cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return None

    def memory_bytes(self, stat="memory.max_usage_in_bytes"):
        try:
            return int(self._read("memory", stat))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _remove(self, kind, wait_s=2.0):
        deadline = time.monotonic() + wait_s
        while True:
            try:
                os.rmdir(self.name, dir_fd=self.fds[kind])
                return
            except FileNotFoundError:
                return
            except OSError:  # its last processes leave a moment after they are reaped
                if time.monotonic() > deadline:
                    return  # left behind: the grader removes the whole tree with the sandbox (ProcessCap.remove)
                time.sleep(0.01)

    def remove(self):
        """Remove the notebook's cgroups (its processes have all ended; what they left in memory, the server has
        removed: its files, its shared memory)."""
        if self.events is not None:
            os.close(self.events)
            self.events = None
        if self.name is not None:
            for kind in self.fds:
                self._remove(kind)
        self.name = None


def remove_ipc():
    """Remove every System V shared memory segment, message queue and semaphore set of this IPC namespace (the
    sandbox's own): a segment outlives the processes that made it, and would hold its memory for the next
    notebooks. Returns how many were removed."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    removed = 0
    for kind, remove in (("shm", lambda i: libc.shmctl(i, IPC_RMID, None)),
                         ("msg", lambda i: libc.msgctl(i, IPC_RMID, None)),
                         ("sem", lambda i: libc.semctl(i, 0, IPC_RMID))):
        try:
            with open(f"/proc/sysvipc/{kind}") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            try:
                removed += remove(int(line.split()[1])) == 0
            except (ValueError, IndexError):
                pass
    return removed
