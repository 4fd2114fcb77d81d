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
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")


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
    """Python's version and every installed package with its version: a changed environment regrades."""
    import sys
    from importlib import metadata

    packages = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    return sys.version + "\n" + "\n".join(packages)


def grader_files():
    """The code a grade depends on: the grader, the checks, the reference, the learner helpers, the config."""
    folders = [ROOT / "autograder" / "grading", ROOT / "autograder" / "checks", ROOT / "learner_kit"]
    files = [p for folder in folders for p in folder.rglob("*.py") if p.stem not in ("bench", "demo")]
    return files + [p for p in (ROOT / "autograder" / "reference.py", ROOT / "nbgrader_config.py") if p.is_file()]


def write_state(out: Path, submission, key, records):
    path = state_path(out, submission)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps({"key": key, "records": records}, indent=1), encoding="utf-8")
    os.replace(partial, path)  # a run killed half-way leaves no half-written state


def read_state(out: Path, submission, key):
    """The records saved for ``submission`` under ``key``, or None."""
    try:
        data = json.loads(state_path(out, submission).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data["records"] if isinstance(data, dict) and data.get("key") == key else None
