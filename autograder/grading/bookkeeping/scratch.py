"""One job's private nbgrader course directory: its own copy of the gradebook, so jobs never share a writer."""
import contextlib
import copy
import shutil
from pathlib import Path

import nbformat

from autograder.grading.bookkeeping.config import scratch_config
from autograder.grading.bookkeeping.grader_output import ERROR_OUTPUT, message_output
from autograder.grading.bookkeeping.source import nbgrader_meta
from autograder.paths import put_python_scripts_on_path


def sqlite_url(path: Path):
    return f"sqlite:///{path}"


def output_messages(cell):
    """What a graded cell showed that cost it points: errors and stderr."""
    messages = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error" and output.get("ename") != ERROR_OUTPUT:
            messages.append(f"{output.get('ename')}: {output.get('evalue')}".strip())
        elif output.get("output_type") == "stream" and output.get("name") == "stderr":
            messages.append("The cell wrote to stderr: " + str(output.get("text", ""))[:500].strip())
    return messages


def without_duplicate_ids(notebook):
    """Keep the nbgrader metadata of the last of cells sharing a grade_id only (as nbgrader does), and
    drop metadata without a grade_id: nbgrader leaves such cells an empty dict that its
    add_missing_cells step then fails on (KeyError: 'grade_id')."""
    seen = set()
    for cell in reversed(notebook.cells):
        if "nbgrader" not in cell.get("metadata", {}):
            continue
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id is None or grade_id in seen:
            del cell.metadata["nbgrader"]
        seen.add(grade_id)
    return notebook


def add_messages(notebook, messages):
    """Show each of ``messages`` ({grade_id: text}) as an error output of its graded cell."""
    for cell in notebook.cells:
        text = messages.get(nbgrader_meta(cell).get("grade_id"))
        if text and cell.cell_type == "code":
            cell.outputs.append(message_output(text))


class ScratchCourse:
    """nbgrader's autograde and generate_feedback, in-process, on copies under ``root``."""

    def __init__(self, settings, root: Path, template_db: Path):
        from nbgrader.apps import NbGraderAPI

        from autograder.grading.bookkeeping.cheaper_nbgrader import share_engines

        put_python_scripts_on_path()
        share_engines()  # a worker's many Gradebooks: one SQLAlchemy engine, its compiled statements kept
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template_db, root / "gradebook.db")
        self.db_url = sqlite_url(root / "gradebook.db")
        self.api = NbGraderAPI(config=scratch_config(settings, root, self.db_url))

    def _path(self, kind, submission, notebook, suffix=".ipynb"):
        return self.root / kind / submission.student / submission.assignment / f"{notebook}{suffix}"

    def autograde(self, submission, notebooks, timestamp=None):
        """Run nbgrader autograde on ``notebooks`` ({name: NotebookNode}) submitted at ``timestamp``; the error text, or None."""
        folder = self.root / "submitted" / submission.student / submission.assignment
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(self.root / "autograded" / submission.student / submission.assignment, ignore_errors=True)
        folder.mkdir(parents=True)
        for name, notebook in notebooks.items():
            nbformat.write(without_duplicate_ids(notebook), str(folder / f"{name}.ipynb"))
        if timestamp is not None:
            (folder / "timestamp.txt").write_text(timestamp, encoding="utf-8")
        result = self.api.autograde(submission.assignment, submission.student, force=True, create=True)
        return None if result["success"] else f"{result.get('log') or ''}\n{result.get('error') or 'nbgrader autograde failed'}"

    def forget(self, submission):
        """Remove what an earlier run of ``submission`` left (its autograded notebook is not this run's)."""
        for kind in ("submitted", "autograded", "feedback"):
            shutil.rmtree(self.root / kind / submission.student / submission.assignment, ignore_errors=True)

    def autograded(self, submission, notebook):
        """The autograded notebook, or None when nbgrader could not produce it."""
        path = self._path("autograded", submission, notebook)
        return nbformat.read(str(path), as_version=4) if path.is_file() else None

    def gradebook(self):
        """This course's nbgrader Gradebook (a context manager): one for a notebook's results, final scores and
        comments (results, record_final, comments), opened once rather than by each."""
        from nbgrader.api import Gradebook

        return Gradebook(self.db_url)

    @contextlib.contextmanager
    def _opened(self, gradebook):
        if gradebook is not None:
            yield gradebook
            return
        with self.gradebook() as opened:
            yield opened

    def results(self, submission, source_notebook, autograded=None, gradebook=None):
        """{grade_id: (points, messages)} as nbgrader graded the cells, or None when it could not. ``autograded``:
        the autograded notebook already read (self.autograded), else it is read here; ``gradebook``: this course's,
        open (self.gradebook), else it is opened here."""
        from nbgrader.api import MissingEntry

        if autograded is None:
            autograded = self.autograded(submission, source_notebook.name)
        if autograded is None:
            return None
        cells = {nbgrader_meta(c).get("grade_id"): c for c in autograded.cells if nbgrader_meta(c).get("grade")}
        results = {}
        with self._opened(gradebook) as gradebook:
            for cell in source_notebook.graded:
                try:
                    grade = gradebook.find_grade(cell.grade_id, source_notebook.name, submission.assignment, submission.student)
                    points = grade.auto_score if grade.auto_score is not None and not grade.needs_manual_grade else 0.0
                except MissingEntry:
                    points = 0.0
                results[cell.grade_id] = (float(points), output_messages(cells.get(cell.grade_id, {})))
        return results

    def record_final(self, submission, notebook, records, submitted=None, autograded=None, gradebook=None):
        """Put the final scores in this gradebook and the out-of-kernel messages in the notebook, for the feedback.

        Returns the notebook the instructor's formgrader shows (nbformat JSON): the autograded one, or where
        nbgrader made none, ``submitted`` (the learner's notebook) with each graded cell's messages; None
        without either. ``autograded``: the autograded notebook already read (changed here), else it is read;
        ``gradebook``: as for results."""

        if autograded is None:
            autograded = self.autograded(submission, notebook)
        if autograded is None:
            if submitted is None:
                return None
            shown = without_duplicate_ids(copy.deepcopy(submitted))
            messages = {r["grade_id"]: "\n".join(r["feedback"]) for r in records if r["feedback"]}
            add_messages(shown, messages)
            return nbformat.writes(shown)
        with self._opened(gradebook) as gradebook:
            for record in records:
                grade = gradebook.find_grade(record["grade_id"], notebook, submission.assignment, submission.student)
                grade.auto_score, grade.needs_manual_grade = record["points"], False
            gradebook.db.commit()
        add_messages(autograded, {r["grade_id"]: r["_verifier_message"] for r in records if r.get("_verifier_message")})
        path = self._path("autograded", submission, notebook)
        path.unlink()  # nbgrader leaves it read-only (0444): replaced, as a grader that is not root may, not written into
        text = nbformat.writes(autograded)  # made once, for the file (as nbformat.write writes it) and the caller
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        return text

    def comments(self, submission, notebook, gradebook=None):
        """{grade_id: comment} of the answer cells that nbgrader's autograde commented ("No response.": left as
        released); ``gradebook``: as for results."""
        from nbgrader.api import MissingEntry

        with self._opened(gradebook) as gradebook:
            try:
                found = gradebook.find_submission_notebook(notebook, submission.assignment, submission.student)
            except MissingEntry:
                return {}
            return {c.name: c.auto_comment for c in found.comments if c.auto_comment}

    def feedback(self, submission):
        """{notebook name: feedback HTML path} that nbgrader generate_feedback wrote."""
        self.api.generate_feedback(submission.assignment, submission.student, force=True)
        folder = self.root / "feedback" / submission.student / submission.assignment
        return {path.stem: path for path in folder.glob("*.html")}
