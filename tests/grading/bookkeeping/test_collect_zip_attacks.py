"""`autograder collect-zip` against its attackers (issue 47): a student who names his upload so that the LMS's file
name reads like another student's, a name that reads as two submitters, and a zip bomb. Beside each attacker an
honest student keeps their submission, byte for byte (the notebook they handed in, which grades as it would have).
The downloads are built in the shapes Canvas's and Moodle's own code write (lms_names.py says where)."""
import copy
import json
import os
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from autograder.cli import main as cli
from tests.grading.bookkeeping.test_collect_zip import inner_zip, laid_out, make_zip, notebook

ROOT = Path(__file__).resolve().parents[3]

# Canvas's gradebook export (with student_id): Alice's Canvas user id is 777, the number the attacker types.
CANVAS_ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
alice,"Smith, Alice",777,S-7,alice,A
mallory,"Bad, Mallory",99999,S-9,mallory,A
bob,"Builder, Bob",555,S-5,bob,A
"""
MOODLE_ROSTER = """student_id,Student,ID,SIS User ID,SIS Login ID,Section
alice,"Smith, Alice",,,alice,A
mallory,"Bad, Mallory",,,mallory,A
bob,"Builder, Bob",,,bob,A
"""


@pytest.fixture
def rosters(tmp_path):
    (tmp_path / "canvas.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    (tmp_path / "moodle.csv").write_text(MOODLE_ROSTER, encoding="utf-8")
    return {"canvas": tmp_path / "canvas.csv", "moodle": tmp_path / "moodle.csv"}


def learner(path):
    return json.loads(path.read_text(encoding="utf-8"))["metadata"]["learner"]


def findings(out):
    data = json.loads((out / ".collect-zip.json").read_text(encoding="utf-8"))
    return [f for about in data["downloads"].values() for f in about["findings"]]


# ------------------------------------------------------------------ impersonation

@pytest.mark.parametrize("alice_submitted", [True, False])
def test_a_canvas_upload_named_like_a_moodle_file_of_alice_is_not_alices(tmp_path, rosters, capsys, alice_submitted):
    """Mallory uploads ``_777_assignsubmission_file_01-attention.ipynb`` to Canvas, which names it
    ``badmallory_99999_5555__777_assignsubmission_file_01-attention.ipynb``: read as Moodle's shape, 777 would be
    Alice's. Canvas's own prefix says Mallory (99999); his file is no notebook of the course, so it is left out."""
    files = {"badmallory_99999_5555__777_assignsubmission_file_01-attention.ipynb": notebook("01-attention", "mallory"),
             "builderbob_555_5557_01-attention.ipynb": notebook("01-attention", "bob")}
    if alice_submitted:
        files["smithalice_777_5556_01-attention.ipynb"] = notebook("01-attention", "alice")
    download = make_zip(tmp_path / "course-01-attention submissions.zip", files)
    out = tmp_path / "submitted"
    assert cli(["collect-zip", str(download), "--roster", str(rosters["canvas"]), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    expected = ["bob/01-attention/01-attention.ipynb"] + (["alice/01-attention/01-attention.ipynb"] if alice_submitted else [])
    assert laid_out(out) == sorted(expected)
    assert learner(out / "bob" / "01-attention" / "01-attention.ipynb") == "bob"
    if alice_submitted:
        assert learner(out / "alice" / "01-attention" / "01-attention.ipynb") == "alice"  # hers, not Mallory's
    assert ("badmallory_99999_5555__777_assignsubmission_file_01-attention.ipynb: "
            "'_777_assignsubmission_file_01-attention.ipynb' is no notebook of the course") in said
    assert "alice" not in {f["student"] for f in findings(out)}  # nothing of Mallory's is taken as Alice's


def test_a_moodle_file_named_like_alices_inside_mallorys_folder_is_mallorys(tmp_path, rosters, capsys):
    """Only Moodle's top folder names the submitter: a file (or a subfolder of his own) that Mallory names like
    Alice's folder is still in Mallory's folder."""
    download = make_zip(tmp_path / "course-01-attention-42.zip", {
        "Alice Smith_501_assignsubmission_file_/01-attention.ipynb": notebook("01-attention", "alice"),
        "Mallory Bad_505_assignsubmission_file_/Alice Smith_501_assignsubmission_file_01-attention.ipynb":
            notebook("01-attention", "mallory as alice"),
        "Bob Builder_502_assignsubmission_file/01-attention.ipynb": notebook("01-attention", "bob"),  # Moodle 4.1+
    })
    out = tmp_path / "submitted"
    assert cli(["collect-zip", str(download), "--roster", str(rosters["moodle"]), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert laid_out(out) == ["alice/01-attention/01-attention.ipynb", "bob/01-attention/01-attention.ipynb"]
    assert learner(out / "alice" / "01-attention" / "01-attention.ipynb") == "alice"
    assert learner(out / "bob" / "01-attention" / "01-attention.ipynb") == "bob"
    assert ("Mallory Bad_505_assignsubmission_file_/Alice Smith_501_assignsubmission_file_01-attention.ipynb: "
            "'Alice Smith_501_assignsubmission_file_01-attention.ipynb' is no notebook of the course") in said
    [mallory] = [f for f in findings(out) if "Mallory" in f["file"]]
    assert mallory["kind"] == "not-a-notebook" and mallory["student"] == ""  # not Alice's, not even matched to him

    # his own subfolder named like Alice's folder: the notebook in it is his own submission, laid out as his
    download = make_zip(tmp_path / "again.zip", {
        "Alice Smith_501_assignsubmission_file_/01-attention.ipynb": notebook("01-attention", "alice"),
        "Mallory Bad_505_assignsubmission_file_/Alice Smith_501_assignsubmission_file_/01-attention.ipynb":
            notebook("01-attention", "mallory"),
    })
    out = tmp_path / "submitted2"
    assert cli(["collect-zip", str(download), "--roster", str(rosters["moodle"]), "--out", str(out)]) == 0
    assert learner(out / "alice" / "01-attention" / "01-attention.ipynb") == "alice"
    assert learner(out / "mallory" / "01-attention" / "01-attention.ipynb") == "mallory"


def test_a_name_that_reads_as_two_submitters_is_named_and_left_out(tmp_path, rosters, capsys):
    """Canvas writes the student's file name after its own prefix, and that name may hold ``_<digits>_`` itself:
    ``badmallory_99999_5555_777_01-attention.ipynb`` is Mallory's ``777_01-attention.ipynb``, or the submission
    of someone called ``badmallory_99999`` with user id 5555. Two readings: never guessed."""
    from autograder.grading.bookkeeping.lms_names import CANVAS, MOODLE, Ambiguous, identify

    readings = identify("badmallory_99999_5555_777_01-attention.ipynb", CANVAS)
    assert isinstance(readings, Ambiguous)
    assert {(r.name, r.number, r.file) for r in readings.readings} == {
        ("badmallory", "99999", "777_01-attention.ipynb"), ("badmallory_99999", "5555", "01-attention.ipynb")}
    assert identify("smithalice_LATE_777_5556_01-attention-1.ipynb", CANVAS).late  # one reading: taken
    assert identify("Alice Smith_501_assignsubmission_file_01-attention.ipynb", CANVAS) is None  # Moodle's, not Canvas's
    assert identify("smithalice_777_5556_01-attention.ipynb", MOODLE) is None
    download = make_zip(tmp_path / "submissions.zip", {
        "badmallory_99999_5555_777_01-attention.ipynb": notebook("01-attention", "mallory"),
        "builderbob_555_5557_01-attention.ipynb": notebook("01-attention", "bob"),
    })
    out = tmp_path / "submitted"
    assert cli(["collect-zip", str(download), "--roster", str(rosters["canvas"]), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert laid_out(out) == ["bob/01-attention/01-attention.ipynb"]
    assert ("badmallory_99999_5555_777_01-attention.ipynb: its name reads as Canvas writes it in 2 ways") in said
    assert "who submitted it is not guessed; copy it by hand" in said
    assert [f["kind"] for f in findings(out)] == ["ambiguous"]


# ------------------------------------------------------------------ the zip bomb

def deflated(data):
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def zip_of_same(members, data):
    """A zip (bytes) of ``members`` names, each holding ``data``, deflated once (as zipfile would, only fast)."""
    packed, crc = deflated(data), zlib.crc32(data)
    body, directory = bytearray(), bytearray()
    for name in members:
        encoded = name.encode()
        offset = len(body)
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(packed), len(data), len(encoded), 0)
        body += encoded + packed
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(packed), len(data),
                                 len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(body), 0)
    return bytes(body + directory + end)


# The peak is this process's own (VmHWM, of its memory since exec): ru_maxrss would also count the pytest worker it
# was forked from, which Linux carries across exec (1.8 GiB measured in a full run, against 93 MiB alone).
PEAK = """import re, sys
from autograder.cli import main
status = main(sys.argv[1:])
with open("/proc/self/status") as status_file:
    print("PEAK_KIB", re.search(r"VmHWM:\\s+(\\d+) kB", status_file.read()).group(1), file=sys.stderr)
sys.exit(status)
"""
LIMIT = 3 * 2**30  # the machine's memory limit of the issue: the bomb needed 6.4 GiB


def run_limited(args, cwd):
    """`autograder` in a child limited to LIMIT of address space; (exit status, stderr, peak RSS in MiB or None)."""
    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    result = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                            preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(ROOT)})
    peak = [line for line in result.stderr.splitlines() if line.startswith("PEAK_KIB ")]
    return result.returncode, result.stderr, int(peak[0].split()[1]) / 1024 if peak else None


def test_a_zip_bomb_costs_its_sender_only_and_memory_stays_bounded(tmp_path, rosters):
    """Mallory's upload: a 6.5 MB zip of 200 notebooks, each 32 MiB unpacked (just within a notebook's size), 6.4 GiB
    in all. Each is refused by its packing ratio before it is read; Bob's notebook beside it is laid out; the run's
    memory stays that of Python and its imports (measured: the child's peak RSS)."""
    bomb = zip_of_same([f"v{n:03d}/01-attention.ipynb" for n in range(200)], b" " * (32 * 2**20))
    assert 6_000_000 < len(bomb) < 7_000_000
    download = make_zip(tmp_path / "submissions.zip", {
        "badmallory_99999_5555_work.zip": bomb,
        "builderbob_555_5557_01-attention.ipynb": notebook("01-attention", "bob"),
        "smithalice_777_5556_01-attention.ipynb": notebook("01-attention", "alice"),
    })
    out = tmp_path / "submitted"
    started = time.monotonic()
    status, said, peak_mib = run_limited(["collect-zip", str(download), "--roster", str(rosters["canvas"]),
                                          "--out", str(out)], tmp_path)
    took = time.monotonic() - started
    assert status == 1, said[-3000:]
    assert peak_mib is not None and peak_mib < 400, f"peak RSS {peak_mib} MiB"
    print(f"collect-zip on the bomb: peak RSS {peak_mib:.0f} MiB, {took:.1f} s")
    assert laid_out(out) == ["alice/01-attention/01-attention.ipynb", "bob/01-attention/01-attention.ipynb"]
    assert learner(out / "bob" / "01-attention" / "01-attention.ipynb") == "bob"
    assert [p.name for p in out.iterdir() if p.name.startswith(".collect-zip-staging")] == []  # nothing left behind
    found = findings(out)
    assert len(found) == 200 and {f["kind"] for f in found} == {"too-big"} and {f["student"] for f in found} == {"mallory"}
    assert "badmallory_99999_5555_work.zip/v000/01-attention.ipynb: 32.0 MiB unpacked from " in said
    assert "bytes (more than 100 times smaller packed): a zip bomb's shape, no notebook's; not read" in said


def test_a_file_that_lies_about_its_size_is_stopped_while_read(tmp_path, rosters, capsys, monkeypatch):
    """The limits hold on what is read, not only on what the zip says: a record that claims a small size is cut at
    the notebook's limit (the ratio's and the run's total too)."""
    from autograder.grading.bookkeeping import collect_zip

    monkeypatch.setattr(collect_zip, "MAX_FILE_BYTES", 2**20)
    big = make_zip(tmp_path / "big.zip", {"badmallory_99999_5555_01-attention.ipynb": b"x" * (2 * 2**20),
                                          "builderbob_555_5557_01-attention.ipynb": notebook("01-attention", "bob")})
    out = tmp_path / "o"
    assert cli(["collect-zip", str(big), "--roster", str(rosters["canvas"]), "--out", str(out)]) == 1
    assert "2.0 MiB unpacked, more than the 1 MiB a notebook may be" in capsys.readouterr().err
    assert laid_out(out) == ["bob/01-attention/01-attention.ipynb"]
    with zipfile.ZipFile(big) as archive:
        info = archive.getinfo("badmallory_99999_5555_01-attention.ipynb")
        with open(tmp_path / "sink", "wb") as sink:
            # its record lowered to 1000 bytes: zipfile gives no more than the record says, and the CRC fails
            lowered = copy.copy(info)
            lowered.file_size = 1000
            with pytest.raises(zipfile.BadZipFile):
                collect_zip.copy_bounded(archive, lowered, sink, collect_zip.Budget())
            # a record believed (the check of the record skipped): the reading itself stops at the limit
            monkeypatch.setattr(collect_zip, "check_declared", lambda info, limit=None: None)
            with pytest.raises(collect_zip.TooBig, match="more than the 1 MiB a notebook may be, unpacked"):
                collect_zip.copy_bounded(archive, info, sink, collect_zip.Budget())
            assert sink.tell() <= 2**20 + 1000  # no more than the limit was written
    monkeypatch.undo()
    budget = collect_zip.Budget(total=3 * 2**20)
    files = {f"builderbob_555_{n}_01-attention-{n}.ipynb": b"y" * (2 * 2**20) for n in range(3)}
    out = tmp_path / "o2"
    outcome = collect_zip.collect([make_zip(tmp_path / "total.zip", files)], collect_zip.read_roster(rosters["canvas"]),
                                  out, {"01-attention.ipynb": "01-attention"}, budget=budget)
    assert any("all that one run of collect-zip reads" in why for _, why in outcome.left_out)
    assert laid_out(out) == []  # three copies, one unread: which counts is not guessed


def test_a_students_zip_of_too_many_files_is_not_opened(tmp_path, rosters, capsys):
    many = inner_zip({f"f{n}.txt": b"" for n in range(201)})
    download = make_zip(tmp_path / "submissions.zip", {"badmallory_99999_5555_many.zip": many,
                                                       "builderbob_555_5557_01-attention.ipynb": notebook("01-attention", "bob")})
    out = tmp_path / "o"
    assert cli(["collect-zip", str(download), "--roster", str(rosters["canvas"]), "--out", str(out)]) == 1
    assert "a zip of 201 files, more than the 200 read from a student's own zip" in capsys.readouterr().err
    assert laid_out(out) == ["bob/01-attention/01-attention.ipynb"]
