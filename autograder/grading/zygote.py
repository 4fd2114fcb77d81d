"""A fork server for grading kernels: one process per job that has imported torch & co. once.

    python -m autograder.grading.zygote FD     (started by Zygote, the worker's side)

A fresh kernel costs ~0.6 s to start, ~2 s for the notebook's `import torch`, and ~1.4 s for
the first tensor on the meta device (the checks use it; it imports torch._dynamo). The
zygote pays that once; each kernel is then a fork of it that starts IPKernelApp with the
kernel manager's connection file, arguments, working directory and environment. The zygote
never runs a learner's code, so every kernel starts from the same pristine state, in its
own process, as a fresh one would.

Each kernel is forked through a short-lived middle process, so that it is reparented to the
worker (a child subreaper): the kernel manager then owns it as if it had launched it itself
(waitpid, signals to its session, `os.getppid()` is the grading process).
"""
import ctypes
import json
import os
import socket
import subprocess
import sys
import threading
import time

# Imported before forking: what the notebooks and their checks import (the rest they import themselves).
PRELOAD = ["numpy", "torch", "torch.nn.functional", "torch._dynamo", "matplotlib.pyplot", "ipykernel.kernelapp",
           "learner_kit.plotting", "learner_kit.visible", "autograder.checks"]
PR_SET_CHILD_SUBREAPER = 36


# -- the zygote process ---------------------------------------------------------------------


def preload():
    # What ipykernel would set before the notebook imports matplotlib (the inline backend).
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for module in PRELOAD:
        try:
            __import__(module)
        except Exception as error:  # a missing course package only costs its import time later
            print(f"zygote: could not preload {module}: {error}", file=sys.stderr, flush=True)
    import torch

    torch.zeros(1, device="meta") + 1  # noqa: B018 -- the first meta-device op imports torch._dynamo's machinery


def become_kernel(request, channel):
    """In the forked kernel: wait to be adopted by the worker, then run IPKernelApp as `python -m ipykernel_launcher` would."""
    channel.close()
    os.setsid()  # its own session and process group, which the kernel manager signals
    deadline = time.monotonic() + 10
    while os.getppid() != request["parent"]:
        if time.monotonic() > deadline:
            os._exit(70)
        time.sleep(0.001)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # parent_handle's default was read from the zygote's environment: the kernel watches the worker.
    sys.argv = ["ipykernel_launcher", *request["args"], f"--IPKernelApp.parent_handle={request['parent']}"]
    sys.path[0] = request["cwd"]  # as for `python -m` there (IPython puts '' first again)
    import random

    import numpy

    random.seed()  # a fresh process seeds these from the OS
    numpy.random.seed()
    code = 0
    try:
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        import atexit

        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def fork_kernel(request, channel):
    """Fork a kernel through a middle process that exits at once; the kernel's pid."""
    if threading.active_count() > 1:
        raise RuntimeError("the zygote started a thread: forking it is unsafe")
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(read_end)
        kernel = os.fork()
        if kernel == 0:
            os.close(write_end)
            become_kernel(request, channel)
        os.write(write_end, str(kernel).encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(middle, 0)  # once it is gone, the kernel belongs to the worker
    with os.fdopen(read_end, "rb") as pipe:
        return int(pipe.read())


def serve(fd):
    channel = socket.socket(fileno=fd)
    preload()
    stream = channel.makefile("rwb")
    for line in stream:  # until the worker closes its end (or dies)
        try:
            reply = {"pid": fork_kernel(json.loads(line), channel)}
        except Exception as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        stream.write(json.dumps(reply).encode() + b"\n")
        stream.flush()


# -- the worker's side ----------------------------------------------------------------------


def become_subreaper():
    """Make orphaned descendants of this process its children (Linux); False where that is not possible."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class Zygote:
    """The worker's handle on its fork server (each kernel gets its own environment at the fork)."""

    def __init__(self):
        self.process = self.channel = self.stream = None

    def _start(self, env):
        self.close()
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen([sys.executable, "-m", "autograder.grading.zygote", str(theirs.fileno())],
                                        env=env, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
        theirs.close()
        self.channel, self.stream = ours, ours.makefile("rwb")

    def start(self, env):
        """Start the fork server now (its imports overlap the worker's own start-up), unless it runs."""
        if self.process is None or self.process.poll() is not None:
            self._start(env)

    def spawn(self, args, cwd, env):
        """The pid of a new kernel (a child of this process) running ipykernel with ``args`` in ``cwd`` with ``env``."""
        self.start(env)
        env = {**env, "JPY_PARENT_PID": str(os.getpid())}  # as jupyter_client's launcher sets it
        request = {"args": list(args), "cwd": str(cwd), "env": env, "parent": os.getpid()}
        self.stream.write(json.dumps(request).encode() + b"\n")
        self.stream.flush()
        line = self.stream.readline()
        if not line:
            self.close()
            raise RuntimeError("the kernel fork server stopped")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the kernel fork server could not fork: {reply['error']}")
        return reply["pid"]

    def close(self):
        if self.channel is not None:
            self.stream.close()
            self.channel.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = self.channel = self.stream = None


if __name__ == "__main__":
    serve(int(sys.argv[1]))
