"""Where a unit that its notebook checks itself parts from the reference (the capstone's make_batch, noam_rate and
greedy_decode), on the cases of the notebook's visible test.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

Their fingerprints (learner_kit/fingerprints/<unit>.runs.pt, written by autograder/fingerprints.py) hold no known
mistakes: only those cases, as plain data, and what the reference computed on each (learner_kit.trace's record
and its results). When a check of the notebook fails with a symptom (wrong values, an error),
learner_kit.explain adds the sentence `where_it_parts` writes (learner_kit.locate), or nothing where the learner's
results on those cases are the reference's, or nothing can be said for sure.
"""
import math
from importlib import resources

import torch

from learner_kit import packed, stand_ins
from learner_kit.locate import locate
from learner_kit.trace import numbers_as_tensors, same_as_plain, traced_call

JUDGED_BY_NOTEBOOK = "notebook"  # the fingerprint's "judged_by": its unit has no stored mistakes, only these runs
RUNS_SUFFIX = ".runs"  # fingerprints/<unit>.runs.pt: not <unit>.pt, whose presence means stored visible cases


def load_runs(unit_name):
    """The stored runs of a unit its notebook checks itself, or None where it has none."""
    source = resources.files("learner_kit") / "fingerprints" / f"{unit_name}{RUNS_SUFFIX}.pt"
    if not source.is_file():
        return None
    with resources.as_file(source) as file:
        return packed.load(file)


def arguments(plain):
    """A stored case's arguments, ready to call with: fresh copies of its tensors, its stand-in model built."""
    return {name: stand_ins.from_plain(value) if isinstance(value, dict) and "stand_in" in value
            else value.clone() if isinstance(value, torch.Tensor) else value for name, value in plain.items()}


def traced_run(function, plain):
    """{"record", "result", "error", "inputs"} of `function` on a stored case, traced (learner_kit.trace); a
    function of plain numbers is traced on them as tensors, and None is returned where that changes its result
    (the record would not speak of the learner's call)."""
    args = arguments(plain)
    numbers = numbers_as_tensors(args)
    result, error, record = traced_call(function, numbers or args)
    if numbers is not None:
        untraced = _call(function, arguments(plain))
        if not same_as_plain(untraced, (result, error)):
            return None
        result, error = untraced
    return {"record": record, "result": result, "error": error, "inputs": numbers or args}


def stored_run(run):
    """The part of a traced run a fingerprint keeps: plain data (its record, its result, whether it raised)."""
    return {"record": stored_record(run["record"]), "result": run["result"], "raised": run["error"] is not None}


def stored_record(record):
    """The reference's record as a fingerprint keeps it: without the values it was given from outside (its
    weights), which only the learner's side of a comparison reads (learner_kit.locate)."""
    return None if record is None else {key: value for key, value in record.items() if key != "given"}


def where_it_parts(fingerprint, candidate, results_may_agree=False):
    """The located sentence for `candidate` against a fingerprint judged by its notebook, on the first stored case
    where the candidate's results are not the reference's (with `results_may_agree`, a property the notebook checks
    failed: on the first where its computation parts at all); '' where there is none, or nothing sure to say."""
    if fingerprint.get("judged_by") != JUDGED_BY_NOTEBOOK:
        return ""
    for plain, theirs in zip(fingerprint["cases"], fingerprint["runs"]):
        mine = traced_run(candidate, plain)
        if mine is None or (not results_may_agree and mine["error"] is None and not theirs["raised"]
                            and same_result(mine["result"], theirs["result"])):
            continue
        where = locate(mine["record"], theirs["record"], mine["inputs"],
                       (tensors_of(mine["result"]), tensors_of(theirs["result"])), unit=fingerprint.get("unit"))
        if where:
            return where
    return ""


def same_result(a, b):
    """Whether two results are equal: tensors of one shape and dtype, within float32's margin; numbers; dicts."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape \
            and a.dtype == b.dtype and bool(torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-6))
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() \
            and all(same_result(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)
    return a == b


def tensors_of(result):
    """A result's tensors by name (a dict's, or the one tensor as "result"), for learner_kit.locate."""
    if isinstance(result, dict):
        return {name: value for name, value in result.items() if isinstance(value, torch.Tensor)}
    return {"result": result} if isinstance(result, torch.Tensor) else {}


def _call(function, args):
    from learner_kit.torch_state import isolated

    with isolated():
        try:
            return function(*args.values()), None
        except Exception as error:  # the learner's code may raise anything
            return None, error
