"""Checks of 04-feed-forward: PositionwiseFeedForward.

Dimensions all differ (B=2, L=3, d_model=8, d_ff=12). With the default initialisation
about half the hidden and output values are negative, so a missing or misplaced ReLU
changes many of them.
"""
import torch

from autograder import reference
from learner_kit import harness, probes
from learner_kit.harness import Case

from . import inputs
from .core import UnitSpec, register, variant_class

B, L, D_MODEL, D_FF = 2, 3, 8, 12


class _FeedForward(reference.PositionwiseFeedForward):
    """The reference with knobs, set by variant_class(); defaults are the reference's."""

    hidden_relu = True
    output_relu = False

    def forward(self, x):
        hidden = self.w_1(x)
        out = self.w_2(self.dropout(torch.relu(hidden) if self.hidden_relu else hidden))
        return torch.relu(out) if self.output_relu else out


def _x(seed, dtype=torch.float32, grad=False, length=L):
    drawn = inputs.normal(seed, x=(B, length, D_MODEL))
    return Case(inputs.needing_grad(drawn) if grad else drawn, label=f"x ({B}, {length}, {D_MODEL})").to(dtype)


def _position_wise(outcome, case):
    """Changing x at position 0 changes the output at position 0 only."""
    changed = case.inputs["x"].detach().clone()
    changed[:, 0] += 1.0
    with harness.isolated(), torch.no_grad():
        try:
            out = probes.probe("call", outcome.instance, changed)
        except Exception as error:  # noqa: BLE001 - the learner's code may raise anything
            return f"Run on x changed at position 0, your code raised {harness.describe_error(error)}"
    if not isinstance(out, torch.Tensor) or not harness.close(out[:, 1:], outcome.outputs["output"][:, 1:]):
        return ("Changing x at position 0 changed the output at other positions: each position should go "
                "through the network on its own, without seeing the others.")
    return ""


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
    properties=(_position_wise,),
))
