"""Build learner_kit/fingerprints/<unit>.pt, what the visible checks compare against.

For every unit registered in autograder.checks, on its probe cases (fixed seeds, all
dimensions different): the inputs, the constructor arguments and initial weights of a
module, the reference's results, and the results (or error type) of every known mistake and
of every two known mistakes that can be made at once. For the capstone's units, which notebook
10 checks itself, only the cases of that visible test and the reference's traced run on each.
Numbers, names and ids only, loadable with torch.load(weights_only=True): no code reaches
the learner.

    python -m autograder.fingerprints          # rewrite the fingerprints that are stale
    python -m autograder.fingerprints --check  # only list them; exit status 1 if any
"""
import argparse
import sys
from pathlib import Path

import torch

import learner_kit
from autograder import reference
from autograder.checks import UNITS, isolation, train
from autograder.checks.core import mistake_pairs
from learner_kit import harness, i18n, packed, parting

DIRECTORY = Path(learner_kit.__file__).parent / "fingerprints"
FORMAT = 1


def fingerprint(spec):
    """The fingerprint of one unit, as plain data."""
    call, cases = spec.build_call(), spec.probes()
    data = {
        "format": FORMAT,
        "unit": spec.name,
        "call": {
            "outputs": dict(call.outputs),
            "init": list(call.init) if call.init is not None else None,
            "weights": dict(call.weights) if call.weights is not None else None,
            "axes": {name: list(axes) for name, axes in call.axes.items()},
        },
        "properties": [list(p) for p in spec.properties if isinstance(p, tuple)],
        "cases": [_case_data(case, isolation.replays(spec, call, case), labels)
                  for case, labels in zip(cases, _labels_in_every_language(spec))],
        "reference": [_outcome_data(harness.run(spec.reference, call, case)) for case in cases],
        # what the reference computed on the way (learner_kit.trace): where a learner's code parts from it
        "traces": [parting.stored_record(harness.run(spec.reference, call, case, trace=True).trace) for case in cases],
        "mutants": {
            mistake_id: [[_outcome_data(harness.run(variant, call, case)) for case in cases] for variant in variants]
            for mistake_id, variants in spec.mutants.items()
        },
    }
    pairs = mistake_pairs(spec.name)
    if pairs:  # two known mistakes at once, under "id+id"
        data["pairs"] = {}
        for ids, variant in pairs:
            data["pairs"].setdefault("+".join(ids), []).append([_outcome_data(harness.run(variant, call, c)) for c in cases])
    if spec.stand_ins:
        data["stand_ins"] = _stand_in_data(spec, cases)
    return data


def _stand_in_data(spec, cases):
    """The unit built from stand-ins for the graded modules it builds: their classes, weights, the reference's results."""
    call = spec.build_call(stand_ins=True)
    return {
        "classes": {name: type_.__name__ for name, type_ in call.bindings.items()},
        "weights": dict(call.weights),
        "reference": [_outcome_data(harness.run(spec.reference, call, case)) for case in cases],
    }


def _labels_in_every_language(spec):
    """[{language: label}] of the probe cases: a visible message names its case in the learner's language."""
    per_language = {}
    for lang in i18n.LANGUAGES:
        with i18n.speaking(lang):
            per_language[lang] = [case.label for case in spec.probes()]
    return [{lang: per_language[lang][k] for lang in i18n.LANGUAGES} for k in range(len(per_language[i18n.DEFAULT]))]


def _case_data(case, replays, labels):
    for name, value in case.inputs.items():
        if not isinstance(value, (torch.Tensor, int, float, str, type(None))):
            raise TypeError(f"probe input {name!r} is a {type(value).__name__}: fingerprints hold plain data only")
    data = {
        "inputs": {name: v.detach() if isinstance(v, torch.Tensor) else v for name, v in case.inputs.items()},
        "label": case.label,
        "labels": labels,
        "compare": list(case.compare),
        "torch_seed": case.torch_seed,
    }
    if replays:  # the graded functions the unit calls, as the reference called them (checks/isolation.py)
        data["replays"] = {name: replay.to_plain() for name, replay in replays.items()}
    return data


def _outcome_data(outcome):
    if outcome.outputs is None:
        return {"error": outcome.error_type or "problem"}
    return {"outputs": {name: t.detach() for name, t in outcome.outputs.items()}}


def path(unit_name, directory=DIRECTORY):
    return Path(directory) / f"{unit_name}.pt"


def same(a, b):
    """Whether two fingerprints (or parts) hold the same data, tensors equal within tolerance."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and harness.close(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)  # order matters: it is the order of the checks
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def notebook_judged_fingerprint(unit):
    """The fingerprint of a capstone unit, which notebook 10 checks itself: the cases of its visible test and the
    reference's traced run on each (learner_kit.parting), so that a failing check can say where the learner's
    computation parts from the reference's."""
    cases = unit.visible_cases()
    runs = [parting.traced_run(getattr(reference, unit.name), case) for case in cases]
    return {"format": FORMAT, "unit": unit.name, "judged_by": parting.JUDGED_BY_NOTEBOOK, "cases": cases,
            "runs": [parting.stored_run(run) for run in runs]}


def _fresh():
    """(file name, a function building its fingerprint now): every unit with stored cases (<unit>.pt), then the
    capstone's runs (<unit>.runs.pt: not stored cases, so that a unit has stored cases where <unit>.pt exists)."""
    yield from ((name, lambda spec=spec: fingerprint(spec)) for name, spec in UNITS.items())
    yield from ((name + parting.RUNS_SUFFIX, lambda unit=unit: notebook_judged_fingerprint(unit))
                for name, unit in train.CAPSTONE.items())


def stale(directory=DIRECTORY):
    """{unit name: fresh fingerprint} for every unit whose stored fingerprint is missing or differs."""
    found = {}
    for name, build in _fresh():
        fresh = build()
        try:
            stored = packed.load(path(name, directory))
        except FileNotFoundError:
            stored = None
        if not same(stored, fresh):
            found[name] = fresh
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list stale fingerprints")
    parser.add_argument("--directory", default=str(DIRECTORY))
    options = parser.parse_args(argv)
    outdated = stale(options.directory)
    for name, data in outdated.items():
        if options.check:
            print(f"stale: {path(name, options.directory)}")
        else:
            Path(options.directory).mkdir(parents=True, exist_ok=True)
            packed.save(data, path(name, options.directory))
            print(f"wrote {path(name, options.directory)}")
    return 1 if options.check and outdated else 0


if __name__ == "__main__":
    sys.exit(main())
