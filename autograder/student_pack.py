"""Build what an instructor hands to learners: the release notebooks and the learner helper.

    python -m autograder.student_pack [DIST_DIR]     -> DIST_DIR/student-pack/ and DIST_DIR/student-pack.zip

The pack holds course/ (made by `make release`), the Korean edition's ko/course/ as course-ko/, the
challenge level of both (challenge/course/ as course-challenge/, challenge/ko/course/ as
course-ko-challenge/: the folder names of `make lab`'s workspaces), the learner_kit package with a
pyproject.toml of its own, the pinned requirements and a short README in both languages. It holds
neither the autograder package (reference, hidden checks) nor any solutions/:
tests/autograder/test_student_pack.py proves it.
"""
import shutil
import sys
from pathlib import Path

from autograder.levels import DEFAULT_LEVEL, LEVELS
from autograder.paths import COURSE, EDITIONS, ROOT, course_dir

PACK_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "transformer-course-learner-kit"
version = "0.1.0"
description = "Visible checks and plots for the Transformer course notebooks."
requires-python = ">=3.11"
# learner_kit.static_hints runs ruff on a failing unit's cell; the rest is pinned in requirements.txt.
dependencies = ["ruff==0.17.5"]

[tool.setuptools.packages.find]
include = ["learner_kit*"]

[tool.setuptools.package-data]
learner_kit = ["fingerprints/*"]
"""

PACK_README = """\
# The Transformer, written by you

Notebooks in `course/`, one building block each, in order (01 to 10). Set up once, on Windows, macOS or
Linux, with Python 3.11 or later, in this folder:

    python -m pip install -r requirements.txt -e .
    python -m jupyterlab course

The first installs the pinned packages and the course's helper (`learner_kit`); the second opens JupyterLab
on `course/`, where you open `01-attention/01-attention.ipynb` first (your work is saved there). On Windows type `py`
for `python`; on macOS and Linux, `python3` where `python` is missing. As root (in a container) add
`--allow-root` to the second.

A virtual environment keeps all this apart from the rest of your Python: before the two commands,
`python -m venv .venv`, then `.venv\\Scripts\\activate` (Windows) or `source .venv/bin/activate` (macOS, Linux).

On Linux, pip takes PyPI's build of PyTorch, which is the CUDA one (gigabytes more); the course needs only the
CPU build, from PyTorch's own index: add `--extra-index-url https://download.pytorch.org/whl/cpu` to the first
command. (On Windows and macOS PyPI's build is the CPU one already.)

Fill in each `# YOUR CODE HERE` blank, then run the test cell below it: it tells you what is
wrong, and why, without giving the answer away. Submit the notebooks as your
instructor tells you.

## Two levels

Every notebook comes at two levels, graded by the same tests:

- `course/` is the guided level: small blanks, a line or two each, with comments
  that say what shape each step gives. Start here if PyTorch is new to you.
- `course-challenge/` is the challenge level: each blank is a whole function body,
  under its signature and docstring. Pick it if you want to write the code yourself.

At both levels each exercise has a card with its difficulty, a time estimate and
three hints that open one at a time (the idea, the shape plan, the PyTorch operations).

You can switch at any notebook; keep each level's notebooks in their own folder.

    python -m jupyterlab course-challenge

## 한국어판

같은 과정의 한국어판이 `course-ko/`에 있습니다. 설명과 메시지가 모두 한국어이고, 코드와 채점은
영어판과 똑같습니다. 용어집은 `course-ko/GLOSSARY.md`에 있습니다.

처음 한 번, 이 폴더에서 위의 첫 명령(`python -m pip install -r requirements.txt -e .`)으로 설치하고, 다음
명령으로 한국어판 폴더를 JupyterLab에서 엽니다(01 노트북부터 여세요). Windows에서는 `python` 대신 `py`를 씁니다. Linux에서는 첫 명령에
`--extra-index-url https://download.pytorch.org/whl/cpu`를 붙이면 PyTorch의 CPU 빌드를 받습니다(과정에는
이것으로 충분하고, PyPI의 CUDA 빌드보다 몇 GB 작습니다).

    python -m jupyterlab course-ko

각 `# YOUR CODE HERE` 빈칸을 채운 뒤 바로 아래 테스트 셀을 실행하세요. 무엇이 왜 틀렸는지
알려 주지만, 정답을 알려 주지는 않습니다.

모든 노트북은 같은 테스트로 채점되는 두 단계로 나옵니다. `course-ko/`는 안내 단계로, 빈칸이
한두 줄씩 작고 각 단계의 모양(shape)을 주석이 알려 줍니다. `course-ko-challenge/`는 도전 단계로,
시그니처와 독스트링 아래의 함수 본문 전체가 빈칸입니다. 두 단계 모두 연습마다 난이도, 예상 시간,
하나씩 열어 보는 힌트 세 개(아이디어, 모양 계획, PyTorch 연산)가 있습니다.

    python -m jupyterlab course-ko-challenge
"""

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def pack_folder(lang, level):
    """Where an edition's release at one level goes in the pack: course, course-ko, course-challenge, course-ko-challenge."""
    return "course" + ("" if lang == "en" else f"-{lang}") + ("" if level == DEFAULT_LEVEL else f"-{level}")


def build_pack(dist: Path) -> Path:
    pack = dist / "student-pack"
    shutil.rmtree(pack, ignore_errors=True)
    pack.mkdir(parents=True)
    if not any(COURSE.glob("*/*.ipynb")):
        raise SystemExit("course/ has no release notebooks: run `make release` first.")
    for lang in EDITIONS:
        for level in LEVELS:
            if any(course_dir(lang, level).glob("*/*.ipynb")):
                shutil.copytree(course_dir(lang, level), pack / pack_folder(lang, level), ignore=IGNORED)
    shutil.copytree(ROOT / "learner_kit", pack / "learner_kit", ignore=IGNORED)
    shutil.copy2(ROOT / "requirements.txt", pack / "requirements.txt")
    (pack / "pyproject.toml").write_text(PACK_PYPROJECT)
    (pack / "README.md").write_text(PACK_README)
    shutil.make_archive(str(dist / "student-pack"), "zip", root_dir=pack)
    return pack


def main(argv=None):
    args = argv if argv is not None else sys.argv[1:]
    dist = Path(args[0]) if args else ROOT / "dist"
    pack = build_pack(dist)
    print(f"built {pack}/ and {dist}/student-pack.zip")


if __name__ == "__main__":
    main()
