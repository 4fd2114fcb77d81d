"""gradebook.csv with a roster (issue 26, part 5): Canvas's identifying columns filled, and loud warnings
for graded students missing from the roster and roster students with no submission."""
import csv

import pytest

from autograder.cli import main as cli
from autograder.grading.outputs.lms_export import RosterError, export_gradebook, read_roster
from tests.test_class_report import make_gradebook, submission, write_class

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
