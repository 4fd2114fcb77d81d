"""Your progress at a glance: which units of the course pass their visible test, in your workspace.

    python -m learner_kit.progress [WORKSPACE]          (make progress)

    from learner_kit.progress import show_progress      (in a notebook: the table for the whole course,
    show_progress()                                      made in a separate process)

For every notebook of the workspace (one folder per assignment, 01-attention/01-attention.ipynb,
...) and every unit in it (each answer cell, named by its nbgrader grade_id), the unit's visible
test cell is run on your saved notebook, as the notebook would run it: first the notebook's
provided code, its imports, functions and classes (its experiments, prints and figures are
skipped), and your answer cells, then the test cell. Nothing is written anywhere. The notebooks
are read as saved on disk: save (Ctrl+S) to count what you typed since.

Each unit gets one of: passed; not started (a blank is left); the first line of the test's
message, which names the mistake ([sdpa-no-scale] ...); why it could not run.

The table speaks the language that set_language chose, else that of the workspace's notebooks
(their "course_language" metadata; the first one found decides).
"""
import ast
import contextlib
import io
import json
import linecache
import os
import signal
import subprocess
import sys
import threading
import time
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

from learner_kit import i18n, live
from learner_kit.i18n import tr

PRELUDE = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
CHEAP_CALLS = {"set", "dict", "list", "tuple", "frozenset", "range", "int", "float", "str", "bool", "len",
               "torch.tensor", "torch.ones", "torch.zeros", "torch.arange", "torch.full", "torch.eye", "torch.device"}
CELL_TIMEOUT_S = 20  # one cell of yours that runs longer counts as failed (an endless loop stops nothing else)

PASSED, NOT_STARTED, FAILING, MISSING = "passed", "not started", "failing", "missing"


@dataclass(frozen=True)
class UnitProgress:
    assignment: str
    unit: str
    status: str  # PASSED, NOT_STARTED, FAILING or MISSING
    detail: str = ""  # for FAILING and MISSING: the first line of the message, or why


class ProgressCellTimedOut(Exception):
    """Raised by ``_time_limit``'s alarm: a cell run for the progress table went past its time (CELL_TIMEOUT_S)."""


def find_workspace(start=None) -> Path:
    """The folder that holds the course's notebooks: ``start`` (default: here) or its parent.

    From a notebook (workspace/01-attention/) that is the parent; from the repository, workspace/.
    """
    start = Path(start or os.getcwd()).resolve()
    for candidate in (start, start / "workspace", start.parent):
        if notebooks(candidate):
            return candidate
    return start


def notebooks(workspace) -> list[Path]:
    """The course's notebooks in ``workspace``: <id>/<id>.ipynb, in course order."""
    workspace = Path(workspace)
    if not workspace.is_dir():
        return []
    return [folder / f"{folder.name}.ipynb" for folder in sorted(workspace.iterdir())
            if folder.is_dir() and not folder.name.startswith(".") and (folder / f"{folder.name}.ipynb").is_file()]


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def definitions_only(source):
    """What a test may rely on in an ordinary cell: its top-level imports, functions and classes, and
    its cheap assignments (`passed = set()`, `tokens = [...]`, `X = torch.tensor(...)`); its
    experiments, prints, figures and training are skipped."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    kept = [node for node in tree.body if isinstance(node, DEFINITIONS) or _cheap_assignment(node)]
    return ast.unparse(ast.Module(body=kept, type_ignores=[]))


def _cheap_assignment(node):
    """An assignment whose value calls nothing but constructors of containers and small tensors."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    for inner in ast.walk(node.value):
        if isinstance(inner, ast.Call) and ast.unparse(inner.func) not in CHEAP_CALLS:
            return False
        if isinstance(inner, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.ListComp,
                              ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
    return True


def plan(cells):
    """[(kind, name, source)] to run for one notebook: "code" and "answer" cells, then "test" for each unit.

    An answer cell is a solution cell (its grade_id is its unit); a unit's test is the graded
    cell whose grade_id is "<unit>-visible". Ordinary cells keep only their definitions.
    """
    steps = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        meta, source = _nbgrader(cell), _source(cell)
        grade_id = str(meta.get("grade_id") or "")
        if meta.get("solution"):
            steps.append(("answer", grade_id, source))
        elif meta.get("grade"):
            if grade_id.endswith("-visible"):
                steps.append(("test", grade_id[: -len("-visible")], source))
        elif meta.get("locked"):
            steps.append(("code", grade_id, source))
        else:
            steps.append(("code", "", definitions_only(source)))
    return steps


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise ProgressCellTimedOut in the code run inside after ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def stop(signum, frame):
        raise ProgressCellTimedOut()

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _run(source, namespace, label, timeout):
    """Run one cell quietly: None, or the first line of what stopped it."""
    linecache.cache[label] = (len(source), None, source.splitlines(True), label)  # so errors can quote your line
    try:
        # live.quiet(): the table's test runs are not the learner's, and go to no class's live view
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), _time_limit(timeout), \
                live.quiet():
            exec(compile(source, label, "exec"), namespace)
        return None
    except ProgressCellTimedOut:
        return tr("TimeoutError: the cell ran longer than {timeout} s", timeout=timeout)
    except NotImplementedError:
        return "[not-implemented]"
    except BaseException as error:  # your code may raise anything, SystemExit included
        if isinstance(error, KeyboardInterrupt):
            raise
        text = str(error).strip()
        first = text.splitlines()[0] if text else ""
        if isinstance(error, AssertionError) and first:
            return first
        return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _without_magics(source):
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def notebook_progress(path, timeout=CELL_TIMEOUT_S):
    """[UnitProgress] for every unit of one notebook (read from disk, run in a fresh namespace)."""
    path = Path(path)
    assignment = path.parent.name
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [UnitProgress(assignment, tr("(notebook)"), MISSING,
                             tr("cannot read {name}: {error_type}", name=path.name, error_type=type(error).__name__))]
    namespace = {"__name__": "__main__"}
    exec(PRELUDE, namespace)
    answers, results = {}, []
    here = os.getcwd()
    try:
        os.chdir(path.parent)  # as the notebook runs: files it reads are beside it
        for number, (kind, name, source) in enumerate(plan(cells)):
            label = f"<{assignment}: cell {number}, {kind} {name}>"
            if kind == "test":
                if name not in answers:
                    results.append(UnitProgress(assignment, name, MISSING, tr("its answer cell is missing")))
                    continue
                failure = answers[name] or _run(_without_magics(source), namespace, label, timeout)
                results.append(_verdict(assignment, name, failure))
            else:
                failure = _run(_without_magics(source), namespace, label, timeout)
                if kind == "answer":  # a cell that stops is what its test reports
                    answers[name] = (failure if failure is None or failure.startswith("[") else
                                     tr("its cell stopped: {failure}", failure=failure))
    finally:
        os.chdir(here)
    return results


def _verdict(assignment, unit, failure):
    if failure is None:
        return UnitProgress(assignment, unit, PASSED)
    if failure.startswith("[not-implemented]"):
        return UnitProgress(assignment, unit, NOT_STARTED)
    return UnitProgress(assignment, unit, FAILING, failure)


def course_progress(workspace=None, timeout=CELL_TIMEOUT_S):
    """[UnitProgress] for every unit of every notebook in ``workspace`` (found with find_workspace)."""
    workspace = find_workspace(workspace)
    results = []
    for path in notebooks(workspace):
        results.extend(notebook_progress(path, timeout))
    return results


def table_language(workspace=None):
    """The language of the table: the one set_language chose, else that of the workspace's first notebook."""
    if i18n.chosen_language() is not None:  # set_language was called (in a notebook: its set-up cell)
        return i18n.chosen_language()
    for path in notebooks(find_workspace(workspace)):
        try:
            return i18n.notebook_language(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return i18n.language()


def _width(text):
    """How many columns `text` takes in a terminal: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _padded(text, width):
    return text + " " * (width - _width(text))


def _clipped(text, width):
    """`text` cut to `width` columns, ending with '…' where it was cut."""
    if _width(text) <= width:
        return text
    kept = ""
    for c in text:
        if _width(kept + c) > width - 1:
            break
        kept += c
    return kept + "…"


def format_table(results, detail_width=64):
    """The results as a plain-text table, one line per unit, and a count at the end."""
    if not results:
        return tr("No notebooks found: run `make lab` first (it copies the course into workspace/).")
    marks = {PASSED: tr("✓ passed"), NOT_STARTED: tr("· not started"), FAILING: tr("✗ failing"),
             MISSING: tr("? missing")}
    heading_notebook, heading_unit, heading_test = tr("notebook"), tr("unit"), tr("visible test")
    notebook_width = max(_width(heading_notebook), *(_width(r.assignment) for r in results))
    unit_width = max(_width(heading_unit), *(_width(r.unit) for r in results))
    lines = [f"{_padded(heading_notebook, notebook_width)}  {_padded(heading_unit, unit_width)}  {heading_test}",
             "-" * (notebook_width + unit_width + 4 + _width(heading_test))]
    previous = None
    for r in results:
        notebook = r.assignment if r.assignment != previous else ""
        previous = r.assignment
        line = f"{_padded(notebook, notebook_width)}  {_padded(r.unit, unit_width)}  {marks[r.status]}"
        if r.detail:
            line += f": {_clipped(r.detail, detail_width)}"
        lines.append(line)
    passed = sum(r.status == PASSED for r in results)
    lines.append(tr("{passed} of {total} units pass their visible test.", passed=passed, total=len(results)))
    return "\n".join(lines)


class ProgressResults(list):
    """show_progress's results: a list of UnitProgress that a notebook does not echo under the table it printed."""

    def _ipython_display_(self):  # IPython's hook for the value of a cell's last line: nothing more to show
        pass


def show_progress(workspace=None, timeout=CELL_TIMEOUT_S, in_process=False):
    """Print the table of the course's units and whether each passes its visible test; return the results.

    From a notebook the notebooks run in a separate Python process (`python -m learner_kit.progress`),
    so that nothing they do (a seed, an endless loop) touches your kernel; ``in_process`` runs them here.
    """
    from learner_kit.plotting import grading

    if grading():  # nbgrader runs the notebook to grade it: the table is the learner's, not the grader's
        return []
    workspace = find_workspace(workspace)
    language = table_language(workspace)
    if in_process:
        with i18n.speaking(language):
            results = course_progress(workspace, timeout)
            print(format_table(results))
        return ProgressResults(results)
    command = [sys.executable, "-m", "learner_kit.progress", str(workspace), "--json", "--language", language]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout * 60)
    with i18n.speaking(language):
        try:
            results = [UnitProgress(**fields) for fields in json.loads(done.stdout)]
        except ValueError:
            print(tr("The progress table could not be made:\n{output}", output=done.stdout[-2000:] + done.stderr[-2000:]))
            return []
        print(format_table(results))
    return ProgressResults(results)


def main(argv=None):
    """`python -m learner_kit.progress [WORKSPACE] [--json] [--language LANG]`: print the table (or its rows as JSON)."""
    args = sys.argv[1:] if argv is None else list(argv)
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    language = None
    if "--language" in args[:-1]:
        at = args.index("--language")
        language, args = args[at + 1], args[:at] + args[at + 2:]
    workspace = Path(args[0]) if args else None
    with i18n.speaking(language or table_language(workspace)):
        if workspace is not None and not notebooks(workspace):
            print(tr("No notebooks in {workspace}/: run `make lab` first (it copies the course there).",
                     workspace=workspace))
            return 1
        started = time.monotonic()
        chosen = "MPLBACKEND" not in os.environ
        os.environ.setdefault("MPLBACKEND", "Agg")  # a figure drawn by a definition goes nowhere
        import torch

        threads = torch.get_num_threads()
        # The visible tests run tiny tensors: PyTorch's thread pool only costs them, most on a busy machine (one
        # thread: about a third less CPU time for a finished workspace, issue 36).
        torch.set_num_threads(1)
        try:
            results = course_progress(workspace)
        finally:
            torch.set_num_threads(threads)
            if chosen:
                os.environ.pop("MPLBACKEND", None)  # as it was (tests call main() in their own process)
        if as_json:
            print(json.dumps([asdict(r) for r in results]))
            return 0
        print(format_table(results))
        print(tr("({seconds:.1f} s; the notebooks as last saved)", seconds=time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
