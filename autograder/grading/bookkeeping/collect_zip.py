"""An LMS's bulk download of submissions, laid out as nbgrader's submitted/ folder, matched to the roster.

    autograder collect-zip DOWNLOAD.zip [MORE.zip ...] --roster roster.csv [--out submitted]

The shapes (Moodle's read from its code, mod/assign's download of all submissions; Canvas's from an example in its
own issue tracker, instructure/canvas-lms#2406, ``studenttest_3143_207797_zipsubmission.zip``, and the known
``_LATE`` and ``-1`` forms: Canvas's zipping code was not at hand to read):

- **Canvas** (Assignment, Download Submissions): one flat zip, each file named
  ``<name>[_LATE]_<user id>_<attachment id>_<file name as uploaded>``, where ``<name>`` is the student's sortable
  name ("Smith, John") lowercased without spaces or punctuation (``smithjohn``), ``_LATE`` marks a late
  submission, and a file whose name the student already had is renamed with ``-1``, ``-2``... before its extension:
  ``smithjohn_LATE_12345_678910_01-attention-1.ipynb``. A student's uploaded zip is one such file; its notebooks
  are taken too (one level).
- **Moodle** (Assignment, View all submissions, Download all submissions): ``<Full Name>_<participant id>_
  assignsubmission_file_/<file>`` (a folder per student, the default since Moodle 3.1), or the same prefix and the
  file name in one name (``...assignsubmission_file_01-attention.ipynb``, "Download submissions in folders" off).
  ``<participant id>`` is Moodle's id for the student in that assignment, not the user's id; under blind marking
  the name is "Participant".

Matching uses what the roster holds (lms_export.read_roster): a Canvas file by its user id, which is the roster's
``ID`` (Canvas's own gradebook export has it), else by its name part against the roster's ``Student``; a Moodle
file by its full name against ``Student`` ("Last, First" or "First Last", in any order, case and spaces aside), or
by its number where the roster's ``ID`` holds Moodle's participant ids. A file that matches no one, or more than one
student, or a student whose ID says otherwise, is named with the reason and not laid out: never guessed. Two files
for one student's notebook (``01-attention.ipynb`` and ``01-attention-1.ipynb`` in one submission) are both left out,
named. Nothing is ever overwritten: a notebook already in ``--out`` with other content is named and kept.

nbgrader's own ``nbgrader zip_collect`` takes the same matching with this module's collector plugin:

    nbgrader zip_collect --collector=autograder.grading.bookkeeping.collect_zip.RosterCollector \\
        --RosterCollector.roster=roster.csv 01-attention

(the download in ``downloaded/01-attention/archive/``, as nbgrader documents it). Why `autograder collect-zip` does
not run nbgrader's ZipCollectApp itself: it takes one assignment per run and the archive in the course's
``downloaded/<assignment>/archive/`` folder; it stops the whole collection (``Duplicate submission file. No
timestamps for comparison``) at the first student with two files for one notebook, and an LMS download carries no
timestamps; and it refuses a student whose submitted folder exists, or with ``--force`` deletes that folder first.
Here a download of any assignments goes anywhere, a doubtful file costs only itself, and nothing is deleted.
"""
import hashlib
import io
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode

from autograder.grading.bookkeeping.layout import why_not_an_id
from autograder.grading.outputs.lms_export import read_roster

MAX_FILE_BYTES = 32 * 2**20  # a notebook larger than this is not taken (runner.MAX_NOTEBOOK_BYTES)
MAX_INNER_FILES = 200  # files read from one student's own zip

CANVAS = re.compile(r"^(?P<name>[^_/]*?)(?P<late>_LATE)?_(?P<number>\d+)_(?P<attachment>\d+)_(?P<file>[^/]+)$")
MOODLE = re.compile(r"^(?P<name>.+)_(?P<number>\d+)_assignsubmission_file_(?P<file>[^/]*)$")
RENAMED = re.compile(r"^(?P<stem>.+?)(?:-\d+| \(\d+\))?\.ipynb$")  # Canvas's -1, a browser's " (1)"


@dataclass(frozen=True)
class Found:
    """A file of the download whose name has an LMS's shape."""
    lms: str  # "Canvas" or "Moodle"
    name: str  # the name part
    number: str  # Canvas's user id, Moodle's participant id
    file: str  # the file's own name
    late: bool = False


def identify(path):
    """The LMS shape of the file at ``path`` (its path inside the download, "/"-separated), or None."""
    parts = PurePosixPath(path).parts
    base = parts[-1] if parts else ""
    moodle = MOODLE.match(base)
    if moodle and moodle.group("file"):
        return Found("Moodle", moodle.group("name"), moodle.group("number"), moodle.group("file"))
    for folder in reversed(parts[:-1]):  # a student's folder, the file somewhere under it
        moodle = MOODLE.match(folder)
        if moodle and not moodle.group("file"):
            return Found("Moodle", moodle.group("name"), moodle.group("number"), base)
    canvas = CANVAS.match(base)
    if canvas:
        return Found("Canvas", canvas.group("name"), canvas.group("number"), canvas.group("file"),
                     late=bool(canvas.group("late")))
    return None


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
        """(student id, None) or (None, why not)."""
        by_number = self.by_number.get(found.number, [])
        named = (self.by_squeezed.get(squeezed(found.name), []) if found.lms == "Canvas"
                 else self.by_words.get(words(found.name), []))
        what = "user id" if found.lms == "Canvas" else "participant id"
        if len(by_number) > 1:
            return None, f"the roster gives the ID {found.number} to {len(by_number)} students ({', '.join(by_number)})"
        if by_number:
            (student,) = by_number
            others = [s for s in named if s != student]
            if others and student not in named:
                return None, (f"its {what} {found.number} is {student}'s in the roster, but its name "
                              f"{found.name!r} is {', '.join(others)}'s")
            return student, None
        if len(named) > 1:
            hint = ("add Canvas's ID column (its gradebook export has it) to the roster" if found.lms == "Canvas" else
                    "copy this file by hand, or put Moodle's participant ids (its grading worksheet's Identifier) in "
                    "the roster's ID column")
            return None, (f"its name {found.name!r} fits {len(named)} students of the roster ({', '.join(named)}) and "
                          f"its {what} {found.number} none: {hint}")
        if named:
            (student,) = named
            listed = self.students[student].get("ID", "").strip()
            if listed and found.lms == "Canvas":
                return None, (f"its name {found.name!r} is {student}'s, but the roster gives {student} the ID "
                              f"{listed}, not {found.number}")
            return student, None
        return None, f"no student of the roster has the {what} {found.number} or the name {found.name!r}"


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


@dataclass
class Outcome:
    laid_out: list  # (destination, from)
    already: list  # destinations that held the same notebook already
    left_out: list  # (file in the download, why)
    late: list  # (student, assignment): Canvas's _LATE


def bounded_read(archive, info):
    if info.file_size > MAX_FILE_BYTES:
        raise ValueError(f"{info.file_size / 2**20:.0f} MiB, more than the {MAX_FILE_BYTES >> 20} MiB a notebook may be")
    with archive.open(info) as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"more than the {MAX_FILE_BYTES >> 20} MiB a notebook may be")
    return data


def members(download: Path):
    """(name shown, name to identify, bytes or an error string) of every file of the download, one level of the
    students' own zips included (their files identified by the outer file's name)."""
    with zipfile.ZipFile(download) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = info.filename
            if name.lower().endswith(".zip"):
                found = identify(name)
                if found is None:
                    yield name, name, None
                    continue
                try:
                    inner = zipfile.ZipFile(io.BytesIO(bounded_read(archive, info)))
                    listed = [i for i in inner.infolist() if not i.is_dir()][:MAX_INNER_FILES]
                except (ValueError, zipfile.BadZipFile, OSError) as error:
                    yield name, name, f"a zip that cannot be read ({error})"
                    continue
                for item in listed:
                    shown = f"{name}/{item.filename}"
                    base = PurePosixPath(item.filename).name
                    try:
                        yield shown, str(PurePosixPath(name).with_name(_renamed(name, found, base))), bounded_read(inner, item)
                    except (ValueError, zipfile.BadZipFile, OSError, RuntimeError) as error:
                        yield shown, shown, f"cannot be read ({error})"
                continue
            try:
                yield name, name, bounded_read(archive, info)
            except (ValueError, zipfile.BadZipFile, OSError, RuntimeError) as error:  # RuntimeError: encrypted
                yield name, name, f"cannot be read ({error})"


def _renamed(outer, found, inner_base):
    """The name a file of a student's own zip is identified by: the outer file's LMS prefix and its own name."""
    base = PurePosixPath(outer).name
    return base[: len(base) - len(found.file)] + inner_base if found.lms == "Canvas" else \
        f"{found.name}_{found.number}_assignsubmission_file_{inner_base}"


def collect(downloads, roster, out: Path, known):
    """Lay the notebooks of ``downloads`` (zip files) out under ``out`` as out/<student>/<assignment>/<notebook>;
    ``roster``: lms_export.read_roster's; ``known``: course_notebooks'. Returns an Outcome; writes nothing doubtful."""
    index = Roster(roster)
    outcome = Outcome([], [], [], [])
    wanted = {}  # destination -> [(shown, bytes)]
    for download in downloads:
        for shown, name, data in members(download):
            where = f"{Path(download).name}: {shown}"
            if not name.lower().endswith(".ipynb"):
                if data is None or isinstance(data, bytes):
                    outcome.left_out.append((where, "not a notebook (.ipynb)"))
                else:
                    outcome.left_out.append((where, data))
                continue
            if isinstance(data, str):
                outcome.left_out.append((where, data))
                continue
            found = identify(name)
            if found is None:
                outcome.left_out.append((where, "its name is not one Canvas or Moodle gives a submission "
                                                "(name_userid_attachmentid_file, or Full Name_id_assignsubmission_file_)"))
                continue
            notebook = notebook_name(found.file, known)
            if notebook is None:
                outcome.left_out.append((where, f"{found.file!r} is no notebook of the course (expected one of "
                                                f"{', '.join(sorted(known)[:3])}...)"))
                continue
            student, why = index.match(found)
            if student is None:
                outcome.left_out.append((where, why))
                continue
            refused = why_not_an_id(student) or ("a name with a slash" if "/" in student or "\\" in student else None)
            if refused:
                outcome.left_out.append((where, f"the roster's student_id {student!r} cannot be a folder name: {refused}"))
                continue
            assignment = known[notebook]
            if found.late and (student, assignment) not in outcome.late:
                outcome.late.append((student, assignment))
            wanted.setdefault(out / student / assignment / notebook, []).append((where, data))
    for destination, files in sorted(wanted.items()):
        if len({hashlib.sha256(data).hexdigest() for _, data in files}) > 1:
            for where, _ in files:
                outcome.left_out.append((where, f"{len(files)} different files for {destination.parent.parent.name}'s "
                                                f"{destination.name} ({'; '.join(w for w, _ in files)}): which one "
                                                "counts is not guessed; keep one in the download, or copy it by hand"))
            continue
        where, data = files[0]
        if destination.exists() or destination.is_symlink():
            if destination.is_file() and not destination.is_symlink() and destination.read_bytes() == data:
                outcome.already.append(destination)
            else:
                outcome.left_out.append((where, f"{destination} exists with other content: it is kept (move it away "
                                                "to take the download's)"))
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        partial = destination.with_name(f".{destination.name}.partial")
        partial.write_bytes(data)
        partial.replace(destination)
        outcome.laid_out.append((destination, where))
    return outcome


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader zip_collect's collector for Canvas's and Moodle's downloads, matched to the roster (see above).

    nbgrader zip_collect --collector=autograder.grading.bookkeeping.collect_zip.RosterCollector \\
        --RosterCollector.roster=roster.csv ASSIGNMENT
    """

    roster = Unicode("", help="the roster CSV (student_id and the LMS's ID and Student columns)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._index = Roster(read_roster(self.roster)) if self.roster else None

    def collect(self, submitted_file):
        if self._index is None:
            self.log.error("RosterCollector needs --RosterCollector.roster=roster.csv")
            return None
        if not submitted_file.endswith(".ipynb"):
            return None
        assignment = getattr(getattr(self.parent, "coursedir", None), "assignment_id", "") or ""
        found = identify(submitted_file)
        if found is None:
            self.log.warning("Not a Canvas or Moodle submission's name, skipped: %s", submitted_file)
            return None
        renamed = RENAMED.match(found.file)
        file_id = f"{renamed.group('stem')}.ipynb" if renamed else found.file
        if assignment and file_id != f"{assignment}.ipynb":  # zip_collect would file it under this assignment
            self.log.warning("Not %s.ipynb, skipped: %s", assignment, submitted_file)
            return None
        student, why = self._index.match(found)
        if student is None:
            self.log.warning("Not matched to the roster (%s), skipped: %s", why, submitted_file)
            return None
        return {"student_id": student, "file_id": file_id}
