"""The two levels of every exercise, from one Markdown source (see autograder/build_notebooks.py).

- guided: the answer cells' small ### BEGIN SOLUTION / ### END SOLUTION blanks, with the shape
  comments between them;
- challenge: every function or method that holds a blank is blank from its docstring down (the
  signature, the docstring and the prose stay; the learner writes the body).

Both levels share the graded cells, grade ids, points and hidden tests; only the answer cells'
blanks and the prose marked for one level differ. Prose for one level only is written between
``<!-- guided -->`` and ``<!-- /guided -->`` (or ``challenge``) in the source.
"""
import ast
import io
import re
import tokenize

LEVELS = ("guided", "challenge")
DEFAULT_LEVEL = "guided"
LEVEL_KEY = "course_level"  # a notebook's level, in its metadata (written by the builder)

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_LEVEL_BLOCK = re.compile(r"^<!-- (?P<level>guided|challenge) -->[ \t]*\n(?P<text>.*?)^<!-- /(?P=level) -->[ \t]*\n?",
                          re.M | re.S)


def check_level(level):
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: one of {', '.join(LEVELS)}")
    return level


def prose_for(markdown, level):
    """The source with the other level's blocks removed and this level's markers dropped."""
    check_level(level)
    return _LEVEL_BLOCK.sub(lambda m: m["text"] if m["level"] == level else "", markdown)


def _is_marker(line):
    return line.strip() in (BEGIN, END)


def without_markers(code):
    """The code with the blank markers' lines removed: what both levels' solutions run."""
    return "\n".join(line for line in code.split("\n") if not _is_marker(line))


def _header_end(lines, node):
    """The (1-based) line of the ':' that ends the ``def`` header of ``node``."""
    source = "\n".join(lines[node.lineno - 1 : node.body[0].lineno]) + "\n"
    depth = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.OP and token.string == ":" and depth == 0:
            return node.lineno + token.start[0] - 1
    raise ValueError(f"no end of the header of {node.name}")


def _last_line(lines, function):
    """The function's last line, counting the marker lines that close its blanks after its last statement."""
    end = function.end_lineno
    while end < len(lines) and _is_marker(lines[end]) and \
            len(lines[end]) - len(lines[end].lstrip()) > function.col_offset:
        end += 1
    return end


def _outer_functions_with_blanks(tree, lines, marker_lines):
    """(function, last line) of the outermost functions (and methods) whose lines hold a blank marker."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                last = _last_line(lines, child)
                if any(child.lineno <= line <= last for line in marker_lines):
                    found.append((child, last))
                    continue
            visit(child)

    visit(tree)
    return found


def challenge_blank(code):
    """An answer cell's code at the challenge level: each function holding a blank blank below its docstring."""
    lines = code.split("\n")
    marker_lines = [number for number, line in enumerate(lines, 1) if _is_marker(line)]
    if not marker_lines:
        raise ValueError("an answer cell without ### BEGIN SOLUTION blanks")
    plain = without_markers(code)
    # Parse the code as written (marker lines are comments), so line numbers are the cell's.
    tree = ast.parse(code)
    functions = _outer_functions_with_blanks(tree, lines, marker_lines)
    covered = set()
    for function, last in functions:
        covered.update(range(function.lineno, last + 1))
    stray = [line for line in marker_lines if line not in covered]
    if stray:
        raise ValueError(f"blank markers outside any function (lines {stray}): the challenge level blanks whole bodies")
    out, position = [], 0
    for function, last in sorted(functions, key=lambda found: found[0].lineno):
        first = function.body[0]
        has_docstring = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                         and isinstance(first.value.value, str))
        start = first.end_lineno if has_docstring else _header_end(lines, function)  # last kept line (1-based)
        body = [line for line in lines[start:last] if not _is_marker(line)]
        indent = " " * (function.body[-1].col_offset if not has_docstring or len(function.body) > 1 else first.col_offset)
        out.extend(line for line in lines[position:start] if not _is_marker(line))
        out.append(indent + BEGIN)
        out.extend(body)
        out.append(indent + END)
        position = last
    out.extend(line for line in lines[position:] if not _is_marker(line))
    result = "\n".join(out)
    assert without_markers(result) == plain, "the challenge blank changed the solution's code"
    return result
