"""nbconvert preprocessors for the feedback the learner sees."""
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Integer


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
