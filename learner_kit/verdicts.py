"""The verdict on what a call gave: the first thing wrong with a unit's outcome against the reference's
(verdict), the unit not being the kind of object asked for (wrong_kind), a property every right answer
has broken (violated_property), and the tolerance and words they use.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).
"""
import torch

from learner_kit.calls import Remote, describe_kind
from learner_kit.i18n import tr
from learner_kit.learner_errors import describe_error, is_blank
from learner_kit.wording import where_first


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
            spot = where_first(mine.isnan() & ~theirs.isnan(), axes.get(name, ()))
            cause = mask_cause() if case.inputs.get("mask") is not None else ""
            return "nan", tr("`{name}` holds NaN{where}.", name=name, where=spot) + cause
    for name in names:
        if not close(got.outputs[name], want.outputs[name]):
            return "wrong-values", describe_difference(name, got.outputs[name], want.outputs[name], axes.get(name, ()))
    return None


def mask_cause():
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
                  total=wrong.numel(), where=where_first(wrong, axes))
    gap = (mine.double() - theirs.double()).abs().nan_to_num(nan=float("inf"))
    if mine.dim() == 0:
        text = tr("`{name}` is {value:.5g}, expected {expected:.5g} (a difference of {gap:.3g}).", name=name,
                  value=float(mine), expected=float(theirs), gap=float(gap))
    else:
        text = tr("`{name}`: max abs difference {gap:.3g}{where}.", name=name, gap=float(gap.max()),
                  where=where_first(gap == gap.max(), axes))
    relative = float((gap / theirs.double().abs().clamp_min(1e-3)).max())
    if theirs.dtype == torch.float64 and relative < 1e-4:
        text += tr(" A gap this small is the size of float32 precision: if a constant or tensor inside "
                   "your code is made in float32, make it in the inputs' dtype or use a Python number.")
    return text


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
                          name=name, where=where_first(off, axes.get(name, ())[:-1]), total=float(sums[off][0]))
        elif kind == "masked_zero":
            mask = case.inputs.get(more[0])
            if mask is None:
                continue
            blocked = ~torch.broadcast_to(mask.bool(), weights.shape)
            leak = blocked & (weights != 0)
            if bool(leak.any()):
                return tr("A blocked key (mask False) gets weight {weight:.3g}{where}, not exactly 0: after the softmax, "
                          "blocked keys must have no weight at all.", weight=float(weights[leak][0]),
                          where=where_first(leak, axes.get(name, ())))
        else:
            raise ValueError(f"unknown property {kind!r}")
    return ""
