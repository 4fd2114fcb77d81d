"""Where the course's files live in the repository."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
COURSE = ROOT / "course"
NOTEBOOK_SOURCES = ROOT / "notebooks"


def assignment_ids():
    """The assignment ids, in course order: the folders of solutions/ named like 01-attention."""
    return sorted(p.name for p in SOLUTIONS.glob("[0-9][0-9]-*") if p.is_dir())


def put_python_scripts_on_path():
    """Let nbgrader find the console scripts of this Python (it runs `alembic` by name)."""
    import os
    import sys

    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
