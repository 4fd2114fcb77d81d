"""Every statement a located message makes about a learner's code is true of that code.

The mistakes are generated (tests/mutants/learner_style.py: arguments swapped, a stale variable read, a call
dropped or doubled, a submodule reused) in the composite units, where a message says which submodule call
parts from the reference and what it received. Each statement of the hidden check's message is read back
here and checked against the mutant's own values, recorded with plain forward hooks of this test's own
(not with learner_kit.trace, whose records the message was made from).
"""
import inspect
import re

import pytest
import torch

from autograder.checks import UNITS, CheckFailure, check
from learner_kit import harness
from learner_kit.locate import HEADING
from tests.mutants import build
from tests.mutants.learner_style import mutants

UNITS_READ = ("DecoderLayer", "EncoderLayer", "Decoder")
OPERATORS = ("swap-args", "swap-names", "stale-read", "drop-call", "reuse-submodule")

CALLED = re.compile(r"`self\.(?P<name>[\w.]+)` is called with (?P<what>.+?) as `(?P<parameter>\w+)`; (?P<should>.+?\.)(?: |$)")
NEVER = re.compile(r"your code never calls `self\.(?P<name>[\w.]+)`")
ONE_MODULE = re.compile(r"`self\.(?P<a>[\w.]+)` and `self\.(?P<b>[\w.]+)` are one and the same module")
GETS = re.compile(r"`self\.(?P<name>[\w.]+)` gets, as `(?P<parameter>\w+)`, (?P<what>.+?)\.(?: [A-Z]|$)")
HOLDS = re.compile(r"your `(?P<name>\w+)` holds the values the reference returns as `(?P<other>\w+)`")


def _cases():
    return [(unit, m) for unit in UNITS_READ for m in mutants(unit) if m.operator in OPERATORS]


def calls_of(target, unit, case):
    """(the built module, {submodule name: [(arguments by parameter name, output)]}) of one run, by plain hooks."""
    spec = UNITS[unit]
    module = harness.run(target, spec.build_call(), case).instance
    seen, handles = {}, []
    for name, sub in module.named_modules(remove_duplicate=False):
        if not name:
            continue

        def before(sub_module, args, kwargs, name=name):  # before the call: a call that raises is seen too
            bound = inspect.signature(sub_module.forward).bind_partial(*args, **kwargs).arguments
            seen.setdefault(name, []).append([dict(bound), None])

        def after(sub_module, args, kwargs, output, name=name):
            seen[name][-1][1] = output
        handles.append(sub.register_forward_pre_hook(before, with_kwargs=True))
        handles.append(sub.register_forward_hook(after, with_kwargs=True))
    try:
        with torch.no_grad():
            module.eval()(*case.inputs.values())
    except Exception:  # noqa: BLE001 - a mutant may raise; its calls so far are what counts
        pass
    for handle in handles:
        handle.remove()
    return module, seen


def equal(a, b):
    if a is None or b is None:
        return a is None and b is None
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and \
        torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-5)


def value_of(words, case, calls):
    """The value a message's words name: an input (`memory`), a call's output (the output of `self.norm1`),
    nothing (None); or the string 'unread' for words this test does not read back."""
    if words == "nothing (None)":
        return None
    named = re.fullmatch(r"`(\w+)`", words)
    if named and named.group(1) in case.inputs:
        return case.inputs[named.group(1)]
    output = re.fullmatch(r"the output of `self\.([\w.]+)`", words)
    if output and output.group(1) in calls:
        return calls[output.group(1)][0][1]
    return "unread"


def failing_case(unit, text):
    """The values aspect's case whose label the message quotes."""
    for case in UNITS[unit].cases["values"]():
        if case.label and case.label in text:
            return case
    return UNITS[unit].cases["values"]()[0]


@pytest.mark.parametrize("unit, mutant", _cases(), ids=[f"{u}-{m.label}" for u, m in _cases()])
def test_each_statement_of_a_located_message_holds_for_the_mutant(unit, mutant):
    candidate = build(mutant)
    try:
        check(unit, candidate, "values")
        return
    except CheckFailure as failure:
        text = str(failure)
    if HEADING not in text:
        return
    located = text[text.index(HEADING) + len(HEADING):].strip()
    case = failing_case(unit, text)
    module, mine = calls_of(candidate, unit, case)
    _, theirs = calls_of(UNITS[unit].reference, unit, case)
    read = 0
    for statement in CALLED.finditer(located):
        name, parameter = statement["name"], statement["parameter"]
        got = value_of(statement["what"], case, mine)
        if got != "unread":
            assert any(equal(arguments.get(parameter), got) for arguments, _ in mine.get(name, [])), located
            read += 1
        should = re.fullmatch(r"the reference passes (?P<words>.+)\.", statement["should"])
        plus = re.fullmatch(r"the (?:reference|exercise) passes (?:.+ there, which is )?that plus (?P<words>.+)\.",
                            statement["should"])
        if plus:
            added = value_of(plus["words"], case, theirs)
            if added != "unread" and got != "unread":
                assert any(equal(arguments.get(parameter), got + added) for arguments, _ in theirs[name]), located
                read += 1
        elif should and should["words"] not in ("another tensor there", "nothing (None) there"):
            wanted = value_of(should["words"], case, theirs)
            if wanted != "unread":
                assert any(equal(arguments.get(parameter), wanted) for arguments, _ in theirs[name]), located
                read += 1
    for statement in GETS.finditer(located):
        name, parameter, what = statement["name"], statement["parameter"], statement["what"]
        pairs = [(a.get(parameter), b.get(parameter)) for (a, _), (b, _) in zip(mine.get(name, []), theirs[name])]
        less = re.fullmatch(r"what the reference passes less (?P<words>.+) \(that term is missing\)", what)
        more = re.fullmatch(r"what the reference passes plus (?P<words>.+) \(a term too many\)", what)
        swapped = re.fullmatch(r"what the reference passes, with (?P<other>.+) where it adds (?P<words>.+)", what)
        if what == "other values than the reference's":
            assert any(not equal(got, want) for got, want in pairs), located
        elif less or more:
            term = value_of((less or more)["words"], case, theirs)
            sign = -1 if less else 1
            assert any(equal(got, want + sign * term) for got, want in pairs), located
        elif swapped:
            term, other = value_of(swapped["words"], case, theirs), value_of(swapped["other"], case, theirs)
            assert any(equal(got, want - term + other) for got, want in pairs), located
        else:
            continue
        read += 1
    for statement in NEVER.finditer(located):
        assert statement["name"] not in mine and statement["name"] in theirs, located
        read += 1
    for statement in ONE_MODULE.finditer(located):
        assert module.get_submodule(statement["a"]) is module.get_submodule(statement["b"]), located
        read += 1
    for statement in HOLDS.finditer(located):
        spec = UNITS[unit]
        got = harness.run(candidate, spec.build_call(), case).outputs[statement["name"]]
        want = harness.run(spec.reference, spec.build_call(), case).outputs[statement["other"]]
        assert equal(got.detach(), want.detach()), located
        read += 1
    assert read or not (CALLED.search(located) or GETS.search(located)), f"a statement this test cannot read: {located}"


def test_the_statements_read_here_are_most_of_what_the_composites_are_told():
    """The test above must not pass by reading nothing: most generated mistakes of these units are located
    with statements it reads back."""
    located = read = 0
    for unit, mutant in _cases()[:40]:
        try:
            check(unit, build(mutant), "values")
            continue
        except CheckFailure as failure:
            text = str(failure)
        if HEADING in text:
            located += 1
            body = text[text.index(HEADING):]
            read += bool(CALLED.search(body) or GETS.search(body) or NEVER.search(body) or ONE_MODULE.search(body))
    assert located >= 10 and read >= 10, (located, read)
