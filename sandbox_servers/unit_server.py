"""The unit server: runs a learner's notebook code and answers the grader's questions about it.

    python -I unit_server.py CODE_ROOT --control FD [--pid-namespace]      (started by the grader's judge)

It runs beside the learner's code, inside the grading sandbox, and decides nothing: the
grader (autograder/grading/run/judge.py) sends it inputs, it runs the learner's unit on them
and sends back what came out (results, errors, gradients). The reference, the hidden tests
and the scores stay with the grader, out of reach.

It imports torch once, then serves notebooks one at a time, each in a forked child:

    fd 0  requests (frames, sandbox_servers.wire)   fd 1  replies   --control FD: b"k" kills the child

For a notebook request the server replies {"started": pid}; the child then runs the cells
it was sent (provided code, the learner's answer cells, the definitions of ordinary cells),
replies {"loaded": ...} and answers "describe", "run_case" and "call" requests until "end".
When the child is gone (ended, killed, crashed), the server kills whatever it left running
and replies {"exited": status}. The server never runs a learner's code itself.
"""
import ast
import contextlib
import json
import linecache
import os
import resource
import select
import shutil
import signal
import sys
import time
import traceback

PREAMBLE = "import math\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
# Run once by the server, before any learner's code exists: what notebooks load lazily
# (plotting, torch's meta-device kernels), so that each child starts warm.
WARM_UP = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot
torch.set_num_threads(1)
x = torch.ones(2, 3, 4, device="meta")
torch.softmax((x @ x.transpose(-2, -1)).masked_fill(x[..., :3] > 0, -1e9), dim=-1)
import learner_kit.harness, learner_kit.plotting, learner_kit.stand_ins, learner_kit.visible, learner_kit.watch
learner_kit.visible.preload()  # the fingerprints a visible test cell compares with, read once for every child
import torch._dynamo  # some torch functions import it on first call, under the checks' watch: seconds of a budget
import IPython.core.display_functions, IPython.display
"""
REQUESTS, REPLIES = 0, 1
MB = 1024 * 1024
SANDBOX_TMP = "/tmp"  # the sandbox's own /tmp (its HOME too), emptied between notebooks
SANDBOX_SHARED = ("/dev/shm", "/dev/mqueue")  # the sandbox's own shared memory and POSIX queues, emptied too
POLL_S = 0.05  # how often the server looks at its child: ended, to be killed, over its memory


class CellOutOfTime(BaseException):
    """A cell ran past its own time limit (--timeout: SIGALRM, not the notebook's budget; a BaseException, so
    `except Exception` does not swallow it; learner_kit.progress.ProgressCellTimedOut is the learner's own)."""


def _on_alarm(signum, frame):
    raise CellOutOfTime()


def without_magics(source):
    """The cell with IPython magic and shell lines (% ..., ! ...) turned into `pass`."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass" if stripped[:1] in ("%", "!") else line)
    return "\n".join(lines)


MAX_OUTPUT_CHARS = 8000  # of what one cell prints and shows (sandbox_servers.wire's strings hold 10,000)
MAX_IMAGES, MAX_IMAGE_BYTES = 8, 1 << 20  # the figures one cell shows


class CellOutputs:
    """What one cell printed (stdout, stderr) and showed (its last expression's value, display(), its figures),
    as notebook outputs in order: {"type": "stream", "name", "text"}, {"type": "result" or "html", "text"},
    {"type": "png", "data": uint8 tensor}, {"type": "error", "ename", "evalue"}; at most MAX_OUTPUT_CHARS of
    text (then a note that the rest was cut) and MAX_IMAGES images of MAX_IMAGE_BYTES."""

    def __init__(self):
        self.outputs, self.left, self.images = [], MAX_OUTPUT_CHARS, 0

    def add(self, kind, text, **fields):
        text = str(text)
        if self.left <= 0:
            return
        if len(text) > self.left:
            text = text[: self.left] + "\n[... the rest of this cell's output was cut]\n"
        self.left -= len(text)
        last = self.outputs[-1] if self.outputs else None
        if kind == "stream" and last and last["type"] == "stream" and last["name"] == fields["name"]:
            last["text"] += text
        else:
            self.outputs.append({"type": kind, "text": text, **fields})

    def add_png(self, data):
        import torch

        if isinstance(data, bytes) and len(data) <= MAX_IMAGE_BYTES and self.images < MAX_IMAGES:
            self.images += 1
            self.outputs.append({"type": "png", "text": "", "data": torch.frombuffer(bytearray(data), dtype=torch.uint8)})


SHOWING = None  # the running cell's CellOutputs, where display() and the figures go


def display(*objects, **kwargs):
    """IPython's display() in the notebook's process: HTML, PNG or the text of each object, into the cell's outputs."""
    for obj in objects:
        if SHOWING is None:
            return
        for method, kind in (("_repr_png_", "png"), ("_repr_html_", "html")):
            try:
                shown = getattr(obj, method)() if callable(getattr(obj, method, None)) else None
            except Exception:  # the learner's object may raise anything
                shown = None
            if isinstance(shown, bytes) and kind == "png":
                SHOWING.add_png(shown)
                break
            if isinstance(shown, str) and kind == "html":
                SHOWING.add("html", shown)
                break
        else:
            SHOWING.add("result", repr(obj)[:MAX_OUTPUT_CHARS])


def show_figures():
    """The open matplotlib figures into the cell's outputs as PNG, then closed (as a notebook's inline backend does)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None or SHOWING is None:
        return
    import io

    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        try:
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", bbox_inches="tight")
            SHOWING.add_png(buffer.getvalue())
        except Exception:  # the learner's figure may fail to draw
            pass
        pyplot.close(figure)


def install_display():
    """display() and plt.show() as in a notebook, before any learner's code runs."""
    import matplotlib.pyplot

    matplotlib.pyplot.show = lambda *args, **kwargs: None  # figures are shown when the cell ends
    try:
        import IPython.core.display_functions
        import IPython.display

        IPython.core.display_functions.display = IPython.display.display = display
    except ImportError:
        pass


class _Stream:
    """sys.stdout or sys.stderr while a cell runs: its text goes to the cell's outputs."""

    def __init__(self, outputs, name):
        self.outputs, self.name = outputs, name

    def write(self, text):
        self.outputs.add("stream", text, name=self.name)
        return len(text) if isinstance(text, str) else 0

    def flush(self):
        pass

    def isatty(self):
        return False


def compiled(source, label):
    """(the cell's code, its last line's expression to show or None), as Jupyter runs a cell."""
    try:
        tree = ast.parse(source, label)
    except SyntaxError:
        tree = ast.parse(without_magics(source), label)
    shown = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = compile(tree, label, "exec")
    return body, (compile(ast.Expression(shown.value), label, "eval") if shown is not None else None)


def run_cell(source, label, namespace, timeout, outputs=None, whole=False):
    """None when the cell ran, else the last line of what it raised (with ``whole``, an assertion's whole message, as
    the notebook shows it); what it printed and showed goes into ``outputs`` (a CellOutputs) where one is given, and
    nowhere else."""
    signal.alarm(max(1, int(timeout)))
    linecache.cache[label] = (len(source), None, source.splitlines(True), label)  # so that errors can quote a line
    global SHOWING
    saved = sys.stdout, sys.stderr
    if outputs is not None:
        sys.stdout, sys.stderr, SHOWING = _Stream(outputs, "stdout"), _Stream(outputs, "stderr"), outputs
    try:
        body, shown = compiled(source, label)
        exec(body, namespace)
        if shown is not None:
            value = eval(shown, namespace)
            if value is not None and outputs is not None:
                display(value)
        show_figures()
        return None
    except CellOutOfTime:
        failure = f"TimeoutError: the cell ran longer than {timeout} s"
    except BaseException as error:  # learners' code may raise anything, SystemExit included
        text = "".join(traceback.format_exception_only(type(error), error)).strip() or type(error).__name__
        failure = text.splitlines()[-1][:500]
        if whole and isinstance(error, AssertionError) and str(error).strip():
            failure = str(error).strip()[:4000]
    finally:
        signal.alarm(0)
        sys.stdout, sys.stderr = saved
        SHOWING = None
    if outputs is not None:
        name, _, value = failure.partition(": ")
        outputs.add("error", value, ename=name[:200])
    return failure


# ---------------------------------------------------------------- free-form test cells
# A graded cell that is not a call of the checks is run here, in the learner's process (the
# grader decides every other cell outside). Replacing what such a cell relies on is seen.
WATCHED = (
    ("builtins", None), ("math", None), ("numpy", None), ("torch", None), ("torch.nn.functional", None),
    ("torch.testing", None), ("torch", "Tensor"), ("torch._C", "TensorBase"), ("torch.nn", "Module"),
)
LIBRARY_DIRS = ()  # set by main(): where torch, numpy and the standard library live


def watched_objects():
    """{(owner's name, attribute): (owner, object)} for everything in WATCHED and the course's own modules."""
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
        if module is not None and module_name.split(".")[0] in ("learner_kit", "sandbox_servers"):
            for name, value in list(vars(module).items()):
                if callable(value) or isinstance(value, type(sys)):
                    found[(module_name, name)] = (module, value)
    return found


def replaced(snapshot):
    """Names replaced since ``snapshot`` (a library swapping its own functions excepted), put back."""
    changed = []
    for (dotted, name), (owner, value) in snapshot.items():
        now = vars(owner).get(name, _MISSING)
        if now is value:
            continue
        old_code, new_code = getattr(value, "__code__", None), getattr(now, "__code__", None)
        if old_code is not None and new_code is not None and str(new_code.co_filename).startswith(LIBRARY_DIRS):
            continue  # torch wraps some of its own functions lazily
        changed.append(f"{dotted}.{name}")
        try:
            setattr(owner, name, value)
        except (AttributeError, TypeError):
            pass
    return changed


# ---------------------------------------------------------------- the child: one notebook


class Child:
    def __init__(self, requests, replies, wire):
        self.requests, self.replies, self.wire = requests, replies, wire
        self.namespace = {"__name__": "__main__"}
        self.tampered = []
        self.instances = []  # the modules built by run_case, by number: probes run on them later

    def reply(self, message):
        try:
            payload = self.wire.encode_reply(message)
        except (TypeError, self.wire.ChannelClosed) as refused:  # a result a reply cannot carry (a complex tensor...)
            payload = self.wire.encode_reply({"seq": message.get("seq"), "unsendable": str(refused)[:300]})
        self.wire.write_frame(self.replies, payload)

    def start(self, timeout):
        exec(PREAMBLE, self.namespace)
        install_display()
        self.snapshot, self.timeout = watched_objects(), timeout

    def run_cells(self, request):
        failures, outputs = self.load(request["cells"])
        return {"answer_failures": failures, "outputs": outputs}

    def load(self, cells):
        """Run cells in order: ({grade_id: what stopped it} for the answer cells that failed, [[key, outputs]]
        for the cells sent with a "key": what each printed and showed, for the graded notebook)."""
        timeout = self.timeout
        failures, shown = {}, []
        for number, cell in enumerate(cells):
            label = f"<cell {number}: {cell['kind']} {cell.get('grade_id') or ''}>"
            outputs = CellOutputs() if "key" in cell else None
            failure = run_cell(cell["source"], label, self.namespace, timeout, outputs)
            self.tampered += replaced(self.snapshot)
            if failure and cell["kind"] == "answer":
                failures[cell["grade_id"]] = failure
            if outputs is not None:
                shown.append([cell["key"], outputs.outputs])
        return failures, shown

    def test_cell(self, request):
        """A free-form graded cell, run in the notebook's namespace: passed, or the message of what it raised. A
        visible cell's own checks come with the unit whose stored cases the judge has just found right, so that
        the cell's check_visible does not run them a second time."""
        from learner_kit import visible

        passed = request.get("stored_cases_passed")
        visible.STORED_CASES_PASSED.clear()
        visible.STORED_CASES_PASSED.update([passed] if isinstance(passed, str) else [])
        try:
            failure = None if self.tampered else run_cell(request["source"], "<test cell>", self.namespace,
                                                          self.timeout, whole=request.get("whole") is True)
        finally:
            visible.STORED_CASES_PASSED.clear()
        self.tampered += replaced(self.snapshot)
        if self.tampered:
            failure = f"[tampering] The notebook replaced {', '.join(self.tampered[:3])}; no test can be trusted."
        return {"passed": failure is None, "message": failure or "", "tampered": bool(self.tampered)}

    def unit(self, name):
        return self.namespace.get(name, _MISSING)

    def describe(self, request):
        from learner_kit import harness

        unit = self.unit(request["name"])
        return {"kind": {"kind": "missing", "type": ""} if unit is _MISSING else harness.describe_kind(unit)}

    def watch(self, request):
        from learner_kit import watch

        if not request.get("watched", True):
            return None
        return watch.Watch(watch.by_name(request.get("forbidden", ())))

    def run_case(self, request):
        """harness.run() of the unit on the request's case, as plain data."""
        from learner_kit import harness, watch

        guard = self.watch(request)
        outcome = harness.run(self.unit(request["name"]), request["call"], request["case"], guard=guard,
                              backprop=request.get("backprop"), trace=request.get("trace") is True)
        found = guard.found if guard is not None else None
        if found is None and request.get("modules"):
            classes = [c for c in (_resolved(n) for n in request["modules"]) if isinstance(c, type)]
            found = watch.forbidden_submodule(outcome.instance, classes)
        inputs = outcome.inputs or {}
        reply = {
            "outputs": {n: _plain_tensor(t) for n, t in outcome.outputs.items()} if outcome.outputs is not None else None,
            "error": self.wire.error_info(outcome.error) if outcome.error is not None else None,
            "problem": outcome.problem, "modified": list(outcome.modified), "weight_problems": list(outcome.weight_problems),
            "input_grads": {n: _plain_tensor(v.grad) for n, v in inputs.items()
                            if hasattr(v, "requires_grad") and getattr(v, "requires_grad", False)},
            "param_grads": None, "backprop_failure": outcome.backprop_failure,
            "found": list(found) if found else None,
            # replies carry CPU tensors only (a GPU's are copied): where each output was, for the device aspect
            "output_devices": {n: t.device.type for n, t in (outcome.outputs or {}).items() if hasattr(t, "device")},
            "trace": outcome.trace,  # what the unit computed on the way, when asked (learner_kit.trace)
        }
        if outcome.instance is not None:
            self.instances.append(outcome.instance)
            reply["instance"] = len(self.instances) - 1
            try:
                parameters = outcome.instance.named_parameters()
                reply["param_grads"] = {str(n): _plain_tensor(p.grad) for n, p in parameters}
            except Exception:  # the learner's module may break named_parameters
                reply["param_grads"] = {}
        return reply

    def probe(self, request):
        """sandbox_servers.probes.PROBES[name] on a module built earlier: its result as plain data, or the error."""
        from learner_kit import harness
        from sandbox_servers import probes

        try:
            with harness.isolated():
                result = probes.PROBES[request["probe"]](self.instances[request["instance"]], *request["args"])
            return {"result": _plain(result), "error": None}
        except Exception as error:  # the learner's code may raise anything
            return {"result": None, "error": self.wire.error_info(error)}

    def call(self, request):
        """unit(*args) for the capstone's units: the result as plain data, or the error."""
        from learner_kit import harness

        guard = self.watch(request)
        args = request["args"]
        values = [value.detach().clone() if hasattr(value, "detach") else value for value in args.values()]
        result, error, trace = None, None, None
        if request.get("trace") is True:  # what the unit computes on the way (learner_kit.trace)
            from learner_kit.trace import traced_call

            result, error, trace = traced_call(self.unit(request["name"]), dict(zip(args, values)), guard)
        else:
            with harness.isolated():
                try:
                    with guard if guard is not None else contextlib.nullcontext():
                        result = self.unit(request["name"])(*values)
                except Exception as caught:  # the learner's code may raise anything
                    error = caught
        state = {name: _module_counters(value) for name, value in zip(args, values) if _module_counters(value)}
        return {"result": _plain(result), "error": self.wire.error_info(error) if error is not None else None,
                "found": list(guard.found) if guard is not None and guard.found else None, "arg_state": state,
                "trace": trace}

    def serve(self):
        handlers = {"describe": self.describe, "run_case": self.run_case, "call": self.call, "test_cell": self.test_cell,
                    "probe": self.probe, "run_cells": self.run_cells}
        while True:
            payload = self.wire.read_frame(self.requests, limit=1 << 30)  # a broken channel ends the child
            try:
                request = self.wire.decode_request(payload)
            except Exception as error:  # the grader's own fault (a tensor on a device this process lacks, ...)
                self.reply({"seq": None, "request_error": f"{type(error).__name__}: {error}"[:500]})
                continue
            if request.get("op") == "end":
                return
            try:
                answer = handlers[request["op"]](request)
            except BaseException as error:  # the learner's code raised past every guard (SystemExit, ...): this request only
                answer = {"error": self.wire.error_info(error)}
            self.reply({"seq": request.get("seq"), **answer})


_MISSING = object()


def _resolved(dotted):
    from learner_kit import watch

    try:
        return watch.resolve(dotted)
    except (ImportError, AttributeError, ValueError):
        return None


def _plain_tensor(value):
    import torch

    if not isinstance(value, torch.Tensor):
        return None
    value = value.detach().as_subclass(torch.Tensor)
    return value.clone() if value.device.type in ("cpu", "meta") else value.cpu()  # the grader may have no GPU


PLAIN_STR_CHARS, PLAIN_ITEMS = 4000, 1000  # within what the grader reads back (sandbox_servers.wire's bounds)


def _plain(value, depth=0):
    """`value` as what the grader may read back: tensors, numbers, strings, lists and dicts of them (long
    strings and lists cut: a wrong result stays wrong, and the reply stays readable)."""
    import torch

    if isinstance(value, torch.Tensor):
        return _plain_tensor(value)
    if isinstance(value, str):
        return value[:PLAIN_STR_CHARS]
    if isinstance(value, (bool, int, float, type(None))):
        return value if not isinstance(value, int) or abs(value) < 2**63 else float(value)
    if depth < 4 and isinstance(value, (list, tuple)):
        items = [_plain(v, depth + 1) for v in list(value)[:PLAIN_ITEMS]]
        return items if isinstance(value, list) else {"__tuple__": items}
    if depth < 4 and isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k[:PLAIN_STR_CHARS]: _plain(v, depth + 1) for k, v in list(value.items())[:PLAIN_ITEMS]}}
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalars
        try:
            return value.item()
        except Exception:
            pass
    return {"__unsupported__": f"{type(value).__module__}.{type(value).__qualname__}"}


def _module_counters(value):
    """The plain number attributes of a module argument (a stand-in model's `encodes`), after the call."""
    from torch import nn

    if not isinstance(value, nn.Module):
        return {}
    return {k: v for k, v in vars(value).items() if not k.startswith("_") and type(v) in (int, float, bool)}


def become_child(request, sync, control, wire):
    """In the forked child: cut every link to the server, take the limits, load the notebook, serve."""
    code = 70
    try:
        os.setsid()
        os.close(control)
        from sandbox_servers import processes

        processes.set_dumpable(True)  # the server's memory watch reads its proportional share (smaps_rollup)
        requests, replies = os.dup(REQUESTS), os.dup(REPLIES)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)  # the learner's prints go nowhere; the protocol has its own descriptors
        keep = {0, 1, 2, requests, replies, sync}
        for fd in range(3, 1024):
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        from sandbox_servers.budget import NotebookBudget

        limits = request["limits"]  # memory: watched by the server (resident, not address space: see serve)
        resource.setrlimit(resource.RLIMIT_CPU, NotebookBudget.from_limits(limits).rlimit_cpu)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_mb"] * MB,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.makedirs(request["workdir"], exist_ok=True)
        os.chdir(request["workdir"])
        os.read(sync, 1)  # the server has announced this child: its replies may follow
        os.close(sync)
        child = Child(requests, replies, wire)
        from learner_kit import i18n  # (imported here: this file runs as a script before learner_kit is on the path)

        i18n.set_language(request.get("language") or i18n.DEFAULT, figures=False)  # the submission's language
        signal.signal(signal.SIGALRM, _on_alarm)
        cuda = request.get("cuda") is True and cuda_usable()  # before the learner's code: it may not be trusted to say
        child.start(request["cell_timeout"])
        failures, _ = child.load(request["cells"])  # cells run again after a restart: their outputs were kept
        child.reply({"loaded": True, "answer_failures": failures, "cuda": cuda})
        child.serve()
        code = 0
    except BaseException:  # a broken channel or a learner's code that escaped every guard
        code = 71
    finally:
        os._exit(code)


def cuda_usable():
    """Whether this process (a child: the server never starts CUDA, so it can fork) can run on a GPU,
    with PyTorch's matrix products at full float32 precision, as the grader's reference runs."""
    import torch

    try:
        if not torch.cuda.is_available():
            return False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.zeros(1, device="cuda").add_(1)
        return True
    except Exception:  # a driver that cannot serve this sandbox: the device aspect runs on the CPU and meta
        return False


def memory_used(child, pid_namespace, limit):
    """Resident memory of the notebook's processes (in the sandbox's pid namespace every process but the
    server's, outside one the child's session), exact where a quick upper bound is over ``limit``."""
    from sandbox_servers import processes

    return processes.resident_bytes(processes.learner_pids(sessions=None if pid_namespace else {child}), limit)


def wait_for_child(pid, control, memory_bytes, pid_namespace, cgroup=None, budget=None):
    """The child's wait status once it has ended, and why the server ended it ("memory", "time", or None).

    It is killed when the grader asks (control), when the notebook's processes hold more than ``memory_bytes``,
    or when together they have used the CPU time of their ``budget`` (sandbox_servers.budget.NotebookBudget). Where
    the notebook has a cgroup of its own (processes.NotebookCgroup), the kernel counts both and enforces the memory
    limit itself (its OOM killer acts in that cgroup, and tells the server through an eventfd); elsewhere the
    resident memory of the notebook's processes is looked at every POLL_S (a limit on address space, RLIMIT_AS,
    would fail right answers where torch maps gigabytes it never uses: PyPI's CUDA build)."""
    from sandbox_servers import processes

    reason, next_look = None, 0.0
    counted = cgroup is not None and cgroup.memory and cgroup.name is not None
    events = [cgroup.events] if counted and cgroup.events is not None else []
    while True:
        ready = select.select([control, *events], [], [], POLL_S)[0]
        if control in ready and os.read(control, 64)[:1] in (b"k", b""):
            processes.kill_session(pid)  # the child leads its own session
        if events and events[0] in ready:
            try:
                os.eventfd_read(events[0])
            except OSError:
                pass
        if reason is None and counted and (events and events[0] in ready or cgroup.oom_kills()):
            reason = "memory"  # the kernel stopped one of them at the limit: the notebook goes
            processes.kill_session(pid)
        if reason is None and budget and cgroup is not None and (cgroup.cpu_seconds() or 0) > budget.cpu_limit_s:
            reason = "time"  # the CPU time of all its processes, as the kernel counts it
            processes.kill_session(pid)
        if reason is None and memory_bytes and not counted and time.monotonic() >= next_look:
            started = time.monotonic()
            if memory_used(pid, pid_namespace, memory_bytes) > memory_bytes:
                reason = "memory"
                processes.kill_session(pid)  # what it started elsewhere goes once it has ended (serve)
            # an exact count (many forked processes) may take a while: look again after ten times as long
            next_look = time.monotonic() + 10 * (time.monotonic() - started)
        finished, wait_status = os.waitpid(pid, os.WNOHANG)
        if finished:
            return wait_status, reason


def serve(control, pid_namespace, wire, cgroup=None):
    from sandbox_servers import processes
    from sandbox_servers.budget import NotebookBudget

    processes.set_dumpable(False)
    if pid_namespace:  # in a sandbox of its own
        processes.limit_processes()
    sandbox_tmp = set(os.listdir(SANDBOX_TMP)) if pid_namespace else None  # what the server itself keeps there
    while True:
        try:
            request = wire.decode_request(wire.read_frame(REQUESTS, limit=1 << 30))
        except wire.ChannelClosed:
            return
        while select.select([control], [], [], 0)[0]:  # a kill meant for the last child is not for this one
            if not os.read(control, 64):
                return
        sync_read, sync_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(sync_write)
            become_child(request, sync_read, control, wire)
        os.close(sync_read)
        failed = cgroup.start(pid, request["limits"].get("memory_mb", 0) * MB) if cgroup is not None else []
        if failed:  # the memory is then watched as where no cgroup can be had, and the reply says why
            print(f"unit server: no cgroup for this notebook ({'; '.join(failed)})", file=sys.stderr, flush=True)
        counted = cgroup is not None and cgroup.counts_cpu()  # the kernel counts its CPU time: the budget is CPU time
        wire.write_frame(REPLIES, wire.encode_reply({"started": pid, "cpu_counted": counted,
                                                     **({"no_cgroup": failed} if failed else {})}))
        os.write(sync_write, b"go")
        os.close(sync_write)
        status, reason = wait_for_child(pid, control, request["limits"].get("memory_mb", 0) * MB, pid_namespace,
                                        cgroup, NotebookBudget.from_limits(request["limits"]) if cgroup is not None
                                        else None)
        processes.kill_session(pid)
        if pid_namespace:  # every other process in this pid namespace is the learner's
            processes.kill_all_others()
        shutil.rmtree(request["workdir"], ignore_errors=True)
        if sandbox_tmp is not None:  # nothing a notebook wrote into the sandbox's /tmp meets the next one
            processes.empty_folder(SANDBOX_TMP, keep=sandbox_tmp)
            # ... nor its System V shared memory (the sandbox's own IPC namespace), /dev/shm or POSIX queues
            processes.remove_ipc()
            for folder in SANDBOX_SHARED:
                processes.empty_folder(folder)
        if cgroup is not None:
            cgroup.remove()
        wire.write_frame(REPLIES, wire.encode_reply({"exited": os.waitstatus_to_exitcode(status), "reason": reason}))


def main():
    sys.path.insert(0, sys.argv[1])  # the sandbox's copy of learner_kit, whatever is installed
    namespace = {}
    exec(PREAMBLE, namespace)
    try:
        exec(WARM_UP, namespace)
    except Exception:  # only speed is lost, but say why: a failed import fails again in every child
        traceback.print_exc()
    from sandbox_servers import wire

    global LIBRARY_DIRS
    import sysconfig

    import numpy
    import torch

    LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, numpy)) + (sysconfig.get_paths()["stdlib"] + os.sep,)
    watched_objects()
    print(json.dumps({"ready": True}), file=sys.stderr, flush=True)
    arguments = sys.argv[2:]
    from sandbox_servers import processes

    cgroup = processes.NotebookCgroup.from_arguments(arguments)
    serve(int(arguments[arguments.index("--control") + 1]), "--pid-namespace" in arguments, wire,
          cgroup if cgroup.fds else None)


if __name__ == "__main__":
    main()
