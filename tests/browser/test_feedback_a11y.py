"""Feedback pages for every reader (issue 53): axe-core's WCAG 2.1 A and AA rules find no violation, at a desktop's
size, on a 375-px phone and at 200 % zoom, and a screen reader's user finds the score and each lost point.

Four submissions of the fixture course (tests/fixtures/grading_course.py) are graded in one `autograder grade`
run: in English and in Korean (``course_language``), each with a mistake (no 1/sqrt(d_k): a hidden test fails, with
the grader's message) and with full marks. Their notebooks have what makes a page hard to lay out on a phone: a
displayed formula, a table and a line of code wider than the screen.

axe-core comes from npm at the version tests/browser/axe/package-lock.json pins (`make browser-tool` installs it
into .venv/browser-axe) and is injected into each page from that local file: nothing is fetched when testing.
Screenshots at 375 px: build/screenshots/feedback-a11y-*.png.
"""

import nbformat
import pytest

from tests.browser.a11y import SIZES, assert_readable, axe_installed, file_pages
from tests.browser.feedback_pages import graded_feedback_pages
from tests.browser.jupyter_servers import Screens
from tests.fixtures.grading_course import NO_SCALE, SOURCES, replace_answer

ASSIGNMENT = "fx-attn"
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
PAGES = {"en-mistake": ("en", True), "en-full": ("en", False), "ko-mistake": ("ko", True), "ko-full": ("ko", False)}
WIDE_MARKDOWN = r"""## Shapes

$$\mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \mathrm{head}_2, \mathrm{head}_3, \mathrm{head}_4, \mathrm{head}_5, \mathrm{head}_6, \mathrm{head}_7, \mathrm{head}_8)\, W^O$$

| tensor | shape | batch | heads | positions | features | dtype | device |
|---|---|---|---|---|---|---|---|
| `scores` | `(batch, heads, query_positions, key_positions)` | 2 | 8 | 10 | 64 | float32 | cpu |
"""
WIDE_CODE = "shapes = {'queries': (2, 8, 10, 64), 'keys': (2, 8, 10, 64), 'values': (2, 8, 10, 64), 'scores': (2, 8, 10, 10)}"


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """{name: the feedback page's path} of PAGES, graded in one `autograder grade` run."""
    axe_installed()
    notebooks = {}
    for name, (language, mistake) in PAGES.items():
        notebook = SOURCES[ASSIGNMENT]()
        if mistake:
            notebook = replace_answer(notebook, "scaled_scores", NO_SCALE)
        notebook.metadata["course_language"] = language
        notebook.cells[1:1] = [nbformat.v4.new_markdown_cell(WIDE_MARKDOWN), nbformat.v4.new_code_cell(WIDE_CODE)]
        notebooks[name] = (ASSIGNMENT, notebook)
    pages = graded_feedback_pages(tmp_path_factory.mktemp("a11y-feedback"), notebooks)
    for name, page in pages.items():
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        assert "[sdpa-no-scale]" in text if PAGES[name][1] else "3.0 / 3.0" in text, f"{name}: not the graded page"
    return pages


@pytest.fixture
def browse(chromium):
    with file_pages(chromium, CURRENT_PAGE) as open_file:
        yield open_file


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_wcag_21_aa_violation_and_nothing_scrolls_the_page_sideways(feedback, browse, name, size):
    page = browse(feedback[name], size)
    assert_readable(page, name, size, lambda shown: Screens(f"feedback-a11y-{name}").take(shown, "phone", full_page=True))


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_screen_reader_finds_the_score_and_each_lost_point(feedback, browse, language):
    page = browse(feedback[f"{language}-mistake"], "desktop")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("meta[name=viewport]").count() == 1
    assert page.locator("main").count() == 1
    headings = page.evaluate("""() => Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
        .map(h => [h.tagName, h.innerText.replace(/\\s+/g, ' ').trim(), h.id])""")
    score = "Score: 2.0 / 3.0" if language == "en" else "점수: 2.0 / 3.0"
    assert headings[0][0] == "H1" and score in headings[0][1], f"the first heading is not the score: {headings[:3]}"
    # each graded cell is an h2 with its score, named by its cell, that the table of contents links to
    lost_words = "points lost" if language == "en" else "감점"
    graded = {h[2]: h[1] for h in headings if h[0] == "H2" and h[2]}
    for grade_id in ("scaled_scores-visible", "scaled_scores-hidden-values", "double-hidden-values"):
        assert grade_id in graded and grade_id in graded[grade_id], (grade_id, headings)
    assert lost_words in graded["scaled_scores-hidden-values"] and "0.0 / 1.0" in graded["scaled_scores-hidden-values"]
    assert [g for g, text in graded.items() if lost_words in text] == ["scaled_scores-hidden-values"], graded
    # links say where they go: no two with one name and different targets, none named by a sign
    links = page.evaluate("""() => Array.from(document.querySelectorAll('a[href]')).filter(a => a.getClientRects().length)
        .map(a => [a.innerText.trim(), a.getAttribute('href')])""")
    targets = {}
    for text, href in links:
        targets.setdefault(text, set()).add(href)
    assert not [text for text, hrefs in targets.items() if len(hrefs) > 1], targets
    assert not [text for text in targets if text in ("¶", "#", "")], targets
    toc = page.locator("nav#toc a").all_inner_texts()
    assert len(toc) == 3 and all(any(g in text for g in graded) for text in toc), toc
    # a test cell's heading, then what the test or the grader says, then its test code, folded (a hidden test has none)
    order = page.evaluate("""() => Array.from(document.querySelectorAll('.cell')).filter(c => c.querySelector('h2.nbgrader-label[id]'))
        .map(c => [c.querySelector('h2.nbgrader-label').id, Array.from(c.querySelectorAll('h2, div.output_subarea, details'))
            .map(e => e.tagName === 'H2' ? 'heading' : e.tagName === 'DETAILS' ? (e.open ? 'open' : 'code') : 'says')])""")
    assert order == [["scaled_scores-visible", ["heading", "says", "code"]], ["scaled_scores-hidden-values", ["heading", "says"]],
                     ["double-hidden-values", ["heading", "says"]]], order
    lost = page.locator(".cell", has=page.locator("h2#scaled_scores-hidden-values"))
    assert "[sdpa-no-scale]" in lost.locator("div.output_error").inner_text()
    # wide code takes keyboard focus (it scrolls), with a focus ring
    box = page.locator(".scroll-box").first
    box.focus()
    ring = box.evaluate("e => [document.activeElement === e, getComputedStyle(e).outlineStyle, parseFloat(getComputedStyle(e).outlineWidth)]")
    assert ring[0] and ring[1] != "none" and ring[2] >= 2, ring


def test_the_page_is_one_document_in_its_language_without_a_browser(tmp_path):
    """Fast: the page as grading writes it (tests/grading/outputs/test_feedback_sanitiser.feedback_page) has its language and a
    viewport tag, one <body> and <main> (nbconvert's own is not nested in nbgrader's), the score as its h1, each
    graded cell as an h2 named by its cell, and tables and displayed formulas in focusable boxes."""
    from tests.grading.outputs.test_feedback_page import graded, grader_message
    from tests.grading.outputs.test_feedback_sanitiser import Elements, feedback_page

    cells = [nbformat.v4.new_markdown_cell(WIDE_MARKDOWN), graded("u-hidden-values", [grader_message("[one] first")])]
    for language, score, lost in (("en", "Score: 1.0 / 6.0", "points lost"), ("ko", "점수: 1.0 / 6.0", "감점")):
        page = feedback_page(cells, tmp_path, language=language)
        found = Elements(page).found
        tags = [tag for tag, _ in found]
        assert [attrs.get("lang") for tag, attrs in found if tag == "html"] == [language]
        assert [attrs["content"] for tag, attrs in found if tag == "meta" and attrs.get("name") == "viewport"] == [
            "width=device-width, initial-scale=1"]
        assert tags.count("body") == 1 and tags.count("main") == 1 and "a" in tags
        assert not [attrs for tag, attrs in found if tag == "a" and "name" in attrs]  # anchors are the headings' ids
        assert [tag for tag in tags if tag in ("h1", "h2", "h3", "h4", "h5", "h6")][:3] == ["h1", "h2", "h2"]
        body = page.split("<body>", 1)[1]
        assert body.index("<h1") < body.index(score) < body.index("</h1>") < body.index('id="Shapes"')
        heading = body[body.index('id="u-hidden-values"'):]
        assert lost in heading[:heading.index("</h2>")]
        boxes = [attrs for tag, attrs in found if "scroll-box" in attrs.get("class", "").split()]
        assert all(attrs.get("tabindex") == "0" and attrs.get("role") == "region" and attrs.get("aria-label") for attrs in boxes)
        kinds = sorted(next(word for word in attrs["class"].split() if word != "scroll-box") for attrs in boxes)
        assert kinds == ["input_area", "math-box", "table-box"], kinds  # the test's code, the table, the formula
