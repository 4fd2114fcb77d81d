"""OUT/report.html's sections and their rendering: what each section shows, from the class's analysis, put in the
page's Jinja2 template (autograder/grading/outputs/templates/class_report/)."""
import base64
import functools
import html
import json
import math
import os
import re
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from autograder.grading.outputs.class_report.analysis import (
    UNANSWERED,
    analyse,
    full_marks,
    mistake_ranking,
    percent,
    student_totals,
    unit_labels,
)
from autograder.grading.outputs.class_report.figures import (
    BOX_FROM,
    HEATMAP_IDS,
    SMALLEST_SCALE,
    distribution_figure,
    heatmap_figure,
)
from autograder.grading.outputs.class_report.records import (
    clean_records,
    kept_timings,
    read_logs,
)
from autograder.grading.outputs.class_report.sections import Teaching, catalogue
from autograder.grading.outputs.report import NO_NOTEBOOK, read_lines
from autograder.levels import DEFAULT_LEVEL
from autograder.paths import COURSE, ROOT
from learner_kit.i18n import add_translations, language, tr

add_translations("autograder.locales")  # the report's sentences in the instructor's language (COURSE_LANG)

LOWEST_SHOWN = 10  # students listed under "lowest totals"
ROWS_SHOWN = 50  # rows of a long table before "... and N more"
NAMES_SHOWN = 8  # student names per mistake id


def fmt_points(value):
    return f"{value:.6g}"


def fmt_pct(value):
    return "n/a" if value is None else f"{value:.0f}%"


TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "class_report"


@dataclass(frozen=True)
class Table:
    caption: str
    headers: list
    rows: list
    table_id: str = None
    more: int = 0
    numeric: tuple = ()


@dataclass(frozen=True)
class IdRef:
    """A mistake id, linked to its explanation in the page."""
    mistake: str
    kind: ClassVar[str] = "id"


@dataclass(frozen=True)
class Link:
    """A link inside the page (``anchor``), or plain text where there is nowhere to link."""
    text: str
    anchor: str = None
    kind: ClassVar[str] = "link"


@dataclass(frozen=True)
class Links:
    items: tuple
    separator: str  # "line" (one per line) or "comma"
    kind: ClassVar[str] = "links"


@dataclass(frozen=True)
class Message:
    """A learner's or the run's message, kept as written (line breaks too)."""
    text: str
    kind: ClassVar[str] = "message"


@dataclass(frozen=True)
class Bar:
    width: str
    text: str
    kind: ClassVar[str] = "bar"


@dataclass(frozen=True)
class Figure:
    encoded: str  # a PNG, base64
    alt: str
    caption: str

    @property
    def size(self):
        """(width, height) of the PNG in pixels, from its header (IHDR)."""
        head = base64.b64decode(self.encoded[:44])
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")

    @property
    def smallest(self):
        """The narrowest the page draws it (px): its labels stay 12 px or more."""
        return math.ceil(self.size[0] * SMALLEST_SCALE)


def table(caption, headers, rows, table_id=None, more=0, numeric=()):
    """A table of the page: cells are plain values or the kinds above. ``numeric``: right-aligned columns."""
    return Table(caption, list(headers), [list(row) for row in rows], table_id, more, tuple(numeric))


def section_link(teaching, data, unit):
    """A link to the unit's entry under "Where each unit is taught" (in this page), or its assignment as text."""
    found = teaching.section(unit[0], data.unit_notebook.get(unit, ""), unit[1])
    if not found:
        return Link(f"{unit[0]}")
    return Link(f"{unit[0]} § {found.title}", found.anchor)


def taught_section(teaching):
    """Where each unit linked from the page is taught, in words: the notebook to open and its section."""
    sections = sorted(set(teaching.found), key=lambda s: (s.assignment, s.notebook, s.unit))
    if not sections:
        return None
    how = tr("Open the notebook in JupyterLab and go to the section named here (its table of contents lists the "
             "sections); the text under the section's heading begins as quoted.")
    return {"heading": tr("Where each unit is taught"), "how": how,
            "sections": [{"anchor": s.anchor, "unit": s.unit, "summary": s.summary,
                          "text": tr("Taught in {notebook}, section “{title}”.", notebook=s.notebook, title=s.title)}
                         for s in sections]}


def section_links(teaching, data, units, separator):
    """The links of ``units`` (each once: units of one assignment with no section found give the same text)."""
    links = []
    for unit in units:
        link = section_link(teaching, data, unit)
        if link not in links:
            links.append(link)
    return Links(tuple(links), separator)


def names(students, shown=NAMES_SHOWN):
    ordered = sorted(students)
    text = ", ".join(ordered[:shown])
    return text + (f" and {len(ordered) - shown} more" if len(ordered) > shown else "")


def glance_section(data, ranking, totals, labels, imported=None):
    """The few lines to read first: plain sentences, and the most frequent mistakes (``{"entries": ...}``);
    ``imported``: what collect-zip found (lms_export.read_findings), counted."""
    items = []
    submitted = len(data.submissions)
    scores = [percent(p, m) for p, m in data.submissions.values() if m > 0]
    median = f"; median score {statistics.median(scores):.0f}%" if scores else ""
    items.append(f"{len(data.students)} student(s), {len(data.assignments)} assignment(s), "
                 f"{submitted} submission(s) graded{median}.")
    if ranking:
        top = []
        for mistake, students, per_unit in ranking[:3]:
            unit = max(per_unit, key=lambda u: (per_unit[u], u))
            top.append({"mistake": mistake, "count": len(students), "unit": labels[unit]})
        items.append(TopMistakes(tuple(top)))
    elif data.records:
        items.append("Nobody made a mistake that the checks name.")
    unanswered = set().union(*data.mistakes.get(UNANSWERED, {}).values()) if data.mistakes.get(UNANSWERED) else set()
    if unanswered:
        items.append(f"{len(unanswered)} student(s) left at least one unit unanswered ([{UNANSWERED}]).")
    below = [t for t in totals if t[3] is not None and t[3] < 100 - 1e-9]
    if below:
        low = min(below, key=lambda t: (t[3], t[0]))
        items.append(f"{len(below)} student(s) below full marks; lowest total: {low[0]} ({fmt_pct(low[3])}).")
    kinds = Counter(kind for kind, _, _ in data.problems.values())
    missing = sum(len(t[4]) for t in totals)
    if kinds["unreadable"] or missing:
        absent = sum(1 for t in totals if t[4])
        items.append(f"{missing} assignment(s) not submitted (by {absent} student(s)); {kinds['unreadable']} "
                     "notebook(s) missing or unreadable.")
    misnamed = sorted(f"{s}/{a}" for (s, a, _), (_, _, message) in data.problems.items() if NO_NOTEBOOK in message)
    if misnamed:
        items.append(f"{len(misnamed)} notebook(s) graded 0 because no notebook of the expected name was found "
                     f"({names(misnamed)}): they count 0 in gradebook.csv; rename the notebook in SUBMITTED and grade "
                     "again (see Missing or unreadable submissions).")
    if kinds["limit"]:
        items.append(f"{kinds['limit']} notebook(s) stopped by the time budget or a sandbox limit.")
    if kinds["grader"] or data.bad_records:
        items.append(f"{kinds['grader']} notebook(s) hit a grading error; {data.bad_records} unreadable record(s) skipped.")
    if imported:
        counts = Counter(f["kind"] for f in imported)
        listed = ", ".join(f"{counts[kind]} {IMPORT_LABELS.get(kind, kind)}" for kind in IMPORT_ORDER if counts[kind])
        left_out = sum(n for kind, n in counts.items() if kind != "late")
        items.append(f"The import of the LMS's download (collect-zip) found {listed}: {left_out} file(s) left out "
                     "and not graded (see What the import found, under Who needs help).")
    return items


IMPORT_ORDER = ("late", "duplicate", "unmatched", "ambiguous", "too-big", "unreadable", "kept", "bad-student-id",
                "not-a-notebook", "wrong-shape")  # what collect-zip finds (collect_zip.KINDS), as the report lists it
IMPORT_LABELS = {"late": "marked late", "duplicate": "of two or more different files for one notebook",
                 "unmatched": "matched to no student", "ambiguous": "that could be more than one student's",
                 "too-big": "too big to be a notebook", "unreadable": "unreadable", "kept": "kept out by a different "
                 "notebook already there", "bad-student-id": "for a student_id that cannot be a folder",
                 "not-a-notebook": "not a notebook of the course", "wrong-shape": "in no shape of the LMS's"}


def import_findings_table(imported):
    """What collect-zip found, every finding: who, which assignment, what, which file, and why (its own words)."""
    order = {kind: n for n, kind in enumerate(IMPORT_ORDER)}
    rows = [(f["student"] or "(no one)", f["assignment"], f["kind"], f"{f['download']}: {f['file']}", Message(f["why"]))
            for f in sorted(imported, key=lambda f: (order.get(f["kind"], len(order)), f["student"], f["assignment"],
                                                     f["file"]))]
    return table(f"What the import found (collect-zip, {len(rows)}): late is graded as submitted (apply a late "
                 "penalty by hand); every other file was left out and not graded", ["student", "assignment", "finding",
                 "file (download: path)", "why"], rows[:ROWS_SHOWN], "imported", more=len(rows) - ROWS_SHOWN)


@dataclass(frozen=True)
class TopMistakes:
    entries: tuple
    kind: ClassVar[str] = "top"


def misconceptions_section(data, ranking, labels, teaching, texts):
    shown = {"figure": None, "mistakes": None, "unanswered": None, "unnamed": None, "explanations": []}
    submitters = data.submitters
    if ranking:
        drawn = min(len(ranking), HEATMAP_IDS)
        top = ", ".join(f"{m} ({len(s)})" for m, s, _ in ranking[:5])
        alt = (f"Heatmap of the number of students per mistake id (rows, most frequent first) and unit (columns, most "
               f"affected first); {drawn} of {len(ranking)} ids drawn. Most frequent: {top}. "
               "The same counts are in the table below.")
        shown["figure"] = Figure(heatmap_figure(ranking, labels), alt,
                                 "Students who made each mistake, per unit (an empty cell is 0).")
        rows = []
        for mistake, students, per_unit in ranking:
            class_size = set().union(*(submitters[u[0]] for u in per_unit))
            units_ordered = sorted(per_unit, key=lambda u: (-per_unit[u], u))
            where = "; ".join(f"{labels[u]}: {per_unit[u]}" for u in units_ordered)
            taught = section_links(teaching, data, units_ordered, "line")
            rows.append((IdRef(mistake), len(students), fmt_pct(percent(len(students), len(class_size))), where,
                         taught, names(students)))
        shown["mistakes"] = table("Mistakes by number of students (most frequent first)",
                                  ["mistake", "students", "of those who submitted", "units (students)", "taught in",
                                   "who"], rows, "mistakes", numeric=(1, 2))
    unanswered = data.mistakes.get(UNANSWERED, {})
    if unanswered:
        rows = [(labels[u], len(unanswered[u]), fmt_pct(percent(len(unanswered[u]), len(submitters[u[0]]))),
                 section_link(teaching, data, u), names(unanswered[u]))
                for u in data.units if u in unanswered]
        shown["unanswered"] = table(f"Units left unanswered ([{UNANSWERED}])",
                                    ["unit", "students", "of those who submitted", "taught in", "who"], rows,
                                    "unanswered", numeric=(1, 2))
    unnamed = [(labels[u], len(data.lost_unnamed[u]), names(data.lost_unnamed[u])) for u in data.units
               if u in data.lost_unnamed]
    if unnamed:
        shown["unnamed"] = table("Points lost with no mistake id named (errors, unreadable notebooks, limits)",
                                 ["unit", "students", "who"], unnamed, "unnamed", numeric=(1,))
    for mistake in [m for m, _, _ in ranking] + ([UNANSWERED] if unanswered else []):
        what, why = texts.get(mistake, (None, None))
        units = sorted(data.mistakes[mistake], key=lambda u: data.units.index(u))
        taught = (section_links(teaching, data, units, "comma") if len(units) <= 5 else
                  f"{len(units)} units: see the tables above.")
        shown["explanations"].append({"mistake": mistake, "what": what, "why": why, "taught": taught})
    shown["taught"] = taught_section(teaching)  # after the links above, which find the sections
    return shown


def help_section(data, totals, not_graded=None, imported=None):
    shown = {"lowest": None, "any_students": bool(totals), "not_graded": None, "tampering": None, "imported": None}
    below = sorted((t for t in totals if t[3] is None or t[3] < 100 - 1e-9),
                   key=lambda t: (t[3] if t[3] is not None else 101, t[0]))
    perfect = len(totals) - len(below)
    if below:
        rows = []
        for rank, (student, points, possible, share, missing) in enumerate(below[:LOWEST_SHOWN], 1):
            ids = data.student_ids.get(student, Counter())
            ids_text = ", ".join(f"{m} ({n})" if n > 1 else m for m, n in ids.most_common(5))
            rows.append((rank, student, f"{fmt_points(points)} / {fmt_points(possible)}", fmt_pct(share),
                         f"{len(data.assignments) - len(missing)} of {len(data.assignments)}",
                         ", ".join(missing) or "none", ids_text or "none named"))
        shown["lowest"] = table(f"The {min(len(below), LOWEST_SHOWN)} lowest totals ({perfect} student(s) have full "
                                "marks; a missing assignment counts 0)",
                                ["#", "student", "points", "total", "submitted", "missing", "mistakes named (times)"],
                                rows, "lowest", numeric=(0, 2, 3))

    not_submitted = [(student, missing) for student, _, _, _, missing in totals if missing]
    unreadable = [(s, a, nb, message) for (s, a, nb), (kind, _, message) in sorted(data.problems.items())
                  if kind == "unreadable"]
    left_out = defaultdict(list)  # (student, assignment) -> what the import found that kept it from grading
    for finding in imported or ():
        if finding["kind"] != "late" and finding["student"] and finding["assignment"]:
            left_out[(finding["student"], finding["assignment"])].append(finding)
    rows = []
    for student, missing in not_submitted:
        plain = [a for a in missing if (student, a) not in left_out]
        if plain:
            rows.append((student, ", ".join(plain), "", f"no submission ({len(plain)} assignment(s))"))
        for assignment in (a for a in missing if (student, a) in left_out):
            found = left_out[(student, assignment)]
            rows.append((student, assignment, found[0]["notebook"],
                         Message(f"submitted, but left out at import ({len(found)} finding(s), see What the import "
                                 f"found): {found[0]['why']}")))
    rows += [(s, a, nb, Message(why)) for s, a, nb, why in unreadable]
    rows.sort(key=lambda r: (r[0], r[2] != "", r[1]))
    count = sum(len(missing) for _, missing in not_submitted)
    held = sum(1 for student, missing in not_submitted for a in missing if (student, a) in left_out)
    count -= held
    if imported:
        shown["imported"] = import_findings_table(imported)
    shown["missing"] = table(f"Missing or unreadable submissions: {count} assignment(s) not submitted, "
                             + (f"{held} submitted but left out at import, " if held else "")
                             + f"{len(unreadable)} notebook(s) missing or unreadable",
                             ["student", "assignment", "notebook", "why"], rows[:ROWS_SHOWN], "missing",
                             more=len(rows) - ROWS_SHOWN) if rows else None

    if not_graded:  # folders and files in SUBMITTED that no record stands for (layout.find_submissions)
        shown["not_graded"] = table(f"In SUBMITTED but not graded ({len(not_graded)}): rename or move them to grade "
                                    "them", ["what, and why"], [(Message(line),) for line in not_graded[:ROWS_SHOWN]],
                                    "not-graded", more=len(not_graded) - ROWS_SHOWN)

    limit_rows = [(s, a, nb, what, Message(message))
                  for (s, a, nb), (kind, what, message) in sorted(data.problems.items()) if kind == "limit"]
    shown["limits"] = table(f"Notebooks stopped by the time budget or a sandbox limit ({len(limit_rows)})",
                            ["student", "assignment", "notebook", "what", "message"], limit_rows[:ROWS_SHOWN],
                            "limits", more=len(limit_rows) - ROWS_SHOWN) if limit_rows else None

    tampering = data.mistakes.get("tampering", {})
    flag_rows = sorted((s, u[0], u[1]) for u, students in tampering.items() for s in students)
    if flag_rows:
        shown["tampering"] = table(f"Tampering detected ([tampering]: the checks or what they rely on were replaced) "
                                   f"({len(flag_rows)})", ["student", "assignment", "unit"], flag_rows[:ROWS_SHOWN],
                                   "tampering", more=len(flag_rows) - ROWS_SHOWN)
    return shown


def scores_section(data, labels):
    """None without submissions."""
    if not data.submissions:
        return None
    encoded = distribution_figure(data)
    by_assignment = defaultdict(list)
    for (_, assignment), (points, maximum) in data.submissions.items():
        by_assignment[assignment].append((points, maximum))
    rows, medians = [], []
    for a in data.assignments:
        values = by_assignment[a]
        shares = [percent(p, m) for p, m in values if m > 0]
        full = sum(1 for p, m in values if p >= m - 1e-9)
        median = statistics.median(shares) if shares else None
        medians.append(f"{a} {fmt_pct(median)}")
        rows.append((a, len(values), fmt_points(data.assignment_max[a]),
                     fmt_pct(statistics.fmean(shares) if shares else None), fmt_pct(median),
                     fmt_pct(min(shares) if shares else None), fmt_pct(max(shares) if shares else None), full))
    figure = None
    if encoded:
        alt = ("Box and dot plot of the scores, as a percentage of the maximum, one row per assignment. Medians: "
               + ", ".join(medians) + ". The numbers are in the table below.")
        figure = Figure(encoded, alt, f"Score distribution per assignment: each dot a submission, a box "
                                      f"(quartiles and median) where there are {BOX_FROM} or more.")
    assignments = table("Scores per assignment", ["assignment", "submissions", "max points", "mean", "median",
                                                  "lowest", "highest", "full marks"], rows, "assignments",
                        numeric=(1, 2, 3, 4, 5, 6, 7))
    rows = []
    for unit in data.units:
        scores = data.unit_scores[unit]
        full = len(full_marks(scores))
        share = percent(full, len(scores))
        rows.append((unit[0], labels[unit], len(scores), full, Bar(f"{(share or 0) * 0.8:.0f}", fmt_pct(share))))
    units = table("Full marks per unit (share of the students who submitted the assignment)",
                  ["assignment", "unit", "submitted", "full marks", "share"], rows, "units", numeric=(2, 3))
    return {"figure": figure, "assignments": assignments, "levels": levels_table(data),
            "all_guided": tr("Every submission was at the guided level."), "units": units}


def levels_table(data):
    """Which submissions were at the challenge level (autograder/levels.py), a row per student (None: all guided)."""
    by_student = defaultdict(lambda: defaultdict(list))
    for (student, assignment), level in sorted(data.levels.items()):
        by_student[student][level].append(assignment)
    rows = [(student, ", ".join(levels["challenge"]), ", ".join(levels.get(DEFAULT_LEVEL, [])) or tr("none"))
            for student, levels in sorted(by_student.items()) if levels.get("challenge")]
    if not rows:
        return None
    count = sum(len(levels.get("challenge", [])) for levels in by_student.values())
    return table(tr("Submissions at the challenge level ({count}; every other submission was at the guided level; "
                    "both levels are graded by the same tests)", count=count),
                 [tr("student"), tr("challenge level"), tr("guided level")], rows[:ROWS_SHOWN], "levels",
                 more=len(rows) - ROWS_SHOWN)


def run_section(data, facts, out: Path):
    shown = {"runs": None, "timing": None, "phases": None, "no_logs": False}
    notebooks = {(s, a, nb) for s, a, nb in ((r["student"], r["assignment"], r["notebook"]) for r in data.records)}
    lines = [(f"{len(data.submissions)} submission(s) ({len(notebooks)} notebook(s), {len(data.records)} graded "
              f"cell(s)) from {len(data.students)} student(s) in results.json.")]
    if data.bad_records:
        lines.append(f"{data.bad_records} record(s) of results.json could not be read and were skipped.")
    timings = facts.get("timings") or {}
    lines.append(runs_item(timings, len(data.submissions)))
    shown["lines"] = lines
    if timings:
        shown["runs"] = runs_table(timings)
    phases = {key: t["phases"] for key, t in timings.items() if t["phases"]}
    if phases:
        per_notebook = defaultdict(list)  # assignment -> [(seconds per notebook, submission)]
        counts = Counter((s, a) for s, a, _ in notebooks)
        for submission, timed in phases.items():
            student, _, assignment = submission.rpartition("/")
            total = sum(timed.values()) / max(1, counts.get((student, assignment), 1))
            per_notebook[assignment].append((total, submission))
        rows = []
        for assignment in sorted(per_notebook):
            values = per_notebook[assignment]
            slowest = max(values)
            rows.append((assignment, len(values), f"{statistics.median(v for v, _ in values):.1f}",
                         f"{slowest[0]:.1f}", slowest[1]))
        source = tr("of the runs above, kept in OUT/state/") if len({t["run"] for t in timings.values()}) > 1 else \
            tr("of the run above")
        shown["timing"] = table(tr("Time per notebook (seconds, all phases, {source})", source=source),
                                ["assignment", "submissions", "median", "max", "slowest"], rows, "timing",
                                numeric=(1, 2, 3))
        by_phase = defaultdict(list)
        for timed in phases.values():
            for phase, seconds in timed.items():
                by_phase[phase].append(seconds)
        rows = [(phase, len(v), f"{statistics.median(v):.2f}", f"{max(v):.2f}", f"{sum(v):.1f}")
                for phase, v in sorted(by_phase.items(), key=lambda item: -sum(item[1]))]
        shown["phases"] = table("Where the time went (seconds per submission, by phase)",
                                ["phase", "submissions", "median", "max", "total"], rows, "phases",
                                numeric=(1, 2, 3, 4))
    elif facts.get("phases") is None:
        shown["no_logs"] = True
    flagged = [("(the whole run)", line) for line in run_warnings(facts, out)]
    if facts.get("not_graded"):  # the terminal warned about each of them too
        flagged.append(("(SUBMITTED)", (f"{len(facts['not_graded'])} folder(s) or file(s) in SUBMITTED not graded: "
                                        "see In SUBMITTED but not graded, under Who needs help")))
    notes = {key: t["notes"] for key, t in timings.items() if t["notes"]} if timings else facts.get("notes") or {}
    for submission, lines in sorted(notes.items()):
        for line in lines[:5]:
            flagged.append((submission, line))
        if len(lines) > 5:
            flagged.append((submission, tr("... {count} more line(s) in its grading log", count=len(lines) - 5)))
    for s, a, nb in sorted(data.outside_only):
        flagged.append((f"{s}/{a}", f"{nb}: nbgrader could not run it to the end; graded outside the notebook kernel only"))
    for (s, a, nb), (kind, _, message) in sorted(data.problems.items()):
        if kind == "grader":
            flagged.append((f"{s}/{a}", f"{nb}: {message}"))
    shown["warnings"] = table(f"Warnings of the run (as the terminal showed them) and of graded notebooks "
                              f"({len(flagged)})", ["submission", "warning"],
                              [(s, Message(w)) for s, w in flagged[:ROWS_SHOWN]], "warnings",
                              more=len(flagged) - ROWS_SHOWN) if flagged else None
    return shown


def run_time(label):
    """A run's id (its start, UTC, as the runner writes it) for people: "2026-11-25 14:05 UTC"."""
    found = re.fullmatch(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\dZ", label or "")
    return f"{found.group(1)} {found.group(2)} UTC" if found else tr("an unnamed run")


def runs_item(timings, submissions):
    """The list item saying which runs graded the kept results."""
    if not timings:
        text = tr("No timings: which run graded what, and when, is unknown (no OUT/logs/tasks.jsonl, and no timings "
                  "kept in OUT/state/).")
        return text
    runs = sorted({t["run"] for t in timings.values()})
    text = tr("The {kept} submission(s) with timings come from {count} run(s): {runs}.", kept=len(timings),
              count=len(runs), runs=", ".join(run_time(r) for r in runs))
    if submissions > len(timings):
        text += " " + tr("{missing} other submission(s) have none (graded by a version of the grader that kept no "
                         "timings, or never graded).", missing=submissions - len(timings))
    return text


def runs_table(timings):
    """One row per run that graded kept results: when, how many submissions, workers, wall time."""
    by_run = defaultdict(list)
    for timing in timings.values():
        by_run[timing["run"]].append(timing)
    rows = []
    for run in sorted(by_run):
        spans = [(t["started"], t["ended"]) for t in by_run[run] if t["started"] is not None and t["ended"] is not None]
        wall = f"{max(e for _, e in spans) - min(s for s, _ in spans):.1f}" if spans else "n/a"
        rows.append((run_time(run), len(by_run[run]), len({t["worker"] for t in by_run[run] if t["worker"]}), wall))
    return table(tr("Runs whose results are kept (a resumed or repeated run grades only what changed)"),
                 [tr("run started"), tr("submissions"), tr("workers"), tr("wall time (s)")], rows, "runs",
                 numeric=(1, 2, 3))


def run_warnings(facts, out: Path):
    """The run's own warnings (OUT/logs/warnings.txt), and --no-sandbox's where an older run left only its file."""
    lines = list(facts.get("warnings") or [])
    sandbox_warning = out / "WARNING-no-sandbox.txt"
    if sandbox_warning.is_file():
        text = " ".join(sandbox_warning.read_text(encoding="utf-8", errors="replace").split())
        if text not in lines:
            lines.insert(0, text)
    return lines


def course_name(configured=None):
    """The course's name: ``configured`` (nbgrader's CourseDirectory.course_id, which the caller reads:
    bookkeeping/config.configured_course_id) where given, else the title of this checkout's README."""
    if configured and str(configured).strip():
        return str(configured).strip()
    for line in (read_lines(ROOT / "README.md") or []):
        if line.startswith("# "):
            return line[2:].strip()
    return tr("the course")


def assignments_text(assignments):
    """The assignments graded, for the title: all of them, or the first and last of a long list."""
    if len(assignments) <= 4:
        return ", ".join(assignments)
    return tr("{first} to {last} ({count} assignments)", first=assignments[0], last=assignments[-1],
              count=len(assignments))


def heading(data, timings, out: Path, course):
    """(title, subtitle) of the page: the course, the date of the run and the assignments; the folder below."""
    runs = sorted({t["run"] for t in timings.values() if t["run"]})
    results = out / "results.json"
    if runs:
        when = run_time(runs[-1])[:10]
    else:
        when = time.strftime("%Y-%m-%d", time.gmtime(results.stat().st_mtime if results.is_file() else time.time()))
    title = tr("{course}: class report of {date}", course=course, date=when)
    if data.assignments:
        title += " · " + assignments_text(data.assignments)
    return title, tr("Results in {folder}", folder=str(out))


def render(records, out: Path, facts=None, course_dir=COURSE, bad_records=0, title=None, course=None):
    """The page, as a string, for clean ``records``."""
    data = analyse(records, bad_records)
    facts = dict(facts) if facts is not None else {"phases": None, "notes": None, "tasks": None}
    if "timings" not in facts:
        facts["timings"] = kept_timings(out, [k for k in data.submissions if k not in data.job_stopped], facts)
    labels = unit_labels(data.units)
    ranking = mistake_ranking(data)
    totals = student_totals(data)
    teaching = Teaching(out, course_dir)
    title, subtitle = heading(data, facts["timings"], out, course_name(course)) if title is None else (title, "")
    made = time.strftime("%Y-%m-%d %H:%M")
    note = tr("Made {made} from results.json. Which notebook of the course, and which section, teaches each unit "
              "is said under Misconceptions.", made=made)
    page = page_template().render(
        lang=language(), title=title, subtitle=subtitle, note=note, css=Markup("\n" + (TEMPLATES / "class_report.css").read_text(encoding="utf-8")),
        graded=bool(data.records), glance=glance_section(data, ranking, totals, labels, facts.get("imported")),
        misconceptions=misconceptions_section(data, ranking, labels, teaching, catalogue()),
        help=help_section(data, totals, facts.get("not_graded"), facts.get("imported")),
        scores=scores_section(data, labels),
        run=run_section(data, facts, out))
    return page if page.endswith("\n") else page + "\n"


def _escaped(value):
    """Every value escaped as Python's html.escape does (``&#x27;``, as the page always wrote it); HTML that the
    templates made (their macros' Markup) as it is."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


@functools.lru_cache(maxsize=1)
def page_template():
    """The page's Jinja2 template, escaping every value (the cells' kinds are the dataclasses above)."""
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, finalize=_escaped)
    environment.filters["kind"] = lambda value: getattr(value, "kind", "text")
    return environment.get_template("page.html.j2")


class ReportError(Exception):
    """No report can be made (no results.json, or not one we can read)."""


def write_report(out: Path, records=None, course_dir=COURSE, extra_warnings=(), imported=None, course=None):
    """Write OUT/report.html from ``records`` (default: OUT/results.json) and OUT/logs/; returns its path.
    ``course``: the course's name where nbgrader_config.py sets one (course_name).
    ``extra_warnings``: shown with the run's (those of `autograder report --roster`, which changes no run's logs).
    ``imported``: what collect-zip found (lms_export.read_findings' list); default: OUT/import-findings.json's."""
    out = Path(out)
    if records is None:
        path = out / "results.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ReportError(f"{path}: no such file (run autograder grade first)") from None
        except (OSError, ValueError) as error:
            raise ReportError(f"{path}: not readable as JSON ({error})") from None
    else:
        raw = records
    records, bad = clean_records(raw)
    del raw  # the cleaned copy is all we need (halves the memory of a large class)
    facts = read_logs(out)
    known = facts["warnings"] or []
    facts["warnings"] = known + [line for line in extra_warnings if line not in known] if extra_warnings else facts["warnings"]
    if imported is None:
        from autograder.grading.outputs.lms_export import IMPORTED_COPY, read_findings

        if (out / IMPORTED_COPY).is_file():
            imported, problem = read_findings(out / IMPORTED_COPY)
            if problem:
                facts["warnings"] = (facts["warnings"] or []) + [f"what the import found is not shown: {problem}"]
    facts["imported"] = imported or []
    page = render(records, out.resolve(), facts, course_dir, bad, course=course)
    target = out / "report.html"
    partial = target.with_suffix(".html.tmp")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target
