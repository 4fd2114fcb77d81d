"""Checks of 03-add-norm: LayerNorm, AddNorm.

Dimensions all differ (B=2, L=3, d_model=8). The weights get noise, so that gamma is not
all ones and beta not all zeros (a missing affine step would not show otherwise). Some
rows of the inputs are scaled down to a variance below eps: only there does eps outside
the square root change the result by more than float32 noise. A wrong axis is any other set
of axes of x for the mean and the variance, or either of them alone (_WRONG_AXES).

Properties: LayerNorm's output, with gamma and beta undone, is standardised, a new LayerNorm
starts with gamma ones and beta zeros (the weights the checks load hide a wrong start), and a new
LayerNorm(d_model, eps=0.1) gives the exercise's results (every other case uses the default eps, which a
hard-coded 1e-5 matches); AddNorm's
dropout, set to drop everything, turns AddNorm(x, s) into AddNorm(x, 0) (it is applied, and to s only).
"""
import itertools
import math

import torch
from torch import nn

from autograder import reference
from learner_kit import harness, watch
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import UnitSpec, register, variant_class

B, L, D_MODEL = 2, 3, 8
_QUIET_ROWS = torch.tensor([1.0, 1e-3, 3.0])[:, None]  # per position: the middle one has variance ~1e-6


class _LayerNorm(reference.LayerNorm):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    eps_inside = True
    correction = 0
    dims = (-1,)  # the axes of the mean (and of the variance, unless var_dims)
    var_dims = None  # the axes of the variance where they differ from the mean's
    var_about = "own"  # "own": x.var(var_dims), about its own mean; "mean": (x - mean)² averaged over var_dims
    affine = True

    def forward(self, x):
        mean = x.mean(dim=self.dims, keepdim=True)
        var_dims = self.dims if self.var_dims is None else self.var_dims
        if self.var_about == "own":
            var = x.var(dim=var_dims, keepdim=True, correction=self.correction)
        else:
            count = math.prod(x.shape[d] for d in var_dims)
            var = ((x - mean) ** 2).sum(dim=var_dims, keepdim=True) / (count - self.correction)
        scale = torch.sqrt(var + self.eps) if self.eps_inside else torch.sqrt(var) + self.eps
        normalised = (x - mean) / scale
        return self.gamma * normalised + self.beta if self.affine else normalised


class _AddNorm(reference.AddNorm):
    residual = True
    norm_first = False
    dropout_on = "sublayer_out"  # what the dropout acts on: "sublayer_out", None, "x", "both" (x and sublayer_out),
    # "sum" (x + sublayer_out), "norm" (the norm's output); the causes of _dropout_on_sublayer_out

    def forward(self, x, sublayer_out):
        if self.dropout_on in ("x", "both"):
            x = self.dropout(x)
        added = self.dropout(sublayer_out) if self.dropout_on in ("sublayer_out", "both") else sublayer_out
        if self.norm_first:
            return x + self.norm(added)
        total = x + added if self.residual else added
        out = self.norm(self.dropout(total) if self.dropout_on == "sum" else total)
        return self.dropout(out) if self.dropout_on == "norm" else out


def _dropout_unused():
    return tr("The `dropout` submodule is never applied. It belongs on sublayer_out, before the add.")


def _dropout_elsewhere():
    return tr("Your results are those of an AddNorm whose dropout is applied to another term than sublayer_out (x, the "
              "sum, or the norm's output): it belongs on sublayer_out alone, before the add.")


def _x(seed, dtype=torch.float32, grad=False, quiet=True):
    """x (B, L, d_model) with an offset per row; with quiet=True one position has a tiny variance.

    With quiet="all" every value is scaled down: the variance over any axes is below eps, so that
    eps outside the square root shows even where the statistics run over the wrong axes.
    """
    drawn = inputs.normal(seed, x=(B, L, D_MODEL), shift=(B, L, 1))
    scale = 1e-3 if quiet == "all" else _QUIET_ROWS if quiet else 1.0
    x = (drawn["x"] + 2 * drawn["shift"]) * scale  # the offset scales too: no cancellation
    label = (tr("x (2, 3, 8) whose every position has a variance below eps") if quiet == "all"
             else tr("x (2, 3, 8) whose position 1 has a variance below eps") if quiet else "x (2, 3, 8)")
    args = inputs.needing_grad({"x": x}) if grad else {"x": x}
    return Case(args, label=label).to(dtype)


def _x_and_sublayer(seed, dtype=torch.float32, grad=False):
    drawn = inputs.normal(seed, x=(B, L, D_MODEL), sublayer_out=(B, L, D_MODEL))
    args = inputs.needing_grad(drawn) if grad else drawn
    return Case(args, label=tr("x and sublayer_out, two different (2, 3, 8) tensors")).to(dtype)


def _standardised(outcome, case):
    """(output - beta) / gamma has mean 0 and variance 1 over the features of each position."""
    out = outcome.outputs["output"].detach()
    try:
        kept = probes.probe("tensor_attributes", outcome.instance, ["gamma", "beta"])
    except Exception:  # noqa: BLE001 - the learner's module may raise on attribute access
        kept = {}
    if not isinstance(kept.get("gamma"), torch.Tensor) or not isinstance(kept.get("beta"), torch.Tensor):
        return tr("LayerNorm should keep its parameters as self.gamma and self.beta.")
    standard = (out - kept["beta"]) / kept["gamma"]
    mean, var = standard.mean(dim=-1), standard.var(dim=-1, correction=0)
    for what, values, target in (("mean", mean, 0.0), ("variance", var, 1.0)):
        off = (values - target).abs() > 1e-3
        if bool(off.any()):
            where = harness.position([int(i) for i in off.nonzero()[0]], ("position",))
            value = float(values[off][0])
            if what == "mean":
                return tr("Undoing gamma and beta, the features at {where} should have mean {target:g}; "
                          "they have {value:.4g}.", where=where, target=target, value=value)
            return tr("Undoing gamma and beta, the features at {where} should have variance {target:g}; "
                      "they have {value:.4g}.", where=where, target=target, value=value)
    return ""


def _fresh_start(outcome, case):
    """A new LayerNorm starts with gamma all ones and beta all zeros: it only normalises until trained."""
    try:
        fresh = probes.probe("fresh_parameters", outcome.instance, (D_MODEL,))
    except Exception as error:  # noqa: BLE001 - the learner's constructor may raise anything
        return tr("Building a new LayerNorm({d_model}) raised {error}", d_model=D_MODEL, error=harness.describe_error(error))
    for name, start in (("gamma", 1.0), ("beta", 0.0)):
        value = fresh.get(name)
        if isinstance(value, torch.Tensor) and not bool((value == start).all()):
            first = float(value.flatten()[0])
            if name == "gamma":
                return tr("A new LayerNorm({d_model}) should start with `gamma` all ones, so that a fresh layer only "
                          "normalises; yours starts with gamma[0] = {first:.4g}.", d_model=D_MODEL, first=first)
            return tr("A new LayerNorm({d_model}) should start with `beta` all zeros, so that a fresh layer only "
                      "normalises; yours starts with beta[0] = {first:.4g}.", d_model=D_MODEL, first=first)
    return ""


_OTHER_EPS = 0.1  # far from the default 1e-5: on features of variance ~1 it changes the result by ~5%


def _eps_used(outcome, case):
    """LayerNorm(d_model, eps) uses the eps it is given: a fresh LayerNorm(d_model, 0.1) gives what the exercise's
    gives (a hard-coded 1e-5 passes every case built with the default eps)."""
    x = case.inputs["x"].detach()
    quiet = _x(156).inputs["x"].to(x.dtype)  # a position whose variance is below the default eps: eps shows there
    try:
        given = probes.probe("training_call", outcome.instance, (D_MODEL, _OTHER_EPS), 0, x)["evaluation"]
        default = probes.probe("training_call", outcome.instance, (D_MODEL,), 0, x)["evaluation"]
        default_quiet = probes.probe("training_call", outcome.instance, (D_MODEL,), 0, quiet)["evaluation"]
    except Exception as error:  # noqa: BLE001 - the learner's constructor or forward may raise anything
        return tr("Building LayerNorm({d_model}, eps={eps}) and calling it raised {error}", d_model=D_MODEL,
                  eps=_OTHER_EPS, error=harness.describe_error(error))
    with harness.isolated(default_dtype=x.dtype), torch.no_grad():
        want = reference.LayerNorm(D_MODEL, _OTHER_EPS).to(x.dtype)(x)
        want_quiet = reference.LayerNorm(D_MODEL).to(x.dtype)(quiet)
    if not isinstance(default_quiet, torch.Tensor) or not harness.close(default_quiet, want_quiet):
        return ""  # wrong with the default eps already (eps outside the root, eps ** 2, ...): the values aspect names it
    if not isinstance(given, torch.Tensor) or given.shape != want.shape or harness.close(given, want):
        return ""  # a result of the wrong kind is the values aspect's to name
    if isinstance(default, torch.Tensor) and default.shape == given.shape and harness.close(given, default):
        return tr("A new LayerNorm({d_model}, eps={eps}) gives the same results as LayerNorm({d_model}) (eps=1e-5): "
                  "the `eps` argument has no effect. Keep it in __init__ (self.eps = eps) and use self.eps in forward.",
                  d_model=D_MODEL, eps=_OTHER_EPS)
    return tr("A new LayerNorm({d_model}, eps={eps}) gives other results than the exercise's: {difference}",
              d_model=D_MODEL, eps=_OTHER_EPS,
              difference=harness.describe_difference("output", given, want, ("position", "feature")))


def _dropout_on_sublayer_out(outcome, case):
    """With its dropout dropping everything (p=1, training mode), AddNorm(x, s) is AddNorm(x, 0): the dropout
    acts on the sublayer's output only, before the add; and it acts at all."""
    x, sublayer_out = case.inputs["x"].detach(), case.inputs["sublayer_out"].detach()
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, x, sublayer_out)
        without = probes.probe("call", outcome.instance, x, torch.zeros_like(sublayer_out))
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with its dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error))
    if not isinstance(dropped, torch.Tensor) or dropped.shape != without.shape:
        return tr("Run with its dropout dropping everything (p=1, training mode), AddNorm did not return a tensor of "
                  "the input's shape.")
    if harness.close(dropped, outcome.outputs["output"].detach()):
        return Observed(tr("With its dropout set to drop everything (p=1, training mode), AddNorm gives what it gives "
                           "without dropout."),
                        causes=[Cause(_dropout_unused, (variant_class(_AddNorm, dropout_on=None),))], key="no effect")
    if not harness.close(dropped, without):
        gap = float((dropped - without).abs().max())
        elsewhere = tuple(variant_class(_AddNorm, dropout_on=on) for on in ("x", "both", "sum", "norm"))
        return Observed(tr("With its dropout set to drop everything (p=1, training mode), AddNorm(x, sublayer_out) "
                           "should equal AddNorm(x, 0), since only the sublayer's output goes through dropout; it "
                           "differs by up to {gap:.3g}.", gap=gap),
                        causes=[Cause(_dropout_elsewhere, elsewhere)], key=("differs", f"{gap:.3g}"))
    return ""


# Statistics over other axes of x (B, L, d_model): every other set of axes for both; or one of the two
# right (over the features) and the other over another set, the variance about its own mean or the mean's.
_OTHER_AXES = [axes for n in (1, 2, 3) for axes in itertools.combinations((-3, -2, -1), n) if axes != (-1,)]
_WRONG_AXES = (
    tuple(variant_class(_LayerNorm, dims=axes) for axes in _OTHER_AXES)
    + tuple(variant_class(_LayerNorm, var_dims=axes, var_about=about) for axes in _OTHER_AXES for about in ("own", "mean"))
    + tuple(variant_class(_LayerNorm, dims=axes, var_dims=(-1,), var_about=about) for axes in _OTHER_AXES for about in ("own", "mean"))
)

# Both units: built as (d_model,), weights with noise, one result of shape (B, L, d_model).
_MODULE = {"init": (D_MODEL,), "weight_noise": 0.5, "outputs": {"output": "return"},
           "axes": {"output": ("position", "feature")}}

register(UnitSpec(
    name="LayerNorm",
    **_MODULE,
    cases={
        "values": lambda: [_x(51), _x(52, quiet=False)],
        "float64": lambda: [_x(53, dtype=torch.float64)],
        "grad": lambda: [_x(54, grad=True)],
        "device": lambda: [_x(51)],
        "properties": lambda: [_x(55, quiet=False)],
    },
    probes=lambda: [_x(151), _x(152, quiet=False), _x(153, quiet="all")],
    mutants={
        "layernorm-eps-outside-sqrt": (variant_class(_LayerNorm, eps_inside=False),),
        "layernorm-unbiased-var": (variant_class(_LayerNorm, correction=1),),
        "layernorm-wrong-dim": _WRONG_AXES,
        "layernorm-no-affine": (variant_class(_LayerNorm, affine=False),),
    },
    knobbed=_LayerNorm,
    properties=(_standardised, _fresh_start, _eps_used),
    # the layer norms, and the norms that compute one over a reshaped input (learner_kit/watch.py
    # also watches the operators that do their work, whatever route reaches them)
    forbidden={torch.nn.functional.layer_norm: "torch.nn.functional.layer_norm",
               torch.layer_norm: "torch.layer_norm", torch.native_layer_norm: "torch.native_layer_norm",
               **watch.by_name(("torch.nn.functional.group_norm", "torch.nn.functional.instance_norm",
                                "torch.nn.functional.batch_norm", "torch.nn.functional.rms_norm"))},
    forbidden_modules=(nn.LayerNorm,),
))

register(UnitSpec(
    name="AddNorm",
    **_MODULE,
    cases={
        "values": lambda: [_x_and_sublayer(61)],
        "float64": lambda: [_x_and_sublayer(62, dtype=torch.float64)],
        "grad": lambda: [_x_and_sublayer(63, grad=True)],
        "device": lambda: [_x_and_sublayer(61)],
        "properties": lambda: [_x_and_sublayer(64)],
    },
    probes=lambda: [_x_and_sublayer(161)],
    mutants={
        "addnorm-no-residual": (variant_class(_AddNorm, residual=False),),
        "addnorm-norm-before-add": (variant_class(_AddNorm, norm_first=True),),
    },
    knobbed=_AddNorm,
    properties=(_dropout_on_sublayer_out,),
))
