"""A feedback page opened in Chromium with no network (an exam room, a firewall): its math is typeset, it asks
for nothing, long lines wrap, and the grader's message reads without its ``OutOfKernelCheck:`` prefix.

One submission of the fixture course (tests/fixtures/grading_course.py) is graded by `autograder grade`: its
answer makes torch.allclose always true (the kernel's test passes, the grader's verdict fails with a message),
a Markdown cell holds the course's kind of formulas, and an added cell prints a line far wider than the page.
The page is opened in a browser context that is offline and aborts every request but file: and data:.
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


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """The feedback page of the submission, graded by `autograder grade`."""
    notebook = replace_answer(SOURCES[ASSIGNMENT](), "scaled_scores", ALLCLOSE)
    notebook.cells.insert(0, nbformat.v4.new_markdown_cell(FORMULAS))
    notebook.cells.append(nbformat.v4.new_code_cell(WIDE))
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
