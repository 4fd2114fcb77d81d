"""Every statement a located message makes about a learner's own operators is true of that code.

tests/learner_kit/test_locate_truth.py reads back what the composites are told about their submodule calls. This file
reads back what the leaf units are told about their operators: a step of the reference "gives values that
appear nowhere in your computation", the learner's own step "is called with the arguments (...)", "the error
comes from your <step>", a result that holds the reference's numbers in another arrangement or shape, an error
raised "before it computes anything". The mistakes are generated (tests/mutants/learner_style.py); the values
are read with a dispatch mode of this file's own, which sees every operator at every depth (not with
learner_kit.trace, whose records the messages were made from), so "nowhere" is checked more strictly than it
was said.
"""
import math
import re

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from autograder.checks import UNITS, CheckFailure, check
from learner_kit import harness
from learner_kit.locate import HEADING
from learner_kit.steps import every_label, kinds_of_label
from tests.mutants import build
from tests.mutants.learner_style import mutants

LEAVES = ("scaled_dot_product_attention", "LayerNorm", "AdditiveAttention", "PositionalEncoding", "split_heads",
          "merge_heads", "make_subsequent_mask", "make_tgt_mask", "Generator", "LabelSmoothingLoss")

# the words of a message for an operator -> the ATen operators they may stand for (a name in backticks is itself)
KINDS = {
    "softmax": {"_softmax", "softmax"}, "log-softmax": {"_log_softmax", "log_softmax"},
    "matrix product": {"mm", "bmm", "matmul", "addmm", "baddbmm"}, "division": {"div"}, "multiplication": {"mul"},
    "addition": {"add"}, "subtraction": {"sub", "rsub"}, "masked_fill": {"masked_fill"}, "torch.where": {"where"},
    "mean": {"mean"}, "sum": {"sum"}, "variance": {"var"}, "standard deviation": {"std"}, "square root": {"sqrt"},
    "reciprocal square root": {"rsqrt"}, "power": {"pow"}, "exponential": {"exp"}, "logarithm": {"log"},
    "tanh": {"tanh"}, "relu": {"relu"}, "negation": {"neg"}, "tril": {"tril"}, "triu": {"triu"},
    "logical AND": {"logical_and", "bitwise_and"}, "logical NOT": {"logical_not", "bitwise_not"},
    "comparison": {"eq", "ne", "lt", "gt", "le", "ge"}, "embedding lookup": {"embedding"}, "sine": {"sin"},
    "cosine": {"cos"}, "maximum": {"amax", "max"}, "reciprocal": {"reciprocal"}, "indexing": {"getitem", "index"},
    "concatenation": {"cat"}, "stack": {"stack"},
}
# operators that compute nothing: views, copies, tensors made from a shape alone, a module's random initial weights
VIEWS = {"view", "unsafe_view", "reshape", "expand", "transpose", "t", "permute", "unsqueeze", "squeeze", "clone",
         "contiguous", "alias", "detach", "to_copy", "slice", "select", "lift_fresh", "lift_fresh_copy", "copy_",
         "empty", "empty_like", "empty_strided", "reshape_alias", "split", "unbind", "as_strided", "arange", "zeros",
         "ones", "full", "zeros_like", "ones_like", "full_like", "scalar_tensor", "uniform_", "normal_", "fill_",
         "zero_", "equal"}

NOWHERE = re.compile(r"the reference's (?P<step>.+?) of .+? (?:\(shape (?P<shape>\([\d, ]*\))\) gives values|gives a "
                     r"number) that appears? nowhere in your computation\.")
# the same statement where the step has the exercise's name (learner_kit.steps): the name stands for its operator
LABELS = "|".join(re.escape(label) for label in sorted(every_label(), key=len, reverse=True))
NAMED_NOWHERE = re.compile(rf"no (?:value of shape (?P<shape>\([\d, ]*\))|number) in your computation equals "
                           rf"(?P<label>{LABELS})(?:; the exercise computes that step from|\.)")
OWN_ARGUMENTS = re.compile(r"Your own (?P<step>.+?) gets the same input but is called with the arguments "
                           r"\((?P<mine>.*?)\); the reference's with \((?P<theirs>.*?)\)\.")
RAISED_AT = re.compile(r"^the error comes from your (?P<step>(?!call of).+?), given")
ARRANGED = re.compile(r"your `(?P<name>\w+)` holds the reference's numbers, but in another arrangement")
RESHAPED = re.compile(r"your `(?P<name>\w+)` holds the reference's numbers in the reference's order, but in shape "
                      r"(?P<shape>\([\d, ]*\))")
NOTHING_YET = "the error is raised before your code computes anything."


class Seen(TorchDispatchMode):
    """Every ATen operator that runs, at any depth: (name, its plain arguments, its tensors out), and what raised."""

    def __init__(self):
        super().__init__()
        self.ops, self.raised = [], None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.__name__.split(".")[0]
        try:
            out = func(*args, **(kwargs or {}))
        except Exception:
            self.raised = self.raised or name
            raise
        plain = [a for a in tree_flatten((args, kwargs or {}))[0] if not isinstance(a, torch.Tensor)]
        self.ops.append((name.lstrip("_") if not name.startswith("__") else name, plain,
                         [t.detach().clone() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]))
        return out


class RaisedFunction(TorchFunctionMode):
    """The torch function that raised (a matrix product's shapes are checked before any operator runs)."""

    def __init__(self):
        super().__init__()
        self.raised = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except Exception:
            name = getattr(func, "__name__", str(func)).strip("_")
            self.raised = self.raised or name
            raise


def run_seen(target, unit, case):
    """(operators seen, the raising operator's or function's name, the outputs by name, the error) of one run as
    the checks make it (harness.run: a module built, given the checks' weights, then called), every operator of it
    seen, the construction's included."""
    call, seen, functions = UNITS[unit].build_call(), Seen(), RaisedFunction()
    harness.run(UNITS[unit].reference, call, case)  # the checks' weights are made here, outside what is seen
    with functions, seen:
        outcome = harness.run(target, call, case)
    return seen.ops, seen.raised or functions.raised, outcome.outputs or {}, outcome.error


def close(a, b):
    return a.shape == b.shape and a.dtype.is_floating_point == b.dtype.is_floating_point and \
        bool(torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-5, equal_nan=True))


def kinds_of(words):
    """The operator names and the axis (or None) that a message's words for a step stand for."""
    axis = re.fullmatch(r"(?P<kind>.+) over axis (?P<axis>-?\d+)", words)
    kind = axis["kind"] if axis else words
    named = re.fullmatch(r"`(\w+)`", kind)
    return ({named.group(1)} if named else KINDS[kind]), (int(axis["axis"]) if axis else None)


def failing_cases(unit, text):
    """The values aspect's case whose label the message quotes; where it quotes none (a check of its own, e.g.
    with a dropout module), every case of every aspect: the statements must then hold on one of them."""
    every = [case for cases in UNITS[unit].cases.values() for case in cases()]
    quoted = [case for case in every if case.label and case.label in text]
    return quoted[:1] or every


def _cases():
    return [(unit, m) for unit in LEAVES for m in mutants(unit)]


def located_of(unit, candidate):
    try:
        check(unit, candidate, "values")
    except CheckFailure as failure:
        text = str(failure)
        return (text[text.index(HEADING) + len(HEADING):].strip(), text) if HEADING in text else (None, text)
    return None, ""


@pytest.mark.parametrize("unit, mutant", _cases(), ids=[f"{u}-{m.label}" for u, m in _cases()])
def test_each_statement_about_an_operator_holds_for_the_mutant(unit, mutant):
    candidate = build(mutant)
    located, text = located_of(unit, candidate)
    if located is None:
        return
    failures = []
    for case in failing_cases(unit, text):
        try:
            _read_back(unit, candidate, case, located)
            return
        except AssertionError as failure:
            failures.append(f"{case.label}: {failure}")
    raise AssertionError(f"{located}\n" + "\n".join(failures))


def _read_back(unit, candidate, case, located):
    """Assert each statement of `located` on `case`."""
    mine, raised, my_outputs, error = run_seen(candidate, unit, case)
    theirs, _, their_outputs, _ = run_seen(UNITS[unit].reference, unit, case)
    everything = [t for _, _, outs in mine for t in outs] + [v for v in case.inputs.values()
                                                              if isinstance(v, torch.Tensor)]
    for statement in NOWHERE.finditer(located):
        names, axis = kinds_of(statement["step"])
        candidates = [outs[0] for name, plain, outs in theirs if name in names and outs
                      and (axis is None or axis in plain)
                      and (statement["shape"] is None or str(tuple(outs[0].shape)) == statement["shape"])]
        assert any(not any(close(value, t) for t in everything) for value in candidates), located
    for statement in NAMED_NOWHERE.finditer(located):
        names = kinds_of_label(statement["label"])  # a shape as the code holds it: a bmm's result is folded
        candidates = [outs[0] for name, plain, outs in theirs if name in names and outs
                      and (statement["shape"] is None or outs[0].numel() == math.prod(eval(statement["shape"])))]
        assert candidates and any(not any(close(value, t) for t in everything) for value in candidates), located
    for statement in OWN_ARGUMENTS.finditer(located):
        names, _ = kinds_of(statement["step"])
        wanted = {part.strip() for part in statement["mine"].split(",") if part.strip()}
        assert any(name in names and wanted <= {repr(a) for a in plain} for name, plain, _ in mine), located
    started = RAISED_AT.match(located)
    if started:
        names, _ = kinds_of(started["step"])
        assert error is not None and raised is not None and (raised in names or raised.lstrip("_") in names), \
            (located, raised)
    for statement in ARRANGED.finditer(located):
        got, want = my_outputs.get(statement["name"]), their_outputs.get(statement["name"])
        assert got is not None and want is not None, located
        assert got.numel() == want.numel() and not close(got.reshape(-1), want.reshape(-1)) and close(
            got.reshape(-1).double().sort().values, want.reshape(-1).double().sort().values), located
    for statement in RESHAPED.finditer(located):
        got, want = my_outputs.get(statement["name"]), their_outputs.get(statement["name"])
        assert got is not None and want is not None, located
        assert str(tuple(got.shape)) == statement["shape"] and got.shape != want.shape and \
            close(got.reshape(-1), want.reshape(-1)), located
    if located == NOTHING_YET:  # the checks' weights copied in after construction are not the learner's computing
        assert error is not None and all(name in VIEWS for name, _, _ in mine), (located, [n for n, _, _ in mine])


def test_most_leaf_mistakes_are_told_with_statements_read_here():
    """The test above must not pass by reading nothing."""
    read = told = 0
    for unit, mutant in _cases():
        try:
            located, _ = located_of(unit, build(mutant))
        except Exception:  # noqa: BLE001 - a mutant that does not build
            continue
        if located is None:
            continue
        told += 1
        read += any(p.search(located) for p in (NOWHERE, NAMED_NOWHERE, OWN_ARGUMENTS, RAISED_AT, ARRANGED, RESHAPED)) or \
            located == NOTHING_YET
    assert told >= 50 and read >= told * 0.6, (read, told)
