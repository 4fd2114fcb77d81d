"""What an instructor hands out holds no reference, no hidden test and no solution."""
import ast
import json
import subprocess
import sys
import zipfile

import pytest

from autograder.course import ALL_UNITS
from autograder.levels import DEFAULT_LEVEL, LEVEL_KEY
from autograder.student_pack import build_pack, pack_folder
from tests.course_files import ASSIGNMENTS, LEVEL_ASSIGNMENTS, solution_lines, source_notebook

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks under solutions/ yet")


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    return build_pack(tmp_path_factory.mktemp("dist"))


def _files(pack):
    return [p for p in pack.rglob("*") if p.is_file()]


def test_pack_holds_the_release_notebooks_and_the_learner_kit(pack):
    for assignment in ASSIGNMENTS:
        assert (pack / "course" / assignment / f"{assignment}.ipynb").is_file()
    for lang, level, assignment in LEVEL_ASSIGNMENTS:  # both editions, both levels
        notebook = json.loads((pack / pack_folder(lang, level) / assignment / f"{assignment}.ipynb").read_text())
        metadata = notebook["metadata"]
        assert (metadata["course_language"], metadata.get(LEVEL_KEY, DEFAULT_LEVEL)) == (lang, level)  # absent: guided
    assert pack_folder("ko", "challenge") == "course-ko-challenge", "named as make lab names its workspace (workspace-ko-challenge)"
    assert (pack / "learner_kit" / "__init__.py").is_file()
    with zipfile.ZipFile(pack.parent / "student-pack.zip") as archive:
        assert "learner_kit/__init__.py" in archive.namelist()


def test_pack_holds_no_autograder_solutions_or_hidden_tests(pack):
    for path in _files(pack):
        rel = path.relative_to(pack)
        assert rel.parts[0] not in ("autograder", "solutions", "notebooks"), f"{rel} must not be handed out"
        text = path.read_text(errors="ignore")
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "import autograder", "from autograder"):
            assert marker not in text, f"{rel} contains {marker!r}"


def test_learner_kit_defines_no_graded_unit(pack):
    for path in (pack / "learner_kit").rglob("*.py"):
        tree = ast.parse(path.read_text())
        defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        assert not defined & set(ALL_UNITS), f"{path.name} defines graded units {defined & set(ALL_UNITS)}"


def test_pack_notebooks_hold_none_of_their_solution_lines(pack):
    for lang, level, assignment in LEVEL_ASSIGNMENTS:  # the guided blanks: what is secret at both levels
        text = (pack / pack_folder(lang, level) / assignment / f"{assignment}.ipynb").read_text()
        leaked = [line for line in solution_lines(source_notebook(assignment, lang)) if line in text]
        assert not leaked, f"{lang} {level} {assignment}: {leaked}"


def test_learner_kit_imports_without_the_autograder(pack):
    blocker = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'autograder': raise ImportError('autograder is not handed out')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import pkgutil, importlib, learner_kit\n"
        "for m in pkgutil.walk_packages(learner_kit.__path__, 'learner_kit.'): importlib.import_module(m.name)\n"
    )
    result = subprocess.run([sys.executable, "-c", blocker], cwd=pack, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
