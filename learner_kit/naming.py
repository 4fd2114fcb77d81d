"""Naming a known mistake: the first knob or mutant whose outcomes explain a failure and agree with the
learner's on every case (name_mistake), whether a failure may be so named (nameable), and the detail
shown under the name (named_detail).

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).
"""
import torch

from learner_kit.i18n import tr
from learner_kit.verdicts import close, mask_cause


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
        detail = detail.replace(mask_cause(), "") + tr(" It comes with the mistake named above: fix that first.")
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


def name_mistake(learner, variants, cases, reference, unlike=None):
    """The id of the first known mistake that explains a failure and behaves like the learner's code.

    cases[0] is the failing case, `reference` the reference's outcome on it and `learner`
    the learner's outcomes, one per case. `variants` yields (id, outcomes) pairs, outcomes
    in case order, possibly lazily (evaluation stops at the first disagreement). A mistake
    is named when its outcome on the failing case differs from the reference's (so it
    explains the failure) and equals the learner's on every case. Where the learner's
    results hold NaN and are wrong elsewhere too, they are compared where they are not NaN
    (same_but_nan): a specific mistake outranks the generic symptom. `unlike`, if given, is
    called with the number (in `variants`' order, from 0) of each one whose outcome differs
    from the learner's on some case: that known mistake is not the learner's, whatever the case.
    """
    nan_too = (learner[0].outputs is not None and not learner[0].problem and reference.outputs is not None
               and any(v.is_floating_point() and bool(v.detach().isnan().any()) for v in learner[0].outputs.values())
               and _differs_where_finite(learner[0], reference, cases[0]))
    same = (lambda mine, theirs, case: same_outcome(mine, theirs, case) or same_but_nan(mine, theirs, case)) if nan_too \
        else same_outcome
    for number, (mistake_id, outcomes) in enumerate(variants):
        outcomes = iter(outcomes)
        first = next(outcomes)
        if same_outcome(first, reference, cases[0]):
            continue  # it does not explain the failure (which may not be in the results compared)
        if same(learner[0], first, cases[0]) and \
                all(same(mine, theirs, case) for mine, theirs, case in zip(learner[1:], outcomes, cases[1:])):
            return mistake_id
        if unlike is not None:
            unlike(number)
    return None
