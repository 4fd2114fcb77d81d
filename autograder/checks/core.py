"""The core of the checks: the unit registry, and check(), which runs one aspect of a unit.

A family module (attention.py, heads.py, ...) describes each of its units with a UnitSpec
and registers it. check() first runs the guards (tampering, the unit's kind, one plain
case for errors, interface, in-place changes, shape, dtype and NaN), then the aspect's
cases against autograder.reference; after any failure it runs the unit's known mistakes
("mutants") on the same inputs and on the unit's probe cases, and names the one that
behaves exactly like the learner's code.
"""
import weakref
from dataclasses import dataclass, field, replace
from functools import cache, partial
from itertools import product
from typing import Callable

import torch

from autograder import reference
from learner_kit import harness
from learner_kit.calls import Call
from learner_kit.i18n import tr
from learner_kit.locate import LOCATABLE_IDS, locate, with_location
from learner_kit.messages import format_message
from learner_kit.stand_ins import STAND_INS

from . import causes, guards, isolation, pictures

# Aspects that run the learner's module with the reference's buffers too: a table built in
# float32 (right, as in the Annotated Transformer) carries ~1e-7 of rounding that the float64
# tolerance would wrongly fail; its values are judged by "values" and "properties" instead.
REFERENCE_BUFFER_ASPECTS = ("float64", "grad")

# aspect -> the _Checker method that runs it
ASPECTS = {
    "values": "compare_values",
    "masks": "compare_values",
    "float64": "compare_values",
    "grad": "compare_gradients",
    "device": "try_devices",
    "properties": "check_properties",
}
UNITS = {}
# unit -> (check(unit_name, candidate, aspect), its aspects) for units whose results the shared
# harness cannot compare (a dict with an int, a Python number, a model argument): see train.py
CUSTOM_CHECKS = {}


def aspects_of(unit_name):
    """The aspects `check` knows for a unit."""
    if unit_name in CUSTOM_CHECKS:
        return CUSTOM_CHECKS[unit_name][1]
    return tuple(UNITS[unit_name].cases)


class CheckFailure(AssertionError):
    """A failed check; str() is the learner's message, `mistake_id` its (first) id.

    `mistake_id` may be a tuple of ids when the code makes several known mistakes at once;
    then `mistake_ids` holds them all and the message names each.
    """

    def __init__(self, mistake_id, detail=""):
        ids = tuple(mistake_id) if isinstance(mistake_id, (tuple, list)) else (mistake_id,)
        super().__init__(format_message(ids, detail))
        self.mistake_id, self.mistake_ids = ids[0], ids


@dataclass(frozen=True)
class UnitSpec:
    """How to check one graded unit. The aspects it has are the keys of `cases`."""

    name: str  # as in COURSE.md and autograder.reference
    outputs: dict  # result name -> where it is: "return", "return.0", "attr.attn"
    cases: dict  # aspect -> function() returning a list of harness.Case
    probes: Callable  # function() -> cases on which every mutant differs; also the visible fingerprint
    mutants: dict = field(default_factory=dict)  # mistake id -> tuple of wrong variants of the unit
    knobbed: object = None  # the mutants' knobbed copy of the reference, knobs at their defaults (tested equal)
    init: tuple | None = None  # constructor arguments of a module unit
    axes: dict = field(default_factory=dict)  # result name -> names of its last axes, for messages
    properties: tuple = ()  # harness.violated_property specs checked by the "properties" aspect
    grad_outputs: tuple = ()  # results whose gradients the "grad" aspect compares (() = all)
    forbidden: dict = field(default_factory=dict)  # extra built-in callable -> its name
    forbidden_modules: tuple = ()  # extra module classes that do this unit's work
    device_id: str = "device"  # the id of a device failure
    picture: str | None = None  # the result holding attention weights, drawn when it differs
    weight_seed: int = 0  # seed of the reference module whose weights every module check uses
    weight_noise: float = 0.0  # normal noise added to those weights (e.g. so that gamma is not all ones)
    isolate: dict = field(default_factory=dict)  # graded function it calls -> replay kind (see isolation.py)
    stand_ins: tuple = ()  # graded modules it builds by name: judged again with stand-ins when it fails
    # functions (learner's outcomes, cases) -> a mistake id, a tuple of ids, or '', asked when no mutant explains a
    # failure: they read what the learner's own results reveal (outcomes[0] is on the failing case,
    # cases[0]; the rest on the probes). A diagnoser must only name a mistake it can prove.
    diagnosers: tuple = ()
    # for a unit handed a dropout module: where its knobbed reference applies it -> that variant ("weights", None,
    # "twice", "value", "output"), so that _dropout_problem states a cause only where one reproduces the learner's
    dropout_knob: Callable | None = None

    @property
    def reference(self):
        return getattr(reference, self.name)

    def build_call(self, with_buffers=False, stand_ins=False):
        """The Call of every case; module weights come from a seeded reference instance.

        Only parameters are copied unless `with_buffers`: a buffer (the positional table)
        is the learner's own work, judged by "values" and "properties". With `stand_ins`,
        the graded modules the unit builds are learner_kit's stand-ins, in the reference
        and (Call.bindings) in the learner's unit.
        """
        weights = None
        bindings = {name: STAND_INS[name] for name in self.stand_ins} if stand_ins else {}
        if self.init is not None:
            with harness.isolated(), harness.bound(self.reference, bindings):
                harness.seed(self.weight_seed)
                module = self.reference(*self.init)
                tensors = module.state_dict() if with_buffers else dict(module.named_parameters(remove_duplicate=False))
                weights = {k: v.detach().clone() for k, v in tensors.items()}
                for value in weights.values():
                    if value.is_floating_point():
                        value.add_(self.weight_noise * torch.randn(value.shape, dtype=value.dtype))
        return Call(outputs=self.outputs, init=self.init, weights=weights, axes=self.axes, bindings=bindings)


def register(spec):
    UNITS[spec.name] = spec
    return spec


def variant_class(base, **knobs):
    """A subclass of `base` (a knobbed copy of a reference module) with `knobs` as class attributes."""
    return type(base.__name__.lstrip("_"), (base,), knobs)


def knobs_of(variant):
    """(base, knobs) of a mutant made by variant_class() or functools.partial, else None."""
    if isinstance(variant, partial) and not variant.args:
        return variant.func, dict(variant.keywords)
    if isinstance(variant, type) and len(variant.__bases__) == 1:
        return variant.__bases__[0], {k: v for k, v in vars(variant).items() if not k.startswith("__")}
    return None


def combine(first, second):
    """One variant with the knobs of both, or None when they cannot be combined.

    Both must be knob settings of the same knobbed reference. A knob both set is combined only
    when its values are themselves combinable variants (an Encoder whose `layer` is a wrong
    EncoderLayer, with two mistakes in that layer).
    """
    a, b = knobs_of(first), knobs_of(second)
    if a is None or b is None or a[0] is not b[0]:
        return None
    knobs = dict(a[1])
    for name, value in b[1].items():
        if name in knobs:
            value = combine(knobs[name], value) if knobs[name] is not value else None
            if value is None:
                return None
        knobs[name] = value
    base = a[0]
    return partial(base, **knobs) if isinstance(first, partial) else variant_class(base, **knobs)


@cache
def mistake_pairs(unit_name):
    """((id, id), variant) for every two known mistakes of a unit that can be made at once."""
    mutants = list(UNITS[unit_name].mutants.items())
    pairs = []
    for i, (first_id, first_group) in enumerate(mutants):
        for second_id, second_group in mutants[i + 1:]:
            for first, second in product(first_group, second_group):
                both = combine(first, second)
                if both is not None:
                    pairs.append(((first_id, second_id), both))
    return tuple(pairs)


def warm_up():
    """Load once what a learner's first meta-device run in this process would otherwise load inside its budget:
    PyTorch's compiler stack (torch._dynamo), which some torch functions import on their first call (about 8 s on
    2 busy cores). A grading worker whose learners' code runs in its own process (no sandbox) calls this when it
    starts. (The fingerprints need no warm-up here: this process keeps each once read, learner_kit.visible.load;
    the sandbox's unit server, whose children do not, preloads them.)"""
    import torch._dynamo  # noqa: F401


def check(unit_name, candidate, aspect):
    """Check one aspect of a learner's unit; print one line, or raise CheckFailure."""
    if unit_name in CUSTOM_CHECKS:
        return CUSTOM_CHECKS[unit_name][0](unit_name, candidate, aspect)
    spec = UNITS.get(unit_name)
    if spec is None:
        known = ", ".join([*UNITS, *CUSTOM_CHECKS])
        raise ValueError(f"no checks for unit {unit_name!r}; known units: {known}")
    if aspect not in spec.cases:
        raise ValueError(f"{unit_name} has no aspect {aspect!r}; it has: {', '.join(spec.cases)}")
    failure = _own_failure(spec, lambda stand_ins, naming=True: _failure(
        _Checker(spec, candidate, aspect, stand_ins=stand_ins, naming=naming), aspect))
    if failure is not None:
        raise failure.with_traceback(None)  # the message is the point, not the checks' frames
    print(tr("✓ {unit}: {aspect} passed", unit=unit_name, aspect=aspect))


def _own_failure(spec, failure):
    """``failure(stand_ins, naming)``'s CheckFailure with the learner's own parts, unless the unit is right with
    the course's stand-ins for the graded modules it builds: then its own part is to blame, and loses its own
    points. A composite is first judged without naming its mistake: the diagnosis (the known mistakes on every
    probe) is spent only on a failure that stands."""
    if not spec.stand_ins:
        return failure(False)
    if failure(False, False) is None or failure(True) is None:
        return None
    return failure(False)


def devices_to_try(candidate):
    """The devices of the device aspect: meta (device mistakes without values), the CPU, and CUDA where this
    process has a GPU and, for a unit in another process (judge.RemoteUnit), that process has one too.

    On CUDA the float32 tolerance is the CPU's (harness.tolerance): TF32 is off on both sides (PyTorch's
    default for matrix products, and set so in the unit server's child), so GPU kernels differ from the
    reference only by the order of their sums, within the same few units in the last place.
    """
    here = not isinstance(candidate, harness.Remote)  # the learner's function or class, in this process
    gpu = torch.cuda.is_available() and (here or candidate.cuda_usable is True)
    return ["meta", "cpu"] + (["cuda"] if gpu else [])


def redrawn(case, seed):
    """``case`` with every floating tensor input drawn anew (same shape, dtype, mean and spread) and every
    integer one drawn anew within its range; masks, sizes and modules stay. A result looked up by the
    shipped inputs (learner_kit/fingerprints holds them, and the reference's results) cannot match here."""
    generator = torch.Generator().manual_seed(seed)

    def draw(value):
        if not isinstance(value, torch.Tensor) or value.dtype == torch.bool or value.numel() == 0:
            return value
        if value.is_floating_point():
            fresh = torch.randn(value.shape, generator=generator, dtype=value.dtype)
            spread = value.detach().std() if value.numel() > 1 else value.detach().abs()
            fresh = fresh * spread + value.detach().mean()
        else:
            low, high = int(value.min()), int(value.max())
            fresh = torch.randint(low, high + 1, value.shape, generator=generator, dtype=value.dtype)
        return fresh.to(value.device).requires_grad_(value.requires_grad)

    return replace(case, inputs={name: draw(value) for name, value in case.inputs.items()})


def fresh_inputs_problem(unit_name, candidate, seed=20261125):
    """At grading, the visible test once more on inputs that are not shipped: the notebook's visible cases
    (the unit's probes) with their tensors redrawn, judged against the reference as check() judges (a
    composite right with right parts is right). '' when right."""
    spec = UNITS.get(unit_name)
    if spec is None:
        return ""

    def failure(stand_ins, naming=True):
        checker = _Checker(spec, candidate, "values", stand_ins=stand_ins, naming=naming)
        for number, case in enumerate(spec.probes()):
            try:
                checker.examine(redrawn(case, seed + number))
            except CheckFailure as caught:
                return caught
        return None

    found = _own_failure(spec, failure)
    if found is None:
        return ""
    return tr("On new inputs of the same shapes (the grader's own, not the notebook's): {message}", message=str(found))


# (unit, call, known mistake, case) -> its outcome; see _Checker.known_outcome
_KNOWN_OUTCOMES = {}
_KNOWN_OUTCOMES_KEPT = 20_000
_KNOWN_MODULES = {}  # (unit, call, known mistake, dtype, device) -> its module, built once
_PAIRS_RULED_OUT = weakref.WeakKeyDictionary()  # candidate -> {(unit, call): pairs}; see _Checker._pairs_ruled_out


def _case_key(case):
    """A key that only an equal case has (labels, seeds, dtypes and every input's values), or None."""
    parts = [case.label, case.compare, case.torch_seed, str(case.dtype)]
    for name, value in case.inputs.items():
        if isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                return None
            data = value.detach().contiguous()
            parts.append((name, str(data.dtype), tuple(data.shape), value.requires_grad,
                          hash(data.reshape(-1).view(torch.uint8).numpy().tobytes()) if data.numel() else 0))
        elif value is None or isinstance(value, (bool, int, float, str)):
            parts.append((name, value))
        elif isinstance(value, torch.nn.Dropout):
            parts.append((name, "Dropout", value.p, value.training))
        else:
            return None
    return tuple(parts)


def _build_known(variant, call, case):
    """A known mistake's module as call_unit builds one for `case` (seeded, under the case's default dtype, the
    weights in, in eval mode, on the case's device and dtype), built the quicker way its being the checks' own code
    allows: each tensor copied from the weights, where load_weights' checks and words are for learners' modules,
    and moved only where one is not yet where the case needs it. None where the weights are not exactly the
    module's parameters (and some of its buffers), or building it raises: call_unit then builds it itself. About
    4 ms against 6 for a DecoderLayer, of which a learner's first diagnosis in a worker builds hundreds."""
    weights = call.weights or {}
    with harness.isolated(default_dtype=case.default_dtype), harness.bound(variant, call.bindings):
        try:
            harness.seed(0)
            module = variant(*call.init)
        except Exception:  # noqa: BLE001 - call_unit records what a known mistake raises when built
            return None
        parameters = dict(module.named_parameters(remove_duplicate=False))
        tensors = {**dict(module.named_buffers(remove_duplicate=False)), **parameters}
        if not parameters.keys() <= weights.keys() or \
                any(name not in tensors or tensors[name].shape != value.shape for name, value in weights.items()):
            return None
        with torch.no_grad():
            for name, value in weights.items():
                tensors[name].copy_(value)
        module.eval()
        if any(t.device != case.device or (case.dtype is not None and t.is_floating_point() and t.dtype != case.dtype)
               for t in tensors.values()):
            module.to(device=case.device, dtype=case.dtype)
    return module


def _random_dropout(case):
    """Whether `case` hands the unit a dropout module in training mode (its draw is the learner's own)."""
    dropout = case.inputs.get("dropout")
    return isinstance(dropout, torch.nn.Dropout) and dropout.training and dropout.p > 0


def _dropout_twice():
    return tr("Your results are those of an attention that applies the dropout module to the weights twice: apply it "
              "once, to the weights, before they multiply the values.")


def _dropout_elsewhere():
    return tr("Your results are those of an attention whose dropout acts on another tensor than the weights (the "
              "values, or the output): apply it to the weights, before they multiply the values.")


def _dropout_unused():
    return tr("Your results are those of an attention that never applies the dropout module it is given: apply it to "
              "the weights, before they multiply the values.")


def _failure(checker, aspect):
    """The CheckFailure of one aspect, or None."""
    try:
        checker.guards()
        getattr(checker, ASPECTS[aspect])(aspect)
    except CheckFailure as caught:
        return caught
    return None


class _Checker:
    """One check of one candidate: runs cases, judges them, names the mistake.

    With `stand_ins`, the graded modules the unit builds are stand-ins (learner_kit/stand_ins.py),
    in the learner's unit and in the reference alike: a pass then shows that the unit's own code
    is right. Such a checker only decides; it names no mistake and draws nothing.
    """

    def __init__(self, spec, candidate, aspect=None, stand_ins=False, naming=True):
        self.spec, self.candidate, self.naming = spec, candidate, naming and not stand_ins
        self.call = spec.build_call(with_buffers=aspect in REFERENCE_BUFFER_ASPECTS, stand_ins=stand_ins)
        # what decides self.call, with the unit: the tensors loaded (the reference's buffers too, in some aspects:
        # where the unit has none, those aspects' calls are the same and share the known mistakes' modules)
        self.call_key = (tuple(self.call.weights or ()), stand_ins)

    # ---------------------------------------------------------- guards and judging

    def guards(self):
        tampered = guards.tampering(self.spec, self.candidate)
        if tampered:
            raise CheckFailure("tampering", tampered)
        wrong = harness.wrong_kind(self.candidate, self.call.init is not None, self.spec.name)
        if wrong:
            raise CheckFailure(*wrong)
        self.examine(self.spec.cases["values"]()[0], values=False)

    def run(self, case, backprop=None, trace=False):
        """The candidate's outcome on `case`, watched for forbidden built-ins and the reference."""
        watch = guards.Watch({**guards.FORBIDDEN_FUNCTIONS, **self.spec.forbidden},
                             modules=guards.FORBIDDEN_MODULES + tuple(self.spec.forbidden_modules))
        call = isolation.isolated_call(self.spec, self.call, case)
        got = harness.run(self.candidate, call, case, guard=watch, backprop=backprop, trace=trace)
        found = watch.found or guards.forbidden_submodule(got.instance, self.spec.forbidden_modules)
        if found:
            raise CheckFailure(*found)
        return got

    def reference(self, case, backprop=None):
        return harness.run(self.spec.reference, self.call, case, backprop=backprop)

    def examine(self, case, values=True, backprop=None):
        got, want = self.run(case, backprop), self.reference(case, backprop)
        found = harness.verdict(got, want, case, self.call.axes, values)
        if found:
            self.fail(case, got, want, *found)
        return got, want

    def fail(self, case, got, want, mistake_id, detail):
        """Raise the most specific failure: a known mistake that explains it, else `mistake_id`."""
        if self.naming and harness.nameable(mistake_id, got) and want is not None:
            named = self.diagnose(case, got, want)
            if named:
                mistake_id, detail = named, harness.named_detail(mistake_id, detail)
            elif mistake_id in LOCATABLE_IDS:
                detail = with_location(detail, self.locate(case, got, want))
        if self.naming and self.spec.picture and want is not None and got.outputs:
            pictures.show_attention(got.outputs, want.outputs, self.spec.picture)
        raise CheckFailure(mistake_id, detail)

    def diagnose(self, case, got, want):
        """The id(s) of the known mistake(s) that explain the failure on `case`, or None.

        First one mutant that explains it and behaves like the candidate on every probe; then
        what the unit's diagnosers read from the learner's own results; then two mutants at once.
        """
        cases = [case, *self.spec.probes()]
        learner = [got, *(self.run(c) for c in cases[1:])]

        keys = [_case_key(c) for c in cases]  # once per case, not once per known mistake

        def outcomes(groups):
            return ((ids, (self.known_outcome(variant, c, k) for c, k in zip(cases, keys)))
                    for ids, group in groups for variant in group)

        named = harness.name_mistake(learner, outcomes(self.spec.mutants.items()), cases, want)
        for diagnoser in () if named else self.spec.diagnosers:
            named = diagnoser(learner, cases) or None
            if named:
                break
        if named is None:  # two at once, but none already seen to behave otherwise than this unit
            ruled_out = self._pairs_ruled_out()
            pairs = [(ids, variant) for ids, variant in mistake_pairs(self.spec.name) if variant not in ruled_out]
            named = harness.name_mistake(learner, outcomes((ids, (variant,)) for ids, variant in pairs), cases, want,
                                         unlike=lambda number: ruled_out.add(pairs[number][1]))
        return named

    def _pairs_ruled_out(self):
        """The set, kept for the candidate's later checks under the same call, of the pairs of known mistakes its
        results have differed from on some case (of any aspect: a pair that computes otherwise than the learner's
        unit is not its mistake). A composite's first diagnosis tries its hundreds of pairs; the other aspects
        that fail then try only the pairs not yet ruled out. Single known mistakes are always all tried."""
        try:
            kept = _PAIRS_RULED_OUT.setdefault(self.candidate, {})
        except TypeError:  # a candidate that cannot be weakly referenced: nothing kept
            return set()
        return kept.setdefault((self.spec.name, self.call_key), set())

    def known_outcome(self, variant, case, key):
        """A known mistake's outcome on `case` (`key`: its _case_key): the same for every learner, so kept for the
        next one (a class's wrong answers in one worker pay for the known mistakes' runs once)."""
        if key is None:
            return harness.run(variant, self.call, case)
        key = (self.spec.name, self.call_key, variant, key)
        if key not in _KNOWN_OUTCOMES:
            if len(_KNOWN_OUTCOMES) >= _KNOWN_OUTCOMES_KEPT:
                _KNOWN_OUTCOMES.clear()
                _KNOWN_MODULES.clear()
            # a known mistake's module is built once per call, dtype and device, then called on each case
            built_key = (self.spec.name, self.call_key, variant, str(case.dtype), case.device.type)
            if built_key not in _KNOWN_MODULES and self.call.init is not None:
                _KNOWN_MODULES[built_key] = _build_known(variant, self.call, case)
            outcome = harness.run(variant, self.call, case, built=_KNOWN_MODULES.get(built_key))
            if self.call.init is not None and isinstance(outcome.instance, torch.nn.Module):
                _KNOWN_MODULES[built_key] = outcome.instance
            outcome.instance = outcome.inputs = None  # results only
            _KNOWN_OUTCOMES[key] = outcome
        return _KNOWN_OUTCOMES[key]

    def locate(self, case, got, want):
        """Where the candidate's computation parts from the reference's on `case` (learner_kit.locate), or ''."""
        if case.device.type == "meta":
            return ""
        mine = self.run(case, trace=True)
        theirs = harness.run(self.spec.reference, self.call, case, trace=True)
        results = (got.outputs or {}, want.outputs or {})
        return locate(mine.trace, theirs.trace, case.inputs, results, unit=self.spec.name)

    # ---------------------------------------------------------- aspects

    def compare_values(self, aspect):
        """values, masks, float64: results equal the reference's on every case of the aspect."""
        for case in self.spec.cases[aspect]():
            if _random_dropout(case):
                got, want = self.examine(case, values=False)
                problem = self._dropout_problem(case, got)
                if problem:
                    if self.naming:
                        problem = causes.explained(self, lambda outcome, one: self._dropout_problem(one, outcome),
                                                   problem, case)
                    self.fail(case, got, want, "wrong-values", str(problem))
            else:
                self.examine(case)

    def _dropout_problem(self, case, got):
        """A dropout draw is the learner's own (per row, through F.dropout, ...), so it cannot be compared
        value by value. Each output row is a combination of the value rows (d_v > L_k: the coefficients are
        unique); each coefficient must be a weight either dropped (0) or scaled by 1 / (1 - p), some of each."""
        dropout, output = case.inputs["dropout"], got.outputs["output"].detach().double()
        plain = self.reference(replace(case, inputs={**case.inputs, "dropout": None}))
        weights = plain.outputs["weights"].detach().double()
        coefficients = output @ torch.linalg.pinv(case.inputs["value"].detach().double())
        kept = weights / (1 - dropout.p)
        tolerance = 1e-4 * (1 + kept.abs())
        dropped, scaled = coefficients.abs() <= tolerance, (coefficients - kept).abs() <= tolerance
        knob = self.spec.dropout_knob or (lambda at: None)

        def variants(*places):
            return tuple(v for v in map(knob, places) if v is not None)
        if not bool((dropped | scaled).all()):
            where = harness.position([int(i) for i in (~(dropped | scaled)).nonzero()[0]], ("query", "key"))
            return causes.Observed(
                tr("With a dropout module, the output must be the weights, each dropped (0) or scaled by 1/(1 - p), "
                   "times the values; at {where} it is neither.", where=where),
                causes=[causes.Cause(_dropout_unused, variants(None)), causes.Cause(_dropout_twice, variants("twice")),
                        causes.Cause(_dropout_elsewhere, variants("value", "output"))], key=("neither", where))
        if not bool(dropped.any()) or not bool(scaled.any()):
            return causes.Observed(tr("With a dropout module in training mode, no weight was dropped."),
                                   causes=[causes.Cause(_dropout_unused, variants(None))], key="none dropped")
        return ""

    def compare_gradients(self, aspect):
        for case in self.spec.cases[aspect]():
            got, want = self.examine(case, backprop=self.spec.grad_outputs or case.names(self.spec.outputs))
            problem = self._gradient_problem(case, got, want)
            if problem:
                self.fail(case, got, want, "wrong-gradients", problem)

    def check_properties(self, aspect):
        """Each property in turn on each case; a property's finding says a cause only where a knob of the reference
        reproduces the learner's results (causes.explained)."""
        for case in self.spec.cases[aspect]():
            got, want = self.examine(case, values=False)
            for prop in self.spec.properties:
                problem = harness.violated_property((prop,), got, case, self.call.axes)
                if problem:
                    if self.naming:
                        problem = causes.explained(self, prop, problem, case)
                    self.fail(case, got, want, "property-violated", str(problem))

    def try_devices(self, aspect):
        """Every input moved to each device this grader can run (devices_to_try). On the meta device only a
        device-mismatch error counts (it has no values); on the CPU and a GPU the results must also be right,
        so code that only returns zeros of the right shape earns nothing here."""
        case = self.spec.cases[aspect]()[0]
        for device in devices_to_try(self.candidate):
            moved = case.to(device=device)
            got = self.run(moved)
            if got.error is not None and guards.is_device_error(got.error):
                detail = tr("With every input on the '{device}' device: {error}", device=device,
                            error=harness.describe_error(got.error))
                self.fail(moved, got, None, self.spec.device_id, detail)
            strays = [n for n, t in (got.outputs or {}).items() if t.device.type != device]
            if strays:
                detail = tr("With every input on the '{device}' device, `{name}` comes back on another device.",
                            device=device, name=strays[0])
                self.fail(moved, got, None, self.spec.device_id, detail)
            if device != "meta":  # on meta, anything else (e.g. .item()) is inconclusive, never failed
                want = self.reference(moved)
                found = harness.verdict(got, want, moved, self.call.axes)
                if found:
                    self.fail(moved, got, want, *found)

    def _gradient_problem(self, case, got, want):
        for outcome in (want, got):
            if outcome.backprop_failure:
                return tr("Backpropagating through your code failed: {failure}", failure=outcome.backprop_failure)
        pairs = [("input", n, got.inputs[n].grad, want.inputs[n].grad)
                 for n, v in case.inputs.items() if isinstance(v, torch.Tensor) and v.requires_grad]
        if want.instance is not None:
            mine = dict(got.instance.named_parameters())
            pairs += [("parameter", n, mine[n].grad, p.grad) for n, p in want.instance.named_parameters() if n in mine]
        for kind, name, mine, theirs in pairs:
            if theirs is None:
                continue
            if mine is None:
                if kind == "parameter":
                    return tr("No gradient reaches the parameter `{name}`.", name=name)
                return tr("No gradient reaches the input `{name}`.", name=name)
            if not harness.close(mine, theirs):
                if kind == "parameter":
                    difference = harness.describe_difference(name, mine, theirs, None)
                    return tr("The gradient of the parameter {difference}", difference=difference)
                difference = harness.describe_difference(name, mine, theirs, self.call.axes.get(name, ()))
                return tr("The gradient of the input {difference}", difference=difference)
        return ""
