"""The Korean notebooks' prose renders as written: no stray ``**`` and particles that agree with numbers.

Every Markdown cell of notebooks/ko/<id>.md, at both levels, is rendered with the renderer Jupyter's
nbconvert uses (issue 25):

- CommonMark closes bold only where the closing ``**`` is right-flanking: after punctuation it must be
  followed by a space or punctuation, so ``**인코더(encoder)**를`` shows its asterisks. Write
  ``**인코더**(encoder)를`` or rephrase. Any ``**`` left in the HTML outside code and math fails.
- A Korean particle agrees with the sound it follows. After a number that sound is the last digit read in
  Korean (0 영, 1 일, 2 이, 3 삼, 4 사, 5 오, 6 육, 7 칠, 8 팔, 9 구): ``2.4495를`` (오), ``7을`` (칠),
  ``1로`` (일: ㄹ takes 로), ``3으로`` (삼). Numbers at the end of inline code or math count too
  (``x + 7``을). Tens, hundreds and thousands (십, 백, 천, 만) end in a consonant, as 영 does, so the last
  digit decides for every whole number.
"""
import html
import re

import pytest
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from autograder.build_notebooks import notebook
from autograder.levels import LEVELS
from autograder.paths import sources_dir

IDS = sorted(md.stem for md in sources_dir("ko").glob("[0-9][0-9]-*.md"))

# The final sound of each digit read in Sino-Korean: "vowel", "rieul" (ㄹ) or "consonant".
FINAL_SOUND = {"0": "consonant", "1": "rieul", "2": "vowel", "3": "consonant", "4": "vowel",
               "5": "vowel", "6": "consonant", "7": "rieul", "8": "rieul", "9": "vowel"}
# particle -> the final sounds it may follow.
AGREES = {
    "을": {"consonant", "rieul"}, "를": {"vowel"},
    "이": {"consonant", "rieul"}, "가": {"vowel"},
    "은": {"consonant", "rieul"}, "는": {"vowel"},
    "과": {"consonant", "rieul"}, "와": {"vowel"},
    "으로": {"consonant"}, "로": {"vowel", "rieul"},
}
# A digit, optionally closing inline code or math, then a particle that ends the word (so "3가지" or "2이다" are
# not particles). Longer particles first, so "으로" is not read as "으" + "로".
PARTICLE_AFTER_NUMBER = re.compile(
    r"(?P<digit>\d)(?:</code>|\$)?(?P<particle>으로|로|을|를|이|가|은|는|과|와)(?![\uac00-\ud7a3])")
CODE = re.compile(r"<pre>.*?</pre>|<code>.*?</code>", re.S)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)


def rendered_cells(assignment, level):
    nb = notebook(assignment, "ko", level)
    for number, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            yield number, cell.source, markdown2html_mistune(cell.source)


def _context(text, start, end, width=30):
    return html.unescape(text[max(0, start - width) : end + width]).replace("\n", " ")


def stray_bold(rendered):
    """The places where ``**`` is left in the rendered HTML outside code and math."""
    text = MATH.sub("", CODE.sub("", rendered))
    # An unrendered pair is reported once: the opening ** with its closing one if it is near.
    return [_context(text, m.start(), m.end()) for m in re.finditer(r"\*\*(?:[^*<\n]{0,80}?\*\*)?", text)]


def disagreeing_particles(rendered):
    """(digit, particle, context) for each particle after a number that does not agree with its sound."""
    text = re.sub(r"<pre>.*?</pre>", "", rendered, flags=re.S)
    found = []
    for m in PARTICLE_AFTER_NUMBER.finditer(text):
        if FINAL_SOUND[m["digit"]] not in AGREES[m["particle"]]:
            found.append((m["digit"], m["particle"], _context(text, m.start(), m.end())))
    return found


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("assignment", IDS)
def test_no_bold_left_unrendered(assignment, level):
    problems = [f"cell {number}: ...{where}..." for number, _, rendered in rendered_cells(assignment, level)
                for where in stray_bold(rendered)]
    assert not problems, ("'**' shows as text (a closing ** after punctuation must not touch a letter: "
                          "write **용어**(term)를):\n" + "\n".join(problems))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("assignment", IDS)
def test_particles_agree_with_numbers(assignment, level):
    problems = [f"cell {number}: {particle} after {digit}: ...{where}..."
                for number, _, rendered in rendered_cells(assignment, level)
                for digit, particle, where in disagreeing_particles(rendered)]
    assert not problems, "a particle does not agree with the number before it:\n" + "\n".join(problems)


# The checks themselves, on examples whose answer is known (so a test that passes is not a check that cannot fail).
@pytest.mark.parametrize("source, stray", [
    ("**인코더(encoder)**를 만듭니다.", True),
    ("**인코더**(encoder)를 만듭니다.", False),
    ("**인코더(encoder)** 를 만듭니다.", False),
    ("`a**b` 와 $x^{**}$ 는 코드와 수식입니다.", False),
])
def test_stray_bold_is_found(source, stray):
    assert bool(stray_bold(markdown2html_mistune(source))) == stray


@pytest.mark.parametrize("source, wrong", [
    ("결과는 2.4495을 넘습니다.", True), ("결과는 2.4495를 넘습니다.", False),
    ("`x + 7`를 계산합니다.", True), ("`x + 7`을 계산합니다.", False),
    ("$d_k = 64$을 씁니다.", True), ("$d_k = 64$를 씁니다.", False),
    ("1으로 나눕니다.", True), ("1로 나눕니다.", False), ("3로 나눕니다.", True), ("3으로 나눕니다.", False),
    ("값이 10이 됩니다.", False), ("512가 됩니다.", False), ("3가지 방법", False), ("값은 2이다.", False),
])
def test_disagreeing_particle_is_found(source, wrong):
    assert bool(disagreeing_particles(markdown2html_mistune(source))) == wrong
