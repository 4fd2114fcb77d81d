"""The instructor's command line.

    autograder grade SUBMITTED --out OUT [--jobs N] [--scheduler ADDRESS | --slurm]  (also: python -m autograder grade ...)
    autograder report OUT [--roster roster.csv] [--imported SUBMITTED]        (the class report, again)
    autograder collect-zip DOWNLOAD.zip --roster roster.csv [--out submitted] (an LMS's download, as SUBMITTED)
    autograder lti-push OUT [--hub DIR] [--dry-run]                           (the scores into the LMS, LTI 1.3 AGS)

Every option of grade, report and collect-zip is a trait of a class below or of bookkeeping/config.py's Settings and
Sandbox, its flag made from it (autograder/options.py); docs/options.md lists them all (python -m
autograder.options_doc). What the command line leaves out, the course's autograder_config.py may set (beside
nbgrader_config.py: c.AutograderGrade.jobs = 4, c.Sandbox.verifier_memory_mb = 4096), else the default holds.

SUBMITTED is laid out as nbgrader's submitted/ folder (SUBMITTED/<student>/<assignment>/<notebook>.ipynb)
and is never modified. Writes OUT/results.json, OUT/grades.csv, OUT/feedback/, the class report
OUT/report.html and OUT/gradebook.csv (its LMS columns filled from --roster where given, with a warning
naming the students missing on either side); see autograder/grading/README.md.

The terminal (stderr) gets the run's warnings, a progress bar (one line per finished submission where
stderr is not a terminal), what stopped or spoiled a notebook, and where the outputs are; --table puts
the grade table on stdout. Exit status of grade: 0 when the run went to the end (whatever the scores),
2 when grading could not run (bad arguments, SUBMITTED not laid out as above, no sandbox), 130 after
Ctrl-C (what was graded is kept: the same command resumes).
"""
import argparse
import sys
from pathlib import Path

from traitlets import Bool, Enum, Int, List, Unicode
from traitlets.config import Configurable

from autograder import options
from autograder.grading.run import slurm
from autograder.paths import SOLUTIONS


def escaped(text):
    from autograder.grading.outputs.report import escaped

    return escaped(text)


def say(line):
    """One line on the terminal (stderr), its control characters escaped: a student's text (an exception message,
    a file name) printed raw could retitle or clear the terminal, or draw a progress line of its own."""
    print(escaped(line), file=sys.stderr, flush=True)


ROSTER_HELP = ("CSV of the class for gradebook.csv: student_id (nbgrader's id) and the LMS's Student, ID, SIS User ID, "
               "SIS Login ID, Section columns (see autograder/grading/README.md)")


# The commands' options: each a trait (autograder/options.py says how a trait becomes a flag); docs/options.md is
# made from them (python -m autograder.options_doc).
class AutograderGrade(Configurable):
    """What is graded, where its results go, by how many workers."""

    submitted = Unicode(help="folder laid out as SUBMITTED/<student>/<assignment>/<notebook>.ipynb").tag(
        flag="submitted", arg_type=Path)
    out = Unicode(help="where results.json, grades.csv and feedback/ go").tag(flag="--out", arg_type=Path, required=True)
    jobs = Int(1, help="submissions graded at the same time, by a local Dask cluster of that many workers (default 1); "
                       "with --slurm, by that many workers in Slurm jobs").tag(config=True, flag="--jobs")
    scheduler = Unicode(None, allow_none=True, help="grade on an existing Dask cluster (e.g. tcp://10.0.0.5:8786) "
                                                    "instead of a local one (default: nbgrader_config.py's "
                                                    "AutograderGrade.scheduler, if set)").tag(
        config=True, flag="--scheduler", metavar="ADDRESS")
    db_url = Unicode(None, allow_none=True, help="gradebook (default: nbgrader_config.py's CourseDirectory.db_url, "
                                                 "else OUT/gradebook.db)").tag(config=True, flag="--db-url")
    fresh = Bool(False, help="grade everything again, even submissions graded before").tag(config=True, flag="--fresh")
    table = Bool(False, help="print the grade table at the end, on stdout").tag(config=True, flag="--table")
    roster = Unicode(None, allow_none=True, help=ROSTER_HELP).tag(config=True, flag="--roster", arg_type=Path)


class Slurm(Configurable):
    """Slurm: the grading workers as Slurm jobs (autograder/grading/run/slurm.py)."""

    enabled = Bool(False, help="grade on Slurm: --jobs workers as Slurm jobs (dask-jobqueue), sized from the "
                               "partition's nodes, replaced when they end; the scheduler runs here "
                               "(autograder/grading/README.md)").tag(config=True, flag="--slurm")
    partition = Unicode(None, allow_none=True, help="with --slurm: the partition (default: Slurm's default one)").tag(
        config=True, flag="--slurm-partition", metavar="P")
    account = Unicode(None, allow_none=True, help="with --slurm: the account to charge (sbatch -A)").tag(
        config=True, flag="--slurm-account", metavar="A")
    walltime = Unicode(slurm.WALLTIME, help=f"with --slurm: each job's time limit (default {slurm.WALLTIME}, at most "
                                            "the partition's MaxTime); a job that reaches it is replaced").tag(
        config=True, flag="--slurm-walltime", metavar="T")
    workers_per_job = Int(None, allow_none=True, help=f"with --slurm: workers per Slurm job (default: up to "
                                                      f"{slurm.WORKERS_PER_JOB}, as many as a node of the partition "
                                                      "holds)").tag(config=True, flag="--slurm-workers-per-job",
                                                                    metavar="K")
    worker_memory = Unicode(
        f"{slurm.WORKER_MEMORY // slurm.GiB}G",
        help=f"with --slurm: memory each worker's share of its job asks for (default {slurm.WORKER_MEMORY // slurm.GiB}G: "
             "the worker and its sandboxes' servers, 1.5G, and a learner's run at the sandbox's limit, 3-4G, with its "
             "/tmp; less lets Slurm end a worker whose learner uses memory honestly)").tag(
        config=True, flag="--slurm-worker-memory", metavar="SIZE")
    interface = Unicode(None, allow_none=True, help="with --slurm: the network interface the scheduler and workers use "
                                                    "(e.g. ib0; default: the host's address)").tag(
        config=True, flag="--slurm-interface", metavar="IF")
    directives = List(Unicode(), help="with --slurm: one more sbatch directive for the jobs, e.g. "
                                      "--slurm-option=--qos=short").tag(config=True, flag="--slurm-option",
                                                                         metavar="DIRECTIVE")


class AutograderReport(Configurable):
    """The class report again, from a grading run's results."""

    out = Unicode(help="the --out folder of autograder grade (holds results.json)").tag(flag="out", arg_type=Path)
    db_url = Unicode(None, allow_none=True, help="gradebook to export to OUT/gradebook.csv (default: "
                                                 "nbgrader_config.py's CourseDirectory.db_url, else OUT/gradebook.db "
                                                 "where it exists)").tag(config=True, flag="--db-url")
    roster = Unicode(None, allow_none=True, help=ROSTER_HELP).tag(config=True, flag="--roster", arg_type=Path)
    imported = Unicode(None, allow_none=True, help="the folder collect-zip filled (or its .collect-zip.json): what the "
                                                   "import found (late, left out) goes into the report and "
                                                   "gradebook.csv, and is kept in OUT for later reports").tag(
        config=True, flag="--imported", metavar="SUBMITTED", arg_type=Path)


class AutograderCollectZip(Configurable):
    """An LMS's bulk download laid out as SUBMITTED."""

    downloads = List(Unicode(), help="the LMS's download of an assignment's submissions (several: one per "
                                     "assignment)").tag(flag="downloads", nargs="+", metavar="DOWNLOAD.zip", arg_type=Path)
    roster = Unicode(help="CSV with student_id (nbgrader's id, the folder name) and the LMS's ID (Canvas's user id) and "
                          "Student (the name) columns: Canvas's gradebook export with a student_id column").tag(
        flag="--roster", required=True, arg_type=Path)
    out = Unicode("submitted", help="the submitted/ folder to fill (default: submitted); nothing in it is "
                                    "overwritten").tag(config=True, flag="--out", arg_type=Path)
    source = Unicode(str(SOLUTIONS), help="source notebooks: the course's notebook names (default solutions/)").tag(
        config=True, flag="--source", arg_type=Path)
    lms = Enum(["canvas", "moodle"], None, allow_none=True,
               help="read every download in this LMS's shape only (default: the shape each download's files have); a "
                    "file in another shape is left out").tag(config=True, flag="--lms")


def grade_classes():
    from autograder.grading.bookkeeping.config import Sandbox, Settings

    return [AutograderGrade, Slurm, Settings, Sandbox]


GRADE_EPILOG = ("exit status: 0 graded (whatever the scores), 2 grading could not run, 130 interrupted by Ctrl-C (run "
                "the same command again to resume)")
REPORT_HELP = ("write OUT/report.html, the class at a glance, from OUT/results.json (and OUT/gradebook.csv from the "
               "gradebook)")
COLLECT_HELP = ("lay out an LMS's bulk download (Canvas, Moodle) as SUBMITTED/<student>/<assignment>/<notebook>.ipynb, "
                "matched to the roster")
COLLECT_EPILOG = ("exit status: 0 every notebook of the download laid out (or there already), 1 some left out (each "
                  "named with why), 2 could not run (no such zip, a roster that cannot be used)")
COMMANDS = {  # the subcommands whose options are traits: (help, epilog, their classes)
    "grade": ("grade submitted notebooks with nbgrader, checked outside the kernel", GRADE_EPILOG, grade_classes),
    "report": (REPORT_HELP, None, lambda: [AutograderReport]),
    "collect-zip": (COLLECT_HELP, COLLECT_EPILOG, lambda: [AutograderCollectZip]),
}


def build_parser(actions=None):
    """The command line; ``actions`` (a dict) gets each subcommand's {(class, trait): argparse action}."""
    parser = argparse.ArgumentParser(prog="autograder", description="Grade the course's notebooks.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (summary, epilog, classes) in COMMANDS.items():
        command = commands.add_parser(name, help=summary, **({"epilog": epilog} if epilog else {}))
        made = options.add_options(command, classes())
        if actions is not None:
            actions[name] = made
    from autograder.grading.outputs import lti_push

    lti_push.add_parser(commands)  # autograder lti-push OUT: the scores into the LMS's gradebook (LTI 1.3 AGS)
    return parser


def collect_zip_command(args):
    import zipfile

    from autograder.grading.bookkeeping.collect_zip import collect, course_notebooks
    from autograder.grading.bookkeeping.lms_names import CANVAS, MOODLE
    from autograder.grading.outputs.lms_export import FINDINGS_FILE, RosterError, read_roster

    try:
        roster = read_roster(args.roster)
    except RosterError as error:
        say(f"autograder: {error}")
        return 2
    for download in args.downloads:
        if not download.is_file():
            say(f"autograder: {download}: no such file (expected the LMS's download, a .zip)")
            return 2
        if not zipfile.is_zipfile(download):
            say(f"autograder: {download}: not a zip file (expected the LMS's download of the submissions)")
            return 2
    known = course_notebooks(args.source)
    if not known:
        say(f"autograder: {args.source}: no source notebooks (the course's notebook names come from there)")
        return 2
    lms = {"canvas": CANVAS, "moodle": MOODLE}.get(args.lms)
    try:
        outcome = collect(args.downloads, roster, args.out, known, lms=lms)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile) as error:
        say(f"autograder: the download could not be read or laid out ({type(error).__name__}: {error})")
        return 2
    students = {path.parent.parent.name for path, _ in outcome.laid_out}
    say(f"{len(outcome.laid_out)} notebook(s) of {len(students)} student(s) laid out in {args.out}"
        + (f"; {len(outcome.already)} already there, unchanged" if outcome.already else ""))
    for name, about in outcome.downloads.items():
        say(f"{name}: read as {about['lms']}'s download" if about["lms"] else
            f"{name}: in neither Canvas's nor Moodle's shape (--lms says which)")
    if outcome.late:
        say(f"{len(outcome.late)} submission(s) marked late by Canvas (no time is in its download, so no timestamp.txt "
            f"is written: apply a late penalty by hand): "
            + ", ".join(f"{s}/{a}" for s, a in outcome.late[:20]) + (" ..." if len(outcome.late) > 20 else ""))
    if outcome.left_out:
        say(f"{len(outcome.left_out)} file(s) of the download not laid out:")
        same = {}
        for where, why in outcome.left_out:
            same[why] = same.get(why, 0) + 1
            if same[why] <= SAME_REASON_SHOWN:
                say(f"  {where}: {why}")
            elif same[why] == SAME_REASON_SHOWN + 1:
                more = sum(1 for _, other in outcome.left_out if other == why) - SAME_REASON_SHOWN
                say(f"  ... and {more} more file(s) left out for the same reason (each listed in {FINDINGS_FILE})")
    say(f"what the import found is kept in {args.out / FINDINGS_FILE}: the class report and gradebook.csv show it "
        f"(autograder report OUT --imported {args.out})")
    return 1 if outcome.left_out else 0


SAME_REASON_SHOWN = 5  # files of collect-zip's left out for one reason, word for word, that the terminal lists


def export_with_roster(db_url, out: Path, roster, warn):
    """OUT/gradebook.csv from the gradebook, the roster's columns filled in, and the roster's names entered in
    nbgrader's student table (formgrader's); ``warn`` gets each warning."""
    from autograder.grading.outputs.lms_export import export_gradebook

    path = export_gradebook(db_url, out / "gradebook.csv", warn=warn, **({"roster": str(roster)} if roster else {}))
    if roster:
        from autograder.grading.bookkeeping.gradebook import name_students
        from autograder.grading.outputs.lms_export import read_roster

        name_students(db_url, read_roster(roster))
    return path


def report_command(args):
    """gradebook.csv first (where there is a gradebook), so that its warnings (the roster's) are in the report too."""
    from autograder.grading.outputs.class_report import ReportError, write_report
    from autograder.grading.bookkeeping.config import configured_course_id, configured_db_url

    if args.imported is not None:
        from autograder.grading.outputs.lms_export import keep_findings

        problem = keep_findings(args.imported, args.out)
        if problem:
            say(f"autograder: --imported: {problem}")
            return 2
    db_url = args.db_url or configured_db_url()
    if db_url is None and (args.out / "gradebook.db").is_file():
        db_url = f"sqlite:///{(args.out / 'gradebook.db').resolve()}"
    warnings, status, exported = [], 0, None
    if db_url and (args.out / "results.json").is_file():
        try:
            exported = export_with_roster(db_url, args.out, args.roster, warnings.append)
        except Exception as error:  # a gradebook we cannot read: the report is written all the same
            say(f"autograder: gradebook.csv not written ({type(error).__name__}: {error})")
            status = 1
    for warning in warnings:
        say(f"warning: {warning}")
    try:
        page = write_report(args.out, extra_warnings=warnings, course=configured_course_id())
    except ReportError as error:
        say(f"autograder: {error}")
        return 2
    say(f"class report: {page}")
    if exported:
        say(f"gradebook for an LMS: {exported}")
    return status


INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C (128 + SIGINT), as a shell reports it


def grade_command(args, config=None):
    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.outputs.report import grade_table, problem_summary
    from autograder.grading.run.runner import GradingError, Interrupted, grade

    if args.jobs < 1:
        say("autograder: --jobs must be at least 1")
        return 2
    if args.budget < 1:
        say("autograder: --budget must be at least 1 second")
        return 2
    if args.roster:  # a roster that cannot be used stops the run before anything is graded
        from autograder.grading.outputs.lms_export import RosterError, read_roster

        try:
            read_roster(args.roster)
        except RosterError as error:
            say(f"autograder: {error}")
            return 2
    scheduler = args.scheduler  # the command line's, else the config files' (not with --slurm: take_from_config)
    if args.slurm or slurm.options_given(args):  # checked against the partition before anything is graded
        try:
            scheduler = slurm.plan_from_args(args, args.out)
        except slurm.SlurmError as error:
            say(f"autograder: {error}")
            return 2
    settings = Settings(config=config, source_dir=str(args.source.resolve()), cell_timeout=args.timeout,
                        sandbox=not args.no_sandbox, notebook_budget_s=args.budget, kernel_run=args.kernel_run)
    try:
        records = grade(args.submitted, args.out, jobs=args.jobs, settings=settings, db_url=args.db_url, fresh=args.fresh,
                        log=say, scheduler=scheduler, roster=args.roster)
    except GradingError as error:
        say(f"autograder: {error}")
        return 2
    except Interrupted as stop:
        say(f"interrupted: {stop.graded} of {stop.total} submissions graded and kept in {args.out}; "
            "run the same command again to resume")
        return INTERRUPTED
    except KeyboardInterrupt:  # before the submissions were counted
        say("interrupted before grading began; run the same command again to grade")
        return INTERRUPTED
    if args.table:
        for line in grade_table(records).splitlines():
            print(escaped(line))
    for line in problem_summary(records, args.out):
        say(line)
    page = args.out / "report.html"
    say(f"{len(records)} graded cells; results in {args.out / 'results.json'}"
        + (f"; class report in {page}" if page.is_file() else ""))
    return 0


def take_from_config(args, config):
    """Which options a config file may set where the command line did not: Slurm's only when Slurm is on, a
    scheduler's address only when it is off (--slurm starts its own scheduler)."""
    slurm_on = getattr(args, "slurm", False) or bool(options.configured(config, Slurm, "enabled"))

    def take(cls, name):
        if cls is Slurm and name != "enabled":
            return slurm_on
        return not (cls is AutograderGrade and name == "scheduler" and slurm_on)

    return take


def parse(argv=None):
    """(the arguments, the course's config files' Config): what the command line left out filled from the files,
    else from the options' defaults; traitlets' TraitError for a file's value of the wrong type."""
    from autograder.grading.bookkeeping.config import load_grader_config

    actions = {}
    args = build_parser(actions).parse_args(argv)
    config = None
    if args.command in actions:
        config = load_grader_config(with_course=args.command == "grade")  # its section there: grade's alone
        options.fill(args, actions[args.command], config, take_from_config(args, config))
    return args, config


def main(argv=None):
    from traitlets import TraitError

    from autograder.grading.bookkeeping.config import GRADER_CONFIG

    try:
        args, config = parse(argv)
    except TraitError as error:
        say(f"autograder: {GRADER_CONFIG}: {error}")
        return 2
    if args.command == "grade":
        return grade_command(args, config)
    if args.command == "report":
        return report_command(args)
    if args.command == "collect-zip":
        return collect_zip_command(args)
    if getattr(args, "run", None):  # a subcommand of its own module (autograder lti-push)
        return args.run(args, say)
    return 2


if __name__ == "__main__":
    sys.exit(main())
