"""Settings of a grading run, and the nbgrader configuration of one scratch course directory.

The course's own ``nbgrader_config.py`` (repository root) is loaded first, so stock
``nbgrader autograde`` and ``autograder grade`` grade by the same rules; only the
directories, the gradebook and a few speed settings are overridden here.
"""
from dataclasses import asdict, dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.paths import ROOT, SOLUTIONS
from sandbox_servers import budget


@dataclass(frozen=True)
class Settings:
    source_dir: str = str(SOLUTIONS)
    cell_timeout: int | None = None  # None: nbgrader_config.py's Execute.timeout
    kernel_memory_mb: int = 4096  # resident memory (not address space) of each grading kernel, with its processes
    verifier_memory_mb: int = 3072  # ... and of each out-of-kernel check
    notebook_budget_s: int = budget.DEFAULT_S  # --budget: sandbox_servers.budget.HELP says what it counts
    sandbox: bool = True  # learners' code runs in bubblewrap (sandbox.py); False only with --no-sandbox
    # nbgrader's kernel runs each notebook too, after the one run that decides (--kernel-run): a second
    # opinion that can only lower a score, at about twice the time (worker.py)
    kernel_run: bool = False

    def to_json(self):
        return asdict(self)


def course_config_file():
    return ROOT / "nbgrader_config.py"


def load_course_config() -> Config:
    """The course's nbgrader configuration (an empty Config when there is none)."""
    path = course_config_file()
    if not path.is_file():
        return Config()
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()


def configured_db_url():
    """CourseDirectory.db_url when nbgrader_config.py sets it (e.g. PostgreSQL), else None."""
    course = load_course_config()
    return course.CourseDirectory.db_url if "db_url" in course.CourseDirectory else None


def configured_course_id():
    """CourseDirectory.course_id when nbgrader_config.py sets one (the class report's title), else None; a broken
    nbgrader_config.py is the grader's business, not the report's."""
    try:
        course = load_course_config().CourseDirectory
    except Exception:  # noqa: BLE001
        return None
    return str(course.course_id).strip() or None if "course_id" in course else None


def configured_scheduler():
    """AutograderGrade.scheduler when nbgrader_config.py sets it (a Dask scheduler's address), else None."""
    course = load_course_config()
    return course.AutograderGrade.scheduler if "scheduler" in course.AutograderGrade else None


def cell_timeout(settings: Settings) -> int:
    if settings.cell_timeout is not None:
        return settings.cell_timeout
    course = load_course_config()
    return int(course.Execute.timeout) if "timeout" in course.Execute else 30


FEEDBACK_TEMPLATES = Path(__file__).resolve().parent.parent / "outputs" / "templates"  # base/mathjax.html.j2: no MathJax


def nbgrader_templates():
    """nbgrader's own template folder (its "feedback" template), which GenerateFeedback adds unless, as here,
    HTMLExporter.extra_template_basedirs is configured."""
    import nbgrader

    return str(Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader" / "templates")


# --kernel-run's preprocessor, named for nbgrader to import (in the worker, which runs it): bookkeeping does not
# import the run (.importlinter's grading-layers).
FORKED_EXECUTE = "autograder.grading.run.forked_kernels.ForkedExecute"


def scratch_config(settings: Settings, scratch: Path, db_url: str) -> Config:
    """nbgrader configuration for a scratch course directory ``scratch`` with gradebook ``db_url``."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import ClearHiddenTests, Execute, GetGrades

    from autograder.grading.bookkeeping import preprocessors as feedback
    from autograder.grading.outputs.feedback_exporter import FeedbackExporter
    from autograder.grading.bookkeeping.recorded_run import RecordedRun

    config = load_course_config()
    course = config.CourseDirectory
    course.root = str(scratch)
    course.source_directory = str(Path(settings.source_dir).resolve())
    course.release_directory = str(scratch / "release")
    course.submitted_directory = "submitted"
    course.autograded_directory = "autograded"
    course.feedback_directory = "feedback"
    course.db_url = db_url
    config.Exchange.root = str(scratch / "exchange")
    config.Execute.timeout = cell_timeout(settings)
    # A grading kernel holds nothing worth a graceful shutdown (saves ~1 s per notebook).
    config.Execute.shutdown_kernel = "immediate"
    # Kernels forked from a process that has imported torch & co. already (saves ~3-4 s per notebook).
    steps = config.Autograde.autograde_preprocessors if "autograde_preprocessors" in config.Autograde else None
    steps = steps or Autograde.class_traits()["autograde_preprocessors"].make_dynamic_default()
    # Without --kernel-run, no kernel at all: the outputs of the notebook's one run (recorded_run.py).
    run = FORKED_EXECUTE if settings.kernel_run else RecordedRun
    config.Autograde.autograde_preprocessors = [run if step is Execute else step for step in steps]
    # Feedback shows neither the hidden tests nor the tracebacks that would quote them; it is safe to
    # open: outputs capped in bytes, images (attachments too) in bytes and pixels, and the learner's HTML and
    # JavaScript sanitised (no <script> runs) in outputs, Markdown and raw cells alike (feedback_page.py says why both filters are replaced).
    # The grader's message shows once per unit and mistake; long lines wrap (FeedbackCSS). The page loads
    # nothing: its math is typeset as MathML by the same filters, and templates/base/mathjax.html.j2, found
    # before nbconvert's, takes the template's MathJax (from a CDN) out (nbgrader's API insists on its
    # "feedback" template, so the macro is replaced, not the template).
    config.GenerateFeedback.preprocessors = [
        GetGrades, feedback.HideTestTracebacks, feedback.OneMessagePerUnit, ClearHiddenTests, feedback.LimitOutputBytes,
        feedback.LimitImages, feedback.LatexOutputsAsMarkdown, feedback.SafeOutputMetadata, feedback.FeedbackCSS]
    config.GenerateFeedback.exporter_class = FeedbackExporter  # faster on a worker's many pages (feedback_exporter.py)
    config.HTMLExporter.sanitize_html = True
    config.HTMLExporter.filters = {"clean_html": "autograder.grading.outputs.feedback_page.clean_html",
                                   "strip_files_prefix": "autograder.grading.outputs.feedback_page.strip_files_prefix_and_sanitise",
                                   "page_words": "autograder.grading.outputs.feedback_page.page_words"}
    config.HTMLExporter.extra_template_basedirs = [str(FEEDBACK_TEMPLATES), nbgrader_templates()]
    # nbgrader's "feedback" template (its API insists on the name) in the notebook's language: a file path,
    # whose folder nbconvert puts first on its template path; the page extends nbgrader's index.html.j2.
    config.HTMLExporter.template_file = str(FEEDBACK_TEMPLATES / "course_feedback" / "page.html.j2")
    return config
