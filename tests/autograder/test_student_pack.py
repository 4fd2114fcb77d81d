"""What an instructor hands out holds no reference, no hidden test and no solution."""
import ast
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.request
import zipfile

import pytest

from autograder.course import ALL_UNITS
from autograder.levels import DEFAULT_LEVEL, LEVEL_KEY
from autograder.student_pack import build_pack, pack_folder
from tests.course_files import ASSIGNMENTS, LEVEL_ASSIGNMENTS, solution_lines, source_notebook
from tests.serving import first_answer, free_port

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
        assert rel.parts[0] not in ("autograder", "sandbox_servers", "solutions", "notebooks"), f"{rel} must not be handed out"
        assert path.name not in ("unit_server.py", "kernel_server.py", "probes.py"), f"{rel}: the grader's sandbox side"
        text = path.read_text(errors="ignore")
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "import autograder", "from autograder",
                       "import sandbox_servers", "from sandbox_servers"):
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


def test_the_pack_installs_with_plain_pip_and_opens_with_jupyterlab_without_make(pack, tmp_path):
    """The pack's README's two commands, as written, in a venv of their own, with no `make` on PATH: pip installs
    the pack, and the second opens its course/ in a lab that answers."""
    from tests.learner_kit.test_learner_paths import base_python, linked_venv

    with zipfile.ZipFile(pack.parent / "student-pack.zip") as archive:  # what the learner unpacks
        archive.extractall(tmp_path / "pack")
    folder = tmp_path / "pack"
    readme = (folder / "README.md").read_text()
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    python -m ")]
    install, lab = commands[0], commands[1]
    assert install == "python -m pip install -r requirements.txt -e ."
    assert lab == "python -m jupyterlab course"
    assert readme.index(install) < readme.index(lab) < readme.index("## Two levels"), "the two commands come first"
    assert re.search(r"type `py`\s+for `python`", readme) and "--extra-index-url https://download.pytorch.org/whl/cpu" in readme

    venv = linked_venv(tmp_path / "venv")  # sees this test's packages: pip finds requirements.txt met
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(venv / "bin" / "python")  # `python` as an activated venv gives it
    (bin_dir / "python3").symlink_to(base_python())
    assert shutil.which("make", path=str(bin_dir)) is None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV", "PYTHONPATH"))}
    env.update(PATH=str(bin_dir), HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"))
    result = subprocess.run(shlex.split(install), cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    where = subprocess.run(["python", "-c", "import learner_kit; print(learner_kit.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert where.stdout.strip() == str(folder / "learner_kit" / "__init__.py"), where.stderr

    port, token = free_port(), "student-pack-test"
    extra = ["--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={token}",
             *(["--allow-root"] if os.geteuid() == 0 else [])]
    log = tmp_path / "lab.log"
    server = subprocess.Popen([*shlex.split(lab), *extra], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                              stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        landing = first_answer(f"http://127.0.0.1:{port}/?token={token}", server, 180, log.read_text,
                               "the pack's lab", interval=1)
        assert landing.endswith(f"/lab?token={token}"), landing
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=30) as response:
            served = {entry["name"] for entry in json.loads(response.read())["content"]}
        assert set(ASSIGNMENTS) <= served, f"the lab opens on course/: {served}"
        notebook = f"{ASSIGNMENTS[0]}/{ASSIGNMENTS[0]}.ipynb"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/{notebook}?token={token}", timeout=30) as r:
            assert json.loads(r.read())["type"] == "notebook"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
