"""Static hints: what a linter sees in a learner's answer cell, as plain sentences.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

    from learner_kit.static_hints import hints
    hints(cell_source, known_names=namespace)   # ["Line 5: `self.w_q == ...` compares ...", ...]

A failing check says what the unit computes wrong; some mistakes are easier to see in the
text than in the numbers: a comparison written where an assignment was meant
(`self.w_q == nn.Linear(...)`, which fails later as a missing attribute), `super.__init__()`,
a name defined nowhere, a value computed and thrown away. This module runs ruff (pinned in
requirements.txt) on the cell's text and turns each finding into one sentence that names the
line and its code, never the answer. It is only asked when a check fails (learner_kit.visible,
autograder/grading/run/judge.py), and it is quiet: no ruff, a ruff that fails or takes too long,
anything unexpected -> [] and nothing written anywhere (nbgrader zeroes a cell that writes to
stderr). It imports nothing of the autograder.
"""
import ast
import builtins
import functools
import json
import linecache
import os
import re
import subprocess

from learner_kit.i18n import tr

MAX_HINTS = 3
TIMEOUT_S = 3.0
INTRO = "Also, a static look at your code:"  # in English; appendix() says it in the learner's language
# ruff's rules asked for, each turned into a sentence below (ruff 0.17.5: `ruff rule <code>`).
RULES = ("B015", "B018", "F811", "F821", "F823", "F841", "PLE0101")
# Names a notebook has without defining them (IPython's).
NOTEBOOK_NAMES = frozenset({"get_ipython", "display", "In", "Out", "exit", "quit"})
# Tensor methods (and torch / F functions) that return a new tensor and leave their input
# unchanged: a call of one used as a statement throws its result away. ruff's B018 skips every
# call (a call may act), so this is checked here. Never `to`, `float`, `cuda`, ...: on an
# nn.Module those change the module in place and are right as statements.
NEW_TENSOR = frozenset({
    "view", "view_as", "reshape", "reshape_as", "transpose", "permute", "contiguous", "unsqueeze",
    "squeeze", "flatten", "expand", "expand_as", "repeat", "masked_fill", "softmax", "log_softmax",
    "matmul", "bmm", "tril", "triu", "clone", "detach", "sqrt", "exp", "chunk", "split", "narrow",
})
MODULE_NAMES = frozenset({"torch", "F", "torch.nn.functional", "math", "np", "numpy"})
# The order in which findings are shown (the cap keeps the first ones): the likely causes of a
# failure before what is only suspicious.
TIER = {"B015": 0, "super": 0, "F821": 0, "F823": 0, "PLE0101": 0, "B018": 1, "discarded": 1, "F811": 1,
        "dot-T": 1, "F841": 2, "keepdim": 2}
# Reductions that drop the axis they reduce unless keepdim=True keeps it (with size 1).
REDUCTIONS = frozenset({"sum", "mean", "var", "std", "amax", "amin", "logsumexp", "max", "min"})


def hints(source, known_names=()):
    """One plain sentence per finding in ``source`` (at most MAX_HINTS), or [] (no ruff, no finding).

    ``known_names``: names the notebook defines elsewhere (its other cells, its imports), which
    are not reported as undefined.
    """
    try:
        if not isinstance(source, str) or not source.strip():
            return []
        diagnostics = _ruff(source)
        if diagnostics is None:
            return []
        known = set(known_names) | NOTEBOOK_NAMES | set(dir(builtins))
        lines = re.split(r"\r\n|\r|\n", source)  # as ruff counts lines
        found, seen = [], set()
        for tier, row, key, sentence in [*_from_ruff(diagnostics, lines, known), *_from_ast(source)]:
            if key not in seen:
                seen.add(key)
                found.append((tier, row, sentence))
        return [sentence for _, _, sentence in sorted(found, key=lambda f: (f[0], f[1]))[:MAX_HINTS]]
    except Exception:  # a hint is a bonus: it never breaks the check that asked for it
        return []


def appendix(found):
    """The text to append to a failure message: '' for no hints, else a blank line, INTRO and one line each."""
    if not found:
        return ""
    return "".join(["\n\n", tr("Also, a static look at your code:"), *(f"\n- {sentence}" for sentence in found)])


def unit_hints(unit):
    """hints() on the notebook cell that defines ``unit`` (a function or a class), [] when it was not
    defined in a notebook cell (a module's file, exec of a string) or its text cannot be found."""
    try:
        cell = _cell_of(unit)
        return hints(*cell) if cell is not None else []
    except Exception:
        return []


def defined_names(source):
    """The names a cell binds at its top level (imports, functions, classes, assignments, loops, with)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, TypeError):
        return set()
    names = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        else:
            names.update(node.id for node in ast.walk(statement)
                         if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    return names


# ---------------------------------------------------------------- ruff


@functools.lru_cache(maxsize=1)
def _ruff_bin():
    """The ruff executable that comes with the installed ruff package, or None."""
    try:
        from ruff import find_ruff_bin

        return find_ruff_bin()
    except Exception:
        return None


def _ruff(source):
    """ruff's diagnostics (parsed JSON) on ``source``, or None when ruff is missing or fails."""
    executable = _ruff_bin()
    if executable is None:
        return None
    command = [executable, "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
               "--target-version", "py311", "--select", ",".join(RULES), "--stdin-filename", "cell.py", "-"]
    env = {**os.environ, "RAYON_NUM_THREADS": "1", "NO_COLOR": "1"}  # one thread: tiny input, shared machine
    try:
        done = subprocess.run(command, input=source.encode("utf-8"), capture_output=True, timeout=TIMEOUT_S,
                              env=env, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    try:
        diagnostics = json.loads(done.stdout.decode("utf-8"))
    except ValueError:
        return None
    return diagnostics if isinstance(diagnostics, list) else None


def _from_ruff(diagnostics, lines, known):
    """(tier, row, key, sentence) for each diagnostic of a rule this module words."""
    for diagnostic in diagnostics:
        code = diagnostic.get("code")  # None: a syntax error (the check's own message says so)
        if code not in TIER:
            continue
        start, end = diagnostic["location"], diagnostic["end_location"]
        row = int(start["row"])
        text = _text(lines, start, end)
        quoted = re.findall(r"`([^`]+)`", str(diagnostic.get("message", "")))
        name = quoted[0] if quoted else text
        if code == "F821" and name in known:  # defined by another cell of the notebook
            continue
        sentence = _sentence(code, row, text, name, diagnostic)
        if sentence:
            yield TIER[code], row, (code, name) if code in ("F821", "F823") else (code, row), sentence


def _sentence(code, row, text, name, diagnostic):
    if code == "B015":
        return tr("Line {row}: `{text}` compares two values and throws the result away, so nothing is stored; "
                  "to assign, use a single `=`.", row=row, text=text)
    if code == "B018":
        return tr("Line {row}: `{text}` computes a value and throws it away: the line has no effect.",
                  row=row, text=text)
    if code == "F821":
        return tr("Line {row}: `{name}` is defined nowhere, neither in this cell nor earlier in the notebook: "
                  "check its spelling, or where it should come from (another method's variables are not "
                  "visible here).", row=row, name=name)
    if code == "F823":
        return tr("Line {row}: `{name}` is used before this function gives it a value (it is assigned further "
                  "down, which makes it a local variable everywhere in the function).", row=row, name=name)
    if code == "F841":
        return tr("Line {row}: `{name}` gets a value that is never used afterwards; was it meant to be used below?",
                  row=row, name=name)
    if code == "F811":
        first = re.search(r"line (\d+)", str(diagnostic.get("message", "")))
        if first is None:
            return tr("Line {row}: `{name}` is defined a second time, and the first definition is never used: "
                      "only the last one counts.", row=row, name=name)
        return tr("Line {row}: `{name}` is defined a second time, and the first definition (line {first}) is never "
                  "used: only the last one counts.", row=row, name=name, first=first.group(1))
    if code == "PLE0101":
        return tr("Line {row}: `__init__` returns a value here; `__init__` sets up the object and must return None.",
                  row=row)
    return ""


def _text(lines, start, end):
    """The code between ruff's 1-based (row, column) locations (columns count characters), on one line."""
    row, column = int(start["row"]), int(start["column"])
    if not 1 <= row <= len(lines):
        return ""
    line = lines[row - 1]
    if int(end["row"]) == row:
        return _shorten(line[column - 1:int(end["column"]) - 1])
    return _shorten(line[column - 1:].rstrip() + " ...")


def _shorten(text, limit=70):
    return text if len(text) <= limit else text[:limit - 4].rstrip() + " ..."


# ---------------------------------------------------------------- what no ruff rule says


def _from_ast(source):
    """(tier, row, key, sentence) for `super.<x>`, `.T`, a reduction without keepdim, and for arithmetic or a
    new tensor computed and thrown away."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    called = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        # No ruff rule covers `super.__init__()` (the attribute of the built-in type, not of the parent).
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "super"
                and isinstance(node.ctx, ast.Load)):
            text = _segment(source, called.get(id(node), node))
            yield (TIER["super"], node.lineno, ("super", node.lineno),
                   tr("Line {row}: `{text}` looks `{attr}` up on the built-in `super` itself, not on the parent "
                      "class: `super` is a function, to be called first.", row=node.lineno, text=text, attr=node.attr))
        elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            # A UserWarning PyTorch gives once, that the checks silence: on 3 or 4 axes, .T reverses them all.
            text = _segment(source, node)
            yield (TIER["dot-T"], node.lineno, ("dot-T", node.lineno),
                   tr("Line {row}: `{text}` reverses every axis of the tensor, which for a batch of matrices "
                      "(3 or 4 axes) moves the batch axes too: swap only the two axes you mean.",
                      row=node.lineno, text=text))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTIONS
              and (node.args or any(k.arg == "dim" for k in node.keywords))
              and not any(k.arg == "keepdim" for k in node.keywords) and len(node.args) < 2
              and _segment(source, node.func.value) not in MODULE_NAMES):
            text = _segment(source, node)
            yield (TIER["keepdim"], node.lineno, ("keepdim", node.lineno),
                   tr("Line {row}: `{text}` drops the axis it reduces; keepdim=True keeps it (with size 1), so that "
                      "the result still lines up with the tensor it came from, if that is what you need.",
                      row=node.lineno, text=text))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.BinOp):
            # B018 skips arithmetic (an operator may act); `scores / math.sqrt(d_k)` alone never does here.
            yield (TIER["B018"], node.lineno, ("B018", node.lineno),
                   _sentence("B018", node.lineno, _segment(source, node.value), "", {}))
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in NEW_TENSOR):
            call = node.value
            subject = _segment(source, call.func.value) if call.func.value is not None else ""
            row, text, method = node.lineno, _segment(source, call), call.func.attr
            if subject in MODULE_NAMES:  # torch.softmax(x, -1): the function leaves its input unchanged
                sentence = tr("Line {row}: `{text}` computes a new value and throws it away: `{method}` leaves its "
                              "input unchanged.", row=row, text=text, method=method)
            else:
                sentence = tr("Line {row}: `{text}` computes a new value and throws it away: `{method}` leaves "
                              "`{subject}` unchanged.", row=row, text=text, method=method, subject=subject)
            yield TIER["discarded"], node.lineno, ("discarded", node.lineno), sentence


def _segment(source, node):
    """The code of ``node``, on one line (ast's columns count UTF-8 bytes: get_source_segment knows)."""
    first, *rest = (ast.get_source_segment(source, node) or "").splitlines() or [""]
    return _shorten(first.rstrip() + (" ..." if rest else ""))


# ---------------------------------------------------------------- the cell that defines a unit


def _cell_of(unit):
    """(source, the names of its namespace) of the notebook cell where ``unit`` was defined, or None.

    A function's code object names its file (`co_filename`); a class's, through one of its own
    methods (inspect.getsource cannot find a class of `__main__` on Python 3.11). IPython keeps each
    cell's text in linecache under such a name, with no modification time (`mtime` None): only
    those are read, never a module's file.
    """
    function = _own_function(unit)
    if function is None:
        return None
    entry = linecache.cache.get(function.__code__.co_filename)
    if not (isinstance(entry, tuple) and len(entry) >= 3 and entry[1] is None and isinstance(entry[2], list)):
        return None
    source = "".join(entry[2])
    namespace = getattr(function, "__globals__", None)
    return source, (set(namespace) if isinstance(namespace, dict) else set())


def _own_function(unit):
    """``unit`` if it is a plain function, else a function defined in the body of the class ``unit``."""
    if isinstance(unit, type):
        prefix = f"{unit.__qualname__}."
        for value in vars(unit).values():
            value = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            code = getattr(value, "__code__", None)
            if code is not None and getattr(value, "__qualname__", "").startswith(prefix):
                return value
        return None
    code = getattr(unit, "__code__", None)
    return unit if code is not None and hasattr(code, "co_filename") else None
