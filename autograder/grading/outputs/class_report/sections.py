"""Where each unit is taught: the index of the release notebooks' ## sections, by the units their cells grade.

The report links to its own list of these sections ("Where each unit is taught"); hub/live uses the same index.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.outputs.class_report.records import unit_of
from autograder.paths import COURSE

SUMMARY_CHARS = 280  # of the paragraph under a teaching section's heading, in "Where each unit is taught"


def heading_text(heading):
    """A Markdown heading's text as rendered (code marks, emphasis and links removed)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links -> their text
    text = text.replace("`", "").replace("**", "").replace("__", "")
    return re.sub(r"(?<!\w)\*(\S[^*]*)\*", r"\1", text).strip()


def notebook_sections(path: Path):
    """[(kind, value)] of a notebook, in order: ("heading", (text, first paragraph)) for ## headings,
    ("cell", (grade_id, solution))."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = []
    for cell in notebook.get("cells", []) if isinstance(notebook, dict) else []:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "markdown":
            lines = source.splitlines()
            for k, line in enumerate(lines):
                if line.startswith("## "):
                    items.append(("heading", (line[3:].strip(), first_paragraph(lines[k + 1:]))))
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if meta.get("grade_id"):
            items.append(("cell", (str(meta["grade_id"]), bool(meta.get("solution")))))
    return items


def first_paragraph(lines, limit=SUMMARY_CHARS):
    """The first paragraph of Markdown ``lines`` as plain text (marks removed), cut to ``limit`` characters."""
    paragraph = []
    for line in lines:
        if line.startswith("#") or (not line.strip() and paragraph):
            break
        if line.strip():
            paragraph.append(line.strip())
    text = heading_text(" ".join(paragraph)).replace("$", "")
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


@dataclass(frozen=True)
class Section:
    """Where a unit is taught: the release notebook (its path in the course folder), the ## heading above the
    unit's answer cell, the first paragraph under it, and the id of its entry in the report."""
    assignment: str
    unit: str
    notebook: str
    title: str
    summary: str

    @property
    def anchor(self):
        return "taught-" + re.sub(r"[^A-Za-z0-9_-]", "_", f"{self.assignment}-{self.unit}")


class Teaching:
    """The release notebook section that teaches each unit: the ## heading above its answer cell.

    The report links to its own list of these sections ("Where each unit is taught"), which says in words
    which notebook and which section to open: a link into the notebook files would break as soon as the
    page is moved or mailed, and a browser shows a notebook as JSON anyway.
    """

    def __init__(self, out: Path, course_dir: Path | None = COURSE):
        self.out, self.course_dir, self.cache = out, course_dir, {}

    def section(self, assignment, notebook, unit):
        """The Section teaching ``unit``, or None."""
        key = (assignment, notebook, unit)
        if key not in self.cache:
            self.cache[key] = self._find(assignment, notebook, unit)
        return self.cache[key]

    @property
    def found(self):
        """Every Section found so far, in the order they were asked for."""
        return [s for s in self.cache.values() if s is not None]

    def _find(self, assignment, notebook, unit):
        if self.course_dir is None or not notebook:
            return None
        path = Path(self.course_dir) / assignment / f"{notebook}.ipynb"
        heading, first_graded = None, None
        for kind, value in notebook_sections(path):
            if kind == "heading":
                heading = value
            elif value == (unit, True):
                first_graded = heading  # the answer cell: the section that teaches the unit
                break
            elif first_graded is None and unit_of(value[0]) == unit:
                first_graded = heading or ("", "")
        if not first_graded or not first_graded[0]:
            return None
        shown = f"{Path(self.course_dir).name}/{assignment}/{notebook}.ipynb"
        return Section(assignment, unit, shown, heading_text(first_graded[0]), first_graded[1])


def catalogue():
    """{id: (what, why)}: the text learners see for each id."""
    try:
        from learner_kit.messages import CATALOGUE
    except ImportError:
        return {}
    return dict(CATALOGUE)
