"""Python slips told as such: errors whose usual cause is a slip of Python, not of the exercise's idea.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

- a method named without its parentheses (`x = x.contiguous`): the next use of `x` asks a method for a
  tensor's attribute ('builtin_function_or_method' object has no attribute 'view');
- a module list called like a module (`self.layers(x, mask)`): nn.ModuleList has no forward;
- a PyTorch module given an argument it does not take (`self.dropout(hidden, 0.1)`): its forward takes fewer.

harness.describe_error asks `slip_hint` first; messages.hint_for_error's usual causes follow where it says
nothing. Each hint points at the line the message quotes, and never at the exercise's answer.
"""
import re

from learner_kit.i18n import tr

_METHOD = re.compile(r"^'(builtin_function_or_method|method|method-wrapper)' object has no attribute '(\w+)'")
_CONTAINER = re.compile(r"Module \[(ModuleList|ModuleDict|ParameterList|ParameterDict)\] is missing the required \"forward\"")
_TOO_MANY = re.compile(r"^(\w+)\.forward\(\) takes (\d+) positional arguments? but (\d+) (?:were|was) given")
_KEYWORD = re.compile(r"^(\w+)\.forward\(\) got an unexpected keyword argument '(\w+)'")


def _torch_module(name):
    import torch.nn

    found = getattr(torch.nn, name, None)
    return isinstance(found, type) and issubclass(found, torch.nn.Module)


def slip_hint(error):
    """A sentence naming the slip behind `error`, or ''."""
    text = str(error).strip()
    if isinstance(error, AttributeError):
        found = _METHOD.match(text)
        if found:
            return tr("`.{attribute}` is asked of a method, not of a tensor: somewhere before this line a method is "
                      "named without being called (no parentheses after it), so the variable holds the method "
                      "itself, not its result. Look at the lines that made this variable.", attribute=found.group(2))
    if isinstance(error, NotImplementedError):
        found = _CONTAINER.search(text)
        if found:
            return tr("A {kind} is called here like a module: it only holds modules (or parameters) and has no "
                      "forward of its own, so calling it raises. Only what it holds can be called.", kind=found.group(1))
    if isinstance(error, TypeError):
        found = _TOO_MANY.match(text)
        if found and _torch_module(found.group(1)):
            taken, given = int(found.group(2)) - 1, int(found.group(3)) - 1
            return tr("On this line a PyTorch {module} is called with {given} arguments, and it takes {taken}: an "
                      "argument the module does not take. A module's settings (a rate, a size) are given when it is "
                      "built, in __init__; a call passes only what it computes on.", module=found.group(1),
                      given=given, taken=taken)
        found = _KEYWORD.match(text)
        if found and _torch_module(found.group(1)):
            return tr("On this line a PyTorch {module} is called with `{name}=`, an argument the module does not take. "
                      "A module's settings are given when it is built, in __init__; a call passes only what it "
                      "computes on.", module=found.group(1), name=found.group(2))
    return ""
