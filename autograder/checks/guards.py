"""What every check guards against: tampering, forbidden built-ins, device errors.

Tampering is judged by comparing what the checks rely on with the originals, found in a
way a notebook cannot easily fake: identity with torch's C functions, code files inside
the torch, numpy and course packages, and names matching. Forbidden built-ins and calls
into the reference are seen at run time, by learner_kit.watch.Watch around the learner's
code (the functions it calls and the operators that run), never by reading its source.
"""
import builtins
import inspect
import os
import re
import sys
import sysconfig
import types

import numpy
import torch

import learner_kit
from autograder import reference
from learner_kit import watch
from learner_kit.calls import Remote
from learner_kit.i18n import tr

# Built-ins and modules that do an exercise's work, for every unit; a UnitSpec may add its own.
FORBIDDEN_FUNCTIONS = watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)
FORBIDDEN_MODULES = tuple(watch.resolve(name) for name in watch.FORBIDDEN_MODULE_NAMES)

_REFERENCE_FILE = reference.__file__
_TORCH_DIR = os.path.dirname(torch.__file__)
_NUMPY_DIR = os.path.dirname(numpy.__file__)
_COURSE_DIRS = (os.path.dirname(os.path.dirname(__file__)), os.path.dirname(learner_kit.__file__))
_TRUSTED_DIRS = (_TORCH_DIR, _NUMPY_DIR, sysconfig.get_paths()["stdlib"], *_COURSE_DIRS)
# The course modules whose functions the checks run: none may be replaced.
_COURSE_MODULES = ("autograder.reference", "autograder.checks", "learner_kit.harness", "learner_kit.messages",
                   "learner_kit.visible", "learner_kit.calls", "learner_kit.verdicts", "learner_kit.naming",
                   "learner_kit.weights", "learner_kit.learner_errors", "learner_kit.torch_state", "learner_kit.wording")
# torch functions the checks use, which must be torch's own C functions.
_TORCH_NATIVE = ("allclose", "isclose", "equal", "isnan", "broadcast_to", "randn", "rand", "randint", "zeros",
                 "ones", "full", "where", "stack")
# Python-level functions the checks or tests use: (namespace, name, package directory).
_PYTHON_FUNCTIONS = (
    (torch, "manual_seed", _TORCH_DIR),
    (torch, "set_default_dtype", _TORCH_DIR),
    (torch.random, "fork_rng", _TORCH_DIR),
    (torch.testing, "assert_close", _TORCH_DIR),
    (numpy, "allclose", _NUMPY_DIR),
    (numpy.testing, "assert_allclose", _NUMPY_DIR),
)
# Tensor methods and operators the checks use.
_TENSOR_METHODS = ("__eq__", "__ne__", "__sub__", "__mul__", "__truediv__", "__matmul__", "__invert__", "__and__",
                   "__getitem__", "__abs__", "__rsub__", "abs", "sum", "max", "amax", "detach", "clone", "to",
                   "requires_grad_", "isnan", "nonzero", "any", "all", "double", "float", "bool", "nan_to_num",
                   "reshape", "argmax", "item", "backward", "is_floating_point", "numel", "cpu", "clamp_min", "allclose",
                   "equal", "size", "dim", "eq", "ne")
_DEVICE_ERROR = re.compile(r"same device|expected device|found at least two devices|device mismatch", re.IGNORECASE)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: set on classes made by Python code, unset on built-in ones


class Watch(watch.Watch):
    """The sandbox's Watch, which also flags any frame of the reference reached from the learner's call.

    Frames are examined from the torch call up to the frame that entered the mode (the
    runner), so only code the learner's call reached is judged.
    """

    def _judge(self, func, frame):
        found = super()._judge(func, frame)
        while found is None and frame is not None and frame is not self._entry:
            if frame.f_code.co_filename == _REFERENCE_FILE:
                return "tampering", tr("Your code runs the grader's reference implementation.")
            frame = frame.f_back
        return found


def forbidden_submodule(instance, extra=()):
    """(id, detail) when `instance` is, or holds, a PyTorch module that does the exercise."""
    return watch.forbidden_submodule(instance, FORBIDDEN_MODULES + tuple(extra))


def is_device_error(error):
    return isinstance(error, RuntimeError) and bool(_DEVICE_ERROR.search(str(error)))


# -------------------------------------------------------------- tampering

def tampering(spec, candidate):
    """A sentence saying what was replaced or borrowed, or ''.

    A unit that lives in another process (the grader's judge, calls.Remote) is not looked at here: no learner's
    code ran in this process, and the unit server looks for tampering where it did (unit_server.replaced)."""
    if isinstance(candidate, Remote):
        return ""
    return (_replaced_builtins() or _replaced_torch() or _altered_course_modules()
            or _altered_spec(spec) or _borrowed(candidate))


def _replaced_builtins():
    error = builtins.AssertionError
    if error.__module__ != "builtins" or error.__name__ != "AssertionError" or error.__flags__ & _HEAP_TYPE:
        return tr("builtins.AssertionError was replaced.")
    return ""


def _replaced_torch():
    for name in _TORCH_NATIVE:
        if getattr(torch, name, None) is not getattr(torch._C._VariableFunctions, name):
            return tr("torch.{name} was replaced.", name=name)
    for namespace, name, home in _PYTHON_FUNCTIONS:
        if not _from(getattr(namespace, name, None), name, (home,)):
            return tr("{owner}.{name} was replaced.", owner=namespace.__name__, name=name)
    base = vars(torch._C.TensorBase)
    for name in _TENSOR_METHODS:
        member = vars(torch.Tensor).get(name)
        if member is None or member is base.get(name) or _from(member, name, (_TORCH_DIR,)):
            continue
        if name != f"__{getattr(member, '__name__', '')}__" or member is not base.get(member.__name__):
            return tr("torch.Tensor.{name} was replaced.", name=name)
    return ""


def _altered_course_modules():
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(_COURSE_MODULES):
            continue
        file = getattr(module, "__file__", None) or ""
        if not file.startswith(_COURSE_DIRS):
            return tr("The module {module} was replaced.", module=module_name)
        for name, value in list(vars(module).items()):
            if not name.startswith("__") and not _member_genuine(module, name, value):
                return tr("{owner}.{name} was replaced.", owner=module_name, name=name)
    return ""


def _member_genuine(module, name, value):
    if isinstance(value, types.ModuleType):
        return sys.modules.get(value.__name__) is value
    if isinstance(value, types.FunctionType):  # its code must lie in the file of the trusted module it claims
        home = getattr(sys.modules.get(value.__module__), "__file__", None)
        return bool(home) and home.startswith(_TRUSTED_DIRS) and _from(value, name, (home,))
    if isinstance(value, type) and value.__module__ == module.__name__:
        return all(
            member.__code__.co_filename == module.__file__
            for attribute, member in vars(value).items()
            if isinstance(member, types.FunctionType) and not attribute.startswith("__")
        )
    return True


def _altered_spec(spec):
    from .core import UNITS, UnitSpec  # core imports this module

    if type(spec) is not UnitSpec or UNITS.get(spec.name) is not spec:
        return tr("The checks of {unit} were replaced.", unit=spec.name)
    family = sys.modules[type(spec).__module__].__file__.rsplit(os.sep, 1)[0]
    makers = [*spec.cases.values(), spec.probes]
    if not all(inspect.unwrap(maker).__code__.co_filename.startswith(family) for maker in makers):
        return tr("The test cases of {unit} were replaced.", unit=spec.name)
    unit = getattr(reference, spec.name, None)
    if not _reference_genuine(unit, spec.name):
        return tr("autograder.reference.{unit} was replaced.", unit=spec.name)
    return ""


def _reference_genuine(unit, name):
    if isinstance(unit, type):
        return unit.__module__ == reference.__name__ and all(
            member.__code__.co_filename == _REFERENCE_FILE
            for klass in unit.__mro__ if klass.__module__ == reference.__name__
            for member in vars(klass).values() if isinstance(member, types.FunctionType)
        )
    return _from(unit, name, (_REFERENCE_FILE,))


def _from(function, name, places):
    """Whether `function` is a Python function called `name` whose code lies in `places`."""
    if function is None or not all(places):
        return False
    try:
        function = inspect.unwrap(function)
    except ValueError:
        return False
    code = getattr(function, "__code__", None)
    return getattr(function, "__name__", None) == name and code is not None and code.co_filename.startswith(places)


def _borrowed(candidate):
    """A sentence when the candidate is, or uses, the grader's reference implementation."""
    for item in _definitions(candidate):
        if getattr(item, "__module__", None) == reference.__name__:
            return tr("Your code is the grader's reference implementation.")
        code = getattr(item, "__code__", None)
        if code is None:
            continue
        scope = getattr(item, "__globals__", {})
        for block in _code_blocks(code):
            if block.co_filename == _REFERENCE_FILE or any(_is_reference(scope.get(n)) for n in block.co_names):
                return tr("Your code uses the grader's reference implementation.")
    return ""


def _definitions(candidate):
    """The candidate, and for a class the learner-side classes of its MRO and their functions."""
    if not isinstance(candidate, type):
        try:
            return [inspect.unwrap(candidate)]
        except ValueError:
            return [candidate]
    items = []
    for klass in candidate.__mro__:
        if klass.__module__.split(".")[0] in ("torch", "builtins"):
            continue
        items.append(klass)
        for member in vars(klass).values():
            member = getattr(member, "__func__", getattr(member, "fget", member))
            if isinstance(member, types.FunctionType):
                items.append(member)
    return items


def _code_blocks(code):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_blocks(constant)


def _is_reference(value):
    if isinstance(value, types.ModuleType):
        return value.__name__ in ("autograder", reference.__name__)
    return getattr(value, "__module__", None) == reference.__name__
