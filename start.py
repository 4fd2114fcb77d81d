"""Set up the course and open it in JupyterLab, with Python 3.11 or later and nothing else (no make).

    python3 start.py                      Linux, macOS: the guided level, in English (what `make lab` does)
    py start.py                           Windows (the Python launcher)
    python3 start.py --lang ko            the Korean edition (한국어판), in workspace-ko/
    python3 start.py --level challenge    the challenge level, in workspace-challenge/
    python3 start.py -- --no-browser --port=8888     options after `--` go to JupyterLab
    python3 start.py install              only create or update .venv/
    python3 start.py --dry-run            print the commands, run none

The first run creates .venv/ beside this file and installs the pinned packages of requirements.txt, then
the course itself (`pip install -e .`). On Linux, PyTorch comes from PyTorch's CPU-only wheel index
(https://download.pytorch.org/whl/cpu) unless `--torch cuda` (or TORCH_BUILD=cuda) asks for PyPI's
CUDA build; where that index cannot be reached, pip installs the pinned wheel from wherever it installs
packages, and this script says which build it got. On macOS and Windows PyPI's wheel has no CUDA anyway.
Later runs reuse .venv/ (it is set up again when requirements.txt or pyproject.toml change).

Then it copies the release notebooks into your workspace (learner_kit.workspace: never overwriting a
file you have) and opens JupyterLab there with the course's settings (lab-config/, the saved layouts in
the workspace, JupyterLab's Korean language pack for --lang ko, --allow-root as root).

`make venv` and `make lab` run this script, so the two ways in never drift apart. It imports only
Python's standard library: it runs before the packages it installs exist.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
MINIMUM_PYTHON = (3, 11)
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
BUILDS = ("cpu", "cuda")
STAMP = ".installed"  # in the venv: written once the install is checked; what `make` depends on too
EDITIONS = {"en": "", "ko": "ko"}
LEVELS = {"guided": "", "challenge": "challenge"}
LAB_LOCALE = {"ko": "ko_KR"}  # JupyterLab's own menus in the edition's language (a language pack)
# pip's warning about the local wheel folders of some machines: noise, not the learner's business
PIP_NOISE = "is ignored: it is neither"


# ---------------------------------------------------------------- where things are

def venv_python(venv: Path, system: str = sys.platform) -> Path:
    """The venv's Python: bin/python, or Scripts\\python.exe on Windows."""
    return venv / ("Scripts/python.exe" if system == "win32" else "bin/python")


def venv_scripts(venv: Path, system: str = sys.platform) -> Path:
    return venv / ("Scripts" if system == "win32" else "bin")


def pinned_torch(requirements: Path = ROOT / "requirements.txt") -> str:
    """The version of torch that requirements.txt pins (torch==X)."""
    for line in requirements.read_text(encoding="utf-8").splitlines():
        name, _, version = line.split("#")[0].strip().partition("==")
        if name.strip().lower() == "torch" and version.strip():
            return version.strip()
    raise SystemExit(f"{requirements} pins no torch==VERSION")


def release_folder(lang: str, level: str) -> Path:
    """course/, ko/course/, challenge/course/, challenge/ko/course/ (relative to the repository)."""
    parts = [p for p in (LEVELS[level], EDITIONS[lang], "course") if p]
    return Path(*parts)


def default_workspace(lang: str, level: str) -> Path:
    """workspace/, workspace-ko/, workspace-challenge/, workspace-ko-challenge/: git ignores them."""
    return Path("workspace" + ("" if lang == "en" else f"-{lang}") + ("" if level == "guided" else f"-{level}"))


# ---------------------------------------------------------------- installing

def torch_index_reachable(timeout: float = 10.0) -> bool:
    """Whether PyTorch's CPU wheel index answers (a few seconds at most)."""
    try:
        with urllib.request.urlopen(f"{TORCH_CPU_INDEX}/torch/", timeout=timeout) as response:
            return response.status == 200
    except (OSError, ValueError):  # no network, no DNS, a proxy that refuses, TLS trouble
        return False


def install_plan(venv: Path, build: str, system: str, index_reachable: bool, python: str = sys.executable,
                 venv_exists: bool = False, pip_options=()) -> list[tuple[str, list[str]]]:
    """The steps of an install, each (what it does, the command), in order. ``build`` is cpu or cuda."""
    py = str(venv_python(venv, system))
    pip = [py, "-m", "pip", "install", "--disable-pip-version-check", *pip_options]
    steps = []
    if not venv_exists:
        steps.append(("create the virtual environment", [python, "-m", "venv", str(venv)]))
    if system.startswith("linux") and build == "cpu":
        if index_reachable:
            steps.append((f"PyTorch's CPU build from {TORCH_CPU_INDEX} (about 190 MB to download)",
                          [*pip, "--quiet", f"torch=={pinned_torch()}+cpu", "--extra-index-url", TORCH_CPU_INDEX]))
        else:
            steps.append((f"{TORCH_CPU_INDEX} cannot be reached: the pinned torch from pip's usual index instead "
                          "(from PyPI that is the CUDA build: several GB)", []))
    steps.append(("the pinned packages of requirements.txt", [*pip, "--quiet", "-r", "requirements.txt"]))
    steps.append(("the course itself (learner_kit, sandbox_servers, autograder), editable", [*pip, "--quiet", "--no-deps", "-e", "."]))
    steps.append(("check the install and say which PyTorch build it got", [py, "-c", CHECK]))
    return steps


# Run in the venv: everything the course imports is there; then which build of PyTorch it is.
CHECK = ("import json, torch, nbgrader, autograder, learner_kit; "
         "print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda}))")


def describe_build(found: dict) -> str:
    if found.get("cuda"):
        return f"PyTorch {found['torch']}: the CUDA {found['cuda']} build (it runs on the CPU too; a GPU is optional)"
    return f"PyTorch {found['torch']}: the CPU build"


def read_stamp(venv: Path) -> dict | None:
    """What the last install recorded, {} for a stamp without it (an older `make venv`), None for none."""
    stamp = venv / STAMP
    if not stamp.is_file():
        return None
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8") or "{}")
        return recorded if isinstance(recorded, dict) else {}
    except ValueError:
        return {}


def up_to_date(venv: Path, build: str | None, system: str = sys.platform) -> bool:
    """Whether the venv was installed after requirements.txt and pyproject.toml last changed, with ``build``
    (None: whichever it has)."""
    recorded = read_stamp(venv)
    if recorded is None or not venv_python(venv, system).exists():
        return False
    newest = max((ROOT / name).stat().st_mtime for name in ("requirements.txt", "pyproject.toml"))
    if (venv / STAMP).stat().st_mtime < newest:
        return False
    return build is None or recorded.get("requested", "cpu") == build


def chosen_build(venv: Path, asked: str | None) -> str:
    """The build to install: the one asked for, else the one the venv was set up with, else cpu."""
    if asked:
        return asked
    return (read_stamp(venv) or {}).get("requested", "cpu")


def shown(command) -> str:
    return subprocess.list2cmdline(command) if sys.platform == "win32" else shlex.join(command)


def run_pip(command, cwd):
    """Run a pip command, passing its output on without the noise lines; its exit status."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               encoding="utf-8", errors="replace")
    for line in process.stdout:
        if PIP_NOISE not in line:
            sys.stdout.write(line)
    return process.wait()


def installed_torch_build(venv: Path) -> dict | None:
    """The venv's torch ({'torch': version, 'cuda': ...}) or None when it has none (or no venv)."""
    py = venv_python(venv)
    if not py.exists():
        return None
    result = subprocess.run([str(py), "-c", "import json, torch; print(json.dumps({'torch': torch.__version__, "
                             "'cuda': torch.version.cuda}))"], capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 else None


def install(venv: Path, asked: str | None, dry_run=False, system=sys.platform, index_reachable=None, pip_options=()):
    """Create and fill ``venv`` unless it is up to date; return 0 when it is ready."""
    build = chosen_build(venv, asked)
    if up_to_date(venv, asked, system):
        if dry_run:
            print(f"# {venv}/ is up to date: nothing to install")
        return 0
    if index_reachable is None:
        index_reachable = system.startswith("linux") and build == "cpu" and torch_index_reachable()
    exists = venv_python(venv, system).exists()
    steps = install_plan(venv, build, system, index_reachable, venv_exists=exists, pip_options=pip_options)
    if dry_run:
        for what, command in steps:
            print(f"# {what}")
            if command:
                print(shown(command))
        return 0
    started = time.monotonic()
    print(f"Setting up {venv}/ (the first time takes a few minutes; later runs reuse it).", flush=True)
    current = installed_torch_build(venv) if exists else None
    if current and build == "cuda" and "+cpu" in current["torch"]:  # the pin is met by the CPU build: replace it
        print(f"# replacing PyTorch {current['torch']} (the CPU build) by PyPI's", flush=True)
        subprocess.run([str(venv_python(venv, system)), "-m", "pip", "uninstall", "--yes", "--quiet", "torch"], cwd=ROOT)
    found = None
    for what, command in steps:
        print(f"# {what}", flush=True)
        if not command:
            continue
        if command[-2:] == ["-c", CHECK]:
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if result.returncode != 0:
                sys.stderr.write(result.stderr)
                print(f"The install is incomplete: run `{shown([sys.executable, 'start.py', 'install'])}` again.")
                return result.returncode
            found = json.loads(result.stdout.strip().splitlines()[-1])
            continue
        status = run_pip(command, ROOT) if "pip" in command else subprocess.run(command, cwd=ROOT).returncode
        if status != 0 and TORCH_CPU_INDEX in command:
            print(f"# PyTorch's CPU index failed (status {status}): the pinned torch from pip's usual index instead",
                  flush=True)
            continue
        if status != 0:
            print(f"This step failed (status {status}): {shown(command)}")
            return status
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(f"{describe_build(found)}. Set up in {minutes} min {seconds:02d} s.")
    if build == "cpu" and found.get("cuda"):
        print("(The CPU build was asked for; PyTorch's CPU index could not be reached, so pip installed PyPI's "
              "wheel. The course works with it too; it only takes more disk.)")
    if build == "cuda" and not found.get("cuda") and system.startswith("linux"):
        print("(The CUDA build was asked for, but pip's configuration here prefers a CPU wheel: "
              "`pip install --isolated` gets PyPI's.)")
    (venv / STAMP).write_text(json.dumps({"requested": build, **found}) + "\n", encoding="utf-8")
    return 0


# ---------------------------------------------------------------- the lab

def lab_commands(venv: Path, lang: str, level: str, workspace: Path, layouts: Path | None, settings: Path | None,
                 lab_args, system=sys.platform, as_root=None):
    """(the workspace command, the lab command, the lab's folder, the lab's extra environment)."""
    py = str(ROOT / venv_python(venv, system))
    layouts = layouts or workspace / ".jupyter" / "workspaces"
    locale = LAB_LOCALE.get(lang)
    settings = settings or workspace / ".jupyter" / "lab" / "user-settings"
    sync = [py, "-m", "learner_kit.workspace", release_folder(lang, level).as_posix(), str(workspace),
            "--layout", str(layouts)]
    if locale:
        sync += ["--locale", locale, "--settings", str(settings)]
    if as_root is None:
        as_root = system != "win32" and hasattr(os, "geteuid") and os.geteuid() == 0
    lab = [py, "-m", "jupyterlab", *(["--allow-root"] if as_root else []), "--ServerApp.root_dir=.",
           f"--LabApp.workspaces_dir={(ROOT / layouts).resolve()}",
           *lab_args]
    config_path = os.pathsep.join(p for p in (str(ROOT / "lab-config"), os.environ.get("JUPYTER_CONFIG_PATH")) if p)
    env = {"COURSE_LANG": lang, "JUPYTER_CONFIG_PATH": config_path, "PYTHONUTF8": "1",
           "PATH": os.pathsep.join(p for p in (str((ROOT / venv_scripts(venv, system)).resolve()),
                                                os.environ.get("PATH")) if p)}
    if locale:
        env["JUPYTERLAB_SETTINGS_DIR"] = str((ROOT / settings).resolve())
    return sync, lab, ROOT / workspace, env


def open_lab(args, dry_run=False, system=sys.platform):
    sync, lab, folder, env = lab_commands(args.venv, args.lang, args.level, args.workspace, args.layouts,
                                          args.settings, args.lab_args, system)
    if dry_run:
        print("# copy the release into the workspace (never overwriting your files)")
        print(shown(sync))
        print("# open JupyterLab in the workspace, with the course's settings")
        print(f"cd {shown([str(args.workspace)])} && "
              + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k != "PATH") + " "
              + shown([*lab, "--LabApp.default_url=/lab/tree/FIRST_NOTEBOOK"]))
        return 0
    status = subprocess.run(sync, cwd=ROOT, env={**os.environ, "PYTHONUTF8": "1"}).returncode
    if status != 0:
        return status
    sys.path.insert(0, str(ROOT))  # learner_kit.workspace's first_notebook needs no third-party package
    from learner_kit.workspace import first_notebook  # noqa: E402 (stdlib-only module; see its imports)

    first = first_notebook(folder)
    if first:
        lab.insert(lab.index("--ServerApp.root_dir=.") + 1, f"--LabApp.default_url=/lab/tree/{first}")
    environment = {**os.environ, **env}
    print(f"Opening JupyterLab in {args.workspace}/ (Ctrl+C here stops it).", flush=True)
    if os.name == "posix":  # the lab takes this process's place: Ctrl+C and make's signals reach it directly
        os.chdir(folder)
        os.execve(lab[0], lab, environment)
    try:
        return subprocess.run(lab, cwd=folder, env=environment).returncode
    except KeyboardInterrupt:
        return 130


# ---------------------------------------------------------------- the command line

def parse(argv):
    parser = argparse.ArgumentParser(prog="start.py", description=__doc__.splitlines()[0],
                                     epilog="Options after `--` go to JupyterLab (e.g. -- --no-browser --port=8888).")
    parser.add_argument("action", nargs="?", choices=("lab", "install"), default="lab",
                        help="lab (the default): set up if needed, then open the course; install: only set up .venv/")
    parser.add_argument("--lang", choices=sorted(EDITIONS), default=os.environ.get("COURSE_LANG") or "en",
                        help="the course's edition: en (default) or ko")
    parser.add_argument("--level", choices=sorted(LEVELS), default="guided",
                        help="guided (default: small blanks) or challenge (whole function bodies)")
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="the virtual environment (default .venv)")
    parser.add_argument("--torch", choices=BUILDS, default=os.environ.get("TORCH_BUILD") or None,
                        help="PyTorch's build on Linux: cpu (the default, from PyTorch's CPU index) or cuda (PyPI's)")
    parser.add_argument("--workspace", type=Path, help="where you work (default workspace/, workspace-ko/, ...)")
    parser.add_argument("--layouts", type=Path, help="JupyterLab's saved layouts (default WORKSPACE/.jupyter/workspaces)")
    parser.add_argument("--settings", type=Path, help="JupyterLab's settings for --lang ko's language pack "
                        "(default WORKSPACE/.jupyter/lab/user-settings)")
    parser.add_argument("--pip-option", action="append", default=[], metavar="OPTION",
                        help="an option for every pip install (e.g. --pip-option=--isolated); repeatable")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    testing = parser.add_argument_group("with --dry-run, the plan for another machine")
    testing.add_argument("--platform", choices=("linux", "darwin", "win32"), default=None)
    testing.add_argument("--torch-index", choices=("reachable", "unreachable"), default=None)
    argv, lab_args = list(argv), []
    if "--" in argv:
        cut = argv.index("--")
        argv, lab_args = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    args.lab_args = lab_args
    if args.workspace is None:
        args.workspace = default_workspace(args.lang, args.level)
    return args


def main(argv=None):
    if sys.version_info < MINIMUM_PYTHON:
        sys.exit(f"The course needs Python {'.'.join(map(str, MINIMUM_PYTHON))} or later; this is {sys.version.split()[0]}.")
    args = parse(sys.argv[1:] if argv is None else argv)
    os.chdir(ROOT)
    system = args.platform or sys.platform
    reachable = None if args.torch_index is None else args.torch_index == "reachable"
    status = install(args.venv, args.torch, dry_run=args.dry_run, system=system, index_reachable=reachable,
                     pip_options=args.pip_option)
    if status != 0 or args.action == "install":
        return status
    return open_lab(args, dry_run=args.dry_run, system=system)


if __name__ == "__main__":
    sys.exit(main())
