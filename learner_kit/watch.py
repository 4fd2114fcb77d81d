"""Forbidden built-ins, seen while the learner's code runs (never by reading its source).

The checks run each unit inside a Watch: a TorchFunctionMode that records the first call
of a PyTorch function that does the exercise's work (F.scaled_dot_product_attention, ...).
A built module is scanned for PyTorch modules that do the work (nn.MultiheadAttention, ...).
Both are named by their dotted path, so that a grader in another process can ask for them.
"""
import importlib
import sys

from torch import nn
from torch.overrides import TorchFunctionMode

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


class Watch(TorchFunctionMode):
    """Records the first forbidden built-in the learner's code calls, as (mistake id, detail), in `found`.

    `modules` (classes) are those a built module must not hold; forbidden_submodule() judges them.
    """

    def __init__(self, forbidden, modules=()):
        super().__init__()
        self.forbidden = forbidden  # {callable: dotted name}
        self.modules = tuple(modules)
        self.found = None
        self._entry = None

    def __enter__(self):
        self._entry = sys._getframe(1)
        return super().__enter__()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if self.found is None:
            self.found = self._judge(func, sys._getframe(1))
        return func(*args, **(kwargs or {}))

    def _judge(self, func, frame):
        try:
            name = self.forbidden.get(func)
        except TypeError:  # an unhashable callable cannot be forbidden
            name = None
        if name:
            return "forbidden-builtin", tr("Your code calls {name}.", name=name)
        return None


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
