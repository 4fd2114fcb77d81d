r"""Every number the notebooks' prose states is produced by a cell: computed and printed, or asserted.

The rule of notebooks/README.md ("Every number the prose states is computed by a cell or asserted by one"),
measured. For each built notebook of both editions and both levels (solutions/, ko/solutions/ and their
challenge/ counterparts, with their outputs), `claims` lists the claims-bearing sentences of its Markdown
cells: the sentences that state a number that is not trivially small (a decimal, or a whole number of 10 or
more; a number written with digit groups, `65\,504` or `37 000`, counts as one). A number counts as
produced when it stands in a code cell (an `assert` that checks it, or the input that makes it) or in what a
code cell printed, once both are written the same way (trailing zeros and digit groups dropped: `0.9640` is `0.964`).

Some numbers are not claims that code can check: a year in a citation, a section of the paper, an exercise
card's time. They are left out by `_not_a_claim`. Numbers are compared as written out (`2.4 \cdot 10^{-4}` is
0.00024, Korean's `1억 100만` is 101 million, `93%` may be checked as 0.93). The few facts about the paper that no
cell computes (its model's sizes) are listed in NOT_COMPUTED, each with the reason, so that the list stays short
and reviewed.
"""
import functools
import re

import nbformat
import pytest

from autograder.levels import LEVELS
from autograder.paths import EDITIONS, solutions_dir, sources_dir

IDS = sorted(md.stem for md in sources_dir("en").glob("[0-9][0-9]-*.md"))
CASES = [(lang, assignment) for lang in EDITIONS for assignment in IDS
         if (solutions_dir(lang) / assignment / f"{assignment}.ipynb").is_file()]
LEVEL_CASES = [(lang, assignment, level) for lang, assignment in CASES for level in LEVELS
               if (solutions_dir(lang, level) / assignment / f"{assignment}.ipynb").is_file()]

# A number: digits with optional digit groups (thin space `\,`, a space or a comma before exactly three
# digits) and an optional decimal part. Not part of a name (`d_k`, `w_1`, `cell-003`) or of a longer number.
NUMBER = re.compile(r"(?<![\w.\\])(\d{1,3}(?:(?:\\,|\u2009| |,|_)\d{3})+(?!\d)|\d+)(\.\d+)?(?![A-Za-z_\d]|\.\d)")
# Markdown that states no claim: an exercise card's header line and hints (times, difficulty), an HTML tag.
CARD = re.compile(r"^\*\*(Exercise|연습): .*$|<details>.*?</details>|</?details>|<summary>.*?</summary>", re.M | re.S)
SENTENCE_END = re.compile(r"(?<=[.!?。:])\s+(?=[A-Z$`(*\u3131-\uD79D])|\n\n+|\n(?=[|\-])")

# Facts about the paper (or the outside world) that no cell of the notebook computes: (assignment, number) ->
# why the number is not produced by code. Each is true as the prose words it.
NOT_COMPUTED = {
    ("02-multi-head", "512"): "the paper's d_model, a fact about the paper",
    ("02-multi-head", "64"): "the paper's d_k, a fact about the paper",
}


def normalised(whole, decimals=""):
    """A number as both sides write it: digit groups dropped, trailing zeros of the decimals dropped."""
    whole = re.sub(r"\\,|\u2009| |,|_", "", whole)
    decimals = decimals.rstrip("0").rstrip(".") if decimals else ""
    return str(int(whole)) + decimals if whole else decimals


def _not_a_claim(text, match):
    """A year in a citation, a section or notebook number, a number of steps in a list: not checked by code."""
    before, after = text[max(0, match.start() - 30):match.start()], text[match.end():match.end() + 12]
    number = match.group(0)
    if re.fullmatch(r"(19|20)\d\d", number) and (re.search(r"(et al\.,?|[A-Z][a-z]+,?|\()\s*$", before)
                                                 or re.match(r"\)|년", after)):
        return True  # (Xiong et al., 2020), Bahdanau, Cho and Bengio (2015), 2015년 논문
    if re.search(r"(section|sections|notebook|notebooks|노트북)\s*\(?$", before, re.I) or re.match(r"절|번 노트북", after):
        return True  # section 5.4, notebook 05, 5.4절
    return False


def _korean_millions(match):
    """1억 100만 (101 million) and 6300만 (63 million): written in millions, as the English edition and the cells do."""
    value = int(match["eok"] or 0) * 10**8 + int(match["man"] or 0) * 10**4
    return f"{value // 10**6} million" if value % 10**6 == 0 else str(value)


def _decimal(value):
    return f"{value:.12f}".rstrip("0").rstrip(".")


def written_out(text):
    """``text`` with its numbers written out: 2.4 · 10^{-4} -> 0.00024; Korean's large units, 1억 100만 -> 101 million
    and 100만분의 3 -> 0.000003 (만 after a one-digit number, or before 큼, is the word "only", "as much as")."""
    text = re.sub(r"(\d+(?:\.\d+)?)\s*(?:\\cdot|\\times|·|×)\s*10\^\{?(-?\d+)\}?",
                  lambda m: _decimal(float(m[1]) * 10 ** int(m[2])), text)
    text = re.sub(r"100만분의 (\d+)", lambda m: _decimal(int(m[1]) / 10**6), text)
    return re.sub(r"(?:(?P<eok>\d+)억\s*)?(?P<man>\d{2,})만(?=\s*개|[^\w]|$)", _korean_millions, text)


def numbers_of(text):
    """The normalised numbers of ``text`` that count as claims (a decimal, or 10 or more)."""
    found = []
    text = written_out(text)
    for match in NUMBER.finditer(text):
        if _not_a_claim(text, match):
            continue
        number = normalised(match.group(1), match.group(2) or "")
        if "." in number or int(number) >= 10:
            found.append(number + ("%" if text.startswith("%", match.end()) else ""))
    return found


def _outputs(cell):
    texts = []
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        texts += [value for key, value in output.get("data", {}).items() if key.startswith("text/")]
    return "\n".join(text if isinstance(text, str) else "".join(text) for text in texts)


def produced(nb):
    """Every normalised number that the code cells write (in their source) or print (in their outputs)."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            text = written_out(cell.source + "\n" + _outputs(cell))
            for match in NUMBER.finditer(text):
                found.add(normalised(match.group(1), match.group(2) or ""))
            for match in re.finditer(r"(?<![\w.])\d+(\.\d+)?e[+-]?\d+", text):  # 1e9, 2.4e-4: as decimals too
                whole, _, decimals = f"{float(match.group(0)):.12f}".partition(".")
                found.add(normalised(whole, "." + decimals))
    return found


def claims(nb):
    """[(sentence, [numbers])]: the notebook's claims-bearing sentences, in order."""
    listed = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = CARD.sub("", cell.source)
        for sentence in SENTENCE_END.split(text):
            numbers = numbers_of(sentence)
            if numbers:
                listed.append((" ".join(sentence.split()), numbers))
    return listed


def unproduced(nb, assignment):
    """[(number, sentence)]: the numbers of the prose that no cell produces and NOT_COMPUTED does not list."""
    made = produced(nb)

    def is_made(number):  # 93% is produced as 93 or as 0.93
        bare = number.rstrip("%")
        return bare in made or (number.endswith("%") and _decimal(float(bare) / 100) in made)

    return [(number, sentence) for sentence, numbers in claims(nb) for number in numbers
            if not is_made(number) and (assignment, number.rstrip("%")) not in NOT_COMPUTED]


@functools.cache
def built(assignment, lang, level="guided"):
    return nbformat.read(solutions_dir(lang, level) / assignment / f"{assignment}.ipynb", as_version=4)


@pytest.mark.parametrize("lang, assignment, level", LEVEL_CASES)
def test_every_number_in_the_prose_is_produced_by_a_cell(lang, assignment, level):
    """Each number a claims-bearing sentence states is computed and printed, or asserted, by a code cell (the
    challenge notebooks carry the guided ones' outputs; their prose may differ)."""
    missing = unproduced(built(assignment, lang, level), assignment)
    assert missing == [], "\n".join(f"{number}: {sentence}" for number, sentence in missing)


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_claims_are_listed(lang):
    """The listing finds the claims of the course (a scanner that finds none checks nothing): most notebooks state
    numbers, and every number of a worked example is among them."""
    listed = {assignment: claims(built(assignment, lang)) for lang_, assignment in CASES if lang_ == lang}
    assert sum(1 for found in listed.values() if found) >= len(listed) - 2
    assert sum(len(found) for found in listed.values()) >= 40


def test_the_scanner_is_not_blind():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("The weights are $(0.7239, 0.2761)$. A score of about 65\\,504 fits. "
                                      "Xiong et al., 2020, and section 5.4 are no claims; nor is 3."),
        nbformat.v4.new_code_cell("assert round(w, 4) == 0.7239"),
    ])
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="max: -65504.0\n")]
    assert [numbers for _, numbers in claims(nb)] == [["0.7239", "0.2761"], ["65504"]]
    assert unproduced(nb, "00-test") == [("0.2761", "The weights are $(0.7239, 0.2761)$.")]
    assert normalised("37 000") == "37000" and normalised("1", ".0000") == "1" and normalised("0", ".9640") == "0.964"
