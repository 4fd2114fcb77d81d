"""Where a learner's computation parts from the reference's, read from the two records of learner_kit.trace.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

``locate(learner, reference, inputs)`` compares what the learner's unit and the reference computed on
the same case, with the same weights, and returns one sentence, or '' where nothing can be said for
sure. Every statement in it is a comparison of recorded values, made just before it is written:

1. Submodule calls (a composite such as DecoderLayer): the reference's calls in order, each against
   the learner's call of the same submodule (the k-th against the k-th). The first that is missing,
   that receives other arguments, or that returns other values for the same arguments is the place.
   What an argument received is told by value: one of the unit's inputs, the result of another
   call, or the reference's argument less (or plus) one of those (a residual left out or added).
2. The unit's own operators: the last step of the reference whose result also appears somewhere in
   the learner's computation, and the reference's next step, whose result appears nowhere in it.
   Where the learner runs the same operator on the same values with other arguments (another
   ``dim``), or on other values, that is said too.
3. The results: a wrong result that holds values the reference computed elsewhere (another result,
   an earlier step) is named so.

No solution is involved: the reference's record is numbers (the visible checks store it in the
fingerprints), and its steps are named as the exercise names them ("the scores divided by √d_k",
learner_kit.steps), or, where no label covers one, by what the operator does ("a softmax over axis -1"),
never by code. Shapes are quoted as the code holds them, on the one case the message names (a 4-D `@`
runs as a `bmm` on folded operands, whose shapes no learner wrote).
"""
import torch

from learner_kit.i18n import tr
from learner_kit.steps import labels as step_labels, said
from learner_kit.trace import SHAPE_ONLY
from learner_kit.wording import joined

# Operators that draw random numbers (a layer's initial weights): never a place where two computations part
RANDOM = frozenset({"uniform_", "normal_", "bernoulli_", "random_", "exponential_", "cauchy_", "log_normal_",
                    "geometric_", "rand", "randn", "randint", "randperm", "normal", "uniform", "bernoulli",
                    "multinomial", "native_dropout", "dropout"})
# Operators that make a new tensor (filled with one value, a range, uninitialised) from a shape alone
MADE = frozenset({"full_like", "zeros_like", "ones_like", "empty_like", "full", "zeros", "ones", "empty", "arange",
                  "scalar_tensor", "new_zeros", "new_ones", "new_full", "new_empty", "empty_strided", "lift_fresh",
                  "lift_fresh_copy", "fill_", "fill", "zero_"})

# The views a matrix product of tensors with more than two axes runs through: broadcast, then fold the leading axes
FOLDING = frozenset({"expand", "view", "unsafe_view", "clone", "reshape", "reshape_alias", "contiguous"})
MATRIX_PRODUCTS = frozenset({"mm", "bmm", "matmul", "addmm", "baddbmm"})
JOINS = frozenset({"cat", "stack"})  # moving numbers only, but a step of a loop that builds its result (greedy_decode's)
HEADING = "Where it parts from the reference:"  # the start of every located sentence, in English (is_located)
# Ids that state a symptom: where no known mistake explains one, a message also says where the learner's
# computation parts from the reference's, where that can be said for sure.
LOCATABLE_IDS = ("wrong-values", "property-violated", "nan", "shape", "wrong-gradients", "runtime-error")


def heading():
    """The start of every located sentence, in the current language."""
    return tr("Where it parts from the reference:")


def with_location(detail, where):
    """A failure's detail with the located sentence on a line of its own (either may be '')."""
    return f"{detail}\n{where}" if where and detail else where or detail


def is_located(message):
    """Whether a message says where the learner's computation parts from the reference's."""
    return heading() in message or HEADING in message


def locate(learner, reference, inputs, results=None, unit=None):
    """A sentence saying where the learner's computation parts from the reference's, or ''.

    `learner` and `reference` are records of learner_kit.trace on the same case; `inputs` the
    case's inputs by name; `results`, when given, (the learner's results, the reference's) by name;
    `unit`, the graded unit's name: the reference's steps are then named as its exercise names them
    (learner_kit.steps), where a label covers them. Both records must be complete (a record cut short
    says nothing sure).
    """
    if not _usable(learner) or not _usable(reference):
        return ""
    try:
        comparison = _Comparison(learner, reference, inputs, unit)
        found = comparison.where() or _results(comparison, reference, results)
    except (RuntimeError, TypeError, ValueError, IndexError, KeyError):  # a record of unexpected shape
        return ""
    return f"{heading()} {found}" if found else ""


def rearranged(got, wanted):
    """Whether `got` holds exactly `wanted`'s numbers, in another order or shape (a transpose, a view)."""
    if not isinstance(got, torch.Tensor) or got.numel() != wanted.numel() or got.numel() < 2 \
            or got.dtype != wanted.dtype or same(got, wanted):
        return False
    a, b = got.detach().reshape(-1), wanted.detach().reshape(-1)
    if a.is_floating_point():
        a, b = a.double(), b.double()
    return same(a.sort().values, b.sort().values) and not same(a, b)


def reshaped(got, wanted):
    """Whether `got` holds `wanted`'s numbers in the same order, in another shape (other sizes given to a view)."""
    return isinstance(got, torch.Tensor) and got.numel() == wanted.numel() and got.shape != wanted.shape \
        and got.dtype == wanted.dtype and same(got.detach().reshape(-1), wanted.detach().reshape(-1))


def _constant(value):
    """Whether a tensor holds one number only (all its entries equal)."""
    flat = value.detach().reshape(-1)
    return flat.numel() <= 1 or bool((flat == flat[0]).all())


def _usable(record):
    return isinstance(record, dict) and record.get("complete") and isinstance(record.get("ops"), list) \
        and isinstance(record.get("calls"), list)


def same(a, b):
    """Whether two recorded values are equal: tensors of one shape, close within float32's margin."""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or a.shape != b.shape:
        return False
    if a.dtype == torch.bool or b.dtype == torch.bool or not a.is_floating_point() or not b.is_floating_point():
        return a.dtype == b.dtype and torch.equal(a, b)
    a, b = a.double(), b.double()
    return bool(torch.allclose(a, b, rtol=1e-5, atol=1e-5, equal_nan=True))


class _Comparison:
    def __init__(self, learner, reference, inputs, unit=None):
        self.learner, self.reference = learner, reference
        self.labels = step_labels(unit, reference["ops"])  # {index of a reference op: the exercise's name for it}
        self.inputs = {name: value for name, value in inputs.items() if isinstance(value, torch.Tensor)}
        self.modules = {name for name, value in inputs.items() if isinstance(value, torch.nn.Module)}
        # the values the reference computed, with words for each: what the learner's tensors are told by
        self.known = [(value, tr("`{name}`", name=name)) for name, value in self.inputs.items()]
        for call in reference["calls"]:
            if call.get("depth") == 0 and isinstance(call.get("output"), torch.Tensor):
                self.known.append((call["output"], tr("the output of `{name}`", name=self.shown(call["name"]))))

    def shown(self, name):
        """How a call's name is written: `self.norm1` for the unit's own submodule, `model.decode` for a call of a
        model the unit was given."""
        return name if name.split(".")[0] in self.inputs or name.split(".")[0] in self.modules else f"self.{name}"

    # ------------------------------------------------------------------ the order of the checks

    def where(self):
        if self.learner.get("raised"):  # the learner's code raised: a call before it that already departs, else
            return self.calls(until_raised=True) or self.raised()  # the step that raised
        return self.calls() or self.operators() or ""

    # ------------------------------------------------------------------ 0. the step that raised an error

    def raised(self):
        """Where the learner's own operator raised: what it was given, and what the reference's gets."""
        ops, calls = self.learner["ops"], self.learner["calls"]
        failed_calls = [c for c in calls if c.get("depth") == 0 and c.get("raised")]
        if failed_calls and (not ops or not ops[-1].get("raised") or failed_calls[-1].get("op_index", 0) >= len(ops)):
            return self._raised_call(failed_calls[-1])
        if not ops or not ops[-1].get("raised"):
            return self._raised_by_python(ops)
        failed = ops[-1]
        given = self._as_written(failed, self.learner)
        words = joined([self._learner_words(value) for value in given if isinstance(value, torch.Tensor)])
        text = tr("the error comes from your {step}, given {values}.", step=_kind(failed), values=words) if words else \
            tr("the error comes from your {step}, which was given no tensor.", step=_kind(failed))
        twin = self._reference_twin(failed, given)
        if twin is not None:
            theirs = [v for v in self._as_written(twin, self.reference) if isinstance(v, torch.Tensor)]
            shapes = ", ".join(str(tuple(v.shape)) for v in theirs)
            label = self._label_of(twin)
            text += " " + (tr("In the exercise, that step gets tensors of shapes {shapes} and gives {label}.",
                              label=label, shapes=shapes) if label else
                           tr("The reference's {step} at that point gets tensors of shapes {shapes}.", step=_kind(twin),
                              shapes=shapes))
        return text

    def _as_written(self, op, record):
        """The tensors an op was given, as the code that ran it holds them: a matrix product of tensors with more than
        two axes runs as `bmm` on views that fold the leading axes into one (a (2, 4, 3, 6) query becomes (8, 3, 6)),
        and those folded shapes are nowhere in the learner's code or in the exercise."""
        values = self._inputs_of(op, record)
        if op["op"] not in MATRIX_PRODUCTS:
            return values
        shown = []
        for value, source in zip(values, op.get("inputs", ())):
            for _ in range(8):
                kind, where = source
                if kind != "op" or not isinstance(where, int) or not 0 <= where < len(record["ops"]):
                    break
                step = record["ops"][where]
                before = self._inputs_of(step, record)[:1]
                if step["op"] not in FOLDING or not before or not isinstance(before[0], torch.Tensor) \
                        or not isinstance(value, torch.Tensor) or tuple(before[0].shape[-2:]) != tuple(value.shape[-2:]):
                    break
                value, source = before[0], step["inputs"][0]
            shown.append(value)
        return shown

    def _shown_shape(self, index):
        """The shape of a reference step's result as the code holds it: a `bmm`'s result unfolded by the view after it."""
        op = self.reference["ops"][index]
        shape = tuple(op["output"].shape)
        if op["op"] in MATRIX_PRODUCTS:
            for later in self.reference["ops"][index + 1:index + 3]:
                if later["op"] in FOLDING and [tuple(source) for source in later.get("inputs", ())[:1]] == [("op", index)] \
                        and isinstance(later.get("output"), torch.Tensor) and later["output"].numel() == op["output"].numel():
                    return tuple(later["output"].shape)
        return shape

    def _label_of(self, op):
        """The exercise's name for one of the reference's ops (learner_kit.steps), in the current language, or ''."""
        index = next((i for i, theirs in enumerate(self.reference["ops"]) if theirs is op), None)
        label = self.labels.get(index)
        return said(label) if label else ""

    def _labelled_view(self, source):
        """The index of the labelled reference step a tensor argument is (or is a view of, through views only), or
        None."""
        kind, where = source
        for _ in range(50):
            if kind != "op" or not isinstance(where, int) or not 0 <= where < len(self.reference["ops"]):
                return None
            if where in self.labels:
                return where
            op = self.reference["ops"][where]
            if op["op"] not in SHAPE_ONLY or op["op"] in MADE or not op.get("inputs"):
                return None
            kind, where = op["inputs"][0]
        return None

    def _raised_by_python(self, ops):
        """An error no operator or call raised (a Python error: a name, an attribute): how far the learner's
        computation went, where every step it made (its own operators, its submodule calls) gives values the
        reference's computation has."""
        calls = [c for c in self.learner["calls"] if c.get("depth") == 0]
        if any(c.get("raised") for c in calls):
            return ""
        pool = [op["output"] for op in self.reference["ops"] if isinstance(op.get("output"), torch.Tensor)]
        pool += [c["output"] for c in self.reference["calls"] if isinstance(c.get("output"), torch.Tensor)]
        steps = [op for op in ops if op["op"] not in SHAPE_ONLY and op["op"] not in RANDOM] + calls
        if not all(isinstance(step.get("output"), torch.Tensor) and any(same(step["output"], v) for v in pool)
                   for step in steps):
            return ""
        if not steps:
            moved = [op for op in ops if op["op"] in SHAPE_ONLY]
            if len(moved) == 1:  # a transpose or a view ran: something was done, no new value made
                return tr("the error is raised after one step of your code that only rearranges or views the values "
                          "it was given, before it computes any new value.")
            if moved:
                return tr("the error is raised after {count} steps of your code that only rearrange or view the "
                          "values it was given, before it computes any new value.", count=len(moved))
            return tr("the error is raised before your code computes anything.")
        return tr("the error is raised after {count} steps of your code (operators or submodule calls) that each give "
                  "values the reference's computation also has.", count=len(steps))

    def _raised_call(self, failed):
        """The learner's submodule call that raised: what it was given, and what the reference's same call gets."""
        name = failed["name"]
        given = [v for v in failed["args"].values() if isinstance(v, torch.Tensor)]
        # a value the reference's own call of this submodule returned is no name for what this call was given (an
        # identity in evaluation mode, a dropout, returns its input)
        own = tr("the output of `{name}`", name=self.shown(name))
        saved, self.known = self.known, [(value, words) for value, words in self.known if words != own]
        try:
            words = joined([self._learner_words(value) for value in given])
        finally:
            self.known = saved
        if not words:  # nothing recorded of what it was given (a call that raised before its hooks saw it)
            return tr("the error comes from your call of `{name}`.", name=self.shown(name))
        text = tr("the error comes from your call of `{name}`, given {values}.", name=self.shown(name), values=words)
        number = sum(1 for c in self.learner["calls"][:self.learner["calls"].index(failed)]
                     if c.get("depth") == 0 and c["name"] == name)
        theirs = [c for c in self.reference["calls"] if c.get("depth") == 0 and c["name"] == name]
        if number < len(theirs):
            shapes = [str(tuple(v.shape)) for v in theirs[number]["args"].values() if isinstance(v, torch.Tensor)]
            text += " " + tr("The reference calls it there with tensors of shapes {shapes}.", shapes=", ".join(shapes))
        return text

    def _reference_twin(self, failed, given):
        """The reference's operator of the same kind that shares an input value with the one that raised."""
        for op in self.reference["ops"]:
            if _kind(op) != _kind(failed):  # the same kind of step (torch.matmul and aten's bmm alike)
                continue
            theirs = self._inputs_of(op, self.reference) + self._as_written(op, self.reference)
            if any(same(a, b) or rearranged(a, b) for a in given if isinstance(a, torch.Tensor)
                   for b in theirs if isinstance(b, torch.Tensor)):
                return op
        return None

    def _learner_words(self, value):
        """Words for a tensor of the learner's computation, told by the reference's values where one is equal."""
        shape = tuple(value.shape)
        named = self._named(value)
        if named:
            return tr("{words} (shape {shape})", words=named, shape=shape)
        for index, op in enumerate(self.reference["ops"]):
            if same(value, op.get("output")):
                labelled = self._labelled_view(("op", index))  # a view of a step is told by the step
                whole = self.reference["ops"][labelled].get("output") if labelled is not None else None
                if whole is not None and (same(value, whole) or reshaped(value, whole)):
                    return tr("values of shape {shape} equal to {label}", label=said(self.labels[labelled]), shape=shape)
                origin = self._origin(("op", index))
                if origin is not None and origin[0] == "op":
                    return tr("the same {step} as the reference's (shape {shape})",
                              step=_step(self.reference["ops"][origin[1]]), shape=shape)
        for known, words in self.known:
            if rearranged(value, known):
                return tr("{words} rearranged (shape {shape})", words=words, shape=shape)
        return tr("a tensor of shape {shape}", shape=shape)

    # ------------------------------------------------------------------ 1. submodule calls

    def calls(self, until_raised=False):
        """The first submodule call that departs; `until_raised`: the learner's code raised, so a call it never
        reached is no departure (the error is told instead)."""
        mine = {}
        for call in self.learner["calls"]:
            if call.get("depth") == 0:
                mine.setdefault(call["name"], []).append(call)
        aliases = {alias: call["name"] for call in self.learner["calls"] for alias in call.get("aliases", ())}
        theirs_named = {call["name"] for call in self.reference["calls"] if call.get("depth") == 0}
        for call in self.learner["calls"]:
            shared = [alias for alias in call.get("aliases", ()) if alias in theirs_named]
            if len(shared) > 1:
                return tr("`{name}` and `{other}` are one and the same module in your code; the reference "
                          "has two separate ones.", name=self.shown(shared[1]), other=self.shown(shared[0]))
        seen = {}
        for theirs in self.reference["calls"]:
            if theirs.get("depth") != 0 or theirs.get("kind") == "Dropout":
                continue
            name = theirs["name"]
            number = seen[name] = seen.get(name, -1) + 1
            own = mine.get(name, [])
            if number >= len(own):
                return "" if until_raised else self._missing_call(name, number, len(own), aliases)
            problem = self._arguments(name, own[number], theirs) or self._returned(name, own[number], theirs)
            if problem:
                return problem
        for name, own in mine.items():  # every call of the reference's was made as the reference made it: one more?
            if name in seen and len(own) > seen[name] + 1 and not until_raised:
                return tr("your code calls `{name}` more times ({made}) than the reference ({wanted}).",
                          name=self.shown(name), made=len(own), wanted=seen[name] + 1)
        return ""

    def _missing_call(self, name, number, made, aliases):
        if name in aliases and aliases[name] != name:
            return tr("`{name}` and `{other}` are one and the same module in your code; the reference "
                      "has two separate ones.", name=self.shown(name), other=self.shown(aliases[name]))
        if made == 0:
            return tr("your code never calls `{name}`; the reference calls it.", name=self.shown(name))
        return tr("your code calls `{name}` fewer times ({made}) than the reference ({wanted}).",
                  name=self.shown(name), made=made, wanted=number + 1)

    def _arguments(self, name, mine, theirs):
        for parameter, wanted in theirs["args"].items():
            got = mine["args"].get(parameter, wanted if parameter not in mine["args"] and wanted is None else "absent")
            if isinstance(got, str):
                continue  # the learner's submodule has another signature: said by the interface checks
            if wanted is None and got is None:
                continue
            if wanted is not None and got is not None and same(got, wanted):
                continue
            if got is None or self._named(got):
                return tr("`{name}` is called with {what} as `{parameter}`; {should}", name=self.shown(name),
                          parameter=parameter, what=self._told(got, wanted), should=self._should(wanted, got))
            should = self._should(wanted, got) if self._named(wanted) or wanted is None \
                or self._label_of_value(wanted) else ""
            return tr("`{name}` gets, as `{parameter}`, {what}.", name=self.shown(name), parameter=parameter,
                      what=self._told(got, wanted)) + (" " + should[:1].upper() + should[1:] if should else "")
        return ""

    def _returned(self, name, mine, theirs):
        if isinstance(theirs.get("output"), torch.Tensor) and isinstance(mine.get("output"), torch.Tensor) \
                and not same(mine["output"], theirs["output"]):
            return tr("`{name}` gets the same arguments as in the reference but returns other values: look at "
                      "how it is built, or what it is.", name=self.shown(name))
        return ""

    def _told(self, got, wanted):
        """Words for the value `got` that a call received where the reference passed `wanted`."""
        if got is None:
            return tr("nothing (None)")
        named = self._named(got)
        if named:
            return named
        if isinstance(wanted, torch.Tensor) and got.shape == wanted.shape:
            if got.dtype == torch.bool and wanted.dtype == torch.bool and torch.equal(got, ~wanted):
                return tr("the opposite of what the reference passes (every True is False)")
            if got.is_floating_point() and wanted.is_floating_point():
                fitting = [(value, words) for value, words in self.known if value.shape == got.shape]
                for value, words in fitting:
                    if same(got, wanted - value):
                        return tr("what the reference passes less {words} (that term is missing)", words=words)
                    if same(got, wanted + value):
                        return tr("what the reference passes plus {words} (a term too many)", words=words)
                for (value, words), (other, other_words) in ((a, b) for a in fitting for b in fitting if a is not b):
                    if same(got, wanted - value + other):
                        return tr("what the reference passes, with {other} where it adds {words}",
                                  other=other_words, words=words)
        if isinstance(wanted, torch.Tensor) and reshaped(got, wanted):
            return tr("the reference's numbers in the reference's order, in shape {shape}", shape=tuple(got.shape))
        if isinstance(wanted, torch.Tensor) and rearranged(got, wanted):
            return tr("the reference's numbers in another arrangement (shape {shape})", shape=tuple(got.shape))
        if isinstance(wanted, torch.Tensor) and got.shape != wanted.shape:
            return tr("a tensor of shape {shape} (the reference's has shape {wanted})", shape=tuple(got.shape),
                      wanted=tuple(wanted.shape))
        return tr("other values than the reference's")

    def _should(self, wanted, got):
        if wanted is None:
            return tr("the reference passes nothing (None) there.")
        named = self._named(wanted)
        if named:
            return tr("the reference passes {words}.", words=named)
        label = self._label_of_value(wanted)
        if isinstance(got, torch.Tensor) and got.shape == wanted.shape and got.is_floating_point() \
                and wanted.is_floating_point():
            for value, words in self.known:
                if value.shape == got.shape and same(wanted, got + value):
                    return tr("the exercise passes {label} there, which is that plus {words}.", label=label, words=words) \
                        if label else tr("the reference passes that plus {words}.", words=words)
        if label:
            return tr("the exercise passes {label} there.", label=label)
        return tr("the reference passes another tensor there.")

    def _label_of_value(self, value):
        """The exercise's name for the labelled step of the reference whose result is `value`, or ''."""
        for index, label in sorted(self.labels.items()):
            if same(value, self.reference["ops"][index].get("output")):
                return said(label)
        return ""

    def _named(self, value):
        """Words for a value the reference also has under a name (an input, a call's output), or ''."""
        for known, words in self.known:
            if same(value, known):
                return words
        return ""

    # ------------------------------------------------------------------ 2. the unit's own operators

    def operators(self):
        """The first step of the reference's own operators where the learner's values stop: a step whose result
        appears nowhere in the learner's computation, while every value it is computed from does, and no later
        step computed from it does (a masked score filled with another number that gives the same softmax is no
        departure)."""
        ops, pool = self.reference["ops"], self._learner_values()
        # found: the learner has the step's values, in its shape or only viewed in another (a view computes nothing:
        # a graded helper's result replayed into the unit reaches it already viewed)
        found = [isinstance(op.get("output"), torch.Tensor) and (
            any(same(value, op["output"]) for value in pool.get(tuple(op["output"].shape), ()))
            or self._in_another_shape(op, pool)) for op in ops]
        # a value with one number repeated (a column set to 0) proves nothing of what came before it
        later = self._found_later(ops, [hit and not _constant(op["output"]) for hit, op in zip(found, ops)])
        for index, op in enumerate(ops):
            if op["op"] in SHAPE_ONLY or op["op"] in RANDOM or found[index] or later[index] \
                    or not isinstance(op.get("output"), torch.Tensor):
                continue
            sources = [self._origin(source) for source in op.get("inputs", ())]
            if not all(origin is None or origin[0] != "op" or found[origin[1]] for origin in sources):
                continue
            words = joined([self._argument_words(origin, source)
                                    for origin, source in zip(sources, op.get("inputs", ())) if origin is not None])
            detail = self._same_operator(op)
            label = self.labels.get(index)
            if label:
                return self._nowhere(said(label), op["output"], self._shown_shape(index), words) + \
                    (" " + detail if detail else "")
            text = tr("the reference's {step} of {values} gives a number that appears nowhere in your computation.",
                      step=_step(op), values=words) if op["output"].dim() == 0 else \
                tr("the reference's {step} of {values} (shape {shape}) gives values that appear nowhere in your "
                   "computation.", step=_step(op), values=words, shape=tuple(op["output"].shape))
            return text + \
                (" " + detail if detail else "")
        return ""

    @staticmethod
    def _nowhere(label, output, shape, words):
        """The sentence for a labelled step of the reference whose values the learner's computation never has."""
        if output.dim() == 0:
            return tr("no number in your computation equals {label}; the exercise computes that step from {values}.",
                      label=label, values=words) if words else \
                tr("no number in your computation equals {label}.", label=label)
        return tr("no value of shape {shape} in your computation equals {label}; the exercise computes that step "
                  "from {values}.", label=label, shape=shape, values=words) if words else \
            tr("no value of shape {shape} in your computation equals {label}.", label=label, shape=shape)

    def _argument_words(self, origin, source):
        """Words for a tensor argument of a reference step: the labelled step it is (or views), else where it comes
        from; "a part or view of" only where its numbers are not that value's, in that value's order."""
        labelled = self._labelled_view(source)
        if labelled is not None:
            value, whole = self._value_of(source), self.reference["ops"][labelled].get("output")
            words = said(self.labels[labelled])
            if isinstance(value, torch.Tensor) and isinstance(whole, torch.Tensor) and not same(value, whole) \
                    and not reshaped(value, whole):
                return tr("a part or view of {words}", words=words)
            return words
        viewed = self._viewed(source)
        if viewed:
            value, whole = self._value_of(source), self._value_of(origin)
            if isinstance(value, torch.Tensor) and isinstance(whole, torch.Tensor) and reshaped(value, whole):
                viewed = False  # the same numbers in the same order, in another shape: no part of them
        return self._source_words(origin, viewed=viewed)

    @staticmethod
    def _in_another_shape(op, pool):
        """Whether the learner has the step's values in the same order, laid out in another shape."""
        wanted = op["output"].reshape(-1)
        return any(value.numel() == wanted.numel() and shape != tuple(op["output"].shape)
                   and same(value.reshape(-1), wanted) for shape, values in pool.items() for value in values)

    def _origin(self, source):
        """The computing step (or input, or call) a reference op's tensor argument comes from, through views."""
        kind, where = source
        seen = 0
        while kind == "op" and self.reference["ops"][where]["op"] in SHAPE_ONLY and seen < 50:
            op = self.reference["ops"][where]
            inputs = op.get("inputs") or []
            if op["op"] in MADE or not inputs:
                return ("made", op["op"])  # a new tensor (of zeros, of one value, a range), not a view
            kind, where = inputs[0]
            seen += 1
        return (kind, where) if kind in ("op", "input", "call") else None

    def _found_later(self, ops, found):
        """For each op: whether every way from it to the results passes through a step found in the learner's
        values (then the learner computed it otherwise, e.g. with another fill value that gives the same softmax)."""
        consumers = [[] for _ in ops]
        for index, op in enumerate(ops):
            for kind, where in op.get("inputs", ()):
                if kind == "op" and isinstance(where, int) and 0 <= where < index:
                    consumers[where].append(index)
        open_way = [False] * len(ops)  # a way from this op to a result that meets no found step after it
        for index in range(len(ops) - 1, -1, -1):
            open_way[index] = not consumers[index] or any(not found[j] and open_way[j] for j in consumers[index])
        return [bool(consumers[i]) and not open_way[i] for i in range(len(ops))]

    def _viewed(self, source):
        """Whether a tensor argument is a view (a slice, a transpose, a reshape) of where it comes from: its own
        values are then not the whole of that input or step."""
        kind, where = source
        return kind == "op" and self.reference["ops"][where]["op"] in SHAPE_ONLY \
            and self.reference["ops"][where]["op"] not in MADE and not same(
                self.reference["ops"][where].get("output"), self._value_of(self._origin(source)))

    def _value_of(self, origin):
        if origin is None:
            return None
        kind, where = origin
        if kind == "input":
            return self.inputs.get(where)
        if kind == "call":
            return self.reference["calls"][where].get("output")
        if kind == "op":
            return self.reference["ops"][where].get("output")
        return None

    def _source_words(self, origin, viewed=False):
        if viewed and origin[0] in ("input", "call", "op"):
            return tr("a part or view of {words}", words=self._source_words(origin))
        kind, where = origin
        if kind == "made":
            if where in ("lift_fresh", "lift_fresh_copy", "scalar_tensor"):
                return tr("a number")
            return tr("a tensor it makes with `{name}`", name=where)
        if kind == "input":
            return tr("`{name}`", name=where)
        if kind == "call":
            return tr("the output of `{name}`", name=self.shown(self.reference["calls"][where]["name"]))
        if where in self.labels:
            return said(self.labels[where])
        return tr("its {step}", step=_step(self.reference["ops"][where]))

    def _learner_values(self):
        pool = {}
        values = [op.get("output") for op in self.learner["ops"]] + [c.get("output") for c in self.learner["calls"]]
        values += list(self.inputs.values()) + list(self.learner.get("given") or ())
        for value in values:
            if isinstance(value, torch.Tensor):
                pool.setdefault(tuple(value.shape), []).append(value)
        return pool

    def _same_operator(self, step):
        """What the learner's own operator of the same kind did differently, when it ran one."""
        wanted = self._inputs_of(step, self.reference)
        for op in self.learner["ops"]:
            if op["op"] != step["op"]:
                continue
            given = self._inputs_of(op, self.learner)
            if len(given) != len(wanted):
                continue
            differ = [i for i, (a, b) in enumerate(zip(given, wanted)) if not same(a, b)]
            if not differ and op["args"] != step["args"]:
                mine, theirs = _args(op), _args(step)
                if not theirs:
                    return tr("Your own {step} gets the same input but is called with the arguments {args}; the "
                              "reference's with its tensors only.", step=_kind(step), args=mine)
                if not mine:
                    return tr("Your own {step} gets the same input, with its tensors only; the reference's is also "
                              "called with the arguments {wanted}.", step=_kind(step), wanted=theirs)
                return tr("Your own {step} gets the same input but is called with the arguments {args}; the "
                          "reference's with {wanted}.", step=_kind(step), args=mine, wanted=theirs)
            if len(differ) == 1 and op["args"] == step["args"] and isinstance(given[differ[0]], torch.Tensor) \
                    and isinstance(wanted[differ[0]], torch.Tensor):
                relation = _relation(given[differ[0]], wanted[differ[0]])
                if relation:
                    return tr("Your own {step} gets, as its input number {number}, {relation}.", step=_kind(step),
                              number=differ[0] + 1, relation=relation)
        return ""

    def _inputs_of(self, op, record):
        values = []
        for kind, where in op.get("inputs", ()):
            if kind == "input":
                values.append(self.inputs.get(where))
            elif kind == "op" and isinstance(where, int) and 0 <= where < len(record["ops"]):
                values.append(record["ops"][where].get("output"))
            elif kind == "call" and isinstance(where, int) and 0 <= where < len(record["calls"]):
                values.append(record["calls"][where].get("output"))
            else:
                values.append(None)
        return values


def _results(comparison, reference, results):
    """A wrong result that holds values the reference has elsewhere: an input, a call's output, another of its
    results, an earlier step."""
    if not results or not results[0] or not results[1]:
        return ""
    mine, theirs = results
    for name, value in mine.items():
        wanted = theirs.get(name)
        if not isinstance(value, torch.Tensor) or not isinstance(wanted, torch.Tensor) or same(value, wanted):
            continue
        known = comparison._named(value.detach())
        if known:
            return tr("your `{name}` is {words}, unchanged.", name=name, words=known)
        for other, known in theirs.items():
            if other != name and same(value.detach(), known.detach()):
                return tr("your `{name}` holds the values the reference returns as `{other}`.", name=name, other=other)
        for index, op in enumerate(reference["ops"]):
            if (op["op"] not in SHAPE_ONLY or op["op"] in JOINS) and same(value.detach(), op.get("output")):
                if index in comparison.labels:
                    return tr("your `{name}` holds the values of {label}, not the final `{name}`.", name=name,
                              label=said(comparison.labels[index]))
                if any(later["op"] == op["op"] for later in reference["ops"][index + 1:]):  # a step made again later
                    return tr("your `{name}` holds the values of an earlier {step} of the reference's, not its final "
                              "`{name}`.", name=name, step=_step(op))
                return tr("your `{name}` holds the values of the reference's {step}, not its final `{name}`.",
                          name=name, step=_step(op))
        if reshaped(value, wanted):
            return tr("your `{name}` holds the reference's numbers in the reference's order, but in shape {shape}: "
                      "look at the sizes your view or reshape is given.", name=name, shape=tuple(value.shape))
        if rearranged(value, wanted.detach()):
            return tr("your `{name}` holds the reference's numbers, but in another arrangement: look at the "
                      "order of the axes (a transpose, a view, a reshape).", name=name)
    return ""


def _kind(op):
    """Words for an operator: 'a softmax', 'a matrix product', or its ATen name."""
    words = {
        "softmax": tr("softmax"), "log_softmax": tr("log-softmax"), "mm": tr("matrix product"),
        "bmm": tr("matrix product"), "matmul": tr("matrix product"), "addmm": tr("matrix product"),
        "baddbmm": tr("matrix product"), "div": tr("division"), "mul": tr("multiplication"), "add": tr("addition"),
        "sub": tr("subtraction"), "rsub": tr("subtraction"), "masked_fill": tr("masked_fill"), "where": tr("torch.where"),
        "mean": tr("mean"), "sum": tr("sum"), "var": tr("variance"), "std": tr("standard deviation"),
        "sqrt": tr("square root"), "rsqrt": tr("reciprocal square root"), "pow": tr("power"), "exp": tr("exponential"),
        "log": tr("logarithm"), "tanh": tr("tanh"), "relu": tr("relu"), "neg": tr("negation"), "tril": tr("tril"),
        "triu": tr("triu"), "logical_and": tr("logical AND"), "bitwise_and": tr("logical AND"),
        "logical_not": tr("logical NOT"), "bitwise_not": tr("logical NOT"), "eq": tr("comparison"),
        "ne": tr("comparison"), "lt": tr("comparison"), "gt": tr("comparison"),
        "le": tr("comparison"), "ge": tr("comparison"), "embedding": tr("embedding lookup"), "sin": tr("sine"), "cos": tr("cosine"),
        "amax": tr("maximum"), "max": tr("maximum"), "reciprocal": tr("reciprocal"), "getitem": tr("indexing"),
        "cat": tr("concatenation"), "stack": tr("stack"),
    }
    return words.get(op["op"], f"`{op['op']}`")


def _step(op):
    """Words for one recorded step: its kind, with the axis it works along where it has one."""
    dims = [a for a in op["args"] if isinstance(a, int) and not isinstance(a, bool)]
    if op["op"] in ("softmax", "log_softmax", "mean", "sum", "var", "std", "amax") and dims:
        return tr("{kind} over axis {axis}", kind=_kind(op), axis=dims[0])
    return _kind(op)


def _relation(got, wanted):
    """Words for how `got` stands to `wanted`, where a simple relation holds by value: a power, a multiple."""
    if got.shape != wanted.shape or not got.is_floating_point() or not wanted.is_floating_point() or got.numel() < 2:
        return ""  # two single numbers always stand in some relation: no evidence of one
    got, wanted = got.double(), wanted.double()
    for power, words in ((2.0, tr("the square of the reference's")), (0.5, tr("the square root of the reference's")),
                         (-1.0, tr("the reciprocal of the reference's"))):
        if bool((wanted > 0).all()) and same(got, wanted ** power):
            return words
    scale = float((got * wanted).sum() / (wanted * wanted).sum().clamp_min(1e-30))
    if abs(scale - 1) > 1e-3 and same(got, wanted * scale):
        return tr("the reference's times {scale:.4g}", scale=scale)
    return ""


def _args(op):
    """An operator's arguments besides its tensors, as "(0, False)"; '' where it has none."""
    shown = [repr(a) for a in op["args"] if not isinstance(a, str)]
    return "(" + ", ".join(shown) + ")" if shown else ""
