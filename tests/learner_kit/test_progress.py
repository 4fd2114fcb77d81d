"""`make progress` / learner_kit.progress: which units of a learner's workspace pass their visible test."""
import json
import shutil
import time

import nbformat
import pytest

from autograder.paths import COURSE
from learner_kit import progress
from learner_kit.progress import FAILING, MISSING, NOT_STARTED, PASSED, course_progress, format_table, notebook_progress
from tests.course_files import ASSIGNMENTS, release_notebook, source_notebook

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no notebooks yet")
SDPA = "scaled_dot_product_attention"


def put(workspace, assignment, nb):
    target = workspace / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(target))
    return target


def with_answer(assignment, unit, source):
    """The release notebook of ``assignment`` with ``source`` typed into the answer cell of ``unit``."""
    nb = release_notebook(assignment)
    cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == unit]
    assert len(cells) == 1
    cells[0].source = source
    return nb


def answer_source(assignment, unit):
    """The source notebook's answer to ``unit``, its solution markers removed (what a learner who got it right has)."""
    for cell in source_notebook(assignment).cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == unit:
            return "\n".join(line for line in cell.source.splitlines() if "### " not in line)
    raise AssertionError(unit)


def by_unit(results):
    return {r.unit: r for r in results}


def test_an_untouched_release_is_not_started_everywhere(tmp_path):
    for assignment in ASSIGNMENTS:
        shutil.copytree(COURSE / assignment, tmp_path / assignment)
    results = course_progress(tmp_path)
    assert results and {r.status for r in results} == {NOT_STARTED}, format_table(results)
    assert [r.assignment for r in results] == sorted(r.assignment for r in results)


def test_every_solved_notebook_passes_and_all_ten_take_under_20_seconds(tmp_path):
    for assignment in ASSIGNMENTS:
        put(tmp_path, assignment, source_notebook(assignment))
    started = time.process_time()  # this process's CPU time: what the check costs, not how busy the machine is
    results = course_progress(tmp_path)
    took = time.process_time() - started
    assert {r.status for r in results} == {PASSED}, format_table(results)
    units = {r.unit for r in results}
    assert {SDPA, "MultiHeadAttention", "Transformer", "greedy_decode"} <= units
    assert took < 20, f"all {len(ASSIGNMENTS)} notebooks took {took:.1f} s of CPU"


def test_a_wrong_answer_is_failing_with_its_named_mistake(tmp_path):
    wrong = answer_source("01-attention", SDPA).replace("/ math.sqrt(d_k)", "")
    put(tmp_path, "01-attention", with_answer("01-attention", SDPA, wrong))
    [result] = notebook_progress(tmp_path / "01-attention" / "01-attention.ipynb")
    assert result.status == FAILING and result.detail.startswith("[sdpa-no-scale]"), result
    assert "\n" not in result.detail


def test_a_right_answer_passes_and_a_later_blank_stays_not_started(tmp_path):
    nb = with_answer("02-multi-head", "split_heads", answer_source("02-multi-head", "split_heads"))
    results = by_unit(notebook_progress(put(tmp_path, "02-multi-head", nb)))
    assert results["split_heads"].status == PASSED
    assert results["merge_heads"].status == NOT_STARTED
    assert results["MultiHeadAttention"].status == NOT_STARTED


def test_an_answer_cell_that_does_not_run_is_failing_and_says_why(tmp_path):
    put(tmp_path, "01-attention", with_answer("01-attention", SDPA, "def scaled_dot_product_attention(q, k, v:\n    pass"))
    [result] = notebook_progress(tmp_path / "01-attention" / "01-attention.ipynb")
    assert result.status == FAILING and "SyntaxError" in result.detail, result


def test_an_endless_cell_costs_its_unit_only(tmp_path):
    nb = with_answer("06-masks", "make_pad_mask", "while True:\n    pass")
    results = by_unit(notebook_progress(put(tmp_path, "06-masks", nb), timeout=1))
    assert results["make_pad_mask"].status == FAILING and "TimeoutError" in results["make_pad_mask"].detail
    assert results["make_subsequent_mask"].status == NOT_STARTED


def test_a_deleted_answer_cell_is_missing(tmp_path):
    nb = release_notebook("01-attention")
    nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") != SDPA]
    [result] = notebook_progress(put(tmp_path, "01-attention", nb))
    assert result.status == MISSING and "answer cell" in result.detail


def test_a_notebook_that_is_not_json_is_reported_not_raised(tmp_path):
    (tmp_path / "01-attention").mkdir()
    (tmp_path / "01-attention" / "01-attention.ipynb").write_text("{ not json")
    [result] = course_progress(tmp_path)
    assert result.status == MISSING and "cannot read" in result.detail


def test_only_the_notebooks_of_the_workspace_are_listed_and_nothing_is_written(tmp_path):
    target = put(tmp_path, "06-masks", release_notebook("06-masks"))
    (tmp_path / ".jupyter").mkdir()
    before = target.read_bytes()
    results = course_progress(tmp_path)
    assert {r.assignment for r in results} == {"06-masks"}
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".jupyter", "06-masks"]


def test_the_table_has_one_line_per_unit_and_a_count(tmp_path):
    put(tmp_path, "06-masks", release_notebook("06-masks"))
    table = format_table(course_progress(tmp_path))
    lines = table.splitlines()
    assert lines[0].split() == ["notebook", "unit", "visible", "test"]
    assert sum("not started" in line for line in lines) == 3
    assert lines[-1] == "0 of 3 units pass their visible test."
    assert format_table([]).startswith("No notebooks found")


def test_the_workspace_is_found_from_a_notebook_folder_or_the_repository(tmp_path, monkeypatch):
    put(tmp_path / "workspace", "06-masks", release_notebook("06-masks"))
    assert progress.find_workspace(tmp_path / "workspace" / "06-masks") == tmp_path / "workspace"
    assert progress.find_workspace(tmp_path) == tmp_path / "workspace"
    monkeypatch.chdir(tmp_path / "workspace" / "06-masks")
    assert progress.find_workspace() == tmp_path / "workspace"


def test_the_command_line_prints_the_table_or_says_how_to_start(tmp_path, capsys):
    assert progress.main([str(tmp_path / "nowhere")]) == 1
    assert "make lab" in capsys.readouterr().out
    put(tmp_path, "06-masks", release_notebook("06-masks"))
    assert progress.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "make_pad_mask" in out and "0 of 3 units" in out


def test_plan_keeps_definitions_of_ordinary_cells_only():
    cells = [
        {"cell_type": "code", "metadata": {},
         "source": "import math\nx = slow()\ndef f():\n    return 1\nplt.show()\npassed = set()\nX = torch.tensor([1.0])"},
        {"cell_type": "markdown", "metadata": {}, "source": "# title"},
        {"cell_type": "code", "metadata": {"nbgrader": {"solution": True, "grade_id": "f"}}, "source": "def f(): ..."},
        {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "grade_id": "f-visible"}}, "source": "assert f()"},
        {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "grade_id": "f-hidden-values"}}, "source": ""},
    ]
    steps = progress.plan(json.loads(json.dumps(cells)))
    assert [(kind, name) for kind, name, _ in steps] == [("code", ""), ("answer", "f"), ("test", "f")]
    kept = steps[0][2]
    assert "slow()" not in kept and "plt.show" not in kept and "def f" in kept
    assert "passed = set()" in kept and "X = torch.tensor([1.0])" in kept


def test_show_progress_runs_the_notebooks_in_another_process(tmp_path, capsys):
    put(tmp_path, "06-masks", release_notebook("06-masks"))
    results = progress.show_progress(tmp_path)
    assert [r.status for r in results] == [NOT_STARTED] * 3
    assert "0 of 3 units" in capsys.readouterr().out
    assert progress.show_progress(tmp_path, in_process=True) == results



def test_the_notebook_cell_shows_the_table_only(tmp_path):
    """The progress cell's last line is show_progress(): its value is not echoed as a long list under the table."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell.display_pub.publish = lambda data, *args, **kwargs: shown.append(data)
    shell.displayhook.write_format_data = lambda data, *args, **kwargs: shown.append(data)
    shell.run_cell(f"from learner_kit.progress import show_progress\nshow_progress({str(tmp_path)!r}, in_process=True)")
    assert shown == []


def test_the_korean_table_lines_up_in_a_terminal():
    """Hangul takes two columns of a terminal: in the Korean table every unit and every verdict starts in the column
    of its heading (measured with wcwidth, as terminals count), and a long Korean message is cut to its width."""
    from wcwidth import wcswidth

    from learner_kit.i18n import speaking, tr
    from learner_kit.progress import UnitProgress

    results = [UnitProgress("01-attention", "scaled_dot_product_attention", PASSED),
               UnitProgress("02-multi-head", "split_heads", FAILING, "[split-heads-order] 헤드 축의 순서가 " * 8),
               UnitProgress("02-multi-head", "merge_heads", NOT_STARTED),
               UnitProgress("03-add-norm", "(노트북)", MISSING, "03-add-norm.ipynb 파일을 읽을 수 없습니다")]
    with speaking("ko"):
        lines = format_table(results, detail_width=40).splitlines()
        headings = tr("unit"), tr("visible test")
        marks = {PASSED: tr("✓ passed"), FAILING: tr("✗ failing"), NOT_STARTED: tr("· not started"), MISSING: tr("? missing")}

    def column(line, text):
        return wcswidth(line[: line.index(text)])

    rows = lines[2:-1]
    units = {column(lines[0], headings[0])} | {column(row, r.unit) for row, r in zip(rows, results)}
    verdicts = {column(lines[0], headings[1])} | {column(row, marks[r.status]) for row, r in zip(rows, results)}
    assert len(units) == 1 and len(verdicts) == 1, "\n".join(lines)
    assert wcswidth(lines[1]) == wcswidth(lines[0]), "the rule under the headings is as wide as they are"
    detail = rows[1].split(": ", 1)[1]
    assert detail.endswith("…") and wcswidth(detail) <= 40, detail
