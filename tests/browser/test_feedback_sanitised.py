"""A feedback page with a learner's hostile Markdown and raw cells, opened in Chromium: nothing of theirs runs.

One submission of the fixture course (tests/fixtures/grading_course.py) is graded by `autograder grade`:
its notebook carries tests/grading/outputs/test_feedback_sanitiser.py's payloads (scripts, handlers, javascript: links,
frames, svg, a style sheet, a fixed "Score 6/6" overlay, a meta refresh, a base tag) as Markdown and raw
cells, an output whose image metadata would add a handler, and honest Markdown. Screenshot:
build/screenshots/feedback-sanitised-01-page.png.
"""
import time

import nbformat
import pytest

from tests.browser.jupyter_servers import Screens, open_page
from tests.browser.feedback_pages import graded_feedback_page
from tests.fixtures.grading_course import SOURCES
from tests.grading.outputs.test_feedback_sanitiser import HONEST_MARKDOWN, HOSTILE_MARKDOWN, HOSTILE_RAW, IMAGE_OUTPUT

STUDENT, ASSIGNMENT = "hostile", "fx-attn"
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
# An added cell whose display the kernel sends with hostile image metadata (width="1 onerror=...").
DISPLAY = f"from IPython.display import display\ndisplay({IMAGE_OUTPUT['data']!r}, raw=True, metadata={IMAGE_OUTPUT['metadata']!r})"


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """The feedback page of the hostile submission, graded by `autograder grade`."""
    notebook = SOURCES[ASSIGNMENT]()  # right answers: the score is 3 / 3, whatever the page shows
    notebook.cells += ([nbformat.v4.new_markdown_cell(HONEST_MARKDOWN)]
                       + [nbformat.v4.new_markdown_cell(payload) for payload in HOSTILE_MARKDOWN]
                       + [nbformat.v4.new_raw_cell(payload) for payload in HOSTILE_RAW]
                       + [nbformat.v4.new_raw_cell(payload, metadata={"raw_mimetype": "text/html"}) for payload in HOSTILE_RAW]
                       + [nbformat.v4.new_code_cell(DISPLAY)])
    page = graded_feedback_page(tmp_path_factory.mktemp("hostile-feedback"), STUDENT, ASSIGNMENT, notebook)
    text = page.read_text(encoding="utf-8")
    assert "Score: 3.0 / 3.0" in text and "Honest heading" in text, "not nbgrader's feedback page (a fallback page?)"
    return page


def test_no_payload_runs_and_the_honest_markdown_renders(chromium, feedback):
    page = open_page(chromium, [])
    CURRENT_PAGE["page"] = page
    console, dialogs = [], []
    page.on("console", lambda message: console.append(message.text))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto(feedback.as_uri())
        time.sleep(1.5)  # a meta refresh or a late handler would have acted by now
        assert page.url == feedback.as_uri(), f"the page navigated away to {page.url}"
        assert page.evaluate("window.__pwned") is None, f"a payload ran: {page.evaluate('window.__pwned')}"
        assert not dialogs, f"a dialog opened: {dialogs}"
        assert not [m for m in console if "PWNED" in m or "pwned" in m], console
        fixed = page.evaluate("""() => Array.from(document.querySelectorAll('body *'))
            .filter(e => ['fixed', 'sticky'].includes(getComputedStyle(e).position)).map(e => e.outerHTML.slice(0, 200))""")
        assert not fixed, f"elements pinned over the page: {fixed}"
        for selector in ("body script", "iframe", "svg", "base", "meta[http-equiv]", "form", "object", "embed",
                         "body style", "a[href^='javascript' i]", "a[href^='data' i]", "img[onerror]", "img[src^='http']"):
            assert page.locator(selector).count() == 0, f"the page has {selector}: {page.locator(selector).first.evaluate('e => e.outerHTML')}"
        assert page.locator("script").count() == 0  # not even the template's MathJax: the math is MathML
        assert page.get_by_text("Score 6/6").first.is_visible()  # the overlays' text, shown in its place
        heading = page.locator("h2#Honest-heading")
        assert heading.is_visible() and heading.inner_text().startswith("Honest heading")
        table = page.locator("table", has_text="decoder reads")
        assert table.is_visible() and table.locator("th").count() == 3 and table.locator("td").count() == 3
        assert page.locator("th code", has_text="<bos>").count() == 1  # code in a table cell
        assert page.get_by_text("<script>window.__pwned = 'script'", exact=False).count() == 1  # shown as text
        assert page.locator("body").inner_text().count("Score: 3.0 / 3.0") == 1
        Screens("feedback-sanitised").take(page, "page", full_page=True)
    finally:
        CURRENT_PAGE.clear()
        page.close()
