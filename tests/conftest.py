"""Settings for every test run.

Under pytest-xdist (`make test`, `--dist loadfile`: each test file on one worker, so its module fixtures
start once), each worker's PyTorch uses one thread: the workers already share the cores; and the test files
run longest first (by tests/durations.json), so that no long file starts last while the other worker waits.
"""
import json
import os
from pathlib import Path

BASELINE = Path(__file__).resolve().parent / "durations.json"  # seconds per test file, from a clean-clone run


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)


def pytest_collection_modifyitems(session, config, items):
    """Under xdist, each file's tests together, the files in descending recorded time (a new file last); every
    worker sorts the same way, from the same committed file, so their collections agree."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    try:
        seconds = json.loads(BASELINE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    first_seen = {}
    for index, item in enumerate(items):
        first_seen.setdefault(_test_file(item.nodeid), index)
    items.sort(key=lambda item: (-seconds.get(_test_file(item.nodeid), 0.0), first_seen[_test_file(item.nodeid)]))


def _test_file(nodeid):
    return nodeid.split("::", 1)[0]


# How long each test file took (setup, call and teardown of its tests), for `make test-quick`'s budget
# (tests/quick.py): written to build/test-durations.json by the run that saw the reports (xdist's controller).
_SECONDS_PER_FILE = {}


def pytest_runtest_logreport(report):
    path = _test_file(report.nodeid)
    _SECONDS_PER_FILE[path] = _SECONDS_PER_FILE.get(path, 0.0) + report.duration


def pytest_sessionfinish(session):
    if os.environ.get("PYTEST_XDIST_WORKER") or not _SECONDS_PER_FILE:
        return
    target = Path(session.config.rootpath) / "build" / "test-durations.json"
    try:
        known = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
        known.update({path: round(seconds, 1) for path, seconds in _SECONDS_PER_FILE.items()})
        target.parent.mkdir(exist_ok=True)
        target.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n", encoding="utf-8")
    except (OSError, ValueError):  # a record for the next quick run, never a reason for this run to fail
        pass
