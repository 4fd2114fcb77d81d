"""Static hints on a failing unit (learner_kit/static_hints.py): what ruff sees in the answer cell, in plain words.

A hint is added only to a failure, by the visible check in the learner's kernel
(learner_kit/visible.py) and by the grader's judge (autograder/grading/run/judge.py); it names the
line and its code, never the answer, and it is silent when ruff is missing or fails.
"""
import json
import linecache
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.grading.run.judge import GradedCall, _static_hints
from learner_kit import static_hints
from learner_kit.static_hints import INTRO, MAX_HINTS, hints
from learner_kit.visible import visible_problem

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_NAMES = {"math", "np", "torch", "nn", "F"}
pytestmark = pytest.mark.skipif(static_hints._ruff_bin() is None, reason="ruff is not installed")


def _cells(assignment, folder="solutions"):
    return json.loads((ROOT / folder / assignment / f"{assignment}.ipynb").read_text())["cells"]


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def answer(assignment, grade_id):
    return next("".join(c["source"]) for c in _cells(assignment) if _grade_id(c) == grade_id)


MHA = answer("02-multi-head", "MultiHeadAttention")
MHA_COMPARES = MHA.replace("self.w_q = nn.Linear", "self.w_q == nn.Linear")
assert MHA_COMPARES != MHA
HELPERS = {"split_heads", "merge_heads", "scaled_dot_product_attention"}


def _line_of(source, text):
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


# ---------------------------------------------------------------- each finding, one sentence


def test_a_comparison_used_as_a_statement():
    found = hints(MHA_COMPARES, NOTEBOOK_NAMES | HELPERS)
    line = _line_of(MHA_COMPARES, "self.w_q ==")
    assert found == [f"Line {line}: `self.w_q == nn.Linear(d_model, d_model)` compares two values and throws "
                     "the result away, so nothing is stored; to assign, use a single `=`."]


def test_super_without_its_call():
    source = MHA.replace("super().__init__()", "super.__init__()")
    found = hints(source, NOTEBOOK_NAMES | HELPERS)
    assert len(found) == 1 and found[0].startswith(f"Line {_line_of(source, 'super.')}: `super.__init__()` ")
    assert "built-in `super`" in found[0]


def test_a_name_defined_nowhere():
    source = MHA.replace("merge_heads(", "merge_head(")
    found = hints(source, NOTEBOOK_NAMES | HELPERS)
    assert len(found) == 1 and found[0].startswith(f"Line {_line_of(source, 'merge_head(')}: `merge_head` is defined nowhere")


def test_a_value_computed_and_never_used():
    unused = textwrap.dedent("""\
        def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
            weights = scores.softmax(dim=-1)
            output = weights @ value
            return scores @ value, weights
        """)
    assert hints(unused, NOTEBOOK_NAMES) == [
        "Line 4: `output` gets a value that is never used afterwards; was it meant to be used below?"]
    thrown_away = textwrap.dedent("""\
        def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
            if mask is not None:
                scores.masked_fill(mask == 0, -1e9)
            scores / 2
            weights = scores.softmax(dim=-1)
            return weights @ value, weights
        """)
    assert hints(thrown_away, NOTEBOOK_NAMES) == [
        "Line 4: `scores.masked_fill(mask == 0, -1e9)` computes a new value and throws it away: `masked_fill` "
        "leaves `scores` unchanged.",
        "Line 5: `scores / 2` computes a value and throws it away: the line has no effect.",
    ]


def test_at_most_three_hints_the_likely_causes_first():
    source = textwrap.dedent("""\
        def f(x):
            unused = x + 1
            x == 2
            y
            z
            w
            return x
        """)
    found = hints(source)
    assert len(found) == MAX_HINTS == 3
    assert found[0].startswith("Line 3: `x == 2`") and all("`unused`" not in f for f in found)


# ---------------------------------------------------------------- right code, and the notebook's names


def _answer_cells():
    for notebook in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        known = set(NOTEBOOK_NAMES)
        for cell in cells:
            if cell["cell_type"] == "code":
                known |= static_hints.defined_names("".join(cell["source"]))
        for cell in cells:
            if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                yield _grade_id(cell), "".join(cell["source"]), known


def test_no_hint_for_any_right_answer_of_the_course():
    cells = list(_answer_cells())
    assert len(cells) > 20
    found = {grade_id: hints(source, known) for grade_id, source, known in cells}
    assert not any(found.values()), {g: h for g, h in found.items() if h}


def test_names_from_other_cells_are_not_undefined():
    assert hints(MHA, NOTEBOOK_NAMES | HELPERS) == []
    alone = hints(MHA, NOTEBOOK_NAMES)  # the same cell with nothing before it: its helpers are undefined
    assert alone and all("is defined nowhere" in h for h in alone)
    assert hints(MHA) and hints("print(len([1]), get_ipython)\n") == []  # builtins, IPython's names


# ---------------------------------------------------------------- quiet when it cannot help


def test_missing_or_broken_ruff_gives_nothing_and_writes_nothing(monkeypatch, capfd):
    monkeypatch.setattr(static_hints, "_ruff_bin", lambda: None)
    assert hints(MHA_COMPARES) == []
    monkeypatch.setattr(static_hints, "_ruff_bin", lambda: "/nonexistent/bin/ruff")
    assert hints(MHA_COMPARES) == []
    monkeypatch.setattr(static_hints, "_ruff_bin", lambda: sys.executable)  # runs, but is not ruff
    assert hints(MHA_COMPARES) == []
    assert capfd.readouterr() == ("", "")


def test_no_ruff_package_gives_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "ruff", None)  # `import ruff` fails
    static_hints._ruff_bin.cache_clear()
    try:
        assert hints(MHA_COMPARES) == []
    finally:
        static_hints._ruff_bin.cache_clear()


def test_odd_input_gives_nothing():
    assert hints("") == hints(None) == hints("def f(:\n    x == 1\n") == []


def test_it_is_fast():
    hints(MHA_COMPARES)
    start = time.perf_counter()
    for _ in range(5):
        hints(MHA_COMPARES, NOTEBOOK_NAMES | HELPERS)
    assert (time.perf_counter() - start) / 5 < 0.5  # ~5-30 ms; generous for a busy machine


# ---------------------------------------------------------------- the visible check in the learner's kernel


def _run_as_a_cell(source, namespace, number):
    """exec ``source`` as IPython runs a cell: compiled under a file name that only linecache knows."""
    filename = f"/tmp/ipykernel_0/static-hints-{number}.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)


def _notebook_namespace(mha_source):
    import torch
    from torch import nn
    import torch.nn.functional as F
    import math

    namespace = {"__name__": "__main__", "torch": torch, "nn": nn, "F": F, "math": math}
    cells = _cells("02-multi-head")
    for number, cell in enumerate(cells):
        if _grade_id(cell).startswith("provided") or _grade_id(cell) in ("split_heads", "merge_heads"):
            _run_as_a_cell("".join(cell["source"]), namespace, number)
    _run_as_a_cell(mha_source, namespace, hash(mha_source))
    return namespace


def test_a_failing_visible_check_shows_the_comparison():
    namespace = _notebook_namespace(MHA_COMPARES)
    message = visible_problem("MultiHeadAttention", namespace["MultiHeadAttention"])
    assert message.startswith("[runtime-error]") and "no attribute 'w_q'" in message
    assert f"{INTRO}\n- Line {_line_of(MHA_COMPARES, 'self.w_q ==')}: `self.w_q == nn.Linear(d_model, d_model)`" in message


def test_a_passing_visible_check_shows_nothing():
    namespace = _notebook_namespace(MHA)
    assert visible_problem("MultiHeadAttention", namespace["MultiHeadAttention"]) == ""


def test_a_stub_gets_no_hints_and_a_function_of_a_file_is_not_read():
    namespace = _notebook_namespace(MHA)
    _run_as_a_cell("def split_heads(x, n_head):\n    unused = 1\n    raise NotImplementedError()\n", namespace, "stub")
    message = visible_problem("split_heads", namespace["split_heads"])
    assert message.startswith("[not-implemented]") and INTRO not in message
    from autograder import reference

    assert static_hints.unit_hints(reference.MultiHeadAttention) == []  # a module's file: never linted
    assert static_hints.unit_hints(len) == [] and static_hints.unit_hints(object()) == []


def test_in_ipython_as_a_notebook_runs_it():
    """A real IPython shell runs the cells (its own compiler and linecache): the hint is there, nothing on stderr."""
    provided = ["".join(c["source"]) for c in _cells("02-multi-head")
                if _grade_id(c).startswith("provided") or _grade_id(c) in ("split_heads", "merge_heads")]
    script = textwrap.dedent("""\
        import json, sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        cells = json.loads(sys.stdin.read())
        for cell in cells:
            assert shell.run_cell(cell, silent=True).success
        result = shell.run_cell('from learner_kit.visible import visible_problem\\n'
                                'problem = visible_problem("MultiHeadAttention", MultiHeadAttention)', silent=True)
        print(json.dumps(shell.user_ns["problem"]))
        """)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps([*provided, MHA_COMPARES]),
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout.strip().splitlines()[-1])
    assert "`self.w_q == nn.Linear(d_model, d_model)` compares two values" in message, message
    assert done.stderr == ""


# ---------------------------------------------------------------- the judge, outside the sandbox


def _session(*cells):
    return SimpleNamespace(cells=list(cells), hints={}, dead=None)


def test_the_judge_adds_the_hints_of_the_answer_cell_to_a_failure():
    session = _session({"kind": "provided", "grade_id": "provided-4", "source": "def scaled_dot_product_attention(q, k, v, mask=None, dropout=None):\n    pass\n"},
                       {"kind": "answer", "grade_id": "split_heads", "source": answer("02-multi-head", "split_heads")},
                       {"kind": "answer", "grade_id": "merge_heads", "source": answer("02-multi-head", "merge_heads")},
                       {"kind": "answer", "grade_id": "MultiHeadAttention", "source": MHA_COMPARES})
    graded = GradedCall("MultiHeadAttention", "MultiHeadAttention", "values")
    text = _static_hints(session, graded, "[runtime-error] ...")
    assert text.startswith(f"\n\n{INTRO}\n- Line ") and "`self.w_q == nn.Linear(d_model, d_model)`" in text
    assert text.count("\n- ") == 1  # split_heads & co. come from the cells before: not undefined
    assert _static_hints(session, graded, "[not-implemented] ...") == ""
    helpers = "import math\n\ndef split_heads(x, n):\n    pass\n\ndef merge_heads(x):\n    pass\n\nsdpa = scaled_dot_product_attention = None\n"
    right = _session({"kind": "code", "grade_id": None, "source": helpers},
                     {"kind": "answer", "grade_id": "MultiHeadAttention", "source": MHA})
    assert _static_hints(right, graded, "[mha-wrong] ...") == ""


def test_the_judge_outside_the_sandbox_shows_the_comparison_on_each_failure():
    import nbformat

    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.bookkeeping.source import load_assignment
    from autograder.grading.run.verify import Verifier

    submitted = nbformat.read(str(ROOT / "solutions" / "02-multi-head" / "02-multi-head.ipynb"), as_version=4)
    for cell in submitted.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "MultiHeadAttention":
            cell.source = MHA_COMPARES
    judge = Verifier(Settings(notebook_budget_s=30), cell_timeout=20)
    try:
        verdicts = judge.verify(load_assignment(ROOT / "solutions", "02-multi-head")[0], submitted)
    finally:
        judge.close()
    hint = f"- Line {_line_of(MHA_COMPARES, 'self.w_q ==')}: `self.w_q == nn.Linear(d_model, d_model)` compares"
    for grade_id, (passed, message) in verdicts.items():
        if grade_id.startswith("MultiHeadAttention-"):  # every aspect fails: the module has no w_q
            assert not passed and f"{INTRO}\n{hint}" in message, (grade_id, message)
        else:
            assert passed and message == "", (grade_id, message)
