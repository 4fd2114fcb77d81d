"""gradebook.csv with a roster (issue 26, part 5): Canvas's identifying columns filled, and loud warnings
for graded students missing from the roster and roster students with no submission."""
import csv
import io
import json
import re

import pytest

from autograder.cli import main as cli
from autograder.grading.outputs.lms_export import RosterError, export_gradebook, read_roster
from tests.grading.outputs.test_class_report import make_gradebook, submission, write_class

# the gradebook of make_gradebook: ada (both assignments), zoë,"x" (01 only), bob (nothing submitted)
ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
ada,"Lovelace, Ada",1001,S-ada,ada.lovelace,Section A
bob,"Bob, Builder",1002,S-bob,bob.b,Section B
cy,"Young, Cy",1003,S-cy,cy.young,Section A
"""


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_a_roster_fills_the_lms_columns_and_names_who_is_missing(tmp_path):
    db_url = make_gradebook(tmp_path / "gradebook.db")
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    warnings = []
    export_gradebook(db_url, tmp_path / "gradebook.csv", warn=warnings.append, roster=str(tmp_path / "roster.csv"))
    table = rows(tmp_path / "gradebook.csv")
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01-attention", "02-multi-head"]
    assert table[1] == ["Points Possible", "", "", "", "", "3", "4"]
    assert table[2:] == [["Lovelace, Ada", "1001", "S-ada", "ada.lovelace", "Section A", "2.5", "4"],
                         ["Bob, Builder", "1002", "S-bob", "bob.b", "Section B", "", ""],
                         ["zoë,\"x\"", "", "", "zoë,\"x\"", "", "0", ""],  # not in the roster: as without one
                         ["Young, Cy", "1003", "S-cy", "cy.young", "Section A", "", ""]]  # no submission: blank
    unknown, absent = warnings
    assert unknown.startswith("1 student(s) graded but not in the roster: zoë,\"x\".")
    assert "leaves ID and SIS User ID blank" in unknown
    assert absent.startswith("1 student(s) of the roster have no submission: cy.") and "blank scores, not 0" in absent


def test_a_canvas_export_is_a_roster(tmp_path):
    """Canvas's own gradebook export (no student_id column, a Points Possible row, a byte-order mark): matched by
    SIS Login ID, which must then be nbgrader's student id."""
    canvas = ("\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Quiz 1\n"
              "    Points Possible,,,,,10\n"
              "\"Lovelace, Ada\",1001,S-ada,ada,Section A,7\n"
              "\"Bob, Builder\",1002,S-bob,bob,Section B,\n")
    (tmp_path / "canvas.csv").write_text(canvas, encoding="utf-8")
    assert read_roster(tmp_path / "canvas.csv") == {
        "ada": {"Student": "Lovelace, Ada", "ID": "1001", "SIS User ID": "S-ada", "SIS Login ID": "ada",
                "Section": "Section A"},
        "bob": {"Student": "Bob, Builder", "ID": "1002", "SIS User ID": "S-bob", "SIS Login ID": "bob",
                "Section": "Section B"}}


@pytest.mark.parametrize("text, why", [("name,email\nada,a@x\n", "no student_id column"),
                                       ("student_id,ID\nada,1\nada,2\n", "in the roster twice")])
def test_a_roster_that_cannot_be_used_is_refused(tmp_path, text, why):
    (tmp_path / "roster.csv").write_text(text, encoding="utf-8")
    with pytest.raises(RosterError, match=why):
        read_roster(tmp_path / "roster.csv")
    assert cli(["grade", str(tmp_path), "--out", str(tmp_path / "out"), "--roster", str(tmp_path / "roster.csv")]) == 2
    assert not (tmp_path / "out").exists()  # refused before anything is graded


def test_the_report_command_takes_a_roster(tmp_path, capsys):
    out = write_class(tmp_path / "out", submission("ada", "01-attention"))
    db_url = make_gradebook(tmp_path / "gradebook.db")
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    assert cli(["report", str(out), "--db-url", db_url, "--roster", str(tmp_path / "roster.csv")]) == 0
    err = capsys.readouterr().err
    assert err.count("1 student(s) graded but not in the roster") == 1  # said once, not logged twice
    assert "warning: 1 student(s) of the roster have no submission: cy" in err
    assert rows(out / "gradebook.csv")[2][:5] == ["Lovelace, Ada", "1001", "S-ada", "ada.lovelace", "Section A"]


# ------------------------------------------------------------------ the LMSs' imports, as they read gradebook.csv (issue 47)

CANVAS_RESERVED = ["Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Section", "Integration ID",
                   "Root Account"]
CANVAS_NOT_ASSIGNMENTS = re.compile("Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
                                    "Override Score|Override Grade|Override Status")


def canvas_import(text, assignments, students, custom_columns=()):
    """Canvas's gradebook import (Grades, Import), as its GradebookImporter reads a CSV (app/models/
    gradebook_importer.rb): the header's student columns (Student, ID, [SIS User ID, SIS Login ID | SIS Login ID],
    [Root Account], Section, then custom columns by exact title), total-score columns skipped by name, each other
    column an assignment found by the id of its "<title> (<id>)" header, else by its exact title, else a new
    assignment; a "Points Possible" row; a column whose Points Possible cell is "(read only)" dropped; a student
    found by ID, then SIS User ID, then SIS Login ID, then name. ``assignments``: {id: title}; ``students``: [{"id",
    "sis_user_id", "login", "name", "sortable_name"}]. Returns {"new_assignments", "new_students", "grades":
    {(user id, assignment id): grade}, "ignored": [headers]}."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], "Canvas: Invalid header row"
    customs = [h for h in header if h not in CANVAS_RESERVED and h in custom_columns]
    count = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        count += 1
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        count += 2 + (1 if re.search(r"Root\s+Account", header[4]) else 0)
    count += len(customs)
    assert "Section" in header[count - 1 - len(customs)], "Canvas: Invalid header row"
    columns = [(i, h) for i, h in enumerate(header) if i >= count and not CANVAS_NOT_ASSIGNMENTS.search(h)
               and h not in customs]
    by_title = {title: id_ for id_, title in assignments.items()}
    found, new = {}, []
    for index, name in columns:
        titled = re.fullmatch(r"(.*)\s\((\d+)\)", name, re.S)
        id_ = int(titled.group(2)) if titled and int(titled.group(2)) in assignments else by_title.get(name)
        if id_ is None:
            new.append(name)
            id_ = -len(new)
        found[index] = id_
    points = next((r for r in rows[1:] if r and "Points Possible" in r[0]), [])
    read_only = {i for i in found if i < len(points) and re.search(r"read\s+only", points[i])}
    grades, new_students = {}, []
    for row in rows[1:]:
        if not row or "Points Possible" in row[0]:
            continue
        user = (next((s for s in students if str(s["id"]) == row[1]), None)
                or next((s for s in students if s.get("sis_user_id") and header[2] == "SIS User ID"
                         and s["sis_user_id"] == row[2]), None)
                or next((s for s in students if s.get("login") and s["login"] == row[header.index("SIS Login ID")]), None)
                or next((s for s in students if row[0] in (s["name"], s["sortable_name"])), None))
        if user is None:
            new_students.append(row[0])
            continue
        for index, id_ in found.items():
            if index not in read_only and row[index].strip() not in ("", "-"):
                grades[(user["id"], id_)] = row[index].strip()
    return {"new_assignments": [name for name in new if header.index(name) not in read_only],
            "new_students": new_students, "grades": grades,
            "ignored": [header[i] for i in read_only] + [h for i, h in enumerate(header) if i >= count
                                                          and CANVAS_NOT_ASSIGNMENTS.search(h)]}


def moodle_import(text, identifier, map_to, mapping, users, items):
    """Moodle's CSV grade import (Grades, Import, CSV file; grade/import/csv/classes/load_data.php): the instructor
    maps one column to a user field (``identifier`` -> ``map_to``: "username", "useridnumber", "useremail"), and
    each other column to a grade item, an item's feedback, or Ignore (``mapping``: {header: ("item", id) |
    ("feedback", id)}; a column not in it is Ignore, the form's first option). A row whose user is not found stops
    the import (usermappingerror); a mapped grade that is not a number, "" or "-" stops it (badgrade).
    ``users``: [{"id", "username", ...}]; ``items``: {id: name}. Returns {"grades": {(user, item): float|None},
    "feedback": {(user, item): text}}."""
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    grades, feedback = {}, {}
    for row in rows:
        value = row[identifier].strip()
        if not value:
            continue
        user = next((u for u in users if u.get(map_to) == value), None)
        if user is None:
            raise ValueError(f"Moodle: usermappingerror ({map_to} {value!r} not found)")
        for header, (what, item) in mapping.items():
            assert item in items
            cell_ = row[header].strip()
            if what == "feedback":
                feedback[(user["id"], item)] = cell_
                continue
            if cell_ in ("", "-"):
                grades[(user["id"], item)] = None
                continue
            try:
                grades[(user["id"], item)] = float(cell_.replace(",", "."))
            except ValueError:
                raise ValueError(f"Moodle: badgrade ({header}: {cell_!r})") from None
    return {"grades": grades, "feedback": feedback}


CANVAS_EXPORT = ("\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,01-attention (12345),02-multi-head (12346),"
                 "Current Score,Final Score\n"
                 "    Points Possible,,,,,3,4,(read only),(read only)\n"
                 "\"Lovelace, Ada\",1001,S-ada,ada,Section A,,,,\n"
                 "\"Bob, Builder\",1002,S-bob,bob,Section B,,,,\n"
                 "\"Young, Cy\",1003,S-cy,cy,Section A,,,,\n")
CANVAS_COURSE = {"assignments": {12345: "01-attention", 12346: "02-multi-head"},
                 "students": [{"id": 1001, "sis_user_id": "S-ada", "login": "ada", "name": "Ada Lovelace",
                               "sortable_name": "Lovelace, Ada"},
                              {"id": 1002, "sis_user_id": "S-bob", "login": "bob", "name": "Builder Bob",
                               "sortable_name": "Bob, Builder"},
                              {"id": 1003, "sis_user_id": "S-cy", "login": "cy", "name": "Cy Young",
                               "sortable_name": "Young, Cy"}]}


def findings_file(folder, findings):
    """A collected folder's .collect-zip.json (collect_zip.write_findings' shape) holding ``findings``."""
    folder.mkdir(parents=True, exist_ok=True)
    full = [{"download": "submissions.zip", "why": "", "student": "", "assignment": "", "notebook": "", "lms": "Canvas",
             **f} for f in findings]
    (folder / ".collect-zip.json").write_text(json.dumps({"format": 1, "downloads": {"submissions.zip": {
        "lms": "Canvas", "laid_out": [], "findings": full}}}), encoding="utf-8")
    return folder


IMPORT_FINDINGS = [
    {"kind": "late", "file": "lovelaceada_LATE_1001_7_02-multi-head.ipynb", "student": "ada",
     "assignment": "02-multi-head", "notebook": "02-multi-head.ipynb", "why": "marked late by Canvas (its _LATE)"},
    {"kind": "duplicate", "file": "bobbuilder_1002_8_01-attention.ipynb", "student": "bob", "assignment": "01-attention",
     "notebook": "01-attention.ipynb", "why": "2 different files for bob's 01-attention.ipynb (...)"},
    {"kind": "duplicate", "file": "bobbuilder_1002_9_01-attention-1.ipynb", "student": "bob",
     "assignment": "01-attention", "notebook": "01-attention.ipynb", "why": "2 different files for bob's ..."},
    {"kind": "duplicate", "file": "youngcy_1003_11_01-attention.ipynb", "student": "cy", "assignment": "01-attention",
     "notebook": "01-attention.ipynb", "why": "2 different files for cy's 01-attention.ipynb (...)"},
    {"kind": "duplicate", "file": "youngcy_1003_12_01-attention-1.ipynb", "student": "cy",
     "assignment": "01-attention", "notebook": "01-attention.ipynb", "why": "2 different files for cy's ..."},
    {"kind": "unmatched", "file": "doejane_99999_10_01-attention.ipynb", "why": "no student of the roster has ..."},
]


def test_the_csv_heads_assignments_as_canvass_export_and_canvas_imports_it_into_them(tmp_path):
    """A roster that is Canvas's own gradebook export heads its assignments "<title> (<id>)": gradebook.csv does the
    same, so that Canvas's import fills those assignments instead of making new ones named "01-attention"."""
    db_url = make_gradebook(tmp_path / "gradebook.db")
    (tmp_path / "roster.csv").write_text(CANVAS_EXPORT, encoding="utf-8")
    warnings = []
    export_gradebook(db_url, tmp_path / "gradebook.csv", warn=warnings.append, roster=str(tmp_path / "roster.csv"))
    text = (tmp_path / "gradebook.csv").read_text(encoding="utf-8")
    assert rows(tmp_path / "gradebook.csv")[0][5:] == ["01-attention (12345)", "02-multi-head (12346)"]
    imported = canvas_import(text, **CANVAS_COURSE)
    assert imported["new_assignments"] == [] and imported["new_students"] == ["zoë,\"x\""]  # not in Canvas: said
    assert imported["grades"] == {(1001, 12345): "2.5", (1001, 12346): "4"}
    # without the roster's headers (today's plain names), the same import made new assignments
    export_gradebook(db_url, tmp_path / "plain.csv")
    assert canvas_import((tmp_path / "plain.csv").read_text(encoding="utf-8"), {12345: "01-attention (old)"},
                         CANVAS_COURSE["students"])["new_assignments"] == ["01-attention", "02-multi-head"]
    # a roster from Canvas with no column for an assignment: named
    (tmp_path / "partial.csv").write_text(CANVAS_EXPORT.replace(",02-multi-head (12346)", "").replace(",3,4,", ",3,"),
                                          encoding="utf-8")
    warnings = []
    export_gradebook(db_url, tmp_path / "p.csv", warn=warnings.append, roster=str(tmp_path / "partial.csv"))
    assert rows(tmp_path / "p.csv")[0][5:] == ["01-attention (12345)", "02-multi-head"]
    assert any("has no column for the assignment 02-multi-head: Canvas's import of gradebook.csv makes a new "
               "assignment '02-multi-head'" in w for w in warnings)


def test_what_the_import_found_is_in_the_csv_and_both_lmss_import_it(tmp_path):
    """collect-zip's findings in gradebook.csv: a last, read-only column with each student's (late as Canvas marks it,
    two files left out), which Canvas's import ignores and Moodle's leaves at Ignore; a rostered student whose files
    were left out is not called "no submission"."""
    db_url = make_gradebook(tmp_path / "gradebook.db")
    (tmp_path / "roster.csv").write_text(CANVAS_EXPORT, encoding="utf-8")
    submitted = findings_file(tmp_path / "submitted", IMPORT_FINDINGS)
    warnings = []
    export_gradebook(db_url, tmp_path / "gradebook.csv", warn=warnings.append, roster=str(tmp_path / "roster.csv"),
                     imported=str(submitted))
    table = rows(tmp_path / "gradebook.csv")
    assert table[0][-1] == "Notes from collect-zip" and table[1][-1] == "(read only)"
    notes = {row[3]: row[-1] for row in table[2:]}
    assert notes == {"ada": "02-multi-head: marked late by Canvas (_LATE)", "zoë,\"x\"": "",
                     "bob": "01-attention: 2 different files submitted, none graded",
                     "cy": "01-attention: 2 different files submitted, none graded"}
    assert [row[5:7] for row in table[2:] if row[3] in ("bob", "cy")] == [["", ""], ["", ""]]  # blank, not 0
    assert not any("have no submission" in w for w in warnings)  # cy submitted: twice
    assert any(w.startswith("1 student(s) of the roster have no graded submission because the import (collect-zip) "
                            "left their files out: cy (01-attention: 2 different files submitted, none graded)")
               for w in warnings)
    imported = canvas_import((tmp_path / "gradebook.csv").read_text(encoding="utf-8"), **CANVAS_COURSE)
    assert imported["new_assignments"] == [] and imported["ignored"][0] == "Notes from collect-zip"
    assert imported["grades"] == {(1001, 12345): "2.5", (1001, 12346): "4"}

    export_gradebook(db_url, tmp_path / "moodle.csv", roster=str(tmp_path / "roster.csv"), imported=str(submitted),
                     points_possible_row=False)
    users = [{"id": 1, "username": "ada"}, {"id": 2, "username": "bob"}, {"id": 3, "username": "cy"}]
    users.append({"id": 4, "username": "zoë,\"x\""})
    mapping = {"01-attention (12345)": ("item", 11), "02-multi-head (12346)": ("item", 12)}
    moodle = moodle_import((tmp_path / "moodle.csv").read_text(encoding="utf-8"), "SIS Login ID", "username",
                           {**mapping}, users, {11: "01-attention", 12: "02-multi-head"})
    assert moodle["grades"] == {(1, 11): 2.5, (1, 12): 4.0, (2, 11): None, (2, 12): None, (3, 11): None,
                                (3, 12): None, (4, 11): 0.0, (4, 12): None}
    moodle = moodle_import((tmp_path / "moodle.csv").read_text(encoding="utf-8"), "SIS Login ID", "username",
                           {**mapping, "Notes from collect-zip": ("feedback", 12)}, users, {11: "01-attention",
                                                                                           12: "02-multi-head"})
    assert moodle["feedback"][(1, 12)] == "02-multi-head: marked late by Canvas (_LATE)"  # or kept as feedback
    export_gradebook(db_url, tmp_path / "plain.csv", roster=str(tmp_path / "roster.csv"), imported=str(submitted),
                     notes_column=False)
    assert rows(tmp_path / "plain.csv")[0][-1] == "02-multi-head (12346)"  # the column left out, on request


def test_the_report_shows_what_the_import_found(tmp_path, capsys):
    """`autograder report OUT --imported SUBMITTED`: every finding in the report, counted at a glance; a submission
    left out at import is "left out", not "no submission"; the findings are kept in OUT for the next report."""
    out = write_class(tmp_path / "out", submission("ada", "01-attention") + submission("ada", "02-multi-head")
                      + submission("bob", "02-multi-head"))
    submitted = findings_file(tmp_path / "submitted", IMPORT_FINDINGS)
    assert cli(["report", str(out), "--imported", str(submitted)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "The import of the LMS&#x27;s download (collect-zip) found 1 marked late, 4 of two or more different files " \
           "for one notebook, 1 matched to no student: 5 file(s) left out" in page
    assert "What the import found (collect-zip, 6)" in page
    for finding in IMPORT_FINDINGS:
        assert finding["file"] in page
    assert "submitted, but left out at import" in page and "1 submitted but left out at import" in page
    assert "no submission (1 assignment(s))" not in page  # bob's 01-attention is not "no submission"
    assert (out / "import-findings.json").is_file()
    assert cli(["report", str(out)]) == 0  # later reports keep showing them
    assert "What the import found (collect-zip, 6)" in (out / "report.html").read_text(encoding="utf-8")
    assert cli(["report", str(out), "--imported", str(tmp_path / "nowhere")]) == 2
    assert "--imported: " in capsys.readouterr().err
