"""The feedback pages: the sanitiser every learner-written piece of HTML in them goes through, and a
plain page for a notebook that nbgrader could not turn into feedback HTML.

nbgrader's feedback template renders Markdown cells (and comments) as ``markdown2html |
strip_files_prefix`` and, unlike nbconvert's own templates, never calls ``clean_html`` on them, so
``HTMLExporter.sanitize_html`` left them raw: a learner's ``<script>`` ran in the page. config.py
therefore replaces both filters by the ones below (``HTMLExporter.filters``): Markdown cells, raw
cells and HTML or Markdown outputs all go through ``sanitise_html``, while the page's own
head (CSS, MathJax) is the template's and untouched.
"""
import html
import re
from pathlib import Path

import bleach
from bleach.css_sanitizer import CSSSanitizer
from nbconvert.filters import strip_files_prefix
from pygments.token import STANDARD_TYPES

# What the course's Markdown renders to (nbconvert's mistune: headings with anchors, tables, code,
# lists, task lists, definition lists, strikethrough, images) and the harmless HTML learners display.
TAGS = {"a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "div", "dl", "dt", "em",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "kbd", "li", "ol", "p", "pre", "q", "s",
        "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul"}
# Class names the renderers emit (pygments' token classes, code blocks, heading anchors, task lists): the
# page's Bootstrap has classes that pin an element over the page (navbar-fixed-top, modal-backdrop, affix).
CLASSES = {"highlight", "anchor-link", "task-list-item", "task-list-item-checkbox", *STANDARD_TYPES.values()} - {""}
IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]*", re.I)
URI_NOISE = re.compile(r"[`\x00-\x20\x7f-\xa0\s]+")  # what browsers ignore in a URL's scheme (bleach strips it too)
# Table cells' alignment and plain text styling; nothing that places or sizes a box (no position, z-index,
# top, margin, width...), so no overlay can be drawn over the score.
STYLES = {"text-align", "color", "background-color", "font-weight", "font-style", "text-decoration"}


def _allowed_attribute(tag, name, value):
    if name == "class":
        return all(word in CLASSES for word in value.split())
    if tag == "a":
        # no data: link (a page of the learner's); bleach then allows http(s), mailto and relative links
        scheme = URI_NOISE.sub("", html.unescape(value)).lower()
        return name == "title" or (name == "href" and not scheme.startswith("data:"))
    if tag == "img":
        return name in ("alt", "title", "width", "height") or (name == "src" and IMAGE.fullmatch(value) is not None)
    if tag == "input":  # a task list's box
        return name in ("disabled", "checked") or (name == "type" and value == "checkbox")
    return (name == "id" and tag in ("h1", "h2", "h3", "h4", "h5", "h6")  # heading anchors
            or name == "style" and tag in ("th", "td")  # table alignment, filtered by STYLES
            or name in ("colspan", "rowspan") and tag in ("th", "td")
            or name == "start" and tag == "ol"
            or name == "title" and tag == "abbr")


# Disallowed tags are shown as text (``<script>`` reads as such), comments dropped.
_CLEANER = bleach.Cleaner(tags=TAGS, attributes=_allowed_attribute, protocols={"http", "https", "mailto", "data"},
                          css_sanitizer=CSSSanitizer(allowed_css_properties=STYLES), strip=False, strip_comments=True)


def sanitise_html(value):
    """``value`` (HTML) with only the tags, attributes and styles above: no script, handler, frame, form,
    style sheet, meta or base tag, javascript: or remote image; math ($...$) is text and stays."""
    return _CLEANER.clean(value.decode() if isinstance(value, bytes) else str(value))


def strip_files_prefix_and_sanitise(value):
    """nbconvert's strip_files_prefix, then sanitise_html: the last step of every Markdown rendering in
    nbgrader's feedback template (which never calls clean_html)."""
    return sanitise_html(strip_files_prefix(value))


def write_fallback(path: Path, records, title):
    rows = "".join(
        f"<tr><td>{html.escape(r['grade_id'])}</td><td>{r['points']} / {r['max_points']}</td>"
        f"<td><pre>{html.escape(chr(10).join(r['feedback']))}</pre></td></tr>"
        for r in records
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><table border='1'><tr><th>test</th><th>points</th><th>feedback</th></tr>{rows}</table>"
        "</body></html>\n",
        encoding="utf-8",
    )


def feedback_folder(out: Path, submission):
    return out / "feedback" / submission.student / submission.assignment


def write_fallbacks(out: Path, submission, records):
    """A fallback page under OUT/feedback/ for each notebook in ``records``."""
    for notebook in sorted({r["notebook"] for r in records}):
        page = feedback_folder(out, submission) / f"{notebook}.html"
        write_fallback(page, [r for r in records if r["notebook"] == notebook], f"{submission.student} / {submission.assignment} / {notebook}")
