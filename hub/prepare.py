"""What `make hub` does as root before JupyterHub starts: the hub's folder, nbgrader's exchange, the instructors.

    python hub/prepare.py --dir /srv/transformer-hub --class /srv/transformer-hub/class.json

- The hub's folder (its database and cookie secret: root's only) and nbgrader's exchange in it,
  writable by everyone as nbgrader requires (each course's inbound lets a student drop a submission
  but list nothing; its feedback lets a student read only the page whose name their own submission's
  secret gives).
- The class file, copied from hub/class.example.json the first time.
- The instructors' group, and the course's instructor-only folders closed to everyone else: the
  students' servers run from this repository's .venv and learner_kit/, so everything else that holds an
  answer (solutions/ of each edition and level, notebooks/, autograder/ with the reference and the
  hidden tests, tests/, the git history...) becomes its owner's and the group's only (mode 0750 on the
  folder; the files inside keep their modes). Nothing else of the repository changes.
"""
import argparse
import grp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent
REPO = HUB.parent
# What the students' servers read: the venv, the learner's package and lab, the hub's configs, the releases.
LEARNERS_READ = {".venv", "learner_kit", "lab-config", "hub", "course", "ko", "challenge", "transformer_course.egg-info"}
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
    hub_dir.chmod(0o711)
    exchange = hub_dir / "exchange"
    exchange.mkdir(exist_ok=True)
    exchange.chmod(0o777)
    if not args.class_file.is_file():
        args.class_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HUB / "class.example.json", args.class_file)
        print(f"hub: the class is {args.class_file} (a copy of hub/class.example.json): edit it, with the machine's user names")
    json.loads(args.class_file.read_text(encoding="utf-8"))  # a broken file fails here, not in the hub
    try:
        gid = grp.getgrnam(args.group).gr_gid
    except KeyError:
        subprocess.run(["groupadd", "--system", args.group], check=True)
        gid = grp.getgrnam(args.group).gr_gid
    closed = []
    for path in instructor_only():
        os.chown(path, -1, gid)  # the owner keeps the folder
        path.chmod(0o750)
        closed.append(str(path.relative_to(REPO)))
    print(f"hub: {hub_dir} (exchange {exchange}); readable by root and the group {args.group} only: {', '.join(closed)}")


if __name__ == "__main__":
    main()
