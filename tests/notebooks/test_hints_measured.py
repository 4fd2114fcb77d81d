"""Hints measured: hint 1 (the idea) and hint 2 (the shape plan) lead to the answer without giving it.

Each exercise card opens three hints in turn (notebooks/README.md): the idea, the shape plan, the PyTorch
operations. Only hint 3 may name the operations. For every card, at both levels and in both languages, against
the blanks of its own level (the lines the learner writes there, comments dropped):

- **no code**: hint 1 and hint 2 share no run of the answer's tokens longer than the function names in the
  answer cell's signatures (`forward`, `make_tgt_mask`: what the learner reads anyway). Tokens are names
  (dotted names as one: `self.norm`), numbers and operators; brackets, commas and Markdown are left out, so
  that a shape such as `(B, L, d_k)` is not read as code;
- **not every step in words**: the steps of the answer are its calls (`make_pad_mask(...)`, `self.dropout(...)`)
  and its operators (`&`, `+`, `@`); a step is named when the hint writes its name or one of the words that
  say it (STEP_WORDS: "logical AND", "padding mask", "normalise" ...). Hint 1 and hint 2 may name some of the
  steps, never all of them when there are two or more: then the hint is the answer, said in words.

`tests/notebooks/test_levels.py` already fails on a hint that holds a whole line of a blank; these two measures catch the
shorter and the worded give-aways.
"""
import ast
import re

import pytest
import yaml

from autograder.build_notebooks import HINTS_FENCE, notebook
from autograder.levels import BEGIN, END, LEVELS, prose_for
from autograder.paths import EDITIONS, sources_dir

IDS = sorted(md.stem for md in sources_dir("en").glob("[0-9][0-9]-*.md"))
CASES = [(lang, assignment) for lang in EDITIONS for assignment in IDS
         if (sources_dir(lang) / f"{assignment}.md").is_file()]
MEASURED = ("idea", "shapes")  # hint 1 and hint 2; hint 3 (operation) may name the operations
REGION = re.compile(rf"^[ \t]*{BEGIN}\n(.*?)^[ \t]*{END}", re.M | re.S)
# Names (dotted as one), numbers, other words (a Korean word breaks a run as an English one does), operators.
TOKEN = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|\d+(?:\.\d+)?|\w+|\*\*|//|==|!=|<=|>=|->|[^\s\w]")
NOT_A_TOKEN = set("()[]{},:;`$\\.'\"")
OPERATORS = {"&", "|", "~", "+", "-", "*", "/", "@", "**", "//", "=="}
# Calls that are no step of the exercise: Python's own, and reading a size (`tgt.size(-1)`, `x.dim()`).
NOT_A_STEP = {"super", "__init__", "range", "len", "int", "float", "isinstance", "zip", "enumerate", "size", "dim",
              "numel", "item"}

# The words that say a step, per language (regular expressions, case-insensitive but for the `(?-i:...)` parts).
STEP_WORDS = {
    "&": {"en": r"(?-i:(?<![A-Za-z])AND(?![A-Za-z]))|logical and", "ko": r"(?-i:(?<![A-Za-z])AND(?![A-Za-z]))|논리곱"},
    "|": {"en": r"(?-i:(?<![A-Za-z])OR(?![A-Za-z]))|logical or", "ko": r"(?-i:(?<![A-Za-z])OR(?![A-Za-z]))|논리합"},
    "~": {"en": r"(?-i:(?<![A-Za-z])NOT(?![A-Za-z]))|invert", "ko": r"(?-i:(?<![A-Za-z])NOT(?![A-Za-z]))|뒤집"},
    "+": {"en": r"\b(add|adds|added|adding|sum|plus)\b", "ko": r"더하|더해|더한|합을|합이|합은"},
    "-": {"en": r"subtract|minus", "ko": r"빼"},
    "@": {"en": r"matrix product|matmul|\bdot product", "ko": r"행렬 곱|내적"},
    "/": {"en": r"\bdivid", "ko": r"나누|나눈|나눠"},
    "make_pad_mask": {"en": r"padding mask", "ko": r"패딩 마스크"},
    "make_subsequent_mask": {"en": r"look-ahead mask|subsequent mask", "ko": r"룩어헤드 마스크|후속 마스크"},
    "dropout": {"en": r"\bdrop(s|ped|ping)? out\b|\bdropout", "ko": r"드롭아웃"},
    "norm": {"en": r"normalis|normaliz|\bnorm\b|layer norm", "ko": r"정규화"},
    "softmax": {"en": r"softmax", "ko": r"소프트맥스|softmax"},
    "transpose": {"en": r"transpos|\bswap", "ko": r"전치|맞바꾸|뒤바꾸"},
    "sqrt": {"en": r"square root|\\sqrt|√", "ko": r"제곱근|\\sqrt|√"},
    "tanh": {"en": r"tanh", "ko": r"tanh"},
    "mean": {"en": r"\bmean\b|\baverage", "ko": r"평균"},
}
# Calls that are one step under two names (nn.LayerNorm builds what self.norm calls).
SAME_STEP = {"LayerNorm": "norm", "Dropout": "dropout", "log_softmax": "softmax", "matmul": "@"}


def tokens(text):
    return [token for token in TOKEN.findall(text) if token not in NOT_A_TOKEN]


def blank_lines(answer_source):
    """The code lines of an answer cell's blanks, comments dropped."""
    lines = []
    for region in REGION.findall(answer_source):
        for line in region.splitlines():
            code = re.sub(r"(^|\s)#.*$", "", line).strip()
            if code:
                lines.append(code)
    return lines


def signature_limit(answer_source):
    """The length of the longest function name among the answer cell's signatures (``def NAME(``)."""
    names = [node.name for node in ast.walk(ast.parse(answer_source)) if isinstance(node, ast.FunctionDef)]
    return max(map(len, names))


def longest_shared_run(hint, lines):
    """The longest run of tokens that ``hint`` shares with one line of the answer."""
    said, best = tokens(hint), []
    for line in lines:
        code = tokens(line)
        for i in range(len(said)):
            for j in range(len(code)):
                k = 0
                while i + k < len(said) and j + k < len(code) and said[i + k] == code[j + k]:
                    k += 1
                if k > len(best):
                    best = said[i:i + k]
    return best


def steps(lines):
    """The answer's steps: the names it calls (last part of a dotted name) and the operators it applies."""
    found = set()
    for line in lines:
        for match in re.finditer(r"([A-Za-z_][\w.]*)\s*\(", line):
            name = match.group(1).split(".")[-1]
            if name not in NOT_A_STEP and not (match.start() == 0 and line.startswith(("def ", "class "))):
                found.add(SAME_STEP.get(name, name))
        raw = TOKEN.findall(re.sub(r"(\"[^\"]*\"|'[^']*')", "", line))
        for before, operator in zip([None] + raw, raw):
            unary = operator in ("-", "~", "*", "**") and (before is None or before in OPERATORS or before in "([{,=:")
            if operator in OPERATORS and not (unary and operator != "~"):
                found.add(operator)
    return found


def named(step, hint, lang):
    """Whether ``hint`` names ``step``: by its name, or by a word that says it."""
    if re.fullmatch(r"\w+", step) and re.search(rf"(?<![\w.]){re.escape(step)}(?!\w)", hint):
        return True
    words = STEP_WORDS.get(step, {}).get(lang)
    return bool(words and re.search(words, hint, re.I))


def cards(lang, assignment, level, text=None):
    """[(unit, fields)] of a source's ```hints fences at ``level``."""
    text = prose_for(text if text is not None else (sources_dir(lang) / f"{assignment}.md").read_text(encoding="utf-8"),
                     level)
    return [(m["unit"], yaml.safe_load(m["body"])) for m in HINTS_FENCE.finditer(text)]


def answers(assignment, lang, level):
    """{unit: its answer cell's source} at ``level``."""
    return {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in notebook(assignment, lang, level).cells
            if cell.metadata.get("nbgrader", {}).get("solution")}


def code_given_away(card_list, answer_cells):
    """['unit key: the run'] for each hint 1 or 2 that shares a run of the answer longer than the signature names."""
    found = []
    for unit, fields in card_list:
        lines, limit = blank_lines(answer_cells[unit]), signature_limit(answer_cells[unit])
        for key in MEASURED:
            run = longest_shared_run(str(fields[key]), lines)
            if len(run) >= 2 and len("".join(run)) > limit:
                found.append(f"{unit} {key}: {' '.join(run)}")
    return found


def steps_given_away(card_list, answer_cells, lang):
    """['unit key: steps'] for each hint 1 or 2 that names every step of the answer (two steps or more)."""
    found = []
    for unit, fields in card_list:
        answer_steps = steps(blank_lines(answer_cells[unit]))
        if len(answer_steps) < 2:
            continue
        for key in MEASURED:
            if all(named(step, str(fields[key]), lang) for step in answer_steps):
                found.append(f"{unit} {key}: names every step ({', '.join(sorted(answer_steps))})")
    return found


@pytest.mark.parametrize("lang, assignment", CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_hints_1_and_2_share_no_code_of_the_answer(lang, assignment, level):
    assert code_given_away(cards(lang, assignment, level), answers(assignment, lang, level)) == []


@pytest.mark.parametrize("lang, assignment", CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_hints_1_and_2_do_not_say_every_step(lang, assignment, level):
    assert steps_given_away(cards(lang, assignment, level), answers(assignment, lang, level), lang) == []


def test_the_measures_are_not_blind():
    answer = ("def make_tgt_mask(tgt, pad_idx=0):\n    ### BEGIN SOLUTION\n    pad = make_pad_mask(tgt, pad_idx)\n"
              "    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)\n    return pad & causal  # both\n"
              "    ### END SOLUTION")
    assert steps(blank_lines(answer)) == {"make_pad_mask", "make_subsequent_mask", "&"}  # not size, not the -1
    worded = [("make_tgt_mask", {"idea": "Build the padding mask and the look-ahead mask for this `tgt`, then "
                                         "combine them with a logical AND.", "shapes": "(B, 1, L, L)"})]
    assert steps_given_away(worded, {"make_tgt_mask": answer}, "en") == [
        "make_tgt_mask idea: names every step (&, make_pad_mask, make_subsequent_mask)"]
    assert steps_given_away([("make_tgt_mask", {"idea": "Two rules; where did you meet each?", "shapes": "the padding "
                                                "mask (B, 1, 1, L) and the look-ahead mask (1, L, L)"})],
                            {"make_tgt_mask": answer}, "en") == []
    coded = [("make_tgt_mask", {"idea": "Rules.", "shapes": "Then `causal = make_subsequent_mask(tgt.size(-1))`."})]
    assert code_given_away(coded, {"make_tgt_mask": answer}) == [
        "make_tgt_mask shapes: causal = make_subsequent_mask tgt.size - 1"]
    assert code_given_away([("make_tgt_mask", {"idea": "`tgt` and `pad_idx`", "shapes": "(B, 1, 1, L)"})],
                           {"make_tgt_mask": answer}) == []
