"""Build the nbgrader source notebooks in solutions/ from their Markdown sources in notebooks/.

    python -m autograder.build_notebooks [ASSIGNMENT_ID ...] [--lang ko] [--no-execute]

A source ``notebooks/<id>.md`` is prose with fenced code blocks. Prose between code
blocks becomes one Markdown cell; a line ``+++`` splits prose into several cells.
The fence's info string says what a code block is:

    ```python                        an ordinary code cell
    ```python answer UNIT            the answer cell of graded unit UNIT, with
                                     ### BEGIN SOLUTION / ### END SOLUTION blanks
    ```python test GRADE_ID POINTS   a graded test cell (GRADE_ID starts with "UNIT-")
    ```python provided UNIT ...      read-only code: the units' definitions, copied
                                     from autograder.reference (leave the block empty)

Provided code comes from the reference, so changing a building block in
autograder/reference.py changes every later notebook that uses it on the next build.
The built notebook is executed (so solutions/ keeps the outputs nbval compares) and
written to ``solutions/<id>/<id>.ipynb``.

Another edition (``--lang ko``) is built the same way from ``notebooks/ko/<id>.md`` into
``ko/solutions/<id>/<id>.ipynb``: the same code cells, graded cells and grade ids (tests/test_editions.py),
prose, comments and messages in its language. The notebook's metadata says its language
(``course_language``), which the grader reads to give feedback in it.
"""
import argparse
import inspect
import re
import sys
import nbformat
from nbclient import NotebookClient

from autograder import reference
from autograder.paths import EDITIONS, ROOT, solutions_dir, sources_dir
from learner_kit.i18n import METADATA_KEY

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
FENCE = re.compile(r"^```(?P<info>python[^\n]*)\n(?P<code>.*?)^```[ \t]*$", re.M | re.S)


PROVIDED_HEADER = {
    "en": "# Provided: your earlier notebooks' units, as the reference writes them.\n",
    "ko": "# 제공된 코드: 앞선 노트북에서 여러분이 만든 단위들을 참조 구현 그대로 옮겨 왔습니다.\n",
}


def provided_source(unit_names, lang="en"):
    """The reference definitions of ``unit_names``, with the imports they need."""
    header = PROVIDED_HEADER[lang]
    header += "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
    bodies = []
    for name in unit_names:
        obj = getattr(reference, name)
        bodies.append(inspect.getsource(obj).rstrip())
    return header + "\n\n" + "\n\n\n".join(bodies)


def _nbgrader(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id, "schema_version": 3}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def code_cell(info, code, index, lang="en"):
    """One code cell from a fence's info string (see the module docstring)."""
    words = info.split()
    kind = words[1] if len(words) > 1 else None
    code = code.rstrip("\n")
    if kind is None:
        return nbformat.v4.new_code_cell(code)
    if kind == "answer":
        (unit,) = words[2:]
        if "### BEGIN SOLUTION" not in code:
            raise ValueError(f"answer cell for {unit} has no ### BEGIN SOLUTION region")
        return nbformat.v4.new_code_cell(code, metadata=_nbgrader(unit, solution=True))
    if kind == "test":
        grade_id, points = words[2], float(words[3])
        return nbformat.v4.new_code_cell(
            code, metadata=_nbgrader(grade_id, grade=True, locked=True, points=int(points) if points.is_integer() else points)
        )
    if kind == "provided":
        return nbformat.v4.new_code_cell(
            provided_source(words[2:], lang), metadata=_nbgrader(f"provided-{index}", locked=True)
        )
    raise ValueError(f"unknown code block kind {kind!r} in fence 'python {' '.join(words[1:])}'")


def markdown_cells(text):
    for chunk in re.split(r"^\+\+\+[ \t]*$", text, flags=re.M):
        if chunk.strip():
            yield nbformat.v4.new_markdown_cell(chunk.strip("\n"))


def parse(markdown, lang="en"):
    """The cells of a Markdown source, in order."""
    cells, position = [], 0
    for match in FENCE.finditer(markdown):
        cells.extend(markdown_cells(markdown[position : match.start()]))
        cells.append(code_cell(match["info"], match["code"], len(cells), lang))
        position = match.end()
    cells.extend(markdown_cells(markdown[position:]))
    return cells


def build(assignment, execute=True, allow_errors=False, lang="en"):
    source = sources_dir(lang) / f"{assignment}.md"
    nb = nbformat.v4.new_notebook(cells=parse(source.read_text(encoding="utf-8"), lang))
    for number, cell in enumerate(nb.cells):
        cell.id = f"cell-{number:03d}"  # stable ids, so a rebuild only changes what changed
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata[METADATA_KEY] = lang
    folder = solutions_dir(lang) / assignment
    folder.mkdir(parents=True, exist_ok=True)
    if execute:
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=allow_errors, resources={"metadata": {"path": str(folder)}}).execute()
        nb.metadata["language_info"] = {"name": "python"}  # keep the file stable across patch versions
    nbformat.validate(nb)
    target = folder / f"{assignment}.ipynb"
    nbformat.write(nb, target)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment ids (default: every notebooks/*.md)")
    parser.add_argument("--no-execute", action="store_true", help="write without running (no outputs)")
    parser.add_argument("--allow-errors", action="store_true", help="keep going past failing cells (drafts only)")
    parser.add_argument("--lang", choices=EDITIONS, default="en", help="the edition to build (default en)")
    args = parser.parse_args(argv)
    sources = sources_dir(args.lang)
    assignments = args.assignments or sorted(p.stem for p in sources.glob("[0-9][0-9]-*.md"))
    for assignment in assignments:
        if not (sources / f"{assignment}.md").exists():
            sys.exit(f"{sources / assignment}.md not found")
        target = solutions_dir(args.lang) / assignment / f"{assignment}.ipynb"
        print(f"building {target.relative_to(ROOT)}", flush=True)
        build(assignment, execute=not args.no_execute, allow_errors=args.allow_errors, lang=args.lang)


if __name__ == "__main__":
    main()
