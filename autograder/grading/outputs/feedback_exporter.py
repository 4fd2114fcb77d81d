"""nbconvert's HTMLExporter for the feedback pages, without the two costs it pays again on every page a
worker writes (nbgrader makes a new exporter for each):

- its Jinja templates are compiled once per process (a bytecode cache shared by every exporter; Jinja
  checks each template's source against what it compiled), not once per page;
- its accessibility pass (alt text on images without one, keyboard focus on each cell's input and
  outputs) is made on the page's text, not by parsing the whole page with BeautifulSoup and writing
  it again (about half of generate_feedback's time on a course notebook: thousands of highlighted
  code tokens);
- a cell's highlighted code and rendered Markdown are kept for the next page with the same cell (every
  student's copy of the course's text and provided code): about half of the rest of a page's time was
  Pygments and the Markdown parser making the same HTML again (2.6 s and 3.6 s of 11 s over 20 pages).

It also embeds the course's Korean font, the glyphs the page uses only, where the page has Hangul
(page_font.py): a machine without a Korean font otherwise draws it as empty boxes.
"""
import json
import re

from jinja2 import BytecodeCache, pass_context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

from autograder.grading.outputs.page_font import with_hangul_font

NO_ALT = 'alt="No description has been provided for this image"'  # nbconvert's own words
IMAGE_WITHOUT_ALT = re.compile(r"<img\b(?![^>]*\salt=)", re.I)
FOCUSABLE = re.compile(r'<div (class="[^"]*\bjp-(?:Cell-inputWrapper|OutputArea-output)\b[^"]*")')


class _CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates in memory, for every exporter of this process."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket):
        code = self.compiled.get((bucket.key, bucket.checksum))
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket):
        self.compiled[(bucket.key, bucket.checksum)] = bucket.bytecode_to_string()


COMPILED = _CompiledTemplates()


class _Rendered(dict):
    """HTML already made from a cell's text, keyed by everything that goes into it; emptied when it holds
    MAX_ENTRIES (a worker grades one course: its cells repeat, a learner's own cells rarely do)."""

    MAX_ENTRIES = 4096

    def made(self, key, make):
        if key not in self:
            if len(self) >= self.MAX_ENTRIES:
                self.clear()
            self[key] = make()
        return self[key]


RENDERED = _Rendered()


class _KeptHighlight(Highlight2HTML):
    """nbconvert's code highlighting, each cell's HTML made once per process."""

    def __call__(self, source, language=None, metadata=None):
        magics = (metadata or {}).get("magics_language")
        key = ("code", source, language or self.pygments_lexer, magics, repr(self.extra_formatter_options))
        return RENDERED.made(key, lambda: super(_KeptHighlight, self).__call__(source, language, metadata))


def accessible(html):
    """HTMLExporter's accessibility pass, on the text: every <img> without alt text gets nbconvert's, and each
    cell's input and output areas take keyboard focus (tabindex="0")."""
    html = IMAGE_WITHOUT_ALT.sub(lambda found: f"{found[0]} {NO_ALT}", html)
    return FOCUSABLE.sub(r'<div tabindex="0" \1', html)


class FeedbackExporter(HTMLExporter):
    """HTMLExporter (whose configuration applies: traitlets reads a class's parents' sections) with the templates
    compiled once and the accessibility pass on text."""

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED
        return environment

    @pass_context
    def markdown2html(self, context, source):
        """HTMLExporter's Markdown filter, each cell's HTML made once per process (a cell with attachments each
        time: its images are its own)."""
        cell = context.get("cell", {})
        if cell.get("attachments"):
            return super().markdown2html(context, source)
        path = context.get("resources", {}).get("metadata", {}).get("path", "") if self.embed_images else ""
        key = ("markdown", source, path, self.embed_images, self.anchor_link_text, self.exclude_anchor_links,
               json.dumps(self.lexer_options, sort_keys=True, default=repr))
        return RENDERED.made(key, lambda: super(FeedbackExporter, self).markdown2html(context, source))

    def from_notebook_node(self, nb, resources=None, **kw):
        # HTMLExporter.from_notebook_node, with accessible() in place of its BeautifulSoup pass
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code", self.filters.get("highlight_code", _KeptHighlight(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self,
                                                                       resources=resources))
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return with_hangul_font(accessible(html)), resources
