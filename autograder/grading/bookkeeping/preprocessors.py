"""nbconvert preprocessors for the feedback the learner sees."""
import base64

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor
from traitlets import Bool, Integer

from autograder.grading.bookkeeping.grader_output import ERROR_OUTPUT
from autograder.grading.outputs.feedback_page import FEEDBACK_CSS
from learner_kit.i18n import add_translations, notebook_language, speaking, tr

add_translations("autograder.locales")  # the sentences below in the submission's language


class HideTestTracebacks(Preprocessor):
    """Replace the traceback of every graded test cell by its last line: tracebacks quote hidden test code."""

    enabled = Bool(True)

    def preprocess_cell(self, cell, resources, index):
        if cell.get("cell_type") == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename')}: {output.get('evalue')}"]
        return cell, resources


class LimitOutputBytes(Preprocessor):
    """Cap every output of the feedback in bytes: nbgrader's LimitOutput counts lines, and one 50 MB line is one line.

    Text beyond the cap is cut with a note; a non-text output (an image, say) over the cap is replaced by the note.
    """

    enabled = Bool(True)
    max_bytes = Integer(100_000, help="the most bytes one output keeps").tag(config=True)

    def _cut(self, text):
        data = text.encode("utf-8", "replace")
        if len(data) <= self.max_bytes:
            return text
        kept = data[: self.max_bytes].decode("utf-8", "ignore")
        return kept + f"\n... [{len(data) - self.max_bytes:,} more bytes of this output were cut from the feedback]"

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = self._cut("".join(output["text"]) if isinstance(output["text"], list) else str(output["text"]))
            if output.get("output_type") == "error":
                output["evalue"] = self._cut(str(output.get("evalue", "")))
                output["traceback"] = [self._cut(str(line)) for line in output.get("traceback", [])[:100]]
            data = output.get("data") or {}
            for mime in list(data):
                value = "".join(data[mime]) if isinstance(data[mime], list) else data[mime]
                if isinstance(value, str) and len(value) > self.max_bytes:
                    if mime.startswith("text/") and mime != "text/html":
                        data[mime] = self._cut(value)
                    else:
                        del data[mime]
                        data.setdefault("text/plain", f"[an output of {len(value):,} bytes ({mime}) was cut from the feedback]")
        return cell, resources


def image_size(data):
    """(width, height) that a PNG, GIF, JPEG or WebP file declares in its header, or None for any other bytes.

    A browser allocates width x height pixels to draw an image, whatever its file's size: a 389 kB PNG can declare
    20000 x 20000 (1.6 GB decoded), so an image's bytes alone do not bound what its page costs.
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _webp_size(data):
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 30:
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    return None


def _jpeg_size(data):
    """The frame's size from the first start-of-frame marker (SOF0-SOF15, not DHT, JPG or DAC)."""
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker, length = data[at + 1], int.from_bytes(data[at + 2:at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
        at += 2 + length
    return None


def _decoded(value):
    try:
        return base64.b64decode("".join(value) if isinstance(value, list) else str(value))
    except (ValueError, TypeError):
        return b""


# one transparent pixel: what stands for an attachment left out
PLACEHOLDER_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


class LimitImages(Preprocessor):
    """Images on the feedback page, outputs and Markdown cells' attachments alike, within what a page may cost.

    An image is left out, with a line that says so, when its data is over ``max_bytes`` or it declares more than
    ``max_pixels`` (or its size cannot be read: a browser would find out by drawing it). LimitOutputBytes caps
    outputs in bytes; attachments reach the page as they are, so a 20 MB one made a 21 MB page, and a small PNG of
    20000 x 20000 kept headless Chromium from drawing the page at all.
    """

    enabled = Bool(True)
    max_bytes = Integer(100_000, help="the most bytes one image or attachment keeps").tag(config=True)
    max_pixels = Integer(4096 * 4096, help="the most pixels (width x height) one image may declare").tag(config=True)

    def _why_left_out(self, mime, value):
        size = len("".join(value) if isinstance(value, list) else str(value))
        if size > self.max_bytes:
            return tr("{size:,} bytes", size=size)
        if not mime.startswith("image/") or mime == "image/svg+xml":
            return None
        found = image_size(_decoded(value))
        if found is None:
            return tr("a size that cannot be read")
        if found[0] * found[1] > self.max_pixels:
            return tr("{width} x {height} pixels", width=found[0], height=found[1])
        return None

    def preprocess(self, nb, resources):
        with speaking(notebook_language(nb)):
            return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        notes = []
        for name, bundle in list((cell.get("attachments") or {}).items()):
            for mime, value in list((bundle or {}).items()):
                why = self._why_left_out(mime, value)
                if why:  # a placeholder, not nothing: nbconvert stops at a Markdown link to a missing attachment
                    del bundle[mime]
                    bundle["image/png"] = PLACEHOLDER_PNG
                    notes.append(tr("[the attached image {name} ({why}) was left out of this page: over its limit]",
                                    name=name, why=why))
        if notes:
            cell["source"] = "".join(cell.get("source", "")) + "\n\n" + "\n\n".join(f"*{note}*" for note in notes)
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            for mime in [m for m in data if m.startswith("image/")]:
                why = self._why_left_out(mime, data[mime])
                if why:
                    del data[mime]
                    data["text/plain"] = tr("[an image ({why}) was left out of this page: over its limit]", why=why)
        return cell, resources


class SafeOutputMetadata(Preprocessor):
    """Drop the output metadata the feedback template would print unsafely (a kernel sends any metadata it likes).

    nbconvert's template writes an image's width and height unquoted (``width={{ width | escape_html }}``), so
    a width of ``"1 onerror=..."`` adds a handler to the ``<img>``: only numbers are kept. ``filenames`` makes an
    image load any address; feedback images are always embedded, so it goes.
    """

    enabled = Bool(True)

    @staticmethod
    def _numbers_only(metadata):
        for key in ("width", "height"):
            if key in metadata and (isinstance(metadata[key], bool) or not isinstance(metadata[key], (int, float))):
                del metadata[key]

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            metadata = output.get("metadata")
            if not isinstance(metadata, dict):
                continue
            metadata.pop("filenames", None)
            self._numbers_only(metadata)
            for entry in metadata.values():
                if isinstance(entry, dict):
                    self._numbers_only(entry)
        return cell, resources


def unit_and_aspect(grade_id):
    """``Unit-visible`` -> (Unit, "visible"), ``Unit-hidden-aspect`` -> (Unit, aspect); any other grade id is
    its own unit and aspect (the course's naming, as class_report.unit_of reads it)."""
    if grade_id.endswith("-visible"):
        return grade_id[: -len("-visible")], "visible"
    unit, found, aspect = grade_id.rpartition("-hidden-")
    return (unit, aspect) if found and unit and aspect else (grade_id, grade_id)


def _show(output, text):
    """An OutOfKernelCheck output that reads ``text`` alone (nbgrader's template prints the traceback)."""
    output["evalue"], output["traceback"] = text, [text]


class OneMessagePerUnit(Preprocessor):
    """The grader's messages (the OutOfKernelCheck outputs scratch.record_final adds to graded cells whose
    verdict failed) once per unit and mistake, without the ``OutOfKernelCheck:`` prefix.

    Every aspect of a unit usually fails for one mistake, with the same message but for the case it names.
    The first cell of the unit that shows a mistake (its message's first line, ``[id] ...``) lists the aspects
    it cost and the message: ``values, masks, float64: [sdpa-no-scale] ...``; the unit's other cells with that
    mistake say "see above" and only the lines of their message that the first one does not have. Other
    mistakes of the unit get their own message. results.json keeps every cell's full message.
    """

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        firsts = {}  # (unit, first line) -> {"output", "message", "aspects"} of the cell showing it in full
        with speaking(notebook_language(nb)):
            for cell in nb.cells:
                grade_id = str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
                for output in cell.get("outputs", []):
                    if output.get("output_type") != "error" or output.get("ename") != ERROR_OUTPUT:
                        continue
                    message = str(output.get("evalue", ""))
                    unit, aspect = unit_and_aspect(grade_id)
                    first = firsts.setdefault((unit, message.split("\n", 1)[0]),
                                              {"output": output, "message": message, "aspects": []})
                    first["aspects"].append(aspect)
                    if first["output"] is not output:
                        known = set(first["message"].splitlines())
                        here = [line for line in message.splitlines() if line.strip() and line not in known]
                        see_above = tr("See above, at {aspect}: the same mistake.", aspect=first["aspects"][0])
                        _show(output, "\n".join([see_above, *here]))
            for first in firsts.values():
                _show(first["output"], f"{', '.join(first['aspects'])}: {first['message']}")
        return nb, resources


class LatexOutputsAsMarkdown(Preprocessor):
    """An output's LaTeX (IPython's ``Math``, sympy) also as Markdown, which the page renders, math typeset as
    MathML (feedback_page.py); the template would print the LaTeX as text, for a MathJax the page no longer loads."""

    enabled = Bool(True)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            if "text/latex" in data and not {"text/html", "text/markdown"} & set(data):
                latex = data["text/latex"]
                data["text/markdown"] = "".join(latex) if isinstance(latex, list) else str(latex)
        return cell, resources


class FeedbackCSS(CSSHTMLHeaderPreprocessor):
    """nbconvert's CSS for the page's head (pygments' colours), then the feedback page's own
    (feedback_page.FEEDBACK_CSS: long lines wrap, math gets a math font, WCAG AA contrast and focus rings, a
    layout that reflows on a phone; the last style sheet of the head, so it wins). Enabled: nbgrader registers its
    preprocessors as they are, and CSSHTMLHeaderPreprocessor's default is off."""

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        resources["inlining"]["css"].append(FEEDBACK_CSS)
        return nb, resources
