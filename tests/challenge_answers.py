"""Right answers of the zoo, submitted in the challenge notebooks: accepted, and no later cell crashes.

    python -m tests.challenge_answers [ID ...] [--lang ko]

For a notebook and one zoo style (tests/zoo/zoo_styles_*.py, ``@right(unit)``) per graded unit, builds the
notebook a learner would submit at the challenge level: the release notebook with each answer cell replaced by
the style's source (its decorator removed, the zoo-module helpers and imports it needs put before it, and
``Unit = StyleName`` when the names differ). Units without a style keep the reference solution (the answer cell
of challenge/solutions). The notebook runs with nbclient, errors allowed, in a temporary copy of its folder;
the report says per cell which crashed (where, which exception) and which visible test cell did not pass.

Run from the command line, every style of every unit runs: run k uses style k of each unit (cycling), and the
table lists the notebook, the run, the styles used, the visible tests passed and the crashes.
"""
import argparse
import ast
import builtins
import inspect
import os
import re
import shutil
import sys
import tempfile
import textwrap
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.paths import assignment_ids, course_dir, solutions_dir
from learner_kit.locales.ko.visible import TRANSLATIONS as KO_VISIBLE
from tests.zoo import load_all

PASSED = {"en": "All visible tests passed for {unit}.", "ko": KO_VISIBLE["All visible tests passed for {unit}."]}
# Styles that are not right answers, with the reason: not run.
EXCLUDED = {
    "AdditiveRowByRowDropoutPerRow": "reads mask.size(-2), so a 1-D mask (L_k,), broadcastable as the contract allows "
                                     "(COURSE.md, conventions), raises IndexError (notebook 09's figure passes one); "
                                     "no check passes a mask of fewer than two axes",
}


def _rights():
    """({unit: [style candidates]} in the zoo's order, {candidate: unit})."""
    _, rights = load_all()
    styles = {}
    for specimen in rights:
        if specimen.candidate.__module__.split(".")[-1].startswith("zoo_styles_"):
            styles.setdefault(specimen.unit, []).append(specimen.candidate)
    return styles, {specimen.candidate: specimen.unit for specimen in rights}


STYLES, UNIT_OF = _rights()
UNITS = set(STYLES)


def answer_cells(nb):
    """{unit: cell} of the notebook's answer cells."""
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}


def units_of(assignment, lang="en"):
    return list(answer_cells(_release(assignment, lang)))


def _release(assignment, lang="en"):
    return nbformat.read(course_dir(lang, "challenge") / assignment / f"{assignment}.ipynb", as_version=4)


# ------------------------------------------------------------------ a style's source


def _without_decorator(source):
    """The source with its @right(...) decorator line(s) removed."""
    tree = ast.parse(source)
    node = tree.body[0]
    lines = source.splitlines()
    first = node.decorator_list[0].lineno - 1 if node.decorator_list else node.lineno - 1
    kept = [line for i, line in enumerate(lines) if i < first or i >= node.lineno - 1]
    return "\n".join(kept) + "\n"


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _global_names(obj):
    """Names a function or class may read from its module (a superset: attribute names are in co_names too)."""
    if inspect.isfunction(obj):
        return _code_names(obj.__code__)
    names = set()
    for base in obj.__bases__:
        names.add(base.__name__)
    for value in vars(obj).values():
        value = getattr(value, "__func__", value)
        if isinstance(value, property):
            value = value.fget
        if inspect.isfunction(value):
            names |= _code_names(value.__code__)
    # names in decorators and class-level expressions
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(obj)))):
        if isinstance(node, ast.Name):
            names.add(node.id)
    return names


class Unusable(Exception):
    """The style needs something of its zoo module that cannot be put in a notebook cell."""


def style_source(unit, style, notebook_units=()):
    """The answer cell's source for `style` as the answer of `unit`; raises Unusable with the reason.

    A helper that is itself a zoo answer to another unit of the same notebook (`notebook_units`) becomes that
    unit, as the learner would write it: `AdditiveRowByRow = AdditiveAttention` instead of the zoo's class."""
    imports, blocks, seen = [], [], set()

    def add(obj):
        if obj in seen:
            return
        seen.add(obj)
        module = sys.modules[obj.__module__]
        for name in sorted(_global_names(obj)):
            if name not in vars(module) or name in vars(builtins):
                continue
            if name in ("UNIT", "right", "bug"):
                continue  # the zoo's registration, removed with the decorator
            if name in UNITS and name != obj.__name__:
                continue  # a graded unit: the notebook's own (provided, or the learner's answer)
            value = vars(module)[name]
            if isinstance(value, types.ModuleType):
                imports.append(f"import {value.__name__}" + (f" as {name}" if name != value.__name__ else ""))
                continue
            if value is obj:
                continue
            if inspect.isfunction(value) or inspect.isclass(value):
                home = getattr(value, "__module__", "") or ""
                if UNIT_OF.get(value) in notebook_units and UNIT_OF[value] != unit:
                    blocks.append(f"{name} = {UNIT_OF[value]}\n")
                elif home.startswith("tests.zoo"):
                    add(value)
                    if name != value.__name__:
                        blocks.append(f"{name} = {value.__name__}\n")
                elif home.startswith(("tests", "autograder")):
                    raise Unusable(f"needs {name} from {home}, which a learner's notebook does not have")
                else:
                    imports.append(f"from {home} import {value.__qualname__}"
                                   + (f" as {name}" if name != value.__qualname__ else ""))
                continue
            if isinstance(value, (int, float, str, bool, tuple)):
                blocks.append(f"{name} = {value!r}\n")
                continue
            raise Unusable(f"needs the module-level {name} ({type(value).__name__}) of {obj.__module__}")
        blocks.append(_without_decorator(textwrap.dedent(inspect.getsource(obj))))

    add(style)
    if style.__name__ != unit:
        blocks.append(f"{unit} = {style.__name__}\n")
    head = "\n".join(dict.fromkeys(imports))
    return (head + "\n\n\n" if head else "") + "\n\n".join(blocks)


# ------------------------------------------------------------------ running a notebook


@dataclass
class Result:
    assignment: str
    lang: str
    run: int
    styles: dict  # unit -> style name ("reference" when none)
    skipped: dict = field(default_factory=dict)  # unit -> why its style was not used
    visible: dict = field(default_factory=dict)  # grade id of a visible test cell -> passed
    crashes: list = field(default_factory=list)  # (cell index, grade id or first line, ename, first lines)
    seconds: float = 0.0
    notebook: object = None  # the executed notebook, outputs and all

    @property
    def ok(self):
        return not self.crashes and all(self.visible.values())

    def problems(self):
        lines = [f"cell {i} ({where}): {ename}\n{text}" for i, where, ename, text in self.crashes]
        lines += [f"visible test {gid} did not print its pass line" for gid, ok in self.visible.items() if not ok]
        return lines


def submitted(assignment, choice, lang="en"):
    """(notebook, styles used, skipped): the release notebook with `choice` ({unit: style}) in its answer cells."""
    nb = _release(assignment, lang)
    units = list(answer_cells(nb))
    reference = answer_cells(nbformat.read(solutions_dir(lang, "challenge") / assignment / f"{assignment}.ipynb",
                                           as_version=4))
    used, skipped = {}, {}
    for unit, cell in answer_cells(nb).items():
        style = choice.get(unit)
        source = None
        if style is not None:
            try:
                source = style_source(unit, style, units)
                used[unit] = style.__name__
            except Unusable as reason:
                skipped[unit] = f"{style.__name__}: {reason}"
                print(f"skipped {unit} style {style.__name__}: {reason}")
        if source is None:
            source = reference[unit].source
            used[unit] = "reference"
        cell.source = source
    return nb, used, skipped


def _first_line(source):
    return next((line for line in source.splitlines() if line.strip()), "")[:60]


def execute(assignment, choice, lang="en", run=0, timeout=600):
    """Run the submitted notebook; a Result says what crashed and which visible tests passed."""
    nb, used, skipped = submitted(assignment, choice, lang)
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / assignment
            shutil.copytree(course_dir(lang, "challenge") / assignment, folder)
            NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                           resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    result = Result(assignment, lang, run, used, skipped, seconds=time.perf_counter() - start, notebook=nb)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                trace = "\n".join(re.sub(r"\x1b\[[0-9;]*m", "", line) for line in output.traceback)
                result.crashes.append((index, grade_id or _first_line(cell.source), output.ename,
                                       "\n".join(trace.splitlines()[-6:])))
        if grade_id.endswith("-visible"):
            unit = grade_id[: -len("-visible")]
            text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")
            result.visible[grade_id] = PASSED[lang].format(unit=unit) in text
    return result


def choice_for(units, k):
    """Style k of every unit (cycling), minus the excluded ones."""
    choice = {}
    for unit in units:
        styles = [s for s in STYLES.get(unit, []) if s.__name__ not in EXCLUDED]
        if styles:
            choice[unit] = styles[k % len(styles)]
    return choice


def runs_needed(units):
    return max([len(STYLES.get(u, [])) for u in units] + [1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="notebook ids (default: all)")
    parser.add_argument("--lang", default="en", choices=("en", "ko"))
    args = parser.parse_args(argv)
    ids = args.assignments or assignment_ids(args.lang, "challenge")
    results, start = [], time.perf_counter()
    for assignment in ids:
        units = units_of(assignment, args.lang)
        for k in range(runs_needed(units)):
            result = execute(assignment, choice_for(units, k), args.lang, run=k)
            results.append(result)
            passed = sum(result.visible.values())
            styles = ", ".join(f"{u}={s}" for u, s in result.styles.items())
            print(f"{assignment:24} run {k:2}  visible {passed}/{len(result.visible)}  crashes {len(result.crashes)}"
                  f"  {result.seconds:5.1f}s  {styles}", flush=True)
            for problem in result.problems():
                print(textwrap.indent(problem, "      "), flush=True)
    bad = [r for r in results if not r.ok]
    print(f"\n{len(results)} runs, {len(bad)} with a problem, {time.perf_counter() - start:.0f} s wall")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
