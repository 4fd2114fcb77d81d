"""Per-submission results on disk (OUT/state/<student>/<assignment>.json): what a job hands back, and what a rerun reuses."""
import hashlib
import json
import os
from pathlib import Path

from autograder.paths import ROOT


def state_path(out: Path, submission):
    return out / "state" / submission.student / f"{submission.assignment}.json"


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


def environment_fingerprint():
    """Python's version and every installed package with its version: a changed environment regrades.

    The packages are those installed where the interpreter installs them (its site-packages, the user's where
    Python reads it, PYTHONPATH), not whatever ``sys.path`` holds when this runs: importing nbgrader's plugins
    (``--roster``, zip_collect) puts setuptools' vendored packages on ``sys.path``, which made the same
    environment look changed, so a rerun with ``--roster`` added graded everything again (issue 36)."""
    import os
    import site
    import sys
    from importlib import metadata

    places = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        places.append(site.getusersitepackages())
    places += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    packages = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions(path=places)
                       if d.metadata["Name"]})
    return sys.version + "\n" + "\n".join(packages)


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


def read_timing(out: Path, student, assignment):
    """The ``timing`` saved with a submission's results (write_state), or None (no state, or an older one)."""
    try:
        data = json.loads((out / "state" / student / f"{assignment}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    timing = data.get("timing") if isinstance(data, dict) else None
    return timing if isinstance(timing, dict) else None
