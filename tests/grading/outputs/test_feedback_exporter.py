"""The feedback pages' exporter (autograder/grading/outputs/feedback_exporter.py) writes what nbconvert's HTMLExporter writes."""
import base64

import nbformat
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter

from autograder.grading.outputs.feedback_exporter import COMPILED, NO_ALT, RENDERED, FeedbackExporter, accessible
from autograder.paths import SOLUTIONS

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(16)).decode()


def test_the_accessibility_pass_on_text():
    page = ('<div class="jp-Cell-inputWrapper"><img src="a.png"><img alt="mine" src="b.png"></div>'
            '<div class="jp-OutputArea-output jp-RenderedText">x</div><div class="other">&lt;img src=c&gt;</div>')
    soup = BeautifulSoup(accessible(page), "html.parser")
    assert [img.get("alt") for img in soup.find_all("img")] == [NO_ALT.split('"')[1], "mine"]
    assert [div.get("tabindex") for div in soup.find_all("div")] == ["0", "0", None]
    assert "&lt;img src=c&gt;" in accessible(page)  # text that reads like a tag is left alone


def semantics(html):
    """What a reader and a screen reader get from a page: its text, each image's alt, which elements take focus."""
    soup = BeautifulSoup(html, "html.parser")
    return (soup.get_text(), [img.get("alt") for img in soup.find_all("img")],
            [(tag.name, tuple(tag.get("class") or ())) for tag in soup.find_all(tabindex="0")])


def test_a_course_notebook_is_written_as_nbconverts_exporter_writes_it():
    notebook = nbformat.read(str(SOLUTIONS / "04-feed-forward" / "04-feed-forward.ipynb"), as_version=4)
    code = next(cell for cell in notebook.cells if cell.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG}),
                    nbformat.v4.new_output("stream", name="stdout", text="printed\n")]
    theirs, _ = HTMLExporter().from_notebook_node(notebook)
    ours, _ = FeedbackExporter().from_notebook_node(notebook)
    assert semantics(ours) == semantics(theirs)
    assert semantics(ours)[1] and len(semantics(ours)[2]) > 20
    assert COMPILED.compiled  # the templates were compiled once, for the exporters after this one
    again, _ = FeedbackExporter().from_notebook_node(notebook)
    assert again == ours


def test_repeated_cells_are_rendered_once_and_the_same():
    """The second student's page reuses the first's highlighted code and Markdown (RENDERED), and is what nbconvert
    writes; a cell the learner changed, and a Markdown cell with an attachment, are made anew."""
    RENDERED.clear()
    first = nbformat.read(str(SOLUTIONS / "03-add-norm" / "03-add-norm.ipynb"), as_version=4)
    FeedbackExporter().from_notebook_node(first)
    kept = dict(RENDERED)
    assert any(key[0] == "code" for key in kept) and any(key[0] == "markdown" for key in kept)
    second = nbformat.read(str(SOLUTIONS / "03-add-norm" / "03-add-norm.ipynb"), as_version=4)
    code = next(cell for cell in second.cells if cell.cell_type == "code")
    code.source += "\n# a learner's own line"
    markdown = next(cell for cell in second.cells if cell.cell_type == "markdown")
    markdown.source += "\n\n![figure](attachment:figure.png)"
    markdown.attachments = {"figure.png": {"image/png": PNG}}
    ours, _ = FeedbackExporter().from_notebook_node(second)
    theirs, _ = HTMLExporter().from_notebook_node(second)
    assert semantics(ours) == semantics(theirs)
    assert "a learner&#39;s own line" in ours or "a learner's own line" in ours
    made = set(RENDERED) - set(kept)
    assert [key[1] for key in made if key[0] == "code"] == [code.source]  # only the changed cell was highlighted
    assert not any(key[0] == "markdown" and key[1] == markdown.source for key in RENDERED)  # its image is its own
    assert f"data:image/png;base64,{PNG}" in ours
    RENDERED.clear()
    assert FeedbackExporter().from_notebook_node(second)[0] == ours  # kept or made anew, the same page
