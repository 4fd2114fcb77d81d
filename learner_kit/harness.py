"""The old home of the plumbing the visible and hidden checks share, kept so that code importing it still works.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

It holds nothing of its own: each name comes from the module of its subject, which new code imports:
learner_kit.calls (Call, Case, CallOutcome, call_unit, Remote), learner_kit.weights (load_weights),
learner_kit.verdicts (verdict, wrong_kind, violated_property, tolerance, close), learner_kit.naming
(name_mistake), learner_kit.learner_errors (describe_error, is_blank), learner_kit.torch_state (isolated,
seed) and learner_kit.wording (position, joined). Two names were changed, the old ones kept here:
`Outcome` is calls.CallOutcome (grading's bookkeeping has an Outcome of its own) and `run` is
calls.call_unit (grading has a package `run`).
"""
from learner_kit.calls import (FLOAT64_RULE, Call, CallOutcome, Case, Remote, backpropagate, bound, call_unit,
                               describe_kind, fresh, read_outputs, unit_globals)
from learner_kit.learner_errors import describe_error, is_blank, mark_learner_line, raised_where
from learner_kit.naming import name_mistake, nameable, named_detail, same_but_nan, same_outcome
from learner_kit.torch_state import isolated, seed
from learner_kit.verdicts import close, describe_difference, tolerance, verdict, violated_property, wrong_kind
from learner_kit.weights import load_weights
from learner_kit.wording import joined, position

Outcome = CallOutcome


def run(target, call, case, guard=None, backprop=None, trace=False, built=None):
    """calls.call_unit under its old name (a function of its own, not an alias: the hidden checks' guard
    requires each function here to carry the name it is reached by)."""
    return call_unit(target, call, case, guard=guard, backprop=backprop, trace=trace, built=built)


__all__ = ["FLOAT64_RULE", "Call", "CallOutcome", "Case", "Outcome", "Remote", "backpropagate", "bound", "call_unit",
           "close", "describe_difference", "describe_error", "describe_kind", "fresh", "is_blank", "isolated",
           "joined", "load_weights", "mark_learner_line", "name_mistake", "nameable", "named_detail", "position",
           "raised_where", "read_outputs", "run", "same_but_nan", "same_outcome", "seed", "tolerance", "unit_globals",
           "verdict", "violated_property", "wrong_kind"]
