"""`make autograde` stopped by Ctrl-C ends as a command stopped by Ctrl-C does (issue 36): by SIGINT, which a shell
reports as status 130, not make's own 2 for a failed recipe. Both ways of sending it: to the whole foreground
process group (a terminal's Ctrl-C), and to the grader alone (``kill -INT`` to its pid), which used to give 2.
"""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def grader_pids(session):
    """The pids of `autograder grade` processes in the session ``session``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getsid(int(entry)) != session:
                continue
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except (OSError, ProcessLookupError):
            continue
        if any(part.endswith(b"/autograder") for part in command[:2]) and b"grade" in command:
            found.append(int(entry))
    return found


def as_from_a_terminal():
    """Ctrl-C's default action, as a terminal's shell starts a command with. A suite run in the background (`make test
    &`, a CI job so run) hands its processes SIGINT ignored, which make and Python keep: make would then not die by
    the SIGINT its recipe sends it, and this test would fail for a reason that is not the Makefile's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("target", ["process group", "grader alone"])
def test_make_autograde_ends_by_sigint_after_ctrl_c(tmp_path, target):
    submitted = tmp_path / "submitted"
    for student in ("ann", "ben", "cat", "dan"):
        (submitted / student / "01-attention").mkdir(parents=True)
        shutil.copy(ROOT / "course" / "01-attention" / "01-attention.ipynb", submitted / student / "01-attention")
    log = tmp_path / "make.log"
    # -o: the venv and the sandbox tool are taken as made (the test never installs anything)
    command = ["make", "-o", ".venv/.installed", "-o", "sandbox-tool", "autograde", f"SUBMITTED={submitted}",
               f"OUT={tmp_path / 'out'}"]
    with open(log, "w") as handle:
        make = subprocess.Popen(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=as_from_a_terminal)
    try:
        deadline = time.time() + 400
        while "[1/4]" not in log.read_text() and make.poll() is None and time.time() < deadline:
            time.sleep(0.5)
        assert make.poll() is None, log.read_text()[-3000:]
        if target == "process group":
            os.killpg(make.pid, signal.SIGINT)
        else:
            (pid,) = grader_pids(make.pid)
            os.kill(pid, signal.SIGINT)
        status = make.wait(timeout=120)
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
    said = log.read_text()
    assert "interrupted: " in said and "run the same command again to resume" in said, said[-3000:]
    assert status == -signal.SIGINT, (status, said[-2000:])  # a shell shows 130
