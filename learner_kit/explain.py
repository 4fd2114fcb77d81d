"""An error raised inside the learner's own code during a test, told as a [runtime-error].

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

A visible test cell calls the learner's unit directly after `visible_problem` (to check
properties of its results). When the learner's code raises there (its own `assert`, a
`ValueError`, a typo), the cell would otherwise fail with the bare exception, and the
grader's feedback, which hides test tracebacks, would show just `AssertionError`:

    with explain_errors(LabelSmoothingLoss):
        loss = LabelSmoothingLoss(7, smoothing=0.0)(log_probs, target)
        assert ..., "the test's own message"

The test's own assertions (raised in the test cell, not in the learner's code) pass through
unchanged, except that for a unit its notebook checks itself (the capstone's), a symptom (wrong
values, an error) is followed by where the learner's computation parts from the reference's on
the notebook's visible case (learner_kit.parting), where that can be said for sure.
"""
import contextlib
import re

from learner_kit import harness, live
from learner_kit.i18n import tr
from learner_kit.messages import TestFailed, format_message


@contextlib.contextmanager
def explain_errors(*units):
    """Turn an exception that passed through the code of `units` into a [runtime-error] AssertionError; a symptom
    of a unit its notebook checks itself also says where the unit parts from the reference.

    In a notebook cell the outcome (the first check that failed, its id; else passed) is the cell's test run of
    the first unit, which goes to the class's live view on the JupyterHub once the cell ends (learner_kit.live)."""
    name = str(getattr(units[0], "__name__", "")) if units else ""
    try:
        with _explained(units):
            yield
    except Exception as error:
        live.tested_in_cell(name, live.outcome_of(error))
        raise
    live.tested_in_cell(name, live.PASSED)


@contextlib.contextmanager
def _explained(units):
    try:
        yield
    except Exception as error:
        for unit in units:
            harness.mark_learner_line(error, unit)
            if getattr(error, "learner_line", ""):  # raised in the learner's code (its own `assert` too)
                message = format_message("runtime-error", harness.describe_error(error))
                where = _where_it_parts(units, message)
                raise TestFailed(f"{message}\n{where}" if where else message) from None
        if isinstance(error, AssertionError):  # the test's own assertion: its message, and where, if known
            where = _where_it_parts(units, str(error))
            if where:
                raise TestFailed(f"{error}\n{where}") from None
        raise


def _where_it_parts(units, message):
    """The located sentence for the first of `units` that its notebook checks itself, when `message` states a
    symptom and says nothing of where yet; else ''."""
    from learner_kit import parting
    from learner_kit.locate import LOCATABLE_IDS, is_located

    shown = re.match(r"\[([a-z0-9-]+)\]", message)
    if shown is None or shown.group(1) not in LOCATABLE_IDS or is_located(message):
        return ""
    for unit in units:
        fingerprint = parting.load_runs(str(getattr(unit, "__name__", "")))
        if fingerprint is None:
            continue
        try:  # a property can fail where the stored cases' results agree: say where the computation parts, if it does
            return parting.where_it_parts(fingerprint, unit, results_may_agree=shown.group(1) == "property-violated")
        except Exception:  # noqa: BLE001 - saying where is a courtesy: the check's own message stands without it
            return ""
    return ""


# ---------------------------------------------------------------- an answer cell that Python could not read
# A cell with a SyntaxError defines nothing: the test below then says `NameError: name 'Encoder' is not
# defined` (first run) or judges the definition an earlier run left ([not-implemented] for the blank).
# IPython keeps every cell it was asked to run (`In`), readable or not: the latest cell that defines the
# unit tells whether the unit's answer cell ran.


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _defines(source, name):
    return re.search(rf"^(?:class|def)\s+{re.escape(name)}\b", source, flags=re.MULTILINE) is not None


def unrun_answer(name, shell=None):
    """The course's message when the last cell run that defines `name` (class or def) could not be read by Python
    (a SyntaxError), else ''. Outside IPython, ''."""
    shell = shell or _shell()
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    if not isinstance(history, list):
        return ""
    source = next((cell for cell in reversed(history) if isinstance(cell, str) and _defines(cell, name)), None)
    if source is None:
        return ""
    try:
        compile(shell.transform_cell(source), "<answer cell>", "exec")
    except SyntaxError as error:
        line = (error.text or "").strip()
        where = (tr("line {number} of that cell, `{line}`", number=error.lineno, line=line) if line else
                 tr("line {number} of that cell", number=error.lineno))
        defined = name in shell.user_ns
        return format_message("runtime-error", tr(
            "The answer cell that defines {name} did not run: Python cannot read it ({kind} at {where}: {why}). "
            "Until it runs, this test judges {what}. Fix that line, run the answer cell, then this test again.",
            name=name, kind=type(error).__name__, where=where, why=error.msg,
            what=tr("the {name} of an earlier run", name=name) if defined else tr("nothing: {name} is not defined", name=name)))
    except Exception:  # noqa: BLE001 - a cell IPython cannot transform: nothing to say here
        return ""
    return ""


def _after_cell(result):
    """IPython's post_run_cell event: after a cell that stopped on a NameError, say so when the name's answer cell
    could not be read (the NameError's traceback stays above it)."""
    error = getattr(result, "error_in_exec", None)
    name = getattr(error, "name", None) if isinstance(error, NameError) else None
    message = unrun_answer(name) if isinstance(name, str) else ""
    if message:
        print(message)


def watch_unrun_answers():
    """In IPython, tell a NameError of a unit whose answer cell could not be read as such (once per kernel)."""
    shell = _shell()
    if shell is not None and _after_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _after_cell)
