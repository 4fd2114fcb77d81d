"""The kernel server: forks one IPython kernel per notebook, with torch & co. imported once.

    python -I kernel_server.py CODE_ROOT --channel FD [--notebook-dir DIR] [--pid-namespace] [--judged-outside]

Run by the grader (autograder/grading/forked_kernels.py), inside the grading sandbox. A
fresh kernel costs ~0.6 s to start, ~2 s for the notebook's `import torch` and ~1.4 s for
the first meta-device tensor; the server pays that once, and each kernel is a fork of it
that starts IPKernelApp with the connection the grader sends (IPC sockets in a folder the
grader shares with the sandbox). The server never runs a learner's code itself, so every
kernel starts from the same pristine state. Requests (JSON lines on the channel):

    {"op": "fork", "args", "connection", "env"}  -> {"pid"}
    {"op": "poll", "pid"}                        -> {"returncode": int or null}
    {"op": "signal", "pid", "signal"}            -> {}
    {"op": "cleanup"}                            -> {}   every process but this one killed, the notebook's folder emptied

With --judged-outside, `autograder.checks.check` in a kernel only says that the grader
judges the cell outside the notebook: the checks and the reference are not in the sandbox.
"""
import json
import os
import shutil
import socket
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
        channel.close()
        os.setsid()  # its own session and process group
        from learner_kit import processes

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
        os.environ.update(request["env"])
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


class Server:
    def __init__(self, channel, pid_namespace):
        self.channel, self.pid_namespace, self.kernels = channel, pid_namespace, set()

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

    def cleanup(self, request):
        """Everything the last notebook left: its processes (all but this one, in a sandbox) and its files."""
        from learner_kit import processes

        for pid in self.kernels:
            processes.kill_session(pid)
        if self.pid_namespace:  # every other process in this pid namespace is a notebook's
            self.kernels -= processes.kill_all_others().keys()
        deadline = time.monotonic() + 5
        while self.kernels and time.monotonic() < deadline:
            self.kernels -= processes.reap().keys()
            time.sleep(0.002)
        shutil.rmtree(NOTEBOOK_DIR, ignore_errors=True)
        return {}

    def serve(self):
        stream = self.channel.makefile("rwb")
        handlers = {"fork": self.fork, "poll": self.poll, "signal": self.signal, "cleanup": self.cleanup}
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
    from learner_kit import processes  # here: the sandbox's code is on the path only now

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
