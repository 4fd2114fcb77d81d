"""The unit server runs learners' code in bubblewrap: what it cannot see, keep or reach.

Each attack is an answer cell of 01-attention that would earn the points (or leave a
trace) only if the sandbox let it: read the reference and use it, write outside, start
a process that outlives the notebook, connect to the grader's machine.
"""
import os
import socket
import subprocess
import sys
import time

import nbformat
import pytest

from autograder.grading.run import sandbox
from autograder.grading.bookkeeping.config import Settings
from autograder.grading.bookkeeping.source import load_assignment
from autograder.grading.run.verify import Verifier
from autograder.paths import COURSE, ROOT, SOLUTIONS

READ_THE_REFERENCE = f'''
namespace = {{}}
exec(open({str(ROOT / "autograder" / "reference.py")!r}).read(), namespace)
scaled_dot_product_attention = namespace["scaled_dot_product_attention"]
'''
LEAVE_A_TRACE = '''
import subprocess
open({marker!r}, "w").write("escaped")
subprocess.Popen(["sleep", "{tag}"], start_new_session=True)
import socket
socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"hello")
'''


@pytest.fixture(scope="module")
def verifier():
    sandbox.check_available()
    verifier = Verifier(Settings(notebook_budget_s=30, sandbox=True), cell_timeout=10)
    verifier.start()
    yield verifier
    verifier.close()


def with_answer(source):
    nb = nbformat.read(str(COURSE / "01-attention" / "01-attention.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scaled_dot_product_attention":
            cell.source = source
    return nb


def attention():
    return load_assignment(SOLUTIONS, "01-attention")[0]


def test_the_sandbox_grades_right_answers(verifier):
    verdicts = verifier.verify(attention(), nbformat.read(str(SOLUTIONS / "01-attention" / "01-attention.ipynb"), as_version=4))
    assert all(passed for passed, _ in verdicts.values()), verdicts


def test_the_reference_cannot_be_read(verifier):
    verdicts = verifier.verify(attention(), with_answer(READ_THE_REFERENCE))
    assert not any(passed for passed, _ in verdicts.values())
    assert "No such file or directory" in verdicts["scaled_dot_product_attention-hidden-values"][1]


def test_nothing_outlives_or_leaves_the_sandbox(verifier, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    marker, tag = tmp_path / "escaped.txt", str(100000 + os.getpid())
    verifier.verify(attention(), with_answer(LEAVE_A_TRACE.format(marker=str(marker), tag=tag, port=listener.getsockname()[1])))
    assert not marker.exists()
    with pytest.raises(socket.timeout):
        listener.accept()
    time.sleep(0.5)
    sleepers = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if cmdline[:2] == [b"sleep", tag.encode()]:
            sleepers.append(pid)
    assert not sleepers, "a process started by the notebook outlived it"


def test_a_missing_bubblewrap_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap"):
        sandbox.check_available()


FORK_UNTIL_REFUSED = """
import os, time
forked = 0
try:
    while forked < 1000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        forked += 1
except OSError as error:
    print("refused", error.strerror)
print(forked)
"""


def test_a_sandbox_runs_at_most_max_processes():
    import subprocess
    import sys

    if sandbox.missing_cap_warning():  # root without a pids cgroup: the run warns instead (tests/grading/test_grading.py)
        assert "fork bomb" in sandbox.missing_cap_warning()
        return
    cap = sandbox.ProcessCap()
    folder = None
    argv = [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, '/sandbox/code')\n"
            "from sandbox_servers import processes\nprocesses.limit_processes()\n" + FORK_UNTIL_REFUSED]
    try:
        result = subprocess.run(cap.wrap(sandbox.command(argv, {"PATH": "/usr/bin:/bin"})), capture_output=True, text=True, timeout=120)
        folder = cap.folder
    finally:
        cap.remove()
    assert "refused Resource temporarily unavailable" in result.stdout, result.stdout + result.stderr[-2000:]
    assert int(result.stdout.split()[-1]) < sandbox.MAX_PROCESSES
    assert cap.folder is None and (folder is None) == (sandbox.pids_hierarchy() is None)
    assert folder is None or not os.path.exists(folder)  # the sandbox's cgroup is gone with it


def test_only_tmp_and_a_small_dev_shm_are_writable():
    """bubblewrap's own root and /dev are in-memory file systems of any size: the root is read-only and
    /dev/shm a tmpfs of sandbox.SHM_BYTES, so /tmp's cap is what a notebook can write."""
    script = """
import os
for path in ("/planted", "/dev/planted"):
    try:
        open(path, "w").write("x")
        print("wrote", path)
    except OSError:
        print("refused", path)
try:
    with open("/dev/shm/big", "wb") as handle:
        for _ in range(200):
            handle.write(b"x" * (1 << 20))
    print("shm unbounded")
except OSError:
    print("shm capped at", os.path.getsize("/dev/shm/big") >> 20)
"""
    line = sandbox.command([sys.executable, "-I", "-c", script], {"PATH": "/usr/bin:/bin"})
    result = subprocess.run(line, capture_output=True, text=True, timeout=60)
    assert "refused /planted" in result.stdout and "refused /dev/planted" in result.stdout, result.stdout + result.stderr
    assert f"shm capped at {sandbox.SHM_BYTES >> 20}" in result.stdout, result.stdout + result.stderr


def test_code_inside_has_a_user_name():
    """The sandbox has no /etc/passwd; getpass.getuser() still answers (PyTorch 2.11 asks when torch._dynamo is
    imported: without a name, every check that imports it lazily failed inside the sandbox)."""
    script = "import getpass, os; print('user', getpass.getuser(), os.environ['HOME'])"
    line = sandbox.command([sys.executable, "-I", "-c", script], sandbox.inside_env({"PATH": "/usr/bin:/bin"}))
    result = subprocess.run(line, capture_output=True, text=True, timeout=60)
    assert "user nobody /tmp" in result.stdout, result.stdout + result.stderr[-2000:]
