"""`make progress` runs the visible tests with one PyTorch thread (issue 36): their tensors are tiny, and the
thread pool only cost them time, most on a busy machine (a finished workspace: 25-28 s before, 14-18 s after, on a
2-core machine at load 7; 9 s of CPU time before, 6 s after). Its thread count is given back afterwards."""
import shutil
from pathlib import Path

import torch

from learner_kit import progress

ROOT = Path(__file__).resolve().parents[2]


def test_progress_runs_the_tests_with_one_thread_and_gives_the_count_back(tmp_path, monkeypatch, capsys):
    shutil.copytree(ROOT / "course" / "04-feed-forward", tmp_path / "04-feed-forward")
    seen = []

    def course_progress(workspace=None, timeout=None):
        seen.append(torch.get_num_threads())
        return []

    monkeypatch.setattr(progress, "course_progress", course_progress)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert progress.main([str(tmp_path)]) == 0
        assert seen == [1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert "the notebooks as last saved" in capsys.readouterr().out
