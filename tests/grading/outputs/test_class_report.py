"""The class report (OUT/report.html) and the LMS gradebook (OUT/gradebook.csv).

The page's counts are checked against counts computed here, independently, from the records;
classes are made as results.json files directly (fast), plus one small grading run end to end.
"""
import csv
import html
import json
import random
import re
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.cli import main as cli
from autograder.grading.outputs.class_report import write_report
from autograder.grading.outputs.lms_export import export_gradebook
from learner_kit.messages import CATALOGUE, format_message

ROOT = Path(__file__).resolve().parents[3]

# ------------------------------------------------------------------ making classes

UNITS = {  # assignment -> [(unit, aspects)]: the shape of the real course, smaller
    "01-attention": [("scaled_dot_product_attention", ["values", "masks", "grad"])],
    "02-multi-head": [("split_heads", ["values"]), ("MultiHeadAttention", ["values", "grad"])],
    "03-add-norm": [("LayerNorm", ["values", "float64"]), ("AddNorm", ["values"])],
}
MISTAKES = {
    "scaled_dot_product_attention": ["sdpa-no-scale", "sdpa-softmax-dim", "sdpa-mask-inverted"],
    "split_heads": ["heads-split-no-transpose"],
    "MultiHeadAttention": ["mha-no-output-proj", "mha-kv-use-wq"],
    "LayerNorm": ["layernorm-unbiased-var", "layernorm-eps-outside-sqrt"],
    "AddNorm": ["addnorm-no-residual"],
}
BROKEN = {
    "missing-notebook": "Not graded: no notebook named {nb}.ipynb was submitted (the folder holds: notes.txt).",
    "not-json": "Not graded: {nb}.ipynb is not valid JSON (line 1, column 3); is it a notebook?.",
    "budget": ("nbgrader could not run this notebook to the end (TimeoutError: the notebook ran past its time budget "
               "of 120 s and was stopped); graded outside the notebook kernel only."),
    "disk": ("nbgrader could not run this notebook to the end (OSError: the notebook wrote too much into the grader's "
             "kernel folder and was stopped); graded outside the notebook kernel only."),
}


def cells(assignment, units=UNITS):
    for unit, aspects in units[assignment]:
        yield unit, f"{unit}-visible"
        for aspect in aspects:
            yield unit, f"{unit}-hidden-{aspect}"


def record(student, assignment, grade_id, points, feedback=(), max_points=1):
    return {"student": student, "assignment": assignment, "notebook": assignment, "grade_id": grade_id,
            "points": points, "max_points": max_points, "feedback": list(feedback)}


def submission(student, assignment, mistakes=(), broken=None, unanswered=(), units=UNITS):
    """The records of one submission: ``mistakes`` {unit: [ids]} lose every cell of their unit."""
    mistakes = dict(mistakes)
    records = []
    for unit, grade_id in cells(assignment, units):
        if broken:
            records.append(record(student, assignment, grade_id, 0, [BROKEN[broken].format(nb=assignment)]))
        elif unit in unanswered:
            records.append(record(student, assignment, grade_id, 0, [format_message("not-implemented")]))
        elif unit in mistakes:
            ids = mistakes[unit]
            message = format_message(tuple(ids))  # two ids: one per line, as a check names them
            if grade_id.endswith("-visible"):  # as nbgrader shows a visible assertion, mentioning another cause
                message = f"AssertionError: [{ids[0]}] Something. Likely cause: ... ([sdpa-returns-scores])."
            records.append(record(student, assignment, grade_id, 0, [message]))
        else:
            records.append(record(student, assignment, grade_id, 1))
    return records


def synthetic_class(n_students, seed=0, units=UNITS):
    """Random students with random mistakes, unanswered units, broken and missing submissions."""
    rng = random.Random(seed)
    records = []
    for i in range(n_students):
        student = f"student-{i:04d}"
        for assignment in units:
            roll = rng.random()
            if roll < 0.05:
                continue  # not submitted
            if roll < 0.09:
                records += submission(student, assignment, broken=rng.choice(list(BROKEN)), units=units)
                continue
            mistakes, unanswered = {}, set()
            for unit, _ in units[assignment]:
                r = rng.random()
                if r < 0.25:
                    ids = rng.sample(MISTAKES[unit], k=min(len(MISTAKES[unit]), rng.choice([1, 1, 2])))
                    mistakes[unit] = ids
                elif r < 0.3:
                    unanswered.add(unit)
            records += submission(student, assignment, mistakes, unanswered=unanswered, units=units)
    return records


def write_class(folder: Path, records, logs=False):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    if logs:
        (folder / "logs").mkdir(exist_ok=True)
        keys = sorted({(r["student"], r["assignment"]) for r in records})
        lines = []
        for k, (student, assignment) in enumerate(keys):
            lines += [f"grading {student}/{assignment}", f"  nbgrader autograde: {1 + k:.2f} s",
                      f"  out-of-kernel check of {assignment}: 0.10 s", "  nbgrader generate_feedback: 0.50 s"]
            if k == 0:
                lines.append("  the notebook ran past its time budget of 120 s: its kernel is stopped")
        (folder / "logs" / "grading.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
        tasks = [json.dumps({"submission": f"{s}/{a}", "worker": f"tcp://w{k % 2}", "started": 100.0 + k,
                             "ended": 102.0 + k}) for k, (s, a) in enumerate(keys)]
        (folder / "logs" / "tasks.jsonl").write_text("\n".join(tasks) + "\n", encoding="utf-8")
    return folder


# ------------------------------------------------------------------ counting independently

def named(message):
    """Ids a message names: a line that starts with [id], possibly after 'SomeError: '."""
    found = []
    for line in message.split("\n"):
        head, bracket, rest = line.partition("[")
        if not bracket or (head and not (head.endswith(": ") and " " not in head[:-2])):
            continue
        ident = rest.split("]", 1)[0]
        if "]" in rest and re.fullmatch(r"[a-z][a-z0-9-]*", ident):
            found.append(ident)
    return found


def unit_name(grade_id):
    return grade_id[: -len("-visible")] if grade_id.endswith("-visible") else grade_id.split("-hidden-")[0]


def expected(records):
    students_by_id = defaultdict(set)
    by_id_unit = defaultdict(lambda: defaultdict(set))
    totals, submitted = defaultdict(float), defaultdict(lambda: [0.0, 0.0])
    unit_scores = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for r in records:
        for message in r["feedback"]:
            for ident in named(message):
                students_by_id[ident].add(r["student"])
                by_id_unit[ident][unit_name(r["grade_id"])].add(r["student"])
        totals[r["student"]] += r["points"]
        entry = submitted[(r["student"], r["assignment"])]
        entry[0] += r["points"]
        entry[1] += r["max_points"]
        score = unit_scores[(r["assignment"], unit_name(r["grade_id"]))][r["student"]]
        score[0] += r["points"]
        score[1] += r["max_points"]
    assignments = sorted({a for _, a in submitted})
    maximum = {a: max(m for (_, b), (_, m) in submitted.items() if b == a) for a in assignments}
    students = sorted(totals)
    possible = sum(maximum.values())
    not_submitted = sum(1 for s in students for a in assignments if (s, a) not in submitted)
    unreadable = {(r["student"], r["assignment"]) for r in records
                  if any(m.startswith("Not graded:") for m in r["feedback"])}
    limited = {(r["student"], r["assignment"]) for r in records
               if any("time budget" in m or "wrote too much" in m for m in r["feedback"])}
    full_per_unit = {u: sum(1 for p, m in s.values() if p >= m) for u, s in unit_scores.items()}
    return {"ids": {i: len(s) for i, s in students_by_id.items()}, "by_unit": by_id_unit, "totals": totals,
            "possible": possible, "students": students, "not_submitted": not_submitted, "unreadable": len(unreadable),
            "limited": len(limited), "submitted": submitted, "full_per_unit": full_per_unit,
            "unit_sizes": {u: len(s) for u, s in unit_scores.items()}}


class Tables(HTMLParser):
    """{table id: {"caption": text, "rows": [[cell text]]}}, and every img/a attribute seen."""

    def __init__(self, page):
        super().__init__()
        self.tables, self.current, self.cell, self.in_caption, self.images, self.links = {}, None, None, False, [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.current = self.tables.setdefault(attrs.get("id") or f"table-{len(self.tables)}",
                                                  {"caption": "", "rows": []})
        elif tag == "caption":
            self.in_caption = True
        elif tag == "tr" and self.current is not None:
            self.current["rows"].append([])
        elif tag in ("td", "th") and self.current is not None:
            self.cell = []
        elif tag == "img":
            self.images.append(attrs)
        elif tag == "a":
            self.links.append(attrs)

    def handle_endtag(self, tag):
        if tag == "table":
            self.current = None
        elif tag == "caption":
            self.in_caption = False
        elif tag in ("td", "th") and self.cell is not None:
            self.current["rows"][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.in_caption and self.current is not None:
            self.current["caption"] += data
        elif self.cell is not None:
            self.cell.append(data)

    def body(self, table_id):
        return self.tables[table_id]["rows"][1:]


def report(folder, records, logs=False):
    page = write_report(write_class(folder, records, logs)).read_text(encoding="utf-8")
    return page, Tables(page)


# ------------------------------------------------------------------ the page's counts

@pytest.fixture(scope="module")
def a_class(tmp_path_factory):
    records = synthetic_class(60, seed=3)
    records += submission("Zoë <b>&amp; 李</b>", "01-attention", {"scaled_dot_product_attention": ["sdpa-no-scale"]})
    page, tables = report(tmp_path_factory.mktemp("class") / "out", records, logs=True)
    return {"records": records, "page": page, "tables": tables, "expected": expected(records)}


def test_mistake_counts_are_those_of_the_records(a_class):
    want, tables = a_class["expected"], a_class["tables"]
    shown = {row[0].strip("[]"): int(row[1]) for row in tables.body("mistakes")}
    assert shown == {i: n for i, n in want["ids"].items() if i != "not-implemented"}
    assert "sdpa-returns-scores" not in shown  # only mentioned as another possible cause, never named
    for row in tables.body("mistakes"):  # the units column: "unit: students; ..."
        per_unit = dict(part.rsplit(": ", 1) for part in row[3].split("; "))
        assert {u: int(n) for u, n in per_unit.items()} == {u: len(s) for u, s in want["by_unit"][row[0].strip("[]")].items()}
    counts = [int(row[1]) for row in tables.body("mistakes")]
    assert counts == sorted(counts, reverse=True)  # most frequent first
    unanswered = {row[0]: int(row[1]) for row in tables.body("unanswered")}
    assert unanswered == {u: len(s) for u, s in want["by_unit"]["not-implemented"].items()}


def test_every_id_links_to_its_explanation_and_its_section(a_class):
    page, tables = a_class["page"], a_class["tables"]
    for row in tables.body("mistakes"):
        ident = row[0].strip("[]")
        assert f'href="#why-{ident}"' in page and f'id="why-{ident}"' in page
        what, why = CATALOGUE[ident]
        explanation = page.split(f'id="why-{ident}"', 1)[1].split("</dd>", 1)[0]
        assert html.escape(what) in explanation and html.escape(why) in explanation
    taught = [a["href"] for a in tables.links if a.get("href", "").startswith("#taught-")]
    assert taught, "each id links to where its unit is taught"


def test_every_link_resolves_in_the_page_wherever_it_is_moved(a_class, tmp_path):
    """Issue 26 (1): links into the checkout's notebook files broke once the page was moved or mailed."""
    moved = tmp_path / "mailed" / "report.html"
    moved.parent.mkdir()
    moved.write_text(a_class["page"], encoding="utf-8")  # the page alone, elsewhere
    page = moved.read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    hrefs = [a["href"] for a in Tables(page).links]
    assert hrefs and all(h.startswith("#") and h[1:] in ids for h in hrefs), [h for h in hrefs if h[1:] not in ids]
    # the unit's entry says, in words, which notebook and which section teach it
    (row,) = [r for r in Tables(page).body("mistakes") if r[0] == "[sdpa-no-scale]"]
    entry = page.split('id="taught-01-attention-scaled_dot_product_attention"', 1)[1].split("</dd>", 1)[0]
    assert "course/01-attention/01-attention.ipynb" in entry
    assert html.escape("6. Your turn: scaled_dot_product_attention") in entry
    assert "Fill the six blanks" in entry  # the first words of the section
    assert "01-attention § 6. Your turn: scaled_dot_product_attention" in row[4]


def test_who_needs_help_and_scores_match_the_records(a_class):
    want, tables = a_class["expected"], a_class["tables"]
    lowest = tables.body("lowest")
    ranked = sorted((t / want["possible"], s) for s, t in want["totals"].items() if t < want["possible"])[:10]
    assert [row[1] for row in lowest] == [s for _, s in ranked]
    assert [row[2] for row in lowest] == [f"{want['totals'][s]:g} / {want['possible']:g}" for _, s in ranked]
    caption = tables.tables["missing"]["caption"]
    assert f"{want['not_submitted']} assignment(s) not submitted, {want['unreadable']} notebook(s)" in caption
    assert f"({want['limited']})" in tables.tables["limits"]["caption"]
    per_assignment = {row[0]: (int(row[1]), int(row[7])) for row in tables.body("assignments")}
    full = defaultdict(int)
    count = defaultdict(int)
    for (_, a), (p, m) in want["submitted"].items():
        count[a] += 1
        full[a] += p >= m
    assert per_assignment == {a: (count[a], full[a]) for a in count}
    per_unit = {(row[0], row[1]): (int(row[2]), int(row[3])) for row in tables.body("units")}
    assert per_unit == {u: (want["unit_sizes"][u], want["full_per_unit"][u]) for u in want["unit_sizes"]}


def test_the_run_section_reads_the_logs(a_class):
    tables, want = a_class["tables"], a_class["expected"]
    timing = {row[0]: int(row[1]) for row in tables.body("timing")}
    count = defaultdict(int)
    for _, a in want["submitted"]:
        count[a] += 1
    assert timing == dict(count)
    assert any("time budget" in row[1] for row in tables.body("warnings"))
    ((_, submissions, workers, wall),) = tables.body("runs")  # one run, from the logs: 2 workers, 1 s apart each
    assert (int(submissions), int(workers), float(wall)) == (len(want["submitted"]), 2, len(want["submitted"]) + 1.0)


def test_names_and_messages_are_escaped_and_the_page_is_self_contained(a_class, tmp_path):
    records = submission("<script>alert(1)</script>", "01-attention",
                         {"scaled_dot_product_attention": ["sdpa-no-scale"]})
    records += [record("mallory\"'><img src=x onerror=alert(2)>", "01-attention", "scaled_dot_product_attention-visible",
                       0, ["Not graded: <iframe src=https://evil.example>.ipynb is a symbolic link"])]
    page, tables = report(tmp_path / "out", records)
    assert "<script" not in page and "<iframe" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;iframe" in page
    for each in (page, a_class["page"]):
        parsed = Tables(each)
        assert parsed.images and all(i["src"].startswith("data:image/png;base64,") and i.get("alt") for i in parsed.images)
        assert not [a for a in parsed.links if re.match(r"([a-z]+:)?//", a.get("href", ""))]  # no network
        assert "<script" not in each.lower() and "<link" not in each.lower()
    assert "Zoë &lt;b&gt;&amp;amp; 李&lt;/b&gt;" in a_class["page"]


# ------------------------------------------------------------------ small and odd classes

def test_an_empty_class_renders(tmp_path):
    page, tables = report(tmp_path / "out", [])
    assert "No graded cells" in page and "No students" in page and not tables.images


def test_a_single_student_renders(tmp_path):
    page, tables = report(tmp_path / "out", submission("ada", "02-multi-head", {"split_heads": ["heads-split-no-transpose"]}))
    assert [row[1] for row in tables.body("mistakes")] == ["1"]
    assert [row[1] for row in tables.body("lowest")] == ["ada"]
    assert len(tables.images) == 2  # the heatmap and the distribution


def test_at_equal_frequency_a_units_own_idea_comes_before_a_generic_id(tmp_path):
    records = submission("ada", "01-attention", {"scaled_dot_product_attention": ["runtime-error"]})
    records += submission("bob", "01-attention", {"scaled_dot_product_attention": ["sdpa-softmax-dim"]})
    records += submission("cy", "01-attention", {"scaled_dot_product_attention": ["sdpa-no-scale"]})
    records += submission("dee", "01-attention", {"scaled_dot_product_attention": ["sdpa-no-scale"]})
    page, tables = report(tmp_path / "out", records)
    assert [row[0] for row in tables.body("mistakes")] == ["[sdpa-no-scale]", "[sdpa-softmax-dim]", "[runtime-error]"]
    glance = page.split('id="glance"', 1)[1].split("</section>", 1)[0]
    assert glance.index("sdpa-no-scale") < glance.index("sdpa-softmax-dim") < glance.index("runtime-error")


def test_a_class_with_no_mistake_renders(tmp_path):
    records = [r for s in ("ada", "bob") for a in UNITS for r in submission(s, a)]
    page, tables = report(tmp_path / "out", records)
    assert "No misconception was named" in page and "mistakes" not in tables.tables
    assert "Every student has full marks" in page and "No missing or unreadable submission" in page
    assert len(tables.images) == 1  # the distribution only
    assert all(row[4].endswith("100%") for row in tables.body("units"))


def test_odd_records_do_not_break_the_page(tmp_path):
    records = submission("Ünïcødé 学生", "01-attention", {"scaled_dot_product_attention": ["sdpa-no-scale"]})
    records += [record("ada", "99-extra", "free-form", 0, ["[my-own-id] something", "[not-an-id: x]"], max_points=0),
                record("ada", "01-attention", "weird", 0, "a string, not a list"),
                {"student": "bob"}, {"student": "bob", "assignment": "01-attention", "grade_id": "x", "points": "lots"},
                "not a record", {"student": "eve", "assignment": "a", "grade_id": "g", "points": float("nan")}]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text(json.dumps(records).replace("NaN", "1e999"), encoding="utf-8")
    page = write_report(tmp_path / "out").read_text(encoding="utf-8")
    tables = Tables(page)
    assert {row[0] for row in tables.body("mistakes")} == {"[sdpa-no-scale]", "[my-own-id]"}
    assert "Not in the course's catalogue" in page
    assert "4 record(s) of results.json could not be read" in page
    assert "Ünïcødé 学生" in page


def test_the_report_command(tmp_path, capsys):
    assert cli(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text("{ not json", encoding="utf-8")
    assert cli(["report", str(tmp_path / "out")]) == 2
    write_class(tmp_path / "out", submission("ada", "01-attention"))
    assert cli(["report", str(tmp_path / "out")]) == 0
    assert "class report:" in capsys.readouterr().err and (tmp_path / "out" / "report.html").is_file()
    assert not (tmp_path / "out" / "gradebook.csv").exists()  # no gradebook to export


def test_a_failing_report_never_loses_the_grades(tmp_path, monkeypatch):
    from autograder.grading.outputs import class_report
    from autograder.grading.run import runner

    out = write_class(tmp_path / "out", submission("ada", "01-attention"))
    monkeypatch.setattr(class_report, "write_report", lambda *a, **k: 1 / 0)
    warnings = []
    runner.write_class_outputs(out, json.loads((out / "results.json").read_text()), f"sqlite:///{tmp_path / 'none' / 'x.db'}",
                               warnings.append)
    assert len(warnings) == 2  # gradebook.csv first (its warnings go into the report), then the report
    assert "gradebook.csv was not written" in warnings[0] and "class report was not written (ZeroDivisionError" in warnings[1]
    assert (out / "results.json").is_file()


def course_shape():
    """{assignment: [(unit, aspects)]} of the real course (solutions/), and three mistake ids per unit."""
    units, ids = {}, sorted(i for i in CATALOGUE if i != "not-implemented")
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        grade_ids = [c["metadata"]["nbgrader"]["grade_id"] for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
        shape = defaultdict(list)
        for grade_id in grade_ids:
            unit = unit_name(grade_id)
            shape[unit] += [grade_id.split("-hidden-")[1]] if "-hidden-" in grade_id else []
        units[path.parent.name] = list(shape.items())
    mistakes = {unit: ids[k * 3 % len(ids):][:3] or ids[:3]
                for k, unit in enumerate(u for shape in units.values() for u, _ in shape)}
    return units, mistakes


def test_a_thousand_students_take_seconds(tmp_path, monkeypatch):
    units, mistakes = course_shape()
    assert len(units) == 10
    monkeypatch.setitem(globals(), "MISTAKES", mistakes)
    records = synthetic_class(1000, seed=1, units=units)
    write_class(tmp_path / "out", records, logs=True)
    started = time.process_time()  # CPU time of this process: the report's cost, not the machine's load
    page = write_report(tmp_path / "out").read_text(encoding="utf-8")
    seconds = time.process_time() - started
    print(f"\n1,000 students x 10 assignments ({len(records)} records): report in {seconds:.1f} s, {len(page) // 1024} kB")
    tables = Tables(page)
    assert sum(int(row[1]) for row in tables.body("assignments")) == len({(r["student"], r["assignment"]) for r in records})
    assert seconds < 60


# ------------------------------------------------------------------ gradebook.csv

def make_gradebook(path):
    """A gradebook made with nbgrader's API: two assignments, three students (one without a submission)."""
    from nbgrader.api import Gradebook

    from autograder.paths import put_python_scripts_on_path

    put_python_scripts_on_path()  # nbgrader runs alembic by name
    with Gradebook(f"sqlite:///{path}") as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's autoflush warnings inside nbgrader
        for assignment, cells_ in (("01-attention", {"a-visible": 1, "a-hidden-values": 2}), ("02-multi-head", {"b": 4})):
            gradebook.add_assignment(assignment)
            gradebook.add_notebook(assignment, assignment)
            for name, points in cells_.items():
                gradebook.add_grade_cell(name, assignment, assignment, max_score=points, cell_type="code")
        gradebook.add_student("ada", first_name="Ada", last_name="Lovelace")
        gradebook.add_student("zoë,\"x\"")
        gradebook.add_student("bob")
        scores = {("ada", "01-attention"): {"a-visible": 1, "a-hidden-values": 1.5}, ("ada", "02-multi-head"): {"b": 4},
                  ("zoë,\"x\"", "01-attention"): {"a-visible": 0, "a-hidden-values": 0}}
        for (student, assignment), points in scores.items():
            gradebook.add_submission(assignment, student)
            for name, value in points.items():
                gradebook.find_grade(name, assignment, assignment, student).auto_score = value
        gradebook.db.commit()
    return f"sqlite:///{path}"


def test_gradebook_csv_has_a_row_per_student_and_a_column_per_assignment(tmp_path):
    db_url = make_gradebook(tmp_path / "gradebook.db")
    export_gradebook(db_url, tmp_path / "gradebook.csv")
    with open(tmp_path / "gradebook.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01-attention", "02-multi-head"]
    assert rows[1] == ["Points Possible", "", "", "", "", "3", "4"]
    assert rows[2:] == [["Lovelace, Ada", "", "", "ada", "", "2.5", "4"],
                        ["bob", "", "", "bob", "", "", ""],
                        ["zoë,\"x\"", "", "", "zoë,\"x\"", "", "0", ""]]
    export_gradebook(db_url, tmp_path / "moodle.csv", points_possible_row=False)
    assert (tmp_path / "moodle.csv").read_text(encoding="utf-8").splitlines()[1].startswith("\"Lovelace, Ada\"")


def test_gradebook_csv_through_nbgrader_export(tmp_path):
    """The same file from `nbgrader export --exporter=...`: the plugin works the usual nbgrader way."""
    db_url = make_gradebook(tmp_path / "gradebook.db")
    export_gradebook(db_url, tmp_path / "in-process.csv")
    nbgrader = [sys.executable, "-m", "nbgrader", "export", "--exporter=autograder.grading.outputs.lms_export.LmsGradebookExport",
                f"--to={tmp_path / 'cli.csv'}", f"--db={db_url}"]
    result = subprocess.run(nbgrader, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "cli.csv").read_text(encoding="utf-8") == (tmp_path / "in-process.csv").read_text(encoding="utf-8")


# ------------------------------------------------------------------ one grading run, end to end

def test_grading_writes_the_report_and_the_gradebook(tmp_path):
    from tests.fixtures.grading_course import write_sources, write_submissions

    source = write_sources(tmp_path / "source")
    submitted = write_submissions(tmp_path / "submitted", ["perfect", "mistake"])
    roster = tmp_path / "roster.csv"  # "mistake" is not in it; "ghost" submitted nothing
    roster.write_text("student_id,Student,ID,SIS User ID,SIS Login ID,Section\n"
                      "perfect,\"Student, Perfect\",77,S-77,p.login,A\nghost,\"Ghost, G\",78,S-78,g.login,A\n",
                      encoding="utf-8")
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(tmp_path / "out"),
               "--source", str(source), "--timeout", "15", "--budget", "30", "--roster", str(roster)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "warning: 1 student(s) graded but not in the roster: mistake." in result.stderr
    assert "warning: 1 student(s) of the roster have no submission: ghost." in result.stderr
    assert f"class report in {tmp_path / 'out' / 'report.html'}" in result.stderr
    records = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    tables = Tables((tmp_path / "out" / "report.html").read_text(encoding="utf-8"))
    assert {row[0]: int(row[1]) for row in tables.body("mistakes")} == \
        {f"[{i}]": n for i, n in expected(records)["ids"].items()} == {"[sdpa-no-scale]": 1}
    assert {row[0] for row in tables.body("timing")} == {"fx-attn", "fx-ctrl"}  # the run's own logs
    ((_, graded, _, _),) = tables.body("runs")  # one run, whose timings each state keeps (runner.save_result)
    assert int(graded) == len({(r["student"], r["assignment"]) for r in records})
    state = json.loads((tmp_path / "out" / "state" / "perfect" / "fx-attn.json").read_text(encoding="utf-8"))
    assert state["timing"]["run"].endswith("Z") and "grading perfect/fx-attn" in state["timing"]["log"]
    with open(tmp_path / "out" / "gradebook.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    points = defaultdict(float)
    for r in records:
        points[(r["student"], r["assignment"])] += r["points"]
    by_login = {row["SIS Login ID"]: row for row in rows if row["Student"] != "Points Possible"}
    assert set(by_login) == {"mistake", "p.login", "g.login"}
    assert [by_login["p.login"][c] for c in ("Student", "ID", "SIS User ID")] == ["Student, Perfect", "77", "S-77"]
    assert [by_login["g.login"][a] for a in ("fx-attn", "fx-ctrl")] == ["", ""]  # no submission: blank, said above
    by_student = {"perfect": by_login["p.login"], "mistake": by_login["mistake"]}
    for (student, assignment), value in points.items():
        assert float(by_student[student][assignment] or 0) == value


# ------------------------------------------------------------------ issue 26: title, colours, resumed runs

def h1(page):
    return html.unescape(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1))


def test_the_title_names_the_course_the_date_and_the_assignments(tmp_path):
    out = tmp_path / "out"
    records = submission("ada", "01-attention") + submission("ada", "02-multi-head")
    first = h1(write_report(write_class(out, records)).read_text(encoding="utf-8"))
    assert "Class report" not in first and "The Transformer, written by you" in first  # the course, not the folder
    from autograder.grading.outputs.class_report import course_name
    from autograder.grading.run.state import write_state

    write_state(out, type("S", (), {"student": "ada", "assignment": "01-attention"})(), "key", [],
                timing={"run": "2026-03-14T09:26:53Z", "worker": "w", "started": 1.0, "ended": 2.0, "log": ""})
    page = write_report(out).read_text(encoding="utf-8")
    title = h1(page)
    assert course_name() == "The Transformer, written by you"  # this checkout's README (no course_id configured)
    assert title == "The Transformer, written by you: class report of 2026-03-14 · 01-attention, 02-multi-head"
    assert "Class report" not in title and "out" not in title.split()  # the folder is a subtitle at most
    assert f"Results in {out.resolve()}" in html.unescape(page)
    many = [r for a in ("01-a", "02-b", "03-c", "04-d", "05-e") for r in submission("ada", "01-attention")
            for r in [dict(r, assignment=a)]]
    assert "01-a to 05-e (5 assignments)" in h1(write_report(write_class(tmp_path / "five", many)).read_text())


def heatmap_pixels(page):
    """The heatmap's pixels (RGB, 0..1), decoded from the page."""
    import base64
    import io

    import matplotlib.image

    tag = re.search(r'<img src="data:image/png;base64,([^"]+)" alt="Heatmap', page)
    return matplotlib.image.imread(io.BytesIO(base64.b64decode(tag.group(1))), format="png")[..., :3]


@pytest.mark.parametrize("size", [1, 2, 5])
def test_the_heatmap_of_a_small_class_reads(tmp_path, size):
    """Issue 26 (3): with a small class every cell was the scale's top colour, black."""
    records = []
    for k in range(size):  # counts 1 .. size: ada alone on split_heads, all on sdpa-no-scale
        records += submission(f"s{k}", "01-attention", {"scaled_dot_product_attention": ["sdpa-no-scale"]})
        records += submission(f"s{k}", "02-multi-head", {"split_heads": ["heads-split-no-transpose"]} if k == 0 else {})
    page, tables = report(tmp_path / "out", records)
    pixels = heatmap_pixels(page)
    dark = (pixels.max(axis=-1) < 0.2).mean()  # black: only the labels' text (a few %), no black block
    assert dark < 0.02, dark  # measured: 0.005 now, 0.06 to 0.12 with the black scale
    from autograder.grading.outputs.class_report import contrast, heatmap_colours, text_colour

    _, _, colours = heatmap_colours(size)
    assert sorted(colours) == list(range(1, size + 1))  # one colour, and one legend entry, per count
    for count, colour in colours.items():
        assert max(colour) > 0.25, (count, colour)  # never black
        assert contrast(text_colour(colour), colour) >= 4.5  # its number reads (WCAG AA)
    distinct = [sum((a - b) ** 2 for a, b in zip(colours[i], colours[j])) ** 0.5
                for i in colours for j in colours if i < j]
    assert min(distinct, default=1) > 0.08, distinct
    assert "Heatmap" in page and "Students who made each mistake, per unit" in page  # figure, with its legend


def test_all_perfect_and_all_zero_classes_say_so(tmp_path):
    perfect = [r for s in ("ada", "bob") for r in submission(s, "01-attention")]
    page, tables = report(tmp_path / "perfect", perfect)
    assert "No misconception was named" in page and len(tables.images) == 1
    zero = [r for s in ("ada", "bob", "cy") for r in submission(s, "01-attention", broken="missing-notebook")]
    page, tables = report(tmp_path / "zero", zero)
    assert "No misconception was named" in page and len(tables.images) == 1  # no empty heatmap
    assert [row[1] for row in tables.body("unnamed")] == ["3"] and "lowest total" in page


def test_a_resumed_run_keeps_the_timings_of_every_run(tmp_path):
    """Issue 26 (4): after Ctrl-C and the same command, the timing tables covered the last run only."""
    from autograder.grading.run.state import write_state

    records = [r for s in ("ada", "bob", "cy") for r in submission(s, "01-attention")]
    out = write_class(tmp_path / "out", records)
    logs = out / "logs"
    logs.mkdir()  # the last run graded cy only: OUT/logs/ is that run's
    (logs / "grading.log").write_text("grading cy/01-attention\n  nbgrader autograde: 4.00 s\n", encoding="utf-8")
    (logs / "tasks.jsonl").write_text(json.dumps({"submission": "cy/01-attention", "worker": "w1",
                                                  "started": 2000.0, "ended": 2004.0}) + "\n", encoding="utf-8")
    for student, run, seconds in (("ada", "2026-11-25T10:00:00Z", 2.0), ("bob", "2026-11-25T10:00:00Z", 3.0),
                                  ("cy", "2026-11-25T11:30:00Z", 4.0)):
        log = f"grading {student}/01-attention\n  nbgrader autograde: {seconds:.2f} s\n"
        if student == "bob":
            log += "  the notebook ran past its time budget of 120 s: its kernel is stopped\n"
        write_state(out, type("S", (), {"student": student, "assignment": "01-attention"})(), "key", [],
                    timing={"run": run, "worker": "w0", "started": 1000.0, "ended": 1000.0 + seconds, "log": log})
    page = write_report(out).read_text(encoding="utf-8")
    tables = Tables(page)
    assert {row[0]: row[1:] for row in tables.body("timing")} == {"01-attention": ["3", "3.0", "4.0", "cy/01-attention"]}
    assert {row[0]: int(row[1]) for row in tables.body("runs")} == {"2026-11-25 10:00 UTC": 2, "2026-11-25 11:30 UTC": 1}
    assert "come from 2 run(s): 2026-11-25 10:00 UTC, 2026-11-25 11:30 UTC" in html.unescape(page)
    assert any("time budget" in row[1] for row in tables.body("warnings") if row[0] == "bob/01-attention")
    assert "class report of 2026-11-25" in h1(page)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_page_says_its_language(tmp_path, lang):
    """A screen reader reads the page in the voice its <html lang> names: the instructor's language, the report's."""
    from learner_kit.i18n import speaking

    with speaking(lang):
        page, _ = report(tmp_path / "out", synthetic_class(3, seed=1))
    assert f'<html lang="{lang}">' in page, page[:300]
