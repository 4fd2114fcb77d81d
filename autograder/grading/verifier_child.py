"""Out-of-kernel checks of submitted notebooks: a plain-Python process, never imported by the grader.

    python -I verifier_child.py REPOSITORY_ROOT        (started by verify.Verifier)

It imports torch once, then serves requests read from stdin (one JSON line each) by forking
a child per notebook: the child drops its links to this server, takes its resource limits
and a new session, and executes, in the source notebook's order and into one namespace, a
standard preamble, the source's own cells (provided code, set-up, test cells) and, in place
of each answer cell, the learner's answer cell with the same grade_id. Each graded test
cell's outcome goes to the request's report file as a JSON line with the request's token.
This server answers with the child's pid, then its wait status. No IPython runs here, so
input transformers, shell hooks and the like have nothing to act on; replaced library
functions are detected (tampering). The grader trusts nothing it does not validate.
"""
import json
import os
import signal
import sys
import traceback

PREAMBLE = "import math\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
# Run once by the server, before any learner's code exists: what notebooks and checks load
# lazily (plotting, the checks, torch's meta-device kernels), so each child starts warm.
WARM_UP = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot
torch.set_num_threads(1)
x = torch.ones(2, 3, 4, device="meta")
torch.softmax((x @ x.transpose(-2, -1)).masked_fill(x[..., :3] > 0, -1e9), dim=-1)
import autograder.checks
import learner_kit.visible
"""
# (module, class or None): whose attributes a cheat could replace (e.g. torch.allclose).
WATCHED = (
    ("builtins", None), ("math", None), ("numpy", None), ("torch", None), ("torch.nn.functional", None),
    ("torch.testing", None), ("torch", "Tensor"), ("torch._C", "TensorBase"), ("torch.nn", "Module"),
)
# The grader's own packages: their functions and classes must stay as they are (a notebook
# that replaces `check` must not pass), and answer cells may not import them at all.
OWN_PACKAGES = ("autograder", "learner_kit")
MISSING = object()
REPORT_FD = 3
LIBRARY_DIRS = ()  # set by main(): where torch, numpy and the standard library live


class CellTimeout(BaseException):
    """A cell ran past its time limit (a BaseException, so `except Exception` does not swallow it)."""


def _on_alarm(signum, frame):
    raise CellTimeout()


def watched_objects():
    """{(owner's name, attribute): (owner, object)} for everything in WATCHED."""
    import importlib

    found = {}
    for module_name, class_name in WATCHED:
        owner = importlib.import_module(module_name)
        label = module_name
        if class_name:
            owner, label = getattr(owner, class_name), f"{module_name}.{class_name}"
        for name, value in list(vars(owner).items()):
            if class_name or module_name == "builtins" or not name.startswith("_"):
                found[(label, name)] = (owner, value)
    for module_name, module in list(sys.modules.items()):
        if module is not None and module_name.split(".")[0] in OWN_PACKAGES:
            for name, value in list(vars(module).items()):
                if callable(value) or isinstance(value, type(sys)):  # code and submodules, not data or caches
                    found[(module_name, name)] = (module, value)
    return found


class OwnPackagesHidden:
    """While an answer cell runs: the grader's packages are out of sys.modules and cannot be imported."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in OWN_PACKAGES:
            raise ImportError(f"answer cells may not import {name}")
        return None

    def __enter__(self):
        self.hidden = {n: m for n, m in sys.modules.items() if n.split(".")[0] in OWN_PACKAGES}
        for name in self.hidden:
            del sys.modules[name]
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc):
        sys.meta_path.remove(self)
        sys.modules.update(self.hidden)
        return False


def library_dirs():
    import sysconfig

    import numpy
    import torch

    return tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, numpy)) + (sysconfig.get_paths()["stdlib"] + os.sep,)


def trusted_swap(old, new):
    """True when a library swapped one of its own Python functions for another of its own
    (torch does so lazily: importing torch._dynamo wraps torch.manual_seed)."""
    old_code, new_code = getattr(old, "__code__", None), getattr(new, "__code__", None)
    if old_code is None or new_code is None:
        return False
    return str(new_code.co_filename).startswith(LIBRARY_DIRS)


def replaced(snapshot):
    """Names a notebook replaced since ``snapshot``, after putting the originals back."""
    changed = []
    for (dotted, name), (owner, value) in snapshot.items():
        now = vars(owner).get(name, MISSING)
        if now is not value and not trusted_swap(value, now):
            changed.append(f"{dotted}.{name}")
            try:
                setattr(owner, name, value)
            except (AttributeError, TypeError):
                pass
    return changed


def without_magics(source):
    """The cell with IPython magic and shell lines (% ..., ! ...) turned into `pass`."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass" if stripped[:1] in ("%", "!") else line)
    return "\n".join(lines)


def compiled(source, label):
    try:
        return compile(source, label, "exec")
    except SyntaxError:
        return compile(without_magics(source), label, "exec")


def run_cell(code_source, label, namespace, timeout):
    """None when the cell ran, else the message of what it raised."""
    signal.alarm(timeout)
    try:
        exec(compiled(code_source, label), namespace)
        return None
    except CellTimeout:
        return f"TimeoutError: the cell ran longer than {timeout} s"
    except BaseException as error:  # learners' code may raise anything, SystemExit included
        return "".join(traceback.format_exception_only(type(error), error)).strip() or type(error).__name__
    finally:
        signal.alarm(0)


def check_notebook(payload, descriptor, token):
    """Run the payload's cells and report each graded cell (in the forked child)."""

    def report(grade_id, passed, message):
        line = json.dumps({"token": token, "grade_id": grade_id, "passed": passed, "message": message})
        os.write(descriptor, line.encode("utf-8") + b"\n")

    signal.signal(signal.SIGALRM, _on_alarm)
    timeout = int(payload["cell_timeout"])
    namespace = {"__name__": "__main__"}
    exec(PREAMBLE, namespace)
    snapshot = watched_objects()
    tampered, broken = [], {}  # broken: {unit: what its answer cell raised}
    for number, cell in enumerate(payload["cells"]):
        label = f"<cell {number}: {cell['kind']} {cell.get('grade_id') or ''}>"
        if cell["kind"] == "answer" and not tampered:
            with OwnPackagesHidden():
                failure = run_cell(cell["source"], label, namespace, timeout)
            if failure and "may not import" in failure:
                tampered.append(f"imported the grader in an answer cell ({failure.splitlines()[-1]})")
        else:
            failure = run_cell(cell["source"], label, namespace, timeout) if not tampered else None
        tampered += [f"replaced {name}" for name in replaced(snapshot)]
        if cell["kind"] == "answer" and failure:
            broken[cell["grade_id"]] = failure.splitlines()[-1]
        if cell["kind"] == "test":
            unit = cell["grade_id"].split("-")[0]
            if tampered:
                failure = f"[tampering] The notebook {', '.join(tampered[:3])}; no test can be trusted."
            elif failure and unit in broken:
                failure += f" (the answer cell of {unit} stopped with {broken[unit]})"
            report(cell["grade_id"], failure is None, failure or "")
    os.write(descriptor, json.dumps({"token": token, "done": True}).encode("utf-8") + b"\n")


def become_child(request):
    """In the forked child: cut every link to the server, take the limits, run the notebook, exit."""
    import resource

    try:
        os.setsid()
        megabytes = 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (request["memory_mb"] * megabytes,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (request["cpu_s"], request["cpu_s"] + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * megabytes,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        null = os.open(os.devnull, os.O_RDWR)
        errors = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(errors, 2)
        os.dup2(os.open(request["report"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), REPORT_FD)
        os.closerange(REPORT_FD + 1, 1 << 16)  # the server's pipes and anything else it held
        os.chdir(request["cwd"])
        with open(request["payload"], encoding="utf-8") as handle:
            payload = json.load(handle)
        check_notebook(payload, REPORT_FD, request["token"])
        sys.stdout.flush()
        os._exit(0)  # skip interpreter teardown: nothing in the namespace gets to run at exit
    finally:
        os._exit(70)


def main():
    global LIBRARY_DIRS
    sys.path.insert(0, sys.argv[1])  # this checkout's autograder and learner_kit, whatever is installed
    namespace = {}
    exec(PREAMBLE, namespace)  # what every child needs, imported once
    try:
        exec(WARM_UP, namespace)
    except Exception:  # only speed is lost
        pass
    LIBRARY_DIRS = library_dirs()
    watched_objects()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            become_child(request)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": status}), flush=True)


if __name__ == "__main__":
    main()
