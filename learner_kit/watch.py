"""Forbidden built-ins, seen while the learner's code runs (never by reading its source).

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

The checks run each unit inside a Watch, which looks at two levels:

- the PyTorch functions the code calls (a TorchFunctionMode): F.scaled_dot_product_attention, ...
  by identity, and any other handle on the same operator (torch.ops.aten.X, its OpOverload
  torch.ops.aten.X.default, torch._C._nn.X, torch.X), held in a variable or not;
- the ATen operators that actually run, below autograd (a TorchDispatchMode): the kernels that
  do a forbidden function's work (aten::_scaled_dot_product_flash_attention_for_cpu,
  aten::_safe_softmax, aten::_masked_softmax, aten::native_layer_norm, ...), whatever route
  reached them (torch function handling disabled, TorchScript, a torch-internal helper).

What a unit may not use is named by the dotted paths of functions (FORBIDDEN_FUNCTION_NAMES and
a unit's own), so that a grader in another process can ask for them; the operators watched are
derived from those names (KERNELS), so a unit that may use nn.LayerNorm is never flagged for
aten::native_layer_norm. A built module is scanned for PyTorch modules that do the work
(nn.MultiheadAttention, ...).
"""
import importlib
import os
import sys
import types

import torch
from torch import nn
from torch._ops import OpOverload, OpOverloadPacket
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from learner_kit.i18n import tr

# Built-ins that do an exercise's work, for every unit; a unit may add its own.
FORBIDDEN_FUNCTION_NAMES = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch._native_multi_head_attention",
    "torch._transformer_encoder_layer_fwd",
)
FORBIDDEN_MODULE_NAMES = (
    "torch.nn.MultiheadAttention",
    "torch.nn.Transformer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoder",
    "torch.nn.TransformerDecoderLayer",
)

# The ATen operators that do the work of a forbidden function (by its dotted name), on any device.
# A forbidden function that is itself an operator (torch.native_layer_norm, ...) forbids its own
# operator without being listed. Only forward operators: backward ones (..._backward) run when
# autograd differentiates an allowed module (nn.LayerNorm in AddNorm), and never do a forward's work.
_ATTENTION = (
    "aten::scaled_dot_product_attention",
    "aten::_scaled_dot_product_attention_math",  # composite: its own steps include aten::_safe_softmax
    "aten::_scaled_dot_product_attention_math_for_mps",
    "aten::_fused_sdp_choice",
    "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_flash_attention_for_cpu",
    "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_cudnn_attention",
    "aten::_scaled_dot_product_fused_attention_overrideable",
    "aten::_flash_attention_forward",
    "aten::_efficient_attention_forward",
    "aten::_triton_scaled_dot_attention",
    "aten::_flash_attention_forward_no_dropout_inplace",
    "aten::_safe_softmax",  # the math attention's softmax with a mask (and flex attention's)
    "higher_order::flex_attention",  # torch.nn.attention.flex_attention
)
_LAYER_NORM = ("aten::layer_norm", "aten::native_layer_norm")
_BATCH_NORM = ("aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm",
               "aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit_no_training",
               "aten::_native_batch_norm_legit_functional", "aten::cudnn_batch_norm", "aten::miopen_batch_norm",
               "aten::batch_norm_stats", "aten::batch_norm_elemt")
KERNELS = {
    "torch.nn.functional.scaled_dot_product_attention": _ATTENTION,
    "torch.nn.functional.multi_head_attention_forward": ("aten::_native_multi_head_attention",
                                                          "aten::_triton_multi_head_attention"),
    # softmax with a mask, a step of attention the learner writes (nothing the course allows runs it)
    "torch._native_multi_head_attention": ("aten::_masked_softmax",),
    "torch._transformer_encoder_layer_fwd": ("aten::_masked_softmax",),
    "torch.nn.functional.layer_norm": _LAYER_NORM,
    "torch.layer_norm": _LAYER_NORM,
    "torch.native_layer_norm": _LAYER_NORM,
    "torch.nn.functional.group_norm": ("aten::group_norm", "aten::native_group_norm"),
    "torch.nn.functional.instance_norm": ("aten::instance_norm", *_BATCH_NORM),
    "torch.nn.functional.batch_norm": _BATCH_NORM,
    "torch.nn.functional.rms_norm": ("aten::rms_norm", "aten::_fused_rms_norm"),
}


def resolve(dotted):
    """The object at a dotted path such as 'torch.nn.functional.scaled_dot_product_attention'."""
    module_name, _, attribute = dotted.rpartition(".")
    return getattr(importlib.import_module(module_name), attribute)


def by_name(dotted_names):
    """{callable: its dotted name} for the names that exist in this torch."""
    found = {}
    for dotted in dotted_names:
        try:
            found[resolve(dotted)] = dotted
        except (ImportError, AttributeError):
            pass
    return found


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_ROUTED = (OpOverload, OpOverloadPacket, types.BuiltinFunctionType, types.MethodDescriptorType)
_TENSOR_BASE = torch._C.TensorBase
_routes = {}  # callable -> (operator, name as the learner wrote it) or None


def route(function):
    """(qualified ATen operator name, the name the learner's code used) of a handle on an operator, or None.

    torch.ops.aten.X ('aten::X', 'torch.ops.aten.X'), its overloads, and the C bindings torch.X,
    torch._C._nn.X and torch.Tensor.X, which are named after the operator they call.
    """
    if not isinstance(function, _ROUTED):
        return None
    try:
        return _routes[function]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return None
    found = None
    if isinstance(function, OpOverload):
        found = function._name, f"torch.ops.{function.namespace}.{function.__name__}"
    elif isinstance(function, OpOverloadPacket):
        found = function._qualified_op_name, f"torch.ops.{function._qualified_op_name.replace('::', '.')}"
    else:
        name = getattr(function, "__name__", None)
        owner = getattr(function, "__objclass__", None)
        module = getattr(function, "__module__", None) if owner is None else (
            "torch.Tensor" if owner is _TENSOR_BASE else None)
        if isinstance(name, str) and isinstance(module, str) and (module == "torch" or module.startswith("torch.")):
            found = f"aten::{name}", f"{module}.{name}"
    if len(_routes) < 4096:
        _routes[function] = found
    return found


def kernels(forbidden):
    """{qualified ATen operator: dotted name of the forbidden function whose work it does} for {callable: name}."""
    found = {}
    for function, dotted in forbidden.items():
        for operator in KERNELS.get(dotted, ()):
            found.setdefault(operator, dotted)
        own = route(function)
        if own is not None:
            found.setdefault(own[0], dotted)
    return found


class Watch(TorchFunctionMode):
    """Records the first forbidden built-in the learner's code calls, as (mistake id, detail), in `found`.

    `modules` (classes) are those a built module must not hold; forbidden_submodule() judges them.
    Entered, it also enters an Operators mode (when a forbidden function has operators), which
    records the first forbidden ATen operator that runs, should no function call reveal it first.
    """

    def __init__(self, forbidden, modules=()):
        super().__init__()
        self.forbidden = forbidden  # {callable: dotted name}
        self.modules = tuple(modules)
        self.kernels = kernels(forbidden)  # {qualified ATen operator: dotted name}
        # names of the Python functions inside torch that do the same work (torch._refs.native_layer_norm, ...)
        self.frame_names = {operator.rpartition("::")[2] for operator in self.kernels} | {
            dotted.rpartition(".")[2] for dotted in forbidden.values()}
        self.found = None
        self._entry = None
        self._operators = None

    def __enter__(self):
        self._entry = sys._getframe(1)
        entered = super().__enter__()
        if self.kernels:
            self._operators = Operators(self)
            try:
                self._operators.__enter__()
            except BaseException:
                super().__exit__(*sys.exc_info())
                raise
        return entered

    def __exit__(self, exc_type, exc_val, exc_tb):
        operators, self._operators = self._operators, None
        try:
            if operators is not None:
                operators.__exit__(exc_type, exc_val, exc_tb)
        finally:
            super().__exit__(exc_type, exc_val, exc_tb)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if self.found is None:
            self.found = self._judge(func, sys._getframe(1))
        return func(*args, **(kwargs or {}))

    def _judge(self, func, frame):
        try:
            name = self.forbidden.get(func)
        except TypeError:  # an unhashable callable cannot be forbidden
            name = None
        if name is None and self.kernels:
            handle = route(func)
            if handle is not None and handle[0] in self.kernels:
                name = handle[1]
        if name is None and self.frame_names:
            name = self._torch_helper(frame)
        if name:
            return "forbidden-builtin", tr("Your code calls {name}.", name=name)
        return None

    def _torch_helper(self, frame):
        """The dotted name of a Python function of torch's, named after a forbidden one, that the call runs in
        (a reimplementation in Python: torch._refs.native_layer_norm, ...), from `frame` up to the entry; or None."""
        names, entry = self.frame_names, self._entry
        for _ in range(64):
            if frame is None or frame is entry:
                return None
            code = frame.f_code
            if code.co_name in names and code.co_filename.startswith(_TORCH_DIR):
                return f"{frame.f_globals.get('__name__', 'torch')}.{code.co_qualname}"
            frame = frame.f_back
        return None

    def judge_operator(self, operator):
        """(id, detail) when `operator` (an ATen OpOverload, or a higher-order operator) does a forbidden
        function's work."""
        name = getattr(operator, "_name", None)
        if not isinstance(name, str):
            return None
        if "::" not in name:  # a higher-order operator: torch.ops.higher_order.X
            name = f"higher_order::{name}"
        dotted = self.kernels.get(name)
        if dotted is None:
            return None
        shown = f"torch.ops.{name.replace('::', '.')}"
        return "forbidden-builtin", tr("Your code runs {op}, a PyTorch built-in that does this exercise's work, "
                                       "as {name} does.", op=shown, name=dotted)


class Operators(TorchDispatchMode):
    """The ATen operators that run while a Watch is entered (below autograd: forward operators only
    while the learner's code runs), judged by the Watch; each runs unchanged."""

    supports_higher_order_operators = True  # higher-order operators (flex attention's) are judged too, then run

    def __init__(self, watch):
        super().__init__()
        self.watch = watch

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        watch = self.watch
        if watch.found is None:
            watch.found = watch.judge_operator(func)
        if type(func) is OpOverload:  # its C++ callable: OpOverload.__call__ costs a Python frame per operator
            func = func._op
        return func(*args, **kwargs) if kwargs else func(*args)


def forbidden_submodule(instance, classes):
    """(id, detail) when `instance` is, or holds, a module of one of `classes` (which do the exercise)."""
    if not isinstance(instance, nn.Module) or not classes:
        return None
    for name, module in instance.named_modules():
        if isinstance(module, tuple(classes)):
            klass = f"{type(module).__module__.split('.')[0]}.nn.{type(module).__name__}"
            return "forbidden-builtin", (tr("Its submodule `{name}` is a {klass}.", name=name, klass=klass) if name else
                                         tr("It is a {klass}.", klass=klass))
    return None
