"""`make lab` copies course/ into the learner's workspace once and never overwrites their work."""
import json
import sys

from learner_kit.workspace import DEFAULT_LAYOUT, first_notebook, kernel_metadata, seed_layout, stamp_kernel, sync_workspace


def test_first_sync_copies_everything_and_later_ones_only_add(tmp_path):
    release, workspace = tmp_path / "course", tmp_path / "workspace"
    (release / "01-attention").mkdir(parents=True)
    (release / "01-attention" / "01-attention.ipynb").write_text("release v1")
    assert len(sync_workspace(release, workspace)) == 1

    learner_file = workspace / "01-attention" / "01-attention.ipynb"
    learner_file.write_text("the learner's answers")
    (release / "01-attention" / "01-attention.ipynb").write_text("release v2")
    (release / "02-multi-head").mkdir()
    (release / "02-multi-head" / "02-multi-head.ipynb").write_text("new notebook")

    copied = sync_workspace(release, workspace)

    assert copied == [workspace / "02-multi-head" / "02-multi-head.ipynb"]
    assert learner_file.read_text() == "the learner's answers"


def test_checkpoints_are_not_copied(tmp_path):
    release = tmp_path / "course"
    (release / ".ipynb_checkpoints").mkdir(parents=True)
    (release / ".ipynb_checkpoints" / "x.ipynb").write_text("{}")
    assert sync_workspace(release, tmp_path / "workspace") == []


def _notebook(language_info):
    return {"cells": [], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                                     "language": "python"}, "language_info": language_info},
            "nbformat": 4, "nbformat_minor": 5}


def test_a_copied_notebook_gets_what_its_kernel_writes_on_start(tmp_path):
    release, workspace = tmp_path / "course", tmp_path / "workspace"
    (release / "01-attention").mkdir(parents=True)
    (release / "01-attention" / "01-attention.ipynb").write_text(json.dumps(_notebook({"name": "python"})))
    sync_workspace(release, workspace)
    copied = json.loads((workspace / "01-attention" / "01-attention.ipynb").read_text())
    assert copied["metadata"]["language_info"] == kernel_metadata()["language_info"]
    assert copied["metadata"]["language_info"]["version"] == sys.version.split()[0]
    assert not stamp_kernel(workspace / "01-attention" / "01-attention.ipynb")  # already right: left alone


def test_a_first_layout_opens_the_first_notebook_and_a_saved_one_is_kept(tmp_path):
    (tmp_path / "ws" / "02-multi-head").mkdir(parents=True)
    (tmp_path / "ws" / "02-multi-head" / "02-multi-head.ipynb").write_text("{}")
    (tmp_path / "ws" / "01-attention").mkdir()
    (tmp_path / "ws" / "01-attention" / "01-attention.ipynb").write_text("{}")
    assert first_notebook(tmp_path / "ws") == "01-attention/01-attention.ipynb"
    written = seed_layout(tmp_path / "layouts", "01-attention/01-attention.ipynb")
    layout = json.loads(written.read_text())
    assert layout["data"]["layout-restorer:data"]["main"]["current"] == "notebook:01-attention/01-attention.ipynb"
    written.write_text("the learner's own layout")
    assert seed_layout(tmp_path / "layouts", "01-attention/01-attention.ipynb") is None
    assert written.read_text() == "the learner's own layout"


def test_the_layout_file_is_where_jupyterlab_looks_for_the_default_workspace():
    from jupyterlab_server.workspaces_handler import WORKSPACE_EXTENSION, slugify

    assert DEFAULT_LAYOUT == slugify("default") + WORKSPACE_EXTENSION
