"""What a unit computes on the way to its results, recorded as plain data.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

A failing unit is run once more with a Recorder around it, and so is the reference on the same
case; learner_kit.locate compares the two records and says where they part. The record holds:

- calls: every call of a submodule of a module unit (forward hooks), in the order they start:
  its name (``cross_attn``, ``layers.0``), its arguments by the forward's parameter names, and
  what it returned;
- ops: every ATen operator that runs in the unit's own code, outside any submodule (a
  TorchDispatchMode, below autograd, so ``@`` and ``F.softmax`` are seen whatever route reached
  them): the operator's name, its non-tensor arguments, where each tensor argument came from (an
  input of the unit, an earlier op, a call's result) and the tensor it gave;
- given: the values of tensors an op was given that came from none of those (a weight, what a
  graded helper replayed by the checks returned).

Only numbers, strings and tensors (detached CPU copies) are kept, so a record made in the grading
sandbox crosses to the grader like any result. It holds no solution: the reference's record is
made by the checks, on the grader's side, and stored as numbers for the visible checks.
"""
import inspect
import sys

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

MAX_OPS = 400  # a unit's own operators on one case: the reference's largest unit runs about 60
MAX_CALLS = 200
MAX_ELEMENTS = 2_000_000  # of all tensors kept, so that a loop in the learner's code cannot fill memory

# Operators that move or view numbers without computing new ones, or make constants: kept for
# tracing where a tensor came from, never chosen as the step where two computations part.
SHAPE_ONLY = frozenset({
    "view", "_unsafe_view", "reshape", "expand", "expand_as", "transpose", "t", "permute", "unsqueeze", "squeeze",
    "contiguous", "clone", "alias", "detach", "_to_copy", "to", "slice", "select", "lift_fresh", "lift_fresh_copy",
    "copy_", "copy", "empty_like", "empty", "split", "split_with_sizes", "unbind", "as_strided", "ones_like",
    "zeros_like", "full", "full_like", "scalar_tensor", "_local_scalar_dense", "arange", "fill_", "fill",
    "new_empty", "new_zeros", "new_ones", "new_full", "zeros", "ones", "_reshape_alias", "view_as", "flatten",
    "unflatten", "movedim", "narrow", "index_select", "resolve_conj", "resolve_neg", "_conj", "stack", "cat",
    "set_", "_assert_tensor_metadata", "empty_strided", "_reshape_copy", "dropout", "native_dropout",
})


UNINITIALISED = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"})


def _bare(name):
    return name.lstrip("_")


SHAPE_ONLY = frozenset(map(_bare, SHAPE_ONLY))


def _kind_of(sub):
    return "method" if inspect.ismethod(sub) else type(sub).__name__


def op_name(func):
    """'softmax' for aten._softmax.default, 'mean' for aten.mean.dim: the operator without overload or underscore."""
    name = str(getattr(func, "__name__", func)).split(".")[0]
    return name[2:-2] if name.startswith("__") and name.endswith("__") else name.lstrip("_")


class Recorder(TorchDispatchMode):
    """Records calls and the unit's own operators while the unit runs (see the module's docstring).

    Use: ``with Recorder(inputs, module) as recorder: ...``; then ``recorder.record()``. A module unit's
    recorder may be entered first around its construction (what __init__ computes: a positional table),
    then given the module (``watch``) and entered again around the call.
    """

    def __init__(self, inputs, module=None):
        super().__init__()
        self.ops, self.calls, self.elements, self.full = [], [], 0, False
        self.depth = 0  # how many submodule calls are open: the unit's own ops run at depth 0
        self.open = {}  # id(submodule) -> its calls not yet returned (a module may call itself)
        self.sources = {}  # id(tensor) -> ("input", name) | ("op", index) | ("call", index)
        self.alive = []  # the tensors whose ids are in `sources` (so that an id is never reused)
        self.given = []  # the values of tensors an op was given that came from outside the record (weights, replays)
        for name, value in inputs.items():
            if isinstance(value, torch.Tensor):
                self._source(value, ("input", name))
        self.handles, self.raised, self.wrapped = [], False, []
        self.unset = set()  # indices of ops whose output is uninitialised memory (torch.empty, views of it)
        self.functions = _RaisedFunctions(self)
        self.watch(module)
        for name, value in inputs.items():  # a model given as an argument (greedy decoding): its calls too
            if isinstance(value, torch.nn.Module):
                self._hook(value, prefix=name)
                self._wrap_methods(value, name)

    def watch(self, module):
        """Record the calls of `module`'s submodules from now on (a function unit has none)."""
        if isinstance(module, torch.nn.Module) and not self.handles:
            self._hook(module)

    def forget_construction(self):
        """Drop what was recorded so far (a constructor's work the checks then replace)."""
        self.ops, self.calls, self.elements, self.unset, self.given = [], [], 0, set(), []
        self.sources = {key: value for key, value in self.sources.items() if value[0] == "input"}

    # ------------------------------------------------------------------ submodule calls

    def _hook(self, module, prefix=""):
        names = {}
        for name, sub in module.named_modules(remove_duplicate=False):
            if name and sub is not module:
                names.setdefault(id(sub), []).append(f"{prefix}.{name}" if prefix else name)
        seen = set()
        for name, sub in module.named_modules():
            if not name or id(sub) in seen or sub is module:
                continue
            seen.add(id(sub))
            self.handles.append(sub.register_forward_pre_hook(self._before(names[id(sub)], sub), with_kwargs=True))
            self.handles.append(sub.register_forward_hook(self._after(sub), with_kwargs=True, always_call=True))

    def _before(self, names, sub):
        def hook(module, args, kwargs):
            if len(self.calls) < MAX_CALLS:
                entry = {"name": names[0], "aliases": list(names), "kind": _kind_of(sub), "depth": self.depth,
                         "args": self._arguments(sub, args, kwargs), "output": None, "op_index": len(self.ops)}
                self.calls.append(entry)
                opened = (len(self.calls) - 1, entry)
            else:
                self.full, opened = True, None
            self.open.setdefault(id(sub), []).append(opened)
            self.depth += 1
        return hook

    def _after(self, sub):
        def hook(module, args, kwargs, output):
            self.depth -= 1
            open_calls = self.open.get(id(sub)) or [None]
            opened = open_calls.pop() if open_calls else None
            first = tree_flatten(output)[0][:1] if output is not None else []
            if opened is not None and output is None and sys.exc_info()[0] is not None:
                opened[1]["raised"] = True  # the call is ending with an exception (always_call)
            if opened is not None and first and isinstance(first[0], torch.Tensor):
                index, entry = opened
                entry["output"] = self._kept(first[0])
                self._source(first[0], ("call", index))
        return hook

    def _wrap_methods(self, module, prefix):
        """Record the calls of a model argument's own methods (encode, decode), as calls of its submodules are."""
        for name in dir(type(module)):
            if name.startswith("_") or name == "forward" or hasattr(torch.nn.Module, name):
                continue
            method = getattr(module, name, None)
            if not callable(method) or not inspect.ismethod(method):
                continue
            before, after = self._before([f"{prefix}.{name}"], method), self._after(method)

            def wrapper(*args, _before=before, _after=after, _method=method, **kwargs):
                _before(None, args, kwargs)
                output = None
                try:
                    output = _method(*args, **kwargs)
                    return output
                finally:
                    _after(None, args, kwargs, output)

            module.__dict__[name] = wrapper
            self.wrapped.append((module, name))

    def _arguments(self, sub, args, kwargs):
        """{parameter name: a kept tensor, None, or a short text} of one call."""
        try:
            bound = inspect.signature(sub if inspect.ismethod(sub) else sub.forward).bind_partial(*args, **kwargs).arguments
        except (TypeError, ValueError):
            bound = {f"arg{i}": value for i, value in enumerate(args)} | dict(kwargs)
        kept = {}
        for name, value in bound.items():
            if isinstance(value, torch.Tensor):
                kept[str(name)] = self._kept(value)
            elif value is None:
                kept[str(name)] = None
        return kept

    # ------------------------------------------------------------------ the unit's own operators

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            result = func(*args, **kwargs)
        except Exception:
            self.raised_here(func, args, kwargs)
            raise
        if self.depth == 0 and not self.full:
            if len(self.ops) >= MAX_OPS:
                self.full = True
            else:
                self._record_op(func, args, kwargs, result)
        return result

    def raised_here(self, func, args, kwargs):
        """Record the step that raised, with what it was given (once: the innermost level that saw it)."""
        if self.depth == 0 and not self.full and len(self.ops) < MAX_OPS and not self.raised:
            self.raised = True
            self._record_op(func, args, kwargs, None)

    def _record_op(self, func, args, kwargs, result):
        flat, _ = tree_flatten((args, kwargs))
        inputs, plain = [], []
        for value in flat:
            if isinstance(value, torch.Tensor):
                inputs.append(list(self.sources.get(id(value), ("unknown", ""))))
                if id(value) not in self.sources and result is not None:  # from outside the record (a replayed
                    self._source(value, ("unknown", ""))                    # helper's result): its values are kept
                    kept = self._kept(value)
                    if kept is not None:
                        self.given.append(kept)
            elif isinstance(value, (bool, int, float, str)) or value is None:
                plain.append(value)
            elif isinstance(value, torch.dtype):
                plain.append(str(value))
        if result is None:  # it raised
            shapes = [list(t.shape) for t in flat if isinstance(t, torch.Tensor)]
            self.ops.append({"op": op_name(func), "args": plain, "inputs": inputs, "output": None, "raised": True,
                             "shapes": shapes})
            return
        outputs = [t for t in tree_flatten(result)[0] if isinstance(t, torch.Tensor)]
        if not outputs:
            return
        # The numbers of an uninitialised tensor (and of views of it) are whatever memory held: not kept
        name = op_name(func)
        unset = name in UNINITIALISED or (name in SHAPE_ONLY and any(
            kind == "op" and where in self.unset for kind, where in inputs))
        entry = {"op": name, "args": plain, "inputs": inputs, "output": None if unset else self._kept(outputs[0])}
        if unset:
            self.unset.add(len(self.ops))
        self.ops.append(entry)
        self._source(outputs[0], ("op", len(self.ops) - 1))

    # ------------------------------------------------------------------ keeping tensors

    def _source(self, tensor, source):
        self.sources[id(tensor)] = source
        self.alive.append(tensor)

    def _kept(self, tensor):
        """A detached CPU copy, or None past the budget or where there are no values (meta)."""
        if tensor.device.type == "meta" or self.elements + tensor.numel() > MAX_ELEMENTS:
            self.full = self.full or tensor.device.type != "meta"
            return None
        self.elements += tensor.numel()
        with torch._C.DisableTorchFunctionSubclass():
            return tensor.detach().to("cpu", copy=True)

    def __enter__(self):
        entered = super().__enter__()
        self.functions.__enter__()
        return entered

    def __exit__(self, *exc):
        self.functions.__exit__(*exc)
        return super().__exit__(*exc)

    def record(self):
        """The record as plain data: {"calls": [...], "ops": [...], "complete": bool}; the hooks are removed."""
        for handle in self.handles:
            handle.remove()
        for module, name in self.wrapped:
            module.__dict__.pop(name, None)
        self.handles, self.wrapped = [], []
        return {"calls": self.calls, "ops": self.ops, "given": self.given, "complete": not self.full}


class _RaisedFunctions(TorchFunctionMode):
    """The PyTorch function that raised, where no operator below it did: a matrix product's shapes are checked
    before any operator runs."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except Exception:
            self.recorder.raised_here(func, args, kwargs or {})
            raise


def traced_call(function, arguments, guard=None):
    """``function(*arguments.values())`` under a Recorder (and `guard`, a context, where given), isolated as the
    checks run units: (result, error, record); the record says "raised" where the call raised."""
    import contextlib

    from learner_kit.torch_state import isolated

    recorder, result, error = Recorder(dict(arguments)), None, None
    with isolated():
        try:
            with guard if guard is not None else contextlib.nullcontext(), recorder:
                result = function(*arguments.values())
        except Exception as caught:  # the learner's code may raise anything
            error = caught
    return result, error, {**recorder.record(), **({"raised": True} if error is not None else {})}


def numbers_as_tensors(arguments):
    """For a function of plain numbers only (noam_rate), the arguments as 0-dim float64 tensors, so that its
    arithmetic runs as operators a Recorder sees; None where any argument is something else. A record made so
    speaks of the plain call only where both give the same result (the caller checks that)."""
    if not arguments or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in arguments.values()):
        return None
    return {name: torch.tensor(float(v), dtype=torch.float64) for name, v in arguments.items()}


def same_as_plain(plain, traced):
    """Whether a call on numbers traced as tensors gave what the plain call gave: each a (result, error) pair; the
    same error type, or results equal as numbers (float64 arithmetic either way; a library's pow may differ in
    the last bit)."""
    (plain_result, plain_error), (traced_result, traced_error) = plain, traced
    if plain_error is not None or traced_error is not None:
        return plain_error is not None and traced_error is not None and type(plain_error) is type(traced_error)
    mine, theirs = as_number(plain_result), as_number(traced_result)
    return mine is not None and theirs is not None and abs(mine - theirs) <= 1e-9 * max(abs(mine), abs(theirs), 1e-300)


def as_number(value):
    """A plain number from a Python number or a one-element tensor; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.dtype.is_complex:
        return float(value.detach().reshape(()))
    return None
