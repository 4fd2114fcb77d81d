"""An error raised inside the learner's own code during a test, told as a [runtime-error].

A visible test cell calls the learner's unit directly after `visible_problem` (to check
properties of its results). When the learner's code raises there (its own `assert`, a
`ValueError`, a typo), the cell would otherwise fail with the bare exception, and the
grader's feedback, which hides test tracebacks, would show just `AssertionError`:

    with explain_errors(LabelSmoothingLoss):
        loss = LabelSmoothingLoss(7, smoothing=0.0)(log_probs, target)
        assert ..., "the test's own message"

The test's own assertions (raised in the test cell, not in the learner's code) pass through
unchanged.
"""
import contextlib

from learner_kit import harness
from learner_kit.messages import TestFailed, format_message


@contextlib.contextmanager
def explain_errors(*units):
    """Turn an exception that passed through the code of `units` into a [runtime-error] AssertionError."""
    try:
        yield
    except Exception as error:
        for unit in units:
            harness.mark_learner_line(error, unit)
            if getattr(error, "learner_line", ""):
                raise TestFailed(format_message("runtime-error", harness.describe_error(error))) from None
        raise
