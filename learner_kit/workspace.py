"""Copy the release notebooks into the learner's workspace without ever overwriting their work.

    python -m learner_kit.workspace course workspace

The first run copies everything; later runs add only files that are new in the release
(a notebook published since, a data file) and leave every existing file as it is.
"""
import shutil
import sys
from pathlib import Path


def sync_workspace(release: Path, workspace: Path) -> list[Path]:
    """Copy each file of ``release`` that ``workspace`` lacks; return the files copied."""
    copied = []
    for source in sorted(release.rglob("*")):
        if not source.is_file() or ".ipynb_checkpoints" in source.parts:
            continue
        target = workspace / source.relative_to(release)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        copied.append(target)
    return copied


def main(argv=None):
    release, workspace = (Path(a) for a in (argv or sys.argv[1:]))
    if not release.is_dir():
        sys.exit(f"{release}/ not found: run this from the course repository.")
    copied = sync_workspace(release, workspace)
    if copied:
        print(f"Copied {len(copied)} new file(s) from {release}/ into {workspace}/ (your existing files are untouched).")
    else:
        print(f"{workspace}/ is up to date; your work is untouched.")


if __name__ == "__main__":
    main()
