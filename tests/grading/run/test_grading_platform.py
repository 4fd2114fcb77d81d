"""Grading holds on the platforms instructors have: PyPI's CUDA build, a big server, a GPU.

- Memory is limited by what a notebook holds, not by the address space it maps: PyPI's CUDA
  build of torch maps 3-5 GB on import alone, which a limit on address space (RLIMIT_AS) failed.
- A learner's exception anywhere costs that cell; a child that dies costs the cell that killed
  it, and the next cell gets a fresh one.
- The device aspect requires right values on every device the grader can run, so a stub that
  returns zeros of the right shape earns nothing there.
The GPU itself is exercised by tests/checks/test_gpu.py (`make test-gpu`, where a GPU is at hand).
"""
import pytest
import torch

from autograder.checks.core import devices_to_try
from autograder.grading.run.judge import exit_reason
from autograder.grading.run.verify import submitted_answers
from autograder.paths import SOLUTIONS
from learner_kit import harness
from tests.grading.run.test_judge import attention_source, notebook, serving_judge, with_answer

UNIT = "scaled_dot_product_attention"
CELLS = ("visible", "hidden-values", "hidden-masks", "hidden-float64", "hidden-grad", "hidden-device", "hidden-properties")
RIGHT = submitted_answers(notebook(SOLUTIONS, "01-attention"))[UNIT]

# 16 GiB of address space and nothing resident: what the CUDA build's import looks like to RLIMIT_AS.
RESERVE = ("import mmap\n_reserved = mmap.mmap(-1, 16 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | "
           "getattr(mmap, 'MAP_NORESERVE', 0x4000), prot=0)\n")  # prot 0: PROT_NONE; 0x4000: Linux's MAP_NORESERVE


def on_meta(statement, condition="query.device.type == 'meta'"):
    """The right answer, except that where ``condition`` holds (on the meta device: the device cell only) it
    runs ``statement`` first."""
    head, _, rest = RIGHT.partition(":\n")
    return f"{head}:\n    if {condition}:\n        {statement}\n{rest}"


HOARD = "hoard = [bytearray(256 << 20) for _ in range(64)]"  # 16 GiB, touched: over any memory limit
ZEROS = '''
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    weights = torch.full((*query.shape[:-1], key.shape[-2]), 1.0 / key.shape[-2], device=query.device, dtype=query.dtype)
    return torch.zeros(*query.shape[:-1], value.shape[-1], device=query.device, dtype=query.dtype), weights
'''


@pytest.fixture(scope="module")
def judge():
    yield from serving_judge(60, 20)


def verdicts_of(judge, answer):
    verdicts = judge.verify(attention_source(), with_answer("01-attention", UNIT, answer))
    return {cell: verdicts[f"{UNIT}-{cell}"] for cell in CELLS}


def test_mapped_address_space_is_not_memory(judge):
    """A right answer in a process that maps 16 GiB it never touches keeps every point."""
    verdicts = verdicts_of(judge, RESERVE + RIGHT)
    assert all(passed for passed, _ in verdicts.values()), verdicts


@pytest.mark.parametrize("statement, said", [
    (HOARD, "MiB of memory and was stopped"),
    ("import os; os._exit(3)", "exited (status 3)"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
], ids=["memory", "os-exit", "crash"])
def test_a_child_that_dies_costs_only_its_cell(judge, statement, said):
    """The device cell kills the child; the cell after it is judged by a fresh one and keeps its point."""
    verdicts = verdicts_of(judge, on_meta(statement))
    passed, message = verdicts["hidden-device"]
    assert not passed and said in message, message
    assert "started the notebook's code again" in message, message
    assert all(verdicts[cell][0] for cell in CELLS if cell != "hidden-device"), verdicts


@pytest.mark.parametrize("error", ["SystemExit(3)", "KeyboardInterrupt()", "GeneratorExit()"])
def test_a_base_exception_costs_only_its_cell(judge, error):
    """Raised inside the learner's function, it is that call's error: the child answers and goes on."""
    verdicts = verdicts_of(judge, on_meta(f"raise {error}", "query.dtype == torch.float64"))
    passed, message = verdicts["hidden-float64"]
    assert not passed and error.split("(")[0] in message, message
    assert "started the notebook's code again" not in message
    assert all(verdicts[cell][0] for cell in CELLS if cell != "hidden-float64"), verdicts


def test_the_device_point_needs_right_values(judge):
    """Zeros of the right shape on the right device: no device error, and still no device point."""
    passed, message = verdicts_of(judge, ZEROS)["hidden-device"]
    assert not passed and "[" in message, message


def test_devices_follow_the_learners_process(monkeypatch):
    """CUDA is tried only where the grader has it and the learner's process (the unit server's child) too."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert devices_to_try(object()) == ["meta", "cpu"]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)

    class Remote(harness.Remote):
        def __init__(self, cuda):
            self.cuda_usable = cuda

    assert devices_to_try(Remote(False)) == ["meta", "cpu"]
    assert devices_to_try(Remote(True)) == ["meta", "cpu", "cuda"]
    assert devices_to_try(lambda *a: None) == ["meta", "cpu", "cuda"]  # the learner's function in this process
    assert devices_to_try(torch.nn.Linear) == ["meta", "cpu", "cuda"]  # a module class (it has a .cuda method)


def test_the_child_never_claims_a_gpu_it_was_not_offered(judge):
    """The judge offers CUDA only where it has a GPU itself; a child on a CPU-only grader says it has none."""
    session, loaded = judge.server.notebook([], 10, {"memory_mb": 3072, "cpu_s": 20, "file_mb": 64}, 20, cuda=False)
    try:
        assert loaded["cuda"] is False and session.cuda is False
    finally:
        session.end()


def test_exit_reasons_say_why():
    assert "3072 MiB" in exit_reason({"exited": -9, "reason": "memory"}, {"memory_mb": 3072})
    assert "SIGKILL" in exit_reason({"exited": -9, "reason": None}, {})
    assert "status 3" in exit_reason({"exited": 3}, {})


def test_code_that_only_works_on_the_cpu_loses_exactly_the_device_point(judge):
    """A tensor made without device=: right everywhere on the CPU, wrong on any other device."""
    head, _, rest = RIGHT.partition(":\n")
    answer = f"{head}:\n    query = query + torch.zeros(query.shape[-1])\n{rest}"
    verdicts = verdicts_of(judge, answer)
    assert not verdicts["hidden-device"][0] and "[device]" in verdicts["hidden-device"][1], verdicts["hidden-device"]
    assert all(verdicts[cell][0] for cell in CELLS if cell != "hidden-device"), verdicts


def test_the_sandbox_gets_the_gpu_nodes_and_nothing_else(monkeypatch, tmp_path):
    """With a GPU, the NVIDIA device nodes, the PCI topology and LD_LIBRARY_PATH's folders, read-only but the
    nodes; without one, none of them. (Tried on a real GPU by tests/checks/test_gpu.py.)"""
    from autograder.grading.run import sandbox

    monkeypatch.setattr(sandbox, "gpu_nodes", lambda: ["/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"])
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{tmp_path}:relative:/no/such/folder")
    line = sandbox.command(["true"], {}, gpu=True)
    pairs = {(line[i], line[i + 1]) for i in range(len(line) - 1)}
    assert {("--dev-bind", "/dev/nvidia0"), ("--dev-bind", "/dev/nvidiactl"), ("--ro-bind-try", str(tmp_path))} <= pairs
    assert ("--ro-bind-try", "relative") not in pairs and ("--ro-bind-try", "/no/such/folder") not in pairs
    assert ("--ro-bind-try", "/sys/bus/pci") in pairs and ("--bind", "/sys/bus/pci") not in pairs
    plain = sandbox.command(["true"], {})
    assert not any("nvidia" in part or part.startswith("/sys") for part in plain)


def test_memory_shared_by_forks_counts_once():
    """A page that forks still share with their parent counts once (the fork bomb's many torch processes are
    not a memory bomb): the quick per-process sum is only an upper bound, made exact where it is over the limit."""
    import os
    import time

    from sandbox_servers import processes

    held = bytearray(64 << 20)  # touched: resident and anonymous in this process, shared by its forks
    children = []
    for _ in range(6):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    try:
        pids = [os.getpid(), *children]
        quick = processes.resident_bytes(pids)
        exact = processes.resident_bytes(pids, limit=1)  # over any limit: counted exactly
        assert quick >= 7 * len(held) * 0.9, quick
        assert len(held) * 0.9 <= exact < quick / 3, (exact, quick)
    finally:
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def test_nothing_a_notebook_writes_in_tmp_meets_the_next(judge):
    """The unit server's sandbox lives for the whole job: its /tmp (HOME too) is emptied between notebooks."""
    plant = ("import os\nos.makedirs('/tmp/.stash/deeper', exist_ok=True)\nopen('/tmp/.stash/deeper/x', 'w').write('x')\n"
             "os.chmod('/tmp/.stash/deeper', 0)\nos.chmod('/tmp/.stash', 0)\n")  # locked: it must be unlocked to go
    assert all(passed for passed, _ in verdicts_of(judge, plant + RIGHT).values())
    probe = "import os\nassert not os.path.exists('/tmp/.stash'), os.listdir('/tmp')\n"
    verdicts = verdicts_of(judge, probe + RIGHT)
    assert all(passed for passed, _ in verdicts.values()), verdicts
