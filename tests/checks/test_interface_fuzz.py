"""Interface fuzzing: whatever shape a learner's answer takes, the course answers with its own message.

Every graded unit of autograder.checks.UNITS is rewritten systematically into variants a learner may
write (a generator of interface changes applied to a copy of the reference, run as notebook cells are
run), and hand-written variants cover what a generator cannot (a parameter where a submodule belongs, a
functional call of a submodule's weights, einsum that only takes 3-D input, dropout twice, F.dropout
without `training=`, an Encoder that builds its layers with swapped arguments). Each runs through the
visible check (learner_kit.visible.visible_problem) and the hidden "values" check. Asserted for each:

- no exception escapes either check but the checks' own CheckFailure (an IndexError or TypeError of the
  course's code would reach the learner raw);
- no message shows a traceback line of the course's own files;
- a right variant (same behaviour) passes both; a wrong one fails both with a course message `[id] ...`.
"""
import contextlib
import inspect
import io
from dataclasses import dataclass

import pytest
import torch
from torch import nn

from autograder import reference
from autograder.checks import UNITS, CheckFailure, check
from learner_kit.visible import fingerprint_file, visible_problem

RIGHT, WRONG, EITHER = "right", "wrong", "either"  # EITHER: right on some inputs only (e.g. 3-D only): no crash asked
COURSE_FILES = ("learner_kit/", "autograder/")  # a traceback line of these is the course's, not the learner's

# The earlier units as a notebook's provided cells give them: a copy of the reference's code run in a
# namespace of its own (the checks refuse the reference's own objects as a learner's answer).
PROVIDED = {"__name__": "__main__"}
exec(compile(inspect.getsource(reference), "<provided cells>", "exec"), PROVIDED)


@dataclass(frozen=True)
class Variant:
    unit: str
    name: str
    expected: str  # RIGHT, WRONG or EITHER
    make: object  # () -> the candidate (built lazily: collection stays fast)
    aspect: str = "values"  # the hidden aspect judged
    visible_sees: bool = True  # whether the visible cases can see a WRONG variant (dropout in training mode they cannot)

    def __str__(self):
        return f"{self.unit}-{self.name}"


# ---------------------------------------------------------------- the generator: what happens to a result


def _numpy(result):
    if isinstance(result, tuple):
        return tuple(_numpy(r) for r in result)
    return result.detach().cpu().numpy() if isinstance(result, torch.Tensor) else result


RESULT_CHANGES = {  # name -> (change of the right result, expected)
    "returns-a-tuple": (lambda result: (result, result), WRONG),
    "returns-none": (lambda result: None, WRONG),
    "returns-numpy": (_numpy, WRONG),
    "returns-a-list": (lambda result: list(result) if isinstance(result, tuple) else [result], WRONG),  # see _expected
    "returns-a-number": (lambda result: 0.0, WRONG),
    "returns-float64": (lambda result: tuple(r.double() if isinstance(r, torch.Tensor) else r for r in result)
                        if isinstance(result, tuple) else result.double(), WRONG),
}


def _expected(unit, name, expected):
    """A list in place of a tuple of results is accepted (harness.read_outputs): right for a unit with several."""
    several = any(spot.startswith("return.") for spot in UNITS[unit].outputs.values())
    return RIGHT if name == "returns-a-list" and several else expected


def _only_dims(dims):
    """A change of the inputs: code that only takes tensors of `dims` dimensions, as einsum('bld,...') does."""
    def check_inputs(args):
        for arg in args:
            if isinstance(arg, torch.Tensor) and arg.is_floating_point() and arg.dim() != dims:
                letters = "bldf"[:dims] if dims <= 4 else "abcdefgh"[:dims]
                torch.einsum(f"{letters}->{letters}", arg)  # the learner's einsum raises on other shapes
    return check_inputs


def _raise_index_error(args):
    return [][len(args)]  # the learner's own IndexError


INPUT_CHECKS = {  # name -> (what the learner's code does first with the inputs, expected)
    "only-3d-inputs": (_only_dims(3), EITHER),
    "only-2d-inputs": (_only_dims(2), EITHER),
    "raises-index-error": (_raise_index_error, WRONG),
}


def _module_variants(unit):
    base = PROVIDED[unit]
    init_arity = len(UNITS[unit].init)

    def subclass(name, **methods):
        return type(unit, (base,), {**methods, "__qualname__": unit, "__module__": "__main__"})

    def result_change(change):
        def forward(self, *args, **kwargs):
            return change(base.forward(self, *args, **kwargs))
        return lambda: subclass(unit, forward=forward)

    def input_check(check_inputs):
        def forward(self, *args, **kwargs):
            check_inputs(args)
            return base.forward(self, *args, **kwargs)
        return lambda: subclass(unit, forward=forward)

    def extra_argument():
        def __init__(self, *args, learner_extra=None, **kwargs):
            base.__init__(self, *args, **kwargs)
        return subclass(unit, __init__=__init__)

    def swapped_arguments():
        def __init__(self, *args, **kwargs):
            base.__init__(self, args[1], args[0], *args[2:], **kwargs)
        return subclass(unit, __init__=__init__)

    def missing_attribute():
        def __init__(self, *args, **kwargs):
            base.__init__(self, *args, **kwargs)
            first = next(iter(self._modules), None) or next(iter(self._parameters), None) or next(iter(self._buffers))
            delattr(self, first)
        return subclass(unit, __init__=__init__)

    def parameter_for_submodule():
        """The first submodule that holds a weight kept as a bare nn.Parameter: forward then calls a tensor."""
        def __init__(self, *args, **kwargs):
            base.__init__(self, *args, **kwargs)
            name, held = next((n, m) for n, m in self._modules.items() if getattr(m, "weight", None) is not None)
            delattr(self, name)
            setattr(self, name, nn.Parameter(held.weight.detach().clone()))
        return subclass(unit, __init__=__init__)

    variants = [Variant(unit, name, _expected(unit, name, expected), result_change(change))
                for name, (change, expected) in RESULT_CHANGES.items()]
    variants += [Variant(unit, name, expected, input_check(c)) for name, (c, expected) in INPUT_CHECKS.items()]
    variants += [Variant(unit, "extra-constructor-argument", RIGHT, extra_argument),
                 Variant(unit, "missing-attribute", WRONG, missing_attribute)]
    if init_arity >= 2:
        variants.append(Variant(unit, "swapped-constructor-arguments", EITHER, swapped_arguments))
    if any(getattr(m, "weight", None) is not None for m in _reference_children(unit)):
        variants.append(Variant(unit, "parameter-for-submodule", WRONG, parameter_for_submodule))
    return variants


def _reference_children(unit):
    with torch.no_grad():
        return list(PROVIDED[unit](*UNITS[unit].init).children())


def _function_variants(unit):
    base = PROVIDED[unit]

    def wrapped(name, body):
        def function(*args, **kwargs):
            return body(*args, **kwargs)
        function.__name__ = function.__qualname__ = unit
        return lambda: function

    variants = [Variant(unit, name, _expected(unit, name, expected), wrapped(name, lambda *a, _c=change, **k: _c(base(*a, **k))))
                for name, (change, expected) in RESULT_CHANGES.items()]

    def checked(check_inputs):
        def body(*args, **kwargs):
            check_inputs(args)
            return base(*args, **kwargs)
        return body

    variants += [Variant(unit, name, expected, wrapped(name, checked(c))) for name, (c, expected) in INPUT_CHECKS.items()]
    variants.append(Variant(unit, "extra-keyword-argument", RIGHT, wrapped("extra", lambda *a, learner_extra=None, **k: base(*a, **k))))
    return variants


# ---------------------------------------------------------------- hand-written variants


def _cell(source):
    """Run `source` as a notebook cell beside the provided units; its namespace."""
    namespace = dict(PROVIDED)
    exec(compile(source, "/tmp/ipykernel_0/fuzz_cell.py", "exec"), namespace)
    return namespace


EMBEDDINGS_PARAMETER = '''
class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Parameter(torch.randn(vocab_size, d_model))
        self.d_model = d_model

    def forward(self, tokens):
        return self.lut[tokens] * math.sqrt(self.d_model)
'''
FFN = '''
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1, self.w_2, self.dropout = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model), nn.Dropout(dropout)

    def forward(self, x):
        BODY
'''
FFN_BODIES = {  # name -> (forward body, expected)
    "functional-linear": (("hidden = self.dropout(F.relu(F.linear(x, self.w_1.weight, self.w_1.bias)))\n"
                           "        return F.linear(hidden, self.w_2.weight, self.w_2.bias)"), RIGHT),
    "einsum-3d-only": (("hidden = self.dropout(F.relu(torch.einsum('bld,fd->blf', x, self.w_1.weight) + self.w_1.bias))\n"
                        "        return torch.einsum('blf,df->bld', hidden, self.w_2.weight) + self.w_2.bias"), EITHER),
    "functional-dropout-always-on": ("return self.w_2(F.dropout(F.relu(self.w_1(x)), self.dropout.p))", WRONG),
}
FFN_TRAINING_BODIES = {  # name -> (forward body, expected): only dropout in training mode tells them apart
    "dropout-twice": ("return self.dropout(self.w_2(self.dropout(F.relu(self.w_1(x)))))", WRONG),
    "dropout-twice-inside": ("return self.w_2(self.dropout(self.dropout(F.relu(self.w_1(x)))))", WRONG),
    "functional-dropout-with-training": (("return self.w_2(F.dropout(F.relu(self.w_1(x)), self.dropout.p, "
                                          "training=self.training))"), RIGHT),
    # a rate of its own ignores the constructor's `dropout` (the exercise's submodule): wrong, but not "twice"
    "own-rate-functional-dropout": ("return self.w_2(F.dropout(F.relu(self.w_1(x)), 0.1, training=self.training))", WRONG),
    "dropout-module-once-then-identity": ("return self.w_2(F.dropout(self.dropout(F.relu(self.w_1(x))), 0.0))", RIGHT),
}
SWAPPED_LAYER_ENCODER = '''
class Encoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d_model, d_ff, n_head, dropout) for _ in range(n_layers))

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x
'''
EXTRA_ARGUMENT_ENCODER = SWAPPED_LAYER_ENCODER.replace("EncoderLayer(d_model, d_ff, n_head, dropout)",
                                                       "EncoderLayer(d_model, n_head, d_ff, dropout)").replace(
    "dropout=0.1):", "dropout=0.1, norm_first=False):")

HAND_WRITTEN = [
    Variant("Embeddings", "parameter-table", EITHER, lambda: _cell(EMBEDDINGS_PARAMETER)["Embeddings"]),
    *(Variant("PositionwiseFeedForward", name, expected, lambda body=body: _cell(FFN.replace("BODY", body))["PositionwiseFeedForward"])
      for name, (body, expected) in FFN_BODIES.items()),
    *(Variant("PositionwiseFeedForward", name, expected, lambda body=body: _cell(FFN.replace("BODY", body))["PositionwiseFeedForward"],
              aspect="properties", visible_sees=False) for name, (body, expected) in FFN_TRAINING_BODIES.items()),
    Variant("Encoder", "layers-built-with-swapped-arguments", WRONG, lambda: _cell(SWAPPED_LAYER_ENCODER)["Encoder"]),
    Variant("Encoder", "extra-constructor-argument", RIGHT, lambda: _cell(EXTRA_ARGUMENT_ENCODER)["Encoder"]),
]


def variants():
    found = []
    for unit, spec in UNITS.items():
        found += _module_variants(unit) if spec.init is not None else _function_variants(unit)
    return found + HAND_WRITTEN


# ---------------------------------------------------------------- the test


def _course_traceback(message):
    return [line for line in message.splitlines() if "File \"" in line and any(f in line for f in COURSE_FILES)]


def _judge(variant):
    """(visible message or None without visible checks, hidden message or '') for a variant; any other
    exception than CheckFailure propagates (the test fails on it)."""
    candidate = variant.make()
    with contextlib.redirect_stdout(io.StringIO()):
        visible = visible_problem(variant.unit, candidate) if fingerprint_file(variant.unit).is_file() else None
        try:
            check(variant.unit, candidate, variant.aspect)
            hidden = ""
        except CheckFailure as failure:
            hidden = str(failure)
    return visible, hidden


@pytest.mark.parametrize("variant", variants(), ids=str)
def test_a_learners_interface_gets_the_courses_message(variant):
    visible, hidden = _judge(variant)
    for message in (visible or "", hidden):
        assert not _course_traceback(message), (variant, message)
        assert not message or message.startswith("["), (variant, message)
    if variant.expected == RIGHT:
        assert not visible and not hidden, (variant, visible, hidden)
    elif variant.expected == WRONG:
        assert hidden and (visible is None or visible or not variant.visible_sees), (variant, visible, hidden)


def test_dropout_acting_in_evaluation_mode_is_told_so_not_as_a_mixing_of_positions():
    """F.dropout(h, p) without training=: a fresh draw on every call, in eval mode too. The position-wise property
    used to read that as "changing position 0 changed the output at other positions"."""
    body, _ = FFN_BODIES["functional-dropout-always-on"]
    _, hidden = _judge(Variant("PositionwiseFeedForward", "always-on", WRONG, lambda: _cell(FFN.replace("BODY", body))[
        "PositionwiseFeedForward"], aspect="properties"))
    assert "evaluation mode" in hidden and "training=self.training" in hidden, hidden
    assert "other positions" not in hidden, hidden


def test_dropout_applied_twice_in_the_ffn_is_named():
    body, _ = FFN_TRAINING_BODIES["dropout-twice-inside"]
    _, hidden = _judge(Variant("PositionwiseFeedForward", "twice", WRONG, lambda: _cell(FFN.replace("BODY", body))[
        "PositionwiseFeedForward"], aspect="properties"))
    assert "dropout is applied twice" in hidden and "1/(1-p)² = 4" in hidden, hidden


def test_an_encoder_that_swaps_its_layers_arguments_is_blamed_not_the_layer(capsys):
    """EncoderLayer(d_model, d_ff, n_head, dropout): a right layer cannot split d_model into d_ff heads, and the
    stand-in layer refuses it too (learner_kit/stand_ins.py), so no note says the Encoder is right."""
    visible, hidden = _judge(Variant("Encoder", "swapped", WRONG, lambda: _cell(SWAPPED_LAYER_ENCODER)["Encoder"]))
    assert visible.startswith("[runtime-error]") and hidden.startswith("[runtime-error]"), (visible, hidden)
    assert "fix `EncoderLayer` first" not in capsys.readouterr().out
