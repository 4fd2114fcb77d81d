"""`make lab` copies the course into a workspace and serves JupyterLab on it, with nbgrader's extension."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.course_files import ASSIGNMENTS

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks to serve yet")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, deadline):
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status, response.geturl(), response.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_make_lab_serves_the_course_from_a_workspace(tmp_path):
    port, token = _free_port(), "course-test"
    workspace = tmp_path / "workspace"
    args = f"--no-browser --port={port} --ServerApp.token={token} --ServerApp.open_browser=False"
    lab = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"WORKSPACE={workspace}", f"LAB_ARGS={args}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        base = f"http://127.0.0.1:{port}"
        _, landing, _ = _get(f"{base}/?token={token}", deadline)
        assert landing.endswith(f"/lab/tree/{ASSIGNMENTS[0]}/{ASSIGNMENTS[0]}.ipynb?token={token}")
        _, _, body = _get(f"{base}/api/contents?token={token}", deadline)
        served = {entry["name"] for entry in json.loads(body)["content"]}
        assert set(ASSIGNMENTS) <= served
        _, _, body = _get(f"{base}/lab/api/extensions?token={token}", deadline)
        extensions = {entry["name"]: entry["enabled"] for entry in json.loads(body)}
        assert extensions.get("jupyter-nbgrader") is True
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
    assert (workspace / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb").is_file()
