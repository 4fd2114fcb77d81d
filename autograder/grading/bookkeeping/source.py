"""What grading needs from an assignment's source notebooks (solutions/<id>/*.ipynb)."""
from dataclasses import dataclass
from pathlib import Path

import nbformat

ANSWER, TEST, PROVIDED, CODE = "answer", "test", "provided", "code"


@dataclass(frozen=True)
class Cell:
    kind: str  # ANSWER (learner's), TEST (graded), PROVIDED (locked code: earlier units) or CODE (the rest)
    source: str
    grade_id: str | None = None
    points: float = 0.0


@dataclass(frozen=True)
class SourceNotebook:
    assignment: str
    name: str  # the notebook's file name without .ipynb
    path: Path
    cells: tuple

    @property
    def graded(self):
        """The graded test cells, in notebook order."""
        return [cell for cell in self.cells if cell.kind == TEST]


def nbgrader_meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def as_cell(cell):
    """A notebook cell as a :class:`Cell`, of its kind (None for Markdown and raw cells)."""
    if cell.get("cell_type") != "code":
        return None
    meta = nbgrader_meta(cell)
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    if meta.get("grade") and not meta.get("solution"):
        return Cell(TEST, source, str(meta.get("grade_id")), float(meta.get("points", 0) or 0))
    if meta.get("solution"):
        return Cell(ANSWER, source, str(meta.get("grade_id")))
    if meta.get("locked"):
        return Cell(PROVIDED, source, str(meta.get("grade_id")))
    return Cell(CODE, source)


def load_notebook(assignment, path: Path) -> SourceNotebook:
    nb = nbformat.read(str(path), as_version=4)
    cells = tuple(c for c in map(as_cell, nb.cells) if c is not None)
    return SourceNotebook(assignment, path.stem, path, cells)


def load_assignment(source_dir: Path, assignment):
    """The source notebooks of ``assignment``, sorted by name (empty if it is unknown)."""
    folder = Path(source_dir) / assignment
    return [load_notebook(assignment, p) for p in sorted(folder.glob("*.ipynb"))]


def known_assignments(source_dir: Path):
    return sorted(p.name for p in Path(source_dir).iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
