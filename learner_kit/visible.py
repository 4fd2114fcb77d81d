"""Visible checks: a learner's unit against numbers stored when the course was built.

    from learner_kit.visible import check_visible
    check_visible("scaled_dot_product_attention", scaled_dot_product_attention)

The unit runs on the fixed cases of fingerprints/<unit>.pt. Its type, then the shapes,
then the values of its results are compared with the stored reference results; when they
differ, the stored results of the known mistakes name the misconception. Cheap properties
(rows summing to 1, blocked keys getting weight 0) follow. No solution code is involved:
the fingerprints hold numbers only.
"""
from importlib import resources

import torch

from learner_kit import harness
from learner_kit.harness import Call, Case, Outcome
from learner_kit.messages import format_message


def check_visible(unit_name, candidate):
    """Print 'All visible tests passed for <unit>.' or raise AssertionError with the message."""
    message = visible_problem(unit_name, candidate)
    if message:
        raise AssertionError(message)
    print(f"All visible tests passed for {unit_name}.")


def visible_problem(unit_name, candidate):
    """The message for the first problem the visible cases show, or ''."""
    data = load(unit_name)
    stored = data["call"]
    init = tuple(stored["init"]) if stored["init"] is not None else None
    call = Call(outputs=stored["outputs"], init=init, weights=stored["weights"],
                axes={name: tuple(axes) for name, axes in stored["axes"].items()})
    wrong = harness.wrong_kind(candidate, init is not None, unit_name)
    if wrong:
        return format_message(*wrong)
    cases = [Case(c["inputs"], label=c["label"], compare=tuple(c["compare"]), torch_seed=c["torch_seed"])
             for c in data["cases"]]
    learner = [harness.run(candidate, call, case) for case in cases]
    for index, (got, case) in enumerate(zip(learner, cases)):
        want = _outcome(data["reference"][index])
        found = harness.verdict(got, want, case, call.axes)
        if found is None:
            problem = harness.violated_property([tuple(p) for p in data["properties"]], got, case, call.axes)
            found = ("property-violated", problem) if problem else None
        if found is not None:
            mistake_id, detail = found
            if mistake_id != "not-implemented":
                order = [index, *(i for i in range(len(cases)) if i != index)]
                variants = ((known, [_outcome(per_case[i]) for i in order])
                            for known, per_variant in data["mutants"].items() for per_case in per_variant)
                named = harness.name_mistake([learner[i] for i in order], variants, [cases[i] for i in order], want)
                mistake_id = named or mistake_id
            return format_message(mistake_id, detail)
    return ""


def fingerprint_file(unit_name):
    """Where the fingerprint of `unit_name` is stored (it may not exist: not every unit has visible checks)."""
    return resources.files("learner_kit") / "fingerprints" / f"{unit_name}.pt"


def load(unit_name):
    """The stored fingerprint of `unit_name` (plain data)."""
    source = fingerprint_file(unit_name)
    if not source.is_file():
        raise ValueError(f"no visible checks for {unit_name!r}")
    with resources.as_file(source) as file:
        return torch.load(file, weights_only=True)


def _outcome(stored):
    return Outcome(outputs=stored["outputs"]) if "outputs" in stored else Outcome(error_type=stored["error"])
