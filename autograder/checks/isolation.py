"""Blame isolation: each unit judged on its own logic, with the graded units it calls made right.

A unit's spec lists the graded functions it calls (UnitSpec.isolate: name -> replay kind).
Before the learner's unit runs on a case, the reference unit runs on the same case with
those functions recorded, and the learner's unit then runs with a Replay of them bound in its
globals (learner_kit/replay.py): a wrong `split_heads` costs `split_heads`, not every cell of
`MultiHeadAttention` too. Replays hold results, never code, so they may cross into the
grading sandbox; a call the reference did not make goes to the learner's own function.
"""
import inspect
from dataclasses import replace

import torch

from learner_kit import harness
from learner_kit.replay import NO_DEFAULT, REARRANGE, Replay


def signature_of(function):
    """[(parameter, default or NO_DEFAULT)] of a reference function."""
    return [(name, NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
            for name, p in inspect.signature(function).parameters.items()]


class _Recorder:
    """The reference's own function, noting each call's result (and, for a rearrangement, its gather index)."""

    def __init__(self, function, replay):
        self.function, self.replay = function, replay

    def with_fallback(self, fallback):  # harness.bound hands over what the name held: the function itself
        return self

    def __call__(self, *args, **kwargs):
        result = self.function(*args, **kwargs)
        index = None
        if self.replay.kind == REARRANGE and args and isinstance(args[0], torch.Tensor):
            positions = torch.arange(args[0].numel(), dtype=torch.float64).reshape(args[0].shape)
            with torch.no_grad():
                index = self.function(positions, *args[1:], **kwargs).long()
        self.replay.record(args, kwargs, result, index)
        return result


def replays(spec, call, case):
    """{name: Replay} of the functions `spec.isolate` names, as the reference calls them on `case`."""
    if not spec.isolate:
        return {}
    namespace = harness.unit_globals(spec.reference)
    made = {name: Replay(name, kind, signature_of(namespace[name])) for name, kind in spec.isolate.items()}
    recorders = {name: _Recorder(namespace[name], made[name]) for name in made}
    harness.run(spec.reference, replace(call, bindings={**call.bindings, **recorders}), case)
    return made


def isolated_call(spec, call, case):
    """`call` with the replays of `case` bound (itself when the unit calls no other graded unit)."""
    bindings = replays(spec, call, case)
    return replace(call, bindings={**call.bindings, **bindings}) if bindings else call
