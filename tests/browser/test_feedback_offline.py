"""A feedback page opened in Chromium with no network (an exam room, a firewall): its math is typeset, it asks
for nothing, long lines wrap, and the grader's message reads without its ``OutOfKernelCheck:`` prefix.

One submission of the fixture course (tests/fixtures/grading_course.py) is graded by `autograder grade`: its
answer makes torch.allclose always true (the kernel's test passes, the grader's verdict fails with a message),
a Markdown cell holds the course's kind of formulas, and an added cell prints a line far wider than the page.
Korean text in a Markdown cell and an output is drawn with the course's font, embedded in the page (this machine
has no Korean font: without it, Hangul is empty boxes). The page is opened in a browser context that is offline
and aborts every request but file: and data:.
Screenshots: build/screenshots/feedback-offline-*.png.
"""

import nbformat
import pytest

from tests.browser.jupyter_servers import VIEWPORT, Screens
from tests.browser.feedback_pages import graded_feedback_page
from tests.fixtures.grading_course import ALLCLOSE, SOURCES, replace_answer

STUDENT, ASSIGNMENT = "offline", "fx-attn"
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
FORMULAS = r"""## Formulas

$$\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$

The scores are masked where $j > i$, for queries $q_i \in \mathbb{R}^{d_k}$.

$$
\begin{aligned}
x' &= \mathrm{LayerNorm}_1\big(x + \mathrm{Dropout}_1(\mathrm{SelfAttn}(x, x, x))\big)\\
\mathrm{EncoderLayer}(x) &= \mathrm{LayerNorm}_2\big(x' + \mathrm{Dropout}_2(\mathrm{FFN}(x'))\big)
\end{aligned}
$$
"""
WIDE = "print('wide:' + 'x' * 600)"
KOREAN = "## 한국어 설명\n\n각 쿼리의 어텐션 가중치는 합이 1입니다."  # a Korean learner's page (issue 36)
KOREAN_PRINT = "print('모양: (2, 2), 가중치의 합: 1')"


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """The feedback page of the submission, graded by `autograder grade`."""
    notebook = replace_answer(SOURCES[ASSIGNMENT](), "scaled_scores", ALLCLOSE)
    notebook.cells.insert(0, nbformat.v4.new_markdown_cell(FORMULAS))
    notebook.cells.append(nbformat.v4.new_code_cell(WIDE))
    notebook.cells += [nbformat.v4.new_markdown_cell(KOREAN), nbformat.v4.new_code_cell(KOREAN_PRINT)]
    page = graded_feedback_page(tmp_path_factory.mktemp("offline-feedback"), STUDENT, ASSIGNMENT, notebook)
    text = page.read_text(encoding="utf-8")
    assert "Formulas" in text and "[tampering]" in text, "not nbgrader's feedback page with the grader's verdict"
    return page


@pytest.fixture
def offline_page(chromium):
    """A page in a context with no network, where any request but file: and data: is aborted and recorded."""
    context = chromium.new_context(viewport=VIEWPORT, offline=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    asked = []

    def only_local(route):
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    CURRENT_PAGE["page"] = page
    yield page, asked
    CURRENT_PAGE.clear()
    context.close()


def test_offline_the_math_is_typeset_and_nothing_is_fetched(offline_page, feedback):
    page, asked = offline_page
    screens = Screens("feedback-offline")
    page.goto(feedback.as_uri(), wait_until="load")
    assert not asked, f"the page asked the network for {asked}"
    assert page.locator("script").count() == 0
    formulas = page.locator(".rendered_html math")
    assert formulas.count() == 4  # two displayed, two inline
    for index in range(formulas.count()):
        box = formulas.nth(index).bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"formula {index} has no size: {box}"
    assert page.locator("math[display='block']").first.evaluate("e => getComputedStyle(e).display") == "block math"
    # A fraction is drawn as one (numerator above denominator), not as a line of text.
    numerator, denominator = (page.locator("mfrac").first.locator(":scope > *").nth(n).bounding_box() for n in (0, 1))
    assert numerator["y"] + numerator["height"] <= denominator["y"] + 1, (numerator, denominator)
    # The aligned equations are two rows, one above the other.
    rows = page.locator("mtable").first.locator("mtr")
    assert rows.count() == 2 and rows.nth(0).bounding_box()["y"] < rows.nth(1).bounding_box()["y"]
    assert "$" not in page.locator(".rendered_html").first.inner_text()  # no TeX left as text
    page.locator("h2", has_text="Formulas").scroll_into_view_if_needed()
    screens.take(page, "math")

    # Long lines wrap: no output or grader's message is wider than its box.
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('div.output_subarea pre'))
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 80))""")
    assert not wide, f"these lines run off the right edge: {wide}"
    # The grader's message once per unit, with the aspects it cost, and without its OutOfKernelCheck: prefix.
    messages = [text.strip() for text in page.locator("div.output_error pre").all_inner_texts()]
    assert "OutOfKernelCheck" not in page.locator("body").inner_text()
    assert [text.split(":")[0] for text in messages] == ["visible, values", "See above, at visible", "values"], messages
    assert messages[0].count("[tampering]") == 1 and "[tampering]" not in messages[1]
    page.locator("div.output_error pre").first.scroll_into_view_if_needed()
    screens.take(page, "message")
    screens.take(page, "page", full_page=True)


def test_offline_hangul_is_drawn_with_the_font_the_page_embeds(offline_page, feedback):
    page, asked = offline_page
    page.goto(feedback.as_uri(), wait_until="load")
    page.evaluate("document.fonts.ready")
    assert not asked, f"the page asked the network for {asked}"
    faces = page.evaluate("Array.from(document.fonts).map(face => [face.family, face.status])")
    assert ["Course Hangul", "loaded"] in faces, f"the page's Korean font was not used (or Chromium refused it): {faces}"
    heading = page.locator("h2", has_text="한국어 설명")
    assert heading.evaluate("e => getComputedStyle(e).fontFamily").startswith('"Course Hangul"')
    output = page.locator("div.output_subarea pre", has_text="가중치의 합")
    assert output.count() == 1 and output.evaluate("e => getComputedStyle(e).fontFamily").startswith('"Course Hangul"')
    # Each Hangul character of the page is drawn: not as a syllable the page does not have (U+D7A3) is drawn with
    # the embedded font (its missing-glyph box) or without it (the system's box: this machine has no Korean font).
    missing = page.evaluate("""() => {
        const text = document.body.innerText;
        const chars = Array.from(new Set(Array.from(text).filter(ch => /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/.test(ch))));
        const canvas = document.createElement('canvas'); canvas.width = 40; canvas.height = 40;
        const pen = canvas.getContext('2d');
        const draw = (font, ch) => { pen.clearRect(0, 0, 40, 40); pen.font = font; pen.fillText(ch, 0, 30);
                                     return Array.from(pen.getImageData(0, 0, 40, 40).data).join(','); };
        const page = '24px "Course Hangul", Helvetica, Arial, sans-serif', plain = '24px Helvetica, Arial, sans-serif';
        const boxes = [draw(page, '\ud7a3'), draw(plain, '\ud7a3')];
        return [chars.length, text.includes('\ud7a3'), chars.filter(ch => boxes.includes(draw(page, ch)))];
    }""")
    assert not missing[1], "the page has U+D7A3, which the test takes as a character it lacks"
    assert missing[0] >= 20 and not missing[2], f"of the page's {missing[0]} Hangul characters these are not drawn: {missing[2]}"
    heading.scroll_into_view_if_needed()
    Screens("feedback-offline-korean").take(page, "hangul")
