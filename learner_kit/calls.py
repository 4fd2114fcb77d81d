"""How a graded unit is called on one case, and what the call gave.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

Call says how a unit is called and where its results are, Case is one input, call_unit() calls a
unit (a function, or a module class it builds) on a case and keeps what came out in a CallOutcome:
results, or the error, or results not where the exercise puts them. A Remote is a unit in another
process (the grading sandbox), which runs the call there. It holds no solution.
"""
import contextlib
import types
from dataclasses import dataclass, field, replace

import torch

from learner_kit.i18n import tr
from learner_kit.learner_errors import describe_error, mark_learner_line
from learner_kit.torch_state import isolated, seed
from learner_kit.weights import load_weights


@dataclass(frozen=True)
class Call:
    """How a unit is called and where its results are."""

    outputs: dict  # result name -> where it is: "return", "return.0", "attr.attn"
    init: tuple | None = None  # constructor arguments of a module; None for a function
    weights: dict | None = None  # state_dict copied into the module after construction
    axes: dict = field(default_factory=dict)  # result name -> names of its last axes
    bindings: dict = field(default_factory=dict)  # name -> what it means in the unit's globals during the run


@dataclass(frozen=True)
class Case:
    """One input of a unit. Arguments are passed positionally, in the order of `inputs`."""

    inputs: dict
    label: str = ""  # says what the case is, in messages: "4-D inputs with a padding mask"
    compare: tuple = ()  # the results compared; () means all
    torch_seed: int | None = None  # torch's global seed just before the call (for dropout)
    dtype: torch.dtype | None = None  # a module is moved to this dtype (None: left as built)

    @property
    def default_dtype(self):
        """PyTorch's default dtype while a unit is built and called on this case: float64 for a float64 case
        (FLOAT64_RULE), else float32."""
        return torch.float64 if self.dtype == torch.float64 else torch.float32

    @property
    def device(self):
        """The device of the first tensor (or torch.device) among the inputs."""
        for value in self.inputs.values():
            if isinstance(value, (torch.Tensor, torch.device)):
                return value.device if isinstance(value, torch.Tensor) else value
        return torch.device("cpu")

    def to(self, dtype=None, device=None):
        """This case with floating inputs cast to `dtype`, tensors and devices moved to `device`."""

        def move(value):
            if isinstance(value, torch.device):
                return torch.device(device) if device is not None else value
            if not isinstance(value, torch.Tensor):
                return value
            cast = dtype if dtype is not None and value.is_floating_point() else value.dtype
            return value.detach().to(device=device or value.device, dtype=cast).requires_grad_(value.requires_grad)

        inputs = {name: move(value) for name, value in self.inputs.items()}
        return replace(self, inputs=inputs, dtype=dtype or self.dtype)

    def names(self, outputs):
        return [name for name in outputs if not self.compare or name in self.compare]


@dataclass
class CallOutcome:
    """What one call gave: results, or an error, or results not where the exercise puts them."""

    outputs: dict | None = None
    error: BaseException | None = None
    error_type: str | None = None  # kept alone when an outcome is read back from a fingerprint
    problem: str = ""  # results missing or of the wrong kind
    modified: tuple = ()  # names of the inputs the call changed in place
    weight_problems: tuple = ()  # state_dict names that did not fit the module
    inputs: dict | None = None  # the arguments as the call left them (their .grad included)
    instance: object = None  # the module that was called, for module units
    backprop_failure: str = ""  # what went wrong backpropagating (when call_unit(..., backprop=...) asked for it)
    trace: dict | None = None  # what the unit computed on the way (learner_kit.trace), when call_unit(..., trace=True) asked


class Remote:
    """A unit that lives in another process: `call_unit` and `wrong_kind` ask it rather than call it.

    The grader judges a learner's unit from outside the sandbox that runs it (see
    autograder/grading/run/judge.py); its stand-in for the unit derives from this class.
    """

    kind = None  # describe_kind() of the object in the other process
    cuda_usable = False  # whether the other process can run the unit on a GPU

    def run_case(self, call, case, guard=None, backprop=None, trace=False):
        raise NotImplementedError


# The float64 rule: float64 results must equal the reference's to 1e-10. A float64 case runs with
# float64 as the default dtype (the module is built so, then moved with .to(float64), and called
# so), so a constant made without an explicit dtype, in __init__ or in forward, is exact; a tensor
# made explicitly float32 (.float(), dtype=torch.float32) is a tensor left in float32, and its
# ~1e-7 rounding is a mistake in a float64 model.
FLOAT64_RULE = "float64 results equal the reference's to 1e-10; float64 cases run with float64 as the default dtype"


def call_unit(target, call, case, guard=None, backprop=None, trace=False, built=None):
    """Call `target` (a function, or a module class built with call.init) on `case`.

    Never raises for what the target does: errors are recorded in the CallOutcome. Runs with
    warnings and printing silenced, float32 as the default dtype, gradients enabled, and the
    caller's random state left as it was. With `backprop` (result names), a fixed random
    weighting of those results is then backpropagated (see backpropagate()). With `trace`, the
    outcome's `trace` records what the unit computed on the way (learner_kit.trace). `built` is a
    module an earlier run of the same module class built for the same call, dtype and device, used
    again as it is (the checks' own variants only: a learner's module is always built afresh).
    """
    if isinstance(target, Remote):
        return target.run_case(call, case, guard, backprop, trace=trace) if trace else \
            target.run_case(call, case, guard, backprop)
    args = {name: fresh(value) for name, value in case.inputs.items()}
    outcome = CallOutcome(inputs=args)
    recorder = _recorder(args) if trace else None
    with isolated(default_dtype=case.default_dtype), bound(target, call.bindings):
        try:
            with guard if guard is not None else contextlib.nullcontext():
                function = target
                if call.init is not None and built is not None:
                    outcome.instance = function = built
                elif call.init is not None:
                    seed(0)
                    with recorder if recorder is not None else contextlib.nullcontext():  # what __init__ computes
                        outcome.instance = function = target(*call.init)
                    outcome.weight_problems = load_weights(function, call.weights)
                    if recorder is not None and set(call.weights or ()) & {n for n, _ in function.named_buffers()}:
                        recorder.forget_construction()  # the buffers __init__ made are replaced by the reference's
                    function.eval().to(device=case.device, dtype=case.dtype)
                if case.torch_seed is not None:
                    seed(case.torch_seed)
                if recorder is not None:
                    recorder.watch(outcome.instance)
                with recorder if recorder is not None else contextlib.nullcontext():
                    result = function(*args.values())
        except Exception as error:  # the learner's code may raise anything
            outcome.error, outcome.error_type = error, type(error).__name__
            mark_learner_line(error, target)
            if recorder is not None:
                outcome.trace = {**recorder.record(), "raised": True}
            return outcome
    if recorder is not None:
        outcome.trace = recorder.record()
    outcome.outputs, outcome.problem = read_outputs(result, outcome.instance, call.outputs)
    outcome.modified = tuple(name for name in args if _changed(args[name], case.inputs[name]))
    if backprop and outcome.outputs is not None:
        outcome.backprop_failure = backpropagate(outcome, backprop)
    return outcome


def _recorder(args):
    from learner_kit.trace import Recorder  # only where a trace is asked for: it imports torch's dispatch modes

    return Recorder(args)


def unit_globals(target):
    """The global namespace `target`'s code looks names up in (a notebook's, for a learner's unit), or None."""
    if isinstance(target, types.FunctionType):
        return target.__globals__
    if isinstance(target, type):
        for klass in target.__mro__:
            if str(klass.__module__).split(".")[0] == "torch":  # nn.Module's own methods
                continue
            for value in vars(klass).values():
                function = getattr(value, "__func__", value)
                if isinstance(function, types.FunctionType):
                    return function.__globals__
    return None


@contextlib.contextmanager
def bound(target, bindings):
    """`bindings` ({name: object}) in `target`'s globals for the duration, then the names as they were.

    An object with `with_fallback` (a replay.Replay) is given what the name held before.
    """
    namespace = unit_globals(target) if bindings else None
    if namespace is None:
        yield
        return
    missing = object()
    before = {name: namespace.get(name, missing) for name in bindings}
    for name, value in bindings.items():
        if hasattr(value, "with_fallback"):
            value = value.with_fallback(None if before[name] is missing else before[name])
        namespace[name] = value
    try:
        yield
    finally:
        for name, value in before.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


def backpropagate(outcome, names, seed=0):
    """Backpropagate a fixed random weighting of the results `names`; return what went wrong, or ''."""
    generator = torch.Generator().manual_seed(seed)
    with isolated():
        try:
            total = sum((out * torch.randn(out.shape, generator=generator, dtype=out.dtype).to(out.device)).sum()
                        for out in (outcome.outputs[n] for n in names))
            if not total.requires_grad:
                return tr("the results do not depend on the inputs through autograd: no gradient flows back from them")
            total.backward()
        except Exception as error:  # the learner's graph may raise anything
            return describe_error(error)
    return ""


def describe_kind(candidate):
    """What kind of object a unit is: 'none', 'module-class', 'class', 'function' or 'other', and its type's name."""
    if candidate is None:
        return {"kind": "none", "type": "NoneType"}
    if isinstance(candidate, type):
        return {"kind": "module-class" if issubclass(candidate, torch.nn.Module) else "class", "type": "type"}
    return {"kind": "function" if callable(candidate) else "other", "type": type(candidate).__name__}


def fresh(value):
    """A tensor argument copied, off the graph, keeping requires_grad; anything else as it is."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    return value


def _changed(after, before):
    if not isinstance(before, torch.Tensor):
        return False
    if after._version != 0 or after.shape != before.shape:
        return True
    return after.device.type != "meta" and not torch.equal(after.detach(), before)


def read_outputs(result, instance, where):
    """({name: tensor}, '') from a call's result, or (None, what is wrong with it)."""
    returned = sorted((int(spot.split(".")[1]), name) for name, spot in where.items() if spot.startswith("return."))
    if result is None and any(spot.startswith("return") for spot in where.values()):
        return None, tr("It returned None: is a `return` missing?")
    if returned and not (isinstance(result, (tuple, list)) and len(result) == len(returned)):
        names, wanted = ", ".join(name for _, name in returned), len(returned)
        if isinstance(result, (tuple, list)):
            return None, tr("It returned {count} values; the exercise asks for {wanted}: ({names}).",
                            count=len(result), wanted=wanted, names=names)
        return None, tr("It returned a {kind}; the exercise asks for {wanted}: ({names}).",
                        kind=type(result).__name__, wanted=wanted, names=names)
    outputs = {}
    for name, spot in where.items():
        if spot == "return":
            value = result
        elif spot.startswith("return."):
            value = result[int(spot.split(".")[1])]
        else:  # "attr.NAME"
            attribute = spot.split(".", 1)[1]
            value = getattr(instance, attribute, None)
            if value is None:
                return None, tr("After forward, self.{attribute} is not set: the exercise asks you to keep it there.",
                                attribute=attribute)
        if not isinstance(value, torch.Tensor):
            return None, tr("`{name}` is a {kind}, not a tensor.", name=name, kind=type(value).__name__)
        outputs[name] = value
    return outputs, ""
