"""nbgrader's Execute with kernels forked from the job's kernel server, in the grading sandbox.

The kernel server (learner_kit/kernel_server.py) has imported torch & co. once; each notebook's
kernel is a fork of it, started with the connection this side chose: IPC sockets in the job's
folder, which is all of the grader's files that the sandbox sees (no TCP port on the host that
another kernel could reach). jupyter_client's provisioner talks to the server to poll the
kernel and to signal it; when the kernel manager is done, the server kills whatever the
notebook left running. Only `python -m ipykernel_launcher ...` kernels are graded.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbgrader.preprocessors import Execute

from autograder.grading import sandbox
from autograder.grading.limits import kill_group
from autograder.paths import ROOT

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
        self.sandboxed, self.ipc_dir, self.budget_s = True, None, None
        self.cap = sandbox.ProcessCap()
        self.over_budget = False  # set when a kernel is stopped for its budget; the worker reads and resets it
        self.lock = threading.Lock()  # the budget's watchdog asks from its own thread

    def configure(self, sandboxed, ipc_dir: Path, budget_s=None):
        """Sandboxed or not, the folder shared for the kernels' sockets, and the wall-clock budget of one notebook."""
        self.sandboxed, self.ipc_dir, self.budget_s = sandboxed, Path(ipc_dir), budget_s
        self.ipc_dir.mkdir(parents=True, exist_ok=True)

    def env(self):
        home = {"HOME": "/tmp", "TMPDIR": "/tmp"} if self.sandboxed else {"HOME": os.environ.get("HOME", "/tmp")}
        path = {"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"}
        extra = {} if self.sandboxed else {"PYTHONPATH": str(ROOT)}
        return {**KERNEL_ENV, **home, **path, **extra}

    def start(self):
        """Start the server now (its imports overlap the worker's own start-up), unless it runs."""
        if self.process is not None and self.process.poll() is None:
            return
        self.close()
        ours, theirs = socket.socketpair()
        if self.sandboxed:
            argv = [sys.executable, "-I", f"{sandbox.CODE}/learner_kit/kernel_server.py", sandbox.CODE,
                    "--channel", str(theirs.fileno()), "--pid-namespace", "--judged-outside"]
            command = self.cap.wrap(sandbox.command(argv, self.env(), writable=[str(self.ipc_dir)]))
        else:
            command = [sys.executable, "-I", str(ROOT / "learner_kit" / "kernel_server.py"), str(ROOT),
                       "--channel", str(theirs.fileno()), "--notebook-dir", str(self.ipc_dir.parent / "notebook")]
        self.process = subprocess.Popen(command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                        start_new_session=True, env=self.env())
        theirs.close()
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
        return self.ask({"op": "fork", "args": list(args), "connection": connection, "env": env})["pid"]

    def close(self):
        if self.channel is not None:
            self.stream.close()
            self.channel.close()
        if self.process is not None:
            kill_group(self.process)
            self.process.wait()
        self.cap.remove()
        self.process = self.channel = self.stream = None


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


class ServedProvisioner(LocalProvisioner):
    async def launch_kernel(self, cmd, **kwargs):
        args = ipykernel_args(cmd)
        if args is None:
            raise RuntimeError(f"only IPython kernels (python -m ipykernel_launcher) are graded, not {cmd[:3]}")
        connection = Path(self.parent.connection_file).read_text(encoding="utf-8")
        pid = KERNELS.spawn(args, connection)
        self.process, self.pid, self.pgid = ServedKernel(KERNELS, pid), pid, None
        self.watchdog = None
        if KERNELS.budget_s:  # the whole notebook, added cells included, runs within the budget
            self.watchdog = threading.Timer(KERNELS.budget_s, self._over_budget, args=(self.process,))
            self.watchdog.daemon = True
            self.watchdog.start()
        return self.connection_info

    def _over_budget(self, process):
        print(f"  the notebook ran past its time budget of {KERNELS.budget_s} s: its kernel is stopped", flush=True)
        KERNELS.over_budget = True
        try:
            process.kill()
        except RuntimeError:
            pass

    async def send_signal(self, signum):
        if self.process:
            self.process.send_signal(signum)

    async def cleanup(self, restart=False):
        if getattr(self, "watchdog", None) is not None:
            self.watchdog.cancel()
        try:
            KERNELS.ask({"op": "cleanup"})
        except RuntimeError:
            pass
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
