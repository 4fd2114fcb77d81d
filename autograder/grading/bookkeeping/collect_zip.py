"""An LMS's bulk download of submissions, laid out as nbgrader's submitted/ folder, matched to the roster.

    autograder collect-zip DOWNLOAD.zip [MORE.zip ...] --roster roster.csv [--out submitted] [--lms canvas|moodle]

Who submitted a file is read from the part of its name the LMS writes, in that LMS's shape only (lms_names.py: the
shapes as Canvas's and Moodle's own code write them); the file's own name, which the student chose, says only which
notebook it is. A download is read in one LMS's shape (the one its files have, or ``--lms``).

- **Canvas** (Assignment, Download Submissions): ``<name>[_LATE]_<user id>_<attachment id>_<file>``, one flat zip;
  ``smithjohn_LATE_12345_678910_01-attention-1.ipynb`` (``-1``: a file the student already had, renamed by Canvas).
  A student's uploaded zip is opened too (one level), its files taken as the outer file's submitter's.
- **Moodle** (Assignment, View all submissions, Download all submissions): ``<Full Name>_<participant id>_
  assignsubmission_file_/<file>`` (a folder per student, the default; ``..._file/`` from Moodle 4.1), or
  ``<Full Name>_<participant id>_assignsubmission_file_<file>`` ("Download submissions in folders" off).
  ``<participant id>`` is Moodle's id for the student in that assignment, not the user's id.

Matching uses what the roster holds (lms_export.read_roster): a Canvas file by its user id, which is the roster's
``ID`` (Canvas's own gradebook export has it), else by its name part against the roster's ``Student``; a Moodle
file by its full name against ``Student`` ("Last, First" or "First Last", in any order, case and spaces aside), or
by its number where the roster's ``ID`` holds Moodle's participant ids. Never guessed, each named with why and left
out: a name that reads as two submitters, a file that matches no one or more than one student, a student whose ID
says otherwise, two different files for one student's notebook, a file too big to be a notebook. Nothing is ever
overwritten: a notebook already in ``--out`` with other content is named and kept.

Every finding (and Canvas's late mark) is kept with the collected folder, in ``<out>/.collect-zip.json``
(lms_export.FINDINGS_FILE: a hidden file, which `autograder grade` does not take for a student), for the class
report and gradebook.csv (``autograder report OUT --imported <out>``).

What a download may cost is bounded by what a notebook may be, whatever its zip says: each file is read in
1 MiB pieces, hashed and written to disk as it comes (nothing is held in memory), and stopped past 32 MiB
(MAX_FILE_BYTES) or past 100 times its compressed size (MAX_RATIO, above 1 MiB: a zip bomb's ratio is in the
thousands, a notebook's JSON about 3 to 10); all files read in one run stop at 4 GiB (MAX_TOTAL_BYTES); a student's
own zip is read only when its submitter is on the roster, at most 32 MiB and 200 files (its directory's count is
read before its directory is); only files that are one of the course's notebooks of a rostered student are read at
all; and a second file for a notebook is read only where its size is the first's (else they differ: both are left
out, the second unread). Disk: at most the notebooks laid out, two of a notebook at a time while they are compared, and one
student's zip.

nbgrader's own ``nbgrader zip_collect`` takes the same matching with this module's collector plugin:

    nbgrader zip_collect --collector=autograder.grading.bookkeeping.collect_zip.RosterCollector \\
        --RosterCollector.roster=roster.csv 01-attention

(the download in ``downloaded/01-attention/archive/``, as nbgrader documents it). Why `autograder collect-zip` does
not run nbgrader's ZipCollectApp itself: it takes one assignment per run and the archive in the course's
``downloaded/<assignment>/archive/`` folder; it stops the whole collection (``Duplicate submission file. No
timestamps for comparison``) at the first student with two files for one notebook, and an LMS download carries no
timestamps; it refuses a student whose submitted folder exists, or with ``--force`` deletes that folder first; and
it unpacks every zip, students' zips inside it too, with no bound. Here a download of any assignments goes anywhere,
a doubtful file costs only itself, and nothing is deleted.
"""
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode

from autograder.grading.bookkeeping.layout import why_not_an_id
from autograder.grading.bookkeeping.lms_names import CANVAS, MOODLE, Ambiguous, Found, detect, identify
from autograder.grading.outputs.lms_export import FINDINGS_FILE, FINDINGS_FORMAT, read_roster

__all__ = ["Found", "identify", "collect", "course_notebooks", "RosterCollector"]

MAX_FILE_BYTES = 32 * 2**20  # a notebook larger than this is not taken (runner.MAX_NOTEBOOK_BYTES)
MAX_RATIO = 100  # unpacked / packed size above which a file is a zip bomb, not a notebook ...
RATIO_FLOOR = 2**20  # ... once it is past 1 MiB unpacked (a small file may pack as it likes)
MAX_TOTAL_BYTES = 4 * 2**30  # all the files one run reads, unpacked
MAX_INNER_FILES = 200  # files in one student's own zip
CHUNK = 2**20  # bytes read at a time
STAGING = ".collect-zip-staging"  # under --out, for files being read; removed at the end

RENAMED = re.compile(r"^(?P<stem>.+?)(?:-\d+| \(\d+\))?\.ipynb$")  # Canvas's -1, a browser's " (1)"
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, RuntimeError,
               NotImplementedError, ValueError)  # RuntimeError: encrypted; NotImplementedError: a method we lack


def squeezed(text):
    """Canvas's name part of a name: lowercased, nothing but letters and digits ("Smith, John" -> "smithjohn")."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def words(text):
    """A full name as the sorted words it is made of, whatever their order ("Smith, John" = "John Smith")."""
    text = unicodedata.normalize("NFKC", text).casefold().replace(",", " ")
    return tuple(sorted(text.split()))


class Roster:
    """The roster's students, indexed by what an LMS puts in its file names."""

    def __init__(self, roster):
        self.students = roster
        self.by_number, self.by_squeezed, self.by_words = {}, {}, {}
        for student, row in roster.items():
            if row.get("ID"):
                self.by_number.setdefault(row["ID"].strip(), []).append(student)
            if row.get("Student"):
                self.by_squeezed.setdefault(squeezed(row["Student"]), []).append(student)
                self.by_words.setdefault(words(row["Student"]), []).append(student)

    def match(self, found: Found):
        """(student id, None, None) or (None, kind, why not): kind "unmatched" or "ambiguous"."""
        if found.anonymous:
            return None, "unmatched", (f"Canvas's anonymous grading names no one (anon_{found.anonymous}): match it "
                                       "after Canvas reveals the names (download again then), or copy it by hand")
        by_number = self.by_number.get(found.number, [])
        named = (self.by_squeezed.get(squeezed(found.name), []) if found.lms == CANVAS
                 else self.by_words.get(words(found.name), []))
        what = "user id" if found.lms == CANVAS else "participant id"
        if len(by_number) > 1:
            return None, "ambiguous", (f"the roster gives the ID {found.number} to {len(by_number)} students "
                                       f"({', '.join(by_number)}): correct the roster")
        if by_number:
            (student,) = by_number
            others = [s for s in named if s != student]
            if others and student not in named:
                return None, "ambiguous", (f"its {what} {found.number} is {student}'s in the roster, but its name "
                                           f"{found.name!r} is {', '.join(others)}'s: correct the roster, or copy it "
                                           "by hand")
            return student, None, None
        if len(named) > 1:
            hint = ("add Canvas's ID column (its gradebook export has it) to the roster" if found.lms == CANVAS else
                    "copy this file by hand, or put Moodle's participant ids (its grading worksheet's Identifier) in "
                    "the roster's ID column")
            return None, "ambiguous", (f"its name {found.name!r} fits {len(named)} students of the roster "
                                       f"({', '.join(named)}) and its {what} {found.number} none: {hint}")
        if named:
            (student,) = named
            listed = self.students[student].get("ID", "").strip()
            if listed and found.lms == CANVAS:
                return None, "ambiguous", (f"its name {found.name!r} is {student}'s, but the roster gives {student} "
                                           f"the ID {listed}, not {found.number}: correct the roster, or copy it by "
                                           "hand")
            return student, None, None
        return None, "unmatched", (f"no student of the roster has the {what} {found.number} or the name "
                                   f"{found.name!r}: add the student to the roster, or copy it by hand")


def notebook_name(file, known):
    """The course notebook ``file`` is (its name as submitted, maybe renamed by the LMS or a browser), or None."""
    if file in known:
        return file
    renamed = RENAMED.match(file)
    if renamed and f"{renamed.group('stem')}.ipynb" in known:
        return f"{renamed.group('stem')}.ipynb"
    return None


def course_notebooks(source_dir: Path):
    """{notebook file name: assignment id} of the course (its source notebooks)."""
    from autograder.grading.bookkeeping.source import known_assignments

    return {path.name: assignment for assignment in known_assignments(source_dir)
            for path in sorted((Path(source_dir) / assignment).glob("*.ipynb"))}


# ------------------------------------------------------------------ reading, bounded

class TooBig(Exception):
    """A file that cannot be a notebook by its size (what to say is the message)."""


def mib(size):
    return f"{size / 2**20:.1f} MiB"


class Budget:
    """The bytes one run may still read, unpacked (MAX_TOTAL_BYTES)."""

    def __init__(self, total=None):
        self.total = MAX_TOTAL_BYTES if total is None else total
        self.left = self.total

    def spend(self, size):
        self.left -= size
        if self.left < 0:
            raise TooBig(f"the files read so far came to {self.total / 2**30:.0f} GiB unpacked, all that one run of "
                         "collect-zip reads: run it again with fewer downloads (one assignment at a time)")


def check_declared(info, limit=None):
    """TooBig where the zip's own record of ``info`` already says it is too big (``limit``, default MAX_FILE_BYTES) or
    packs like a zip bomb."""
    limit = MAX_FILE_BYTES if limit is None else limit
    if info.file_size > limit:
        raise TooBig(f"{mib(info.file_size)} unpacked, more than the {limit >> 20} MiB a notebook may be")
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise TooBig(f"{mib(info.file_size)} unpacked from {info.compress_size} bytes (more than {MAX_RATIO} times "
                     "smaller packed): a zip bomb's shape, no notebook's; not read")


def copy_bounded(archive, info, sink, budget, limit=None):
    """Stream ``info``'s bytes into ``sink`` (a binary file), stopping (TooBig) past ``limit`` (default MAX_FILE_BYTES),
    past MAX_RATIO times its packed size, or past the run's ``budget``, whatever its record says; returns (sha256
    hex, size)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    check_declared(info, limit)
    digest, size = hashlib.sha256(), 0
    with archive.open(info) as source:
        while True:
            chunk = source.read(CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise TooBig(f"more than the {limit >> 20} MiB a notebook may be, unpacked (its zip said "
                             f"{mib(info.file_size)})")
            if size > RATIO_FLOOR and size > MAX_RATIO * max(info.compress_size, 1):
                raise TooBig(f"more than {MAX_RATIO} times its packed size ({info.compress_size} bytes) unpacked: a zip "
                             "bomb's shape, no notebook's; not read further")
            budget.spend(len(chunk))
            digest.update(chunk)
            sink.write(chunk)
    return digest.hexdigest(), size


def file_digest(path: Path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def inner_file_count(path: Path):
    """The number of files a zip's directory lists, read from its end record (before its directory is parsed)."""
    end_record = getattr(zipfile, "_EndRecData", None)
    if end_record is None:
        return None
    with open(path, "rb") as handle:
        record = end_record(handle)
    if not record:
        raise zipfile.BadZipFile("File is not a zip file")
    return record[getattr(zipfile, "_ECD_ENTRIES_TOTAL", 4)]


# ------------------------------------------------------------------ what the import found

@dataclass
class Finding:
    """One thing the import found: ``kind`` one of KINDS; ``file`` the file's path in ``download``."""
    kind: str
    download: str
    file: str
    why: str
    student: str = ""
    assignment: str = ""
    notebook: str = ""
    lms: str = ""

    @property
    def where(self):
        return f"{self.download}: {self.file}"

    def to_json(self):
        return {k: v for k, v in self.__dict__.items()}


KINDS = {  # kind: what it means (class_report.IMPORT_LABELS and lms_export.FINDING_NOTES show them)
    "late": "laid out; the LMS marked it late",
    "duplicate": "two or more different files for one student's notebook: none laid out",
    "unmatched": "no student of the roster",
    "ambiguous": "could be more than one student's: not laid out",
    "too-big": "too big to be a notebook, or packed like a zip bomb: not read",
    "unreadable": "a file the zip cannot give back (damaged, encrypted)",
    "not-a-notebook": "not a notebook of the course",
    "wrong-shape": "its name is in no shape the LMS writes",
    "kept": "a different notebook was already in the folder: kept, the download's not laid out",
    "bad-student-id": "the roster's student_id cannot be a folder name",
}


@dataclass
class Destination:
    """The files of the download for one student's notebook."""
    files: list = field(default_factory=list)  # (Finding template, sha256 or None where not read, already reported)
    size: int = None  # the first file's unpacked size
    staged: Path = None  # the first file, read (None: not read, or not readable)
    differ: bool = False  # two files that differ (or one unreadable): none is laid out
    late: bool = False


@dataclass
class CollectResult:
    """What one collect-zip run did with its downloads (``collect``'s result)."""
    laid_out: list  # (destination, from)
    already: list  # destinations that held the same notebook already
    left_out: list  # (file in the download, why)
    late: list  # (student, assignment): Canvas's _LATE
    findings: list = field(default_factory=list)  # every Finding, late ones included
    downloads: dict = field(default_factory=dict)  # download name -> {"lms", "laid_out": [...]}


class Collector:
    """One run of collect-zip (see ``collect``)."""

    def __init__(self, roster, out: Path, known, lms=None, budget=None):
        self.index, self.out, self.known, self.lms = Roster(roster), Path(out), known, lms
        self.budget = budget or Budget()
        self.result = CollectResult([], [], [], [])
        self.destinations = {}  # Path -> Destination
        self.staging = None

    def find(self, kind, download, file, why, **about):
        finding = Finding(kind, download, file, why, **about)
        self.result.findings.append(finding)
        if kind != "late":
            self.result.left_out.append((finding.where, why))
        return finding

    def stage(self):
        if self.staging is None:
            self.out.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=STAGING + "-", dir=self.out))
        return self.staging

    def run(self, downloads):
        try:
            for download in downloads:
                self.read_download(Path(download))
            self.lay_out()
        finally:
            if self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
        return self.result

    def read_download(self, download: Path):
        name, copy = download.name, 1
        while name in self.result.downloads:  # two downloads of one name (from two folders): told apart
            copy += 1
            name = f"{download.name} ({copy})"
        with zipfile.ZipFile(download) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
            shape = self.lms or detect([i.filename for i in infos])
            self.result.downloads[name] = {"lms": shape or "", "laid_out": []}
            for info in infos:
                self.read_member(archive, info, name, shape)

    def identify(self, path, download, shape):
        """A Found, or None (said why)."""
        if shape is None:
            self.find("wrong-shape", download, path, "the download's files are in neither Canvas's nor Moodle's shape "
                      "(or as many in each): give --lms canvas or --lms moodle, or copy the notebooks by hand")
            return None
        found = identify(path, shape)
        if isinstance(found, Ambiguous):
            self.find("ambiguous", download, path, f"its name reads as {shape} writes it in {len(found.readings)} ways "
                      f"({found.describe()}): who submitted it is not guessed; copy it by hand")
            return None
        if found is None:
            other = MOODLE if shape == CANVAS else CANVAS
            elsewhere = identify(path, other)
            what = (f"it has {other}'s shape, in a download of {shape}'s" if elsewhere is not None else
                    f"its name is not one {shape} gives a submission ("
                    + ("name_userid_attachmentid_file" if shape == CANVAS else
                       "Full Name_id_assignsubmission_file_/file") + ")")
            self.find("wrong-shape", download, path, f"{what}: not taken; copy it by hand if it is a submission")
            return None
        return found

    def read_member(self, archive, info, download, shape):
        path = info.filename
        found = self.identify(path, download, shape)
        if found is None:
            return
        if found.lms == MOODLE and found.plugin != "file":
            self.find("not-a-notebook", download, path, f"not a notebook (.ipynb): Moodle's {found.plugin} submission, "
                      "not an uploaded file", lms=found.lms)
            return
        is_zip = found.file.lower().endswith(".zip")
        notebook = None if is_zip else notebook_name(found.file, self.known)
        if not is_zip and notebook is None:
            why = ("not a notebook (.ipynb)" if not found.file.lower().endswith(".ipynb") else
                   f"{found.file!r} is no notebook of the course (expected one of {', '.join(sorted(self.known)[:3])}"
                   f"{'...' if len(self.known) > 3 else ''})")
            self.find("not-a-notebook", download, path, why, lms=found.lms)
            return
        student = self.student(found, download, path)
        if student is None:
            return
        if is_zip:
            self.read_inner_zip(archive, info, download, found, student)
            return
        self.take(archive, info, download, path, found, student, notebook)

    def student(self, found, download, path):
        student, kind, why = self.index.match(found)
        if student is None:
            self.find(kind, download, path, why, lms=found.lms)
            return None
        refused = why_not_an_id(student) or ("a name with a slash" if "/" in student or "\\" in student else None)
        if refused:
            self.find("bad-student-id", download, path, f"the roster's student_id {student!r} cannot be a folder name: "
                      f"{refused}", student=student, lms=found.lms)
            return None
        return student

    def read_inner_zip(self, archive, info, download, found, student):
        """A student's own zip: its notebooks, one level, as ``found``'s submitter's."""
        path = info.filename
        handle, temporary = tempfile.mkstemp(prefix="inner-", suffix=".zip", dir=self.stage())
        try:
            with os.fdopen(handle, "wb") as sink:
                copy_bounded(archive, info, sink, self.budget)
            count = inner_file_count(Path(temporary))
            if count is not None and count > MAX_INNER_FILES:
                raise TooBig(f"a zip of {count} files, more than the {MAX_INNER_FILES} read from a student's own zip")
            with zipfile.ZipFile(temporary) as inner:
                for item in inner.infolist():
                    if item.is_dir():
                        continue
                    shown = f"{path}/{item.filename}"
                    inner_found = replace(found, file=PurePosixPath(item.filename).name)
                    notebook = notebook_name(inner_found.file, self.known)
                    if notebook is None:
                        why = ("not a notebook (.ipynb)" if not inner_found.file.lower().endswith(".ipynb") else
                               f"{inner_found.file!r} is no notebook of the course")
                        self.find("not-a-notebook", download, shown, why, student=student, lms=found.lms)
                        continue
                    self.take(inner, item, download, shown, inner_found, student, notebook)
        except TooBig as error:
            self.find("too-big", download, path, f"a student's zip: {error}", student=student, lms=found.lms)
        except READ_ERRORS as error:
            self.find("unreadable", download, path, f"a zip that cannot be read ({type(error).__name__}: {error})",
                      student=student, lms=found.lms)
        finally:
            Path(temporary).unlink(missing_ok=True)

    def take(self, archive, info, download, path, found, student, notebook):
        """One file for ``student``'s ``notebook``: read it (bounded) unless it already differs from another."""
        assignment = self.known[notebook]
        about = {"student": student, "assignment": assignment, "notebook": notebook, "lms": found.lms}
        destination = self.out / student / assignment / notebook
        slot = self.destinations.setdefault(destination, Destination())
        slot.late = slot.late or found.late
        template = Finding("", download, path, "", **about)
        try:
            check_declared(info)  # no reading: what its zip says
        except TooBig as error:
            self.find("too-big", download, path, str(error), **about)
            self.conflict(slot, template)
            return
        if slot.files and (slot.differ or slot.staged is None or info.file_size != slot.size):
            slot.files.append((template, None, False))  # differs from the first (its size), or the first was not read
            slot.differ = True
            self.drop(slot)
            return
        handle, staged = tempfile.mkstemp(prefix="nb-", suffix=".ipynb", dir=self.stage())
        try:
            with os.fdopen(handle, "wb") as sink:
                digest, _ = copy_bounded(archive, info, sink, self.budget)
        except TooBig as error:
            Path(staged).unlink(missing_ok=True)
            self.find("too-big", download, path, str(error), **about)
            self.conflict(slot, template)
            return
        except READ_ERRORS as error:
            Path(staged).unlink(missing_ok=True)
            self.find("unreadable", download, path, f"cannot be read ({type(error).__name__}: {error})", **about)
            self.conflict(slot, template)
            return
        if not slot.files:
            slot.files.append((template, digest, False))
            slot.size, slot.staged = info.file_size, Path(staged)
            return
        slot.files.append((template, digest, False))
        Path(staged).unlink(missing_ok=True)
        if digest != slot.files[0][1]:
            slot.differ = True
            self.drop(slot)

    def conflict(self, slot, template):
        """A file for a notebook that was not taken (said why): with any other file for it, which counts is not
        guessed."""
        slot.files.append((template, None, True))
        if len(slot.files) > 1:
            slot.differ = True
            self.drop(slot)

    @staticmethod
    def drop(slot):
        if slot.staged is not None:
            slot.staged.unlink(missing_ok=True)
            slot.staged = None

    def lay_out(self):
        late_said = set()
        for destination, slot in sorted(self.destinations.items()):
            first = slot.files[0][0]
            student, assignment = first.student, first.assignment
            if slot.late and (student, assignment) not in late_said:
                late_said.add((student, assignment))
                self.result.late.append((student, assignment))
                self.find("late", first.download, first.file, f"marked late by {first.lms} (its _LATE): no submission "
                          "time is in its download, so no timestamp.txt is written; apply a late penalty by hand",
                          student=student, assignment=assignment, notebook=first.notebook, lms=first.lms)
            if slot.differ:
                self.duplicates(slot, destination, first)
                continue
            if slot.staged is None:  # its only file could not be read (said already)
                continue
            self.place(destination, slot, first)

    def duplicates(self, slot, destination, first):
        """Every file of a notebook with files that differ (or one not taken) is named; none is laid out."""
        listed = "; ".join(t.where for t, _, _ in slot.files[:3]) + (
            f" and {len(slot.files) - 3} more" if len(slot.files) > 3 else "")
        not_taken = sum(1 for _, _, reported in slot.files if reported)
        what = (f"{len(slot.files)} different files" if len(slot.files) == 2 and not not_taken else
                f"{len(slot.files)} files, not all the same" if not not_taken else
                f"{len(slot.files)} files ({not_taken} too big or unreadable, named apart)")
        for template, _, reported in slot.files:
            if reported:  # too big, or unreadable: said so already
                continue
            self.find("duplicate", template.download, template.file,
                      f"{what} for {first.student}'s {destination.name} ({listed}): which one counts is not guessed; "
                      "keep one in the download, or copy it by hand", student=first.student,
                      assignment=first.assignment, notebook=first.notebook, lms=first.lms)

    def place(self, destination, slot, first):
        record = {"student": first.student, "assignment": first.assignment, "notebook": first.notebook,
                  "file": first.file}
        if destination.exists() or destination.is_symlink():
            if (destination.is_file() and not destination.is_symlink()
                    and file_digest(destination) == slot.files[0][1]):
                self.result.already.append(destination)
                self.result.downloads[first.download]["laid_out"].append({**record, "already": True})
            else:
                self.find("kept", first.download, first.file, f"{destination} exists with other content: it is kept "
                          "(move it away to take the download's)", student=first.student,
                          assignment=first.assignment, notebook=first.notebook, lms=first.lms)
            self.drop(slot)
            return
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(slot.staged, destination)
        slot.staged = None
        self.result.laid_out.append((destination, first.where))
        self.result.downloads[first.download]["laid_out"].append(record)


def collect(downloads, roster, out: Path, known, lms=None, budget=None):
    """Lay the notebooks of ``downloads`` (zip files) out under ``out`` as out/<student>/<assignment>/<notebook>;
    ``roster``: lms_export.read_roster's; ``known``: course_notebooks'; ``lms``: CANVAS, MOODLE or None (each
    download's own shape). Returns a CollectResult; writes nothing doubtful; keeps the findings (``write_findings``)."""
    result = Collector(roster, out, known, lms, budget).run(downloads)
    write_findings(Path(out), result)
    return result


def write_findings(out: Path, result):
    """``out``/.collect-zip.json: this run's findings per download, beside those of earlier runs' other downloads
    (a download collected again replaces its own). Its shape: lms_export.read_findings."""
    path = out / FINDINGS_FILE
    kept = {}
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(earlier, dict) and earlier.get("format") == FINDINGS_FORMAT and isinstance(earlier.get("downloads"), dict):
            kept = earlier["downloads"]
    except (OSError, ValueError):
        pass  # none yet, or not ours: written anew
    when = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    for name, about in result.downloads.items():
        kept[name] = {"lms": about["lms"], "collected": when, "laid_out": about["laid_out"],
                      "findings": [f.to_json() for f in result.findings if f.download == name]}
    data = {"format": FINDINGS_FORMAT,
            "about": "what autograder collect-zip found in each LMS download laid out here (kinds: "
                     + "; ".join(f"{k}: {v}" for k, v in KINDS.items()) + ")",
            "downloads": kept}
    out.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader zip_collect's collector for Canvas's and Moodle's downloads, matched to the roster (see above).

    nbgrader zip_collect --collector=autograder.grading.bookkeeping.collect_zip.RosterCollector \\
        --RosterCollector.roster=roster.csv ASSIGNMENT
    """

    roster = Unicode("", help="the roster CSV (student_id and the LMS's ID and Student columns)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._index = Roster(read_roster(self.roster)) if self.roster else None

    def in_download(self, submitted_file):
        """The file's path inside the LMS's download: zip_collect unpacks archive/X.zip into extracted/X/."""
        parent = self.parent
        try:
            extracted = Path(parent._format_collect_path(parent.extracted_directory))
            parts = Path(submitted_file).resolve().relative_to(extracted.resolve()).parts
        except (AttributeError, ValueError, OSError):
            return PurePosixPath(submitted_file).name
        return "/".join(parts[1:] if len(parts) > 1 else parts)

    def collect(self, submitted_file):
        if self._index is None:
            self.log.error("RosterCollector needs --RosterCollector.roster=roster.csv")
            return None
        if not submitted_file.endswith(".ipynb"):
            return None
        assignment = getattr(getattr(self.parent, "coursedir", None), "assignment_id", "") or ""
        found = identify(self.in_download(submitted_file))
        if found is None:
            self.log.warning("Not a Canvas or Moodle submission's name, skipped: %s", submitted_file)
            return None
        if isinstance(found, Ambiguous):
            self.log.warning("A name that reads as two submitters (%s), skipped: %s", found.describe(), submitted_file)
            return None
        renamed = RENAMED.match(found.file)
        file_id = f"{renamed.group('stem')}.ipynb" if renamed else found.file
        if assignment and file_id != f"{assignment}.ipynb":  # zip_collect would file it under this assignment
            self.log.warning("Not %s.ipynb, skipped: %s", assignment, submitted_file)
            return None
        student, _, why = self._index.match(found)
        if student is None:
            self.log.warning("Not matched to the roster (%s), skipped: %s", why, submitted_file)
            return None
        return {"student_id": student, "file_id": file_id}
