"""Checks of 10-train: make_batch, LabelSmoothingLoss, noam_rate, greedy_decode.

    from autograder.checks import check
    check("make_batch", make_batch, "values")

`LabelSmoothingLoss` is a module with a tensor result, so it is a UnitSpec like every other
unit (and has a fingerprint for its visible check). The other three do not fit the shared
harness, which calls a unit on tensor inputs and compares the tensors it returns:
`make_batch` returns a dict holding a Python int, `noam_rate` returns a Python number, and
`greedy_decode` takes a model. They are checked here, by `check_capstone_unit`, which
core.check calls for them (core.CUSTOM_CHECKS) and which keeps its contract (prints one
line `✓ <unit>: <aspect> passed`, or raises CheckFailure whose first line is `[id] what is
wrong`).
The same guards run first: tampering (guards), the candidate's kind, and a watch on the
call that flags forbidden built-ins and the reference's own code for these units.

After a failure the known mistakes (MUTANTS) run on the failing case and on the unit's
probes; the one that behaves exactly like the learner's code is named, as in core.
"""
import contextlib
import math
from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn

from autograder import reference
from learner_kit import harness, stand_ins
from learner_kit.harness import Case
from learner_kit.i18n import tr
from learner_kit.locate import LOCATABLE_IDS, locate
from learner_kit.parting import tensors_of
from learner_kit.trace import numbers_as_tensors, same_as_plain, traced_call

from . import guards, inputs
from .core import CheckFailure, UnitSpec, register, variant_class
from . import core

PAD = 0

# ------------------------------------------------------------------ LabelSmoothingLoss (a UnitSpec)

N_ROWS, VOCAB, SMOOTHING = 6, 7, 0.2


class _LabelSmoothingLoss(reference.LabelSmoothingLoss):
    """The reference with knobs (class attributes, set by variant_class)."""

    zero_pad_rows = True  # rows whose target is pad count for nothing
    zero_pad_column = True  # the pad class gets no probability
    spread_over = 2  # the smoothing is spread over vocab_size - spread_over classes

    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - self.spread_over))
        true_dist.scatter_(1, target.unsqueeze(1), 1.0 - self.smoothing)
        if self.zero_pad_column:
            true_dist[:, self.pad_idx] = 0
        if self.zero_pad_rows:
            true_dist[target == self.pad_idx] = 0
        return torch.nn.functional.kl_div(log_probs, true_dist, reduction="sum")


def _loss_case(seed, label, pads=(1, 4), grad=False, dtype=torch.float32):
    drawn = inputs.normal(seed, logits=(N_ROWS, VOCAB))
    generator = torch.Generator().manual_seed(seed)
    target = torch.randint(1, VOCAB, (N_ROWS,), generator=generator)
    target[list(pads)] = PAD
    log_probs = drawn["logits"].log_softmax(dim=-1)
    if grad:
        log_probs = log_probs.detach().requires_grad_()
    return Case({"log_probs": log_probs, "target": target}, label=label).to(dtype)


def _loss_label(pads=(1, 4)):
    return tr("log_probs ({rows}, vocab {vocab}), targets with padding in rows {first} and {second}",
              rows=N_ROWS, vocab=VOCAB, first=pads[0], second=pads[1])


register(UnitSpec(
    name="LabelSmoothingLoss",
    init=(VOCAB, PAD, SMOOTHING),
    outputs={"loss": "return"},
    axes={"loss": ()},
    cases={
        "values": lambda: [_loss_case(401, _loss_label()),
                           _loss_case(402, tr("log_probs ({rows}, vocab {vocab}), no padding", rows=N_ROWS, vocab=VOCAB),
                                      pads=())],
        "float64": lambda: [_loss_case(403, _loss_label() + tr(", in float64"), dtype=torch.float64)],
        "grad": lambda: [_loss_case(404, _loss_label(), grad=True)],
        "device": lambda: [_loss_case(401, _loss_label())],
    },
    probes=lambda: [_loss_case(501, _loss_label()), _loss_case(502, _loss_label((0, 5)), pads=(0, 5))],
    mutants={
        "loss-counts-padding": (variant_class(_LabelSmoothingLoss, zero_pad_rows=False),
                                variant_class(_LabelSmoothingLoss, zero_pad_rows=False, zero_pad_column=False,
                                              spread_over=1)),
    },
    knobbed=_LabelSmoothingLoss,
))


# ------------------------------------------------------------------ the checks of the other three

@dataclass(frozen=True)
class _Case:
    args: dict  # passed positionally, in order
    label: str


@dataclass
class _Outcome:
    result: object = None
    error: BaseException | None = None


@dataclass(frozen=True)
class _Unit:
    name: str
    aspects: dict  # aspect -> function(candidate) that raises CheckFailure
    probes: Callable = lambda: []  # cases on which the mutants are told apart
    mutants: dict = field(default_factory=dict)  # id -> tuple of wrong variants
    # (sentence, variant): a mistake no id of the contract names; when the learner's code behaves like the
    # variant, sentence() (in the learner's language) is added to the generic failure's detail, so that it points
    # at the wrong line
    lookalikes: tuple = ()
    compare: Callable = None  # (got outcome, want outcome, case) -> detail or ''
    plain: Callable = None  # () -> the case every aspect runs first: a stub or an error fails there
    # () -> the arguments of the notebook's own visible test, plain data (a stand-in model as {"stand_in": class
    # name, "init": its arguments}): the fingerprint stores what the reference computes on them, so that a failing
    # check of the notebook can say where the learner's computation parts from it (learner_kit.parting)
    visible_cases: Callable = list


CAPSTONE = {}

def _run(function, case, watched=True):
    """The outcome of function(*case.args), isolated; a forbidden or borrowed call raises CheckFailure."""
    watch = guards.Watch(dict(guards.FORBIDDEN_FUNCTIONS))
    if isinstance(function, harness.Remote):  # the learner's unit in the grading sandbox
        result, error, found = function.call(case.args, watch if watched else None)
        if found:
            raise CheckFailure(*found)
        return _Outcome(result=result, error=error)
    args = [value.detach().clone() if isinstance(value, torch.Tensor) else value for value in case.args.values()]
    with harness.isolated():
        try:
            with watch if watched else contextlib.nullcontext():
                outcome = _Outcome(result=function(*args))
        except Exception as error:  # the learner's code may raise anything
            outcome = _Outcome(error=error)
    if watched and watch.found:
        raise CheckFailure(*watch.found)
    return outcome


def _located(candidate, reference_function, case):
    """Where the candidate's computation parts from the reference's on `case` (learner_kit.locate), as a line to
    add to a failure's detail, or ''. Plain numbers (noam_rate's) are traced as 0-dim tensors, where that changes
    neither function's result."""
    traced = numbers_as_tensors(case.args)
    traces, results = [], []
    for function in (candidate, reference_function):
        result, error, trace = _traced(function, traced or case.args)
        plain = _run(function, case, watched=False) if traced is not None else None
        if plain is not None and not same_as_plain((plain.result, plain.error), (result, error)):
            return ""  # the tensors took another path than the numbers: the record would not speak of the learner's call
        traces.append(trace)
        results.append(tensors_of(result))
    where = locate(traces[0], traces[1], traced or case.args, tuple(results),
                   unit=getattr(reference_function, "__name__", None))
    return f"\n{where}" if where else ""


def _traced(function, args):
    """(result, error, record) of one traced call: the learner's unit in the grading sandbox, or a function here."""
    if isinstance(function, harness.Remote):
        result, error, _ = function.call(args, None, trace=True)
        return result, error, getattr(function, "last_trace", None)
    return traced_call(function, {n: v.detach().clone() if isinstance(v, torch.Tensor) else v for n, v in args.items()})


def _guard(unit, candidate):
    tampered = (guards._replaced_builtins() or guards._replaced_torch() or guards._altered_course_modules()
                or guards._borrowed(candidate))
    if tampered:
        raise CheckFailure("tampering", tampered)
    wrong = harness.wrong_kind(candidate, False, unit.name)
    if wrong:
        raise CheckFailure(*wrong)


def _error_failure(outcome, case, candidate=None, unit_name=None):
    """CheckFailure for a call that raised: the stub, or any other error with its hint; given the candidate and
    its unit's name, also where its computation parts from the reference's before the error."""
    if harness.is_blank(outcome.error):
        return CheckFailure("not-implemented")
    where = _located(candidate, getattr(reference, unit_name), case) if candidate is not None else ""
    return CheckFailure("runtime-error", f"{case.label}: {harness.describe_error(outcome.error)}{where}")


def _same(a, b, unit, case):
    if a.error is not None or b.error is not None:
        return a.error is not None and b.error is not None and type(a.error) is type(b.error)
    return not unit.compare(a, b, case)


def _diagnose(unit, candidate, case, got, want):
    """The id of the mutant that explains the failure on `case` and behaves like the candidate on the probes."""
    probes = unit.probes()
    learner = [got, *(_run(candidate, p) for p in probes)]
    for mistake_id, group in unit.mutants.items():
        for variant in group:
            first = _run(variant, case, watched=False)
            if _same(first, want, unit, case) or not _same(got, first, unit, case):
                continue
            if all(_same(mine, _run(variant, p, watched=False), unit, p) for mine, p in zip(learner[1:], probes)):
                return mistake_id
    return None


def _failure(unit, candidate, case, got, want, found):
    """The CheckFailure for a failed comparison `found` = (id, detail): a known mistake's id if one behaves
    like the candidate, else `found`, with the sentence of a lookalike mistake that does, and where the
    candidate's computation parts from the reference's."""
    named = _diagnose(unit, candidate, case, got, want)
    if named:
        return CheckFailure(named, found[1])
    probes = unit.probes()
    learner = [_run(candidate, p) for p in probes]
    for sentence, variant in unit.lookalikes:
        if _same(got, _run(variant, case, watched=False), unit, case) and all(
                _same(mine, _run(variant, p, watched=False), unit, p) for mine, p in zip(learner, probes)):
            found = (found[0], f"{found[1]} {sentence()}")
            break
    if found[0] in LOCATABLE_IDS:
        return CheckFailure(found[0], found[1] + _located(candidate, getattr(reference, unit.name), case))
    return CheckFailure(*found)


def _compare_with(judge):
    """A compare function returning only the detail (for _same) from a judge returning (id, detail) or ''."""

    def compare(got, want, case):
        found = judge(got, want, case)
        return found[1] if isinstance(found, tuple) else found

    return compare


def check_capstone_unit(unit_name, candidate, aspect):
    """Check one aspect of a capstone unit; print one line, or raise CheckFailure (see the module doc)."""
    unit = CAPSTONE[unit_name]
    if aspect not in unit.aspects:
        raise ValueError(f"{unit_name} has no aspect {aspect!r}; it has: {', '.join(unit.aspects)}")
    failure = None
    try:
        _guard(unit, candidate)
        case = unit.plain()
        outcome = _run(candidate, case)
        if outcome.error is not None:
            raise _error_failure(outcome, case, candidate, unit_name)
        unit.aspects[aspect](candidate)
    except CheckFailure as caught:
        failure = caught
    if failure is not None:
        raise failure.with_traceback(None)
    print(tr("✓ {unit}: {aspect} passed", unit=unit_name, aspect=aspect))


# ------------------------------------------------------------------ make_batch

_BATCH_KEYS = ("src", "src_mask", "tgt_in", "tgt_out", "tgt_mask", "n_tokens")
_TENSOR_KEYS = {"values": ("tgt_in", "tgt_out", "src"), "masks": ("src_mask", "tgt_mask")}


def _make_batch(src, tgt, pad_idx=0, *, shift="right"):
    """make_batch with a knob: how the decoder input and output are cut from tgt."""
    tgt_in, tgt_out = {
        "right": (tgt[:, :-1], tgt[:, 1:]),
        "none": (tgt, tgt),
        "both-in": (tgt[:, :-1], tgt[:, :-1]),
        "both-out": (tgt[:, 1:], tgt[:, 1:]),
        "swapped": (tgt[:, 1:], tgt[:, :-1]),
    }[shift]
    return {
        "src": src,
        "src_mask": reference.make_pad_mask(src, pad_idx),
        "tgt_in": tgt_in,
        "tgt_out": tgt_out,
        "tgt_mask": reference.make_tgt_mask(tgt_in, pad_idx),
        "n_tokens": int((tgt_out != pad_idx).sum()),
    }


def _batch_case(src, tgt, pad_idx=None, label=""):
    args = {"src": torch.tensor(src), "tgt": torch.tensor(tgt)}
    if pad_idx is not None:
        args["pad_idx"] = pad_idx
    return _Case(args, label)


def _batch_cases():
    return [
        _batch_case([[5, 6, 7, 0], [8, 9, 4, 3]], [[1, 7, 6, 5, 2, 0], [1, 3, 4, 9, 8, 2]],
                    label=tr("src (2, 4) and tgt (2, 6), padded with 0")),
        _batch_case([[4, 0, 6, 3, 3], [5, 8, 3, 3, 3], [0, 7, 7, 9, 3]],
                    [[1, 6, 0, 4, 2], [1, 8, 5, 2, 3], [1, 9, 7, 2, 3]],
                    pad_idx=3, label=tr("src (3, 5) and tgt (3, 5) padded with pad_idx=3 (0 is an ordinary token there)")),
    ]


def _batch_probes():
    return [_batch_case([[3, 4, 5, 6, 0]], [[1, 6, 5, 4, 3, 2, 0, 0]], label=tr("src (1, 5) and tgt (1, 8), padded with 0")),
            _batch_case([[4, 0, 9], [2, 2, 7]], [[1, 9, 0, 4, 2], [1, 7, 2, 2, 2]], pad_idx=2,
                        label=tr("src (2, 3) and tgt (2, 5) padded with pad_idx=2"))]


def _judge_batch(keys):
    def judge(got, want, case):
        result, expected = got.result, want.result
        if not isinstance(result, dict):
            return "wrong-interface", tr("{case}: make_batch returned a {kind}, not a dict.", case=case.label,
                                         kind=type(result).__name__)
        missing = [k for k in _BATCH_KEYS if k not in result]
        if missing:
            return "wrong-interface", tr("{case}: the dict has no key {keys}.", case=case.label,
                                         keys=", ".join(repr(k) for k in missing))
        for key in keys:
            mine, theirs = result[key], expected[key]
            if not isinstance(mine, torch.Tensor):
                return "wrong-interface", tr("{case}: `{key}` is a {kind}, not a tensor.", case=case.label, key=key,
                                             kind=type(mine).__name__)
            if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
                return "shape", tr("{case}: `{key}` has shape {shape} and dtype {dtype}, expected {expected_shape} and "
                                   "{expected_dtype}.", case=case.label, key=key, shape=tuple(mine.shape), dtype=mine.dtype,
                                   expected_shape=tuple(theirs.shape), expected_dtype=theirs.dtype)
            if not torch.equal(mine, theirs):
                return "wrong-values", f"{case.label}: " + harness.describe_difference(key, mine, theirs)
        return ""

    return judge


def _batch_properties(candidate):
    """n_tokens is a Python int counting the non-pad tokens of tgt_out; inputs are left as they were."""
    for case in _batch_cases():
        got = _run(candidate, case)
        if got.error is not None:
            raise _error_failure(got, case, candidate, "make_batch")
        found = _judge_batch(())(got, _run(reference.make_batch, case, watched=False), case)
        if found:
            raise CheckFailure(*found)
        want = _run(reference.make_batch, case, watched=False).result["n_tokens"]
        n_tokens = got.result["n_tokens"]
        if isinstance(n_tokens, bool) or not isinstance(n_tokens, int):
            raise CheckFailure("wrong-interface", tr("{case}: `n_tokens` is a {kind}; the exercise asks for a Python int "
                                                     "(int(...) of a 0-dim tensor gives one).", case=case.label,
                                                     kind=type(n_tokens).__name__))
        if n_tokens != want:
            named = _diagnose(BATCH, candidate, case, got, _run(reference.make_batch, case, watched=False))
            raise CheckFailure(named or "wrong-values",
                               tr("{case}: `n_tokens` is {n_tokens}, expected {expected}: count the tokens the loss "
                                  "is computed on (tgt_out), leaving out padding.", case=case.label, n_tokens=n_tokens,
                                  expected=want) + ("" if named else _located(candidate, reference.make_batch, case)))


# Mistakes are told apart by the decoder's input and output alone: the masks and the count follow from them.
def _batch_compare(got, want, case):
    found = _judge_batch(("tgt_in", "tgt_out"))(got, want, case)
    return found[1] if found else ""


BATCH = _Unit(
    name="make_batch",
    aspects={
        "values": lambda c: _aspect_batch(c, "values"),
        "masks": lambda c: _aspect_batch(c, "masks"),
        "properties": _batch_properties,
    },
    probes=_batch_probes,
    mutants={"batch-no-shift": tuple(lambda s, t, p=0, k=k: _make_batch(s, t, p, shift=k)
                                     for k in ("none", "both-in", "both-out", "swapped"))},
    compare=_batch_compare,
    plain=lambda: _batch_cases()[0],
    visible_cases=lambda: [{"src": torch.tensor([[5, 6, 7, 0], [8, 9, 0, 0]]),
                            "tgt": torch.tensor([[1, 7, 6, 5, 2, 0], [1, 9, 8, 2, 0, 0]]), "pad_idx": 0}],
)


def _aspect_batch(candidate, aspect):
    judge = _judge_batch(_TENSOR_KEYS[aspect])
    for case in _batch_cases():
        got = _run(candidate, case)
        want = _run(reference.make_batch, case, watched=False)
        found = _error_failure(got, case) if got.error is not None else judge(got, want, case)
        if found:
            named = _diagnose(BATCH, candidate, case, got, want)
            if isinstance(found, CheckFailure):
                if named:
                    raise CheckFailure(named, f"{case.label}: {harness.describe_error(got.error)}")
                raise _error_failure(got, case, candidate, "make_batch")
            where = _located(candidate, reference.make_batch, case) if found[0] in LOCATABLE_IDS and not named else ""
            raise CheckFailure(named or found[0], found[1] + where)


CAPSTONE["make_batch"] = BATCH


# ------------------------------------------------------------------ noam_rate

def _noam(step, d_model, warmup, factor=1.0, *, warm_up=True, pick=min, scale=-0.5):
    """noam_rate with knobs: warm_up=False is the decay alone, step ** -0.5; pick=max takes the larger
    term; scale=0.5 multiplies by d_model ** 0.5."""
    step = max(step, 1)
    if not warm_up:
        return factor * d_model**scale * step**-0.5
    return factor * d_model**scale * pick(step**-0.5, step * warmup**-1.5)


def _noam_case(step, d_model, warmup, factor=None):
    args = {"step": step, "d_model": d_model, "warmup": warmup}
    if factor is not None:
        args["factor"] = factor
    label = f"noam_rate({step}, d_model={d_model}, warmup={warmup}" + (f", factor={factor})" if factor is not None else ")")
    return _Case(args, label)


def _noam_cases():
    return [_noam_case(1, 512, 4000), _noam_case(100, 512, 4000), _noam_case(4000, 512, 4000),
            _noam_case(20000, 512, 4000), _noam_case(13, 48, 30, 2.0), _noam_case(90, 48, 30, 2.0)]


def _noam_probes():
    return [_noam_case(5, 24, 9, 3.0), _noam_case(9, 24, 9, 3.0), _noam_case(40, 24, 9, 3.0)]


def _as_number(result):
    """The rate as a float, when `result` is a Python number (an int or a float, numpy's float64 included); else None.
    noam_rate's contract (COURSE.md, its docstring, hint 2) is a Python number: a tensor, even with one element, is
    not one."""
    if isinstance(result, (int, float)) and not isinstance(result, bool):
        return float(result)
    return None


def _not_a_number(case, result):
    """The wrong-interface detail for a result that is not a Python number."""
    if isinstance(result, torch.Tensor):
        return tr("{case} returned a tensor of shape {shape}, not a Python number: noam_rate returns a Python float. "
                  "Compute it with Python numbers (step, d_model, warmup and factor are all Python numbers), not "
                  "tensors.", case=case.label, shape=tuple(result.shape))
    return tr("{case} returned a {kind}, not a number.", case=case.label, kind=type(result).__name__)


def _judge_noam(got, want, case):
    mine = _as_number(got.result)
    if mine is None:
        return "wrong-interface", _not_a_number(case, got.result)
    expected = want.result
    if not math.isclose(mine, expected, rel_tol=1e-6, abs_tol=1e-12):
        return "wrong-values", tr("{case} is {value:.6g}, expected {expected:.6g}.", case=case.label, value=mine,
                                  expected=expected)
    return ""


NOAM = _Unit(
    name="noam_rate",
    aspects={},
    probes=_noam_probes,
    mutants={"noam-no-warmup": (lambda s, d, w, f=1.0: _noam(s, d, w, f, warm_up=False),)},
    lookalikes=(
        (lambda: tr("Your rates are the larger of the two terms at every step: the schedule takes the smaller one, so "
                    "that it rises during the warm-up and decays after it."),
         lambda s, d, w, f=1.0: _noam(s, d, w, f, pick=max)),
        (lambda: tr("Your rates are d_model times too large: the scale is d_model ** -0.5 (larger models get smaller "
                    "rates)."),
         lambda s, d, w, f=1.0: _noam(s, d, w, f, scale=0.5)),
    ),
    compare=_compare_with(_judge_noam),
    plain=lambda: _noam_cases()[0],
    visible_cases=lambda: [{"step": step, "d_model": 64, "warmup": 100} for step in (1, 100, 400)],
)


def _noam_values(candidate):
    for case in _noam_cases():
        got = _run(candidate, case)
        want = _run(reference.noam_rate, case, watched=False)
        found = _judge_noam(got, want, case) if got.error is None else None
        if got.error is not None:
            raise _error_failure(got, case, candidate, "noam_rate")
        if found:
            raise _failure(NOAM, candidate, case, got, want, found)


def _noam_properties(candidate):
    """Step 0 is step 1; the rate rises for `warmup` steps and falls after; it scales with factor."""
    d_model, warmup = 40, 11
    rates = {}
    for step in range(0, 3 * warmup):
        case = _noam_case(step, d_model, warmup)
        got = _run(candidate, case)
        if got.error is not None and step == 0 and isinstance(got.error, ZeroDivisionError):
            raise CheckFailure("property-violated", tr("{case} raised {error}\nStep 0 must be treated as step 1.",
                                                       case=case.label, error=harness.describe_error(got.error)))
        if got.error is not None:
            raise _error_failure(got, case, candidate, "noam_rate")
        rates[step] = _as_number(got.result)
        if rates[step] is None:
            raise CheckFailure("wrong-interface", _not_a_number(case, got.result))
    first = reference.noam_rate(1, d_model, warmup)
    if not math.isclose(rates[0], rates[1], rel_tol=1e-9):  # step 0 is step 1 (the values aspect judges the rate)
        raise CheckFailure("property-violated", tr("With d_model={d_model} and warmup={warmup}, noam_rate(0, ...) and "
                                                   "noam_rate(1, ...) should both be the rate of step 1, {first:.6g} "
                                                   "(step 0 is treated as step 1); yours are {at_0:.6g} and {at_1:.6g}.",
                                                   d_model=d_model, warmup=warmup, first=first, at_0=rates[0],
                                                   at_1=rates[1]))
    peak = max(range(1, 3 * warmup), key=rates.get)
    if peak != warmup:
        # noam-no-warmup only where the rates are the decay term alone at every step (max(...) also peaks at step 1)
        decay_alone = all(math.isclose(rates[s], _noam(s, d_model, warmup, warm_up=False), rel_tol=1e-6) for s in rates)
        found = ("noam-no-warmup" if decay_alone else "property-violated",
                 tr("With d_model={d_model} and warmup={warmup} the largest rate should be at step {warmup} "
                    "(the end of the warm-up); yours peaks at step {peak}.", d_model=d_model, warmup=warmup, peak=peak))
        raise CheckFailure(*found)
    case = _noam_case(warmup, d_model, warmup, 3.0)
    got = _run(candidate, case)
    if got.error is not None:
        raise _error_failure(got, case, candidate, "noam_rate")
    scaled = _as_number(got.result)
    if scaled is None:
        raise CheckFailure("wrong-interface", _not_a_number(case, got.result))
    if not math.isclose(scaled, 3.0 * rates[warmup], rel_tol=1e-6):
        raise CheckFailure("property-violated", tr("{case} is {value:.6g}; it should be 3 times the rate with "
                                                   "factor=1.0, {expected:.6g}: factor multiplies the whole schedule.",
                                                   case=case.label, value=scaled, expected=3.0 * rates[warmup]))


NOAM.aspects.update(values=_noam_values, properties=_noam_properties)
CAPSTONE["noam_rate"] = NOAM


# ------------------------------------------------------------------ greedy_decode

G_VOCAB, G_BOS, G_EOS = 11, 1, 2


def _greedy(model, src, src_mask, max_len, bos_idx, eos_idx=None, *, feedback="all", position=-1, generator=True):
    """greedy_decode with knobs: feedback="first" decodes the start token alone at every step, "newest" the
    newest token alone; position=0 reads the decoder's first position, not its last; generator=False takes
    the argmax of the decoder's output itself."""
    with torch.no_grad():
        memory = model.encode(src, src_mask)
        ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
        for _ in range(max_len - 1):
            read = {"all": ys, "first": ys[:, :1], "newest": ys[:, -1:]}[feedback]
            mask = torch.tril(torch.ones(1, read.size(1), read.size(1), dtype=torch.bool, device=src.device))
            out = model.decode(memory, src_mask, read, mask)[:, position]
            scores = model.generator(out) if generator else out
            ys = torch.cat([ys, scores.argmax(dim=-1, keepdim=True)], dim=1)
            if eos_idx is not None and (ys == eos_idx).any(dim=1).all():
                break
    return ys


_ScriptedModel = stand_ins.ScriptedModel  # lives beside the learner's code: the grading sandbox builds it too


def _greedy_case(seed, batch, src_len, max_len, bos=G_BOS, eos=None, shift=0, label=""):
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(3, G_VOCAB, (batch, src_len), generator=generator)
    src[0, -2:] = PAD  # the first row is padded
    args = {"model": _ScriptedModel(shift), "src": src, "src_mask": (src != PAD)[:, None, None, :],
            "max_len": max_len, "bos_idx": bos}
    if eos is not None:
        args["eos_idx"] = eos
    if not label:
        label = tr("a stand-in model, src ({batch}, {src_len}) with padding, max_len={max_len}, bos_idx={bos}",
                   batch=batch, src_len=src_len, max_len=max_len, bos=bos) + (f", eos_idx={eos}" if eos is not None else "")
    return _Case(args, label)


def _greedy_cases():
    return [_greedy_case(601, 3, 5, 7), _greedy_case(602, 2, 4, 6, bos=4, shift=1),
            _greedy_case(603, 2, 6, 1, label=tr("a stand-in model, max_len=1: only the start token"))]


def _greedy_eos_cases():
    """Rows reach eos_idx at different steps, one of them never (tests/notebooks/test_capstone.py checks this)."""
    return [_greedy_case(601, 4, 5, 9, eos=G_EOS, shift=3), _greedy_case(600, 3, 6, 8, eos=G_EOS, shift=1)]


def _prefix_problem(got, want, case):
    """'' when `got` agrees with `want` up to each row's first eos_idx (or everywhere, without one)."""
    ys, expected = got.result, want.result
    max_len, eos = case.args["max_len"], case.args.get("eos_idx")
    if not isinstance(ys, torch.Tensor):
        return "wrong-interface", tr("{case}: greedy_decode returned a {kind}, not a tensor.", case=case.label,
                                     kind=type(ys).__name__)
    if ys.dtype != torch.long or ys.dim() != 2 or ys.size(0) != expected.size(0):
        return "shape", tr("{case}: the result has shape {shape} and dtype {dtype}, expected a LongTensor ({rows}, "
                           "<= {max_len}).", case=case.label, shape=tuple(ys.shape), dtype=ys.dtype,
                           rows=expected.size(0), max_len=max_len)
    if ys.size(1) > max_len:
        return "shape", tr("{case}: the result has {count} tokens per row, more than max_len={max_len}.",
                           case=case.label, count=ys.size(1), max_len=max_len)
    for row in range(expected.size(0)):
        hits = (expected[row] == eos).nonzero() if eos is not None else []
        end = int(hits[0]) + 1 if len(hits) else expected.size(1)
        if ys.size(1) < end:
            if len(hits):
                return "shape", tr("{case}: row {row} stops after {count} tokens, before producing eos_idx (expected "
                                   "at position {position}).", case=case.label, row=row, count=ys.size(1), position=end - 1)
            return "shape", tr("{case}: row {row} stops after {count} tokens, before producing max_len={max_len} "
                               "tokens.", case=case.label, row=row, count=ys.size(1), max_len=max_len)
        if not torch.equal(ys[row, :end], expected[row, :end]):
            position = int((ys[row, :end] != expected[row, :end]).nonzero()[0])
            return "wrong-values", tr("{case}: row {row} differs from position {position} on: got {got}, expected "
                                      "{expected}.", case=case.label, row=row, position=position,
                                      got=ys[row, :end].tolist(), expected=expected[row, :end].tolist())
    return ""


def _greedy_compare_cases(candidate, cases):
    for case in cases:
        got = _run(candidate, case)
        want = _run(reference.greedy_decode, case, watched=False)
        if got.error is not None:
            named = _diagnose(GREEDY, candidate, case, got, want)
            if named:
                raise CheckFailure(named, f"{case.label}: {harness.describe_error(got.error)}")
            raise _error_failure(got, case, candidate, "greedy_decode")
        found = _prefix_problem(got, want, case)
        if found:
            raise _failure(GREEDY, candidate, case, got, want, found)


def _greedy_properties(candidate):
    """With eos_idx: right up to each row's first eos; at most max_len tokens; one encode per call."""
    _greedy_compare_cases(candidate, _greedy_eos_cases())
    case = _greedy_cases()[0]
    got = _run(candidate, case)
    if got.error is not None:
        raise _error_failure(got, case, candidate, "greedy_decode")
    if case.args["model"].encodes != 1:
        raise CheckFailure("property-violated", tr("{case}: the source was encoded {count} times; encode it once, "
                                                   "before the loop: the memory does not change while decoding.",
                                                   case=case.label, count=case.args["model"].encodes))


def _greedy_device(candidate):
    """On the meta device (model and inputs), only a device-mismatch error fails; on the CPU the tokens
    must also be right (a stub that returns a tensor of the right shape earns nothing here)."""
    case = _greedy_cases()[0]
    _greedy_compare_cases(candidate, [case])
    with harness.isolated():
        moved = {name: value.to("meta") if isinstance(value, (torch.Tensor, nn.Module)) else value
                 for name, value in case.args.items()}
    meta = _Case(moved, case.label + tr(", on the meta device"))
    got = _run(candidate, meta)
    if got.error is not None and guards.is_device_error(got.error):
        raise CheckFailure("device", tr("With the model and every input on the 'meta' device: {error}",
                                        error=harness.describe_error(got.error)))
    if got.error is None and isinstance(got.result, torch.Tensor) and got.result.device.type != "meta":
        raise CheckFailure("device", tr("With the model and every input on the 'meta' device, the result comes back "
                                        "on another device."))


GREEDY = _Unit(
    name="greedy_decode",
    aspects={
        "values": lambda c: _greedy_compare_cases(c, _greedy_cases()),
        "properties": _greedy_properties,
        "device": _greedy_device,
    },
    probes=lambda: [_greedy_case(701, 2, 5, 6, shift=2)],
    mutants={"greedy-no-feedback": (lambda m, s, sm, n, b, e=None: _greedy(m, s, sm, n, b, e, feedback="first"),)},
    lookalikes=(
        (lambda: tr("Each step decodes only the newest token: the decoder must read everything produced so far, the "
                    "start token included."),
         lambda m, s, sm, n, b, e=None: _greedy(m, s, sm, n, b, e, feedback="newest")),
        (lambda: tr("The tokens are what the decoder predicts at its first position: the next token comes from the "
                    "last position, the one that read the newest token."),
         lambda m, s, sm, n, b, e=None: _greedy(m, s, sm, n, b, e, position=0)),
        (lambda: tr("The tokens are the argmax of the decoder's output itself: that output is a vector of d_model "
                    "features; the generator turns it into log-probabilities over the vocabulary."),
         lambda m, s, sm, n, b, e=None: _greedy(m, s, sm, n, b, e, generator=False)),
    ),
    compare=_compare_with(_prefix_problem),
    plain=lambda: _greedy_cases()[0],
    visible_cases=lambda: [{"model": {"stand_in": "StepModel", "init": {"vocab_size": 9}},
                            "src": torch.tensor([[1, 4, 4], [2, 4, 0]]),
                            "src_mask": reference.make_pad_mask(torch.tensor([[1, 4, 4], [2, 4, 0]])),
                            "max_len": max_len, "bos_idx": 1, **eos} for max_len, eos in ((6, {}), (8, {"eos_idx": 5}))],
)
CAPSTONE["greedy_decode"] = GREEDY

core.CUSTOM_CHECKS.update({name: (check_capstone_unit, tuple(unit.aspects)) for name, unit in CAPSTONE.items()})
