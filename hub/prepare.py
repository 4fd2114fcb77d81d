"""What `make hub` does as root before JupyterHub starts: the hub's folder, nbgrader's exchange, the instructors.

    python hub/prepare.py --dir /srv/transformer-hub --class /srv/transformer-hub/class.json

- The hub's folder: everything in it root's only (JupyterHub's database and cookie secret, the live
  view's events), but nbgrader's exchange, laid out by root (hub/exchange.py): each edition's course
  entered only by its students and the instructors, released by instructors only, its inbound taking
  a student's submission but listing nothing, its feedback opening only the page whose name the
  student's own submission's secret gives; no student may create, rename or replace a course.
- The class file, copied from hub/class.example.json the first time; root's only.
- The instructors' group, and the course's instructor-only folders closed to everyone else: the
  students' servers run from this repository's .venv and learner_kit/, so everything else that holds an
  answer (solutions/ of each edition and level, notebooks/, autograder/ with the reference and the
  hidden tests, tests/, the git history...) becomes its owner's and the group's only (mode 0750 on the
  folder; the files inside keep their modes). Nothing else of the repository changes.
"""
import argparse
import json
import os
import shutil
import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent
REPO = HUB.parent
sys.path.insert(0, str(HUB))
import course  # noqa: E402
from exchange import ensure_group, prepare as prepare_exchange  # noqa: E402
# What the students' servers read: the venv, the learner's package and lab, the hub's configs, the releases.
LEARNERS_READ = {".venv", "learner_kit", "lab-config", "hub", "course", "ko", "challenge", "transformer_course.egg-info"}
# The hub's state that its programs create in its folder: made root's only before they start (the proxy's pid file,
# which JupyterHub writes anew at each start, lies in run/, a folder of root's only: hub/jupyterhub_config.py).
STATE_FILES = ["jupyterhub.sqlite", "class-live.sqlite"]
STATE_FOLDERS = ["run"]
# What every user reaches in the hub's folder: nbgrader's exchange, and the live view's sockets (hub/live/sockets.py:
# a folder only root may write; learners' kernels post to the socket in it).
SHARED = ["exchange", "class-live"]
# Folders inside those that hold answers.
INSIDE = ["ko/solutions", "challenge/solutions", "challenge/ko/solutions"]


def instructor_only():
    """The repository's folders that students must not read, as paths."""
    top = [p for p in REPO.iterdir() if p.is_dir() and not p.is_symlink() and p.name not in LEARNERS_READ]
    return sorted(top) + [REPO / p for p in INSIDE if (REPO / p).is_dir()]


def closed_on_the_way(venv_python):
    """Folders that every user must enter to run a server (the hub's Python, the course's learner_kit and lab
    configuration) but that others may not enter (mode without o+x): e.g. a clone under /root."""
    needed = [Path(venv_python), REPO / "learner_kit", REPO / "lab-config", HUB / "student"]
    closed = set()
    for path in needed:
        for folder in [*reversed(path.parents)] + ([path] if path.is_dir() else []):
            if folder.is_dir() and not folder.stat().st_mode & 0o001:
                closed.add(folder)
    return sorted(closed)


def hub_state_private(hub_dir):
    """Everything in the hub's folder but SHARED (JupyterHub's database and cookie secret, the live view's events,
    the proxy's pid) readable by root only; the databases made before their programs start, so that SQLite creates
    them, and its journals, with that mode. Returns the names."""
    for name in STATE_FILES:
        path = hub_dir / name
        if not path.exists():
            path.touch(mode=0o600)
    for name in STATE_FOLDERS:
        (hub_dir / name).mkdir(mode=0o700, exist_ok=True)
    private = []
    for path in sorted(hub_dir.iterdir()):
        if path.name not in SHARED and not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o700)
            private.append(path.name)
    return private


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="the hub's folder")
    parser.add_argument("--class", dest="class_file", type=Path, required=True, help="the class (hub/class.example.json)")
    parser.add_argument("--group", default="transformer-instructors", help="the instructors' system group")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("make hub: run it as root (sudo make hub). JupyterHub logs in the machine's users with PAM and starts "
                 "each user's server as that user, and the course's answers are closed to students here.")
    closed = closed_on_the_way(sys.executable)
    if closed:
        sys.exit("make hub: the users' servers could not start: they run " + sys.executable + " and this repository's "
                 "learner_kit/ and lab-config/, but other users may not enter " + ", ".join(map(str, closed)) +
                 ". Put the course where every user can enter (e.g. under /srv or /opt), or let them enter (chmod o+x).")
    hub_dir = args.dir.resolve()
    hub_dir.mkdir(parents=True, exist_ok=True)
    hub_dir.chmod(0o711)  # every user passes through to the exchange; nothing else in it is theirs to read
    exchange = hub_dir / "exchange"
    strangers = prepare_exchange(exchange, [course.course_id(e) for e in course.EDITIONS], args.group)
    if strangers:
        print(f"hub: {exchange} holds folders that are no course of the class (left as they are): {', '.join(strangers)}")
    private = hub_state_private(hub_dir)
    if not args.class_file.is_file():
        args.class_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HUB / "class.example.json", args.class_file)
        print(f"hub: the class is {args.class_file} (a copy of hub/class.example.json): edit it, with the machine's user names")
    json.loads(args.class_file.read_text(encoding="utf-8"))  # a broken file fails here, not in the hub
    args.class_file.chmod(args.class_file.stat().st_mode & 0o700)  # who is in the class is the hub's to know
    gid = ensure_group(args.group)  # made by prepare_exchange already
    closed = []
    for path in instructor_only():
        os.chown(path, -1, gid)  # the owner keeps the folder
        path.chmod(0o750)
        closed.append(str(path.relative_to(REPO)))
    print(f"hub: {hub_dir} (exchange {exchange}); root's only: {', '.join(private)}; readable by root and the group "
          f"{args.group} only: {', '.join(closed)}")


if __name__ == "__main__":
    main()
