"""Per-submission results on disk (OUT/state/<student>/<assignment>.json): what a job hands back, and what a rerun reuses."""
import hashlib
import json
import os
import re
from pathlib import Path

from autograder.grading.outputs.report import state_file
from autograder.paths import ROOT


def state_path(out: Path, submission):
    return state_file(out, submission.student, submission.assignment)


def _hash_files(digest, paths, base):
    for path in sorted(paths):
        digest.update(str(path.relative_to(base)).encode() + b"\0")
        with open(path, "rb") as handle:  # in pieces: a submitted file's size does not set the grader's memory
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        digest.update(b"\0")


def input_key(submission, source_notebooks, settings, grader):
    """A hash of everything a submission's grade depends on: its files, the sources, the grader (``grader``:
    grader_digest(), computed once per run) and its settings."""
    digest = hashlib.sha256(json.dumps(settings.to_json(), sort_keys=True).encode())
    _hash_files(digest, [p for p in submission.folder.rglob("*") if p.is_file()], submission.folder)
    _hash_files(digest, [nb.path for nb in source_notebooks], Path(settings.source_dir))
    digest.update(grader.encode())
    return digest.hexdigest()


def grader_digest():
    digest = hashlib.sha256()
    _hash_files(digest, grader_files(), ROOT)
    digest.update(environment_fingerprint().encode())
    return digest.hexdigest()


REQUIREMENTS = ROOT / "requirements.txt"  # the course's pinned packages: what grading imports comes from these


def environment_fingerprint():
    """Python's version and the version of each package that grading may import: a changed one regrades.

    Those packages are the pinned ones of requirements.txt (PyTorch, NumPy, nbgrader, nbformat, nbconvert,
    nbclient, ipykernel, Dask...) and, as installed, everything they require (jupyter_client, traitlets, Jinja2,
    sympy...; optional extras left out): the grader, the kernels and the sandbox import nothing else, and a
    learner's notebook finds nothing else to import that the course gives it. Any other package installed beside
    them (dask-jobqueue for a Slurm cluster, a profiler) changes no grade, and no longer throws the earlier
    results away (issue 52: it regraded all 23 of 23).

    Each package is found as Python imports it: the first of PYTHONPATH, the user's site-packages where Python
    reads it, and the interpreter's; not whatever ``sys.path`` holds when this runs (importing nbgrader's plugins
    puts setuptools' vendored packages there, which made the same environment look changed: issue 36)."""
    import sys

    installed = _installed_distributions()
    lines, seen = [], set()
    todo = [(name, extras) for name, extras, _ in _requirements(REQUIREMENTS.read_text(encoding="utf-8").splitlines())]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        dist = installed.get(name)
        if dist is None:
            lines.append(f"{name} absent")  # pinned but not installed (a dependency not installed is not listed)
            continue
        lines.append(f"{name}=={dist.version}")
        todo += [(required, more) for required, more, wanted in _requirements(dist.requires or (), extras)
                 if wanted and required in installed]
    return sys.version + "\n" + "\n".join(sorted(set(lines)))


def _normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(lines, extras=()):
    """(normalized name, the extras it asks for, whether it is wanted here) of each requirement line
    (requirements.txt's, or a package's Requires-Dist, of which those of ``extras`` and of no extra are wanted)."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # nbconvert, jupyterlab... require it; without it, every requirement counts
        Requirement = None
    for line in lines:
        line = line.split("#", 1)[0].strip()
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
        if not match or line.startswith("-"):
            continue
        asks, wanted = (), True
        if Requirement is not None:
            try:
                requirement = Requirement(line)
                asks = tuple(sorted(_normalized(extra) for extra in requirement.extras))
                wanted = requirement.marker is None or any(requirement.marker.evaluate({"extra": extra})
                                                           for extra in ("", *extras))
            except (InvalidRequirement, ValueError, KeyError):
                pass
        yield _normalized(match.group()), asks, wanted


def _installed_distributions():
    """{normalized name: Distribution}, the first found where Python imports from (PYTHONPATH, the user's
    site-packages, the interpreter's)."""
    import site
    from importlib import metadata

    places = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if site.ENABLE_USER_SITE:
        places.append(site.getusersitepackages())
    places += list(site.getsitepackages())
    found = {}
    for place in places:
        for dist in metadata.distributions(path=[place]):
            name = dist.metadata["Name"]
            if name:
                found.setdefault(_normalized(name), dist)
    return found


def grader_files():
    """The code a grade depends on: the grader, the checks, the reference, the learner helpers, the config."""
    folders = [ROOT / "autograder" / "grading", ROOT / "autograder" / "checks", ROOT / "learner_kit", ROOT / "sandbox_servers"]
    files = [p for folder in folders for p in folder.rglob("*.py") if p.stem not in ("bench", "demo")]
    return files + [p for p in (ROOT / "autograder" / "reference.py", ROOT / "nbgrader_config.py") if p.is_file()]


def autograded_path(out: Path, student, assignment, notebook):
    """OUT/autograded/<student>/<assignment>/<notebook>.ipynb: the graded notebook that formgrader shows."""
    return out / "autograded" / student / assignment / f"{notebook}.ipynb"


def write_state(out: Path, submission, key, records, autograded=None, timing=None):
    """Save ``records``; ``autograded``: {notebook: nbgrader's comments on its answer cells ({grade_id: text})} of the
    notebooks written under OUT/autograded/ for this submission; ``timing``:
    the run that graded it and its times ({"run", "worker", "started", "ended", "log"}), for the class report."""
    path = state_path(out, submission)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    data = {"key": key, "records": records, "autograded": autograded or {}, **({"timing": timing} if timing else {})}
    partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(partial, path)  # a run killed half-way leaves no half-written state


def read_state(out: Path, submission, key):
    """The records saved for ``submission`` under ``key``, or None (also where one of its autograded notebooks is gone)."""
    try:
        data = json.loads(state_path(out, submission).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    if not all(autograded_path(out, submission.student, submission.assignment, nb).is_file() for nb in data.get("autograded", ())):
        return None
    return data["records"]


def read_comments(out: Path, submission):
    """{notebook: {grade_id: comment}} saved with a submission's results (write_state); {} where none were."""
    try:
        data = json.loads(state_path(out, submission).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    autograded = data.get("autograded") if isinstance(data, dict) else None
    return autograded if isinstance(autograded, dict) else {}
