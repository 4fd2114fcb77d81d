"""nbconvert preprocessors for the feedback the learner sees."""
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor
from traitlets import Bool, Integer

from autograder.grading.outputs.feedback_page import FEEDBACK_CSS
from autograder.grading.bookkeeping.scratch import ERROR_OUTPUT
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
    (feedback_page.FEEDBACK_CSS: long lines wrap, math gets a math font). Enabled: nbgrader registers its
    preprocessors as they are, and CSSHTMLHeaderPreprocessor's default is off."""

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        resources["inlining"]["css"].append(FEEDBACK_CSS)
        return nb, resources
