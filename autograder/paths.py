"""Where the course's files live in the repository."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
COURSE = ROOT / "course"
NOTEBOOK_SOURCES = ROOT / "notebooks"
# Each edition (language) of the course: English at the root, the others in a folder of the same layout
# (<lang>/solutions, <lang>/course, <lang>/nbgrader_config.py) with their sources in notebooks/<lang>/.
EDITIONS = ("en", "ko")
# Each level (autograder/levels.py): guided at the root, challenge in challenge/ with the same layout
# (challenge/solutions, challenge/course, challenge/ko/...), built from the same sources.
LEVEL_FOLDER = {"guided": None, "challenge": "challenge"}


def edition_root(lang="en", level="guided"):
    """The course directory of an edition and level: the repository root for English guided, ko/ for Korean,
    challenge/ and challenge/ko/ for the challenge level."""
    if lang not in EDITIONS:
        raise ValueError(f"unknown edition {lang!r}: one of {', '.join(EDITIONS)}")
    if level not in LEVEL_FOLDER:
        raise ValueError(f"unknown level {level!r}: one of {', '.join(LEVEL_FOLDER)}")
    base = ROOT / LEVEL_FOLDER[level] if LEVEL_FOLDER[level] else ROOT
    return base if lang == "en" else base / lang


def sources_dir(lang="en"):
    return NOTEBOOK_SOURCES if lang == "en" else NOTEBOOK_SOURCES / lang


def solutions_dir(lang="en", level="guided"):
    return edition_root(lang, level) / "solutions"


def course_dir(lang="en", level="guided"):
    return edition_root(lang, level) / "course"


def assignment_ids(lang="en", level="guided"):
    """The assignment ids, in course order: the folders of solutions/ named like 01-attention."""
    return sorted(p.name for p in solutions_dir(lang, level).glob("[0-9][0-9]-*") if p.is_dir())


def put_python_scripts_on_path():
    """Let nbgrader find the console scripts of this Python (it runs `alembic` by name)."""
    import os
    import sys

    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
