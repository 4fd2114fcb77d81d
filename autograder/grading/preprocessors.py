"""nbconvert preprocessors for the feedback the learner sees."""
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


class HideTestTracebacks(Preprocessor):
    """Replace the traceback of every graded test cell by its last line: tracebacks quote hidden test code."""

    enabled = Bool(True)

    def preprocess_cell(self, cell, resources, index):
        if cell.get("cell_type") == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename')}: {output.get('evalue')}"]
        return cell, resources
