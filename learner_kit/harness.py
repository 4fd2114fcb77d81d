"""Run a graded unit on one case, and judge what came out.

The plumbing shared by the visible checks (learner_kit.visible) and the hidden ones
(autograder.checks): how a unit is called (Call, Case), what a call gave (Outcome), the
generic verdict on it (verdict), the properties every right answer has (violated_property)
and the naming of a known mistake from its outcomes (name_mistake). It holds no solution.
"""
import contextlib
import inspect
import linecache
import io
import types
import warnings
from dataclasses import dataclass, field, replace

import torch
from torch import nn

from learner_kit.i18n import tr
from learner_kit.messages import hint_for_error
from learner_kit.slips import slip_hint


def tolerance(dtype):
    """(rtol, atol) for comparing results of `dtype`; exact for integers and booleans.

    float32 keeps about 7 significant digits: two right answers that order the same sums
    differently (einsum or matmul, a hand-written softmax, -inf or -1e9 as the fill) differ
    by a few units in the last place times the length of the sums, about 1e-6 at the sizes
    the checks use. 1e-5 leaves room for that, while every known mistake is off by more than
    1e-2. float64 is held to the same margin of its own precision (about 1e-16).
    """
    if dtype == torch.float64:
        return 1e-10, 1e-10
    if dtype == torch.float32:
        return 1e-5, 1e-5
    if dtype.is_floating_point:  # half precision: not used by the checks today
        return 1e-3, 1e-3
    return 0.0, 0.0


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
class Outcome:
    """What one call gave: results, or an error, or results not where the exercise puts them."""

    outputs: dict | None = None
    error: BaseException | None = None
    error_type: str | None = None  # kept alone when an outcome is read back from a fingerprint
    problem: str = ""  # results missing or of the wrong kind
    modified: tuple = ()  # names of the inputs the call changed in place
    weight_problems: tuple = ()  # state_dict names that did not fit the module
    inputs: dict | None = None  # the arguments as the call left them (their .grad included)
    instance: object = None  # the module that was called, for module units
    backprop_failure: str = ""  # what went wrong backpropagating (when run(..., backprop=...) asked for it)
    trace: dict | None = None  # what the unit computed on the way (learner_kit.trace), when run(..., trace=True) asked


class Remote:
    """A unit that lives in another process: `run` and `wrong_kind` ask it rather than call it.

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


def run(target, call, case, guard=None, backprop=None, trace=False, built=None):
    """Call `target` (a function, or a module class built with call.init) on `case`.

    Never raises for what the target does: errors are recorded in the Outcome. Runs with
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
    outcome = Outcome(inputs=args)
    recorder = _recorder(args) if trace else None
    with isolated(default_dtype=case.dtype if case.dtype == torch.float64 else torch.float32), bound(target, call.bindings):
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
                return tr("the results do not depend on the inputs through autograd (is something detached?)")
            total.backward()
        except Exception as error:  # the learner's graph may raise anything
            return describe_error(error)
    return ""


@contextlib.contextmanager
def isolated(default_dtype=torch.float32):
    """Silence warnings and printing; float32 default dtype (unless told), gradients on, one thread; restore after.

    One thread: the checks' tensors are tiny, and on a busy machine torch's thread pool
    makes each small operation wait for milliseconds.
    """
    default, threads = torch.get_default_dtype(), torch.get_num_threads()
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        with torch.random.fork_rng(devices=[]), torch.enable_grad():
            torch.set_default_dtype(default_dtype)
            torch.set_num_threads(1)
            try:
                yield
            finally:
                torch.set_default_dtype(default)
                torch.set_num_threads(threads)


def seed(value):
    """Seed torch's CPU generator, the one the checks' modules and dropout draw from.

    Not torch.manual_seed: without CUDA initialised, that also queues lazy CUDA, XPU and MTIA
    seeding, each recording a formatted stack (milliseconds per call).
    """
    torch.default_generator.manual_seed(value)


def describe_kind(candidate):
    """What kind of object a unit is: 'none', 'module-class', 'class', 'function' or 'other', and its type's name."""
    if candidate is None:
        return {"kind": "none", "type": "NoneType"}
    if isinstance(candidate, type):
        return {"kind": "module-class" if issubclass(candidate, torch.nn.Module) else "class", "type": "type"}
    return {"kind": "function" if callable(candidate) else "other", "type": type(candidate).__name__}


def wrong_kind(candidate, is_module, name):
    """(id, detail) when `candidate` is not the kind of object the unit is, else None."""
    described = candidate.kind if isinstance(candidate, Remote) else describe_kind(candidate)
    a_class, kind = described["kind"] in ("class", "module-class"), described["type"]
    if described["kind"] == "missing":
        return "runtime-error", tr("`{name}` is not defined: did its cell run to the end?", name=name)
    if described["kind"] == "none":
        return "not-implemented", tr("`{name}` is None.", name=name)
    if is_module and described["kind"] != "module-class":
        return "wrong-interface", (
            tr("`{name}` should be a class derived from nn.Module (the class itself, not an instance); got a class.",
               name=name) if a_class else
            tr("`{name}` should be a class derived from nn.Module (the class itself, not an instance); got a {kind}.",
               name=name, kind=kind))
    if not is_module and described["kind"] != "function":
        return "wrong-interface", (tr("`{name}` should be a function; got a class.", name=name) if a_class else
                                   tr("`{name}` should be a function; got a {kind}.", name=name, kind=kind))
    return None


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


def load_weights(module, weights):
    """Copy `weights` into `module` by name; return what did not fit, in words."""
    if not weights:
        return ()
    own = module.state_dict()
    parameters = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    fitting = {k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}
    module.load_state_dict(fitting, strict=False)
    missing = [k for k in weights if k not in own]
    # buffers not given stay the learner's; a second name for a parameter that fits (the same layer also
    # kept in a list, say) is not a parameter of its own
    fitted = {own[k].data_ptr() for k in fitting}
    unexpected = [k for k in own if k not in weights and k in parameters and own[k].data_ptr() not in fitted]
    problems, explained = _interface_notes(module, missing, unexpected)
    missing = [k for k in missing if k not in explained]
    unexpected = [k for k in unexpected if k not in explained]
    if missing:
        problems.append(tr("Missing: {names}.", names=_by_submodule(missing)))
    if unexpected:
        problems.append(tr("Not in the exercise: {names}.", names=_by_submodule(unexpected)))
    for key in weights.keys() & own.keys() - fitting.keys():
        problems.append(tr("`{key}` has shape {shape}, expected {expected}.", key=key, shape=tuple(own[key].shape),
                           expected=tuple(weights[key].shape)))
    return tuple(problems)


def _interface_notes(module, missing, unexpected):
    """Sentences for the usual causes of names that do not fit, and the names they explain:
    a plain tensor where a parameter belongs, modules kept in a Python list, and a submodule of
    the learner's own class where the exercise builds PyTorch's."""
    notes, explained = [], set()
    lists, plain = {}, []
    for key in missing:
        *path, leaf = key.split(".")
        owner = _attribute(module, path)
        value = getattr(owner, leaf, None) if owner is not None else None
        if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
            plain.append(key)
            continue
        for depth in range(1, len(path) + 1):
            holder = _attribute(module, path[:depth])
            if isinstance(holder, (list, tuple, dict)) and not isinstance(holder, nn.Module):
                lists.setdefault(".".join(path[:depth]), []).append(key)
                break
    if plain:
        names = joined(f"`{key}`" for key in plain)
        notes.append(tr("{names} is a plain tensor, so PyTorch does not count it as a parameter (never trained or "
                        "saved): wrap it in nn.Parameter.", names=names) if len(plain) == 1 else
                     tr("{names} are plain tensors, so PyTorch does not count them as parameters (never trained or "
                        "saved): wrap each in nn.Parameter.", names=names))
        explained.update(plain)
    for name, keys in lists.items():
        kind = type(_attribute(module, name.split("."))).__name__
        container = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
        notes.append(tr("`{name}` is a Python {kind}: PyTorch does not see the modules inside a plain {kind} "
                        "(their parameters are never trained, moved or saved): hold them in an {container}.",
                        name=name, kind=kind, container=container))
        explained.update(keys)
    owners = {key.rsplit(".", 1)[0] for key in missing if "." in key and key not in explained}
    for owner in sorted(owners):
        sub = _attribute(module, owner.split("."))
        theirs = sorted(k.rsplit(".", 1)[1] for k in missing if k.rsplit(".", 1)[0] == owner)
        mine = sorted(k.rsplit(".", 1)[1] for k in unexpected if "." in k and k.rsplit(".", 1)[0] == owner)
        if owner in unexpected:  # a tensor of its own where the exercise builds a submodule (self.lut = nn.Parameter(...))
            notes.append(tr("`{owner}` is a tensor parameter of your module; in the exercise `{owner}` is a submodule "
                            "with the parameters {theirs}: build it as the module the exercise names, and call it.",
                            owner=owner, theirs=", ".join(f"`{owner}.{leaf}`" for leaf in theirs)))
            explained.update({owner, *(f"{owner}.{leaf}" for leaf in theirs)})
            continue
        kind = type(sub)
        if isinstance(sub, nn.Module) and mine and not kind.__module__.startswith("torch.") and hasattr(nn, kind.__name__):
            notes.append(tr("`{owner}` is your own `{klass}` class (parameters {mine}); the exercise builds `{owner}` "
                            "from PyTorch's `nn.{klass}` (parameters {theirs}): use `nn.{klass}` here, as the exercise "
                            "says.", owner=owner, klass=kind.__name__, mine=", ".join(mine), theirs=", ".join(theirs)))
            explained.update(f"{owner}.{leaf}" for leaf in theirs + mine)
    return notes, explained


def _attribute(module, path):
    """module.a.b for path ['a', 'b'] (list items by index), or None."""
    value = module
    for part in path:
        if isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _by_submodule(keys):
    """'w_o (w_o.weight, w_o.bias)' for each submodule the state_dict keys belong to."""
    groups = {}
    for key in keys:
        groups.setdefault(key.rsplit(".", 1)[0] if "." in key else key, []).append(key)
    return "; ".join(f"`{owner}` ({', '.join(names)})" for owner, names in groups.items())


def joined(names):
    """'`a` and `b` and `c`': names put together in the current language."""
    names = list(names)
    text = names[0] if names else ""
    for name in names[1:]:
        text = tr("{first} and {second}", first=text, second=name)
    return text


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


def verdict(got, want, case, axes=None, values=True):
    """(generic id, detail) for the first thing wrong with `got`, or None.

    `want` is the reference's outcome on the same case. With values=False only the guards
    (errors, interface, in-place changes, shape and dtype, NaN) are judged.
    """
    where = f"{case.label}: " if case.label else ""
    if got.error is not None or got.error_type is not None:
        if is_blank(got.error, got.error_type):
            return "not-implemented", ""
        return "runtime-error", where + describe_error(got.error)
    if got.problem:
        return "wrong-interface", where + got.problem
    mismatch = _mismatch(got, want, case, axes or {}, values)
    if mismatch and got.weight_problems:
        return "wrong-interface", tr("Parameter names differ from the exercise's.") + " " + " ".join(got.weight_problems)
    if mismatch:
        return mismatch[0], where + mismatch[1]
    if got.modified:
        return "inplace-input", where + tr("`{name}` was changed by the call.", name=got.modified[0])
    return None


def _mismatch(got, want, case, axes, values):
    names = case.names(want.outputs)
    for name in names:
        mine, theirs = got.outputs[name], want.outputs[name]
        if mine.shape != theirs.shape:
            return "shape", tr("`{name}` has shape {shape}, expected {expected}.", name=name, shape=tuple(mine.shape),
                               expected=tuple(theirs.shape))
        if mine.dtype != theirs.dtype:
            return "shape", tr("`{name}` has dtype {dtype}, expected {expected}.", name=name, dtype=mine.dtype,
                               expected=theirs.dtype)
    if not values:
        return None
    for name in names:
        mine, theirs = got.outputs[name].detach(), want.outputs[name].detach()
        if mine.is_floating_point() and bool((mine.isnan() & ~theirs.isnan()).any()):
            spot = _where(mine.isnan() & ~theirs.isnan(), axes.get(name, ()))
            cause = _mask_cause() if case.inputs.get("mask") is not None else ""
            return "nan", tr("`{name}` holds NaN{where}.", name=name, where=spot) + cause
    for name in names:
        if not close(got.outputs[name], want.outputs[name]):
            return "wrong-values", describe_difference(name, got.outputs[name], want.outputs[name], axes.get(name, ()))
    return None


def _mask_cause():
    return tr(" The case has a mask: look at what your code does with blocked positions.")


def close(mine, theirs):
    rtol, atol = tolerance(theirs.dtype)
    mine, theirs = mine.detach(), theirs.detach()
    if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
        return False
    if not mine.is_floating_point():
        return torch.equal(mine, theirs)
    return torch.allclose(mine, theirs, rtol=rtol, atol=atol, equal_nan=True)


def describe_difference(name, mine, theirs, axes=()):
    """'`weights`: max abs difference 0.37 at batch 0, head 1, query 2, key 3.' (axes=None: at index (...))"""
    mine, theirs = mine.detach(), theirs.detach()
    if not mine.is_floating_point():
        wrong = mine != theirs
        return tr("`{name}`: {count} of {total} entries differ, the first{where}.", name=name, count=int(wrong.sum()),
                  total=wrong.numel(), where=_where(wrong, axes))
    gap = (mine.double() - theirs.double()).abs().nan_to_num(nan=float("inf"))
    if mine.dim() == 0:
        text = tr("`{name}` is {value:.5g}, expected {expected:.5g} (a difference of {gap:.3g}).", name=name,
                  value=float(mine), expected=float(theirs), gap=float(gap))
    else:
        text = tr("`{name}`: max abs difference {gap:.3g}{where}.", name=name, gap=float(gap.max()),
                  where=_where(gap == gap.max(), axes))
    relative = float((gap / theirs.double().abs().clamp_min(1e-3)).max())
    if theirs.dtype == torch.float64 and relative < 1e-4:
        text += tr(" That is float32 precision: a constant or tensor inside your code is made in "
                   "float32; make it in the inputs' dtype or use a Python number.")
    return text


def _where(flags, axes):
    """' at batch 0, query 2, key 3' for the first True entry of `flags` ('' for a single number);
    axes=None: a tensor whose axes have no such meaning (a parameter), ' at index (11, 3)'."""
    if not bool(flags.any()) or flags.dim() == 0:
        return ""
    index = [int(i) for i in flags.nonzero()[0]]
    if axes is None:
        return tr(" at index ({index})", index=", ".join(map(str, index)))
    return tr(" at {position}", position=position(index, axes))


def position(index, axes=()):
    """'batch 0, head 1, query 2, key 3': `axes` names the last axes, the first two are batch and head."""
    names = list(axes)[-len(index):] if axes and index else []
    names = ["batch", "head"][: len(index) - len(names)] + names
    words = _axis_words()
    names = [tr("axis {number}", number=i) for i in range(len(index) - len(names))] + [words.get(n, n) for n in names]
    return ", ".join(f"{name} {i}" for name, i in zip(names, index))


def _axis_words():
    """The names of the axes that messages use, in the current language."""
    return {"batch": tr("batch"), "head": tr("head"), "query": tr("query"), "key": tr("key"),
            "position": tr("position"), "feature": tr("feature"), "word": tr("word")}


def describe_error(error):
    """'ValueError: its text', where the learner's own code raised it, and a hint about its usual cause."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    line = raised_where(error)
    hint = slip_hint(error) or hint_for_error(error)
    described = (f"{type(error).__name__}: {text[:300]}" if text else
                 tr("{error_type} (with no message)", error_type=type(error).__name__))
    if line:
        described += "\n" + (tr("Your own code raised it, at {line}: was that input really wrong?", line=line) if isinstance(
            error, (AssertionError, ValueError)) and getattr(error, "raised_by_learner", True) else
            tr("Raised at {line}.", line=line))
    return described + ("\n" + tr("Hint: {hint}", hint=hint) if hint else "")


def raised_where(error):
    """'line 14 of your cell, `scores = ...`': where the learner's code raised `error` (mark_learner_line), in the
    current language; '' when it is not known."""
    spot = getattr(error, "learner_line_at", None)  # (number, code), kept apart from the words
    if not spot:
        return getattr(error, "learner_line", "")
    number, code = spot
    return (tr("line {number} of your cell, `{code}`", number=number, code=code) if code else
            tr("line {number} of your cell", number=number))


def _code_files(target):
    """The files (notebook cells) that the learner's function or class was compiled from."""
    owners = [target] if not isinstance(target, type) else [
        k for k in target.__mro__ if k is not object and k.__module__ not in _LIBRARY_MODULES and k.__module__.split(".")[0] != "torch"]
    files = set()
    for owner in owners:
        for value in ([owner] if not isinstance(owner, type) else vars(owner).values()):
            function = getattr(value, "__func__", value)
            # a decorated function (@torch.no_grad()) runs the learner's code inside a wrapper
            function = inspect.unwrap(function) if callable(function) else function
            code = getattr(function, "__code__", None)
            if code is not None:
                files.add(code.co_filename)
    return files


_LIBRARY_MODULES = ("learner_kit.harness", "learner_kit.stand_ins", "learner_kit.replay")


def mark_learner_line(error, target):
    """Note on `error` (as `learner_line_at`, its number and code, and `learner_line`, in English words) the last
    line of the learner's own code it passed through, and (as `raised_by_learner`) whether that code raised it
    itself rather than a library it called. raised_where() says the line in the learner's language."""
    files, found, trace, last = _code_files(target), None, error.__traceback__, None
    while trace is not None:
        if trace.tb_frame.f_code.co_filename in files:
            found = trace
        last, trace = trace, trace.tb_next
    if found is None:
        return
    number = found.tb_lineno
    text = linecache.getline(found.tb_frame.f_code.co_filename, number).strip()
    try:
        error.learner_line_at = (number, text[:200])
        error.learner_line = f"line {number} of your cell" + (f", `{text[:200]}`" if text else "")  # in English
        # a `raise` statement of theirs; an error from a C++ operation has no frame of its own
        # (with no text to read, as for code made from a string, its last frame decides)
        error.raised_by_learner = found is last and (not text or text.startswith(("raise", "assert")))
    except AttributeError:  # an exception type without a __dict__
        pass


def is_blank(error, error_type=None):
    """Whether an error means a blank left unfilled: a NotImplementedError that the learner's own code
    raised (`raise NotImplementedError()`), not one from PyTorch (an operation missing for a dtype) or
    from nn.Module (a module without `forward`), which are mistakes to explain."""
    if error is None:
        return error_type == "NotImplementedError"
    return isinstance(error, NotImplementedError) and getattr(error, "raised_by_learner", True)


def same_outcome(mine, theirs, case):
    """Whether two outcomes agree: the same error type, or equal results (NaN equal to NaN)."""
    if mine.problem or theirs.problem:
        return False
    if mine.error_type or theirs.error_type:
        return mine.error_type == theirs.error_type
    names = case.names(theirs.outputs)
    return all(name in mine.outputs and close(mine.outputs[name], theirs.outputs[name]) for name in names)


def nameable(generic_id, outcome):
    """Whether a failure may be explained by a known mistake: not a blank, and not a module whose
    weights could not be loaded (its results are then its own initial weights', which can look
    like a mistake it did not make: gamma and beta left as plain tensors behave like no gamma)."""
    return generic_id != "not-implemented" and not (generic_id == "wrong-interface" and outcome.weight_problems)


def named_detail(generic_id, detail):
    """The detail shown under a named mistake that explained a `generic_id` failure."""
    if generic_id == "nan":
        detail = detail.replace(_mask_cause(), "") + tr(" It comes with the mistake named above: fix that first.")
    return detail


def same_but_nan(mine, theirs, case):
    """Whether `mine` equals `theirs` wherever `mine` is not NaN: the same mistake, written with a
    -inf that turns some results into NaN where the mistake written with a finite number does not
    (a softmax over the wrong axis meets a column that is all -inf)."""
    if mine.problem or theirs.problem or mine.error_type or theirs.error_type:
        return False
    names = case.names(theirs.outputs)
    for name in names:
        a, b = mine.outputs.get(name), theirs.outputs[name]
        if a is None or a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point():
            a, b, kept = a.detach(), b.detach(), ~a.detach().isnan()
            a, b = a[kept], b[kept]
        if not close(a, b):
            return False
    return True


def _differs_where_finite(mine, reference, case):
    """Whether `mine` differs from the reference somewhere it is not NaN (so NaN is not all that is wrong)."""
    for name in case.names(reference.outputs):
        a, b = mine.outputs[name].detach(), reference.outputs[name].detach()
        if a.shape != b.shape or a.dtype != b.dtype:
            return True
        kept = ~a.isnan() if a.is_floating_point() else torch.ones_like(a, dtype=torch.bool)
        if bool(kept.any()) and not close(a[kept], b[kept]):
            return True
    return False


def name_mistake(learner, variants, cases, reference):
    """The id of the first known mistake that explains a failure and behaves like the learner's code.

    cases[0] is the failing case, `reference` the reference's outcome on it and `learner`
    the learner's outcomes, one per case. `variants` yields (id, outcomes) pairs, outcomes
    in case order, possibly lazily (evaluation stops at the first disagreement). A mistake
    is named when its outcome on the failing case differs from the reference's (so it
    explains the failure) and equals the learner's on every case. Where the learner's
    results hold NaN and are wrong elsewhere too, they are compared where they are not NaN
    (same_but_nan): a specific mistake outranks the generic symptom.
    """
    nan_too = (learner[0].outputs is not None and not learner[0].problem and reference.outputs is not None
               and any(v.is_floating_point() and bool(v.detach().isnan().any()) for v in learner[0].outputs.values())
               and _differs_where_finite(learner[0], reference, cases[0]))
    same = (lambda mine, theirs, case: same_outcome(mine, theirs, case) or same_but_nan(mine, theirs, case)) if nan_too \
        else same_outcome
    for mistake_id, outcomes in variants:
        outcomes = iter(outcomes)
        first = next(outcomes)
        if same_outcome(first, reference, cases[0]) or not same(learner[0], first, cases[0]):
            continue
        if all(same(mine, theirs, case) for mine, theirs, case in zip(learner[1:], outcomes, cases[1:])):
            return mistake_id
    return None


# -------------------------------------------------------------- properties

def violated_property(properties, outcome, case, axes=None):
    """A sentence saying which of `properties` the outcome breaks, or ''.

    A property is a tuple, ("rows_sum_to_one", result) or ("masked_zero", result, mask input),
    or a function (outcome, case) -> sentence or '' for a property of one unit (hidden checks).
    """
    axes = axes or {}
    for prop in properties:
        if callable(prop):
            problem = prop(outcome, case)
            if problem:
                return problem
            continue
        kind, name, *more = prop
        weights = outcome.outputs[name].detach()
        if kind == "rows_sum_to_one":
            rtol, atol = tolerance(weights.dtype)
            sums = weights.sum(dim=-1)
            off = (sums - 1).abs() > atol + rtol
            if bool(off.any()):
                return tr("Each row of `{name}` should sum to 1 over the keys; the row{where} sums to {total:.4g}.",
                          name=name, where=_where(off, axes.get(name, ())[:-1]), total=float(sums[off][0]))
        elif kind == "masked_zero":
            mask = case.inputs.get(more[0])
            if mask is None:
                continue
            blocked = ~torch.broadcast_to(mask.bool(), weights.shape)
            leak = blocked & (weights != 0)
            if bool(leak.any()):
                return tr("A blocked key (mask False) gets weight {weight:.3g}{where}, not exactly 0: after the softmax, "
                          "blocked keys must have no weight at all.", weight=float(weights[leak][0]),
                          where=_where(leak, axes.get(name, ())))
        else:
            raise ValueError(f"unknown property {kind!r}")
    return ""
