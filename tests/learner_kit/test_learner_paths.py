"""The learner's ways in (issue 39): `make lab`/`make venv` and `python start.py` (the same code), on Linux with
PyTorch's CPU build unless TORCH_BUILD=cuda; start.py without make from a fresh clone; and Colab.

Exercised here on Linux only. Windows (`py start.py`) and macOS are checked through start.py's plan for them
(--dry-run --platform), not run; Colab is simulated (a fresh venv with only what Colab has that matters, a
fake `google.colab` module), not visited.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import start  # noqa: E402  (the top-level script: stdlib only)

from tests.course_files import ASSIGNMENTS  # noqa: E402
from tests.serving import first_answer, free_port  # noqa: E402

TORCH = start.pinned_torch()
SITE_PACKAGES = Path(next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()))


def plan(*args, venv):
    """start.py's commands for an install into ``venv`` (that does not exist yet), as --dry-run prints them."""
    result = subprocess.run([sys.executable, "start.py", "install", "--dry-run", "--venv", str(venv), *args], cwd=ROOT,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if not line.startswith("#")], result.stdout


def pip_installs(commands):
    return [line for line in commands if " -m pip install " in line]


# ---------------------------------------------------------------- which PyTorch, for each case

def test_linux_installs_pytorchs_cpu_build_from_its_index_first(tmp_path):
    commands, _ = plan("--platform", "linux", "--torch-index", "reachable", venv=tmp_path / "v")
    assert commands[0].endswith(f"-m venv {tmp_path / 'v'}")
    installs = pip_installs(commands)
    assert installs[0].startswith(f"{tmp_path / 'v'}/bin/python -m pip install")
    assert f"torch=={TORCH}+cpu --extra-index-url https://download.pytorch.org/whl/cpu" in installs[0]
    assert installs[1].endswith("-r requirements.txt") and installs[2].endswith("--no-deps -e .")
    assert len(installs) == 3


def test_linux_without_the_cpu_index_falls_back_to_the_pinned_wheel_and_says_so(tmp_path):
    commands, text = plan("--platform", "linux", "--torch-index", "unreachable", venv=tmp_path / "v")
    assert "download.pytorch.org/whl/cpu cannot be reached" in text and "CUDA build: several GB" in text
    assert not any("download.pytorch.org" in line or "+cpu" in line for line in commands)
    assert [line.split(" -m pip install ")[1] for line in pip_installs(commands)] == [
        "--disable-pip-version-check --quiet -r requirements.txt",
        "--disable-pip-version-check --quiet --no-deps -e ."]
    assert "torch.version.cuda" in commands[-1], "the last step reports which build was installed"


def test_the_cpu_index_is_probed_for_real(tmp_path):
    """Without --torch-index, start.py asks the index itself (here: whatever this machine can reach)."""
    _, text = plan("--platform", "linux", venv=tmp_path / "v")
    reachable = start.torch_index_reachable()
    assert ("cannot be reached" in text) == (not reachable) and ("+cpu --extra-index-url" in text) == reachable


@pytest.mark.parametrize("args", [("--platform", "linux", "--torch", "cuda", "--torch-index", "reachable"),
                                  ("--platform", "darwin", "--torch-index", "reachable"),
                                  ("--platform", "win32", "--torch-index", "reachable")])
def test_cuda_macos_and_windows_take_the_pinned_wheel(tmp_path, args):
    commands, _ = plan(*args, venv=tmp_path / "v")
    assert not any("download.pytorch.org" in line or "+cpu" in line for line in commands)
    python = f"{tmp_path / 'v'}/" + ("Scripts/python.exe" if "win32" in args else "bin/python")
    assert [line.split(" -m pip install ")[0] for line in pip_installs(commands)] == [python, python]


def test_an_existing_venv_is_not_set_up_again(tmp_path):
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / start.STAMP).write_text("")  # as an older `make venv` left it: kept, whatever its build
    _, text = plan("--platform", "linux", venv=venv)
    assert "is up to date: nothing to install" in text
    (venv / start.STAMP).write_text(json.dumps({"requested": "cpu"}))
    commands, _ = plan("--platform", "linux", "--torch", "cuda", venv=venv)  # another build asked for: set up again
    assert not any(line.endswith(f"-m venv {venv}") for line in commands) and pip_installs(commands)


def make(*args):
    result = subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_make_runs_start_py_with_the_build_each_target_needs():
    # -W requirements.txt: as if it had just changed, so that the venv's recipe shows
    assert "python3 start.py install --venv .venv \n" in make("-W", "requirements.txt", "venv")
    assert "start.py install --venv .venv --torch cuda" in make("-W", "requirements.txt", "venv", "TORCH_BUILD=cuda")
    gpu = make("-W", "requirements.txt", "test-gpu")
    assert gpu.count("start.py install --venv .venv --torch cuda") == 2, gpu  # the venv's recipe, then the check
    assert "start.py install --venv .venv-cuda-build --torch cuda --pip-option=--isolated" in make("test-cuda-build")
    lab = make("lab", "COURSE_LANG=ko", "LEVEL=challenge")
    assert "start.py lab --venv .venv --lang ko --level challenge --workspace workspace-ko-challenge" in lab
    assert "--settings workspace-ko-challenge/.jupyter/lab/user-settings" in lab
    refused = subprocess.run(["make", "-n", "venv", "TORCH_BUILD=rocm"], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode != 0 and "TORCH_BUILD=rocm is not a build" in refused.stderr


def test_start_py_opens_the_lab_as_make_lab_did():
    """The lab's settings, for the Korean challenge level: lab-config first, the layouts and the language pack's
    settings in the workspace, --allow-root as root."""
    result = subprocess.run([sys.executable, "start.py", "--dry-run", "--lang", "ko", "--level", "challenge", "--",
                             "--no-browser"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert ("learner_kit.workspace challenge/ko/course workspace-ko-challenge --layout "
            "workspace-ko-challenge/.jupyter/workspaces --locale ko_KR --settings "
            "workspace-ko-challenge/.jupyter/lab/user-settings") in text
    lab = next(line for line in text.splitlines() if line.startswith("cd "))
    assert lab.startswith("cd workspace-ko-challenge && COURSE_LANG=ko ")
    assert f"JUPYTER_CONFIG_PATH={ROOT / 'lab-config'}" in lab
    assert f"JUPYTERLAB_SETTINGS_DIR={ROOT}/workspace-ko-challenge/.jupyter/lab/user-settings" in lab
    assert "-m jupyterlab" in lab and "--ServerApp.root_dir=." in lab and "--no-browser" in lab
    assert f"--LabApp.workspaces_dir={ROOT}/workspace-ko-challenge/.jupyter/workspaces" in lab
    assert ("--allow-root" in lab) == (os.geteuid() == 0)


def test_start_py_needs_only_the_standard_library():
    """It runs before the venv exists: a Python with no site-packages at all can plan the install."""
    result = subprocess.run([sys.executable, "-S", "-I", str(ROOT / "start.py"), "--dry-run", "--torch-index",
                             "unreachable", "--venv", "/nonexistent/v"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "-r requirements.txt" in result.stdout


# ---------------------------------------------------------------- start.py without make, from a fresh clone

def fresh_clone(target: Path) -> Path:
    """A `git clone` of the repository, with the working tree's changes (modified and new files) on top."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True, timeout=300)
    changed = subprocess.run(["git", "ls-files", "--modified", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split("\0")
    deleted = set(subprocess.run(["git", "ls-files", "--deleted", "-z"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split("\0"))
    for name in filter(None, changed):
        if name in deleted:
            (target / name).unlink(missing_ok=True)
        elif (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def linked_venv(venv: Path):
    """A new venv that sees this test's installed packages (a .pth line: their files, not their editable installs),
    so that start.py's pip finds requirements.txt met and the install takes seconds, not minutes."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "zz_course_test_packages.pth").write_text(str(SITE_PACKAGES) + "\n")
    return venv


def base_python():
    """The Python that made this test's venv (as a learner has it: no make, no venv)."""
    for line in (Path(sys.prefix) / "pyvenv.cfg").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home":
            return next(p for p in (Path(value.strip()) / "python3", Path(value.strip()) / "python") if p.exists())
    return Path(sys.executable)


@pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks to serve yet")
def test_start_py_without_make_from_a_fresh_clone_opens_the_lab(tmp_path):
    clone = fresh_clone(tmp_path / "clone")
    venv = linked_venv(tmp_path / "venv")
    bin_dir = tmp_path / "bin"  # PATH: a Python, nothing else
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(base_python())
    assert shutil.which("make", path=str(bin_dir)) is None
    port, token = free_port(), "learner-path-test"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUPYTER", "VIRTUAL_ENV"))}
    env.update(PATH=str(bin_dir), HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"))
    log = open(tmp_path / "start.log", "wb")
    lab = subprocess.Popen(["python3", "start.py", "--venv", str(venv), "--", "--no-browser", f"--port={port}",
                            "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={token}"],
                           cwd=clone, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    try:
        landing = first_answer(f"http://127.0.0.1:{port}/?token={token}", lab, 420,
                               (tmp_path / "start.log").read_text, "python3 start.py", interval=1)
        assert landing.endswith(f"/lab/tree/{ASSIGNMENTS[0]}/{ASSIGNMENTS[0]}.ipynb?token={token}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10) as response:
            page = response.read().decode()
        assert "@jupyter/nbgrader:formgrader" in page, "lab-config/ is on the lab's JUPYTER_CONFIG_PATH"
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
    text = (tmp_path / "start.log").read_text()
    assert "# the pinned packages of requirements.txt" in text and "# the course itself" in text
    assert f"PyTorch {TORCH}+cpu: the CPU build" in text, text[-3000:]
    reachable = start.torch_index_reachable()  # here not: the fallback, said as such; elsewhere the index's wheel
    assert ("download.pytorch.org/whl/cpu cannot be reached" in text) == (not reachable), text[-3000:]
    assert (clone / "workspace" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").is_file()
    assert json.loads((venv / start.STAMP).read_text())["requested"] == "cpu"
    editable = subprocess.run([str(venv / "bin" / "python"), "-c", "import learner_kit; print(learner_kit.__file__)"],
                              capture_output=True, text=True, env=env, cwd=tmp_path)
    assert editable.stdout.strip() == str(clone / "learner_kit" / "__init__.py"), "the clone's course is installed"


# ---------------------------------------------------------------- Colab, simulated

FAKE_COLAB = {  # what a Colab kernel has imported when the notebook's first cell runs
    "google/__init__.py": "",
    "google/colab/__init__.py": '"""A stand-in for Colab\'s own package (tests/learner_kit/test_learner_paths.py)."""\n',
    "sitecustomize.py": "import google.colab  # Colab's kernel imports it at start\n",
}
COLAB_PACKAGES = ["numpy", "matplotlib", "ipython", "ipykernel", "nbclient", "nbformat"]


def pinned(name):
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.lower().startswith(f"{name}=="):
            return line.strip()
    return name


def course_archive(target: Path) -> Path:
    """The repository as GitHub's archive of a branch holds it (one top folder): the working tree's files."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in filter(None, files):
            if (ROOT / name).is_file():
                archive.write(ROOT / name, f"transformer-course-main/{name}")
    return target


def freeze(python):
    result = subprocess.run([str(python), "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True)
    return {line.split("==")[0].split(" @ ")[0].lower() for line in result.stdout.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def colab_venv(tmp_path_factory):
    """A fresh venv with only torch, numpy, matplotlib and IPython (and the kernel nbclient runs)."""
    venv = tmp_path_factory.mktemp("colab") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # --no-compile: no .pyc for the thousands of modules nothing here imports (torch alone: 25 s with them, 9 s without)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check", pinned("torch"),
                    *(pinned(name) for name in COLAB_PACKAGES)], check=True, timeout=1200)
    return python


KERNEL_SCRIPT = """
import json, sys
import nbformat
from nbclient import NotebookClient
path, folder, cells = json.loads(sys.stdin.read())
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": folder}})
with client.setup_kernel():
    for index in cells:
        client.execute_cell(nb.cells[index], index)
nbformat.write(nb, path)
"""


class Colab:
    """A notebook opened alone (as Colab opens one: no course beside it, in /content) in a bare venv's kernel, with
    a stand-in google.colab imported at the kernel's start and COURSE_SOURCE pointing the first cell at ``source``."""

    def __init__(self, python, notebook: Path, folder: Path, source: str, colab=True):
        self.python, self.source, self.colab = python, source, colab
        self.fake = folder / "fake-colab"
        for name, text in FAKE_COLAB.items():
            (self.fake / name).parent.mkdir(parents=True, exist_ok=True)
            (self.fake / name).write_text(text)
        self.content = folder / "content"
        self.content.mkdir()
        self.path = self.content / notebook.name
        shutil.copyfile(notebook, self.path)

    def run(self, cells):
        """Run ``cells`` (indices) in one kernel, in order; the notebook as they left it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "COURSE",
                                                                        "MPLBACKEND"))}
        env["PATH"] = f"{self.python.parent}{os.pathsep}{env.get('PATH', '')}"
        env["COURSE_SOURCE"] = self.source
        if self.colab:
            env["PYTHONPATH"] = str(self.fake)
        result = subprocess.run([str(self.python), "-c", KERNEL_SCRIPT], env=env, capture_output=True, text=True,
                                input=json.dumps([str(self.path), str(self.content), list(cells)]), timeout=1200)
        assert result.returncode == 0, result.stderr[-4000:]
        return nbformat.read(self.path, as_version=4)


def outputs_text(cell):
    return "".join(o.get("text", "") + "\n".join(o.get("traceback", [])) + o.get("evalue", "") for o in cell.outputs)


def errors(cell):
    return [o for o in cell.outputs if o.output_type == "error"]


def bare(python):
    """The Colab venv as it was made: the course's package (and the Korean font) taken out again."""
    subprocess.run([str(python), "-m", "pip", "uninstall", "--yes", "--quiet", "transformer-course",
                    "koreanize-matplotlib"], capture_output=True, timeout=300)
    return freeze(python)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    return course_archive(tmp_path_factory.mktemp("archive") / "main.zip")


@pytest.mark.skipif(not ASSIGNMENTS, reason="no release notebooks yet")
def test_the_first_cell_does_nothing_off_colab(colab_venv, archive, tmp_path):
    """Without google.colab the first cell installs nothing: the course's package stays missing in a bare venv."""
    before = bare(colab_venv)
    notebook = ROOT / "course" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb"
    first = next(i for i, cell in enumerate(nbformat.read(notebook, as_version=4).cells) if cell.cell_type == "code")
    ran = Colab(colab_venv, notebook, tmp_path, f"file://{archive}", colab=False).run([first])
    assert not ran.cells[first].outputs and freeze(colab_venv) == before


@pytest.mark.skipif(not ASSIGNMENTS, reason="no release notebooks yet")
@pytest.mark.parametrize("release, installed", [("course", {"transformer-course"}),
                                                ("challenge/ko/course", {"transformer-course", "koreanize-matplotlib"})])
def test_the_release_notebook_runs_on_colab_set_up_by_its_first_cell(colab_venv, archive, tmp_path, release, installed):
    before = bare(colab_venv)
    assert not {"transformer-course", "nbgrader", "koreanize-matplotlib"} & before
    assignment = ASSIGNMENTS[0]
    notebook = ROOT / release / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    assert "google.colab" in nb.cells[code[0]].source, "the first code cell sets Colab up"
    link = nb.cells[0].source.splitlines()[0]
    assert re.search(r"\]\(https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/"
                     rf"{re.escape(release)}/{assignment}/{assignment}\.ipynb\)", link), link
    blank = next(i for i in code if "raise NotImplementedError()" in nb.cells[i].source)
    unit = nb.cells[blank].metadata["nbgrader"]["grade_id"]
    visible = next(i for i in code if nb.cells[i].metadata.get("nbgrader", {}).get("grade_id") == f"{unit}-visible")
    solutions = ROOT / release.replace("course", "solutions") / assignment / f"{assignment}.ipynb"
    answer = next(c for c in nbformat.read(solutions, as_version=4).cells
                  if c.metadata.get("nbgrader", {}).get("grade_id") == unit).source
    colab = Colab(colab_venv, notebook, tmp_path, f"file://{archive}")

    # Run All, as the learner meets it: every cell runs down to the first blank, and the first cell to stop is one
    # that calls the blank (at the latest its visible test), saying it is not written yet
    ran = colab.run([i for i in code if i <= visible])
    stopped = next(i for i in code if errors(ran.cells[i]))
    assert blank <= stopped <= visible, (stopped, outputs_text(ran.cells[stopped])[-3000:])
    assert "NotImplementedError" in outputs_text(ran.cells[stopped]) or "[not-implemented]" in outputs_text(
        ran.cells[stopped]), outputs_text(ran.cells[stopped])[-3000:]
    assert freeze(colab_venv) - before == installed, "the first cell installs the course's package, nothing else"

    # the right answer written into the blank, then the cells down to its visible test: it passes
    ran.cells[blank].source = answer
    nbformat.write(ran, colab.path)
    done = colab.run([i for i in code if i <= visible])
    assert not errors(done.cells[visible]), outputs_text(done.cells[visible])[-3000:]
    passed = "passed" if release == "course" else "통과"
    assert passed in outputs_text(done.cells[visible]), outputs_text(done.cells[visible])
    figures = [o for i in code if i <= visible for o in done.cells[i].outputs if "image/png" in o.get("data", {})]
    assert figures, "the notebook's figures are drawn on Colab too"
