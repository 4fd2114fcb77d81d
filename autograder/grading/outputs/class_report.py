"""OUT/report.html: the class at a glance, for instructors (``autograder report OUT``).

Made from OUT/results.json alone; OUT/logs/ (timings, warnings) is read where present. One
self-contained page: figures are PNGs embedded in it, no JavaScript, no network. Sections:

1. at a glance: the few lines to read before the next lecture;
2. misconceptions: a heatmap of unit x mistake id (number of students), the same counts as a
   table, each id linked to its explanation (the catalogue text learners see) and to where its
   unit is taught (the release notebook and its section, in words, in the page: every link of
   the page stays inside it, so it can be moved or mailed); units left unanswered apart;
3. who needs help: the lowest totals, missing or unreadable notebooks, folders in SUBMITTED that
   were not graded (OUT/logs/not-graded.txt), notebooks stopped by the time budget or a sandbox
   limit, tampering;
4. scores: the distribution per assignment, and per unit the share of the class with full marks;
5. the run: what was graded, by which runs (a resumed run's earlier timings are kept in OUT/state/), the
   time per notebook, the run's warnings (as the terminal showed them) and anything graded with warnings.

A mistake id is named by a feedback message when a line of it starts with ``[id]`` (after an
exception's name, as in ``AssertionError: [sdpa-no-scale] ...``): the syntax of
report.MISCONCEPTION, anchored where a check writes it, so that an id a message only mentions
as another possible cause ("... ([sdpa-returns-scores])") is not counted.
"""
import base64
import functools
import html
import io
import json
import math
import os
import re
import statistics
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from autograder.grading.bookkeeping.layout import read_not_graded
from autograder.grading.outputs.report import MISCONCEPTION, NO_NOTEBOOK, RUN_WARNINGS, read_lines
from autograder.grading.run.state import read_timing
from autograder.levels import DEFAULT_LEVEL
from autograder.paths import COURSE, ROOT
from learner_kit.i18n import add_translations, language, tr

add_translations("autograder.locales")  # the report's sentences in the instructor's language (COURSE_LANG)

NAMED = re.compile(r"^(?:[A-Za-z_][\w.]*: *)?" + MISCONCEPTION.pattern, re.M)
UNANSWERED = "not-implemented"  # a blank left as it was: not a misconception, shown apart
# Ids any unit can get (COURSE.md section 4's last row, and the catalogue's generic ones): at equal
# frequency, the ids that name an idea of one unit come first.
GENERIC = {"runtime-error", "shape", "nan", "device", "inplace-input", "forbidden-builtin", "tampering",
           "wrong-values", "wrong-gradients", "wrong-interface", "property-violated"}
BOX_FROM = 5  # submissions of an assignment from which the distribution gets a box
LOWEST_SHOWN = 10  # students listed under "lowest totals"
ROWS_SHOWN = 50  # rows of a long table before "... and N more"
HEATMAP_IDS = 30  # ids drawn in the heatmap (the table lists them all)
DISCRETE_UP_TO = 12  # up to this many students in a heatmap cell, one distinct colour per count
NAMES_SHOWN = 8  # student names per mistake id
# The figures' PNGs: DPI, and their text at matplotlib's default size, LABEL_PX tall at the PNG's own size. The page
# never draws a figure below SMALLEST_SCALE of that size (it scrolls in its box instead): labels of 12 px or more.
DPI, LABEL_PT = 96, 10
LABEL_PX = LABEL_PT * DPI / 72
SMALLEST_SCALE = 0.9
SUMMARY_CHARS = 280  # of the paragraph under a teaching section's heading, in "Where each unit is taught"

# What stopped a notebook, by a fragment of its message (first match wins; the order matters).
LIMITS = (
    ("ran past its time budget", "time budget"),
    ("시간 예산", "time budget"),  # the same, in a Korean submission's feedback
    ("The run of this notebook for its outputs stopped", "outputs run stopped"),
    ("출력을 보여 주려고 노트북을 실행하다가 멈췄습니다", "outputs run stopped"),
    ("wrote too much into the grader's kernel folder", "sandbox limit: disk"),
    ("the grading worker stopped twice", "grading worker died"),
    ("nbgrader could not run this notebook to the end", "kernel stopped"),
    ("nbgrader가 이 노트북을 끝까지 실행하지 못했습니다", "kernel stopped"),
    ("the run of this notebook stopped before this cell", "run stopped"),
    ("이 셀에 이르기 전에 노트북 실행이 멈췄습니다", "run stopped"),  # the same, in a Korean submission's feedback
)
CELL_LIMIT = re.compile(r"stopped with (TimeoutError|MemoryError)|정답 셀이 (TimeoutError|MemoryError)")
GRADER_ERROR = "grader_error"  # a record's field, True where the grader's own code failed (never read from its text)
# (the grader's own words where that happened; no longer read to classify: a learner's text may quote them)
GRADER_TROUBLE = ("internal grading error", "the grading job stopped before this submission",
                  "the notebook's code could not be run", "채점기 내부 오류", "노트북의 코드를 실행할 수 없었습니다")
NOT_GRADED = ("Not graded:", "채점되지 않음:")
TRACEBACK_LINES = ("Traceback", "  File ", "    ", "During handling", "The above exception")
OUTSIDE_ONLY = ("graded outside the notebook kernel only", "노트북 커널 밖에서만 채점했습니다")


def unit_of(grade_id):
    """``Unit-visible`` / ``Unit-hidden-aspect`` -> ``Unit`` (any other grade id is its own unit)."""
    if grade_id.endswith("-visible"):
        return grade_id[: -len("-visible")]
    head, sep, _ = grade_id.rpartition("-hidden-")
    return head if sep and head else grade_id


def named_ids(messages):
    """The mistake ids named by ``messages``, in order, each once."""
    found = []
    for message in messages:
        for mistake in NAMED.findall(message):
            if mistake not in found:
                found.append(mistake)
    return found


def percent(part, whole):
    return 100.0 * part / whole if whole else None


def fmt_points(value):
    return f"{value:.6g}"


def fmt_pct(value):
    return "n/a" if value is None else f"{value:.0f}%"


# ------------------------------------------------------------------ reading the inputs

def clean_records(raw):
    """(records with the expected types, number of records that could not be read)."""
    if not isinstance(raw, list):
        return [], 1
    records, bad = [], 0
    for r in raw:
        try:
            points, maximum = float(r.get("points") or 0), float(r.get("max_points") or 0)
            if not (math.isfinite(points) and math.isfinite(maximum)):
                raise ValueError("not a finite number")
            feedback = r.get("feedback") or []
            feedback = [feedback] if isinstance(feedback, str) else [str(f) for f in feedback]
            records.append({"student": str(r["student"]), "assignment": str(r["assignment"]),
                            "notebook": str(r.get("notebook") or ""), "grade_id": str(r["grade_id"]),
                            "points": points, "max_points": maximum, "feedback": feedback,
                            "level": str(r.get("level") or DEFAULT_LEVEL), GRADER_ERROR: r.get(GRADER_ERROR) is True})
        except (KeyError, TypeError, ValueError, AttributeError):
            bad += 1
    return records, bad


def classify(messages, grader_error=False):
    """(kind, what, message) of the first message that says a notebook could not be graded normally, else None.

    kind: "limit" (time budget, sandbox limit, a kernel or worker that died), "grader" (the grader's
    own trouble) or "unreadable" (missing notebook, not JSON, a link, no nbgrader metadata...).
    "grader" only where the record says so itself (``grader_error``: GRADER_ERROR, set by the grader where its own
    code failed), never from the messages' words: a learner's exception text may quote the grader's.
    """
    if grader_error and messages:
        return "grader", "grading error", messages[0]
    for message in messages:
        for fragment, what in LIMITS:
            if fragment in message:
                return "limit", what, message
        found = CELL_LIMIT.search(message)
        if found:
            return "limit", f"answer cell: {found.group(1) or found.group(2)}", message
        if message.startswith(NOT_GRADED):
            return "unreadable", "not graded", message
    return None


def parse_log(text):
    """({submission: {phase: seconds}}, {submission: [notes]}) of grading.log's text (a later block of a
    submission replaces an earlier one)."""
    phases, notes, current = {}, {}, None
    for line in text.splitlines():
        start = re.match(r"^grading (\S.*)$", line)
        timed = re.match(r"^  (.+?): (\d+(?:\.\d+)?) s$", line)
        if start:
            current = start.group(1)
            phases[current], notes[current] = {}, []
        elif timed and current is not None:
            phase = re.sub(r" of \S+$", "", timed.group(1))
            phases[current][phase] = phases[current].get(phase, 0.0) + float(timed.group(2))
        elif current is not None and line.strip() and not line.startswith(TRACEBACK_LINES):
            notes[current].append(line.strip())  # a note of the grader's, or the last line of a traceback
    return phases, {k: v for k, v in notes.items() if v}


def read_logs(out: Path):
    """Run facts from OUT/logs/, the last run's (each part None where its file is missing or unreadable)."""
    facts = {"phases": None, "notes": None, "tasks": None, "not_graded": read_not_graded(out),
             "warnings": read_lines(out / RUN_WARNINGS)}
    log = out / "logs" / "grading.log"
    if log.is_file():
        try:
            facts["phases"], facts["notes"] = parse_log(log.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            pass
    tasks = out / "logs" / "tasks.jsonl"
    if tasks.is_file():
        rows = []
        try:
            for line in tasks.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    row = json.loads(line)
                    rows.append({"submission": str(row["submission"]), "worker": str(row.get("worker", "")),
                                 "started": float(row["started"]), "ended": float(row["ended"])})
                except (ValueError, KeyError, TypeError):
                    continue
            facts["tasks"] = rows
        except OSError:
            pass
    return facts


def run_label(seconds):
    """A run's id as the runner writes it (its start, UTC) from a time.time()."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def kept_timings(out: Path, submissions, facts):
    """{student/assignment: {"run", "worker", "started", "ended", "phases", "notes"}} of the submissions whose
    results are kept, from the run that graded each: its state (OUT/state/, written by that run), else the
    last run's logs (an OUT from before states kept timings). A submission with neither is left out."""
    tasks = {t["submission"]: t for t in facts.get("tasks") or []}
    last_run = run_label(min(t["started"] for t in tasks.values())) if tasks else None
    phases, notes = facts.get("phases") or {}, facts.get("notes") or {}
    timings = {}
    for student, assignment in submissions:
        key = f"{student}/{assignment}"
        saved = read_timing(out, student, assignment)
        if saved is not None:
            saved_phases, saved_notes = parse_log(str(saved.get("log") or ""))
            try:
                timings[key] = {"run": str(saved.get("run") or ""), "worker": str(saved.get("worker", "")),
                                "started": float(saved["started"]), "ended": float(saved["ended"]),
                                "phases": saved_phases.get(key, {}), "notes": saved_notes.get(key, [])}
                continue
            except (KeyError, TypeError, ValueError):
                pass
        if key in tasks or key in phases:
            task = tasks.get(key, {})
            timings[key] = {"run": last_run or "", "worker": task.get("worker", ""), "started": task.get("started"),
                            "ended": task.get("ended"), "phases": phases.get(key, {}), "notes": notes.get(key, [])}
    return timings


# ------------------------------------------------------------------ where a unit is taught

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


# ------------------------------------------------------------------ the numbers

@dataclass
class ClassData:
    records: list
    bad_records: int = 0
    students: list = field(default_factory=list)
    levels: dict = field(default_factory=dict)  # (student, assignment) -> the level it was released at
    assignments: list = field(default_factory=list)
    submissions: dict = field(default_factory=dict)  # (student, assignment) -> [points, max]
    assignment_max: dict = field(default_factory=dict)  # assignment -> its max points
    units: list = field(default_factory=list)  # (assignment, unit), in course order
    unit_notebook: dict = field(default_factory=dict)  # (assignment, unit) -> notebook
    unit_scores: dict = field(default_factory=dict)  # (assignment, unit) -> {student: [points, max]}
    mistakes: dict = field(default_factory=dict)  # id -> {(assignment, unit): set of students}
    student_ids: dict = field(default_factory=dict)  # student -> Counter of ids
    lost_unnamed: dict = field(default_factory=dict)  # (assignment, unit) -> students who lost points, no id named
    problems: dict = field(default_factory=dict)  # (student, assignment, notebook) -> (kind, what, message)
    outside_only: set = field(default_factory=set)  # (student, assignment, notebook) graded outside the kernel only

    @property
    def submitters(self):
        found = defaultdict(set)
        for student, assignment in self.submissions:
            found[assignment].add(student)
        return found


def analyse(records, bad_records=0):
    """Everything the page shows, from clean records, in one pass."""
    data = ClassData(records=records, bad_records=bad_records)
    students, assignments, units = {}, {}, {}
    unit_scores = defaultdict(dict)
    mistakes = defaultdict(lambda: defaultdict(set))
    student_ids = defaultdict(Counter)
    lost_unnamed = defaultdict(set)
    for r in records:
        student, assignment, notebook = r["student"], r["assignment"], r["notebook"]
        students.setdefault(student, None)
        assignments.setdefault(assignment, None)
        unit = (assignment, unit_of(r["grade_id"]))
        units.setdefault(unit, len(units))
        data.unit_notebook.setdefault(unit, notebook)
        total = data.submissions.setdefault((student, assignment), [0.0, 0.0])
        data.levels.setdefault((student, assignment), r.get("level", DEFAULT_LEVEL))
        total[0] += r["points"]
        total[1] += r["max_points"]
        score = unit_scores[unit].setdefault(student, [0.0, 0.0])
        score[0] += r["points"]
        score[1] += r["max_points"]
        ids = named_ids(r["feedback"])
        for mistake in ids:
            mistakes[mistake][unit].add(student)
        if ids:
            student_ids[student].update(ids)
        elif r["points"] < r["max_points"]:
            lost_unnamed[unit].add(student)
        where = (student, assignment, notebook)
        if where not in data.problems:
            problem = classify(r["feedback"], r.get(GRADER_ERROR) is True)
            if problem:
                data.problems[where] = problem
        if any(fragment in message for message in r["feedback"] for fragment in OUTSIDE_ONLY):
            data.outside_only.add(where)
    data.students = sorted(students)
    data.assignments = sorted(assignments)
    data.units = sorted(units, key=lambda u: (u[0], units[u]))
    data.unit_scores = dict(unit_scores)
    data.mistakes = {m: dict(where) for m, where in mistakes.items()}
    data.student_ids = dict(student_ids)
    data.lost_unnamed = dict(lost_unnamed)
    for (_, assignment), (_, maximum) in data.submissions.items():
        data.assignment_max[assignment] = max(data.assignment_max.get(assignment, 0.0), maximum)
    return data


def mistake_ranking(data):
    """[(id, students, {unit: count})], most students first (ties: more units, an id of one unit's idea before a
    generic one, then the id); not-implemented apart."""
    ranking = []
    for mistake, where in data.mistakes.items():
        if mistake == UNANSWERED:
            continue
        students = set().union(*where.values())
        ranking.append((mistake, students, {unit: len(s) for unit, s in where.items()}))
    ranking.sort(key=lambda item: (-len(item[1]), -len(item[2]), item[0] in GENERIC, item[0]))
    return ranking


def full_marks(scores):
    """Students of {student: [points, max]} with full marks."""
    return {s for s, (points, maximum) in scores.items() if points >= maximum - 1e-9}


def student_totals(data):
    """[(student, points, possible, share %, missing assignments)], a missing assignment counting 0 of its max."""
    rows = []
    for student in data.students:
        points = sum(data.submissions[(student, a)][0] for a in data.assignments if (student, a) in data.submissions)
        possible = sum(data.assignment_max[a] for a in data.assignments)
        missing = [a for a in data.assignments if (student, a) not in data.submissions]
        rows.append((student, points, possible, percent(points, possible), missing))
    return rows


# ------------------------------------------------------------------ figures

def png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def unit_labels(units):
    """A short label per (assignment, unit): the unit's name, with its assignment where names repeat."""
    names = Counter(unit for _, unit in units)
    return {u: (u[1] if names[u[1]] == 1 else f"{u[1]} ({u[0]})") for u in units}


def heatmap_colours(top):
    """(colormap, norm, {count: RGB}) of the heatmap, whose counts run from 1 to ``top``.

    seaborn's "flare" palette: light orange to dark purple, never black, so that a small class (where
    every count is the maximum) still reads. Up to DISCRETE_UP_TO students, one distinct colour per count
    (and a legend with one entry per count); beyond, a continuous scale with whole-number ticks.
    """
    import numpy as np
    import seaborn as sns
    from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize

    top = max(1, int(top))
    if top <= DISCRETE_UP_TO:
        # one colour per count, spread over the palette (a lone count gets the palette's middle)
        palette = sns.color_palette("flare", n_colors=max(top, 1))
        colormap, norm = ListedColormap(palette), BoundaryNorm(np.arange(0.5, top + 1.5), top)
        return colormap, norm, {count: tuple(palette[count - 1]) for count in range(1, top + 1)}
    colormap, norm = sns.color_palette("flare", as_cmap=True), Normalize(vmin=1, vmax=top)
    return colormap, norm, {count: tuple(colormap(norm(count)))[:3] for count in range(1, top + 1)}


def luminance(rgb):
    """WCAG relative luminance of an RGB colour (channels 0..1)."""
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    """WCAG contrast ratio of two colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_colour(background):
    """Black or white, whichever reads better on ``background``."""
    return max(((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)), key=lambda ink: contrast(ink, background))


def heatmap_figure(ranking, labels):
    """Unit (columns) x mistake id (rows) heatmap of numbers of students, both sorted by frequency."""
    import matplotlib

    with matplotlib.rc_context({"font.size": LABEL_PT}):
        return _heatmap_figure(ranking, labels)


def _heatmap_figure(ranking, labels):
    import numpy as np
    import seaborn as sns
    from matplotlib.figure import Figure

    rows = ranking[:HEATMAP_IDS]
    unit_totals = Counter()
    for _, _, per_unit in rows:
        unit_totals.update(per_unit)
    columns = sorted(unit_totals, key=lambda u: (-unit_totals[u], u))
    counts = np.array([[per_unit.get(u, 0) for u in columns] for _, _, per_unit in rows])
    top = int(counts.max()) if counts.size else 1
    colormap, norm, colours = heatmap_colours(top)
    figure = Figure(figsize=(min(24, 3.6 + 0.55 * len(columns)), min(30, 1.8 + 0.34 * len(rows))))
    axes = figure.subplots()
    annotate = len(rows) * len(columns) <= 1200
    sns.heatmap(counts, ax=axes, mask=counts == 0, annot=annotate, fmt="d", cmap=colormap, norm=norm,
                cbar_kws={"label": "students"}, linewidths=0.5, linecolor="#dddddd",
                xticklabels=[labels[u] for u in columns], yticklabels=[m for m, _, _ in rows])
    for text in axes.texts if annotate else ():  # each number in the ink that reads best on its cell's colour
        text.set_color(text_colour(colours.get(int(text.get_text()), (1.0, 1.0, 1.0))))
    axes.set_xlabel("unit (most frequent mistakes first)")
    axes.set_ylabel("mistake id")
    axes.tick_params(axis="x", labelrotation=45)
    axes.tick_params(axis="y", labelrotation=0)
    colorbar = axes.collections[0].colorbar
    ticks = list(range(1, top + 1)) if top <= DISCRETE_UP_TO else \
        sorted({int(round(t)) for t in np.linspace(1, top, 6)})
    colorbar.set_ticks(ticks)
    colorbar.set_ticklabels([str(t) for t in ticks])
    for tick in axes.get_xticklabels():
        tick.set_horizontalalignment("right")
    axes.set_facecolor("white")
    return png(figure)


def distribution_figure(data):
    """Scores (% of the assignment's max) per assignment: a box per assignment and every submission as a dot."""
    import matplotlib

    with matplotlib.rc_context({"font.size": LABEL_PT}):
        return _distribution_figure(data)


def _distribution_figure(data):
    import pandas as pd
    from matplotlib.figure import Figure

    rows = [{"assignment": a, "score (% of max)": percent(points, maximum)}
            for (_, a), (points, maximum) in data.submissions.items() if maximum > 0]
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    order = [a for a in data.assignments if a in set(frame["assignment"])]
    figure = Figure(figsize=(8, 1.2 + 0.45 * len(order)))
    axes = figure.subplots()
    with warnings.catch_warnings():  # seaborn 0.13 passes matplotlib 3.11 a deprecated argument: not ours to fix
        warnings.simplefilter("ignore")
        draw_distribution(frame, order, axes)
    axes.set_xlim(-3, 103)
    axes.grid(axis="x", color="#eeeeee")
    return png(figure)


def draw_distribution(frame, order, axes):
    import seaborn as sns

    sizes = frame["assignment"].value_counts()
    boxed = frame[frame["assignment"].map(sizes) >= BOX_FROM]  # a box of two or three dots would mislead
    if not boxed.empty:
        sns.boxplot(data=boxed, x="score (% of max)", y="assignment", order=order, ax=axes, color="#c6dbef",
                    showfliers=False, width=0.6)
    dense = len(frame) > 40 * len(order)
    sns.stripplot(data=frame, x="score (% of max)", y="assignment", order=order, ax=axes, color="#08306b",
                  size=2 if dense else 4, alpha=0.35 if dense else 0.8, jitter=0.25)


# ------------------------------------------------------------------ what the page shows (autograder/grading/outputs/templates/class_report/)

TEMPLATES = Path(__file__).resolve().parent / "templates" / "class_report"


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
        flagged.append(("(SUBMITTED)", f"{len(facts['not_graded'])} folder(s) or file(s) in SUBMITTED not graded: "
                                       "see In SUBMITTED but not graded, under Who needs help"))
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


def course_name():
    """The course's name: nbgrader's CourseDirectory.course_id where nbgrader_config.py sets one, else the title
    of this checkout's README."""
    try:
        from autograder.grading.bookkeeping.config import load_course_config

        course = load_course_config().CourseDirectory
        if "course_id" in course and str(course.course_id).strip():
            return str(course.course_id).strip()
    except Exception:  # a broken nbgrader_config.py is the grader's business, not the report's
        pass
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
        stopped = {(s, a) for (s, a, _), (kind, _, message) in data.problems.items()
                   if kind == "grader" and "stopped before this submission" in message}
        facts["timings"] = kept_timings(out, [k for k in data.submissions if k not in stopped], facts)
    labels = unit_labels(data.units)
    ranking = mistake_ranking(data)
    totals = student_totals(data)
    teaching = Teaching(out, course_dir)
    title, subtitle = heading(data, facts["timings"], out, course or course_name()) if title is None else (title, "")
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


def write_report(out: Path, records=None, course_dir=COURSE, extra_warnings=(), imported=None):
    """Write OUT/report.html from ``records`` (default: OUT/results.json) and OUT/logs/; returns its path.
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
    page = render(records, out.resolve(), facts, course_dir, bad)
    target = out / "report.html"
    partial = target.with_suffix(".html.tmp")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target
