"""Who submitted a file of an LMS's bulk download, read strictly from the part of its name the LMS itself writes.

Each LMS's shape is read from its own code (the student types only the file's own name, which comes last):

- **Canvas** (``lib/content_zipper.rb``, Assignment, Download Submissions): one flat zip, each file named
  ``<name>[_LATE]_<user id>_<attachment id>_<file name as uploaded>``. ``<name>`` is the student's sortable name
  ("Smith, John") with every ``_<digits>_`` made ``<digits>`` (Canvas's own guard: "we use /_\\d+_/ to infer the
  user/attachment ids"), lowercased, and every character that is not a letter, a mark, a digit or ``_`` dropped
  (``smithjohn``, ``김민준``); ``LATE`` (upper case, which no lowercased name holds) marks a late submission. The
  file's own name is the student's, with ``/ \\ : * ? " < > |`` made ``_``: it may itself hold ``_<digits>_``, so a
  name is read every way Canvas could have written it, and a name that reads as two different submitters is never
  taken. Under anonymous grading the prefix is ``[LATE_]anon_<anonymous id>``: no one to match.
- **Moodle** (``mod/assign/classes/downloader.php``; ``locallib.php`` before 4.1; Assignment, Download all
  submissions): the prefix ``<full name>_<participant id>`` with every ``_`` of the name made a space, then
  ``_assignsubmission_<plugin>``; with "Download submissions in folders" (the default since 3.1) that prefix is a
  folder, ``..._assignsubmission_file_/`` (up to 4.0) or ``..._assignsubmission_file/`` (4.1 on), holding the
  student's files (and their own subfolders); without it, each file is named ``<prefix>_assignsubmission_file_<file>``.
  Only the top folder is the LMS's: a student's own subfolder named like another student's is just a folder.

The two shapes never read the same name (a Canvas name holds no space, no capital and no ``_<digits>_``; a Moodle
prefix's name no ``_``), and a download is read in one of them (``detect``): a file in the other shape is left out.
"""
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath

CANVAS, MOODLE = "Canvas", "Moodle"
DIGITS = re.compile(r"[0-9]+")  # Canvas's and Moodle's ids: ASCII digits (str.isdigit also takes "²", "٣")
CANVAS_GUARDED = re.compile(r"_[0-9]+_")  # what Canvas removes from a name
MOODLE_FOLDER = re.compile(r"^(?P<name>[^_/]+)_(?P<number>[0-9]+)_assignsubmission_(?P<plugin>[a-z0-9_]+?)_?$")
MOODLE_FLAT = re.compile(r"^(?P<name>[^_/]+)_(?P<number>[0-9]+)_assignsubmission_(?P<rest>.+)$")
ANONYMOUS = re.compile(r"^(?:LATE_)?anon_[A-Za-z0-9]+_[0-9]+_.")


@dataclass(frozen=True)
class Found:
    """A file of the download whose name has an LMS's shape: who the LMS says submitted it."""
    lms: str  # CANVAS or MOODLE
    name: str  # the name part the LMS wrote
    number: str  # Canvas's user id, Moodle's participant id ("" under Canvas's anonymous grading)
    file: str  # the file's own name (the student's)
    late: bool = False  # Canvas's _LATE
    plugin: str = "file"  # Moodle's submission plugin ("onlinetext" holds no notebook)
    anonymous: str = ""  # Canvas's anonymous id


@dataclass(frozen=True)
class Ambiguous:
    """A name the LMS could have written for more than one submitter: never taken."""
    lms: str
    readings: tuple  # of Found

    def describe(self):
        return "; ".join(f"name {r.name!r}, user id {r.number}, file {r.file!r}" for r in self.readings)


def canvas_name(name):
    """Whether ``name`` can be a name part Canvas wrote (see the module's docstring)."""
    if not name or CANVAS_GUARDED.search(name):
        return False
    for ch in name:
        kind = unicodedata.category(ch)
        if ch != "_" and (kind[0] not in "LMN" or kind in ("Lu", "Lt", "Nl", "No")):
            return False  # a capital, a space, punctuation: Canvas lowercased or dropped them
    return True


def canvas(base):
    """Every reading of ``base`` (a file's name, no folder) as Canvas writes it: a list of Found, maybe empty."""
    tokens = base.split("_")
    readings = []
    for k in range(1, len(tokens) - 2):
        user, attachment, file = tokens[k], tokens[k + 1], "_".join(tokens[k + 2:])
        if not (DIGITS.fullmatch(user) and DIGITS.fullmatch(attachment) and file):
            continue
        head, late = tokens[:k], False
        if head[-1] == "LATE":
            head, late = head[:-1], True
        name = "_".join(head)
        if canvas_name(name):
            readings.append(Found(CANVAS, name, user, file, late=late))
    if ANONYMOUS.match(base):  # [LATE_]anon_<anonymous id>_<attachment id>_<file>
        late = base.startswith("LATE_")
        _, anonymous, _, file = base[5 if late else 0:].split("_", 3)
        readings.append(Found(CANVAS, "", "", file, late=late, anonymous=anonymous))
    return readings


def moodle(path):
    """``path`` (inside the download, "/"-separated) read as Moodle writes it: a Found, or None."""
    parts = PurePosixPath(path).parts
    if not parts or parts[0] in ("/", "..", "."):
        return None
    if len(parts) > 1:
        folder = MOODLE_FOLDER.match(parts[0])
        if folder is None:
            return None
        return Found(MOODLE, folder.group("name"), folder.group("number"), parts[-1], plugin=folder.group("plugin"))
    flat = MOODLE_FLAT.match(parts[0])
    if flat is None:
        return None
    rest = flat.group("rest")
    plugin, file = ("file", rest[len("file_"):]) if rest.startswith("file_") else (rest.split("_", 1)[0], rest)
    if not file:
        return None
    return Found(MOODLE, flat.group("name"), flat.group("number"), file, plugin=plugin)


def identify(path, lms=None):
    """Who submitted the file at ``path`` (inside the download, "/"-separated), read in ``lms``'s shape (CANVAS,
    MOODLE, or None: either): a Found, an Ambiguous (two readings: never taken), or None (neither shape)."""
    found = []
    if lms in (None, MOODLE):
        reading = moodle(path)
        found += [reading] if reading else []
    if lms in (None, CANVAS) and "/" not in str(path).strip("/"):
        found += canvas(PurePosixPath(path).name)
    who = {(f.lms, f.name, f.number, f.late, f.anonymous) for f in found}
    if len(who) > 1:
        return Ambiguous(found[0].lms if len({f.lms for f in found}) == 1 else "Canvas or Moodle", tuple(found))
    return found[0] if found else None


def detect(names):
    """The LMS whose shape the download's files (their paths in it) have: CANVAS, MOODLE or None (neither).
    A download holds one LMS's files; where both shapes occur, the one most files have (a tie: None)."""
    canvas_count = sum(1 for name in names if "/" not in name.strip("/") and canvas(PurePosixPath(name).name))
    moodle_count = sum(1 for name in names if moodle(name))
    if canvas_count == moodle_count:
        return None
    return CANVAS if canvas_count > moodle_count else MOODLE
