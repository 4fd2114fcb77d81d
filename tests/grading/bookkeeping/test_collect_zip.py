"""`autograder collect-zip` (issue 36): Canvas's and Moodle's bulk downloads laid out as submitted/, matched to the
roster; what cannot be matched is named, never guessed; nothing is overwritten. The downloads are built here in
the shapes the LMSs make (autograder/grading/bookkeeping/collect_zip.py says where the shapes come from)."""
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.cli import main as cli
from autograder.grading.bookkeeping.collect_zip import identify
from autograder.grading.bookkeeping.layout import find_submissions, misplaced

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOKS = {a: (ROOT / "course" / a / f"{a}.ipynb").read_text(encoding="utf-8") for a in ("01-attention", "02-multi-head")}

# Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, Section) with nbgrader's student_id added.
# Two students called John Smith: only their ids tell them apart.
ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
jsmith,"Smith, John",12345,S-1,jsmith,A
jsmith2,"Smith, John",45678,S-4,jsmith2,B
ada,"Lovelace, Ada",23456,S-2,ada,A
kim,"김, 민준",34567,S-3,kim,B
"""


def notebook(assignment, who):
    """The released notebook, made the learner's own (so that two learners' files differ)."""
    nb = json.loads(NOTEBOOKS[assignment])
    nb["metadata"]["learner"] = who
    return json.dumps(nb).encode()


def make_zip(path, files):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def inner_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    return path


def laid_out(out):
    """The notebooks laid out (not collect-zip's own findings file, .collect-zip.json, which grading skips)."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.name != ".collect-zip.json")


def test_the_lms_file_names_are_read():
    canvas = identify("smithjohn_LATE_12345_678910_01-attention-1.ipynb")
    assert (canvas.lms, canvas.name, canvas.number, canvas.file, canvas.late) == (
        "Canvas", "smithjohn", "12345", "01-attention-1.ipynb", True)
    folder = identify("John Smith_501_assignsubmission_file_/01-attention.ipynb")
    assert (folder.lms, folder.name, folder.number, folder.file) == ("Moodle", "John Smith", "501", "01-attention.ipynb")
    flat = identify("Ada Lovelace_502_assignsubmission_file_01-attention.ipynb")
    assert (flat.lms, flat.name, flat.number, flat.file) == ("Moodle", "Ada Lovelace", "502", "01-attention.ipynb")
    assert identify("01-attention.ipynb") is None and identify("notes/readme.txt") is None


def test_a_canvas_download_is_laid_out_by_user_id(tmp_path, roster, capsys):
    download = make_zip(tmp_path / "submissions.zip", {
        "smithjohn_12345_678910_01-attention.ipynb": notebook("01-attention", "jsmith"),
        "lovelaceada_LATE_23456_678911_01-attention-1.ipynb": notebook("01-attention", "ada"),  # late, renamed
        "smithjohn_45678_678913_01-attention.ipynb": notebook("01-attention", "jsmith2"),  # the other John Smith
        "김민준_34567_678912_01-attention.ipynb": notebook("01-attention", "kim"),
        "kim_34567_678917_submission.zip": inner_zip({"work/02-multi-head.ipynb": notebook("02-multi-head", "kim")}),
        "doejane_99999_678914_01-attention.ipynb": notebook("01-attention", "jane"),  # not in the roster
        "smithjohn_12345_678915_notes.txt": b"my notes",
        "lovelaceada_12345_678916_02-multi-head.ipynb": notebook("02-multi-head", "who?"),  # jsmith's id, ada's name
        "readme.ipynb": notebook("01-attention", "nobody"),  # no LMS shape at all
    })
    out = tmp_path / "submitted"
    assert cli(["collect-zip", str(download), "--roster", str(roster), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert laid_out(out) == ["ada/01-attention/01-attention.ipynb", "jsmith/01-attention/01-attention.ipynb",
                             "jsmith2/01-attention/01-attention.ipynb", "kim/01-attention/01-attention.ipynb",
                             "kim/02-multi-head/02-multi-head.ipynb"]
    assert json.loads((out / "jsmith2" / "01-attention" / "01-attention.ipynb").read_text())["metadata"]["learner"] == "jsmith2"
    assert json.loads((out / "kim" / "02-multi-head" / "02-multi-head.ipynb").read_text())["metadata"]["learner"] == "kim"
    assert "5 notebook(s) of 4 student(s) laid out" in said
    assert "1 submission(s) marked late by Canvas" in said and "ada/01-attention" in said
    assert "4 file(s) of the download not laid out:" in said
    assert ("doejane_99999_678914_01-attention.ipynb: no student of the roster has the user id 99999 or the name "
            "'doejane'") in said
    assert "smithjohn_12345_678915_notes.txt: not a notebook (.ipynb)" in said
    assert ("lovelaceada_12345_678916_02-multi-head.ipynb: its user id 12345 is jsmith's in the roster, but its name "
            "'lovelaceada' is ada's") in said
    assert "readme.ipynb: its name is not one Canvas gives a submission (name_userid_attachmentid_file)" in said
    assert "submissions.zip: read as Canvas's download" in said
    # what autograder grade reads: the layout it expects, every folder a submission
    submissions, warnings = find_submissions(out, {"01-attention", "02-multi-head"})
    assert len(submissions) == 5 and warnings == [] and misplaced(out, {"01-attention", "02-multi-head"}, submissions) is None


def test_a_moodle_download_is_laid_out_by_name(tmp_path, roster, capsys):
    download = make_zip(tmp_path / "moodle.zip", {
        "Ada Lovelace_502_assignsubmission_file_/01-attention.ipynb": notebook("01-attention", "ada"),
        "민준 김_503_assignsubmission_file_/01-attention.ipynb": notebook("01-attention", "kim"),
        "Ada Lovelace_502_assignsubmission_onlinetext_/onlinetext.html": b"<p>hi</p>",
        "John Smith_501_assignsubmission_file_/01-attention.ipynb": notebook("01-attention", "a John Smith"),
        "Zed Zero_504_assignsubmission_file_01-attention.ipynb": notebook("01-attention", "zed"),  # flat, unknown
    })
    out = tmp_path / "submitted"
    assert cli(["collect-zip", str(download), "--roster", str(roster), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert laid_out(out) == ["ada/01-attention/01-attention.ipynb", "kim/01-attention/01-attention.ipynb"]
    assert ("John Smith_501_assignsubmission_file_/01-attention.ipynb: its name 'John Smith' fits 2 students of the "
            "roster (jsmith, jsmith2) and its participant id 501 none") in said  # ambiguous: refused, not guessed
    assert "Zed Zero_504_assignsubmission_file_01-attention.ipynb: no student of the roster" in said
    assert "onlinetext.html: not a notebook (.ipynb)" in said


def test_two_files_for_one_notebook_and_existing_work_are_never_guessed_or_overwritten(tmp_path, roster, capsys):
    out = tmp_path / "submitted"
    (out / "jsmith" / "01-attention").mkdir(parents=True)
    (out / "jsmith" / "01-attention" / "01-attention.ipynb").write_bytes(b"graded already, by hand")
    (out / "kim" / "01-attention").mkdir(parents=True)
    (out / "kim" / "01-attention" / "01-attention.ipynb").write_bytes(notebook("01-attention", "kim"))
    download = make_zip(tmp_path / "submissions.zip", {
        "lovelaceada_23456_1_01-attention.ipynb": notebook("01-attention", "ada first"),
        "lovelaceada_23456_2_01-attention-1.ipynb": notebook("01-attention", "ada second"),
        "smithjohn_12345_3_01-attention.ipynb": notebook("01-attention", "jsmith"),
        "kim_34567_4_01-attention.ipynb": notebook("01-attention", "kim"),  # the same as what is there
    })
    assert cli(["collect-zip", str(download), "--roster", str(roster), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert not (out / "ada").exists()
    assert "2 different files for ada's 01-attention.ipynb" in said and "which one counts is not guessed" in said
    assert (out / "jsmith" / "01-attention" / "01-attention.ipynb").read_bytes() == b"graded already, by hand"
    assert "01-attention.ipynb exists with other content: it is kept" in said
    assert "0 notebook(s) of 0 student(s) laid out" in said and "1 already there, unchanged" in said
    # the same download again, once the doubtful files are dealt with: nothing else changes
    (out / "jsmith" / "01-attention" / "01-attention.ipynb").unlink()
    download = make_zip(tmp_path / "again.zip", {"smithjohn_12345_3_01-attention.ipynb": notebook("01-attention", "jsmith")})
    assert cli(["collect-zip", str(download), "--roster", str(roster), "--out", str(out)]) == 0


def test_bad_input_gets_a_clear_message(tmp_path, roster, capsys):
    (tmp_path / "not.zip").write_text("hello", encoding="utf-8")
    assert cli(["collect-zip", str(tmp_path / "missing.zip"), "--roster", str(roster)]) == 2
    assert "missing.zip: no such file" in capsys.readouterr().err
    assert cli(["collect-zip", str(tmp_path / "not.zip"), "--roster", str(roster)]) == 2
    assert "not.zip: not a zip file" in capsys.readouterr().err
    (tmp_path / "bad.csv").write_text("name\nada\n", encoding="utf-8")
    download = make_zip(tmp_path / "d.zip", {"a_1_2_01-attention.ipynb": b"{}"})
    assert cli(["collect-zip", str(download), "--roster", str(tmp_path / "bad.csv")]) == 2
    assert "no student_id column" in capsys.readouterr().err
    big = make_zip(tmp_path / "big.zip", {"smithjohn_12345_5_01-attention.ipynb": b" " * (33 * 2**20)})
    assert cli(["collect-zip", str(big), "--roster", str(roster), "--out", str(tmp_path / "o")]) == 1
    assert "more than the 32 MiB a notebook may be" in capsys.readouterr().err
    sneaky = make_zip(tmp_path / "sneaky.zip", {"../../smithjohn_12345_6_01-attention.ipynb": notebook("01-attention", "x")})
    assert cli(["collect-zip", str(sneaky), "--roster", str(roster), "--out", str(tmp_path / "o2")]) == 1
    assert "in neither Canvas's nor Moodle's shape" in capsys.readouterr().err  # Canvas's zip has no folders
    assert laid_out(tmp_path / "o2") == []
    assert not (tmp_path.parent / "smithjohn_12345_6_01-attention.ipynb").exists()
    sneaky = make_zip(tmp_path / "sneaky2.zip", {
        "Ada Lovelace_502_assignsubmission_file_/../../../01-attention.ipynb": notebook("01-attention", "ada")})
    assert cli(["collect-zip", str(sneaky), "--roster", str(roster), "--out", str(tmp_path / "o3")]) == 0
    assert laid_out(tmp_path / "o3") == ["ada/01-attention/01-attention.ipynb"]  # the path in the zip is never used
    assert not (tmp_path.parent / "01-attention.ipynb").exists()


def test_stock_nbgrader_zip_collect_takes_the_same_matching(tmp_path, roster):
    """nbgrader's own zip_collect, with our collector plugin, on the Canvas download in its documented place."""
    archive = tmp_path / "course" / "downloaded" / "01-attention" / "archive"
    archive.mkdir(parents=True)
    make_zip(archive / "submissions.zip", {
        "smithjohn_12345_678910_01-attention.ipynb": notebook("01-attention", "jsmith"),
        "lovelaceada_LATE_23456_678911_01-attention-1.ipynb": notebook("01-attention", "ada"),
        "doejane_99999_678914_01-attention.ipynb": notebook("01-attention", "jane"),
        "smithjohn_12345_678915_02-multi-head.ipynb": notebook("02-multi-head", "jsmith"),  # not this assignment
    })
    nbgrader = Path(sys.executable).parent / "nbgrader"
    result = subprocess.run([str(nbgrader), "zip_collect", "--collector=autograder.grading.bookkeeping.collect_zip.RosterCollector",
                             f"--RosterCollector.roster={roster}", f"--CourseDirectory.root={tmp_path / 'course'}",
                             "01-attention"], capture_output=True, text=True, cwd=tmp_path / "course", timeout=300,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr[-3000:]
    submitted = tmp_path / "course" / "submitted"
    assert laid_out(submitted) == ["ada/01-attention/01-attention.ipynb", "jsmith/01-attention/01-attention.ipynb"]
    assert "Not matched to the roster (no student of the roster has the user id 99999" in result.stderr
    assert "Not 01-attention.ipynb, skipped" in result.stderr
