"""The feedback page's sanitiser, fast: hostile Markdown and raw cells (and output metadata) through
feedback_page.sanitise_html and through nbgrader's feedback template as the grader configures it.

tests/browser/test_feedback_sanitised.py grades the same payloads end to end and opens the page in Chromium.
"""
from html.parser import HTMLParser

import nbformat

from autograder.grading.outputs.feedback_page import MATHML, sanitise_html
from autograder.grading.bookkeeping.preprocessors import SafeOutputMetadata

# Each sets window.__pwned (or shows a dialog, loads a page, draws an overlay) if it runs.
HOSTILE_MARKDOWN = [
    "<script>window.__pwned = 'script'; alert('PWNED')</script>",
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    "[click me](javascript:window.__pwned='href') and <a href=\"JaVaScRiPt:window.__pwned='href2'\">this</a>",
    "<a href=\"&#x64;ata:text/html,<script>alert(1)</script>\">data link</a>",
    "<iframe src=\"javascript:parent.__pwned='iframe'\"></iframe>",
    "<svg onload=\"window.__pwned = 'svg'\"><circle r=\"5\"/></svg>",
    "<style>body { display: none }</style>",
    ("<div style=\"position:fixed; top:0; left:0; width:100%; height:100%; z-index:9999; background:white\">"
     "<h1>Score 6/6</h1></div>"),
    "<div class=\"modal-backdrop in\">Score 6/6</div> <span class=\"navbar-fixed-top\">Score 6/6</span>",
    "<meta http-equiv=\"refresh\" content=\"0; url=https://example.org/\">",
    "<base href=\"https://example.org/\">",
    "<form action=\"https://example.org/\"><button formaction=\"javascript:alert(1)\">go</button></form>",
    "<details open ontoggle=\"window.__pwned = 'details'\">x</details>",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='mxss'\"></style></mglyph></table></mtext></math>",
    "<!--><script>window.__pwned = 'comment'</script>-->",
    "![remote](https://example.org/track.png)",
]
HOSTILE_RAW = [
    "<script>window.__pwned = 'raw'</script><img src=x onerror=\"window.__pwned = 'raw-onerror'\">",
    "<iframe srcdoc=\"<script>parent.__pwned='raw-iframe'</script>\"></iframe>",
    "<div style=\"position:fixed;inset:0\">Score 6/6</div>",
]
# What the course's notebooks write: headings, tables, code, math (typeset as MathML), an embedded image.
HONEST_MARKDOWN = """## Honest heading

| decoder reads | `<bos>` | `I` |
|:--|:-:|--:|
| predicts | `I` | `<eos>` |

Masked where $j > i$, with $\\frac{QK^\\top}{\\sqrt{d_k}}$ and **bold**, *emphasis*, `code`, ~~struck~~.

```python
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
```

- [x] a task list
- a [link](https://pytorch.org/docs/) and an image ![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)
"""
# A kernel's output whose metadata the template prints unquoted (img width=...).
IMAGE_OUTPUT = {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": "<image>"},
                "metadata": {"image/png": {"width": "1 onerror=window.__pwned='width'", "height": 10},
                             "filenames": {"image/png": "https://example.org/track.png"}}}

FORBIDDEN_TAGS = {"script", "iframe", "svg", "style", "meta", "base", "form", "button", "object", "embed", "link",
                  "details", "math"}


class Elements(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self, text):
        super().__init__()
        self.found = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def assert_harmless(elements):
    for tag, attrs in elements:
        assert tag not in FORBIDDEN_TAGS, (tag, attrs)
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "action", "formaction"):
            value = (attrs.get(name) or "").replace(" ", "").lower()
            assert not value.startswith(("javascript:", "data:text", "https://example.org", "&#x64;")), (tag, attrs)
        if tag == "img" and "src" in attrs:
            assert attrs["src"].startswith("data:image/"), attrs
        style = (attrs.get("style") or "").replace(" ", "").lower()
        assert "position" not in style and "z-index" not in style, (tag, attrs)
        assert not {"modal-backdrop", "navbar-fixed-top", "in"} & set((attrs.get("class") or "").split()), (tag, attrs)


def test_each_payload_is_made_harmless():
    for payload in HOSTILE_MARKDOWN + HOSTILE_RAW:
        clean = sanitise_html(payload)
        assert_harmless(Elements(clean).found)


def test_disallowed_markup_is_shown_as_text():
    assert sanitise_html("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert sanitise_html("<b>bold</b> <em>e</em>") == "<b>bold</b> <em>e</em>"


def test_output_metadata_keeps_numbers_only():
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.from_dict(IMAGE_OUTPUT)]
    SafeOutputMetadata().preprocess_cell(cell, {}, 0)
    assert cell.outputs[0].metadata == {"image/png": {"height": 10}}


def feedback_page(cells, tmp_path, language="en"):
    """The feedback HTML of a notebook of ``cells`` (in ``language``), by nbgrader's template, filters and
    preprocessors as config.scratch_config sets them (less GetGrades, which needs a gradebook: its scores are given)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import GetGrades

    from autograder.grading.bookkeeping.config import Settings, scratch_config

    config = scratch_config(Settings(), tmp_path, "sqlite://")
    feedback = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)  # sets its template
    exporter = HTMLExporter(parent=feedback, config=feedback.config)
    for step in config.GenerateFeedback.preprocessors:
        if step is not GetGrades:
            exporter.register_preprocessor(step, enabled=True)
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={"course_language": language})
    page, _ = exporter.from_notebook_node(notebook, resources={"nbgrader": {
        "notebook": "unit", "score": 1.0, "max_score": 6.0, "late_penalty": 0}})
    return page


def hostile_cells():
    code = nbformat.v4.new_code_cell("display(...)")
    code.outputs = [nbformat.from_dict(IMAGE_OUTPUT)]
    return ([nbformat.v4.new_markdown_cell(HONEST_MARKDOWN)]
            + [nbformat.v4.new_markdown_cell(payload) for payload in HOSTILE_MARKDOWN]
            + [nbformat.v4.new_raw_cell(payload) for payload in HOSTILE_RAW]
            + [nbformat.v4.new_raw_cell(payload, metadata={"raw_mimetype": "text/html"}) for payload in HOSTILE_RAW]
            + [code])


def test_the_feedback_page_runs_only_its_own_scripts_and_keeps_honest_markdown(tmp_path):
    page = feedback_page(hostile_cells(), tmp_path)
    head, body = page.split("<body>", 1)
    assert not [tag for tag, _ in Elements(head).found if tag == "script"]  # none: the math is MathML, no MathJax
    found = Elements(body).found
    assert_harmless([(tag, attrs) for tag, attrs in found if tag not in MATHML])  # no script, handler, frame, overlay...
    assert all(set(attrs) <= set(MATHML[tag]) for tag, attrs in found if tag in MATHML)  # ... and the honest math
    assert "&lt;style&gt;body" in body and "&lt;script&gt;window.__pwned = 'raw'" in body  # shown as text
    assert '<h2 id="Honest-heading">Honest heading' in body
    assert "<table>" in body and "<th style=\"text-align:left;\">decoder reads</th>" in body
    assert "<code>&lt;bos&gt;</code>" in body
    assert "<mi>j</mi><mo>&gt;</mo><mi>i</mi>" in body and "<mfrac>" in body  # typeset as MathML
    assert '<div class="highlight"><pre>' in body and "<del>struck</del>" in body
    assert 'src="data:image/png;base64,iVBOR' in body and 'href="https://pytorch.org/docs/"' in body


def test_the_sanitiser_is_the_one_the_grader_configures(tmp_path):
    from autograder.grading.bookkeeping.config import Settings, scratch_config

    config = scratch_config(Settings(), tmp_path, "sqlite://")
    assert config.HTMLExporter.sanitize_html is True
    assert set(config.HTMLExporter.filters) == {"clean_html", "strip_files_prefix", "page_words"}  # page_words: text only
    assert SafeOutputMetadata in config.GenerateFeedback.preprocessors
