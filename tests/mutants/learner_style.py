"""Learner-style mutants of each graded unit, and how the checks describe them (issue 33).

cosmic-ray's operators (tests.mutants) flip operators and numbers; learners make other mistakes: they
pass `memory` where `x` is due, reuse `self.norm1` for `self.norm2`, read `x` from before it was
normalised, forget a transpose or a softmax, take the mean over the wrong axis, fill the wrong side of a
mask. The operators below make those mistakes over the AST (`ast`, `ast.unparse`) of each unit's reference
source, one mutant per occurrence, deterministically (ast.walk's order, then the alternatives' order).
A unit that calls a private helper of the reference (`_masked_softmax`) gets the helper's source first,
mutated with it, as a learner writes the masking inline.

Each mutant runs through tests.mutants.evaluate (the visible check, then the hidden values check, every
printed id judged), and each check's message gets one class:

* named right: a misconception id, justified by the mutant's behaviour;
* misnamed: an id the behaviour does not justify;
* located: no id, but the message says where the computation parts from the reference (LOCATED);
* generic: a symptom id only (tests.mutants.SYMPTOM_IDS);
* passed: the check lets it through ('-' where the unit has no visible check).

    python -m tests.mutants --learner-style [unit ...]    the table
"""
import ast
import difflib
import itertools
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from autograder import reference

from . import UNIT_NAMES, Mutant, Result, evaluate, judge_of, unit_source
from .equivalent import why_equivalent

# The phrase a message uses to say where the learner's computation departs from the reference's
# (learner_kit.locate's, where that module is in the tree).
try:
    from learner_kit.locate import HEADING as LOCATED
except ImportError:
    LOCATED = "Where it parts from the reference:"

# A mutant's check runs take at most this long (seconds); beyond, it is reported as timed out.
BOUND_S = 120


def is_located(message):
    """Whether a check's message says where the computation parts from the reference."""
    return LOCATED in (message or "")


# ------------------------------------------------------------------ the source a learner writes

def learner_source(unit):
    """The unit's reference source, preceded by the private helpers of the reference module it calls."""
    source = unit_source(unit)
    helpers = [name for name, value in vars(reference).items()
               if name.startswith("_") and callable(value) and getattr(value, "__module__", "") == reference.__name__
               and f"{name}(" in source]
    return "\n\n".join([*(unit_source(name) for name in helpers), source])


# ------------------------------------------------------------------ AST helpers

def _expr(text):
    return ast.parse(text, mode="eval").body


def _text(node):
    return ast.unparse(node)


def _functions(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]


def _body(function):
    """Every node of the function's body (not its defaults or decorators), in ast.walk order."""
    return [node for statement in function.body for node in ast.walk(statement)]


def _nodes(tree, kind):
    """The nodes of type `kind` in every function body of the tree."""
    return [node for function in _functions(tree) for node in _body(function) if isinstance(node, kind)]


def _replace(tree, old, new):
    """Put `new` where `old` is in the tree."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[next(i for i, item in enumerate(value) if item is old)] = new
                return
    raise ValueError(f"not in the tree: {_text(old)}")


def _swap(items, i, j):
    items[i], items[j] = items[j], items[i]


def _set_keyword(call, name, value):
    """Give `call` the keyword `name=value` (text), or drop it when value is None."""
    call.keywords = [k for k in call.keywords if k.arg != name]
    if value is not None:
        call.keywords.append(ast.keyword(arg=name, value=_expr(value)))


def _callee(call):
    """The name a call calls: `relu` for torch.relu(x), `norm1` for self.norm1(x), `softmax` for s.softmax()."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _int(node):
    """The int a node spells (`2`, `-1`), or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _number(node):
    """The int or float a node spells, or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _near_axes(value):
    """The axes a learner confuses with `value`: its neighbours, within the ranks the course uses."""
    return [v for v in (value - 1, value + 1) if -4 <= v <= 3]


# Methods and functions whose int arguments are axes.
AXIS_CALLS = {"size", "transpose", "unsqueeze", "squeeze", "softmax", "log_softmax", "mean", "sum", "var", "std",
              "argmax", "cat"}
# Module objects of the reference's code, and the objects it calls submodules of.
CALL_ROOTS = {"self", "model", "torch", "F", "math", "nn"}
# Tensor methods that compute values and keep the shape: dropping one is a forgotten step.
VALUE_METHODS = {"softmax", "log_softmax", "contiguous", "exp", "relu", "tanh"}
# Calls that are neither a step of the computation nor learner-style to drop.
NOT_STEPS = {"int", "float", "len", "range", "max", "min", "super", "finfo", "sqrt", "isinstance", "cat", "ones", "zeros",
             "arange", "full", "full_like", "tensor", "empty"}


# ------------------------------------------------------------------ operators
# Each operator takes a parsed tree and yields edits (closures that change that tree in place), one per
# occurrence and alternative, in a fixed order. tests.mutants.learner_style.mutants applies one at a time.

# Names the course's signatures give to interchangeable things.
KINDS = ({"x", "memory"}, {"mask", "src_mask", "tgt_mask"}, {"query", "key", "value"}, {"q", "k", "v"},
         {"src", "tgt", "tgt_in", "tgt_out"}, {"d_model", "d_ff"}, {"step", "warmup"})


def _constructed(tree):
    """ids of the nodes inside the arguments of submodule constructors (MultiHeadAttention(d_model, n_head)) in
    __init__: their order is the interface the checks fix, and a swap there only gives a shape error."""
    return {id(node) for function in _functions(tree) if function.name == "__init__" for call in _body(function)
            if isinstance(call, ast.Call) and _callee(call)[:1].isupper()
            for argument in call.args for node in ast.walk(argument)}


def swap_arguments(tree):
    """Two positional arguments of one call swapped (different expressions of the same syntax)."""
    constructed = _constructed(tree)
    for call in _nodes(tree, ast.Call):
        if call.args and id(call.args[0]) in constructed:
            continue
        for i, j in itertools.combinations(range(len(call.args)), 2):
            a, b = call.args[i], call.args[j]
            if type(a) is type(b) and not isinstance(a, ast.Starred) and _text(a) != _text(b):
                yield partial(_swap, call.args, i, j)


def swap_names(tree):
    """A read of a name replaced by another name of the same kind bound in the function (x -> memory)."""
    constructed = _constructed(tree)
    for function in _functions(tree):
        bound = {a.arg for a in function.args.args} | {n.id for n in _body(function)
                                                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in _body(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in constructed:
                for kind in KINDS:
                    for other in sorted(kind & bound - {node.id} if node.id in kind else ()):
                        yield partial(setattr, node, "id", other)


def stale_read(tree):
    """A read of a reassigned name given the value before its latest assignment (x from before norm1)."""
    for function in _functions(tree):
        params = {a.arg for a in function.args.args}
        for name, assignments in _assignments(function).items():
            for node in _body(function):
                if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                    continue
                where = (node.lineno, node.col_offset)
                reaching = [a for a in assignments if (a.end_lineno, a.end_col_offset) <= where]
                if reaching and (name in params or len(reaching) > 1):
                    yield partial(_read_before, function, reaching[-1], node, name in params)


def _assignments(function):
    """name -> the assignment statements that bind it, in source order."""
    found = {}
    for statement in _body(function):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        found.setdefault(name.id, []).append(statement)
    return found


def _read_before(function, assignment, read, is_param):
    """Keep the name's value just before `assignment` in a snapshot, and make `read` read it."""
    snapshot = f"{read.id}_before"
    for body in [function.body, *(n.body for n in _body(function) if hasattr(n, "body") and isinstance(n.body, list)),
                 *(n.orelse for n in _body(function) if isinstance(getattr(n, "orelse", None), list))]:
        if any(statement is assignment for statement in body):
            body.insert(next(i for i, s in enumerate(body) if s is assignment), ast.parse(f"{snapshot} = {read.id}").body[0])
            break
    if is_param and not any(s is assignment for s in function.body):  # the snapshot exists on every path
        function.body.insert(1 if ast.get_docstring(function) else 0, ast.parse(f"{snapshot} = {read.id}").body[0])
    read.id = snapshot


def _steps(tree):
    """Calls that are one step of the computation on one input: f(y), self.norm(y), y.softmax(dim=-1)."""
    for call in _nodes(tree, ast.Call):
        name = _callee(call)
        if not name or name in NOT_STEPS or name[0].isupper():
            continue
        if len(call.args) == 1 and not isinstance(call.args[0], ast.Starred) and (
                isinstance(call.func, ast.Name) or _root(call.func) in CALL_ROOTS):
            yield call, call.args[0]
        elif not call.args and name in VALUE_METHODS and isinstance(call.func, ast.Attribute):
            yield call, call.func.value


def drop_call(tree):
    """A step left out: f(y) -> y (dropout, a norm, relu, a submodule, a softmax)."""
    for call, operand in _steps(tree):
        yield partial(_replace, tree, call, operand)


def double_call(tree):
    """A step done twice: f(y) -> f(f(y))."""
    for call, operand in _steps(tree):
        yield partial(_double, call, operand)


def _double(call, operand):
    inner = ast.parse(_text(call), mode="eval").body
    if call.args:
        call.args[0] = inner
    else:
        call.func.value = inner


def reuse_submodule(tree):
    """A submodule used where another of the same kind is due (self.norm2 -> self.norm1)."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        kinds = _submodule_kinds(cls)
        for function in (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name != "__init__"):
            for node in _body(function):
                if isinstance(node, ast.Attribute) and _text(node.value) == "self" and node.attr in kinds:
                    for other in sorted(a for a, k in kinds.items() if k == kinds[node.attr] and a != node.attr):
                        yield partial(setattr, node, "attr", other)


def _submodule_kinds(cls):
    """self.<name> -> its constructor's text (`nn.LayerNorm`), for the submodules __init__ makes."""
    kinds = {}
    for function in (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"):
        for statement in _body(function):
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
                for target in statement.targets:
                    if isinstance(target, ast.Attribute) and _text(target.value) == "self":
                        kinds[target.attr] = _text(statement.value.func)
    return kinds


def change_axis(tree):
    """An axis changed: dim=/keepdim=/diagonal=, an axis argument, a softmax's dim removed, a None index moved."""
    for call in _nodes(tree, ast.Call):
        name = _callee(call)
        for keyword in call.keywords:
            if keyword.arg == "dim" and _int(keyword.value) is not None:
                for axis in _near_axes(_int(keyword.value)):
                    yield partial(_set_keyword, call, "dim", str(axis))
                if name in ("softmax", "log_softmax"):
                    yield partial(_set_keyword, call, "dim", None)
            if keyword.arg == "keepdim" and isinstance(keyword.value, ast.Constant):
                yield partial(_set_keyword, call, "keepdim", str(not keyword.value.value))
        if name in ("tril", "triu"):
            given = next((_int(k.value) for k in call.keywords if k.arg == "diagonal"), 0)
            for diagonal in (given - 1, given + 1):
                yield partial(_set_keyword, call, "diagonal", str(diagonal))
        if name in AXIS_CALLS:
            for i, argument in enumerate(call.args):
                if _int(argument) is not None:
                    for axis in _near_axes(_int(argument)):
                        yield partial(call.args.__setitem__, i, _expr(str(axis)))
    for subscript in _nodes(tree, ast.Subscript):
        if isinstance(subscript.slice, ast.Tuple):
            items = subscript.slice.elts
            for i in range(len(items) - 1):
                if [_is_none(items[i]), _is_none(items[i + 1])].count(True) == 1:
                    yield partial(_swap, items, i, i + 1)


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def change_reduction(tree):
    """A reduction changed: mean <-> sum, var -> std, the variance's correction, a loss's reduction."""
    for call in _nodes(tree, ast.Call):
        name = _callee(call)
        if isinstance(call.func, ast.Attribute) and name in ("mean", "sum", "var"):
            for other in {"mean": ("sum",), "sum": ("mean",), "var": ("std",)}[name]:
                yield partial(setattr, call.func, "attr", other)
        for keyword in call.keywords:
            if keyword.arg == "correction" and _int(keyword.value) in (0, 1):
                yield partial(_set_keyword, call, "correction", str(1 - _int(keyword.value)))
                yield partial(_set_keyword, call, "correction", None)
            if keyword.arg == "unbiased" and isinstance(keyword.value, ast.Constant):
                yield partial(_set_keyword, call, "unbiased", str(not keyword.value.value))
            if keyword.arg == "reduction" and isinstance(keyword.value, ast.Constant):
                for other in ("sum", "mean", "batchmean"):
                    if other != keyword.value.value:
                        yield partial(_set_keyword, call, "reduction", repr(other))


def change_transpose(tree):
    """A transpose removed (y.transpose(a, b) -> y), or added on an operand of a matrix product."""
    for call in _nodes(tree, ast.Call):
        if _callee(call) == "transpose" and isinstance(call.func, ast.Attribute):
            yield partial(_replace, tree, call, call.func.value)
    for product in _nodes(tree, ast.BinOp):
        if isinstance(product.op, ast.MatMult):
            for side in ("left", "right"):
                operand = getattr(product, side)
                if not (isinstance(operand, ast.Call) and _callee(operand) == "transpose"):
                    yield partial(setattr, product, side, _expr(f"({_text(operand)}).transpose(-2, -1)"))


def change_power(tree):
    """An exponent or a square root changed: ** c -> ** -c, ** 2, dropped; sqrt(y) -> y, sqrt(sqrt(y))."""
    for power in _nodes(tree, ast.BinOp):
        exponent = _number(power.right)
        if isinstance(power.op, ast.Pow) and exponent is not None:
            yield partial(_replace, tree, power, power.left)
            yield partial(setattr, power, "right", _expr(repr(-exponent)))
            if abs(exponent) == 0.5:
                yield partial(setattr, power, "right", _expr("2"))
    for call in _nodes(tree, ast.Call):
        if _callee(call) == "sqrt" and len(call.args) == 1:
            yield partial(_replace, tree, call, call.args[0])
            yield partial(_double, call, call.args[0])


def change_constant(tree):
    """A constant changed: an int off by one (a slice, a count), a float ten times off (a scale), eps dropped."""
    skip = _axis_and_exponent_constants(tree)
    for node in _nodes(tree, ast.Constant):
        if type(node.value) is int and id(node) not in skip:
            for value in (node.value - 1, node.value + 1):
                yield partial(setattr, node, "value", value)
        elif type(node.value) is float and id(node) not in skip:
            for value in (node.value * 10, node.value / 10):
                yield partial(setattr, node, "value", value)
    for total in _nodes(tree, ast.BinOp):
        if isinstance(total.op, ast.Add) and _text(total.right) == "self.eps":
            yield partial(_replace, tree, total, total.left)


def _axis_and_exponent_constants(tree):
    """ids of the constants other operators own: axes (change_axis), exponents (change_power), fills (mask)."""
    owned = []
    for call in _nodes(tree, ast.Call):
        if _callee(call) in AXIS_CALLS:
            owned += call.args
        owned += [k.value for k in call.keywords if k.arg in ("dim", "diagonal", "correction")]
        if _callee(call) == "masked_fill":
            owned += call.args[1:]
    owned += [b.right for b in _nodes(tree, ast.BinOp) if isinstance(b.op, ast.Pow)]
    return {id(node) for root in owned for node in ast.walk(root)}


# Fill values a learner writes for blocked scores.
FILLS = ("0.0", "-1e9", "float('-inf')", "1e9")


def change_mask(tree):
    """Mask polarity and fill: == <-> !=, ~m -> m, m -> ~m in masked_fill, & <-> |, tril <-> triu, the fill."""
    asserted = {id(n) for a in _nodes(tree, ast.Assert) for n in ast.walk(a)}
    for compare in _nodes(tree, ast.Compare):
        if id(compare) not in asserted and len(compare.ops) == 1 and isinstance(compare.ops[0], (ast.Eq, ast.NotEq)):
            flipped = ast.NotEq() if isinstance(compare.ops[0], ast.Eq) else ast.Eq()
            yield partial(setattr, compare, "ops", [flipped])
    for inverted in _nodes(tree, ast.UnaryOp):
        if isinstance(inverted.op, ast.Invert):
            yield partial(_replace, tree, inverted, inverted.operand)
    for combined in _nodes(tree, ast.BinOp):
        if isinstance(combined.op, (ast.BitAnd, ast.BitOr)):
            yield partial(setattr, combined, "op", ast.BitOr() if isinstance(combined.op, ast.BitAnd) else ast.BitAnd())
    for call in _nodes(tree, ast.Call):
        name = _callee(call)
        if name == "masked_fill" and len(call.args) == 2:
            if not (isinstance(call.args[0], ast.UnaryOp) and isinstance(call.args[0].op, ast.Invert)):
                yield partial(call.args.__setitem__, 0, _expr(f"~({_text(call.args[0])})"))
            for fill in FILLS:
                yield partial(call.args.__setitem__, 1, _expr(fill))
        if name in ("tril", "triu") and isinstance(call.func, ast.Attribute):
            yield partial(setattr, call.func, "attr", "triu" if name == "tril" else "tril")


def swap_results(tree):
    """The order of results swapped: return a, b -> return b, a; a, b = f() -> b, a = f(); dict values."""
    for node in _nodes(tree, ast.Return):
        if isinstance(node.value, ast.Tuple):
            for i, j in itertools.combinations(range(len(node.value.elts)), 2):
                yield partial(_swap, node.value.elts, i, j)
        if isinstance(node.value, ast.Dict):
            values = node.value.values
            for i, j in itertools.combinations(range(len(values)), 2):
                if type(values[i]) is type(values[j]):
                    yield partial(_swap, values, i, j)
    for node in _nodes(tree, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Tuple):
                for i, j in itertools.combinations(range(len(target.elts)), 2):
                    yield partial(_swap, target.elts, i, j)


OPERATORS = {
    "swap-args": swap_arguments,
    "swap-names": swap_names,
    "stale-read": stale_read,
    "drop-call": drop_call,
    "double-call": double_call,
    "reuse-submodule": reuse_submodule,
    "axis": change_axis,
    "reduction": change_reduction,
    "transpose": change_transpose,
    "power": change_power,
    "constant": change_constant,
    "mask": change_mask,
    "result-order": swap_results,
}


# ------------------------------------------------------------------ mutants

def mutants(unit, operators=tuple(OPERATORS)):
    """The unit's distinct learner-style mutants, operator by operator (a source two edits make is kept once)."""
    source = learner_source(unit)
    original = ast.unparse(ast.parse(source))
    seen, found = {original}, []
    for name in operators:
        count = sum(1 for _ in OPERATORS[name](ast.parse(source)))
        for occurrence in range(count):
            tree = ast.parse(source)
            next(itertools.islice(OPERATORS[name](tree), occurrence, None))()
            mutated = _unparse(tree)
            if mutated not in seen:
                seen.add(mutated)
                found.append(Mutant(unit, name, occurrence, mutated, _describe(original, mutated)))
    return found


def _describe(before, after):
    """The change, as "`removed lines` -> `added lines`" (lines joined by '; ')."""
    diff = list(difflib.ndiff([line.strip() for line in before.splitlines()], [line.strip() for line in after.splitlines()]))
    removed, added = ("; ".join(line[2:] for line in diff if line.startswith(sign)) for sign in ("- ", "+ "))
    return f"`{removed}` -> `{added}`"


def _unparse(tree):
    try:
        return ast.unparse(ast.fix_missing_locations(tree))
    except Exception as error:  # noqa: BLE001 - an edit that leaves no valid tree: a mutant that is not built
        return f"raise SyntaxError({str(error)!r})  # not unparsable"


# ------------------------------------------------------------------ measuring

class TimedOut(BaseException):
    """A mutant's check runs took longer than BOUND_S (a BaseException: no `except Exception` swallows it)."""


@contextmanager
def _bounded(seconds):
    def expire(signum, frame):
        raise TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Measured:
    """One mutant's Result, the class of each check's message, and the seconds its runs took."""
    result: Result
    seconds: float
    timed_out: bool = False

    @property
    def mutant(self):
        return self.result.mutant

    @property
    def changes_behaviour(self):
        return self.result.changes_behaviour and not self.timed_out

    def message(self, where):
        """The visible check's message (None: the unit has none), or the hidden check's: the values aspect's,
        else the first other aspect's that fails ('' when all pass)."""
        r = self.result
        return r.visible if where == "visible" else r.hidden_message or r.other_message

    def verdict(self, where):
        """'named right', 'misnamed', 'located', 'generic', 'passed', or '-' (no visible check)."""
        r, message = self.result, self.message(where)
        if message is None:
            return "-"
        if not message:
            return "passed"
        values = where == "visible" or r.hidden_message
        if (where in r.wrong) if values else r.other_wrong:
            return "misnamed"
        if r.printed.get(where) if values else r.other_printed:
            return "named right"
        return "located" if is_located(message) else "generic"

    def wrong_ids(self, where):
        r = self.result
        return r.wrong.get(where, ()) if where == "visible" or r.hidden_message else r.other_wrong

    @property
    def visible_pass_hidden_fail(self):
        return self.result.visible == "" and bool(self.message("hidden"))

    @property
    def undetected(self):
        return not self.result.visible and not self.message("hidden")


def measure(mutant, bound=BOUND_S):
    """Evaluate one mutant (tests.mutants.evaluate), its runs bounded by `bound` seconds."""
    began = time.perf_counter()
    try:
        with _bounded(bound):
            result = evaluate(mutant, cells=True)  # the notebook's visible cell, as learners see it
    except TimedOut:
        return Measured(Result(mutant), time.perf_counter() - began, timed_out=True)
    return Measured(result, time.perf_counter() - began)


# ------------------------------------------------------------------ the table

CLASSES = ("named right", "located", "generic", "misnamed")


def table(units):
    """Print the learner-style table for `units`; return 1 when a check misnames a mutant, else 0."""
    start, everything, notes = time.perf_counter(), [], []
    print(f"{'unit':<28} {'mutants':>7} {'behav':>5} {'equiv':>5} {'unbuilt':>7} "
          + " ".join(f"{c + ' vis/hid':>19}" for c in CLASSES) + f" {'vis-pass hid-fail':>17} {'undetected':>10}  seconds")
    for unit in units:
        began = time.perf_counter()
        judge_of(unit)  # the reference's outcomes, once per unit: not counted in a mutant's seconds
        measured = [measure(m) for m in mutants(unit)]
        everything += measured
        print(_row(unit, measured, time.perf_counter() - began), flush=True)
        notes += _notes(unit, measured)
    print("\n".join(["", "notes:", *notes]))
    print(_operator_table(everything))
    print("\nslowest mutants:")
    for m in sorted(everything, key=lambda m: -m.seconds)[:10]:
        print(f"  {m.seconds:6.1f} s  {m.mutant.unit}: {m.mutant.operator}#{m.mutant.occurrence} {m.mutant.change}")
    print(_totals(everything, time.perf_counter() - start))
    return 1 if any(m.verdict(w) == "misnamed" for m in everything for w in ("visible", "hidden")) else 0


def _counts(measured):
    """class -> 'visible/hidden' counts over the behaviour-changing mutants, and the two row classes."""
    changing = [m for m in measured if m.changes_behaviour]
    has_visible = any(m.result.visible is not None for m in changing)
    cells = {c: f"{sum(m.verdict('visible') == c for m in changing) if has_visible else '-'}/"
                f"{sum(m.verdict('hidden') == c for m in changing)}" for c in CLASSES}
    return changing, cells, (sum(m.visible_pass_hidden_fail for m in changing) if has_visible else "-"), \
        sum(m.undetected for m in changing)


def _row(unit, measured, seconds):
    built = [m for m in measured if not m.result.error and not m.timed_out]
    changing, cells, vphf, undetected = _counts(measured)
    return (f"{unit:<28} {len(measured):>7} {len(changing):>5} {len(built) - len(changing):>5} "
            f"{len(measured) - len(built):>7} " + " ".join(f"{cells[c]:>19}" for c in CLASSES)
            + f" {vphf:>17} {undetected:>10}  {seconds:.1f}")


def _notes(unit, measured):
    """One line per mutant worth a look: not built, timed out, equivalent, misnamed, let through."""
    lines = []
    for m in measured:
        r, where = m.result, f"  {unit}: {m.mutant.operator}#{m.mutant.occurrence} {m.mutant.change}"
        if m.timed_out:
            lines.append(f"{where}: TIMED OUT after {m.seconds:.0f} s")
        elif r.error:
            lines.append(f"{where}: not built ({r.error})")
        elif not r.changes_behaviour:
            lines.append(f"{where}: equivalent: {why_equivalent(m.mutant)}")
        else:
            if r.changes_behaviour and not r.hidden and r.other_aspects:
                lines.append(f"{where}: passes the hidden values check; failed by {', '.join(r.other_aspects)}")
            for side in ("visible", "hidden"):
                if m.verdict(side) == "misnamed":
                    lines.append(f"{where}: MISNAMED {side} [{'+'.join(m.wrong_ids(side))}]: {_first_line(m, side)}")
            if m.visible_pass_hidden_fail:
                lines.append(f"{where}: passes the visible test, fails the hidden: {_first_line(m, 'hidden')}")
            if m.undetected:
                lines.append(f"{where}: UNDETECTED by both")
    return lines


def _first_line(measured, where):
    return (measured.message(where) or "").splitlines()[0]


def _operator_table(measured):
    lines = ["", f"{'operator':<16} {'mutants':>7} {'behav':>5} " + " ".join(f"{c + ' vis/hid':>19}" for c in CLASSES)
             + f" {'vis-pass hid-fail':>17} {'undetected':>10}"]
    for name in OPERATORS:
        mine = [m for m in measured if m.mutant.operator == name]
        changing, cells, vphf, undetected = _counts(mine)
        lines.append(f"{name:<16} {len(mine):>7} {len(changing):>5} " + " ".join(f"{cells[c]:>19}" for c in CLASSES)
                     + f" {vphf:>17} {undetected:>10}")
    return "\n".join(lines)


def _totals(measured, seconds):
    changing = [m for m in measured if m.changes_behaviour]
    lines = [f"\n{len(measured)} learner-style mutants; {len(changing)} change behaviour; {seconds:.0f} s"]
    for side in ("visible", "hidden"):
        judged = [m for m in changing if m.verdict(side) != "-"]
        named = sum(m.verdict(side) == "named right" for m in judged)
        located = sum(m.verdict(side) == "located" for m in judged)
        lines.append(f"  {side:<7} ({len(judged)} judged): named right {_pct(named, judged)}, located "
                     f"{_pct(located, judged)}, named right + located {_pct(named + located, judged)}, misnamed "
                     f"{sum(m.verdict(side) == 'misnamed' for m in judged)}")
    lines.append(f"  visible pass, hidden fail: {sum(m.visible_pass_hidden_fail for m in changing)}; undetected by "
                 f"both: {sum(m.undetected for m in changing)}")
    return "\n".join(lines)


def _pct(count, of):
    return f"{100 * count / len(of):.0f}%" if of else "-"


def main(units):
    return table(units or list(UNIT_NAMES))
