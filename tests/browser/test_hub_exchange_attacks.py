"""A class on one shared hub, where a student attacks the exchange and the hub's folder, an honest student beside him.

`make hub` on free ports (tests/browser/hub_fixtures.py: the system users are made and removed here) lays out
the hub's folder and nbgrader's exchange (hub/prepare.py, hub/exchange.py). The people act as their servers
on the hub would: nbgrader's commands run as their system user, in the groups and with the environment that the
hub's pre_spawn_hook gives their server (hub/jupyterhub_config.py); the attacker uses Python's standard library
alone. Each attack was tried on the exchange as nbgrader lays it out (a world-writable root, collect trusting
names and following links) and succeeded there:

- a submission made in a classmate's name is collected as hers, and hers is not graded;
- a link in a submission to the solutions (which the student cannot read) is collected as his notebook, and
  one to the instructor's home stops collect for the students after him;
- the course is renamed aside and replaced, so that classmates fetch the attacker's notebook;
- an entry whose name nbgrader cannot read stops collect for the whole class;
- the other editions' courses, the hub's databases and the class file can be read.

The honest student, alice, submits the right answer and keeps full marks through all of it.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from tests.browser.answers import ASSIGNMENT, RIGHT, UNIT
from tests.browser.jupyter_servers import ROOT

sys.path.insert(0, str(ROOT / "hub"))
import course  # noqa: E402
import exchange  # noqa: E402

TEACHER = "hubxteacher"
STUDENTS = {"hubxalice": "en", "hubxmallory": "en", "hubxsora": "ko"}
PREFIX = "hubx"
TIMES = {}
GROUP = "transformer-instructors"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
MARKER = "# hubxalice-own-answer"
MALLORY_MARKER = "# hubxmallory-wrote-this"
HUB_BIN = ROOT / ".venv" / "hub-python" / "bin"
TEACHER_ENV = {}  # what the hub gives the instructor's server for nbgrader (the exchange), set by ``released``


def home(name):
    return Path(pwd.getpwnam(name).pw_dir)


def as_user(name, argv, cwd=None, env=None, check=True):
    """Run ``argv`` as the system user ``name`` (their groups, their home), as their server on the hub would."""
    environment = {"PATH": f"{HUB_BIN}:/usr/bin:/bin", "HOME": str(home(name)), "LANG": "C.UTF-8", **(env or {})}
    account = pwd.getpwnam(name)  # groups as the system has them now, as a server started now gets them
    result = subprocess.run(list(map(str, argv)), cwd=cwd or home(name), env=environment, user=account.pw_uid,
                            group=account.pw_gid, extra_groups=os.getgrouplist(name, account.pw_gid),
                            capture_output=True, text=True, timeout=300, check=False)
    if check:
        assert result.returncode == 0, f"{name}: {argv} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def student_env(hub, name):
    """What hub/jupyterhub_config.py gives a student's server for nbgrader: its course and the exchange."""
    return {"JUPYTER_CONFIG_PATH": f"{ROOT / 'hub' / 'student'}:{ROOT / 'lab-config'}",
            "TRANSFORMER_HUB_COURSE": course.course_id(STUDENTS[name]),
            "TRANSFORMER_HUB_EXCHANGE": str(hub.exchange)}


def attack(name, code, check=True):
    """The attacker's Python (standard library alone), as ``name``; its output."""
    return as_user(name, [HUB_BIN / "python", "-c", textwrap.dedent(code)], check=check).stdout


@pytest.fixture(scope="module")
def released(hub, accounts):
    """The instructor released 01-attention in the English and Korean courses; the students are in their groups,
    as the hub's pre_spawn_hook puts them before their servers start."""
    all_courses = [exchange.course_group(course.course_id(e)) for e in course.EDITIONS]
    exchange.join_groups(TEACHER, [GROUP, *all_courses])
    for name, edition in STUDENTS.items():
        mine = exchange.course_group(course.course_id(edition))
        exchange.join_groups(name, [mine], left=[g for g in all_courses if g != mine])
    TEACHER_ENV["TRANSFORMER_HUB_EXCHANGE"] = str(hub.exchange)
    top = course.instructor_folders(home(TEACHER), pwd.getpwnam(TEACHER))
    for folder in (top, top / "ko"):
        as_user(TEACHER, ["nbgrader", "release_assignment", ASSIGNMENT], cwd=folder, env=TEACHER_ENV)
    for name in STUDENTS:
        as_user(name, ["nbgrader", "fetch_assignment", ASSIGNMENT], env=student_env(hub, name))
    return top


def submit(hub, name, source):
    """The student puts ``source`` in the answer cell of their fetched notebook and submits it with nbgrader."""
    path = home(name) / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == UNIT]
    assert len(cells) == 1
    cells[0].source = source
    nbformat.write(nb, path)  # as root, in place: the file stays the student's
    as_user(name, ["nbgrader", "submit", ASSIGNMENT], env=student_env(hub, name))


def inbound(hub, course_id="transformer"):
    return hub.exchange / course_id / "inbound"


def entry_of(hub, name, course_id="transformer"):
    found = sorted(p.name for p in inbound(hub, course_id).iterdir() if p.name.startswith(f"{name}+{ASSIGNMENT}+"))
    assert found, f"{name} has no submission in {course_id}'s inbound"
    return inbound(hub, course_id) / found[-1]


def collect(top, course_folder="."):
    return as_user(TEACHER, ["nbgrader", "collect", "--update", ASSIGNMENT], cwd=top / course_folder, env=TEACHER_ENV,
                   check=False)


def collected(top, name):
    path = top / "submitted" / name / ASSIGNMENT / NOTEBOOK
    return path.read_text(encoding="utf-8") if path.is_file() else None


# ---------------------------------------------------------------- the attacks, in the order a class meets them

def test_the_course_cannot_be_replaced(hub, released):
    """mallory renames the course aside and puts his own in its place: refused; the course stays root's."""
    told = attack("hubxmallory", f"""
        import os
        exchange, release = {str(hub.exchange)!r}, "transformer/outbound/{ASSIGNMENT}"
        steps = [("rename the course", ("transformer", "old")), ("make a course", ("transformer-evil", None)),
                 ("write into outbound", ("transformer/outbound/02-evil", None)), ("replace the release", (release, "x"))]
        for step, (path, aside) in steps:
            path, aside = os.path.join(exchange, path), aside and os.path.join(os.path.dirname(os.path.join(exchange, path)), aside)
            try:
                os.rename(path, aside) if aside else os.mkdir(path)
            except OSError as error:
                print("refused", step, type(error).__name__)
                continue
            print("DONE", step)
            os.rename(aside, path) if aside else os.rmdir(path)  # put back: the next attacks are tried on their own
        """)
    assert "DONE" not in told, told
    assert told.count("refused") == 4, told
    course_folder = (hub.exchange / "transformer").stat()
    assert course_folder.st_uid == 0 and not course_folder.st_mode & 0o002
    assert (hub.exchange / "transformer" / "outbound" / ASSIGNMENT / NOTEBOOK).is_file()


def test_another_editions_course_is_closed(hub, released):
    """mallory (English) cannot enter the Korean course; sora, its student, fetched her notebook from it."""
    told = attack("hubxmallory", f"""
        import os
        for path in ["transformer-ko", "transformer-ko/outbound", "transformer-ko/outbound/{ASSIGNMENT}"]:
            try:
                print("LISTED", path, os.listdir(os.path.join({str(hub.exchange)!r}, path)))
            except PermissionError:
                print("refused", path)
        """)
    assert "LISTED" not in told, told
    fetched = nbformat.read(home("hubxsora") / ASSIGNMENT / NOTEBOOK, as_version=4)
    korean = nbformat.read(ROOT / "ko" / "course" / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert [c.source for c in fetched.cells] == [c.source for c in korean.cells], "sora did not fetch the Korean release"


def test_a_submission_in_a_classmates_name_is_not_collected(hub, released):
    """mallory drops his notebook into the inbound under alice's name, newer than hers: alice's own is collected."""
    submit(hub, "hubxalice", f"{MARKER}\n{RIGHT}")
    submit(hub, "hubxmallory", f"{MALLORY_MARKER}\n{RIGHT}")
    forged = attack("hubxmallory", f"""
        import os, shutil
        mine = [e for e in os.listdir({str(home('hubxmallory') / ASSIGNMENT)!r}) if e == "{NOTEBOOK}"]
        target = os.path.join({str(inbound(hub))!r}, "hubxalice+{ASSIGNMENT}+2099-01-01 00:00:00.000000 UTC+forged")
        os.mkdir(target)
        shutil.copy(os.path.join({str(home('hubxmallory') / ASSIGNMENT)!r}, mine[0]), target)
        open(os.path.join(target, "timestamp.txt"), "w").write("2099-01-01 00:00:00.000000 UTC")
        print("planted", target)
        """)
    assert "planted" in forged
    result = collect(released)
    assert result.returncode == 0, result.stderr[-3000:]
    assert MARKER in collected(released, "hubxalice"), "alice's own submission was not the one collected"
    assert MALLORY_MARKER not in collected(released, "hubxalice")
    assert MALLORY_MARKER in collected(released, "hubxmallory")
    assert "made by hubxmallory, not by hubxalice" in result.stdout + result.stderr


def test_links_in_a_submission_are_never_followed(hub, released):
    """mallory replaces his submitted notebook with a link to the solutions, and adds a link to the instructor's home:
    neither is followed; alice, collected after him, is collected."""
    entry = entry_of(hub, "hubxmallory")
    attack("hubxmallory", f"""
        import os
        entry = {str(entry)!r}
        os.remove(os.path.join(entry, "{NOTEBOOK}"))
        os.symlink({str(ROOT / 'solutions' / ASSIGNMENT / NOTEBOOK)!r}, os.path.join(entry, "{NOTEBOOK}"))
        os.symlink({str(home(TEACHER))!r}, os.path.join(entry, "teacher-home"))
        """)
    shutil.rmtree(released / "submitted" / "hubxmallory")  # collected again from scratch
    result = collect(released)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    mallory = released / "submitted" / "hubxmallory" / ASSIGNMENT
    assert not (mallory / NOTEBOOK).exists(), "the link to the solutions was collected as mallory's notebook"
    assert not (mallory / "teacher-home").exists()
    assert "a link; links are never followed" in out
    assert MARKER in collected(released, "hubxalice")


def test_an_unreadable_entry_name_does_not_stop_collect(hub, released):
    attack("hubxmallory", f"""
        import os
        os.mkdir(os.path.join({str(inbound(hub))!r}, "hubxmallory+{ASSIGNMENT}+not-a-time+x"))
        """)
    shutil.rmtree(released / "submitted" / "hubxalice")
    result = collect(released)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert MARKER in collected(released, "hubxalice")
    assert "is not one nbgrader writes" in out


def test_the_honest_student_keeps_full_marks(hub, released, tmp_path):
    out = tmp_path / "graded"
    subprocess.run([sys.executable, "-m", "autograder", "grade", released / "submitted", "--out", out, "--jobs", "1"],
                   cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    records = json.loads((out / "results.json").read_text(encoding="utf-8"))
    alice = [r for r in records if r["student"] == "hubxalice"]
    assert alice and sum(r["points"] for r in alice) == sum(r["max_points"] for r in alice) > 0
    assert not any(r["student"] == "hubxmallory" and r["points"] > 0 for r in records), "the solutions earned marks"


def test_nothing_of_the_class_is_readable_by_a_student(hub, released):
    """As mallory, every file of the hub's folder and of the exchange is tried: he reads only his own course's
    release and his own submissions; never the hub's databases, the class file or a classmate's work."""
    assert (hub.folder / "state" / "jupyterhub.sqlite").is_file(), "the hub made no database: nothing was tried"
    told = attack("hubxmallory", f"""
        import os
        for top in [{str(hub.folder)!r}, {str(hub.folder / 'state')!r}, {str(hub.folder / 'state' / 'exchange')!r}]:
            for folder, dirs, files in os.walk(top):
                for name in files:
                    try:
                        open(os.path.join(folder, name), "rb").read(1)
                        print("READ", os.path.join(folder, name))
                    except OSError:
                        pass
        for name in {sorted(p.name for p in (hub.folder / 'state').iterdir())!r} + ["class.json"]:
            for top in [{str(hub.folder / 'state')!r}, {str(hub.folder)!r}]:
                try:
                    open(os.path.join(top, name), "rb").read(1)
                    print("READ", os.path.join(top, name))
                except OSError:
                    pass
        """)
    read = sorted({line.split(" ", 1)[1] for line in told.splitlines() if line.startswith("READ ")})
    own_release = str(hub.exchange / "transformer" / "outbound" / ASSIGNMENT) + "/"
    allowed = [path for path in read if path.startswith(own_release)]
    assert allowed, "mallory cannot read his own course's release: the test tried nothing"
    assert [path for path in read if path not in allowed] == [], "a student reads files of the class that are not his"
