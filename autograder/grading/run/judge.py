"""The verdict, decided outside the learner's reach: the checks run here, the learner's units there.

A notebook's code runs in a unit server (sandbox_servers/unit_server.py), a separate process
that only computes. Every graded cell of the course is a call of the checks,
`check("Unit", Unit, "aspect")` or `visible_problem("Unit", Unit)`: the judge runs that
check in this process, with the reference, against a RemoteUnit that forwards each run of
the learner's unit (inputs, weights and seeds chosen here) to the server and reads back
only plain data (results, errors, gradients). Nothing the learner's code does can reach
the reference, the comparison or the verdict; it can only send back results, and wrong
results fail.

A graded cell of another form (a course of free-form test cells, such as the grading
tests' fixture) is run inside the server instead, guarded as before; its verdict is only as
strong as that process.

Checks that need more than results (call the learner's module again, read its `layers`,
build a fresh one) go through sandbox_servers.probes, which a RemoteInstance runs in the server.
verify.py puts this together for one notebook after another.
"""
import ast
import contextlib
import io
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

import torch

from autograder.grading.run.limits import kill_group
from learner_kit import harness, static_hints
from sandbox_servers import wire
from sandbox_servers.budget import NotebookBudget, out_of_time
from learner_kit.i18n import tr
from sandbox_servers.unit_server import PREAMBLE

CHECK_FUNCTIONS = {"check": "aspect", "visible_problem": "visible", "check_visible": "visible"}
STARTUP_S = 120  # the server's first start imports torch
# The stand-in models' counters that checks read after a call (encode once per decoding). Only
# these come back: any other attribute the child reports (a stand-in's `shift`) could change
# what the reference computes next on the same stand-in.
COUNTERS_READ_BACK = ("encodes",)


class SessionFailure(Exception):
    """The notebook's process stopped, broke the protocol or ran out of time: no more answers from it."""


class RequestNotDelivered(Exception):
    """The child could not read a request of the grader's (a grader bug): that request fails, the child goes on."""


@dataclass(frozen=True)
class GradedCall:
    unit: str  # as registered in autograder.checks
    name: str  # the notebook's variable that holds the learner's unit
    aspect: str  # an aspect of the unit, or "visible"
    # a visible cell's whole text where it holds checks of its own (functions or statements beside the call of the
    # learner_kit check): run in the notebook's process after the stored cases pass, they count as in the notebook
    own_checks: str = field(default="", compare=False, repr=False)


def graded_call(cell):
    """The check a graded cell makes, or None when the cell is not one call of the checks of a known unit."""
    from autograder.checks.core import CUSTOM_CHECKS, UNITS

    found = _graded_call(cell)
    return found if found is not None and (found.unit in UNITS or found.unit in CUSTOM_CHECKS) else None


def _graded_call(cell):
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return None
    # the cell's own specific checks (functions it defines) run beside the learner's code, not here
    calls = [node for node in _outside_functions(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id in CHECK_FUNCTIONS]
    unit = cell.grade_id.split("-")[0]
    own = cell.source if cell.grade_id.endswith("-visible") and _has_own_checks(tree) else ""
    if not calls and cell.grade_id.endswith("-visible"):
        return GradedCall(unit, unit, "visible", own)  # a visible cell of asserts only: its unit's values decide
    if len(calls) != 1:
        return None
    args = calls[0].args
    if len(args) < 2 or not isinstance(args[0], ast.Constant) or not isinstance(args[1], ast.Name):
        return None
    if CHECK_FUNCTIONS[calls[0].func.id] == "visible":
        return GradedCall(str(args[0].value), args[1].id, "visible", own)
    if len(args) < 3 or not isinstance(args[2], ast.Constant):
        return None
    return GradedCall(str(args[0].value), args[1].id, str(args[2].value))


def _has_own_checks(tree):
    """Whether a visible cell does more than import and call the learner_kit check: functions of its own, asserts,
    a call with the cell's own checks (check_visible("Unit", Unit, *CHECKS))."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id in CHECK_FUNCTIONS and len(node.value.args) <= 2 and not node.value.keywords):
            continue
        return True
    return False


def _outside_functions(tree):
    """Every node of ``tree`` but those inside a function or class body."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(child for child in ast.iter_child_nodes(node)
                       if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))


# ---------------------------------------------------------------- the server process


class UnitServer:
    """One unit server process (started in the sandbox by `command`), serving notebooks one at a time."""

    def __init__(self, command, env=None, workdir="/tmp/notebook", cap=None):
        self.command, self.env, self.workdir = list(command), env, workdir  # workdir: the child's, emptied after it
        self.cap = cap  # a sandbox.ProcessCap around the server, or None
        self.process = self.control = None
        self.started = False
        self.shut = False  # closed for good (shut_down): no new server

    def start(self):
        if self.process is not None and self.process.poll() is None:
            return
        self.close()
        if self.shut:
            raise SessionFailure("the grading worker has closed")
        control_read, self.control = os.pipe()
        command = [*self.command, "--control", str(control_read)]
        self.process = subprocess.Popen(
            self.cap.wrap(command) if self.cap else command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, pass_fds=(control_read,), start_new_session=True, env=self.env, cwd="/",
        )
        os.close(control_read)
        self.started = False

    def send(self, message):
        wire.write_frame(self.process.stdin.fileno(), wire.encode_request(message))

    def receive(self, deadline):
        return wire.decode_reply(wire.read_frame(self.process.stdout.fileno(), deadline))

    def notebook(self, cells, cell_timeout, limits, budget_s, language="en", cuda=False):
        """A Session on a fresh child that has run ``cells``; SessionFailure when that child cannot be had.
        ``budget_s``: what is left of the notebook's budget (sandbox_servers.budget), its wall-clock limit here.

        With ``cuda`` (this process has a GPU), the child tries CUDA itself and says whether it can use it.
        """
        self.start()
        try:
            self.send({"op": "notebook", "cells": cells, "cell_timeout": cell_timeout, "limits": limits,
                       "workdir": self.workdir, "language": language, "cuda": bool(cuda)})
            started = self.receive(time.monotonic() + (budget_s if self.started else STARTUP_S + budget_s))
        except (OSError, wire.ChannelClosed) as error:
            self.close()
            raise SessionFailure(f"the checking process did not start ({error})") from None
        self.started = True
        if not isinstance(started, dict) or "started" not in started:
            self.close()
            raise SessionFailure("the checking process did not start")
        # The budget starts with the notebook's child. Where the kernel counts the notebook's CPU time (its cgroup),
        # the server stops it at that budget, and the clock here is only a backstop: a busy grading machine costs
        # the learner nothing; the grader's own work between requests never counts (Session.resume_clock).
        cpu_counted = started.get("cpu_counted") is True
        session = Session(self, NotebookBudget(budget_s).deadline(time.monotonic(), cpu_counted), limits)
        session.cpu_counted = cpu_counted
        session.cells = list(cells)
        loaded = session.receive_reply(None)
        session.cuda = isinstance(loaded, dict) and loaded.get("cuda") is True
        return session, loaded

    def shut_down(self):
        """Close for good: the worker is going, and a grading thread Dask could not stop must not start a new server."""
        self.shut = True
        self.close()

    def kill_child(self):
        try:
            os.write(self.control, b"k")
        except OSError:
            pass

    def close(self):
        if self.process is not None:
            kill_group(self.process)
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
        if self.cap is not None:
            self.cap.remove()
        if self.control is not None:
            os.close(self.control)
        self.process = self.control = None


class Session:
    """The judge's conversation with one notebook's child: requests answered in order, under a deadline."""

    def __init__(self, server, deadline, limits=None):
        self.server, self.deadline, self.seq, self.dead = server, deadline, 0, None
        self.given_up = False  # stopped because nothing its child says can be trusted: not started again
        self.limits = limits or {}
        self.cells = []  # the cells sent to the child, in order: their text is data here (static hints)
        self.hints = {}  # unit -> the static hints on its answer cell, appended to its failures
        self.cuda = False  # whether the child can run the learner's code on a GPU (it said so when loaded)
        self.cpu_counted = False  # whether the server stops the child at its CPU-time budget (the deadline a backstop)
        self.out_of_cpu = False  # whether the server stopped the child at that budget
        # The notebook's clock runs while its child has a request to answer, not while the grader works between
        # replies and requests (its checks, its diagnosis): that time moves the deadline on, and on_pause(seconds)
        # tells the notebook's run (verify.NotebookRun), so that a busy grading machine costs the learner nothing.
        self.grader_since = None  # when the child's last reply came (the grader's turn since)
        self.on_pause = None

    def receive_reply(self, seq):
        """The child's reply to request ``seq`` (None: the first, unnumbered one)."""
        while True:
            try:
                reply = self.server.receive(self.deadline)
            except wire.ChannelClosed as error:
                reason = (out_of_time_of(self.limits) if time.monotonic() >= self.deadline
                          else f"its process stopped answering ({error})")
                self._stop(reason)
                raise SessionFailure(reason) from None
            if not isinstance(reply, dict):
                continue
            if "exited" in reply:
                self.out_of_cpu = reply.get("reason") == "time" or reply.get("exited") == -signal.SIGXCPU
                self.dead = exit_reason(reply, self.limits)
                raise SessionFailure(self.dead)
            if reply.get("seq") is None and "request_error" in reply and seq is not None:
                raise RequestNotDelivered(str(reply["request_error"]))
            if reply.get("seq") == seq and "unsendable" in reply:  # the child's answer was not plain data: as unreadable
                reason = f"its process stopped answering ({str(reply['unsendable'])[:300]})"
                self._stop(reason)
                raise SessionFailure(reason)
            if reply.get("seq") == seq:
                self.grader_since = time.monotonic()
                return reply

    def resume_clock(self):
        """The grader's turn is over: the deadline moves on by its length (see grader_since)."""
        if self.grader_since is None:
            return
        paused, self.grader_since = time.monotonic() - self.grader_since, None
        self.deadline += paused
        if self.on_pause is not None:
            self.on_pause(paused)

    def ask(self, request):
        if self.dead:
            raise SessionFailure(self.dead)
        self.resume_clock()
        self.seq += 1
        if request.get("op") == "run_cells" and isinstance(request.get("cells"), list):
            self.cells.extend(request["cells"])
        try:
            self.server.send({**request, "seq": self.seq})
        except OSError:
            self._stop("its process stopped answering")
            raise SessionFailure(self.dead) from None
        return self.receive_reply(self.seq)

    def _stop(self, reason, kill=True):
        """Kill the child (or let it end) and wait for the server to say it is gone; a server that does not is replaced."""
        self.dead = reason
        if kill:
            self.server.kill_child()
        end = time.monotonic() + 10
        while True:
            try:
                reply = self.server.receive(end)
                if isinstance(reply, dict) and "exited" in reply:
                    return
            except (wire.ChannelClosed, TypeError):
                self.server.close()
                return

    def give_up(self, reason):
        """Stop the child for ``reason``: every later question of this notebook fails with it (SessionFailure), and
        the notebook is not started again for its later cells (verify.py)."""
        self.given_up = True
        if not self.dead:
            self._stop(reason)

    def end(self):
        if self.dead:
            return
        try:
            self.server.send({"op": "end"})
        except OSError:
            self.server.close()
            return
        self._stop("ended", kill=False)


def out_of_time_of(limits):
    """The learner's sentence for a notebook out of its budget, the one its request's ``limits`` carried."""
    budget = NotebookBudget.from_limits(limits)
    return budget.out_of_time() if budget else out_of_time("?")


def exit_reason(reply, limits):
    """Why a notebook's child ended, in the learner's language, from the server's {"exited": status, "reason": ...}."""
    status = reply.get("exited")
    if reply.get("reason") == "memory":
        return tr("it held more than {mb} MiB of memory and was stopped", mb=limits.get("memory_mb", "?"))
    if reply.get("reason") == "time" or status == -signal.SIGXCPU:  # the cgroup's count, or one process's rlimit
        return out_of_time_of(limits)
    if isinstance(status, int) and status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        return tr("its process was ended by {signal}", signal=name)
    return tr("its process exited (status {status}), e.g. through os._exit", status=status)


# ---------------------------------------------------------------- the learner's unit, seen from here


class RemoteUnit(harness.Remote):
    """The learner's unit `name` in the session's child, as the checks see it."""

    def __init__(self, session, name):
        self.session, self.name = session, name
        self.cuda_usable = session.cuda  # the checks' device aspect runs on a GPU only where the child has one
        try:
            self.kind = self.session.ask({"op": "describe", "name": name}).get("kind")
        except SessionFailure:
            self.kind = {"kind": "missing", "type": ""}
        if not isinstance(self.kind, dict) or not isinstance(self.kind.get("kind"), str):
            self.kind = {"kind": "other", "type": "?"}

    def _guard_names(self, guard):
        if guard is None:
            return {"watched": False}
        modules = [f"{k.__module__}.{k.__qualname__}" for k in guard.modules]
        return {"watched": True, "forbidden": sorted(set(guard.forbidden.values())), "modules": modules}

    def run_case(self, call, case, guard=None, backprop=None, trace=False):
        inputs = {name: harness.fresh(value) for name, value in case.inputs.items()}
        request = {"op": "run_case", "name": self.name, "call": call, "case": case,
                   "backprop": list(backprop) if backprop else None, "trace": bool(trace), **self._guard_names(guard)}
        try:
            reply = self.session.ask(request)
        except SessionFailure as failure:
            return harness.Outcome(error=_not_run(failure), error_type="TimeoutError", inputs=inputs)
        outcome = _outcome(reply, inputs, guard, self.session)
        if trace:
            outcome.trace = _trace(reply.get("trace"))
        return outcome

    def call(self, args, guard=None, trace=False):
        """(result, error, forbidden) of unit(*args) in the child; module arguments get their counters back. With
        `trace`, what the unit computed on the way is kept in `last_trace` (learner_kit.trace)."""
        self.last_trace = None
        try:
            reply = self.session.ask({"op": "call", "name": self.name, "args": args, "trace": bool(trace),
                                      **self._guard_names(guard)})
        except SessionFailure as failure:
            return None, _not_run(failure), None
        if trace:
            self.last_trace = _trace(reply.get("trace"))
        state = reply.get("arg_state")
        for name, counters in state.items() if isinstance(state, dict) else ():
            if isinstance(counters, dict) and isinstance(args.get(name), torch.nn.Module):
                for key, value in counters.items():
                    if key in COUNTERS_READ_BACK and isinstance(value, int):
                        setattr(args[name], key, value)
        error = wire.rebuilt_error(reply["error"]) if isinstance(reply.get("error"), dict) else None
        return _rebuilt_value(reply.get("result")), error, _found(reply)


class RemoteInstance(harness.Remote):
    """A module the learner's class built in the sandbox: its parameters' gradients, and probes run there."""

    def __init__(self, session, number, grads):
        self.session, self.number, self.grads = session, number, grads

    def named_parameters(self):
        return [(name, SimpleNamespace(grad=grad)) for name, grad in self.grads.items()]

    def run_probe(self, name, *args):
        """sandbox_servers.probes' `name` on this module, in the sandbox; raises what the learner's code raised."""
        try:
            reply = self.session.ask({"op": "probe", "probe": name, "instance": self.number, "args": list(args)})
        except SessionFailure as failure:
            raise _not_run(failure) from None
        if isinstance(reply.get("error"), dict):
            raise wire.rebuilt_error(reply["error"])
        return _rebuilt_value(reply.get("result"))


def _not_run(failure):
    """The error a check sees when the notebook's process could not run the learner's code."""
    return TimeoutError(f"the notebook's code could not be run: {failure}")


def _found(reply):
    found = reply.get("found")
    if isinstance(found, list) and len(found) == 2 and all(isinstance(x, str) for x in found):
        return tuple(found)
    return None


def _tensors(mapping):
    if not isinstance(mapping, dict):
        return {}
    return {str(k): v for k, v in mapping.items() if isinstance(v, torch.Tensor) or v is None}


def _outcome(reply, inputs, guard, session):
    """A harness.Outcome from the child's reply (every field checked: the reply is the learner's to forge)."""
    outcome = harness.Outcome(inputs=inputs)
    if isinstance(reply.get("error"), dict):
        outcome.error = wire.rebuilt_error(reply["error"])
        outcome.error_type = str(reply["error"].get("type"))
    outputs = reply.get("outputs")
    if outcome.error is None:
        if isinstance(outputs, dict) and all(isinstance(v, torch.Tensor) for v in outputs.values()):
            devices = reply.get("output_devices") if isinstance(reply.get("output_devices"), dict) else {}
            outcome.outputs = {str(k): _on_device(v, devices.get(k), session) for k, v in outputs.items()}
        outcome.problem = str(reply.get("problem") or "")
        if outcome.outputs is None and not outcome.problem:
            outcome.problem = "Its results could not be read back."
    outcome.modified = tuple(n for n in reply.get("modified") or () if type(n) is str and n in inputs)
    outcome.weight_problems = tuple(str(p) for p in reply.get("weight_problems") or ())
    outcome.backprop_failure = str(reply.get("backprop_failure") or "")
    for name, grad in _tensors(reply.get("input_grads")).items():
        given = inputs.get(name)
        if isinstance(given, torch.Tensor) and given.requires_grad and (
                grad is None or (grad.shape == given.shape and grad.dtype == given.dtype)):  # else: no gradient came
            given.grad = grad if grad is None else grad.to(given.device)
    if isinstance(reply.get("instance"), int):
        outcome.instance = RemoteInstance(session, reply["instance"], _tensors(reply.get("param_grads")))
    if guard is not None and guard.found is None:
        guard.found = _found(reply)
    return outcome


def _trace(record):
    """A learner_kit.trace record from the child's reply, rebuilt field by field (the child's to forge: a forged
    one can only mislead the learner's own message, never a score), or None."""
    if not isinstance(record, dict) or not isinstance(record.get("calls"), list) or not isinstance(record.get("ops"), list):
        return None

    def tensor(value):
        return value if isinstance(value, torch.Tensor) else None

    def source(value):
        ok = isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
        return [value[0], value[1] if isinstance(value[1], (int, str)) and not isinstance(value[1], bool) else ""] \
            if ok else ["unknown", ""]

    calls = [{"name": call["name"], "aliases": [a for a in call.get("aliases") or () if isinstance(a, str)],
              "kind": str(call.get("kind", "")), "depth": call["depth"] if type(call.get("depth")) is int else -1,
              "args": {str(k): tensor(v) for k, v in call["args"].items()} if isinstance(call.get("args"), dict) else {},
              "output": tensor(call.get("output"))}
             for call in record["calls"] if isinstance(call, dict) and isinstance(call.get("name"), str)]
    ops = [{"op": op["op"], "args": [a for a in op.get("args") or () if isinstance(a, (bool, int, float, str))],
            "inputs": [source(s) for s in op.get("inputs") or ()], "output": tensor(op.get("output")),
            "raised": op.get("raised") is True}
           for op in record["ops"] if isinstance(op, dict) and isinstance(op.get("op"), str)]
    complete = record.get("complete") is True and len(calls) == len(record["calls"]) and len(ops) == len(record["ops"])
    given = [tensor(v) for v in record.get("given") or () if tensor(v) is not None] \
        if isinstance(record.get("given"), list) else []
    return {"calls": calls, "ops": ops, "given": given, "complete": complete, "raised": record.get("raised") is True}


def _on_device(tensor, device, session):
    """An output where the child had it: replies carry CPU copies of a GPU's tensors (the child says which)."""
    if device == "cuda" and session.cuda and tensor.device.type == "cpu":
        return tensor.to("cuda")
    return tensor


def _rebuilt_value(value, depth=0):
    """The inverse of the server's _plain(): tuples and dicts back, unsupported objects as a marker string."""
    if isinstance(value, dict) and depth < 6:
        if "__tuple__" in value:
            return tuple(_rebuilt_value(v, depth + 1) for v in value["__tuple__"])
        if "__dict__" in value:
            return {str(k): _rebuilt_value(v, depth + 1) for k, v in value["__dict__"].items()}
        if "__unsupported__" in value:
            return Unsupported(str(value["__unsupported__"]))
    if isinstance(value, list) and depth < 6:
        return [_rebuilt_value(v, depth + 1) for v in value]
    return value


class Unsupported:
    """A result the server could not send back as plain data (its type's name is kept for messages)."""

    def __init__(self, type_name):
        self.type_name = type_name

    def __repr__(self):
        return f"<a {self.type_name}>"


# ---------------------------------------------------------------- verdicts


class Verdict(tuple):
    """A graded cell's (passed, message), unpacked as such. `decisive`: the cell is a composite's visible test
    that the judge passed with the course's right versions of the graded parts the unit uses, while one of the
    learner's own parts fails its test. In the notebook's kernel the cell runs with the learner's parts and may
    fail for them; that run may then not lower this verdict (combine.py): one mistake costs one unit."""

    def __new__(cls, passed, message, decisive=False, grader_error=False, failure=None):
        made = super().__new__(cls, (passed, message))
        made.decisive = decisive
        made.grader_error = grader_error  # the grader's own code failed on this cell (class_report tells it by this)
        made.failure = failure  # what stopped the notebook's run at this cell: a record's failure (outputs/failures.py)
        return made


def judge_cell(session, graded, units):
    """The Verdict (passed, message) of one graded cell, decided here."""
    from autograder.checks import CheckFailure, check
    from autograder.checks.core import fresh_inputs_problem
    from learner_kit.visible import fingerprint_file, visible_problem

    candidate = _unit(session, graded.name, units)
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            if graded.aspect == "visible" and fingerprint_file(graded.unit).is_file():
                problem = _named(visible_problem(graded.unit, candidate), graded.unit, candidate)
                problem = problem or fresh_inputs_problem(graded.unit, candidate)  # not the shipped inputs alone
                # run in any case: a later cell may use what it defines
                own = _own_checks_problem(session, graded, stored_cases_passed=not problem)
                if problem:
                    return Verdict(False, problem + _static_hints(session, graded, problem))
                wrong = _wrong_parts(session, graded.unit, units)
                if wrong:  # right with right parts (the replays and stand-ins did that); the kernel's run used the wrong ones
                    names = harness.joined(f"`{name}`" for name in wrong)
                    return Verdict(True, tr("Your {unit} is right: with correct versions of {names} it gives what it "
                                            "should, so this cell keeps its points. In your notebook its test uses your "
                                            "own {names}, which its own test finds wrong: fix {names} first.",
                                            unit=graded.unit, names=names), decisive=True)
                if own:
                    return Verdict(False, own)
                return Verdict(True, "")
            check(graded.unit, candidate, "values" if graded.aspect == "visible" else graded.aspect)
            own = _own_checks_problem(session, graded)
            if own:
                return Verdict(False, own)
            return Verdict(True, "")
        except CheckFailure as failure:
            return Verdict(False, str(failure) + _static_hints(session, graded, str(failure)))


def _own_checks_problem(session, graded, stored_cases_passed=False):
    """What a visible cell's own checks say, or '': the whole cell runs in the notebook's process, as in the notebook
    (its call of the learner_kit check passes there as it passed here), so its message is the notebook's, word for
    word. That process can forge a pass, which changes nothing (the checks here decided already), never a point."""
    if not graded.own_checks:
        return ""
    request = {"op": "test_cell", "source": graded.own_checks, "whole": True}
    if stored_cases_passed:  # decided here already: the cell's check_visible goes straight to its own checks there
        request["stored_cases_passed"] = graded.unit
    reply = session.ask(request)
    message = "" if reply.get("passed") is True else str(reply.get("message") or tr("The test did not pass."))
    if reply.get("tampered") is True:  # what it replaced is put back there: nothing it says from now on can be trusted
        session.give_up(message)
    return message


def _unit(session, name, units):
    """The RemoteUnit of the notebook's variable `name` (one per child: `units` keeps them)."""
    if name not in units:
        units[name] = RemoteUnit(session, name)
    return units[name]


def _wrong_parts(session, unit, units):
    """The graded units that `unit` calls or builds (UnitSpec.isolate, .stand_ins) whose own visible test the
    learner's versions fail (a part the notebook does not define counts as failing), in the spec's order."""
    from autograder.checks.core import UNITS
    from learner_kit.visible import fingerprint_file, visible_problem

    spec = UNITS.get(unit)
    parts = [*spec.isolate, *spec.stand_ins] if spec is not None else []
    try:
        return [part for part in parts
                if fingerprint_file(part).is_file() and visible_problem(part, _unit(session, part, units))]
    except Exception:  # noqa: BLE001 - the composite's pass stands; only the kernel's run keeps its say
        return []


def _named(problem, unit, candidate):
    """The visible cell's message, named where the stored cases found only a generic symptom.

    In the learner's notebook the cell's own specific checks name such a mistake (mask allowing
    a pad key -> [mask-tgt-missing-pad]); they run beside the learner's code, so the grader does
    not run them: the hidden checks' diagnosis (mutants, diagnosers, pairs) names it here instead.
    """
    from autograder.checks import CheckFailure, check
    from learner_kit.visible import GENERIC_IDS

    if not problem or not any(problem.startswith(f"[{generic}]") for generic in GENERIC_IDS):
        return problem
    try:
        check(unit, candidate, "values")
    except CheckFailure as failure:
        if failure.mistake_id not in GENERIC_IDS and failure.mistake_id != "not-implemented":
            return str(failure)
    except Exception:  # naming is a bonus: the verdict is the visible cases' already
        pass
    return problem


def _static_hints(session, graded, message):
    """What a linter sees in the learner's answer cell of the unit (learner_kit/static_hints.py), to
    append to a failure: the cell's text was sent to the child as data and is only read here.
    Names bound by the cells the child ran (and its preamble) count as defined."""
    if message.startswith("[not-implemented]") or session.dead:
        return ""
    if graded.unit not in session.hints:
        answers = [cell for cell in session.cells if cell.get("kind") == "answer" and isinstance(cell.get("source"), str)]
        source = next((cell["source"] for cell in reversed(answers) if cell.get("grade_id") == graded.unit),
                      next((cell["source"] for cell in reversed(answers)
                            if graded.name in static_hints.defined_names(cell["source"])), None))
        known = set(static_hints.defined_names(PREAMBLE))
        for cell in session.cells:
            known |= static_hints.defined_names(cell.get("source") or "")
        session.hints[graded.unit] = static_hints.appendix(static_hints.hints(source, known)) if source else ""
    return session.hints[graded.unit]

