"""The import directions (.importlinter), checked with import-linter: kept by the code, broken by a planted import.

Each planted import goes into a copy of the packages, so that the check is shown to fail where a maintainer's
change would break the boundary, without touching the checkout.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("learner_kit", "sandbox_servers", "autograder")


def lint(folder):
    env = {**os.environ, "PYTHONPATH": str(folder)}  # the copy's packages before the installed (editable) ones
    return subprocess.run([str(LINT), "--config", str(folder / ".importlinter"), "--no-cache"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_code_keeps_every_contract():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


@pytest.fixture
def copy(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    shutil.copy(ROOT / ".importlinter", tmp_path)
    return tmp_path


LEARNERS = "imports nothing of the sandbox's servers or the grader"  # each contract's name ends so
SANDBOX = "not the reference, the checks or grading"
JUDGING = "grading, the checks, the reference"
GRADING = "nbgrader's bookkeeping, the outputs"
PLANTED = {
    # and the unit server, which runs a visible cell's own checks in the sandbox (visible.STORED_CASES_PASSED), reaches it
    "a learner's module imports the checks": ("learner_kit/visible.py", "from autograder.checks import core",
                                              [LEARNERS, SANDBOX]),
    "a learner's module imports a sandbox server": ("learner_kit/harness.py", "from sandbox_servers import wire",
                                                    [LEARNERS]),
    "the unit server imports the reference": ("sandbox_servers/unit_server.py", "import autograder.reference", [SANDBOX]),
    "the probes import grading's outputs": ("sandbox_servers/probes.py",
                                            "from autograder.grading.outputs import report",
                                            [SANDBOX, JUDGING]),  # and the checks, which use the probes, reach it
    "the reference imports grading (upward)": ("autograder/reference.py", "import autograder.grading.run.runner",
                                               [JUDGING]),
    "nbgrader's bookkeeping imports the run (upward)": ("autograder/grading/bookkeeping/gradebook.py",
                                                        "from autograder.grading.run import judge", [GRADING]),
}


@pytest.mark.parametrize("what", PLANTED)
def test_a_planted_import_breaks_its_contract(copy, what):
    module, line, broken = PLANTED[what]
    with open(copy / module, "a", encoding="utf-8") as f:
        f.write(f"\n{line}  # planted by the test\n")
    result = lint(copy)
    assert result.returncode != 0, result.stdout[-4000:]
    report = " ".join(result.stdout.split())
    for contract in broken:  # "<the contract's name> BROKEN" in the summary
        assert f"{contract} BROKEN" in report, report[-3000:]
    assert f"{len(broken)} broken" in report, report[-3000:]
    assert module.replace("/", ".").removesuffix(".py") in report, report[-3000:]
