"""`make lab` copies the course into a workspace and serves JupyterLab on it, with the learner's side of nbgrader."""
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from learner_kit.workspace import DEFAULT_LAYOUT, kernel_metadata
from tests.course_files import ASSIGNMENTS
from tests.serving import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks to serve yet")


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
    port, token = free_port(), "course-test"
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
        # the learner's lab (lab-config/): nbgrader's Validate, not its instructor or exchange tools, no news
        _, _, body = _get(f"{base}/lab?token={token}", deadline)
        page_config = json.loads(re.search(rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                           body, re.S).group(1))
        disabled = set(page_config["disabledExtensions"])
        assert {"@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list",
                "@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader",
                "@jupyterlab/apputils-extension:announcements"} <= disabled
        assert "@jupyter/nbgrader:validate-assignment" not in disabled
        for instructor_only in ("/formgrader", "/courses", "/formgraders"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"{base}{instructor_only}{'&' if '?' in instructor_only else '?'}token={token}", timeout=5)
            assert refused.value.code == 404, instructor_only
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
    notebook = workspace / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb"
    assert notebook.is_file()
    # what the kernel writes on start is there already, so opening the notebook does not mark it unsaved
    assert json.loads(notebook.read_text())["metadata"]["language_info"] == kernel_metadata()["language_info"]
    # a first layout opens notebook 01 at /lab (not the Launcher); kept beside the learner's work
    layout = json.loads((workspace / ".jupyter" / "workspaces" / DEFAULT_LAYOUT).read_text())
    assert layout["data"]["layout-restorer:data"]["main"]["current"] == f"notebook:{ASSIGNMENTS[0]}/{ASSIGNMENTS[0]}.ipynb"


KOREAN = sorted(p.parent.name for p in (ROOT / "ko" / "course").glob("*/*.ipynb"))


@pytest.mark.skipif(not KOREAN, reason="no Korean edition released")
def test_make_lab_opens_the_korean_edition_in_its_own_workspace(tmp_path):
    port, token = free_port(), "course-test"
    workspace = tmp_path / "workspace-ko"
    args = f"--no-browser --port={port} --ServerApp.token={token} --ServerApp.open_browser=False"
    lab = subprocess.Popen(
        ["make", "--no-print-directory", "lab", "COURSE_LANG=ko", f"WORKSPACE={workspace}", f"LAB_ARGS={args}"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        base = f"http://127.0.0.1:{port}"
        _, landing, _ = _get(f"{base}/?token={token}", deadline)
        assert landing.endswith(f"/lab/tree/{KOREAN[0]}/{KOREAN[0]}.ipynb?token={token}")
        _, _, body = _get(f"{base}/api/contents?token={token}", deadline)
        assert set(KOREAN) | {"GLOSSARY.md"} <= {entry["name"] for entry in json.loads(body)["content"]}
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
    notebook = json.loads((workspace / KOREAN[0] / f"{KOREAN[0]}.ipynb").read_text(encoding="utf-8"))
    assert notebook["metadata"]["course_language"] == "ko"
    assert re.search("[\uac00-\ud7a3]", "".join(notebook["cells"][0]["source"]))


def test_make_lab_refuses_an_unknown_language_and_asks_nothing():
    result = subprocess.run(["make", "--no-print-directory", "-n", "lab", "COURSE_LANG=fr"], cwd=ROOT,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "COURSE_LANG=fr is not an edition of the course" in result.stderr
