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
    ```hints UNIT                    the exercise's card: difficulty, time and three hints
                                     (YAML: difficulty 1-3, minutes, idea, shapes, operation),
                                     rendered as a Markdown cell whose hints open one at a time

Provided code comes from the reference, so changing a building block in
autograder/reference.py changes every later notebook that uses it on the next build.
Each notebook is built at two levels (autograder/levels.py): guided, written to
``solutions/<id>/<id>.ipynb``, and challenge, where every function holding a blank is blank
below its docstring, written to ``challenge/solutions/<id>/<id>.ipynb``. Prose for one level
only stands between ``<!-- guided -->`` and ``<!-- /guided -->`` (or ``challenge``). The
challenge notebook's code is the guided one's with wider blanks, so it takes the guided
notebook's outputs instead of being run again (tests/notebooks/test_levels.py checks the code is the same).

The built notebook is executed (so solutions/ keeps the outputs nbval compares) and
written to ``solutions/<id>/<id>.ipynb``.

Another edition (``--lang ko``) is built the same way from ``notebooks/ko/<id>.md`` into
``ko/solutions/<id>/<id>.ipynb``: the same code cells, graded cells and grade ids (tests/notebooks/test_editions.py),
prose, comments and messages in its language. The notebook's metadata says its language
(``course_language``), which the grader reads to give feedback in it.

Every built notebook says it is built (``built_mark``): its metadata ``transformer_course`` names its source
(``built_from``) and says not to edit it, and nbgrader carries that metadata into the release. The maintainers'
copies (solutions/) also show it as their first cell, one line; the release leaves that cell out
(autograder.release), so learners never see it (tests/notebooks/test_built_marks.py).
"""
import argparse
import inspect
import re
import sys
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient

from autograder import reference
from autograder.levels import DEFAULT_LEVEL, LEVEL_KEY, LEVELS, challenge_blank, prose_for, without_markers
from autograder.paths import EDITIONS, ROOT, course_dir, solutions_dir, sources_dir
from learner_kit.i18n import METADATA_KEY

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
FENCE = re.compile(r"^```(?P<info>python[^\n]*)\n(?P<code>.*?)^```[ \t]*$", re.M | re.S)
HINTS_FENCE = re.compile(r"^```hints[ \t]+(?P<unit>\S+)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
HINT_KEYS = ("idea", "shapes", "operation")  # opened in this order, one at a time
# nbval's comment markers (a line `# NBVAL_SKIP` alone) become the cell tags nbval reads the same (`nbval-skip`):
# the learner never sees a line meant for the course's own test run.
NBVAL_MARKER = re.compile(r"^[ \t]*#+[ \t]*NBVAL_(?P<name>[A-Z_]+)[ \t]*(\n|\Z)", re.M)
NBVAL_TAGS = {"SKIP", "IGNORE_OUTPUT", "CHECK_OUTPUT", "RAISES_EXCEPTION"}

CARD_TEXT = {
    "en": {"title": "Exercise: `{unit}`", "difficulty": "difficulty {dots} ({level} of 3)",
           "minutes": "about {minutes} minutes for a first try",
           "idea": "Hint 1: the idea", "shapes": "Hint 2: the shape plan", "operation": "Hint 3: the PyTorch operations",
           "guided": "guided level", "challenge": "challenge level"},
    "ko": {"title": "연습: `{unit}`", "difficulty": "난이도 {dots} (3단계 중 {level})",
           "minutes": "처음이라면 약 {minutes}분",
           "idea": "힌트 1: 아이디어", "shapes": "힌트 2: 모양(shape) 계획", "operation": "힌트 3: 쓸 PyTorch 연산",
           "guided": "안내 단계", "challenge": "도전 단계"},
}
LEVEL_NOTE = {
    "en": {"challenge": "**Challenge level.** Each blank is a whole function body: the signature, the docstring and "
                        "the prose above say what to write. Stuck? The hints under each exercise open one at a time, "
                        "and the guided level of this notebook has smaller blanks."},
    "ko": {"challenge": "**도전 단계.** 빈칸마다 함수 본문 전체를 씁니다. 무엇을 써야 하는지는 시그니처와 독스트링, "
                        "그리고 위의 설명이 알려 줍니다. 막히면 각 연습 아래의 힌트를 하나씩 열어 보세요. "
                        "이 노트북의 안내 단계는 빈칸이 더 작습니다."},
}

BUILT_KEY = "transformer_course"  # the notebook metadata that says where a built notebook comes from
MARK_CELL_ID = "built-from"  # the id of the maintainers' one-line mark, the first cell of solutions/ notebooks
MARK_TEXT = {
    "en": "*Built from `{source}`: do not edit this notebook; edit its source, then `{rebuild}` and `make release`.*",
    "ko": "*`{source}`에서 만든 노트북입니다. 이 파일을 고치지 말고 원본을 고친 뒤 `{rebuild}`, `make release`를 "
          "실행하세요.*",
}


# Colab (https://colab.research.google.com): each notebook opens there from the repository, by the link at its top,
# and its first code cell installs the course's package from the repository, only on Colab (which has torch, numpy,
# matplotlib and IPython already). Where the repository is: pyproject.toml's [project.urls] Repository, the one
# place to change (then rebuild and `make release`); COURSE_SOURCE in the kernel's environment overrides the
# archive the cell installs (tests/learner_kit/test_learner_paths.py points it at a local checkout).
# The link is text, not Colab's badge image: a notebook opened offline (or in the course's lab, which fetches
# nothing from the network) shows no broken image and logs no failed request.
COLAB_TEXT = {"en": "Open in Colab", "ko": "Colab에서 열기"}
COLAB_COMMENT = {
    "en": "# On Google Colab only: install the course's helper package, learner_kit (the tests, figures and hints of\n"
          "# this notebook), from the course's repository. Anywhere else this cell does nothing.\n",
    "ko": "# Google Colab에서만: 이 과정의 도우미 패키지 learner_kit(이 노트북의 테스트, 그림, 힌트)를 과정의\n"
          "# 저장소에서 설치합니다. 다른 곳에서는 아무 일도 하지 않습니다.\n",
}
# The Korean edition's figures need a font with Hangul: the package's extra `ko` brings it (koreanize-matplotlib).
COLAB_REQUIREMENT = {"en": "transformer-course @ {source}", "ko": "transformer-course[ko] @ {source}"}
COLAB_CODE = """\
import importlib.util, os, subprocess, sys

on_colab = "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ
if on_colab and importlib.util.find_spec("learner_kit") is None:
    source = os.environ.get("COURSE_SOURCE", "{archive}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"{requirement}"], check=True)"""


def repository():
    """(the repository's web address, its branch): pyproject.toml's [project.urls] Repository and Branch."""
    import tomllib

    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    return urls["Repository"].rstrip("/"), urls.get("Branch", "main")


def colab_link(assignment, lang="en", level=DEFAULT_LEVEL):
    """Colab's address of the release notebook of ``assignment`` (its edition and level) in the repository."""
    url, branch = repository()
    github = url.removeprefix("https://github.com/")
    path = (course_dir(lang, level) / assignment / f"{assignment}.ipynb").relative_to(ROOT).as_posix()
    return f"https://colab.research.google.com/github/{github}/blob/{branch}/{path}"


def colab_cells(assignment, lang="en", level=DEFAULT_LEVEL):
    """The link that opens the notebook in Colab (a line above its title) and the code cell that installs the
    course's package there."""
    url, branch = repository()
    badge = f"**[{COLAB_TEXT[lang]}]({colab_link(assignment, lang, level)})**"
    code = COLAB_COMMENT[lang] + COLAB_CODE.replace("{archive}", f"{url}/archive/refs/heads/{branch}.zip").replace(
        "{requirement}", COLAB_REQUIREMENT[lang])
    return badge, nbformat.v4.new_code_cell(code)


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


def exercise_card(unit, body, lang="en"):
    """The Markdown of a ```hints fence: the exercise's difficulty and time, and its hints nested so
    that each opens only after the one before it (HTML <details>, which Jupyter and nbconvert render)."""
    try:
        fields = yaml.safe_load(body)
    except yaml.YAMLError as error:
        raise ValueError(f"hints for {unit}: not YAML ({error})") from None
    missing = [key for key in ("difficulty", "minutes", *HINT_KEYS) if not (isinstance(fields, dict) and fields.get(key))]
    if missing:
        raise ValueError(f"hints for {unit}: missing {', '.join(missing)}")
    if fields["difficulty"] not in (1, 2, 3) or not isinstance(fields["minutes"], int):
        raise ValueError(f"hints for {unit}: difficulty is 1, 2 or 3 and minutes a whole number")
    text = CARD_TEXT[lang]
    dots = "●" * fields["difficulty"] + "○" * (3 - fields["difficulty"])
    lines = [" · ".join([f"**{text['title'].format(unit=unit)}**",
                         text["difficulty"].format(dots=dots, level=fields["difficulty"]),
                         text["minutes"].format(minutes=fields["minutes"])]), ""]
    for key in HINT_KEYS:
        lines += [f"<details><summary>{text[key]}</summary>", "", str(fields[key]).strip(), ""]
    lines += ["</details>"] * len(HINT_KEYS)
    return "\n".join(lines)


def render_hints(markdown, lang="en"):
    """The source with each ```hints fence replaced by its exercise card, a Markdown cell of its own."""
    return HINTS_FENCE.sub(lambda m: f"+++\n{exercise_card(m['unit'], m['body'], lang)}\n+++", markdown)


def code_cell(info, code, index, lang="en", level=DEFAULT_LEVEL):
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
        if level == "challenge":
            code = challenge_blank(code)
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


def with_nbval_tags(cell):
    """``cell`` with its nbval marker lines taken out of its source and put in its metadata as nbval's tags."""
    names = [found["name"] for found in NBVAL_MARKER.finditer(cell.source)]
    if not names:
        return cell
    unknown = sorted(set(names) - NBVAL_TAGS)
    if unknown:
        raise ValueError(f"unknown nbval marker {', '.join('NBVAL_' + name for name in unknown)}")
    cell.source = NBVAL_MARKER.sub("", cell.source).rstrip("\n")
    tags = cell.metadata.setdefault("tags", [])
    tags.extend(tag for tag in (f"nbval-{name.lower().replace('_', '-')}" for name in names) if tag not in tags)
    return cell


def markdown_cells(text):
    for chunk in re.split(r"^\+\+\+[ \t]*$", text, flags=re.M):
        if chunk.strip():
            yield nbformat.v4.new_markdown_cell(chunk.strip("\n"))


def parse(markdown, lang="en", level=DEFAULT_LEVEL):
    """The cells of a Markdown source at one level, in order."""
    markdown = render_hints(prose_for(markdown, level), lang)
    cells, position = [], 0
    for match in FENCE.finditer(markdown):
        cells.extend(markdown_cells(markdown[position : match.start()]))
        cells.append(with_nbval_tags(code_cell(match["info"], match["code"], len(cells), lang, level)))
        position = match.end()
    cells.extend(markdown_cells(markdown[position:]))
    return cells


def notebook(assignment, lang="en", level=DEFAULT_LEVEL):
    """The unexecuted notebook of one assignment, edition and level."""
    source = sources_dir(lang) / f"{assignment}.md"
    cells = parse(source.read_text(encoding="utf-8"), lang, level)
    if level in LEVEL_NOTE[lang]:
        cells.insert(1, nbformat.v4.new_markdown_cell(LEVEL_NOTE[lang][level]))
    badge, install = colab_cells(assignment, lang, level)
    cells[0].source = f"{badge}\n\n{cells[0].source}"
    cells.insert(2 if level in LEVEL_NOTE[lang] else 1, install)  # the first code cell: before any import
    nb = nbformat.v4.new_notebook(cells=cells)
    for number, cell in enumerate(nb.cells):
        cell.id = f"cell-{number:03d}"  # stable ids, so a rebuild only changes what changed
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata[METADATA_KEY] = lang
    nb.metadata[LEVEL_KEY] = level
    nb.metadata[BUILT_KEY] = built_mark(assignment, lang)
    nb.cells.insert(0, mark_cell(nb.metadata[BUILT_KEY], lang))  # after the numbering: the other ids stay
    return nb


def built_mark(assignment, lang="en"):
    """The metadata of a built notebook that names its source and says how to change it."""
    source = (sources_dir(lang) / f"{assignment}.md").relative_to(ROOT).as_posix()
    rebuild = f"python -m autograder.build_notebooks --lang {lang} {assignment}"
    return {"built_from": source, "rebuild": rebuild,
            "note": f"Do not edit: this notebook is built from {source}. Edit the source, then run `{rebuild}` "
                    "(both levels) and `make release` (course/)."}


def mark_cell(mark, lang="en"):
    """The one-line Markdown cell that tells a maintainer opening a solutions/ notebook where it comes from."""
    cell = nbformat.v4.new_markdown_cell(MARK_TEXT[lang].format(source=mark["built_from"], rebuild=mark["rebuild"]))
    cell.id = MARK_CELL_ID
    return cell


def take_outputs(nb, executed):
    """Give ``nb`` the outputs of ``executed``, a notebook whose code cells run the same code (another level)."""
    mine = [cell for cell in nb.cells if cell.cell_type == "code"]
    theirs = [cell for cell in executed.cells if cell.cell_type == "code"]
    if len(mine) != len(theirs) or any(without_markers(a.source) != without_markers(b.source) for a, b in zip(mine, theirs)):
        raise ValueError("the levels' code differs: build the guided level first, from the same source")
    for cell, other in zip(mine, theirs):
        cell.outputs, cell.execution_count = other.outputs, other.execution_count


def build(assignment, execute=True, allow_errors=False, lang="en", level=DEFAULT_LEVEL, to=None):
    """Write solutions/<assignment>/<assignment>.ipynb of an edition and level (or <to>/<assignment>/...); the
    challenge level takes the built guided notebook's outputs (same code), so the guided level is built first."""
    nb = notebook(assignment, lang, level)
    folder = Path(to or solutions_dir(lang, level)) / assignment
    folder.mkdir(parents=True, exist_ok=True)
    if level != DEFAULT_LEVEL:
        if execute:
            take_outputs(nb, nbformat.read(solutions_dir(lang) / assignment / f"{assignment}.ipynb", as_version=4))
    elif execute:
        # so that a rebuild changes only what changed: no execution timestamps in the cells' metadata, and a cell's
        # printing as one output per stream however the machine's timing cut it (nbval compares them so too)
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=allow_errors, record_timing=False,
                       coalesce_streams=True, resources={"metadata": {"path": str(folder)}}).execute()
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
    parser.add_argument("--level", choices=(*LEVELS, "both"), default="both",
                        help="the level to build (default both: guided, then challenge from it)")
    args = parser.parse_args(argv)
    levels = LEVELS if args.level == "both" else (args.level,)
    sources = sources_dir(args.lang)
    assignments = args.assignments or sorted(p.stem for p in sources.glob("[0-9][0-9]-*.md"))
    for assignment in assignments:
        if not (sources / f"{assignment}.md").exists():
            sys.exit(f"{sources / assignment}.md not found")
        for level in levels:
            target = solutions_dir(args.lang, level) / assignment / f"{assignment}.ipynb"
            print(f"building {target.relative_to(ROOT)}", flush=True)
            build(assignment, execute=not args.no_execute, allow_errors=args.allow_errors, lang=args.lang, level=level)


if __name__ == "__main__":
    main()
