"""The kernel server: forks one IPython kernel per notebook, with torch & co. imported once.

    python -I kernel_server.py CODE_ROOT --channel FD [--notebook-dir DIR] [--pid-namespace] [--judged-outside]

Run by the grader (autograder/grading/run/forked_kernels.py), inside the grading sandbox. A
fresh kernel costs ~0.6 s to start, ~2 s for the notebook's `import torch` and ~1.4 s for
the first meta-device tensor; the server pays that once, and each kernel is a fork of it
that starts IPKernelApp with the connection the grader sends (IPC sockets in a folder the
grader shares with the sandbox). The server never runs a learner's code itself, so every
kernel starts from the same pristine state. Requests (JSON lines on the channel):

    {"op": "fork", "args", "connection", "env"}  -> {"pid"}
    {"op": "poll", "pid"}                        -> {"returncode": int or null}
    {"op": "signal", "pid", "signal"}            -> {}
    {"op": "memory", "limit"}                    -> {"bytes"}    what the notebook holds in memory (Server.memory)
    {"op": "cleanup"}                            -> {"intact"}   every process but this one killed, its files removed

Nothing of one notebook is left for the next: each kernel has a fresh working folder, HOME,
IPYTHONDIR and MPLCONFIGDIR (all under NOTEBOOK_DIR); in a sandbox, cleanup also deletes whatever
was added to its in-memory file systems since the server started, and every SysV IPC object.
"intact": false when it could not put them back as they were: the grader then replaces the sandbox.

With --judged-outside, `autograder.checks.check` in a kernel only says that the grader
judges the cell outside the notebook: the checks and the reference are not in the sandbox.
"""
import json
import os
import shutil
import socket
import stat
import sys
import threading
import time
import types

# Imported before forking: what the notebooks import (the rest they import themselves).
PRELOAD = ["numpy", "torch", "torch.nn.functional", "torch._dynamo", "matplotlib.pyplot", "ipykernel.kernelapp",
           "learner_kit.plotting", "learner_kit.visible", "learner_kit.harness"]
NOTEBOOK_DIR = "/tmp/notebook"  # the kernels' working folder (the sandbox's own /tmp); --notebook-dir outside one


def preload(judged_outside):
    # What ipykernel would set before the notebook imports matplotlib (the inline backend).
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for module in PRELOAD + ([] if judged_outside else ["autograder.checks"]):
        try:
            __import__(module)
        except Exception as error:  # a missing package only costs its import time later
            print(f"kernel server: could not preload {module}: {error}", file=sys.stderr, flush=True)
    import torch

    torch.zeros(1, device="meta") + 1  # noqa: B018 -- the first meta-device op imports torch._dynamo's machinery
    if judged_outside:
        install_judged_outside()


def install_judged_outside():
    """The checks' `check`, as a hidden test cell imports it: here it leaves the verdict to the grader."""

    def check(unit_name, candidate, aspect):
        print(f"{unit_name}: {aspect}: judged by the grader, outside this notebook")

    package = types.ModuleType("autograder")
    package.__path__ = []
    checks = types.ModuleType("autograder.checks")
    checks.check = check
    package.checks = checks
    sys.modules.update({"autograder": package, "autograder.checks": checks})


def become_kernel(request, channel):
    """In the forked kernel: run IPKernelApp as `python -m ipykernel_launcher -f CONNECTION ...` would."""
    code = 70
    try:
        os.close(channel.detach())  # no channel to the grader (close() would leave it open: serve's reader holds it)
        os.setsid()  # its own session and process group
        from sandbox_servers import processes

        processes.set_dumpable(True)  # the server is not (nothing may trace it); a kernel is an ordinary process
        if request.get("file_mb"):  # no one file larger (the grader also watches the socket folder's total)
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (request["file_mb"] * 2**20,) * 2)
        os.makedirs(NOTEBOOK_DIR, exist_ok=True)
        os.chdir(NOTEBOOK_DIR)
        connection_file = os.path.join(NOTEBOOK_DIR, ".kernel.json")
        with open(connection_file, "w", encoding="utf-8") as handle:
            handle.write(request["connection"])
        os.environ.clear()
        os.environ.update(request["env"], **fresh_home())
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.argv = ["ipykernel_launcher", "-f", connection_file, *request["args"]]
        sys.path.insert(0, NOTEBOOK_DIR)
        import random

        import numpy

        random.seed()  # a fresh process seeds these from the OS
        numpy.random.seed()
        from ipykernel import kernelapp

        code = 0
        kernelapp.launch_new_instance()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def fresh_home():
    """HOME, IPYTHONDIR and MPLCONFIGDIR of a new kernel, made in its (new) working folder: no profile, startup
    file, history or configuration of an earlier notebook's is found, and cleanup removes them with the folder."""
    home = os.path.join(NOTEBOOK_DIR, ".home")
    folders = {"HOME": home, "IPYTHONDIR": os.path.join(home, ".ipython"),
               "MPLCONFIGDIR": os.path.join(home, ".config", "matplotlib")}
    for folder in folders.values():
        os.makedirs(folder, exist_ok=True)
    return folders


# ---------------------------------------------------------------- what a notebook leaves in its sandbox
# In a sandbox, a notebook can write into bubblewrap's in-memory file systems (the root, /dev with
# /dev/shm, /tmp) and make SysV IPC objects; both outlive its processes. The server notes what the
# file systems hold when it starts (Baseline); after each notebook it deletes what was added.
MEMORY_MOUNTS = ("/", "/dev", "/dev/shm", "/dev/mqueue", "/tmp")  # where a sandbox may have one
IPC_KINDS = ("shm", "sem", "msg")  # /proc/sysvipc/<kind>, removed with <kind>ctl(id, IPC_RMID)


def memory_mounts():
    """{mount point: device} of the sandbox's in-memory file systems (tmpfs, mqueue), one per device."""
    types = {}
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            types[fields[4].replace("\\040", " ")] = fields[fields.index("-") + 1]
    mounts = {}
    for point in MEMORY_MOUNTS:
        device = os.lstat(point).st_dev if types.get(point) in ("tmpfs", "mqueue") else None
        if device is not None and device not in mounts.values():
            mounts[point] = device
    return mounts


def identity(info):
    """What must not change in an entry the server found (a file's ctime changes with any write, chmod or link)."""
    return info.st_mode, info.st_ino, 0 if stat.S_ISDIR(info.st_mode) else info.st_ctime_ns


def scan(root, device, visit):
    """Call ``visit(path, lstat)`` for everything under ``root`` on ``device`` (no other mount, no link followed),
    parents first; it descends into a folder when ``visit`` returns True. False if a folder could not be read."""
    readable, folders = True, [root]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                found = [(entry.path, entry.stat(follow_symlinks=False)) for entry in entries]
        except OSError:
            readable = False
            continue
        for path, info in found:
            if info.st_dev == device and visit(path, info) and stat.S_ISDIR(info.st_mode):
                folders.append(path)
    return readable


def remove(path, info):
    """Delete ``path`` (lstat ``info``) and everything under it on its device (another mount's files are never
    touched, no link is followed); True when all of it is gone."""
    doomed, folders = [(path, info)], [path] if stat.S_ISDIR(info.st_mode) else []
    while folders:
        folder = folders.pop()
        try:
            os.chmod(folder, 0o700)  # a notebook may have locked it
            children = [(child, os.lstat(child)) for child in (os.path.join(folder, name) for name in os.listdir(folder))]
        except OSError:
            return False
        for child, child_info in children:
            if child_info.st_dev != info.st_dev:
                return False  # a mount point below a folder the notebook made: a folder of the sandbox's, moved
            doomed.append((child, child_info))
            if stat.S_ISDIR(child_info.st_mode):
                folders.append(child)
    gone = True
    for child, child_info in reversed(doomed):  # children before their folder
        try:
            os.rmdir(child) if stat.S_ISDIR(child_info.st_mode) else os.unlink(child)
        except OSError:
            gone = False
    return gone


def remove_ipc_objects():
    """Remove every SysV shared memory segment, semaphore set and message queue of this IPC namespace (the
    sandbox's: the server makes none); True when none is left."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    controls = {"shm": lambda id_: libc.shmctl(id_, 0, None), "sem": lambda id_: libc.semctl(id_, 0, 0),
                "msg": lambda id_: libc.msgctl(id_, 0, None)}  # IPC_RMID is 0
    failures = [id_ for kind in IPC_KINDS for id_ in ipc_ids(kind) if controls[kind](id_) != 0]
    return not failures


def ipc_ids(kind):
    """The ids of this IPC namespace's SysV objects of ``kind`` (shm, sem, msg)."""
    try:
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as handle:
            return [int(line.split()[1]) for line in list(handle)[1:] if line.strip()]
    except OSError:
        return []


def shared_memory_bytes():
    """The resident bytes of this IPC namespace's SysV shared memory segments (they outlive their processes)."""
    try:
        with open("/proc/sysvipc/shm", encoding="ascii") as handle:
            header, *rows = [line.split() for line in handle if line.strip()]
        return sum(int(row[header.index("rss")]) for row in rows)
    except (OSError, ValueError, IndexError):
        return 0


class Baseline:
    """What the sandbox's in-memory file systems held when the server started.

    ``restore`` (once a notebook's processes are dead) deletes what was added since, and every SysV IPC
    object; it returns False when the rest is not as it was (an entry the server found is changed, moved
    or gone, or something could not be deleted): the grader then starts a fresh sandbox.
    ``held_bytes``: what a notebook holds there now, in memory.
    """

    def __init__(self):
        self.mounts, self.known = memory_mounts(), {}
        for root, device in self.mounts.items():
            self.known[root] = identity(os.lstat(root))
            scan(root, device, self._note)
        self.used = self.used_bytes()

    def _note(self, path, info):
        self.known[path] = identity(info)
        return True

    def restore(self):
        intact, seen = remove_ipc_objects(), set()

        def visit(path, info):
            nonlocal intact
            if path not in self.known:
                intact = remove(path, info) and intact
                return False
            if self.known[path] != identity(info):
                intact = False
                return False
            seen.add(path)
            return True

        for root, device in self.mounts.items():
            if visit(root, os.lstat(root)):
                intact = scan(root, device, visit) and intact
        return intact and len(seen) == len(self.known)

    def used_bytes(self):
        total = 0
        for root in self.mounts:
            usage = os.statvfs(root)
            total += (usage.f_blocks - usage.f_bfree) * usage.f_frsize
        return total

    def held_bytes(self):
        return max(0, self.used_bytes() - self.used) + shared_memory_bytes()


class Server:
    def __init__(self, channel, pid_namespace):
        self.channel, self.pid_namespace, self.kernels = channel, pid_namespace, set()
        self.baseline = Baseline() if pid_namespace else None  # in a sandbox of its own (outside: NOTEBOOK_DIR only)

    def fork(self, request):
        if threading.active_count() > 1:
            raise RuntimeError("the kernel server started a thread: forking it is unsafe")
        pid = os.fork()
        if pid == 0:
            become_kernel(request, self.channel)
        self.kernels.add(pid)
        return {"pid": pid}

    def poll(self, request):
        pid = int(request["pid"])
        if pid not in self.kernels:
            return {"returncode": -9}
        try:
            finished, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            self.kernels.discard(pid)
            return {"returncode": -9}
        if not finished:
            return {"returncode": None}
        self.kernels.discard(pid)
        return {"returncode": os.waitstatus_to_exitcode(status)}

    def signal(self, request):
        pid = int(request["pid"])
        if pid in self.kernels:
            try:
                os.killpg(pid, int(request["signal"]))
            except (ProcessLookupError, PermissionError):
                try:
                    os.kill(pid, int(request["signal"]))
                except (ProcessLookupError, PermissionError):
                    pass
        return {}

    def memory(self, request):
        """What the notebook holds in memory, in bytes: its processes' resident memory (exact where a quick upper
        bound is over ``limit``: processes.resident_bytes) and, in a sandbox, what it added to the in-memory file
        systems and SysV shared memory. Address space that holds nothing is not memory (torch's CUDA libraries
        map gigabytes)."""
        from sandbox_servers import processes

        held = self.baseline.held_bytes() if self.baseline else 0
        limit = request.get("limit")
        pids = processes.learner_pids(sessions=None if self.pid_namespace else self.kernels)
        return {"bytes": held + processes.resident_bytes(pids, None if limit is None else max(0, limit - held))}

    def cleanup(self, request):
        """Everything the last notebook left: its processes (all but this one, in a sandbox) and its files."""
        from sandbox_servers import processes

        for pid in self.kernels:
            processes.kill_session(pid)
        if self.pid_namespace:  # every other process in this pid namespace is a notebook's
            self.kernels -= processes.kill_all_others().keys()
        deadline = time.monotonic() + 5
        while self.kernels and time.monotonic() < deadline:
            self.kernels -= processes.reap().keys()
            time.sleep(0.002)
        if self.baseline is not None:
            return {"intact": self.baseline.restore()}  # NOTEBOOK_DIR, under /tmp, too
        shutil.rmtree(NOTEBOOK_DIR, ignore_errors=True)
        return {"intact": True}

    def serve(self):
        stream = self.channel.makefile("rwb")
        handlers = {"fork": self.fork, "poll": self.poll, "signal": self.signal, "memory": self.memory,
                    "cleanup": self.cleanup}
        for line in stream:  # until the grader closes its end (or dies)
            try:
                request = json.loads(line)
                reply = handlers[request["op"]](request)
            except Exception as error:
                reply = {"error": f"{type(error).__name__}: {error}"}
            stream.write(json.dumps(reply).encode() + b"\n")
            stream.flush()


def main():
    arguments = sys.argv[2:]
    sys.path.insert(0, sys.argv[1])  # the sandbox's learner_kit (and, unsandboxed, the checkout)
    from sandbox_servers import processes  # here: the sandbox's code is on the path only now

    processes.set_dumpable(False)  # nothing forked from here may read or trace this process's memory
    if "--pid-namespace" in arguments:  # in a sandbox of its own
        processes.limit_processes()
    global NOTEBOOK_DIR
    if "--notebook-dir" in arguments:
        NOTEBOOK_DIR = arguments[arguments.index("--notebook-dir") + 1]
    channel = socket.socket(fileno=int(arguments[arguments.index("--channel") + 1]))
    preload("--judged-outside" in arguments)
    Server(channel, "--pid-namespace" in arguments).serve()


if __name__ == "__main__":
    main()
