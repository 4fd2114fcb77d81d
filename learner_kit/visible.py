"""Visible checks: a learner's unit against numbers stored when the course was built.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

    from learner_kit.visible import check_visible
    check_visible("scaled_dot_product_attention", scaled_dot_product_attention)

The unit runs on the fixed cases of fingerprints/<unit>.pt. Its type, then the shapes,
then the values of its results are compared with the stored reference results; when they
differ, the stored results of the known mistakes name the misconception. Cheap properties
(rows summing to 1, blocked keys getting weight 0) follow. No solution code is involved:
the fingerprints hold numbers only.

A unit that calls other graded units of its notebook (MultiHeadAttention calls split_heads)
is judged with those answered as the reference answered them (learner_kit/replay.py), so
its test judges its own code; when it passes so but the learner's own helper breaks it, a
note says which helper to fix.
"""
import copy
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path

import torch

from learner_kit import explain, harness, i18n, live, packed, show_failure, static_hints
from learner_kit.calls import Call, CallOutcome, Case
from learner_kit.i18n import tr
from learner_kit.locate import LOCATABLE_IDS, is_located, locate, with_location
from learner_kit.messages import TestFailed, catalogue_of, format_message
from learner_kit.replay import Replay


def check_visible(unit_name, candidate, *specific_checks):
    """Print 'All visible tests passed for <unit>.' or raise AssertionError with the message.

    `specific_checks` are the notebook's own checks of the unit: functions of no argument,
    each asserting a property with a message that names one mistake, e.g.

        def no_pad_key():
            allowed = make_tgt_mask(torch.tensor([[1, 5, 0]]))
            assert not allowed[..., 2].any(), format_message("mask-tgt-missing-pad", "...")

    A named mistake outranks a generic symptom: when the stored cases find only a generic
    problem (wrong values, NaN, a shape, an error) and a specific check names the mistake,
    the learner reads the specific check's message. An error raised inside the learner's
    code during a specific check is reported as a [runtime-error] with the line that raised it,
    and a check that cannot run on results already found wrong gives way to what was found.

    On the class's JupyterHub the outcome (passed, or the mistake's id) goes to the instructor's
    live view (learner_kit.live); the grader's calls, on its remote units, report nothing.
    """
    try:
        _check_visible(unit_name, candidate, *specific_checks)
    except Exception as error:
        if not isinstance(candidate, harness.Remote):
            live.tested(unit_name, live.outcome_of(error))
        raise
    if not isinstance(candidate, harness.Remote):
        live.tested(unit_name, live.PASSED)


def _check_visible(unit_name, candidate, *specific_checks):
    _VERDICTS[unit_name] = (candidate, False)  # until this test has passed, later cells treat the unit as failing
    unrun = explain.unrun_answer(unit_name)  # its answer cell has a SyntaxError: `candidate` is an earlier run's
    if unrun:
        raise TestFailed(unrun)
    message = "" if unit_name in STORED_CASES_PASSED else visible_problem(unit_name, candidate)
    if message and not _is_generic(message):
        raise TestFailed(message)
    for specific in specific_checks:
        found = _specific_problem(specific, candidate)
        if found and (not message or found[1]):
            text = _unless_disproved(unit_name, candidate, found[0])
            where = [line for line in message.splitlines() if is_located(line)]
            if where and _is_generic(text) and not is_located(text):  # the stored cases' location still holds
                text = f"{text}\n{where[0]}"
            raise TestFailed(_with_hints(text, candidate)) from None
    if message:
        raise TestFailed(message)
    _VERDICTS[unit_name] = (candidate, True)
    print(tr("All visible tests passed for {unit}.", unit=unit_name))


# unit name -> (the candidate its visible test last judged, whether it passed), for passed() below.
_VERDICTS = {}
# Units whose stored cases the grader has just run on this very object and found right (set by the sandbox's unit
# server while it runs a visible cell's own checks, which it does only then): the cell's call of check_visible goes
# straight to the cell's own checks, as it would after running them again. Nothing here decides a grade.
STORED_CASES_PASSED = set()


def passed(unit_name, candidate):
    """Whether a later cell may use ``candidate``: the verdict of the unit's own visible test cell (its
    specific checks included) when that cell last judged this very object, else the stored cases' verdict
    (the test cell has not run on it: e.g. the answer cell was run again after the test)."""
    judged, verdict = _VERDICTS.get(unit_name, (None, None))
    if judged is candidate:
        return verdict
    return not visible_problem(unit_name, candidate)


# Ids that say what is wrong but not which mistake made it: a named mistake outranks them.
GENERIC_IDS = ("wrong-values", "nan", "shape", "runtime-error", "property-violated", "wrong-gradients")


def _is_generic(message):
    return any(message.startswith(f"[{generic}]") for generic in GENERIC_IDS)


def _unless_disproved(unit_name, candidate, message):
    """A notebook check's message, unless the stored evidence disproves its misconception id: the fingerprint holds
    that mistake's own results on the stored cases, and the learner's code gives other results there. Then the
    id (and its explanation) goes, and the check's own sentence stays under [property-violated]: an id is printed
    only where it is not contradicted by the mistake it names."""
    match = re.match(r"\[([\w-]+)\] ", message)
    if match is None or match.group(1) in GENERIC_IDS or isinstance(candidate, harness.Remote):
        return message
    mistake_id = match.group(1)
    try:
        data = load(unit_name)
    except ValueError:  # no stored cases for this unit: the check is all there is
        return message
    known = data["mutants"].get(mistake_id)
    if not known:
        return message
    call, cases = _stored_call(data), _stored_cases(data)
    learner = [harness.run(candidate, replace(call, bindings=_replays(c)), case) for c, case in zip(data["cases"], cases)]
    if any(all(harness.same_outcome(mine, _outcome(theirs), case) for mine, theirs, case in zip(learner, variant, cases))
           for variant in known):
        return message
    what, why = catalogue_of(i18n.language()).get(mistake_id, ("", ""))
    detail = message[len(match.group(0)):]
    for line in (what, why):
        detail = detail[len(line):].lstrip("\n") if line and detail.startswith(line) else detail
    return format_message("property-violated", detail)


def _specific_problem(specific, candidate):
    """(message, names a mistake?) for what `specific` finds, or None when it passes.

    The check's own failed assertion names its mistake; an error raised inside the learner's
    code is a [runtime-error] with its line; any other error (the check could not run on
    results of the wrong kind) is a runtime-error that names nothing.
    """
    try:
        specific()
    except AssertionError as error:
        harness.mark_learner_line(error, candidate)
        if not getattr(error, "learner_line", ""):
            return str(error), True
        return format_message("runtime-error", harness.describe_error(error)), False
    except Exception as error:  # the learner's code, or the check on results it cannot read
        harness.mark_learner_line(error, candidate)
        if harness.is_blank(error):
            return format_message("not-implemented"), False
        return format_message("runtime-error", harness.describe_error(error)), False
    return None


def visible_problem(unit_name, candidate):
    """The message for the first problem the visible cases show, or ''.

    A failure also gets what a linter sees in the notebook cell that defines the unit
    (learner_kit/static_hints.py): `self.w_q == nn.Linear(...)`, `super.__init__()`, ...
    """
    message = _visible_problem(unit_name, candidate)
    return _with_hints(message, candidate) if message else message  # the grader adds a Remote unit's hints itself


def _with_hints(message, candidate):
    """`message` with what a linter sees in the unit's cell (as visible_problem adds it), so that a specific
    check's message keeps the line-level hints."""
    if message.startswith("[not-implemented]") or isinstance(candidate, harness.Remote):
        return message
    return message + static_hints.appendix(static_hints.unit_hints(candidate))


def _visible_problem(unit_name, candidate):
    data = load(unit_name)
    call = _stored_call(data)
    wrong = harness.wrong_kind(candidate, call.init is not None, unit_name)
    if wrong:
        return format_message(*wrong)
    cases = _stored_cases(data)
    calls = [replace(call, bindings=_replays(c)) for c in data["cases"]]
    learner = [harness.run(candidate, calls[i], case) for i, case in enumerate(cases)]
    for index, (got, case) in enumerate(zip(learner, cases)):
        found = _problem(got, _outcome(data["reference"][index]), case, call.axes, data["properties"])
        if found is not None and "stand_ins" in data and _right_with_stand_ins(unit_name, candidate, data, call, cases):
            return ""
        if found is not None:
            want = _outcome(data["reference"][index])
            mistake_id, detail = found
            if harness.nameable(mistake_id, learner[index]):
                order = [index, *(i for i in range(len(cases)) if i != index)]
                mine, ordered = [learner[i] for i in order], [cases[i] for i in order]
                for stored, ids in ((data["mutants"], str), (data.get("pairs", {}), lambda key: tuple(key.split("+")))):
                    variants = ((ids(known), [_outcome(per_case[i]) for i in order])
                                for known, per_variant in stored.items() for per_case in per_variant)
                    named = harness.name_mistake(mine, variants, ordered, want)
                    if named:
                        mistake_id, detail = named, harness.named_detail(mistake_id, detail)
                        break
                else:
                    detail = _located(detail, mistake_id, candidate, calls[index], case, want, data, index)
            return format_message(mistake_id, detail)
    problem = _arguments_problem(unit_name, candidate, data, calls[0], cases[0])
    if problem:
        return format_message("property-violated", problem)
    _note_broken_helpers(unit_name, candidate, data, calls, cases)
    return ""


def _arguments_problem(unit_name, candidate, data, call, case):
    """What learner_kit.arguments sees of the unit's `dropout` argument: built with another rate, a part that does
    not get it. A composite is built from the course's stand-ins for its graded parts, so that it answers only for
    what it passes on (the learner's own parts, in their own tests); in the grader, in the notebook's process."""
    from learner_kit import arguments, stand_ins

    if call.init is None or unit_name not in arguments.DROPOUT_ARGUMENT:
        return ""
    stored = data.get("stand_ins")
    bindings = {name: getattr(stand_ins, class_name) for name, class_name in stored["classes"].items()} if stored else {}
    if isinstance(candidate, harness.Remote):
        built = replace(call, weights=stored["weights"], bindings=bindings) if stored else call
        instance = harness.run(candidate, built, case).instance  # built from the stand-ins there, as its fresh copies
        if instance is None:
            return ""
        return arguments.dropout_problem(unit_name, call.init, lambda init: instance.run_probe("dropout_rates", init))
    return arguments.dropout_problem(unit_name, call.init,
                                     lambda init: arguments.built_rates(candidate, init, bindings))


def _stored_call(data):
    """How a fingerprint's unit is called (its stored outputs, constructor arguments, weights and axes)."""
    stored = data["call"]
    init = tuple(stored["init"]) if stored["init"] is not None else None
    return Call(outputs=stored["outputs"], init=init, weights=stored["weights"],
                axes={name: tuple(axes) for name, axes in stored["axes"].items()})


def _stored_cases(data):
    return [Case(c["inputs"], label=case_label(c), compare=tuple(c["compare"]), torch_seed=c["torch_seed"])
            for c in data["cases"]]


def _located(detail, mistake_id, candidate, call, case, want, data, index):
    """`detail` and, for a symptom no known mistake explains, where the learner's computation parts from the
    reference's on this case (learner_kit.locate, against the reference's record stored in the fingerprint)."""
    stored = data.get("traces")
    if mistake_id not in LOCATABLE_IDS or not stored or stored[index] is None:
        return detail
    mine = harness.run(candidate, call, case, trace=True)
    return with_location(detail, locate(mine.trace, stored[index], case.inputs, (mine.outputs or {}, want.outputs or {}),
                                        unit=data.get("unit")))


def _problem(got, want, case, axes, properties):
    """(id, detail) of what differs from the stored reference outcome or breaks a stored property, or None."""
    found = harness.verdict(got, want, case, axes)
    if found is None:
        problem = harness.violated_property([tuple(p) for p in properties], got, case, axes)
        found = ("property-violated", problem) if problem else None
    return found


def _right_with_stand_ins(unit_name, candidate, data, call, cases):
    """Whether the unit passes with stand-ins for the graded modules it builds (learner_kit/stand_ins.py),
    against the reference built from the same stand-ins; if so, a note names the module to fix."""
    from learner_kit import stand_ins

    stored = data["stand_ins"]
    bindings = {name: getattr(stand_ins, class_name) for name, class_name in stored["classes"].items()}
    with_stand_ins = replace(call, weights=stored["weights"], bindings=bindings)
    for index, case in enumerate(cases):
        got = harness.run(candidate, with_stand_ins, case)
        if _problem(got, _outcome(stored["reference"][index]), case, call.axes, data["properties"]) is not None:
            return False
    if not isinstance(candidate, harness.Remote):  # the grader decides; learners read the note in their notebook
        names = harness.joined(f"`{name}`" for name in bindings)
        print(tr("Note: your {unit} is right: built from simple stand-ins for {names}, it gives what the exercise's "
                 "{unit} gives with them. With your own {names} it does not, so fix {names} first (its test above "
                 "says how).", unit=unit_name, names=names))
    return True


def _replays(case_data):
    return {name: Replay.from_plain(plain) for name, plain in case_data.get("replays", {}).items()}


def _note_broken_helpers(unit_name, candidate, data, calls, cases):
    """Print which of the learner's own helpers (split_heads, ...) make this passing unit give other results."""
    helpers = sorted({name for call in calls for name in call.bindings})
    if isinstance(candidate, harness.Remote) or not helpers:  # the grader: learners read the note in their notebook
        return
    broken = []
    for helper in helpers:
        for index, (call, case) in enumerate(zip(calls, cases)):
            own = {name: value for name, value in call.bindings.items() if name != helper}
            got = harness.run(candidate, replace(call, bindings=own), case)
            if harness.verdict(got, _outcome(data["reference"][index]), case, call.axes) is not None:
                broken.append(helper)
                break
    if broken:
        names = harness.joined(f"`{name}`" for name in broken)
        print(tr("Note: your {unit} passes with a correct {names}; with your own {names} it gives other results. "
                 "Fix {names} first (the test above says how).", unit=unit_name, names=names) if len(broken) == 1 else
              tr("Note: your {unit} passes with a correct {names}; with your own {names} it gives other results. "
                 "Fix {names} first (the tests above say how).", unit=unit_name, names=names))


def fingerprint_file(unit_name):
    """Where the fingerprint of `unit_name` is stored (it may not exist: not every unit has visible checks)."""
    return resources.files("learner_kit") / "fingerprints" / f"{unit_name}.pt"


def load(unit_name):
    """The stored fingerprint of `unit_name` (plain data): a copy of its own, so that nothing done to it (a learner's
    code changing a replayed mask in place) reaches the next check.

    The file is read once per process and kept (keyed by its size and time, so a rebuilt fingerprint is read again):
    reading them (learner_kit.packed) takes about as long as the copy (0.1-0.2 s for all of them), and the grader's
    workers check the same units for every submission (the sandbox's forked children, which keep nothing, get them
    from preload()).
    """
    source = fingerprint_file(unit_name)
    if not source.is_file():
        raise ValueError(f"no visible checks for {unit_name!r}")
    with resources.as_file(source) as file:
        stat = Path(file).stat()
        key = (str(file), stat.st_size, stat.st_mtime_ns)
        if key not in _LOADED:
            _LOADED[key] = packed.load(file)
        return _copied(_LOADED[key], {})


_LOADED = {}  # (file, size, mtime) -> the fingerprint as packed.load read it; never handed out, only copies of it


def preload():
    """Read every stored fingerprint now: the sandbox's unit server does, before any submission, so that each
    notebook's process is forked from it with them already read (a process that lives on keeps what it reads)."""
    for source in (resources.files("learner_kit") / "fingerprints").iterdir():
        if source.name.endswith(".pt"):
            load(source.name.removesuffix(".pt"))


def _copied(value, memo):
    """A copy of a fingerprint's plain data: containers rebuilt, tensors cloned (one clone per tensor object, as
    deepcopy would; ten times as fast, since a fingerprint holds only dicts, lists, tuples, tensors and scalars)."""
    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            memo[id(value)] = value.detach().clone().requires_grad_(value.requires_grad)
        return memo[id(value)]
    if isinstance(value, dict):
        return {key: _copied(item, memo) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_copied(item, memo) for item in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return copy.deepcopy(value, memo)


def case_label(case_data):
    """A stored case's label in the current language: the fingerprint keeps it in every language ("labels"),
    else (a fingerprint made before it did) in English."""
    return case_data.get("labels", {}).get(i18n.language()) or case_data["label"]


def _outcome(stored):
    return CallOutcome(outputs=stored["outputs"]) if "outputs" in stored else CallOutcome(error_type=stored["error"])


show_failure.watch()  # in JupyterLab, a cell that stops on an error brings its message into view (Run All)
explain.watch_unrun_answers()  # in a notebook, a NameError of a unit whose answer cell Python could not read says so
