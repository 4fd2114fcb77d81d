"""The feedback page's HTML, fast: math typeset as MathML with nothing loaded from the network, long lines
that wrap, and the grader's message once per unit (through nbgrader's template, filters and preprocessors as
config.scratch_config sets them: tests/grading/outputs/test_feedback_sanitiser.feedback_page).

tests/browser/test_feedback_offline.py grades a submission end to end and opens its page in Chromium offline.
"""
import re
from pathlib import Path

import nbformat
import pytest

from autograder.grading.bookkeeping.scratch import ERROR_OUTPUT
from autograder.grading.outputs import feedback_page as page_module
from autograder.grading.outputs.feedback_page import (
    MATHML,
    MathQuota,
    sanitise_html,
    typeset,
)
from tests.grading.outputs.test_feedback_sanitiser import Elements, feedback_page

ROOT = Path(__file__).resolve().parents[3]
MARKDOWN = r"""## Attention

$$\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$

Masked where $j > i$, and a cost of \$5 in `code: $x$`.

$$
\begin{aligned}
x' &= \mathrm{LayerNorm}(x + \mathrm{SelfAttn}(x))
\end{aligned}
$$
"""
LONG_LINE = "A" * 40 + " " + "x" * 3000
SCALE = ("[sdpa-no-scale] The scores match Q·Kᵀ without the 1/√d_k factor.\n"
         "Without scaling, dot products grow with d_k. Look again at where the paper puts 1/√d_k.\n")
CASES = {"values": "3-D inputs (batch, position, feature): `weights`: max abs difference 0.303.",
         "masks": "4-D inputs with a padding mask (B, 1, 1, L_k): `weights`: max abs difference 0.319.",
         "float64": "4-D inputs in float64: `weights`: max abs difference 0.337."}


def graded(grade_id, outputs=()):
    cell = nbformat.v4.new_code_cell(f"check({grade_id!r})", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": 1, "score": 0,
        "schema_version": 3}})  # score: what GetGrades would set
    cell.outputs = [nbformat.from_dict(output) for output in outputs]
    return cell


def grader_message(text):
    """What scratch.record_final adds to a cell whose verdict failed."""
    return {"output_type": "error", "ename": ERROR_OUTPUT, "evalue": text, "traceback": [f"{ERROR_OUTPUT}: {text}"]}


def unit_cells():
    """sdpa: three aspects failing for one mistake, each naming its own case; add: another unit's mistake."""
    return [graded(f"sdpa-hidden-{aspect}", [grader_message(SCALE + case)]) for aspect, case in CASES.items()] + [
        graded("sdpa-hidden-device"),  # passed
        graded("add-hidden-values", [grader_message("[runtime-error] add(2, 3) raised TypeError.")]),
        graded("add-hidden-grad", [grader_message("[runtime-error] add(2, 3) raised TypeError.")]),
    ]


def body_of(page):
    return page.split("<body>", 1)[1]


def test_math_is_mathml_and_the_page_loads_nothing(tmp_path):
    page = feedback_page([nbformat.v4.new_markdown_cell(MARKDOWN)], tmp_path)
    body = body_of(page)
    assert body.count('<math display="block">') == 2 and body.count('<math display="inline">') == 1
    assert "<mfrac>" in body and "<msqrt>" in body and "<mtable" in body  # aligned is laid out as a table
    assert "$" not in re.sub(r"<code>.*?</code>|\$5", "", body)  # no TeX left but in code and the escaped dollar
    assert "<code>code: $x$</code>" in body  # code is never typeset
    without_comments = re.sub(r"<!--.*?-->", "", page, flags=re.DOTALL)  # "<!-- Loading mathjax macro -->" stays
    assert not re.search(r"mathjax|cdnjs|<script|<link|@import|src=\"https?:", without_comments, re.IGNORECASE)
    for tag, attrs in Elements(body).found:
        if tag in MATHML:
            assert set(attrs) <= set(MATHML[tag]), (tag, attrs)


def test_the_course_formulas_all_typeset():
    """Every formula of the course's Markdown (both editions) becomes MathML of the allowed elements."""
    tex = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<![\\$])\$([^$]+?)(?<![\\$])\$", re.DOTALL)
    formulas = []
    for path in sorted(ROOT.glob("course/*/*.ipynb")) + sorted(ROOT.glob("ko/course/*/*.ipynb")):
        for cell in nbformat.read(str(path), as_version=4).cells:
            if cell.cell_type == "markdown":
                formulas += [(found[1] or found[2], found[1] is not None) for found in tex.finditer(cell.source)]
    assert len(formulas) > 500
    failed = [formula for formula, display in formulas if typeset(formula, display) is None]
    assert not failed, failed[:5]


@pytest.mark.parametrize("tex", [
    r"\href{javascript:alert(1)}{x}", r"\style{position:fixed; top:0}{x}", r"\class{navbar-fixed-top}{x}",
    r"\color{url(https://example.org/x)}{x}", r"\raisebox{-100em}{x}", r"\hspace{-100em} x", r"\rule{100em}{100em}",
    r"\smash{\begin{array}{c} a \\ b \end{array}}",
])
def test_mathml_keeps_only_its_allow_list(tex):
    clean = sanitise_html(f"<p>$${tex}$$</p>")
    assert "<math" in clean
    for tag, attrs in Elements(clean).found:
        assert tag == "p" or tag in MATHML, tag
        for name, value in attrs.items():
            assert name in MATHML.get(tag, {}) and MATHML[tag][name](value), (tag, name, value)
    assert not re.search(r"href|style=|class=|voffset|url\(", clean), clean


def test_text_in_math_is_text_and_learner_mathml_is_not_allowed():
    clean = sanitise_html(r"<p>$\text{&lt;img src=x onerror=alert(1)&gt;}$</p>")
    assert "<mtext>&lt;img src=x onerror=alert(1)&gt;</mtext>" in clean.replace("\xa0", " ") and "<img" not in clean
    raw = sanitise_html('<math><mi href="javascript:alert(1)">x</mi><annotation-xml><svg onload=alert(1)>'
                        "</svg></annotation-xml></math>")
    assert "<math" not in raw and "&lt;math&gt;" in raw  # shown as text, like any tag not allowed


def test_what_cannot_be_typeset_safely_stays_tex():
    assert typeset(r"\newcommand{\a}{xx}\a") is None  # macros can expand exponentially
    assert typeset(r"\def\a{\a}\a") is None
    assert typeset("{" * 100 + "x" + "}" * 100) is None  # nested deeper than MAX_DEPTH
    assert typeset("x" * 2001) is None
    assert sanitise_html("<p>$x^1^2$</p>") == "<p>$x^1^2$</p>"  # TeX latex2mathml rejects
    budget = MathQuota(formulas=2)
    assert sanitise_html("<p>$a$ $b$ $c$</p>", budget).count("<math") == 2 and "$c$" in sanitise_html("$c$", budget)


def test_a_kept_text_is_what_sanitising_it_afresh_gives_whatever_the_page_has_left(monkeypatch):
    """page_module.SANITISED: the release's Markdown, the same on every page, is parsed once a worker; a kept text
    must come out as a fresh sanitising would, and take from the page's quota what that would take."""
    built = []
    real_cleaner = page_module._cleaner
    monkeypatch.setattr(page_module, "_cleaner", lambda quota: built.append(1) or real_cleaner(quota))
    monkeypatch.setattr(page_module, "SANITISED", page_module.SanitisedTexts())
    texts = ["<p>$a$ and $b^2$</p>", "<p>$$\\sum_i x_i$$</p><script>x</script>", "<p>no math</p>", "$" + "y" * 30 + "$"]
    for formulas, characters in [(2_000, 100_000), (3, 100_000), (1, 100_000), (0, 100_000), (5, 12), (5, 31)]:
        kept_quota, fresh_quota = MathQuota(formulas, characters), MathQuota(formulas, characters)
        for text in texts * 2:
            kept = sanitise_html(text, kept_quota)
            fresh = real_cleaner(fresh_quota).clean(text)
            assert kept == fresh, (formulas, characters, text)
            assert (kept_quota.formulas, kept_quota.characters) == (fresh_quota.formulas, fresh_quota.characters)
    built.clear()
    for _ in range(3):
        assert sanitise_html(texts[0]) == sanitise_html(texts[0], MathQuota())
    assert not built  # every one of these came from what was kept
    assert sanitise_html(texts[0], MathQuota(formulas=1)).count("<math") == 1 and built  # not all of it fits: afresh


def test_what_is_kept_stays_within_its_size():
    kept = page_module.SanitisedTexts(max_chars=1_000)
    for n in range(100):
        kept.sanitise(f"<p>text {n} " + "x" * 50 + "</p>", MathQuota())
    assert kept.chars <= 1_000 and 0 < len(kept.kept) < 100
    assert kept.chars == sum(len(text) + len(clean) for text, (clean, _) in kept.kept.items())
    assert "<p>text 99 " + "x" * 50 + "</p>" in kept.kept  # the latest stays


def test_long_lines_wrap(tmp_path):
    printed = nbformat.v4.new_code_cell("print(...)")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text=LONG_LINE)]
    page = feedback_page([printed, graded("sdpa-hidden-values", [grader_message(LONG_LINE)])], tmp_path)
    head = page.split("<body>", 1)[0]
    rule = re.search(r"div\.output_area pre, div\.output_subarea pre, div\.output_text pre \{([^}]*)\}", head)
    assert rule and "white-space: pre-wrap" in rule[1] and "overflow-wrap: anywhere" in rule[1]
    assert rule.start() > head.index("word-break:break-all")  # after Bootstrap's pre (which scrolls)


def messages(body):
    """The texts of the grader's messages on the page (error outputs), in order."""
    return [re.sub(r"<[^>]+>", "", found).strip() for found in
            re.findall(r'<div class="output_subarea output_text output_error">\s*<pre>(.*?)</pre>', body, re.DOTALL)]


def test_the_grader_says_each_mistake_once_per_unit(tmp_path):
    body = body_of(feedback_page(unit_cells(), tmp_path))
    assert ERROR_OUTPUT not in body
    shown = messages(body)
    assert len(shown) == 5
    assert shown[0].startswith("values, masks, float64: [sdpa-no-scale] The scores match")
    assert CASES["values"] in shown[0] and body.count("Without scaling") == 1
    assert shown[1] == f"See above, at values: the same mistake.\n{CASES['masks']}"  # its own case only
    assert shown[2] == f"See above, at values: the same mistake.\n{CASES['float64']}"
    assert shown[3] == "values, grad: [runtime-error] add(2, 3) raised TypeError."  # another unit: its own message
    assert shown[4] == "See above, at values: the same mistake."


def test_a_unit_with_two_mistakes_shows_both_and_see_above_speaks_korean(tmp_path):
    cells = [graded("u-hidden-values", [grader_message("[one] first")]),
             graded("u-hidden-masks", [grader_message("[two] second")]),
             graded("u-hidden-grad", [grader_message("[one] first")])]
    assert messages(body_of(feedback_page(cells, tmp_path))) == [
        "values, grad: [one] first", "masks: [two] second", "See above, at values: the same mistake."]
    korean = feedback_page(cells, tmp_path, language="ko")
    assert messages(body_of(korean))[2] == "위의 values 항목을 보세요. 같은 실수입니다."


def test_latex_outputs_are_typeset(tmp_path):
    shown = nbformat.v4.new_code_cell("display(Math(...))")
    shown.outputs = [nbformat.v4.new_output("display_data", data={"text/latex": r"$\displaystyle \sqrt{d_k}$",
                                                                   "text/plain": "<IPython.core.display.Math object>"})]
    body = body_of(feedback_page([shown], tmp_path))
    assert "<msqrt>" in body and r"\sqrt" not in body


def test_the_page_speaks_the_notebooks_language(tmp_path):
    """nbgrader's template writes its own words in English (Score:, Grade cell:, Student's answer, In [3]:...): a
    Korean notebook's page has them in Korean (templates/course_feedback), an English page as nbgrader writes them."""
    answer = nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {
        "grade": False, "solution": True, "locked": False, "grade_id": "sdpa", "schema_version": 3, "comment": "Good"}})
    answer.execution_count = 3
    shown = nbformat.v4.new_code_cell("1 + 1")
    shown.execution_count = 4
    shown.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=4)]
    cells = [answer, shown] + unit_cells()
    english_words = ["Score:", "Test cell", "Student's answer", "Grade cell:", "(Top)", "Comments:",
                     "In\xa0[3]:", "Out[4]:", "In\xa0[\xa0]:"]
    english = body_of(feedback_page(cells, tmp_path))
    assert [word for word in english_words if word not in english] == []
    korean = body_of(feedback_page(cells, tmp_path, language="ko"))
    assert [word for word in english_words if word in korean] == []
    for word in ("점수: 1.0 / 6.0", "테스트 셀", "제출한 답안", "채점 셀: <code>sdpa-hidden-values</code>", "(맨 위로)",
                 "코멘트:", "입력\xa0[3]:", "출력\xa0[4]:", "입력\xa0[\xa0]:"):
        assert word in korean, word


def test_the_page_template_is_used_as_nbgraders_api_runs_it(tmp_path):
    """NbGraderAPI.generate_feedback (what the grader calls) sets HTMLExporter.template_name back to "feedback":
    the course's page (templates/course_feedback/page.html.j2, named by its path) is used all the same."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    from autograder.grading.bookkeeping.config import (
        FEEDBACK_TEMPLATES,
        Settings,
        scratch_config,
    )

    config = scratch_config(Settings(), tmp_path, "sqlite://")
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    as_the_api_does = Config()
    as_the_api_does.HTMLExporter.template_name = "feedback"
    app.update_config(as_the_api_does)
    exporter = HTMLExporter(parent=app, config=app.config)
    assert exporter.template.filename == str(FEEDBACK_TEMPLATES / "course_feedback" / "page.html.j2")


def test_the_fallback_page_speaks_the_submissions_language(tmp_path):
    """Where nbgrader could not write the feedback page, the plain page's own words are in the learner's language."""
    from autograder.grading.outputs.feedback_page import write_fallback

    record = {"grade_id": "split_heads-visible", "points": 0, "max_points": 1, "feedback": ["[shape] ..."]}
    write_fallback(tmp_path / "ko.html", [record], "learner / 02-multi-head / 02-multi-head", "ko")
    write_fallback(tmp_path / "en.html", [record], "learner / 02-multi-head / 02-multi-head", "en")
    korean, english = (tmp_path / "ko.html").read_text(), (tmp_path / "en.html").read_text()
    assert "<th>점수</th>" in korean and "<th>points</th>" not in korean and "lang='ko'" in korean
    assert "<th>points</th>" in english and "lang='en'" in english
