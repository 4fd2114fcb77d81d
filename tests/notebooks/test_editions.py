"""The Korean edition is the English course in Korean: the same code, blanks and graded cells, no English prose.

Each edition's notebook is built from its own Markdown source (notebooks/<id>.md, notebooks/ko/<id>.md)
by the same builder. Code cells are compared as programs: comments dropped and every string literal
blanked (what a learner reads may be translated; nothing that runs may differ). Solution regions and
hidden tests are compared as code too, so a blank cannot change in one edition only.
"""
import ast
import io
import re
import tokenize

import nbformat
import pytest

from autograder.build_notebooks import notebook, parse
from autograder.paths import EDITIONS, solutions_dir, sources_dir
from learner_kit.i18n import METADATA_KEY

OTHER_EDITIONS = [lang for lang in EDITIONS if lang != "en"]
PAIRS = [(lang, md.stem) for lang in OTHER_EDITIONS for md in sorted(sources_dir(lang).glob("[0-9][0-9]-*.md"))]
ENGLISH_IDS = sorted(md.stem for md in sources_dir("en").glob("[0-9][0-9]-*.md"))
HANGUL = re.compile(r"[\uac00-\ud7a3]")
REGION = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1", re.S)
# Four English words in a row (two letters or more each), in prose or a comment, is an untranslated sentence.
ENGLISH_RUN = re.compile(r"\b[A-Za-z][a-z']+(?:[;:]?\s+[A-Za-z][a-z']+){3,}")
# Names that are English in every edition: the paper's title, people and tools.
KEPT_IN_ENGLISH = ("Attention Is All You Need", "The Annotated Transformer", "Neural Machine Translation by Jointly "
                   "Learning to Align and Translate", "On Layer Normalization in the Transformer Architecture",
                   "YOUR CODE HERE", "YOUR ANSWER HERE", "Add & Norm")


def cells(lang, assignment):
    return parse((sources_dir(lang) / f"{assignment}.md").read_text(encoding="utf-8"), lang)


class _Blank(ast.NodeTransformer):
    """Every string literal the same; an f-string keeps only its expressions, in a fixed order."""

    def visit_Constant(self, node):
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node):
        parts = sorted((self.visit(value.value) for value in node.values if isinstance(value, ast.FormattedValue)),
                       key=ast.dump)
        return ast.Tuple([ast.Constant("f-string"), *parts], ast.Load())


def program(source):
    """A code cell as a program: its syntax tree without comments, string literals blanked."""
    return ast.dump(_Blank().visit(ast.parse(source)))


def code_only(fragment):
    """A fragment of code (a solution region) without comments or blank lines, strings kept."""
    tokens = tokenize.generate_tokens(io.StringIO(fragment).readline)
    kept = [(tok.type, tok.string) for tok in tokens
            if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]
    return kept


def nbgrader(cell):
    meta = dict(cell.metadata.get("nbgrader", {}))
    if meta.get("grade_id", "").startswith("provided-"):
        meta.pop("grade_id")  # numbered by position: checked through the cells' order instead
    return meta


def english_runs(text):
    for kept in KEPT_IN_ENGLISH:
        text = text.replace(kept, "")
    return [run for run in ENGLISH_RUN.findall(text) if len(run) > 14]


def markdown_prose(text):
    """Markdown without what stays English: code, LaTeX, links' targets, HTML tags."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"https?://\S+", " ", text)
    return re.sub(r"<[^>]+>", " ", text)


def comments(source):
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tok.string for tok in tokens if tok.type == tokenize.COMMENT]


def test_every_notebook_has_its_korean_edition():
    korean = sorted(md.stem for md in sources_dir("ko").glob("[0-9][0-9]-*.md"))
    assert korean == ENGLISH_IDS


@pytest.mark.parametrize("lang, assignment", PAIRS)
def test_the_same_cells_in_the_same_order(lang, assignment):
    english, other = cells("en", assignment), cells(lang, assignment)
    assert [c.cell_type for c in other] == [c.cell_type for c in english], "one cell for each cell of the English edition"
    for number, (a, b) in enumerate(zip(english, other)):
        assert nbgrader(b) == nbgrader(a), f"cell {number}: grade id, points or kind differ"


@pytest.mark.parametrize("lang, assignment", PAIRS)
def test_code_cells_are_the_same_program(lang, assignment):
    pairs = [(a, b) for a, b in zip(cells("en", assignment), cells(lang, assignment)) if a.cell_type == "code"]
    for number, (a, b) in enumerate(pairs):
        assert program(b.source) == program(a.source), (
            f"code cell {number} ({nbgrader(a).get('grade_id') or b.source.splitlines()[0][:60]}) differs from "
            "the English edition's in more than comments and strings")


@pytest.mark.parametrize("lang, assignment", PAIRS)
def test_blanks_and_hidden_tests_are_the_same(lang, assignment):
    english = [(kind, code_only(body)) for c in cells("en", assignment) for kind, body in REGION.findall(c.source)]
    other = [(kind, code_only(body)) for c in cells(lang, assignment) for kind, body in REGION.findall(c.source)]
    assert len(other) == len(english) and other == english


@pytest.mark.parametrize("lang, assignment", PAIRS)
def test_the_notebook_speaks_its_language(lang, assignment):
    code = "\n".join(c.source for c in cells(lang, assignment) if c.cell_type == "code")
    assert f'set_language("{lang}")' in code, "the set-up cell sets the language of the learner's messages"
    english = "\n".join(c.source for c in cells("en", assignment) if c.cell_type == "code")
    assert 'set_language("en")' in english


@pytest.mark.parametrize("lang, assignment", PAIRS)
def test_no_english_prose_is_left(lang, assignment):
    left = []
    for number, cell in enumerate(cells(lang, assignment)):
        if cell.cell_type == "markdown":
            left += [f"cell {number}: {run!r}" for run in english_runs(markdown_prose(cell.source))]
        elif not cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("provided-"):
            source = REGION.sub("", cell.source) if "HIDDEN TESTS" in cell.source else cell.source
            left += [f"cell {number}, comment: {run!r}" for comment in comments(source)
                     if not HANGUL.search(comment) for run in english_runs(comment)]
            left += [f"cell {number}, string: {run!r}" for text in strings_shown(source)
                     if not HANGUL.search(text) for run in english_runs(text)]
    assert left == [], f"{len(left)} English passages in the {lang} edition:\n" + "\n".join(left[:30])


def strings_shown(source):
    """The literal text of print(...) calls, f-strings and messages: what a learner reads."""
    shown = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            shown.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in ("print", "format_message", "AssertionError", "set_title", "set_xlabel", "set_ylabel",
                        "title", "xlabel", "ylabel", "suptitle", "text", "annotate", "legend"):
                shown += [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return shown


@pytest.mark.parametrize("lang, assignment", [("en", a) for a in ENGLISH_IDS] + PAIRS)
def test_the_built_notebook_is_its_source(lang, assignment):
    """solutions/ (and ko/solutions/) are built from the Markdown, never edited: one source of truth."""
    path = solutions_dir(lang) / assignment / f"{assignment}.ipynb"
    assert path.is_file(), f"{path} is missing: python -m autograder.build_notebooks --lang {lang} {assignment}"
    built = nbformat.read(path, as_version=4)
    assert [c.source for c in built.cells] == [c.source for c in notebook(assignment, lang).cells], (
        f"{path} is not what notebooks/ builds: rebuild it (python -m autograder.build_notebooks --lang {lang} {assignment})")
    assert built.metadata.get(METADATA_KEY) == lang


def test_the_checks_catch_a_changed_program():
    """The comparison is not blind: a changed operator, a translated name or a moved expression differ."""
    same = 'x = f"{a} of {b}"  # one\nprint("hello world")'
    assert program(same) == program('x = f"{b}의 {a}"  # 하나\nprint("안녕")')
    assert program(same) != program('x = f"{a} of {b}"\nprint("hello", "world")')
    assert program("y = a + b") != program("y = a - b")
    assert program("def f(query): pass") != program("def f(쿼리): pass")
    assert english_runs(markdown_prose("이것은 `the code stays as it is` 입니다. $a + b = c$")) == []
    assert english_runs("이것은 번역되지 not translated at all here 입니다") != []


@pytest.mark.parametrize("lang", OTHER_EDITIONS)
def test_the_glossary_goes_out_with_the_notebooks(lang):
    from autograder.paths import course_dir
    from autograder.release import GLOSSARY

    source = sources_dir(lang) / GLOSSARY
    assert source.is_file(), "each edition has a glossary page: its term, the English one and the paper's symbol"
    text = source.read_text(encoding="utf-8")
    for term in ("d_k", "d_model", "Q", "attention", "residual", "mask"):
        assert term in text, term
    assert (course_dir(lang) / GLOSSARY).read_text(encoding="utf-8") == text, "make release copies it into the course"


@pytest.mark.parametrize("lang", EDITIONS)
def test_nbval_markers_stand_alone(lang):
    """nbval reads a marker only when the comment is the marker and nothing else (`# NBVAL_SKIP: why` is ignored)."""
    loose = [f"{md.name}: {line.strip()}" for md in sorted(sources_dir(lang).glob("[0-9][0-9]-*.md"))
             for line in md.read_text(encoding="utf-8").splitlines()
             if re.match(r"\s*#+\s*NBVAL_", line) and not re.fullmatch(r"\s*#+\s*NBVAL_[A-Z_]+\s*", line)]
    assert loose == []


@pytest.mark.parametrize("lang", EDITIONS)
def test_nbval_markers_become_tags_the_learner_does_not_see(lang):
    """The builder takes each marker line out of its cell into nbval's cell tag (`# NBVAL_SKIP` -> `nbval-skip`):
    no code cell shows one, and the progress cell (the learner's own table) is skipped by nbval."""
    for md in sorted(sources_dir(lang).glob("[0-9][0-9]-*.md")):
        code = [cell for cell in cells(lang, md.stem) if cell.cell_type == "code"]
        assert [cell.source for cell in code if re.search(r"^\s*#+\s*NBVAL_", cell.source, re.M)] == [], md.name
        progress = [cell for cell in code if "show_progress()" in cell.source]
        assert progress and all(cell.metadata.get("tags") == ["nbval-skip"] for cell in progress), md.name
