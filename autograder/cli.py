"""The instructor's command line.

    autograder grade SUBMITTED --out OUT [--jobs N] [--scheduler ADDRESS | --slurm]  (also: python -m autograder grade ...)
    autograder report OUT [--roster roster.csv] [--imported SUBMITTED]        (the class report, again)
    autograder collect-zip DOWNLOAD.zip --roster roster.csv [--out submitted] (an LMS's download, as SUBMITTED)
    autograder lti-push OUT [--hub DIR] [--dry-run]                           (the scores into the LMS, LTI 1.3 AGS)

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

from autograder.grading.run import slurm
from autograder.paths import SOLUTIONS
from sandbox_servers import budget


def escaped(text):
    from autograder.grading.outputs.report import escaped

    return escaped(text)


def say(line):
    """One line on the terminal (stderr), its control characters escaped: a student's text (an exception message,
    a file name) printed raw could retitle or clear the terminal, or draw a progress line of its own."""
    print(escaped(line), file=sys.stderr, flush=True)


def build_parser():
    parser = argparse.ArgumentParser(prog="autograder", description="Grade the course's notebooks.")
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("grade", help="grade submitted notebooks with nbgrader, checked outside the kernel",
                                epilog="exit status: 0 graded (whatever the scores), 2 grading could not run, "
                                       "130 interrupted by Ctrl-C (run the same command again to resume)")
    grade.add_argument("submitted", type=Path, help="folder laid out as SUBMITTED/<student>/<assignment>/<notebook>.ipynb")
    grade.add_argument("--out", type=Path, required=True, help="where results.json, grades.csv and feedback/ go")
    grade.add_argument("--jobs", type=int, default=1,
                       help="submissions graded at the same time, by a local Dask cluster of that many workers (default 1); "
                            "with --slurm, by that many workers in Slurm jobs")
    grade.add_argument("--scheduler", metavar="ADDRESS",
                       help="grade on an existing Dask cluster (e.g. tcp://10.0.0.5:8786) instead of a local one "
                            "(default: nbgrader_config.py's AutograderGrade.scheduler, if set)")
    slurm.add_arguments(grade)
    grade.add_argument("--source", type=Path, default=SOLUTIONS, help="source notebooks with hidden tests (default solutions/)")
    grade.add_argument("--db-url", help="gradebook (default: nbgrader_config.py's CourseDirectory.db_url, else OUT/gradebook.db)")
    grade.add_argument("--timeout", type=int, help="seconds a cell may run (default: nbgrader_config.py's Execute.timeout)")
    grade.add_argument("--budget", type=int, default=budget.DEFAULT_S, help=budget.HELP)
    grade.add_argument("--fresh", action="store_true", help="grade everything again, even submissions graded before")
    grade.add_argument("--table", action="store_true", help="print the grade table at the end, on stdout")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="run learners' code without bubblewrap (NOT safe for untrusted code; warns on every run)")
    grade.add_argument("--roster", type=Path, help=ROSTER_HELP)
    grade.add_argument("--kernel-run", action="store_true",
                       help="also run each notebook in nbgrader's kernel, after the run that decides: a second opinion "
                            "that can only lower a score, at about twice the time")
    report = commands.add_parser("report", help="write OUT/report.html, the class at a glance, from OUT/results.json "
                                                "(and OUT/gradebook.csv from the gradebook)")
    report.add_argument("out", type=Path, help="the --out folder of autograder grade (holds results.json)")
    report.add_argument("--db-url", help="gradebook to export to OUT/gradebook.csv (default: nbgrader_config.py's "
                                         "CourseDirectory.db_url, else OUT/gradebook.db where it exists)")
    report.add_argument("--roster", type=Path, help=ROSTER_HELP)
    report.add_argument("--imported", type=Path, metavar="SUBMITTED",
                        help="the folder collect-zip filled (or its .collect-zip.json): what the import found (late, "
                             "left out) goes into the report and gradebook.csv, and is kept in OUT for later reports")
    collect = commands.add_parser(
        "collect-zip", help="lay out an LMS's bulk download (Canvas, Moodle) as SUBMITTED/<student>/<assignment>/"
                            "<notebook>.ipynb, matched to the roster",
        epilog="exit status: 0 every notebook of the download laid out (or there already), 1 some left out (each "
               "named with why), 2 could not run (no such zip, a roster that cannot be used)")
    collect.add_argument("downloads", type=Path, nargs="+", metavar="DOWNLOAD.zip",
                         help="the LMS's download of an assignment's submissions (several: one per assignment)")
    collect.add_argument("--roster", type=Path, required=True,
                         help="CSV with student_id (nbgrader's id, the folder name) and the LMS's ID (Canvas's user id) "
                              "and Student (the name) columns: Canvas's gradebook export with a student_id column")
    collect.add_argument("--out", type=Path, default=Path("submitted"),
                         help="the submitted/ folder to fill (default: submitted); nothing in it is overwritten")
    collect.add_argument("--source", type=Path, default=SOLUTIONS,
                         help="source notebooks: the course's notebook names (default solutions/)")
    collect.add_argument("--lms", choices=["canvas", "moodle"],
                         help="read every download in this LMS's shape only (default: the shape each download's files "
                              "have); a file in another shape is left out")
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


ROSTER_HELP = ("CSV of the class for gradebook.csv: student_id (nbgrader's id) and the LMS's Student, ID, SIS User ID, "
               "SIS Login ID, Section columns (see autograder/grading/README.md)")


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


def grade_command(args):
    from autograder.grading.bookkeeping.config import Settings, configured_scheduler
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
    scheduler = args.scheduler or (None if args.slurm else configured_scheduler())
    if args.slurm or slurm.options_given(args):  # checked against the partition before anything is graded
        try:
            scheduler = slurm.plan_from_args(args, args.out)
        except slurm.SlurmError as error:
            say(f"autograder: {error}")
            return 2
    settings = Settings(source_dir=str(args.source.resolve()), cell_timeout=args.timeout, sandbox=not args.no_sandbox,
                        notebook_budget_s=args.budget, kernel_run=args.kernel_run)
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


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command == "grade":
        return grade_command(args)
    if args.command == "report":
        return report_command(args)
    if args.command == "collect-zip":
        return collect_zip_command(args)
    if getattr(args, "run", None):  # a subcommand of its own module (autograder lti-push)
        return args.run(args, say)
    return 2


if __name__ == "__main__":
    sys.exit(main())
