"""The class's exchange: nbgrader's file exchange on folders that root prepares, where who submits is known, not claimed.

nbgrader's own file exchange trusts every user of the machine: its root is world-writable without the sticky
bit (a student can rename a course aside and put his own in its place), `collect` takes a submission's student
from the folder's name, which any student writes (it only logs "cheating attempt?" when the owner differs), and
it copies a submission with `shutil.copytree`, which follows links (a link to the solutions is collected as the
student's notebook). On the hub, root lays the exchange out once (``prepare``, run by `make hub`):

    exchange/                         root        0755  nobody but root creates or renames a course
      <course>/                       root:class-<course>  0750  the course's students and the instructors enter
        outbound/                     root:instructors  2775  instructors release, the course's students fetch
        inbound/                      root:instructors  3753  students drop submissions (sticky: none renames
                                                              another's) but list nothing; instructors read
        feedback/                     root:instructors  2771  instructors release pages; a student opens only the
                                                              page whose name their own submission's secret gives

and the exchange classes below replace nbgrader's where they act on that layout (``ExchangeFactory``): none of
them creates or re-modes those folders, and ``OwnedCollect`` takes a submission only from the user who made it
(the file system's owner, which only the kernel sets), never following a link. The well-kept alternative, ngshare
with ngshare-exchange (nbgrader's exchange as a hub service), cannot be installed beside this course's Jupyter:
ngshare-exchange 0.5.3 (its last release, also 0.5.4a1) requires jupyter-core < 4.11.2, and JupyterLab 4 needs 5.
"""
import fnmatch
import grp
import os
import pwd
import shutil
import stat
import subprocess
import time
from pathlib import Path

from nbgrader.exchange.default import (
    ExchangeCollect,
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeReleaseAssignment,
    ExchangeSubmit,
)
from nbgrader.utils import parse_utc

# the modes of a course's folders (see the module's docstring)
COURSE_MODE, OUTBOUND_MODE, INBOUND_MODE, FEEDBACK_MODE = 0o750, 0o2775, 0o3753, 0o2771
READ_CHUNK = 1 << 20
MAX_ENTRIES, MAX_DEPTH = 10_000, 16  # files and folders one submission may hold, and how deep (the course's: 1 file)


def course_group(course_id):
    """The system group of a course's students (and of every instructor): who may enter the course's folder."""
    return f"class-{course_id}"


# ---------------------------------------------------------------- root's side: the layout and the groups

def ensure_group(name):
    """The gid of a system group, created if missing."""
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        subprocess.run(["groupadd", "--system", name], check=True)
        return grp.getgrnam(name).gr_gid


def _own(path, uid, gid, mode):
    """A real folder at ``path`` (a link or a file there is removed first), owned and moded as given."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    path.mkdir(exist_ok=True)
    os.chown(path, uid, gid, follow_symlinks=False)
    path.chmod(mode)


def prepare(exchange, course_ids, instructors_group):
    """Lay out the exchange as the module's docstring draws it (as root; again at every `make hub`: what an older
    layout or a student left there is put right). Returns what it found in the root that is not a course."""
    exchange = Path(exchange)
    instructors = ensure_group(instructors_group)
    _own(exchange, 0, 0, 0o755)
    for course_id in course_ids:
        top = exchange / course_id
        _own(top, 0, ensure_group(course_group(course_id)), COURSE_MODE)
        for name, mode in (("outbound", OUTBOUND_MODE), ("inbound", INBOUND_MODE), ("feedback", FEEDBACK_MODE)):
            _own(top / name, 0, instructors, mode)
    return sorted(p.name for p in exchange.iterdir() if p.name not in course_ids)


def join_groups(name, joined, left=()):
    """The user is in every group of ``joined`` and in none of ``left`` (before their server starts, which takes
    the groups the system has for them then)."""
    for group in joined:
        if name not in grp.getgrnam(group).gr_mem:
            _edit_groups(["usermod", "-a", "-G", group, name])
    for group in left:
        try:
            members = grp.getgrnam(group).gr_mem
        except KeyError:
            continue
        if name in members:
            _edit_groups(["gpasswd", "-d", name, group])


def _edit_groups(command, tries=20):
    """Run usermod or gpasswd, again while another holds /etc/group's lock (the hub starts servers at once)."""
    for _ in range(tries - 1):
        if subprocess.run(command, capture_output=True, check=False).returncode == 0:
            return
        time.sleep(0.25)
    subprocess.run(command, capture_output=True, check=True)


# ---------------------------------------------------------------- the exchange classes (ExchangeFactory)

class PreparedLayout:
    """nbgrader's exchange on root's layout: it exists (`make hub` made it); nothing here creates or re-modes it."""

    def ensure_root(self):
        if not os.path.isdir(self.root):
            self.fail(f"The class's exchange {self.root} is missing: `make hub` prepares it (hub/exchange.py).")

    def ensure_directory(self, path, mode):
        if not os.path.isdir(path):
            self.fail(f"{path} is missing or not yours to reach: `make hub` prepares every course's folders "
                      "(hub/exchange.py); is this course one of the class's editions?")


class PreparedReleaseAssignment(PreparedLayout, ExchangeReleaseAssignment):
    pass


class PreparedFetchAssignment(PreparedLayout, ExchangeFetchAssignment):
    pass


class PreparedSubmit(PreparedLayout, ExchangeSubmit):
    pass


class PreparedList(PreparedLayout, ExchangeList):
    pass


class PreparedFetchFeedback(PreparedLayout, ExchangeFetchFeedback):
    pass


def submissions(inbound, assignment, student="*"):
    """The inbound's submissions of ``assignment`` that their named student made: (accepted, refused).

    accepted: dicts of username, filename, timestamp (nbgrader's records); refused: (entry's name, why) for
    every entry of the assignment that is not a folder its named student owns, or whose name is not nbgrader's.
    Nothing is followed: a link is refused as a link.
    """
    accepted, refused = [], []
    with os.scandir(inbound) as entries:
        for entry in entries:
            parts = entry.name.rsplit("+", 3)
            if len(parts) < 3 or parts[1] != assignment or (student != "*" and parts[0] != student):
                continue
            try:
                timestamp = parse_utc(parts[2])
            except (ValueError, OverflowError, TypeError):
                refused.append((entry.name, f"its name's timestamp {parts[2]!r} is not one nbgrader writes"))
                continue
            why = _refusal(entry, parts[0])
            if why:
                refused.append((entry.name, why))
            else:
                accepted.append({"username": parts[0], "filename": entry.name, "timestamp": timestamp})
    return accepted, refused


def _refusal(entry, student):
    """Why an inbound entry is not ``student``'s own submission folder, or None."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError as error:
        return f"it could not be looked at ({error.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a link, not a folder"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    try:
        uid = pwd.getpwnam(student).pw_uid
    except KeyError:
        return f"{student!r} is no user of this machine"
    if info.st_uid != uid:
        return f"it was made by {_user(info.st_uid)}, not by {student}: a submission in someone else's name"
    return None


def _user(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class OwnedCollect(PreparedLayout, ExchangeCollect):
    """nbgrader's collect, taking each student's newest submission among those they made themselves, copied without
    following a link and with only their own files (a link, someone else's file, a device or a pipe is left out and
    named). One submission that cannot be read costs only that student, never the rest of the class."""

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.inbound_path = os.path.join(self.root, self.coursedir.course_id, "inbound")
        if not os.access(self.inbound_path, os.R_OK | os.X_OK):
            self.fail(f"You may not read {self.inbound_path}: are you one of the class's instructors?")
        student = self.coursedir.student_id or "*"
        accepted, refused = submissions(self.inbound_path, self.coursedir.assignment_id, student)
        for name, why in refused:
            self.log.warning("Not collected: %s (%s)", os.path.join(self.inbound_path, name), why)
        self.refused = refused
        by_student = {}  # each student's submissions, newest first
        for record in sorted(accepted, key=lambda r: r["timestamp"], reverse=True):
            by_student.setdefault(record["username"], []).append(record)
        due = self._duedate()
        self.src_records = []
        for records in by_student.values():
            in_time = [r for r in records if due is not None and self.before_duedate and r["timestamp"] <= due]
            self.src_records.append((in_time or records)[0])

    def _duedate(self):
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                return gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def copy_files(self):
        """nbgrader's rules (the newest, or the newest before the due date; --update), each submission copied beside
        its place and moved there once whole: one that cannot be copied keeps what was collected before."""
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect", self.coursedir.assignment_id,
                             self.coursedir.course_id)
        for record in self.src_records:
            student, src = record["username"], os.path.join(self.inbound_path, record["filename"])
            dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, self.coursedir.assignment_id)
            if os.path.isdir(dest) and not self._replaces(dest, record["timestamp"]):
                self.log.info("Already collected, not newer: %s %s", student, self.coursedir.assignment_id)
                continue
            partial = dest + ".collecting"
            shutil.rmtree(partial, ignore_errors=True)
            try:
                self._copy_owned_submission(src, partial, pwd.getpwnam(student).pw_uid)
            except (OSError, RecursionError) as error:
                shutil.rmtree(partial, ignore_errors=True)
                self.log.error("Not collected: %s (%s); %s", src, error,
                               "the submission collected before is kept" if os.path.isdir(dest) else "nothing is kept")
                continue
            if os.path.isdir(dest):
                shutil.rmtree(dest)
            os.rename(partial, dest)
            self.log.info("Collected: %s %s", student, self.coursedir.assignment_id)
        if self.refused:
            self.log.warning("%d inbound entr%s of %s not collected (above)", len(self.refused),
                             "y" if len(self.refused) == 1 else "ies", self.coursedir.assignment_id)

    def _replaces(self, dest, timestamp):
        existing = self.coursedir.get_existing_timestamp(dest)
        if self.update and (existing is None or timestamp > existing):
            return True
        return bool(self.before_duedate and existing != timestamp)

    def _copy_owned_submission(self, src, dest, owner):
        left_out = []
        limits = {"file": 1000 * self.coursedir.max_file_size, "total": 1000 * self.coursedir.max_dir_size,
                  "entries": MAX_ENTRIES}
        fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            if os.fstat(fd).st_uid != owner:  # replaced since it was listed
                raise PermissionError(f"{src} changed owner while being collected")
            os.makedirs(dest)
            _copy_owned(fd, Path(dest), owner, self.coursedir, limits, left_out, "")
        finally:
            os.close(fd)
        for name, why in left_out:
            self.log.warning("Left out of %s: %s (%s)", src, name, why)


def _copy_owned(dir_fd, dest, owner, coursedir, limits, left_out, prefix):
    """Copy the folder open at ``dir_fd`` into ``dest``: only the owner's folders and regular files, no link followed
    (each name opened relative to its folder with O_NOFOLLOW), within nbgrader's size limits."""
    if prefix.count("/") >= MAX_DEPTH:
        left_out.append((prefix, f"folders nested more than {MAX_DEPTH} deep"))
        return
    for entry in sorted(os.scandir(dir_fd), key=lambda e: e.name):
        name, shown = entry.name, prefix + entry.name
        limits["entries"] -= 1
        if limits["entries"] < 0:
            left_out.append((shown, f"past the {MAX_ENTRIES:,} files and folders a submission may hold"))
            return
        if any(fnmatch.fnmatch(name, pattern) for pattern in coursedir.ignore):
            continue
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            left_out.append((shown, "a link; links are never followed"))
        elif info.st_uid != owner:
            left_out.append((shown, f"made by {_user(info.st_uid)}, not by the submitting student"))
        elif stat.S_ISDIR(info.st_mode):
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            try:
                (dest / name).mkdir()
                _copy_owned(fd, dest / name, owner, coursedir, limits, left_out, shown + "/")
            finally:
                os.close(fd)
        elif not stat.S_ISREG(info.st_mode):
            left_out.append((shown, "not a regular file"))
        elif not any(fnmatch.fnmatch(name, pattern) for pattern in coursedir.include):
            continue
        elif info.st_size > limits["file"] or info.st_size > limits["total"]:
            left_out.append((shown, f"{info.st_size} bytes, over CourseDirectory.max_file_size or max_dir_size"))
        else:
            limits["total"] -= _copy_file(dir_fd, name, dest / name, owner, limits)


def _copy_file(dir_fd, name, target, owner, limits):
    """Copy one regular file, opened without following a link and checked again once open; its bytes."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != owner:
            raise PermissionError(f"{name} changed while being collected")
        cap, copied = min(limits["file"], limits["total"]), 0
        with os.fdopen(os.dup(fd), "rb") as source, open(target, "wb") as out:
            while chunk := source.read(READ_CHUNK):
                copied += len(chunk)
                if copied > cap:
                    raise PermissionError(f"{name} grew past the size limits while being collected")
                out.write(chunk)
        os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
        return copied
    finally:
        os.close(fd)


def factory_config(c):
    """Point nbgrader's ExchangeFactory at these classes (students' and instructors' configurations)."""
    here = __name__
    for step, cls in (("release_assignment", "PreparedReleaseAssignment"), ("fetch_assignment", "PreparedFetchAssignment"),
                      ("submit", "PreparedSubmit"), ("list", "PreparedList"), ("fetch_feedback", "PreparedFetchFeedback"),
                      ("collect", "OwnedCollect")):
        setattr(c.ExchangeFactory, step, f"{here}.{cls}")
