"""The perturbation that `make test` runs nbval under really changes float rounding here.

Without this, the second nbval pass could silently compare identical runs and prove nothing.
"""
import os
import subprocess
import sys

from tests.perturbed import PERTURBED_ENV

# A few optimizer steps of a small Transformer layer: the kind of computation whose printed
# results differ between CPU families. Prints the final loss to every digit.
TRAINING = """
import torch
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, dropout=0.0)
optimizer = torch.optim.Adam(layer.parameters(), 1e-3)
x = torch.randn(64, 10, 64)
for _ in range(20):
    loss = layer(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(repr(loss.item()), torch.backends.cpu.get_cpu_capability())
"""


def final_loss(extra_env):
    env = {k: v for k, v in os.environ.items() if k not in PERTURBED_ENV}
    result = subprocess.run([sys.executable, "-c", TRAINING], env={**env, **extra_env},
                            capture_output=True, text=True, check=True, timeout=120)
    return result.stdout.split()


def test_the_perturbation_changes_the_rounding_of_training():
    native_loss, native_capability = final_loss({})
    perturbed_loss, perturbed_capability = final_loss(PERTURBED_ENV)
    assert perturbed_capability == "DEFAULT", f"ATEN_CPU_CAPABILITY had no effect ({perturbed_capability})"
    assert native_loss != perturbed_loss, (
        f"the same loss {native_loss} natively and under {PERTURBED_ENV}: the perturbed nbval pass would prove nothing"
    )


def test_the_same_run_twice_rounds_the_same():
    """The notebooks' outputs are deterministic on one machine, so a difference means the CPU."""
    assert final_loss(PERTURBED_ENV) == final_loss(PERTURBED_ENV)
