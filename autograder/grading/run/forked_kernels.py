"""nbgrader's Execute with kernels forked from the job's kernel server, in the grading sandbox.

The kernel server (sandbox_servers/kernel_server.py) has imported torch & co. once; each notebook's
kernel is a fork of it, started with the connection this side chose: IPC sockets in the job's
folder, which is all of the grader's files that the sandbox sees (no TCP port on the host that
another kernel could reach). jupyter_client's provisioner talks to the server to poll the
kernel and to signal it; when the kernel manager is done, the server kills whatever the
notebook left running, and in the sandbox whatever it left on its file systems. Only
`python -m ipykernel_launcher ...` kernels are graded.

A watchdog per kernel (Watchdog) keeps the notebook's time budget, its memory (resident, as the
server measures it: address space is not memory) and what it writes into the one folder of the
grader's the sandbox sees. The server's output comes through a pipe, copied into the job's
kernel-server.log up to LOG_BYTES: the sandbox holds no file of the grader's.
"""
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbgrader.preprocessors import Execute

from autograder.grading.run import sandbox
from autograder.grading.run.limits import kill_group, limiter
from autograder.paths import ROOT
from sandbox_servers import processes
from sandbox_servers.budget import NotebookBudget

KERNEL_FILE_MB = 64  # the largest file a grading kernel may write (RLIMIT_FSIZE)
SHARED_BYTES = 64 * 2**20  # what the kernels may write into the socket folder they share with the grader
SHARED_ENTRIES = 10_000  # ... and how many files and folders (a kernel makes 5 sockets); also bounds one look's work
LOG_BYTES = 2**20  # what the server and its kernels may print into the job's kernel-server.log; the rest is dropped

KERNEL_ENV = {  # what a grading kernel's environment holds, whatever the grader's has
    "LANG": "C.UTF-8",
    "NBGRADER_EXECUTION": "autograde",
    "OMP_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "JPY_SESSION_NAME": "",
}


class KernelServer:
    """The worker's handle on its kernel server (one per grading job, started when the job starts)."""

    def __init__(self):
        self.process = self.channel = self.stream = None
        self.sandboxed, self.ipc_dir, self.budget, self.memory_mb = True, None, None, None
        self.time_left_s = None
        # a pids cgroup only: a memory limit on the whole sandbox would charge it the page cache of what the kernels
        # write into the shared folder, and stall it near the limit (the watchdog keeps the kernels' memory)
        self.cap = sandbox.ProcessCap(controllers=("pids",))
        self.stopped = None  # why the watchdog stopped the last notebook's kernel (the error nbgrader's run ends with)
        self.lock = threading.Lock()  # the budget's watchdog asks from its own thread
        self.shut = False  # the worker is going: no new server (shut_down)

    def configure(self, sandboxed, ipc_dir: Path, budget_s=None, memory_mb=None):
        """Sandboxed or not, the folder shared for the kernels' sockets, the budget of one notebook (seconds,
        sandbox_servers.budget: here on the wall clock, none counts a kernel's CPU time), and the memory its
        processes may hold (resident, in MiB: the watchdog's limit)."""
        self.sandboxed, self.ipc_dir, self.memory_mb = sandboxed, Path(ipc_dir), memory_mb
        self.budget = NotebookBudget(budget_s) if budget_s else None
        self.time_left_s = None  # what is left of the notebook's budget for the next kernel (None: all of it)
        self.shut = False
        self.ipc_dir.mkdir(parents=True, exist_ok=True)

    def env(self):
        home = sandbox.INSIDE if self.sandboxed else {"HOME": os.environ.get("HOME", "/tmp")}
        path = {"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"}
        extra = {} if self.sandboxed else {"PYTHONPATH": str(ROOT)}
        return {**KERNEL_ENV, **home, **path, **extra}

    def start(self):
        """Start the server now (its imports overlap the worker's own start-up), unless it runs."""
        if self.process is not None and self.process.poll() is None:
            return
        self.close()
        if self.shut:
            raise RuntimeError("the grading worker has closed")
        ours, theirs = socket.socketpair()
        if self.sandboxed:
            argv = [sys.executable, "-I", f"{sandbox.CODE}/sandbox_servers/kernel_server.py", sandbox.CODE,
                    "--channel", str(theirs.fileno()), "--pid-namespace", "--judged-outside"]
            command = self.cap.wrap(sandbox.command(argv, self.env(), writable=[str(self.ipc_dir)]))
        else:
            command = [sys.executable, "-I", str(ROOT / "sandbox_servers" / "kernel_server.py"), str(ROOT),
                       "--channel", str(theirs.fileno()), "--notebook-dir", str(self.ipc_dir.parent / "notebook")]
        output, output_end = os.pipe()  # what the kernels print outside the notebook; no file of ours goes in
        try:  # only the channel and this pipe are open in the server (close_fds); no address-space limit (see Watchdog)
            self.process = subprocess.Popen(command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            stdout=output_end, stderr=subprocess.STDOUT, start_new_session=True,
                                            env=self.env(), preexec_fn=limiter())
        except BaseException:
            os.close(output)
            raise
        finally:
            os.close(output_end)
            theirs.close()
        threading.Thread(target=drain, args=(output, self.ipc_dir.parent / "kernel-server.log"), daemon=True).start()
        self.channel, self.stream = ours, ours.makefile("rwb")

    def ask(self, request):
        """The server's reply; RuntimeError when it has gone (a notebook may kill it: it is restarted next time)."""
        with self.lock:
            return self._ask(request)

    def _ask(self, request):
        self.start()
        try:
            self.stream.write(json.dumps(request).encode() + b"\n")
            self.stream.flush()
            line = self.stream.readline()
        except OSError:
            line = b""
        if not line:
            self.close()
            raise RuntimeError("the kernel server stopped")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the kernel server could not do it: {reply['error']}")
        return reply

    def spawn(self, args, connection):
        """The pid (in the server's namespace) of a new kernel running ipykernel with ``args`` on ``connection``."""
        env = {**self.env(), "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
        request = {"op": "fork", "args": list(args), "connection": connection, "env": env, "file_mb": KERNEL_FILE_MB}
        return self.ask(request)["pid"]

    def empty_shared(self):
        """Remove what the last notebook left in the shared folder (its processes have all ended)."""
        if self.ipc_dir:
            processes.empty_folder(self.ipc_dir)

    def shared_usage(self):
        """(bytes, entries) the kernels have put into the folder they share with the grader, its whole tree (no
        link followed); the count stops past SHARED_ENTRIES, so one look costs a bounded time. None when a
        folder there cannot be read (locked: what it holds cannot be counted)."""
        total = count = 0
        folders = [self.ipc_dir]
        while folders and count <= SHARED_ENTRIES:
            try:
                with os.scandir(folders.pop()) as entries:
                    found = [entry for entry, _ in zip(entries, range(SHARED_ENTRIES + 1 - count))]
            except FileNotFoundError:  # removed while we looked
                continue
            except OSError:
                return None
            for entry in found:
                count += 1
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                total += info.st_blocks * 512
                if stat.S_ISDIR(info.st_mode):
                    folders.append(entry.path)
        return total, count

    def replace(self):
        """Stop the server and its sandbox: the next notebook's kernel is forked from a fresh one."""
        with self.lock:
            self.close()

    def shut_down(self):
        """Close for good: the worker is going, and a grading thread Dask could not stop must not start a new server."""
        self.shut = True
        self.close()

    def close(self):
        if self.channel is not None:
            self.stream.close()
            self.channel.close()
        if self.process is not None:
            kill_group(self.process)
            self.process.wait()
        self.cap.remove()
        self.process = self.channel = self.stream = None


def drain(output, log_path, limit=LOG_BYTES):
    """Copy the server's output (the pipe ``output``, until the server and every kernel have closed it) into
    ``log_path``, ``limit`` bytes at most; the rest is read and dropped, so no one waits on a full pipe."""
    with open(output, "rb", buffering=0) as source, open(log_path, "ab") as log:
        room = limit - os.fstat(log.fileno()).st_size
        while chunk := source.read(2**16):
            if 0 < room <= len(chunk):
                chunk = chunk[:room] + b"\n[the log is full: the rest is dropped]\n"
            if room > 0:
                try:
                    log.write(chunk)
                    log.flush()
                except OSError:  # a full disk: drop the rest, but keep the pipe flowing
                    room = 0
            room -= len(chunk)


KERNELS = KernelServer()  # one per worker process


class ServedKernel:
    """The few `subprocess.Popen` methods LocalProvisioner uses, for a kernel the server forked."""

    stdin = stdout = stderr = None

    def __init__(self, server, pid):
        self.server, self.pid, self.returncode = server, pid, None

    def poll(self):
        if self.returncode is None:
            try:
                self.returncode = self.server.ask({"op": "poll", "pid": self.pid})["returncode"]
            except RuntimeError:
                self.returncode = -signal.SIGKILL  # the server has gone, and its kernels with it
        return self.returncode

    def wait(self, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("kernel", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum):
        if self.poll() is None:
            self.server.ask({"op": "signal", "pid": self.pid, "signal": int(signum)})

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        self.send_signal(signal.SIGTERM)


def ipykernel_args(cmd):
    """The arguments after `python -m ipykernel_launcher` in ``cmd`` (without its -f), or None for any other command."""
    if len(cmd) >= 3 and os.path.basename(cmd[0]).startswith("python") and cmd[1:3] == ["-m", "ipykernel_launcher"]:
        args, rest = [], cmd[3:]
        while rest:
            if rest[0] == "-f" and len(rest) > 1:
                rest = rest[2:]
            else:
                args.append(rest.pop(0))
        return args
    return None


class Watchdog(threading.Thread):
    """Stops a kernel that outruns the notebook's budget (on the wall clock), holds more memory than the settings'
    kernel_memory_mb, or fills the shared socket folder; each check every POLL_S.

    Memory is what the server counts (kernel_server.Server.memory): resident memory, not address
    space, so PyTorch's CUDA build (which maps 3-5 GB at import) runs; a polled limit, so a notebook
    that fills memory as fast as it can is stopped up to about POLL_S of its writing later.
    The sandbox's own /tmp is capped; the one folder of the grader's it can write into (where
    the kernels' IPC sockets live) is watched here against SHARED_BYTES and SHARED_ENTRIES.
    """

    POLL_S = 0.2

    def __init__(self, process, server):
        super().__init__(daemon=True)
        self.process, self.server, self.stopped = process, server, threading.Event()
        budget = server.budget
        if budget is not None and server.time_left_s is not None:
            budget = NotebookBudget(server.time_left_s)  # what the judge's run left of it
        self.deadline = budget.deadline(time.monotonic()) if budget is not None else None
        self.start()

    def run(self):
        while not self.stopped.wait(self.POLL_S):
            over = self.over_time() or self.over_shared() or self.over_memory()
            if over:
                self.halt(*over)
                return

    def over_time(self):
        """(why, error) once the notebook is past its budget, else None (the other checks alike)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            budget = self.server.budget
            return (f"the notebook ran past its time budget of {budget.seconds} s",
                    f"TimeoutError: {budget.out_of_time()}")
        return None

    def over_shared(self):
        usage = self.server.shared_usage()
        error = "OSError: the notebook wrote too much into the grader's kernel folder and was stopped"
        if usage is None:
            return "the notebook made a folder in its socket folder that cannot be read", error
        written, entries = usage
        if written > SHARED_BYTES:
            return f"the notebook wrote {written >> 20} MiB (more than {SHARED_BYTES >> 20}) in its socket folder", error
        if entries > SHARED_ENTRIES:
            return f"the notebook made more than {SHARED_ENTRIES} files and folders in its socket folder", error
        return None

    def over_memory(self):
        limit_mb = self.server.memory_mb
        if not limit_mb:
            return None
        try:
            used = self.server.ask({"op": "memory", "limit": limit_mb * 2**20})["bytes"]
        except RuntimeError as error:  # the server has gone (and the kernel with it), or failed: say so, go on
            print(f"  memory watch: {error}", flush=True)
            return None
        if used > limit_mb * 2**20:
            return (f"the notebook used {used >> 20} MiB of memory (more than {limit_mb})",
                    f"MemoryError: the notebook used more than {limit_mb} MiB of memory and was stopped")
        return None

    def halt(self, why, error):
        """Log ``why``, note ``error`` as the reason nbgrader's run ended, and kill the kernel."""
        print(f"  {why}: its kernel is stopped", flush=True)
        self.server.stopped = error
        try:
            self.process.kill()
        except RuntimeError:
            pass

    def stop(self):
        self.stopped.set()


class ServedProvisioner(LocalProvisioner):
    async def launch_kernel(self, cmd, **kwargs):
        args = ipykernel_args(cmd)
        if args is None:
            raise RuntimeError(f"only IPython kernels (python -m ipykernel_launcher) are graded, not {cmd[:3]}")
        connection = Path(self.parent.connection_file).read_text(encoding="utf-8")
        pid = KERNELS.spawn(args, connection)
        self.process, self.pid, self.pgid = ServedKernel(KERNELS, pid), pid, None
        self.watchdog = Watchdog(self.process, KERNELS)
        return self.connection_info

    async def send_signal(self, signum):
        if self.process:
            self.process.send_signal(signum)

    async def cleanup(self, restart=False):
        if getattr(self, "watchdog", None) is not None:
            self.watchdog.stop()
        try:
            intact = KERNELS.ask({"op": "cleanup"})["intact"]
        except RuntimeError:  # the server has gone (a fresh one is started for the next kernel)
            intact = True
        KERNELS.empty_shared()
        if not intact:
            print("  the notebook changed its sandbox beyond cleaning up: the next kernel gets a fresh one", flush=True)
            KERNELS.replace()
        await super().cleanup(restart)


class ForkedKernelManager(AsyncKernelManager):
    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
            self.transport, self.ip = "ipc", str(KERNELS.ipc_dir / f"k{self.kernel_id[:8]}")
            self.provisioner = ServedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)


class ForkedExecute(Execute):
    """nbgrader's Execute (same configuration section), with ForkedKernelManager."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", ForkedKernelManager)
        super().__init__(*args, **kwargs)
