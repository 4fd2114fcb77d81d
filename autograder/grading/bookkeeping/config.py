"""Settings of a grading run (traits: their help is docs/options.md's), the course's config files, and the nbgrader
configuration of one scratch course directory.

The course's own ``nbgrader_config.py`` (repository root) is loaded first, so stock
``nbgrader autograde`` and ``autograder grade`` grade by the same rules; only the
directories, the gradebook and a few speed settings are overridden here.
"""
from dataclasses import FrozenInstanceError
from pathlib import Path

from traitlets import Bool, Int, Unicode
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from autograder.paths import ROOT, SOLUTIONS
from sandbox_servers import budget


class Sandbox(Configurable):
    """Where learners' code runs: in bubblewrap, with a limit on each run's memory."""

    sandbox = Bool(True, help="run learners' code without bubblewrap (NOT safe for untrusted code; warns on every "
                              "run)").tag(config=True, flag="--no-sandbox")  # sandbox.py; False only with --no-sandbox
    kernel_memory_mb = Int(4096, help="MiB of resident memory (not address space) each grading kernel of --kernel-run "
                                      "may hold, with its processes").tag(config=True)
    verifier_memory_mb = Int(3072, help="MiB of resident memory each run of a notebook outside nbgrader's kernel (the "
                                        "run that decides) may hold, with its processes").tag(config=True)


class Settings(Sandbox):
    """The run's settings: the source notebooks, a cell's time, a notebook's budget, nbgrader's kernel.

    What each grading worker gets (a frozen value: compared, hashed and pickled by its to_json()); keyword arguments
    win over ``config`` (c.Settings.*, c.Sandbox.*), as in any traitlets Configurable.
    """

    source_dir = Unicode(str(SOLUTIONS), help="source notebooks with hidden tests (default solutions/)").tag(
        config=True, flag="--source", arg_type=Path)
    cell_timeout = Int(None, allow_none=True, help="seconds a cell may run (default: nbgrader_config.py's "
                                                   "Execute.timeout)").tag(config=True, flag="--timeout")
    notebook_budget_s = Int(budget.DEFAULT_S, help=budget.HELP).tag(config=True, flag="--" + budget.NAME)
    # nbgrader's kernel runs each notebook too, after the one run that decides (worker.py)
    kernel_run = Bool(False, help="also run each notebook in nbgrader's kernel, after the run that decides: a second "
                                  "opinion that can only lower a score, at about twice the time").tag(
        config=True, flag="--kernel-run")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False) and self.has_trait(name):
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super().__setattr__(name, value)

    def to_json(self):
        return {name: getattr(self, name) for name in self.trait_names(config=True)}

    def __reduce__(self):  # what a worker gets: the values, not the config they came from
        return _settings, (self.to_json(),)

    def __eq__(self, other):
        return type(other) is type(self) and other.to_json() == self.to_json()

    def __hash__(self):
        return hash(tuple(sorted(self.to_json().items())))

    def __repr__(self):
        return f"Settings({', '.join(f'{name}={value!r}' for name, value in sorted(self.to_json().items()))})"


def _settings(values):
    return Settings(**values)


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


GRADER_CONFIG = "autograder_config.py"  # the course's settings of the grader itself, beside nbgrader_config.py


def grader_config_file():
    return ROOT / GRADER_CONFIG


def load_grader_config(with_course=True) -> Config:
    """The grader's options (docs/options.md) as the course sets them: nbgrader_config.py's AutograderGrade section
    (where the scheduler's address was kept first; not read unless ``with_course``), then autograder_config.py's
    sections, which win."""
    config = Config()
    course = load_course_config() if with_course else Config()
    if "AutograderGrade" in course:
        config.AutograderGrade = course.AutograderGrade
    path = grader_config_file()
    if path.is_file():
        config.merge(PyFileConfigLoader(path.name, path=str(path.parent)).load_config())
    return config


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
    from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests, Execute, GetGrades

    from autograder.grading.bookkeeping.cheaper_nbgrader import CheckCellMetadataCompiled
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
    # Kernels forked from a process that has imported torch & co. already (saves ~3-4 s per notebook); without
    # --kernel-run, no kernel at all: the outputs of the notebook's one run (recorded_run.py). nbgrader's check of
    # the cells' metadata, with its schema checked once per process, not for every cell (cheaper_nbgrader.py).
    replaced = {Execute: FORKED_EXECUTE if settings.kernel_run else RecordedRun,
                CheckCellMetadata: CheckCellMetadataCompiled}
    for steps_name in ("sanitize_preprocessors", "autograde_preprocessors"):
        steps = config.Autograde[steps_name] if steps_name in config.Autograde else None
        steps = steps or Autograde.class_traits()[steps_name].make_dynamic_default()
        config.Autograde[steps_name] = [replaced.get(step, step) for step in steps]
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
    # nbconvert validates the whole notebook against its schema after every preprocessor (a dozen for autograde);
    # once, after the last, is enough: an invalid notebook still fails, at the end (issue 49: ~0.1 s a notebook).
    config.Exporter.optimistic_validation = True
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
