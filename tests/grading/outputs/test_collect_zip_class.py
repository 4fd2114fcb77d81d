"""A class imported from an LMS's download, graded, and reported (issue 47): what collect-zip found (late, two files
for one notebook, a file of no one's, a file named like another student's) is in the class report and in
gradebook.csv, and the honest students, the late one included, are graded in full. One Canvas class and one Moodle
class, each collected, graded by `autograder grade` (the sandbox, on the tiny fixture course) and reported."""
import csv
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.grading.outputs.lms_export import export_gradebook
from tests.fixtures.grading_course import SOURCES, released, write_sources
from tests.grading.outputs.test_lms_export import canvas_import, moodle_import

ROOT = Path(__file__).resolve().parents[3]
RUN_TAG = f"czip{os.getpid()}"


def perfect(assignment, who):
    nb = SOURCES[assignment]()
    nb.metadata["learner"] = who
    return nbformat.writes(nb).encode()


def untouched(assignment, who):
    nb = released(SOURCES[assignment]())
    nb.metadata["learner"] = who
    return nbformat.writes(nb).encode()


def autograder(*args, cwd):
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True,
                          timeout=900, cwd=cwd, env={**os.environ, "AUTOGRADER_RUN_TAG": RUN_TAG})


def make_zip(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def table(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def graded_class(base, roster_text, downloads, lms, imported=True):
    """collect-zip the downloads, grade, and report with the roster (and the import's findings named with
    --imported, or, with ``imported=False``, those the grading run kept from SUBMITTED by itself); returns the paths
    and what each command said."""
    source = write_sources(base / "source")
    (base / "roster.csv").write_text(roster_text, encoding="utf-8")
    submitted, out = base / "submitted", base / "out"
    collected = autograder("collect-zip", *downloads, "--roster", base / "roster.csv", "--out", submitted,
                           "--source", source, "--lms", lms, cwd=base)
    graded = autograder("grade", submitted, "--out", out, "--source", source, "--jobs", "2", "--timeout", "30",
                        "--budget", "60", "--roster", base / "roster.csv", cwd=ROOT)
    reported = autograder("report", out, "--roster", base / "roster.csv", *(["--imported", submitted] if imported else []),
                          cwd=ROOT)
    return {"source": source, "submitted": submitted, "out": out, "roster": base / "roster.csv",
            "collected": collected, "graded": graded, "reported": reported}


def points(out, student, assignment):
    records = [r for r in json.loads((out / "results.json").read_text(encoding="utf-8"))
               if r["student"] == student and r["assignment"] == assignment]
    return sum(r["points"] for r in records), sum(r["max_points"] for r in records)


CANVAS_ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section,fx-attn (9001),fx-ctrl (9002),Current Score
ann,"Ann, Ann",101,S-101,ann,A,,,
lee,"Lee, Lee",102,S-102,lee,A,,,
dup,"Dup, Dup",103,S-103,dup,A,,,
mal,"Mal, Mal",104,S-104,mal,A,,,
"""


@pytest.fixture(scope="module")
def canvas_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("canvas")
    attn = make_zip(base / "course-fx-attn submissions.zip", {
        "annann_101_1_fx-attn.ipynb": perfect("fx-attn", "ann"),
        "leelee_LATE_102_2_fx-attn.ipynb": perfect("fx-attn", "lee"),
        "dupdup_103_3_fx-attn.ipynb": perfect("fx-attn", "dup"),
        "dupdup_103_4_fx-attn-1.ipynb": untouched("fx-attn", "dup"),
        "ghostghost_999_5_fx-attn.ipynb": perfect("fx-attn", "ghost"),
        "malmal_104_6__101_assignsubmission_file_fx-attn.ipynb": untouched("fx-attn", "mal as ann"),
    })
    ctrl = make_zip(base / "course-fx-ctrl submissions.zip", {
        "annann_101_7_fx-ctrl.ipynb": perfect("fx-ctrl", "ann"),
        "leelee_102_8_fx-ctrl.ipynb": perfect("fx-ctrl", "lee"),
        "dupdup_103_9_fx-ctrl.ipynb": perfect("fx-ctrl", "dup"),
    })
    return graded_class(base, CANVAS_ROSTER, [attn, ctrl], "canvas", imported=False)  # kept by the grading run itself


def test_a_canvas_class_is_graded_and_its_report_and_csv_show_every_finding(canvas_class):
    c = canvas_class
    assert c["collected"].returncode == 1, c["collected"].stderr[-3000:]
    assert c["graded"].returncode == 0, c["graded"].stderr[-3000:]
    assert c["reported"].returncode == 0, c["reported"].stderr[-3000:]
    # the honest students, the late one too, in full; the impersonator's file is nobody's
    for student in ("ann", "lee"):
        for assignment in ("fx-attn", "fx-ctrl"):
            got, best = points(c["out"], student, assignment)
            assert best > 0 and got == best, (student, assignment, got, best)
    assert points(c["out"], "dup", "fx-attn") == (0, 0) and points(c["out"], "dup", "fx-ctrl")[0] > 0
    assert json.loads((c["submitted"] / "ann" / "fx-attn" / "fx-attn.ipynb").read_text())["metadata"]["learner"] == "ann"
    assert not (c["submitted"] / "mal").exists()

    page = (c["out"] / "report.html").read_text(encoding="utf-8")
    assert "What the import found (collect-zip, 5)" in page
    for file in ("leelee_LATE_102_2_fx-attn.ipynb", "dupdup_103_3_fx-attn.ipynb", "dupdup_103_4_fx-attn-1.ipynb",
                 "ghostghost_999_5_fx-attn.ipynb", "malmal_104_6__101_assignsubmission_file_fx-attn.ipynb"):
        assert file in page
    assert "marked late by Canvas (its _LATE)" in page
    assert "no student of the roster has the user id 999 or the name &#x27;ghostghost&#x27;" in page
    assert "submitted, but left out at import" in page  # dup's fx-attn: not "no submission"
    assert "found 1 marked late, 2 of two or more different files for one notebook, 1 matched to no student" in page

    rows = table(c["out"] / "gradebook.csv")
    assert rows[0][5:] == ["fx-attn (9001)", "fx-ctrl (9002)", "Notes from collect-zip"]
    assert rows[1][0] == "Points Possible" and rows[1][-1] == "(read only)"
    by_login = {row[3]: row for row in rows[2:]}
    assert by_login["lee"][-1] == "fx-attn: marked late by Canvas (_LATE)" and by_login["lee"][5] == rows[1][5]
    assert by_login["dup"][5] == "" and by_login["dup"][-1] == "fx-attn: 2 different files submitted, none graded"
    assert by_login["ann"][-1] == "" and by_login["ann"][5] == rows[1][5]
    imported = canvas_import((c["out"] / "gradebook.csv").read_text(encoding="utf-8"),
                             {9001: "fx-attn", 9002: "fx-ctrl"},
                             [{"id": n, "sis_user_id": f"S-{n}", "login": who, "name": who, "sortable_name": who}
                              for n, who in ((101, "ann"), (102, "lee"), (103, "dup"), (104, "mal"))])
    assert imported["new_assignments"] == [] and imported["new_students"] == []
    assert imported["grades"][(102, 9001)] == rows[1][5] and (103, 9001) not in imported["grades"]


MOODLE_ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
ann,"Ann Moss",,,ann,A
dup,"Dup Dupont",,,dup,A
"""


@pytest.fixture(scope="module")
def moodle_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("moodle")
    attn = make_zip(base / "course-fx-attn-77.zip", {
        "Ann Moss_501_assignsubmission_file_/fx-attn.ipynb": perfect("fx-attn", "ann"),
        "Ann Moss_501_assignsubmission_onlinetext_/onlinetext.html": b"<p>see my notebook</p>",
        "Dup Dupont_502_assignsubmission_file_/fx-attn.ipynb": perfect("fx-attn", "dup"),
        "Dup Dupont_502_assignsubmission_file_/fx-attn (1).ipynb": untouched("fx-attn", "dup"),
        "Ghost Gone_503_assignsubmission_file_/fx-attn.ipynb": perfect("fx-attn", "ghost"),
        "Dup Dupont_502_assignsubmission_file_/Ann Moss_501_assignsubmission_file_fx-ctrl.ipynb":
            untouched("fx-ctrl", "dup as ann"),
    })
    ctrl = make_zip(base / "course-fx-ctrl-78.zip", {
        "Ann Moss_601_assignsubmission_file/fx-ctrl.ipynb": perfect("fx-ctrl", "ann"),  # Moodle 4.1's folder
        "Dup Dupont_602_assignsubmission_file/fx-ctrl.ipynb": perfect("fx-ctrl", "dup"),
    })
    return graded_class(base, MOODLE_ROSTER, [attn, ctrl], "moodle")


def test_a_moodle_class_is_graded_and_its_report_and_csv_show_every_finding(moodle_class, tmp_path):
    c = moodle_class
    assert c["collected"].returncode == 1, c["collected"].stderr[-3000:]
    assert c["graded"].returncode == 0, c["graded"].stderr[-3000:]
    assert c["reported"].returncode == 0, c["reported"].stderr[-3000:]
    for assignment in ("fx-attn", "fx-ctrl"):
        got, best = points(c["out"], "ann", assignment)
        assert best > 0 and got == best, (assignment, got, best)
    assert json.loads((c["submitted"] / "ann" / "fx-ctrl" / "fx-ctrl.ipynb").read_text())["metadata"]["learner"] == "ann"
    assert points(c["out"], "dup", "fx-attn") == (0, 0)

    page = (c["out"] / "report.html").read_text(encoding="utf-8")
    assert "What the import found (collect-zip, 5)" in page
    assert "Ghost Gone_503_assignsubmission_file_/fx-attn.ipynb" in page
    assert "no student of the roster has the participant id 503 or the name &#x27;Ghost Gone&#x27;" in page
    assert "Dup Dupont_502_assignsubmission_file_/fx-attn (1).ipynb" in page
    assert "&#x27;Ann Moss_501_assignsubmission_file_fx-ctrl.ipynb&#x27; is no notebook of the course" in page
    assert "Moodle&#x27;s onlinetext submission" in page
    assert "submitted, but left out at import" in page

    rows = table(c["out"] / "gradebook.csv")
    assert rows[0][5:] == ["fx-attn", "fx-ctrl", "Notes from collect-zip"]  # a roster with no assignment columns
    by_login = {row[3]: row for row in rows[2:]}
    assert by_login["dup"][5] == "" and by_login["dup"][-1] == "fx-attn: 2 different files submitted, none graded"
    export_gradebook(f"sqlite:///{c['out'] / 'gradebook.db'}", tmp_path / "moodle.csv", roster=str(c["roster"]),
                     imported=str(c["submitted"]), points_possible_row=False)
    moodle = moodle_import((tmp_path / "moodle.csv").read_text(encoding="utf-8"), "SIS Login ID", "username",
                           {"fx-attn": ("item", 1), "fx-ctrl": ("item", 2)},
                           [{"id": 11, "username": "ann"}, {"id": 12, "username": "dup"}], {1: "fx-attn", 2: "fx-ctrl"})
    best_attn, best_ctrl = points(c["out"], "ann", "fx-attn")[1], points(c["out"], "ann", "fx-ctrl")[1]
    assert moodle["grades"] == {(11, 1): best_attn, (11, 2): best_ctrl, (12, 1): None,
                                (12, 2): float(points(c["out"], "dup", "fx-ctrl")[0])}
