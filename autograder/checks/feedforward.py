"""Checks of 04-feed-forward: PositionwiseFeedForward.

Dimensions all differ (B=2, L=3, d_model=8, d_ff=12). With the default initialisation
about half the hidden and output values are negative, so a missing or misplaced ReLU
changes many of them. The weights get noise, so that a module whose layers have other names than
w_1 and w_2 (and keep their own initial weights) gives other results and is told so. Properties:
changing one position changes only its output (and running again changes nothing: dropout is off in evaluation
mode); the dropout, set to drop everything, leaves w_2's bias; at p = 0.5 it scales what reaches w_2 by 2, not 4
(dropout applied twice).
"""
import torch

from autograder import reference
from learner_kit import harness
from sandbox_servers import probes
from learner_kit.calls import Case
from learner_kit.i18n import tr

from . import inputs
from .causes import Cause, Observed
from .core import UnitSpec, register, variant_class

B, L, D_MODEL, D_FF = 2, 3, 8, 12


class _FeedForward(reference.PositionwiseFeedForward):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    hidden_relu = True
    output_relu = False
    # where the dropout acts, for the causes of the dropout properties: on "hidden" (the activations before w_2),
    # None, "input" (x), "output" (w_2's output), "hidden+output"; how often there; and whether it stays on in
    # evaluation mode (F.dropout(h, self.dropout.p), whose training= defaults to True)
    dropout_at = "hidden"
    dropout_times = 1
    always_on = False

    def _drop(self, h):
        for _ in range(self.dropout_times):
            h = torch.nn.functional.dropout(h, self.dropout.p) if self.always_on else self.dropout(h)
        return h

    def forward(self, x):
        hidden = self.w_1(self._drop(x) if self.dropout_at == "input" else x)
        hidden = torch.relu(hidden) if self.hidden_relu else hidden
        out = self.w_2(self._drop(hidden) if self.dropout_at in ("hidden", "hidden+output") else hidden)
        out = self._drop(out) if self.dropout_at in ("output", "hidden+output") else out
        return torch.relu(out) if self.output_relu else out


def _x(seed, dtype=torch.float32, grad=False, length=L):
    drawn = inputs.normal(seed, x=(B, length, D_MODEL))
    return Case(inputs.needing_grad(drawn) if grad else drawn, label=f"x ({B}, {length}, {D_MODEL})").to(dtype)


def _position_wise(outcome, case):
    """Changing x at position 0 changes the output at position 0 only (and running on x again changes nothing:
    else the comparison says nothing about positions, and dropout acts in evaluation mode)."""
    changed = case.inputs["x"].detach().clone()
    changed[:, 0] += 1.0
    with harness.isolated(), torch.no_grad():
        try:
            again = probes.probe("call", outcome.instance, case.inputs["x"].detach().clone())
            out = probes.probe("call", outcome.instance, changed)
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return tr("Run on x changed at position 0, your code raised {error}", error=harness.describe_error(error))
    if isinstance(again, torch.Tensor) and not harness.close(again, outcome.outputs["output"]):
        return Observed(tr("In evaluation mode (after .eval()), your FFN gives another output each time it runs on the "
                           "same x: something random acts outside training."),
                        causes=[Cause(_always_on, (variant_class(_FeedForward, always_on=True),))], key="random in eval")
    if not isinstance(out, torch.Tensor) or not harness.close(out[:, 1:], outcome.outputs["output"][:, 1:]):
        return tr("Changing x at position 0 changed the output at other positions: each position should go "
                  "through the network on its own, without seeing the others.")
    return ""


def _dropout_on_hidden(outcome, case):
    """With its dropout dropping everything (p=1, training mode), the output is w_2's bias at every position:
    the dropout acts on the hidden activations, between the ReLU and w_2; and it acts at all."""
    x = case.inputs["x"].detach()
    try:
        bias_only = probes.probe("call_method", outcome.instance, "w_2", torch.zeros(*x.shape[:-1], D_FF, dtype=x.dtype))
    except Exception:  # noqa: BLE001 - no w_2 taking d_ff features: the values aspect names the interface
        return ""
    try:
        dropped = probes.probe("call_dropping_all", outcome.instance, x)
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
        return tr("Run with its dropout dropping everything (p=1, training mode), your code raised {error}",
                  error=harness.describe_error(error))
    if not isinstance(dropped, torch.Tensor) or dropped.shape != bias_only.shape:
        return tr("Run with its dropout dropping everything (p=1, training mode), the FFN did not return a tensor of the "
                  "input's shape.")
    if harness.close(dropped, outcome.outputs["output"].detach()):
        return Observed(tr("With its dropout set to drop everything (p=1, training mode), the FFN gives what it gives "
                           "without dropout."),
                        causes=[Cause(_dropout_unused, (variant_class(_FeedForward, dropout_at=None),))], key="no effect")
    if not harness.close(dropped, bias_only):
        gap = float((dropped - bias_only).abs().max())
        elsewhere = tuple(variant_class(_FeedForward, dropout_at=at) for at in ("input", "output", "hidden+output"))
        return Observed(tr("With its dropout set to drop everything (p=1, training mode), every hidden activation is 0, "
                           "so the output should be w_2's bias at every position; it differs by up to {gap:.3g}.",
                           gap=gap),
                        causes=[Cause(_dropout_elsewhere, elsewhere)], key=("differs", f"{gap:.3g}"))
    return ""


def _dropout_once(outcome, case):
    """In training mode with dropout p = 0.5, each positive hidden activation that reaches w_2 is dropped (0) or
    scaled by 1/(1-p) = 2; every kept one scaled by 1/(1-p)² = 4 was dropped twice (kept with probability (1-p)²,
    which values in evaluation mode and dropping everything cannot see). A learner's own fixed rate gives its own
    scale, never exactly 4, so no right answer fails; nothing is said when w_2 is not called as a module."""
    x, rate = case.inputs["x"].detach(), 0.5
    try:
        hidden = probes.probe("call_method", outcome.instance, "w_1", x)
        reached = probes.probe("input_reaching", outcome.instance, "w_2", rate, x)
    except Exception:  # noqa: BLE001 - no w_1 or w_2 to read: other checks name the interface
        return ""
    if not isinstance(hidden, torch.Tensor) or not isinstance(reached, torch.Tensor) or reached.shape != hidden.shape:
        return ""
    active = torch.relu(hidden.double())
    kept = (reached.double().abs() > 0) & (active > 1e-3)
    scale = reached.double()[kept] / active[kept]
    if bool(kept.any()) and harness.close(scale, torch.full_like(scale, 1 / (1 - rate) ** 2)):
        return Observed(tr("With dropout p = {p} in training mode, the hidden activations that reach w_2 are scaled by "
                           "1/(1-p)² = {twice:g} instead of 1/(1-p) = {once:g}, and only about {fraction:.0%} of them "
                           "are kept.", p=rate, twice=1 / (1 - rate) ** 2, once=1 / (1 - rate),
                           fraction=float(kept.sum() / (active > 1e-3).sum())),
                        causes=[Cause(_twice, (variant_class(_FeedForward, dropout_times=2),))], key="scaled twice")
    return ""


def _always_on():
    return tr("Your results are those of an FFN whose dropout is called as F.dropout(h, p) without "
              "training=self.training, a dropout that does not switch off in evaluation mode; the `dropout` submodule "
              "switches off by itself.")


def _dropout_unused():
    return tr("The `dropout` submodule is never applied. It belongs on the hidden activations, before w_2.")


def _dropout_elsewhere():
    return tr("Your results are those of an FFN whose dropout acts on another tensor than the hidden activations (the "
              "input, or w_2's output): it belongs between the ReLU and w_2 alone.")


def _twice():
    return tr("Your results are those of an FFN in which dropout is applied twice. Apply the `dropout` submodule once, "
              "between the ReLU and w_2.")


register(UnitSpec(
    name="PositionwiseFeedForward",
    init=(D_MODEL, D_FF),
    outputs={"output": "return"},
    axes={"output": ("position", "feature")},
    cases={
        "values": lambda: [_x(71), _x(72, length=5)],
        "float64": lambda: [_x(73, dtype=torch.float64)],
        "grad": lambda: [_x(74, grad=True)],
        "device": lambda: [_x(71)],
        "properties": lambda: [_x(75, length=5)],
    },
    probes=lambda: [_x(171)],
    mutants={
        "ffn-no-activation": (variant_class(_FeedForward, hidden_relu=False),),
        "ffn-activation-after-output": (variant_class(_FeedForward, hidden_relu=False, output_relu=True),
                                        variant_class(_FeedForward, output_relu=True)),
    },
    knobbed=_FeedForward,
    properties=(_position_wise, _dropout_on_hidden, _dropout_once),
    weight_noise=0.5,
))
