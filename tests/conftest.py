"""Settings for every test run.

Under pytest-xdist (`make test`, `--dist loadfile`: each test file on one worker, so its module fixtures
start once), each worker's PyTorch uses one thread: the workers already share the cores.
"""
import os


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)
