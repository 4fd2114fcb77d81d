"""`make lab` copies course/ into the learner's workspace once and never overwrites their work."""
from learner_kit.workspace import sync_workspace


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
