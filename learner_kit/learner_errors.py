"""An error the learner's code raised, told in words: the line of their cell it came from, its text and
the usual cause (describe_error); and whether it is a blank left unfilled (is_blank).

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).
"""
import inspect
import linecache

from learner_kit.i18n import tr
from learner_kit.messages import hint_for_error
from learner_kit.slips import slip_hint


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


_LIBRARY_MODULES = ("learner_kit.calls", "learner_kit.stand_ins", "learner_kit.replay")


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
