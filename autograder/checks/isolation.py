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
    """{name: Replay} of the functions `spec.isolate` names, as the reference calls them on `case`.

    On the meta device they are recorded on the CPU, on zeros of the case's shapes, and kept as a meta recording
    keeps them (Replay.on_meta: a meta call's key holds no values, nor does its answer): the same replays without
    running the reference on meta, whose first run in a process imports torch._dynamo (seconds, through the
    meta kernels' _disable_dynamo wrappers), so that a grading worker need not import it at all."""
    if not spec.isolate:
        return {}
    if case.device.type == "meta":
        return {name: replay.on_meta() for name, replay in _recorded(spec, call, _zeros_on_cpu(case)).items()}
    return _recorded(spec, call, case)


def _zeros_on_cpu(case):
    """`case` with its meta tensors as CPU zeros of the same shape and dtype, and a meta device as the CPU."""

    def stand_in(value):
        if isinstance(value, torch.device) and value.type == "meta":
            return torch.device("cpu")
        if isinstance(value, torch.Tensor) and value.device.type == "meta":
            return torch.zeros(value.shape, dtype=value.dtype).requires_grad_(value.requires_grad)
        return value

    return replace(case, inputs={name: stand_in(value) for name, value in case.inputs.items()})


def _recorded(spec, call, case):
    """{name: Replay} of the functions `spec.isolate` names, recorded as the reference runs on `case`."""
    namespace = harness.unit_globals(spec.reference)
    made = {name: Replay(name, kind, signature_of(namespace[name])) for name, kind in spec.isolate.items()}
    recorders = {name: _Recorder(namespace[name], made[name]) for name in made}
    harness.run(spec.reference, replace(call, bindings={**call.bindings, **recorders}), case)
    return made


def isolated_call(spec, call, case):
    """`call` with the replays of `case` bound (itself when the unit calls no other graded unit)."""
    bindings = replays(spec, call, case)
    return replace(call, bindings={**call.bindings, **bindings}) if bindings else call
