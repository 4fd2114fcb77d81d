"""Replays: a graded function that the unit under test calls, answered as the reference answered.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

One mistake should cost one unit. When `MultiHeadAttention` calls the learner's `split_heads`,
or `make_tgt_mask` calls `make_pad_mask`, the checks of the caller bind a Replay to that
name in the caller's globals (harness.run with Call.bindings). A Replay holds no code: only
what the reference's own function returned on the calls the reference's caller made on
the same case, recorded by the checks (autograder/checks/isolation.py) and, for the visible
checks, stored in the fingerprints.

- "rearrange" functions (split_heads, merge_heads) move elements and compute nothing: a
  Replay keeps, for each input shape and argument, where each output element comes from,
  and gathers the caller's own tensor so gradients flow as through the real function.
- "values" functions (the masks) keep the reference's result for each exact input.

A call the reference did not make (another shape, other tokens) is passed to the learner's
own function: it then behaves as without isolation.
"""
import torch

REARRANGE, VALUES = "rearrange", "values"
_NO_DEFAULT = "<required>"


class Replay:
    """Callable in place of the graded function `name`; `fallback` (the learner's own) for calls it has no answer for."""

    def __init__(self, name, kind, parameters, entries=None, fallback=None):
        self.name, self.kind = name, kind
        self.parameters = list(parameters)  # [(name, default or _NO_DEFAULT)] of the reference's signature
        self.entries = dict(entries or {})  # key -> (index, shape) for REARRANGE, result for VALUES
        self.fallback = fallback

    def with_fallback(self, fallback):
        return Replay(self.name, self.kind, self.parameters, self.entries, fallback)

    # ------------------------------------------------------------------ keys

    def _arguments(self, args, kwargs):
        """The call's arguments by the reference's parameter names, defaults filled; None if they do not fit."""
        if len(args) > len(self.parameters):
            return None
        bound = {}
        for (name, default), value in zip(self.parameters, args):
            bound[name] = value
        for name, default in self.parameters[len(args):]:
            if name in kwargs:
                bound[name] = kwargs[name]
            elif default != _NO_DEFAULT:
                bound[name] = default
            else:
                return None
        if set(kwargs) - {name for name, _ in self.parameters}:
            return None
        return bound

    def key(self, args, kwargs):
        """A hashable key of a call (devices left out: a result is moved where the call wants it), or None."""
        bound = self._arguments(args, kwargs)
        if bound is None:
            return None
        parts = []
        for name, value in bound.items():
            if name == "device":  # where the result goes, not what it is
                continue
            if isinstance(value, torch.Tensor):
                contents = ()
                if self.kind == VALUES and value.device.type != "meta":
                    contents = tuple(value.detach().cpu().reshape(-1).tolist())
                parts.append((name, "tensor", tuple(value.shape), str(value.dtype), contents))
            elif isinstance(value, (bool, int, float, str, type(None))):
                parts.append((name, value))
            else:
                return None
        return tuple(parts)

    def _device(self, args, kwargs):
        """Where a VALUES result goes: the call's `device` argument, else where its tensor argument is, else the CPU."""
        bound = self._arguments(args, kwargs) or {}
        if bound.get("device") is not None:
            return torch.device(bound["device"])
        for value in bound.values():
            if isinstance(value, torch.Tensor):
                return value.device
        return torch.device("cpu")

    # ------------------------------------------------------------------ recording and answering

    def record(self, args, kwargs, result, index=None):
        """Remember the reference's `result` on this call (`index`: where each element came from, for REARRANGE)."""
        key = self.key(args, kwargs)
        if key is None or not isinstance(result, torch.Tensor):
            return
        if self.kind == REARRANGE:
            self.entries[key] = (index.detach().cpu(), tuple(result.shape))
        else:
            self.entries[key] = result.detach() if result.device.type == "meta" else result.detach().cpu()

    def __call__(self, *args, **kwargs):
        key = self.key(args, kwargs)
        if key in self.entries:
            if self.kind == REARRANGE:
                index, shape = self.entries[key]
                source = args[0] if args else kwargs[self.parameters[0][0]]
                return source.reshape(-1)[index.to(source.device)].reshape(shape)
            result, device = self.entries[key], self._device(args, kwargs)
            if result.device.type == "meta" and device.type != "meta":  # recorded on meta: no values to move
                return torch.empty(result.shape, dtype=result.dtype, device=device)
            return result.to(device)
        if self.fallback is None:
            raise NameError(f"name '{self.name}' is not defined")
        return self.fallback(*args, **kwargs)

    def on_meta(self):
        """This replay as if recorded on the meta device: a tensor argument's key without its values, and each
        answer a meta tensor of its shape and dtype (a rearrangement's keys and gather indices hold no values)."""
        if self.kind == REARRANGE:
            return Replay(self.name, self.kind, self.parameters, self.entries, self.fallback)
        entries = {}
        for key, result in self.entries.items():
            meta_key = tuple((*part[:4], ()) if len(part) == 5 and part[1] == "tensor" else part for part in key)
            entries[meta_key] = torch.empty(result.shape, dtype=result.dtype, device="meta")
        return Replay(self.name, self.kind, self.parameters, entries, self.fallback)

    # ------------------------------------------------------------------ plain data (fingerprints)

    def to_plain(self):
        entries = [[list(map(_plain_part, key)), value if self.kind == VALUES else list(value)]
                   for key, value in self.entries.items()]
        return {"name": self.name, "kind": self.kind, "parameters": [list(p) for p in self.parameters], "entries": entries}

    @classmethod
    def from_plain(cls, data):
        entries = {}
        for key, value in data["entries"]:
            entries[tuple(_key_part(part) for part in key)] = value if data["kind"] == VALUES else (value[0], tuple(value[1]))
        return cls(data["name"], data["kind"], [tuple(p) for p in data["parameters"]], entries)


def _plain_part(part):
    return [_plain_part(p) for p in part] if isinstance(part, tuple) else part


def _key_part(part):
    return tuple(_key_part(p) for p in part) if isinstance(part, list) else part


NO_DEFAULT = _NO_DEFAULT
