"""The device aspect on a real GPU (`make test-gpu`; skipped where no GPU is usable).

What a CPU machine cannot show: the learner's code runs on CUDA inside the grading sandbox, its
results are compared with the reference's on CUDA within the CPU's float32 tolerance (TF32 off),
right answers keep their device point there, and known mistakes are told apart on CUDA as on the CPU.
"""
import pytest
import torch

from autograder.checks.core import UNITS, devices_to_try
from learner_kit import harness
from tests.grading.run.test_judge import serving_judge
from tests.zoo import load_all, run_check

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no usable GPU here")]
BUGS, RIGHTS = load_all()
MUTANTS_PER_UNIT = 4  # a sample: the first variant of the first few known mistakes of each unit


@pytest.fixture(scope="module")
def judge():
    yield from serving_judge(120, 60)


def test_the_sandboxed_child_runs_on_the_gpu(judge):
    session, loaded = judge.server.notebook([], 60, {"memory_mb": 3072, "cpu_s": 60, "file_mb": 64}, 60, cuda=True)
    try:
        assert loaded["cuda"] is True and session.cuda is True, "the GPU is not usable inside the sandbox"
    finally:
        session.end()


@pytest.mark.parametrize("specimen", [s for s in RIGHTS if "device" in s.aspects], ids=lambda s: f"{s.unit}-{s.name}")
def test_right_answers_keep_the_device_point_on_cuda(specimen):
    assert "cuda" in devices_to_try(specimen.candidate)
    failure, printed = run_check(specimen, "device")
    assert failure is None, str(failure)


def _sample():
    for name, spec in UNITS.items():
        for mistake_id, group in list(spec.mutants.items())[:MUTANTS_PER_UNIT]:
            yield pytest.param(spec, mistake_id, group[0], id=f"{name}-{mistake_id}")


@pytest.mark.parametrize("spec, mistake_id, mutant", list(_sample()))
def test_mutants_are_told_apart_on_cuda_as_on_the_cpu(spec, mistake_id, mutant):
    """Same verdict (right, or the same symptom) on the CPU and on CUDA: the tolerance holds for GPU kernels."""
    call, case = spec.build_call(), spec.cases["values"]()[0]
    verdicts = []
    for device in ("cpu", "cuda"):
        moved = case.to(device=device)
        got, want = harness.run(mutant, call, moved), harness.run(spec.reference, call, moved)
        found = harness.verdict(got, want, moved, call.axes)
        verdicts.append(found[0] if found else None)
    assert verdicts[0] == verdicts[1], verdicts
