"""Mutation testing of the checks: cosmic-ray's mutants of each graded unit, judged as a learner's code.

For each graded unit (autograder.checks.UNITS and the capstone units), cosmic-ray's mutation
operators (used as a library: `cosmic_ray.mutating.mutate_code` on the unit's source text) make
one mutant per operator and occurrence. Each mutant is executed, in a namespace of its own holding
the whole reference module with only that unit changed, as a stand-in for the learner's unit, and:

* its outcomes on the unit's cases and probes are compared with the reference's
  (harness.same_outcome): a mutant that agrees everywhere is *equivalent*;
* the visible check runs (learner_kit.visible.visible_problem: the stored cases; for the learner-style table the
  notebook's own visible cell, tests/visible_cells.py, its specific checks included), then the
  hidden `check(unit, mutant, "values")` as the grader runs it;
* every mistake id either prints is judged mechanically: it is *justified* when one of the id's
  own knobbed variants (UnitSpec.mutants[id], or a pair of them for two ids) behaves like the
  mutant in harness.name_mistake's sense (differs from the reference on the mutant's first
  failing case, equals the mutant there and on every probe), or when the id's defining property
  holds (a unit's diagnoser, reading the mutant's own results, names it). Otherwise it is *wrong*;
* a behaviour change that the values check lets through is run through the unit's other aspects.

Beside cosmic-ray's mutants, WALK holds mistakes found by a walk through the notebooks, each with
the one id both checks must print (or none), run the same way.

cosmic-ray rather than mutmut: its operators are plain objects over a parso tree, so one call
mutates a string of source at one occurrence, with no project layout, no test runner and no
trampolines (mutmut 3 rewrites files into a mutants/ folder and drives pytest itself).

    python -m tests.mutants [unit ...]      (make mutants): the table
    python -m tests.mutants --learner-style [unit ...]   the learner-style table (tests/mutants/learner_style.py)
"""
import contextlib
import difflib
import inspect
import io
import math
import re
from dataclasses import dataclass, field
from functools import cache

import torch
from cosmic_ray.mutating import mutate_code
from cosmic_ray.plugins import get_operator, operator_names

from autograder import reference
from autograder.checks import UNITS, CheckFailure, check, isolation, train
from autograder.checks.core import CUSTOM_CHECKS, aspects_of, mistake_pairs
from learner_kit import harness
from learner_kit.visible import visible_problem
from tests.visible_cells import visible_cell, visible_cell_message

UNIT_NAMES = (*UNITS, *CUSTOM_CHECKS)

# Ids that name a symptom or an interface, not a mistake: printing one is never a wrong diagnosis.
SYMPTOM_IDS = frozenset({"not-implemented", "runtime-error", "shape", "nan", "device", "inplace-input",
                         "forbidden-builtin", "tampering", "wrong-values", "wrong-gradients", "wrong-interface",
                         "property-violated"})

# The operators that need no arguments (VariableReplacer and VariableInserter take a variable's name
# and draw random numbers, so they would not be deterministic).
OPERATORS = tuple(name for name in operator_names() if not get_operator(name).arguments())


@dataclass(frozen=True)
class Mutant:
    unit: str
    operator: str  # cosmic-ray's name, e.g. core/ReplaceBinaryOperator_Mul_Div
    occurrence: int
    source: str  # the whole unit, mutated
    change: str  # the changed line: "`old` -> `new`"

    @property
    def label(self):
        return f"{self.operator.split('/')[-1]}#{self.occurrence}"


@dataclass
class Result:
    mutant: Mutant
    changes_behaviour: bool = False
    visible: str | None = None  # the visible message ('' when it passes); None: the unit has no visible check
    hidden: tuple = ()  # the ids of the hidden values check's failure; () when it passes
    hidden_message: str = ""  # the hidden values check's message ('' when it passes)
    printed: dict = field(default_factory=dict)  # "visible"/"hidden" -> the mistake ids it printed
    wrong: dict = field(default_factory=dict)  # "visible"/"hidden" -> the printed ids judged wrong
    error: str = ""  # the mutant could not be built (a mutation that is not valid Python)
    other_aspects: tuple = ()  # a behaviour change the values check lets through: the aspects that fail it
    other_message: str = ""  # the message of the first of those aspects
    other_printed: tuple = ()  # the mistake ids it printed
    other_wrong: tuple = ()  # those ids, when judged wrong


@cache
def module_source():
    return inspect.getsource(reference)


def unit_source(unit):
    return inspect.getsource(getattr(reference, unit))


# Mistakes learners make that no cosmic-ray operator makes (an outside walk through the notebooks found
# wrong or missing ids on some): unit -> (the reference's text, the learner's, the one id both checks must
# print, or '' for none: a symptom only). They run like the others; tests/checks/test_mutants_table.py holds them to it.
WALK = {
    "PositionwiseFeedForward": (
        ("return self.w_2(self.dropout(torch.relu(self.w_1(x))))", "return self.dropout(torch.relu(self.w_1(x)))", ""),
        ("torch.relu(self.w_1(x))", "self.w_1(torch.relu(x))", ""),
        ("self.w_2(self.dropout(torch.relu(self.w_1(x))))", "torch.relu(self.w_2(self.dropout(self.w_1(x))))",
         "ffn-activation-after-output"),
    ),
    "EncoderLayer": (
        ("return self.norm2(x + self.dropout2(self.ffn(x)))", "return self.ffn(x)", ""),
        ("self.self_attn(x, x, x, mask)", "self.self_attn(x, x, x, ~mask if mask is not None else None)", ""),
        ("self.self_attn(x, x, x, mask)", "self.self_attn(x, x, x, None)", "encoder-mask-ignored"),
    ),
    "Encoder": (
        ("x = layer(x, mask)", "x = layer(x, ~mask if mask is not None else None)", ""),
        ("x = layer(x, mask)", "x = layer(x, None)", "encoder-mask-ignored"),
    ),
    "DecoderLayer": (
        ("self.self_attn(x, x, x, tgt_mask)", "self.self_attn(x, x, x, ~tgt_mask if tgt_mask is not None else None)", ""),
        ("return self.norm3(x + self.dropout3(self.ffn(x)))", "return self.ffn(x)", ""),
    ),
    "MultiHeadAttention": (
        ("self.attend(q, k, v, mask)", "self.attend(q, k, v, None)", ""),
        ("q = split_heads(self.w_q(query), self.n_head)",
         "q = split_heads(self.w_q(query), self.n_head) / math.sqrt(self.d_k)", "sdpa-scale-dk"),
        ("v = split_heads(self.w_v(value), self.n_head)", "v = split_heads(self.w_v(key), self.n_head)",
         "mha-qkv-swapped"),
        ("return self.w_o(merge_heads(out))", "return merge_heads(out)", "mha-no-output-proj"),
        ("k = split_heads(self.w_k(key), self.n_head)", "k = split_heads(self.w_q(key), self.n_head)", "mha-kv-use-wq"),
    ),
    "scaled_dot_product_attention": (
        ("scores = query @ key", "scores = query / math.sqrt(d_k) @ key", "sdpa-scale-dk"),
        ("/ math.sqrt(d_k)", "", "sdpa-no-scale"),
    ),
    "AddNorm": (
        ("return self.norm(x + self.dropout(sublayer_out))", "return x + self.norm(self.dropout(sublayer_out))",
         "addnorm-norm-before-add"),
        ("return self.norm(x + self.dropout(sublayer_out))", "return self.norm(self.dropout(sublayer_out))",
         "addnorm-no-residual"),
    ),
    "LayerNorm": (
        ("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)", "layernorm-eps-outside-sqrt"),
        ("correction=0", "correction=1", "layernorm-unbiased-var"),
    ),
    "Generator": (
        ("F.log_softmax(self.proj(x), dim=-1)", "F.softmax(self.proj(x), dim=-1)", "generator-softmax"),
        ("F.log_softmax(self.proj(x), dim=-1)", "self.proj(x)", "generator-logits"),
    ),
    "Embeddings": (("return self.lut(tokens) * math.sqrt(self.d_model)", "return self.lut(tokens)", "embed-no-scale"),),
    "make_tgt_mask": (("make_pad_mask(tgt, pad_idx) & ", "", "mask-tgt-missing-pad"),),
    "Transformer": (("self.decoder(self.tgt_embed(tgt)", "self.decoder(self.src_embed(tgt)",
                     "transformer-tgt-uses-src-embed"),),
}


def mutants(unit):
    """The walk's mistakes of the unit (WALK), then every cosmic-ray mutant of its source, in operator order."""
    source = unit_source(unit)
    found = []
    for number, (old, new, _) in enumerate(WALK.get(unit, ())):
        assert source.count(old) == 1, (unit, old)
        found.append(Mutant(unit, "walk", number, source.replace(old, new), _change(source, source.replace(old, new))))
    for name in OPERATORS:
        operator, occurrence = get_operator(name)(), 0
        while (mutated := mutate_code(source, operator, occurrence)) is not None:
            found.append(Mutant(unit, name, occurrence, mutated, _change(source, mutated)))
            occurrence += 1
    return found


def _change(before, after):
    old = [line.strip() for line in before.splitlines()]
    new = [line.strip() for line in after.splitlines()]
    removed = [line for line in difflib.ndiff(old, new) if line.startswith("- ")]
    added = [line for line in difflib.ndiff(old, new) if line.startswith("+ ")]
    return f"`{removed[0][2:] if removed else ''}` -> `{added[0][2:] if added else ''}`"


def build(mutant):
    """The mutant unit, executed with the rest of the reference module (not the reference's objects: the
    guards would call that borrowing) in a namespace of its own."""
    return built_module(mutant)[mutant.unit]


def built_module(mutant):
    """The namespace the mutant unit was executed in: the reference module's names, the mutant among them."""
    whole = module_source()
    original = unit_source(mutant.unit)
    assert whole.count(original) == 1, mutant.unit
    namespace = {"__name__": f"mutant_{mutant.unit}"}
    exec(compile(whole.replace(original, mutant.source), f"<mutant {mutant.unit} {mutant.label}>", "exec"), namespace)
    return namespace


def printed_ids(message):
    """The mistake ids a message prints (`[id]` at the start of a line), symptoms left out."""
    return tuple(i for i in re.findall(r"^\[([a-z0-9-]+)\]", message or "", flags=re.MULTILINE) if i not in SYMPTOM_IDS)


# ----------------------------------------------------------------- behaviour

class _Judge:
    """Runs a unit's cases and probes for one kind of unit (a UnitSpec, or a capstone unit of train.py)."""

    def __init__(self, unit):
        self.unit = unit
        self.spec = UNITS.get(unit)
        if self.spec is not None:
            self.call = self.spec.build_call()
            values = self.spec.cases["values"]() + self.spec.cases.get("masks", list)()
            self.probes = list(self.spec.probes())
            self.mutants, self.diagnosers = self.spec.mutants, self.spec.diagnosers
        else:
            self.capstone = train.CAPSTONE[unit]
            values, self.probes = CAPSTONE_CASES[unit](), list(self.capstone.probes())
            self.mutants, self.diagnosers = self.capstone.mutants, ()
        self.cases = [*values, *self.probes]
        self.first_probe = len(values)
        self.reference = [self.run(getattr(reference, unit), case, plain=True) for case in self.cases]

    def run(self, target, case, plain=False):
        if self.spec is None:
            return train._run(target, case, watched=False)
        call = self.call if plain else isolation.isolated_call(self.spec, self.call, case)
        return harness.run(target, call, case)

    def same(self, mine, theirs, case, every_result=True):
        """Whether two outcomes agree; with `every_result`, a capstone unit's whole result counts (make_batch's
        n_tokens and masks too), else what its checks' own comparison of mutants reads."""
        if self.spec is None:
            if every_result and mine.error is None and theirs.error is None:
                return _equal(mine.result, theirs.result)
            return train._same(mine, theirs, self.capstone, case)
        return harness.same_outcome(mine, theirs, case)

    def outcomes(self, target):
        return [self.run(target, case) for case in self.cases]

    def failing(self, outcomes):
        """The index of the first case where `outcomes` differ from the reference's, or None (equivalent)."""
        return next((i for i, (mine, theirs, case) in enumerate(zip(outcomes, self.reference, self.cases))
                     if not self.same(mine, theirs, case)), None)

    def justified(self, ids, outcomes):
        """Whether the printed `ids` explain the mutant (see the module's docstring)."""
        failing = self.failing(outcomes)
        if failing is None:
            return False
        order = [failing, *(i for i in range(self.first_probe, len(self.cases)) if i != failing)]
        cases, mine = [self.cases[i] for i in order], [outcomes[i] for i in order]
        if len(ids) == 1:
            variants = self.mutants.get(ids[0], ())
        else:
            variants = [v for pair, v in (mistake_pairs(self.unit) if self.spec else ())
                        if sorted(pair) == sorted(ids)]
        for variant in variants:
            theirs = [self.run(variant, case, plain=True) for case in cases]
            if self.spec is not None:
                if harness.name_mistake(mine, [(ids, theirs)], cases, self.reference[failing]):
                    return True
            elif not self.same(theirs[0], self.reference[failing], cases[0], False) and all(
                    self.same(a, b, c, False) for a, b, c in zip(mine, theirs, cases)):
                return True
        # the ids' defining property: a diagnoser reading the mutant's own results names them
        return any(diagnoser(mine, cases) in (ids, ids[0] if len(ids) == 1 else ()) for diagnoser in self.diagnosers)


# The cases of a capstone unit's aspects (train.py runs them inside its aspect functions).
CAPSTONE_CASES = {
    "make_batch": train._batch_cases,
    "noam_rate": train._noam_cases,
    "greedy_decode": lambda: [*train._greedy_cases(), *train._greedy_eos_cases()],
}


def _equal(mine, theirs):
    """Plain results (dicts, tensors, numbers) equal: tensors exactly in shape and dtype and within tolerance."""
    if isinstance(theirs, dict):
        return isinstance(mine, dict) and mine.keys() == theirs.keys() and all(_equal(mine[k], theirs[k]) for k in theirs)
    if isinstance(theirs, torch.Tensor):
        return isinstance(mine, torch.Tensor) and harness.close(mine, theirs)
    if isinstance(theirs, float):
        return isinstance(mine, (int, float)) and math.isclose(mine, theirs, rel_tol=1e-6, abs_tol=1e-12)
    return type(mine) is type(theirs) and mine == theirs


@cache
def judge_of(unit):
    return _Judge(unit)


def evaluate(mutant, cells=False):
    """The Result of one mutant: behaviour, the visible and hidden checks' verdicts, and wrong ids. With `cells`, the
    visible verdict is the notebook's own visible cell's (its specific checks included), else the stored cases'."""
    result = Result(mutant)
    try:
        module = built_module(mutant)
        candidate = module[mutant.unit]
    except Exception as error:  # noqa: BLE001 - a mutation that does not compile or define the unit
        result.error = f"{type(error).__name__}: {error}"
        return result
    # in a notebook, the cells around the learner's unit define the rest of the learner's module (the classes a
    # visible cell checks its submodules against): here, the rest of the mutant's own module
    neighbours = {name: value for name, value in module.items() if not name.startswith("_") and name != mutant.unit}
    judge = judge_of(mutant.unit)
    outcomes = judge.outcomes(candidate)
    result.changes_behaviour = judge.failing(outcomes) is not None
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        if cells and visible_cell(mutant.unit) is not None:  # the notebook's own visible cell
            result.visible = visible_cell_message(mutant.unit, candidate, neighbours)
            result.printed["visible"] = printed_ids(result.visible)
        elif mutant.unit in UNITS:
            result.visible = visible_problem(mutant.unit, candidate)
            result.printed["visible"] = printed_ids(result.visible)
        try:
            check(mutant.unit, candidate, "values")
        except CheckFailure as failure:
            result.hidden, result.hidden_message = failure.mistake_ids, str(failure)
        if result.changes_behaviour and not result.hidden:
            failures = [(aspect, _failure(mutant.unit, candidate, aspect)) for aspect in aspects_of(mutant.unit)
                        if aspect != "values"]
            result.other_aspects = tuple(aspect for aspect, failure in failures if failure)
            first = next((failure for _, failure in failures if failure), None)
            if first is not None:
                result.other_message = str(first)
                result.other_printed = tuple(i for i in first.mistake_ids if i not in SYMPTOM_IDS)
    result.printed["hidden"] = tuple(i for i in result.hidden if i not in SYMPTOM_IDS)
    for where, ids in result.printed.items():
        if ids and not judge.justified(ids, outcomes):
            result.wrong[where] = ids
    if result.other_printed and not judge.justified(result.other_printed, outcomes):
        result.other_wrong = result.other_printed
    return result


def _failure(unit, candidate, aspect):
    """The CheckFailure of `check(unit, candidate, aspect)`, or None when it passes."""
    try:
        check(unit, candidate, aspect)
    except CheckFailure as failure:
        return failure
    return None


def evaluate_unit(unit, select=None):
    """Results of the unit's mutants (those `select(mutants)` keeps, all by default)."""
    found = mutants(unit)
    return [evaluate(m) for m in (select(found) if select else found)]
