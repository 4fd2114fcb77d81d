"""The notebook's one run (verify.py, sandbox_servers/unit_server.py, recorded_run.py): what each cell printed and
showed is recorded in the unit server's child and put into nbgrader's graded notebook, never onto a graded cell."""
import nbformat
import torch

from autograder.grading.bookkeeping.recorded_run import RUN_INDEX, RecordedRun, recorded, shown_outputs, tag_cells
from autograder.grading.bookkeeping.scratch import ERROR_OUTPUT
from autograder.grading.bookkeeping.source import load_notebook
from autograder.grading.run.verify import NotebookRun, learner_layout, payload_segments
from sandbox_servers import unit_server

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def run(source, namespace=None):
    outputs = unit_server.CellOutputs()
    failure = unit_server.run_cell(source, "<test cell>", namespace if namespace is not None else {}, 10, outputs)
    return failure, outputs.outputs


def test_a_cell_shows_what_it_printed_its_last_value_and_its_error():
    failure, outputs = run("print('a')\nimport sys\nprint('b', file=sys.stderr)\nprint('c')\n41 + 1")
    assert failure is None
    assert outputs == [{"type": "stream", "name": "stdout", "text": "a\n", }, {"type": "stream", "name": "stderr", "text": "b\n"},
                       {"type": "stream", "name": "stdout", "text": "c\n"}, {"type": "result", "text": "42"}]
    failure, outputs = run("print('before')\n1 / 0")
    assert failure.startswith("ZeroDivisionError") and outputs[-1] == {"type": "error", "text": "division by zero",
                                                                       "ename": "ZeroDivisionError"}
    assert run("x = 1")[1] == [] and run("None")[1] == []  # nothing to show


def test_a_cell_that_prints_megabytes_keeps_a_bounded_part():
    failure, outputs = run("for _ in range(1000):\n    print('x' * 10_000)")
    assert failure is None and len(outputs) == 1
    assert unit_server.MAX_OUTPUT_CHARS < len(outputs[0]["text"]) < unit_server.MAX_OUTPUT_CHARS + 100
    assert outputs[0]["text"].endswith("the rest of this cell's output was cut]\n")


def test_display_and_figures_are_shown_as_a_notebook_would():
    namespace = {"display": unit_server.display}

    class Rich:
        def _repr_html_(self):
            return "<b>bold</b>"

    namespace["Rich"] = Rich
    failure, outputs = run("display(Rich())\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                           "plt.plot([1, 2])\nplt.title('mine')", namespace)
    assert failure is None
    assert outputs[0] == {"type": "html", "text": "<b>bold</b>"}
    pictures = [o for o in outputs if o["type"] == "png"]
    assert len(pictures) == 1 and bytes(pictures[0]["data"].numpy())[:8] == PNG[:8]
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # closed once shown, as the inline backend does


def test_what_the_learners_process_sends_is_rebuilt_and_checked():
    picture = torch.frombuffer(bytearray(PNG), dtype=torch.uint8)
    raw = [{"type": "stream", "name": "stdout", "text": "hello"},
           {"type": "stream", "name": "stdin", "text": "no such stream"},
           {"type": "result", "text": 42},  # not text
           {"type": "html", "text": "<i>x</i>"},
           {"type": "png", "text": "", "data": picture},
           {"type": "png", "text": "", "data": torch.zeros(100, dtype=torch.uint8)},  # not a PNG
           {"type": "png", "text": "", "data": torch.zeros(10, 10, dtype=torch.uint8)},
           {"type": "error", "text": "boom", "ename": "ValueError"},
           {"type": "error", "text": "[sdpa-no-scale] forged", "ename": ERROR_OUTPUT},  # the grader's messages' name
           {"type": "javascript", "text": "alert(1)"}, "not a dict", ["nor", "this"]]
    outputs = shown_outputs(raw)
    assert [o.output_type for o in outputs] == ["stream", "display_data", "display_data", "error", "error"]
    assert outputs[-1].ename == "Error"  # a learner's exception named like the grader's messages is not one of them
    assert outputs[2].data["image/png"].startswith("iVBORw0KGgo")  # base64 of the PNG signature
    assert shown_outputs("not a list") == [] and len(shown_outputs([raw[0]] * 500)) == 50


def fixture_notebooks(tmp_path):
    from tests.fixtures.grading_course import write_sources

    source_path = write_sources(tmp_path / "source") / "fx-attn" / "fx-attn.ipynb"
    return load_notebook("fx-attn", source_path), nbformat.read(str(source_path), as_version=4)


def test_the_learners_own_cells_run_after_the_verdicts_and_keep_their_place(tmp_path):
    source, submitted = fixture_notebooks(tmp_path)
    submitted.cells.insert(1, nbformat.v4.new_code_cell("print('my own cell')"))
    keys, own = learner_layout(source, submitted)
    assert any(cell["source"] == "print('my own cell')" and cell["key"] == 1 for cell in own)
    graded = {c.grade_id for c in source.graded}
    assert keys and not graded & set(keys)  # answers and provided code have a place; graded cells never
    for cells, _ in payload_segments(source, submitted, keys):
        for cell in cells:
            assert ("key" in cell) == (cell["grade_id"] in keys)
    # A graded cell moved or deleted: nbgrader lays the notebook out again, so nothing is shown in place.
    tests = [i for i, c in enumerate(submitted.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in graded]
    moved = nbformat.from_dict(submitted)
    moved.cells.append(moved.cells.pop(tests[0]))
    assert learner_layout(source, moved) == ({}, [])
    deleted = nbformat.from_dict(submitted)
    del deleted.cells[tests[-1]]
    assert learner_layout(source, deleted) == ({}, [])


def test_a_forged_reply_puts_nothing_on_a_cell_it_was_not_asked_to_run():
    notebook_run = NotebookRun.__new__(NotebookRun)
    notebook_run.outputs = {}
    reply = {"outputs": [[3, [{"type": "stream", "name": "stdout", "text": "mine"}]],
                         [7, [{"type": "stream", "name": "stdout", "text": "forged"}]],
                         [True, []], [[3], []], "junk"]}
    notebook_run.keep_outputs([{"kind": "code", "source": "", "key": 3}], reply)
    assert list(notebook_run.outputs) == [3] and notebook_run.outputs[3][0].text == "mine"
    notebook_run.keep_outputs([{"kind": "code", "source": "", "key": 3}], {"outputs": [[3, []]]})
    assert notebook_run.outputs[3][0].text == "mine"  # a cell run again (a restarted child) keeps its first outputs


def test_graded_cells_show_the_verdict_never_the_learners_outputs(tmp_path):
    source, submitted = fixture_notebooks(tmp_path)
    tag_cells(submitted)
    graded = [c for c in submitted.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")
              and not c.metadata["nbgrader"].get("solution")]
    indexes = {c.metadata[RUN_INDEX] for c in submitted.cells if c.cell_type == "code"}
    forged = [nbformat.v4.new_output("stream", name="stdout", text="all tests passed")]
    verdicts = {c.metadata["nbgrader"]["grade_id"]: (False, "wrong") for c in graded}
    verdicts[graded[0].metadata["nbgrader"]["grade_id"]] = (True, "")
    with recorded({"fx-attn": ({i: forged for i in indexes}, verdicts)}):
        processed, _ = RecordedRun().preprocess(submitted, {"nbgrader": {"notebook": "fx-attn"}})
    for cell in processed.cells:
        assert RUN_INDEX not in cell.get("metadata", {})
        if cell is graded[0]:
            assert [(o.output_type, o.text) for o in cell.outputs] == [("stream", "This test passed.\n")]
        elif cell in graded:
            assert [(o.output_type, o.ename, o.evalue) for o in cell.outputs] == [("error", ERROR_OUTPUT, "wrong")]
        elif cell.cell_type == "code":
            assert cell.outputs == forged
