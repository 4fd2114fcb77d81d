"""Issue 48 (B): a visible cell's own checks count at grading, with the notebook's message.

A visible test cell calls the learner_kit check and, beside it, checks of its own (functions the cell defines,
asserts). The judge used to decide the visible point from the stored cases alone, so an answer that fails only
the cell's own checks (OpenNMT-py's LabelSmoothingLoss fails 10-train's visible cell in the notebook) kept the
point. Now the judge runs the whole cell in the notebook's process after the stored cases pass
(judge._own_checks_problem): its failure costs the point, with the message the notebook shows.

For every visible cell that has checks of its own, the answer here is the solution's, wrapped so that it raises
when (and only when) one of the cell's own check functions calls it (a module: its forward; the cell's code runs
as "<test cell>", in this process as in the grader's): it passes the stored cases, the fresh ones and
every hidden check, and fails only the cell's own checks. The message the cell gives in this process (the notebook's
run) must be the grader's, word for word, and only that cell may lose its point.
"""
import ast
import contextlib
import io
import linecache

import nbformat
import pytest

from autograder.grading.bookkeeping.source import TEST, load_assignment
from autograder.grading.run.judge import graded_call
from autograder.grading.run.verify import payload_segments
from autograder.paths import SOLUTIONS, assignment_ids
from tests.grading.run.test_judge import notebook, serving_judge

WRAPPER = '''

import sys as _own_sys


def _own_check_running(names=frozenset({names})):
    frame = _own_sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in names and frame.f_code.co_filename == "<test cell>":
            return True
        frame = frame.f_back
    return False


if isinstance({unit}, type):
    import inspect as _own_inspect

    class {unit}({unit}):
        def forward(self, *args, **kwargs):
            if _own_check_running():
                raise ValueError("only the test cell's own checks see this")
            return super().forward(*args, **kwargs)

    {unit}.forward.__signature__ = _own_inspect.signature({unit}.__mro__[1].forward)
else:
    def _own_wrapped(function):
        import functools

        @functools.wraps(function)
        def {unit}(*args, **kwargs):
            if _own_check_running():
                raise ValueError("only the test cell's own checks see this")
            return function(*args, **kwargs)
        return {unit}

    {unit} = _own_wrapped({unit})
'''


def own_check_names(source):
    """The functions a visible cell defines: its own checks."""
    return sorted(node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef))


def visible_cells(assignment):
    source = load_assignment(SOLUTIONS, assignment)[0]
    return source, [cell for cell in source.cells if cell.kind == TEST and cell.grade_id.endswith("-visible")
                    and graded_call(cell) is not None and graded_call(cell).own_checks]


def failing_own_checks(assignment):
    """The solution notebook, each unit with a visible cell of its own checks wrapped as the module doc says."""
    source, cells = visible_cells(assignment)
    nb = notebook(SOLUTIONS, assignment)
    wrapped = {cell.grade_id.split("-")[0]: own_check_names(cell.source) for cell in cells}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in wrapped and cell.cell_type == "code":
            cell.source += WRAPPER.replace("{names}", repr(set(wrapped[grade_id]))).replace("{unit}", grade_id)
    return source, cells, nb


def notebook_messages(source, nb, cells):
    """{grade_id: the message each visible cell raises} when the cells run in order in this process, as a kernel runs
    them (the ordinary cells' definitions only, as the grader's process has them)."""
    from learner_kit import messages

    namespace = {"__name__": "__main__"}
    wanted = {cell.grade_id for cell in cells}
    found = {}
    for number, (ran, tests) in enumerate(payload_segments(source, nb)):
        for place, cell in enumerate(ran):
            label = f"<notebook cell {number}.{place}>"  # IPython keeps each cell's text, so errors quote its lines
            linecache.cache[label] = (len(cell["source"]), None, cell["source"].splitlines(True), label)
            try:  # as the grader's process does, a cell that raises costs only itself
                exec(compile(cell["source"], label, "exec"), namespace)
            except Exception:  # noqa: BLE001
                pass
        for test in tests:
            if test.grade_id not in wanted:
                continue
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(test.source, "<test cell>", "exec"), namespace)
            except AssertionError as error:
                found[test.grade_id] = str(error)
    assert messages  # the notebook's messages come from learner_kit, as in the grader's process
    return found


@pytest.fixture(scope="module")
def judge():
    yield from serving_judge(600, 120)


@pytest.mark.parametrize("assignment", assignment_ids())
def test_a_visible_cells_own_checks_cost_its_point_at_grading_with_the_notebooks_message(judge, assignment):
    source, cells, nb = failing_own_checks(assignment)
    if not cells:
        pytest.skip("no visible cell with checks of its own")
    in_notebook = notebook_messages(source, nb, cells)
    verdicts = judge.verify(source, nb)
    for cell in cells:
        assert cell.grade_id in in_notebook, f"{cell.grade_id}: the wrapped answer passes the cell's own checks"
        passed, message = verdicts[cell.grade_id]
        assert not passed, f"{cell.grade_id}: graded as passed, while the notebook says: {in_notebook[cell.grade_id]}"
        assert message == in_notebook[cell.grade_id], (cell.grade_id, message, in_notebook[cell.grade_id])
        assert "only the test cell's own checks see this" in message, message
    others = {grade_id: verdict for grade_id, verdict in verdicts.items()
              if grade_id not in {cell.grade_id for cell in cells}}
    assert all(passed for passed, _ in others.values()), {g: m for g, (p, m) in others.items() if not p}


def test_a_cell_of_one_call_has_no_checks_of_its_own():
    from autograder.grading.bookkeeping.source import Cell

    plain = Cell(TEST, 'from learner_kit.visible import check_visible\ncheck_visible("split_heads", split_heads)\n',
                 "split_heads-visible", 1.0)
    assert graded_call(plain).own_checks == ""
    with_checks = Cell(TEST, 'check_visible("LabelSmoothingLoss", LabelSmoothingLoss, *LOSS_CHECKS)\n',
                       "LabelSmoothingLoss-visible", 1.0)
    assert graded_call(with_checks).own_checks


def test_the_solutions_keep_every_visible_point(judge):
    for assignment in ("06-masks", "10-train"):
        source = load_assignment(SOLUTIONS, assignment)[0]
        verdicts = judge.verify(source, notebook(SOLUTIONS, assignment))
        assert all(passed for passed, _ in verdicts.values()), {g: m for g, (p, m) in verdicts.items() if not p}


assert nbformat  # the notebooks are read with nbformat (tests.grading.run.test_judge.notebook)
