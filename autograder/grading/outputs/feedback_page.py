r"""The feedback pages: the sanitiser every learner-written piece of HTML in them goes through, the math
typeset on the server, and a plain page for a notebook that nbgrader could not turn into feedback HTML.

nbgrader's feedback template renders Markdown cells (and comments) as ``markdown2html |
strip_files_prefix`` and, unlike nbconvert's own templates, never calls ``clean_html`` on them, so
``HTMLExporter.sanitize_html`` left them raw: a learner's ``<script>`` ran in the page. config.py
therefore replaces both filters by the ones below (``HTMLExporter.filters``): Markdown cells, raw
cells and HTML or Markdown outputs all go through ``sanitise_html``, while the page's own
head (CSS) is the template's and untouched.

The pages load nothing: math ($...$, $$...$$, \(...\), \[...\], \begin{env}...\end{env} in text, never
in code) is typeset here as MathML (latex2mathml), which browsers draw natively, and the template's
MathJax from a CDN is gone (templates/base/mathjax.html.j2). A learner's own MathML is not allowed
(it is shown as text, as any other disallowed tag): only what ``typeset`` builds from TeX gets in, element
by element through ``MATHML``, its allow-list.
"""
import html
import re
from collections import OrderedDict
from pathlib import Path

import bleach
from bleach.css_sanitizer import CSSSanitizer
from jinja2 import pass_context
from latex2mathml.converter import convert_to_element
from nbconvert.filters import strip_files_prefix
from pygments.token import STANDARD_TYPES

from learner_kit import i18n
from learner_kit.i18n import add_translations, notebook_language, speaking, tr

add_translations("autograder.locales")  # the page's words below, in the submission's language

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


# ---------------------------------------------------------------- math, typeset as MathML

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"
LENGTH = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(em|ex|pt|px|mu)?")
EM_PER_UNIT = {"em": 1, "ex": 0.5, "pt": 0.1, "px": 1 / 16, "mu": 1 / 18, "": 1}
NAMED_SPACES = {f"{sign}{size}mathspace" for sign in ("", "negative")
                for size in ("veryverythin", "verythin", "thin", "medium", "thick", "verythick", "veryverythick")}
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,20}")  # mathcolor, mathbackground: a colour, never url(...)


def _lengths(signed=False, most_em=10):
    """A validator of a length (or a space-separated list of them) within ``most_em`` em, and not
    negative unless ``signed``: a box's size or spacing, never one that moves a formula over the page."""
    def valid(value):
        for word in value.split() or [""]:
            found = LENGTH.fullmatch(word)
            if word in NAMED_SPACES and (signed or not word.startswith("negative")):
                continue
            if (found is None or word.startswith("-") and not signed
                    or abs(float(found[1])) * EM_PER_UNIT[found[2] or ""] > most_em):
                return False
        return True
    return valid


def _one_of(*values):
    return lambda value: value in values


def _matches(pattern):
    return lambda value: pattern.fullmatch(value) is not None


BOOLEAN = _one_of("true", "false")
VARIANT = _one_of("normal", "bold", "italic", "bold-italic", "double-struck", "fraktur", "script", "sans-serif",
                  "sans-serif-italic", "monospace")
ALIGN = _matches(re.compile(r"((left|center|right)\s*)+"))
# Every element latex2mathml builds, with the attributes it sets that are safe to keep; nothing here can
# run script or load anything (no href, xlink, style, class, annotation-xml, maction), and no attribute
# moves a formula out of its line (mpadded's height, depth and voffset are dropped: \smash and \raisebox
# lose their effect, not their content).
MATHML = {
    "math": {"display": _one_of("block", "inline")},
    "menclose": {"notation": _matches(re.compile(r"((box|updiagonalstrike|downdiagonalstrike|horizontalstrike)\s*)+"))},
    "mfrac": {"linethickness": _lengths()},
    "mi": {"mathvariant": VARIANT},
    "mn": {"mathvariant": VARIANT},
    "mo": {"mathvariant": VARIANT, "accent": BOOLEAN, "fence": BOOLEAN, "separator": BOOLEAN, "stretchy": BOOLEAN,
           "movablelimits": BOOLEAN, "form": _one_of("prefix", "infix", "postfix"),
           "lspace": _lengths(), "rspace": _lengths(), "minsize": _lengths(), "maxsize": _lengths()},
    "mover": {"accent": BOOLEAN},
    "mpadded": {"width": _lengths(signed=True), "lspace": _lengths(signed=True), "mathbackground": _matches(COLOUR)},
    "mphantom": {},
    "mroot": {},
    "mrow": {},
    "mspace": {"width": _lengths(signed=True), "height": _lengths(), "depth": _lengths(),
               "linebreak": _one_of("newline"), "mathbackground": _matches(COLOUR)},
    "msqrt": {},
    "mstyle": {"displaystyle": BOOLEAN, "scriptlevel": _one_of("0", "1", "2", "+1", "-1"),
               "mathcolor": _matches(COLOUR), "mathsize": _lengths(most_em=3)},
    "msub": {},
    "msubsup": {},
    "msup": {},
    "mtable": {"displaystyle": BOOLEAN, "columnalign": ALIGN, "columnspacing": _lengths(), "rowspacing": _lengths()},
    "mtd": {"columnalign": ALIGN},
    "mtext": {"mathvariant": VARIANT},
    "mtr": {},
    "munder": {},
    "munderover": {},
}

# TeX in text, as nbconvert's Markdown renderer writes it and as the page's MathJax used to find it; a
# formula is at most 2,000 characters (so a lone delimiter costs one bounded look ahead).
TEX = re.compile(r"""
      (?<!\\)\$\$(?P<display>.{1,2000}?)(?<!\\)\$\$                          # $$ ... $$
    | (?<!\\)\\\[(?P<display_latex>.{1,2000}?)(?<!\\)\\\]                    # \[ ... \]
    | (?P<environment>\\begin\{(?P<name>[A-Za-z]+\*?)\}.{0,2000}?\\end\{(?P=name)\})  # \begin{align} ... \end{align}
    | (?<![\\$])\$(?P<inline>[^$]{1,2000}?)(?<![\\$])\$                      # $ ... $
    | (?<!\\)\\\((?P<inline_latex>.{1,2000}?)(?<!\\)\\\)                     # \( ... \)
""", re.DOTALL | re.VERBOSE)
# Macros (\newcommand{\a}{\b\b} ...) can expand exponentially: a formula that defines any stays TeX.
DEFINES_MACROS = re.compile(r"\\(newcommand|renewcommand|providecommand|newenvironment|renewenvironment|def|gdef|edef|"
                            r"let|DeclareMathOperator)(?![A-Za-z])")
ENVIRONMENT_ALIASES = {"aligned": "align*"}  # latex2mathml lays out align* (without numbers), not aligned
CHARACTER_REFERENCE = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")  # how latex2mathml writes its symbols
VERBATIM = {"code", "pre", "kbd"}  # never typeset (MathJax skipped them too)
MAX_FORMULA_CHARS = 2_000
MAX_DEPTH = 60


class MathQuota:
    """What one page may typeset (about 1 s of work at most): latex2mathml takes about 20 µs a character,
    and a learner's Markdown has no size limit. Past it, the math stays TeX. A course notebook has at most
    about a hundred formulas."""

    def __init__(self, formulas=2_000, characters=100_000):
        self.formulas, self.characters = formulas, characters

    def take(self, tex):
        return self.take_lengths((len(tex),))

    def take_lengths(self, lengths):
        """Take formulas of these lengths, in order: all of them, or (False) none."""
        formulas, characters = self.formulas, self.characters
        for length in lengths:
            if formulas < 1 or length > min(characters, MAX_FORMULA_CHARS):
                return False
            formulas, characters = formulas - 1, characters - length
        self.formulas, self.characters = formulas, characters
        return True


def typeset(tex, display=False):
    """``tex`` as a MathML element tree (xml.etree), or None when it cannot be typeset safely: a syntax
    latex2mathml does not know, a macro definition, an element outside ``MATHML``, nesting deeper than
    MAX_DEPTH."""
    if len(tex) > MAX_FORMULA_CHARS or DEFINES_MACROS.search(tex):
        return None
    for alias, name in ENVIRONMENT_ALIASES.items():
        tex = tex.replace(f"\\begin{{{alias}}}", f"\\begin{{{name}}}").replace(f"\\end{{{alias}}}", f"\\end{{{name}}}")
    try:
        math = convert_to_element(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml's own errors for bad TeX, and RecursionError for very deep TeX
        return None
    pending = [(math, 1)]
    while pending:
        element, depth = pending.pop()
        if element.tag not in MATHML or depth > MAX_DEPTH:
            return None
        pending.extend((child, depth + 1) for child in element)
    return math


def _text(value):
    """latex2mathml's text, its symbols (&#x...;) as characters; the serializer escapes it again."""
    return CHARACTER_REFERENCE.sub(lambda found: html.unescape(found[0]), value)


def _tokens(element):
    """html5lib tokens of a ``typeset`` tree, with only the attributes ``MATHML`` allows."""
    allowed = MATHML[element.tag]
    attributes = {(None, name): value for name, value in element.attrib.items()
                  if name in allowed and allowed[name](value)}
    yield {"type": "StartTag", "name": element.tag, "namespace": MATHML_NAMESPACE, "data": attributes}
    if element.text:
        yield {"type": "Characters", "data": _text(element.text)}
    for child in element:
        yield from _tokens(child)
        if child.tail:
            yield {"type": "Characters", "data": _text(child.tail)}
    yield {"type": "EndTag", "name": element.tag, "namespace": MATHML_NAMESPACE}


def _formula(found):
    """(TeX, display?) of a TEX match."""
    if found["environment"]:
        return found["environment"], True
    for group, display in (("display", True), ("display_latex", True), ("inline", False), ("inline_latex", False)):
        if found[group] is not None:
            return found[group], display


class TypesetMath(bleach.html5lib_shim.Filter):
    """After the sanitiser: the TeX in text outside code becomes MathML tokens (``typeset``, ``MATHML``).

    bleach hands text over in pieces (Characters, and an Entity token for each ``&gt;``): each run of them
    is read as one text, and given back as it came unless a formula in it is typeset."""

    def __init__(self, source, quota):
        super().__init__(source)
        self.quota = quota

    def __iter__(self):
        verbatim, text = 0, []
        for token in super().__iter__():
            if token["type"] in ("Characters", "Entity") and verbatim <= 0:
                text.append(token)
                continue
            yield from self._typeset(text)
            text = []
            if token["type"] in ("StartTag", "EndTag") and token["name"] in VERBATIM:
                verbatim += 1 if token["type"] == "StartTag" else -1
            yield token
        yield from self._typeset(text)

    def _typeset(self, pieces):
        text = "".join(piece["data"] if piece["type"] == "Characters" else html.unescape(f"&{piece['name']};")
                       for piece in pieces)
        typeset_tokens, done = [], 0
        for found in TEX.finditer(text) if "$" in text or "\\" in text else ():
            tex, display = _formula(found)
            math = typeset(tex, display) if self.quota.take(tex) else None
            if math is None:
                continue
            if found.start() > done:
                typeset_tokens.append({"type": "Characters", "data": text[done:found.start()]})
            typeset_tokens.extend(_tokens(math))
            done = found.end()
        if not typeset_tokens:
            yield from pieces
            return
        yield from typeset_tokens
        if done < len(text):
            yield {"type": "Characters", "data": text[done:]}


def _cleaner(quota):
    # Disallowed tags are shown as text (``<script>`` reads as such), comments dropped; then the math.
    return bleach.Cleaner(tags=TAGS, attributes=_allowed_attribute, protocols={"http", "https", "mailto", "data"},
                          css_sanitizer=CSSSanitizer(allowed_css_properties=STYLES), strip=False, strip_comments=True,
                          filters=[lambda source: TypesetMath(source, quota)])


class _NotingQuota:
    """A page's MathQuota that notes the length of each formula it let through, and whether it refused one."""

    def __init__(self, quota):
        self.quota, self.taken, self.refused = quota, [], False

    def take(self, tex):
        if self.quota.take(tex):
            self.taken.append(len(tex))
            return True
        self.refused = True
        return False


class SanitisedTexts:
    """The texts a worker has sanitised, kept (least recently used first out, ``max_chars`` in all) so that the
    release's Markdown, the same on every learner's page, is parsed once rather than once a page.

    A kept text is reused only where it is the same and the page's quota lets every formula of it through
    again, in order: what ``sanitise_html`` would compute afresh. A text whose formulas met the end of a quota
    is not kept."""

    def __init__(self, max_chars=8_000_000, max_text_chars=200_000):
        self.max_chars, self.max_text_chars = max_chars, max_text_chars
        self.kept, self.chars = OrderedDict(), 0  # text -> (sanitised, formula lengths)

    def sanitise(self, text, quota):
        kept = self.kept.get(text)
        if kept is not None and quota.take_lengths(kept[1]):
            self.kept.move_to_end(text)
            return kept[0]
        noting = _NotingQuota(quota)
        clean = _cleaner(noting).clean(text)
        if not noting.refused and len(text) <= self.max_text_chars:
            self._keep(text, clean, tuple(noting.taken))
        return clean

    def _keep(self, text, clean, lengths):
        if text in self.kept:
            return
        self.kept[text] = (clean, lengths)
        self.chars += len(text) + len(clean)
        while self.chars > self.max_chars and self.kept:
            old_text, (old_clean, _) = self.kept.popitem(last=False)
            self.chars -= len(old_text) + len(old_clean)


SANITISED = SanitisedTexts()


def sanitise_html(value, quota=None):
    """``value`` (HTML) with only the tags, attributes and styles above: no script, handler, frame, form,
    style sheet, meta or base tag, javascript: or remote image; its math typeset as MathML (``quota``:
    what is left of the page's MathQuota, a fresh one by default)."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    return SANITISED.sanitise(text, MathQuota() if quota is None else quota)


def _page_quota(context):
    """The MathQuota of the page being written (kept in nbconvert's resources, one per notebook)."""
    resources = context.get("resources")
    if not isinstance(resources, dict):
        return MathQuota()
    return resources.setdefault("feedback_math_quota", MathQuota())


@pass_context
def clean_html(context, value):
    """The feedback template's clean_html: sanitise_html within the page's math quota."""
    return sanitise_html(value, _page_quota(context))


@pass_context
def strip_files_prefix_and_sanitise(context, value):
    """nbconvert's strip_files_prefix, then sanitise_html: the last step of every Markdown rendering in
    nbgrader's feedback template (which never calls clean_html)."""
    return sanitise_html(strip_files_prefix(value), _page_quota(context))


# ---------------------------------------------------------------- the page's own words

def page_words(nb):
    """The feedback page's own words (templates/course_feedback, nbgrader's feedback template in the notebook's
    language): its Jinja filter ``page_words``. The prompts keep ``{count}`` for the template to fill."""
    with speaking(notebook_language(nb) if hasattr(nb, "get") else None):
        return {
            "lang": i18n.language(),  # the page's <html lang>: a screen reader reads it in this language's voice
            "graded_cells": tr("Graded cells"), "test_code": tr("Test code"), "points_lost": tr("points lost"),
            "code": tr("Code"), "table": tr("Table"), "formula": tr("Formula"),
            "score": tr("Score:"), "top": tr("Top"), "comment": tr("Comment"), "comments": tr("Comments:"),
            "test_cell": tr("Test cell"), "coding_response": tr("Coding free-response"),
            "written_response": tr("Written response"), "task": tr("Task"),
            "late_penalty": tr("Late submission penalty"),
            "answer": tr("Student's answer"), "student_task": tr("Student's task"), "grade_cell": tr("Grade cell:"),
            "input_prompt": tr("In [{count}]:", count="{count}"), "output_prompt": tr("Out[{count}]:", count="{count}"),
        }


# ---------------------------------------------------------------- the page's own style

# Inlined in the page's head (preprocessors.FeedbackCSS), after Bootstrap's and the template's: long lines of
# outputs and of the grader's messages wrap instead of running off the right edge (Bootstrap's pre scrolls, and
# prints cut), and the MathML above gets a math font where the reader's system has one. Then the page for every
# reader (issue 53; templates/course_feedback/page.html.j2 has its structure): text and links at WCAG AA contrast
# (>= 4.5:1; links underlined, as their colour is close to the text's), focus rings >= 3:1 against what is around
# them, Bootstrap's "¶" links to Markdown headings gone (a link named "¶" says nothing), and a layout that reflows
# at 375 px and 200 % zoom: code, tables and displayed formulas too wide scroll inside their own focusable box
# (.scroll-box), never the page.
FEEDBACK_CSS = """
div.output_area pre, div.output_subarea pre, div.output_text pre {
    white-space: pre-wrap;
    word-break: normal;
    overflow-wrap: anywhere;
}
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", math; }
math[display="block"] { margin: 0.5em 0; }

body { color: #222; }
a, a:visited { color: #1a4f80; text-decoration: underline; }
a:hover, a:focus { color: #0b2e4d; }
a:focus, summary:focus, [tabindex]:focus { outline: 3px solid #1a4f80; outline-offset: 2px; }
a.anchor-link { display: none; }
img { max-width: 100%; height: auto; }
main.feedback-page { padding-left: 8px; padding-right: 8px; max-width: 100%; }
h1.page-score { font-size: 22px; margin: 0.2em 0 0.4em; }
h2.toc-heading { font-size: 16px; margin: 0.6em 0 0.3em; }
h1, h2, #toc li, .cell-heading, summary { overflow-wrap: anywhere; }
#toc ol { padding-left: 2em; margin-bottom: 0.3em; }
#toc li { margin: 0.15em 0; }
strong.points-lost, li.late-penalty { color: #9b1c1c; }
div.nbgrader_cell .panel-heading.cell-heading {
    height: auto; padding: 0.4em 0.6em; color: #fff; background-color: #1f4e79; border-color: #1f4e79;
    display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 0.2em 1em;
}
.cell-heading h2 { font-size: 15px; line-height: 1.5; margin: 0; }
.cell-heading strong.points-lost { color: #fff; }
.cell-heading a, .cell-heading a:visited, .cell-heading a:hover, .cell-heading a:focus { color: #fff; }
.cell-heading a:focus { outline-color: #ffd34d; }
.cell-heading code { color: #7d1530; background-color: #fbeff2; }
div.test-heading { margin-top: 0.6em; }
details.test-code { margin: 0.3em 0 0.6em; }
details.test-code > summary { display: list-item; padding: 0.2em 0.4em; cursor: pointer; }
.rendered_html th, .rendered_html td { padding: 0.2em 0.6em; border: 1px solid #ddd; }
.scroll-box { max-width: 100%; overflow-x: auto; }
.scroll-box pre { overflow: visible; display: inline-block; min-width: 100%; box-sizing: border-box;
                  word-break: normal; word-wrap: normal; margin-bottom: 0; }
span.math-box { display: block; overflow-x: auto; overflow-y: hidden; }
.rendered_html pre { white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; }
.rendered_html .scroll-box pre { white-space: pre; }
div.text_cell_render, div.output_subarea, div.inner_cell, div.panel-body { min-width: 0; max-width: 100%; }
@media (max-width: 600px) {
    body { padding-top: 0.3em; }
    div.prompt { display: none; }
    #notebook-container, div.panel-body { padding-left: 4px; padding-right: 4px; }
}
"""


def write_fallback(path: Path, records, title, language=None):
    """A plain page of ``records``' points and messages, where nbgrader could not write the feedback page; its own
    words in the submission's ``language`` (the messages are in it already)."""
    rows = "".join(
        f"<tr><td>{html.escape(r['grade_id'])}</td><td>{r['points']} / {r['max_points']}</td>"
        f"<td><pre>{html.escape(chr(10).join(r['feedback']))}</pre></td></tr>"
        for r in records
    )
    with speaking(language):
        head = "".join(f"<th>{html.escape(word)}</th>" for word in (tr("test"), tr("points"), tr("feedback")))
        lang = i18n.language()
    path.parent.mkdir(parents=True, exist_ok=True)
    from autograder.grading.outputs.page_font import with_hangul_font

    path.write_text(with_hangul_font(
        f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        "<style>pre { white-space: pre-wrap; overflow-wrap: anywhere; }</style></head><body>"
        f"<h1>{html.escape(title)}</h1><table border='1'><tr>{head}</tr>{rows}</table>"
        "</body></html>\n"), encoding="utf-8")


def feedback_folder(out: Path, submission):
    return out / "feedback" / submission.student / submission.assignment


def write_fallbacks(out: Path, submission, records, language=None):
    """A fallback page under OUT/feedback/ for each notebook in ``records``, in the submission's ``language``."""
    for notebook in sorted({r["notebook"] for r in records}):
        page = feedback_folder(out, submission) / f"{notebook}.html"
        write_fallback(page, [r for r in records if r["notebook"] == notebook],
                       f"{submission.student} / {submission.assignment} / {notebook}", language)
