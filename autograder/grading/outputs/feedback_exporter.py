"""nbconvert's HTMLExporter for the feedback pages, without the two costs it pays again on every page a
worker writes (nbgrader makes a new exporter for each):

- its Jinja templates are compiled once per process (a bytecode cache shared by every exporter; Jinja
  checks each template's source against what it compiled), not once per page;
- its accessibility pass (alt text on images without one, keyboard focus on each cell's input and
  outputs) is made on the page's text, not by parsing the whole page with BeautifulSoup and writing
  it again (about half of generate_feedback's time on a course notebook: thousands of highlighted
  code tokens).

It also embeds the course's Korean font, the glyphs the page uses only, where the page has Hangul
(page_font.py): a machine without a Korean font otherwise draws it as empty boxes.
"""
import re

from jinja2 import BytecodeCache
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

    def from_notebook_node(self, nb, resources=None, **kw):
        # HTMLExporter.from_notebook_node, with accessible() in place of its BeautifulSoup pass
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code", self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self,
                                                                       resources=resources))
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return with_hangul_font(accessible(html)), resources
