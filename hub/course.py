"""The course's editions as nbgrader courses on the hub, and the instructor's course folders.

Each edition (language and level) is released as a course of nbgrader's exchange, with the same
assignment ids: `transformer` (English, guided), `transformer-ko`, `transformer-challenge`,
`transformer-ko-challenge`. The instructor's home is the English guided course's folder, and holds the
other editions' as the repository does (~/ko, ~/challenge, ~/challenge/ko: formgrader reads the
configuration of the folder its server starts in, the home), each with an nbgrader_config.py that
calls ``configure`` below:
the source and release are the repository's own (solutions/ and course/ of that edition, never
copied), the exchange is the hub's, and all four collect into one ~/submitted/ so that
one `autograder grade submitted --out graded` grades the whole class. ``release_feedback`` is
nbgrader's, fed with the course's feedback pages (``CourseFeedbackRelease``).
"""
import os
import shutil
from pathlib import Path

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

import exchange

REPO = Path(__file__).resolve().parent.parent
COURSE = "transformer"
GRADED = "graded"  # `autograder grade submitted --out graded`, in the instructor's home: what formgrader reads
# edition -> its folder in the repository (and in the instructor's home), its language, its course in the exchange
EDITIONS = {
    "en": {"folder": "", "lang": "en", "course_id": COURSE},
    "ko": {"folder": "ko", "lang": "ko", "course_id": f"{COURSE}-ko"},
    "en-challenge": {"folder": "challenge", "lang": "en", "course_id": f"{COURSE}-challenge"},
    "ko-challenge": {"folder": "challenge/ko", "lang": "ko", "course_id": f"{COURSE}-ko-challenge"},
}
CONFIG = '''"""nbgrader's course {course_id} ({edition}) on the class's JupyterHub: written by the hub when your server starts.

The settings are in {module}: the source and release are the course's own ({source}), the exchange the hub's.
"""
import sys

sys.path.insert(0, {hub!r})
import course  # noqa: E402

course.configure(get_config(), __file__, {edition!r})  # noqa: F821
'''


def course_id(edition):
    return EDITIONS[edition]["course_id"]


def instructor_folders(home, account):
    """The editions' course folders in the instructor's home, with their nbgrader_config.py, and graded/ (where
    formgrader's gradebook is, before the first grading run), owned by the instructor."""
    top = Path(home)
    (top / GRADED).mkdir(exist_ok=True)
    for edition, spec in EDITIONS.items():
        folder = top / spec["folder"] if spec["folder"] else top
        folder.mkdir(parents=True, exist_ok=True)
        text = CONFIG.format(course_id=course_id(edition), edition=edition, module=Path(__file__).resolve(),
                             source=REPO / spec["folder"] / "solutions", hub=str(Path(__file__).resolve().parent))
        config = folder / "nbgrader_config.py"
        if not config.is_file() or config.read_text(encoding="utf-8") != text:
            config.write_text(text, encoding="utf-8")
    paths = [top / GRADED, *(top / spec["folder"] / name for spec in EDITIONS.values() for name in ("", "nbgrader_config.py"))]
    for path in paths:
        for part in [path, *path.parents]:
            if part == top.parent:
                break
            if part.stat().st_uid != account.pw_uid:
                os.chown(part, account.pw_uid, account.pw_gid)
    return top


def configure(c, config_file, edition):
    """nbgrader's configuration of the edition's course folder in the instructor's home."""
    spec = EDITIONS[edition]
    here = Path(config_file).resolve().parent
    top = here.parents[len(Path(spec["folder"]).parts) - 1] if spec["folder"] else here
    source = REPO / spec["folder"] if spec["folder"] else REPO
    # The course's own settings first (blanks' stubs, grading limits...), as its nbgrader_config.py has them.
    own = source / "nbgrader_config.py"
    exec(compile(own.read_text(encoding="utf-8"), str(own), "exec"),  # noqa: S102  (the course's own file)
         {"get_config": lambda: c, "__file__": str(own)})
    c.CourseDirectory.root = str(here)
    c.CourseDirectory.course_id = course_id(edition)
    c.CourseDirectory.source_directory = str(source / "solutions")
    c.CourseDirectory.release_directory = str(source / "course")
    # The whole class, every edition, in one folder: `autograder grade submitted --out graded` in the home.
    # formgrader and nbgrader's commands read what that run writes in graded/ (as `make formgrader GRADED=OUT`):
    # its gradebook, its autograded notebooks, its feedback pages.
    graded = top / GRADED
    c.CourseDirectory.submitted_directory = str(top / "submitted")
    c.CourseDirectory.db_url = f"sqlite:///{graded / 'gradebook.db'}"
    c.CourseDirectory.autograded_directory = str(graded / "autograded")
    c.CourseDirectory.feedback_directory = str(graded / "feedback")
    c.Exchange.root = os.environ.get("TRANSFORMER_HUB_EXCHANGE", "/srv/transformer-hub/exchange")
    c.ExchangeFactory.release_feedback = CourseFeedbackRelease
    exchange.factory_config(c)  # the exchange's folders are root's (hub/exchange.py); collect takes only owners' work
    # formgrader shows learners' notebooks with the feedback pages' sanitiser (as `make formgrader` does).
    c.HTMLExporter.sanitize_html = True
    c.HTMLExporter.filters = {
        "clean_html": "autograder.grading.outputs.feedback_page.clean_html",
        "strip_files_prefix": "autograder.grading.outputs.feedback_page.strip_files_prefix_and_sanitise",
    }
    course_feedback(c)


def course_feedback(c):
    """generate_feedback (formgrader's Generate Feedback) makes the pages as `autograder grade` makes them, now from
    the gradebook: a score typed in formgrader's Manual Grading is on them.

    Its preprocessors (no hidden tests, no test tracebacks, the grader's messages once, outputs capped...) and
    exporter are the grading run's own (autograder/grading/bookkeeping/config.py, ``scratch_config``); the exporter's
    template and filters are set for it alone (FeedbackExporter), so that formgrader's own pages keep theirs.
    nbgrader's default would show the autograded notebook's hidden tests to the student."""
    from autograder.grading.bookkeeping.config import Settings, scratch_config

    grading = scratch_config(Settings(), REPO, "sqlite://")  # (its scratch folder and gradebook are not copied)
    c.GenerateFeedback.preprocessors = grading.GenerateFeedback.preprocessors
    c.GenerateFeedback.exporter_class = grading.GenerateFeedback.exporter_class
    for name, value in grading.HTMLExporter.items():
        c.FeedbackExporter[name] = value


class CourseFeedbackRelease(exchange.PreparedLayout, ExchangeReleaseFeedback):
    """nbgrader's release_feedback of the pages `autograder grade` wrote (graded/feedback/<student>/<assignment>/).

    nbgrader names a released page after a secret that the student's submission carries (only the
    student and the instructor know it; fetch_feedback finds the page by it). Its own generate_feedback
    copies the secret and the timestamp beside each page; `autograder grade` writes the pages only, so
    they are taken here from the collected submission. A page is released in this course only for a
    submission that this course's inbound holds and its student made (the same student and timestamp;
    hub/exchange.py's ``submissions``, as collect reads them): the four editions
    share the submitted/ and graded/ folders, not their students.
    """

    def copy_files(self):
        assignment = self.coursedir.assignment_id
        inbound = Path(self.root) / self.coursedir.course_id / "inbound"
        here = set()
        for record in exchange.submissions(inbound, assignment)[0] if inbound.is_dir() else []:
            stamp = inbound / record["filename"] / "timestamp.txt"
            if stamp.is_file() and not stamp.is_symlink():
                here.add((record["username"], stamp.read_text().strip()))
        others = []
        feedback = Path(self.coursedir.format_path(self.coursedir.feedback_directory, ".", ".")).resolve()
        students = [self.coursedir.student_id] if self.coursedir.student_id not in ("", "*") else [p.parent.name for p in feedback.glob(f"*/{assignment}")]
        for student in students:
            folder = Path(self.coursedir.format_path(self.coursedir.feedback_directory, student, assignment))
            submitted = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment))
            stamp = submitted / "timestamp.txt"
            if not folder.is_dir():
                continue
            if not stamp.is_file() or (student, stamp.read_text().strip()) not in here:
                others.append(student)
                continue
            for name in ("timestamp.txt", "submission_secret.txt"):
                if (submitted / name).is_file():
                    shutil.copyfile(submitted / name, folder / name)
        if others:
            self.log.info("Not of course %s (or not collected from it): %s", self.coursedir.course_id, ", ".join(sorted(set(others))))
            excluded = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
            self.coursedir.student_id_exclude = ",".join(sorted(excluded | set(others)))
        super().copy_files()

