"""One catalogue entry per mistake (learner_kit/mistakes.py): no id without its message in both languages, the knob of
the checks that reproduces it (or the one reason it has none) and the section of the notebook that teaches it, in
both editions; and no entry for an id that nothing emits."""
import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from autograder.checks import core, train
from autograder.paths import sources_dir
from learner_kit.messages import CATALOGUE, EXTRA_IDS, catalogue_of
from learner_kit.mistakes import MISTAKES, NO_KNOB, texts
from tests.learner_kit.test_messages import COURSE_IDS

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = ("en", "ko")
ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def emitting_code():
    """The code that names a mistake's id as it fails a check: the checks, and the learner kit's side of them (the
    visible checks, the Watch, explain_errors, and the shared plumbing of learner_kit.harness with the modules it
    takes its names from)."""
    harness = ROOT / "learner_kit" / "harness.py"
    plumbing = {node.module for node in ast.walk(ast.parse(harness.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("learner_kit.")}
    kit = {"harness", "watch", "visible", "explain"} | {module.split(".")[1] for module in plumbing}
    return sorted((ROOT / "autograder" / "checks").glob("*.py")) + [ROOT / "learner_kit" / f"{name}.py" for name in sorted(kit)]


def registered():
    """(unit, id, variant) of every known mistake in the checks' registry: each unit's UnitSpec.mutants, and the
    mutants of the capstone's own units (train.CAPSTONE)."""
    units = [(name, spec.mutants) for name, spec in core.UNITS.items()]
    units += [(name, unit.mutants) for name, unit in train.CAPSTONE.items()]
    return [(name, mistake_id, variant) for name, mutants in units
            for mistake_id, group in mutants.items() for variant in group]


def knob_settings(variant):
    """(knobbed reference, the knobs it sets) of a known mistake: a variant_class or a partial (core.knobs_of), or a
    function that calls one knobbed function with keyword knobs (the capstone's lambdas)."""
    found = core.knobs_of(variant)
    if found is not None:
        return found[0], set(found[1])
    code = getattr(variant, "__code__", None)
    if code is None:
        return None
    called = [variant.__globals__[name] for name in code.co_names if callable(variant.__globals__.get(name))]
    keywords = {name for const in code.co_consts if isinstance(const, tuple) for name in const}
    return (called[0], keywords) if len(called) == 1 else None


def _literal_ids(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and ID.match(node.value):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _literal_ids(node.body)
        yield from _literal_ids(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _literal_ids(value)


def named_in_code():
    """The ids the code names where a check fails: the first argument of CheckFailure(...) and format_message(...),
    the id of _Checker.fail(case, got, want, id, ...), a unit's device_id and literal mutants, the first item of a
    returned (id, detail)."""
    found = set()
    for path in emitting_code():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            places = []
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name in ("CheckFailure", "format_message") and node.args:
                    places.append(node.args[0])
                if name == "fail" and len(node.args) >= 4:
                    places.append(node.args[3])
                places += [kw.value for kw in node.keywords if kw.arg == "device_id"]
                places += [key for kw in node.keywords if kw.arg == "mutants" and isinstance(kw.value, ast.Dict)
                           for key in kw.value.keys]
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts:
                places.append(node.value.elts[0])
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.IfExp):
                places.append(node.elts[0])
            for place in places:
                found.update(_literal_ids(place))
    return found


def emitted():
    """Every id the checks can emit: their registry's known mistakes and device ids, and the ids their code names."""
    return ({mistake_id for _, mistake_id, _ in registered()} | {spec.device_id for spec in core.UNITS.values()}
            | named_in_code())


def section(lang, notebook, number):
    """The text of a notebook source's `## <number>.` section (0: what comes before the first `##` heading), or
    None; a heading inside a code cell is code, not a heading."""
    text = (sources_dir(lang) / f"{notebook}.md").read_text(encoding="utf-8")
    sections, current, code = {0: ""}, 0, False
    for line in text.splitlines():
        if line.startswith("```"):
            code = not code
        heading = None if code else re.match(r"## (?:(\d+)\. )?", line)
        if heading:
            current = int(heading.group(1)) if heading.group(1) else None
            sections.setdefault(current, "")
        if current is not None:
            sections[current] += line + "\n"
    return sections.get(number)


def resolve(knob):
    """(knobbed reference, knob name) of "module:reference.knob", once the reference has that knob."""
    module, _, path = knob.partition(":")
    owner, _, name = path.rpartition(".")
    reference = getattr(importlib.import_module(module), owner)
    if isinstance(reference, type):
        assert hasattr(reference, name), f"{owner} has no knob {name!r}"
    else:
        parameter = inspect.signature(reference).parameters.get(name)
        assert parameter is not None and parameter.default is not inspect.Parameter.empty, (
            f"{owner} has no knob {name!r} (a parameter with a default)")
    return reference, name


def test_every_id_of_the_contract_and_of_the_checks_has_its_entry():
    assert set(COURSE_IDS) | set(EXTRA_IDS) <= set(MISTAKES)
    assert sorted(emitted() - set(MISTAKES)) == [], "ids the checks emit with no entry in learner_kit/mistakes.py"


def test_no_entry_for_an_id_nobody_emits():
    assert sorted(set(MISTAKES) - emitted()) == []


def test_entries_are_keyed_by_their_own_id():
    assert all(key == mistake.id for key, mistake in MISTAKES.items())


@pytest.mark.parametrize("mistake_id", sorted(MISTAKES))
def test_its_message_in_both_languages(mistake_id):
    for lang in EDITIONS:
        what, why = getattr(MISTAKES[mistake_id], lang)
        assert what.strip() and why.strip(), (mistake_id, lang)


def test_the_catalogues_read_their_texts_from_the_entries():
    assert CATALOGUE == texts("en")
    assert catalogue_of("ko") == texts("ko")


@pytest.mark.parametrize("mistake_id", sorted(MISTAKES))
def test_its_knob_reproduces_it_or_it_says_why_it_has_none(mistake_id):
    mistake = MISTAKES[mistake_id]
    known = [(unit, knob_settings(variant)) for unit, one, variant in registered() if one == mistake_id]
    if not mistake.knob:
        assert mistake.no_knob in NO_KNOB, f"{mistake_id}: neither a knob nor a reason of NO_KNOB"
        assert known == [], f"{mistake_id} says it has no knob, yet the checks know {len(known)} variants of it"
        return
    assert not mistake.no_knob, f"{mistake_id}: a knob and a reason for having none"
    reference, name = resolve(mistake.knob)
    assert any(settings is not None and settings[0] is reference and name in settings[1] for _, settings in known), (
        f"{mistake_id}: no known mistake of the checks sets {mistake.knob}")


@pytest.mark.parametrize("mistake_id", sorted(MISTAKES))
def test_its_section_in_both_editions(mistake_id):
    taught = MISTAKES[mistake_id].taught
    for lang in EDITIONS:
        text = section(lang, taught.notebook, taught.number)
        assert text is not None, f"{mistake_id}: {lang} {taught.notebook} has no section {taught.number}"
        assert taught.marker in text, f"{mistake_id}: {lang} {taught.notebook} section {taught.number} lacks " \
                                      f"{taught.marker!r}"
