"""What stopped a notebook, read from a record's "failure" field (outputs/failures.py), and from the grader's message
text only for records written before that field existed."""
import json

from autograder.grading.outputs import failures
from autograder.grading.outputs.class_report import analyse, clean_records, write_report
from autograder.grading.outputs.failures import (
    FAILURE,
    JOB_STOPPED,
    KERNEL_STOPPED,
    NOT_GRADED_WHAT,
    OUTPUTS_RUN_STOPPED,
    RUN_STOPPED,
    TIME_BUDGET,
    record_failure,
    records_say_failures,
)
from autograder.grading.outputs.report import stops
from autograder.grading.run.combine import combined_records, mark_failures
from autograder.grading.run.judge import Verdict
from tests.grading.outputs.test_class_report import Tables, record, write_class

QUOTE = "ValueError: my notebook ran past its time budget of 120 s, said my friend"  # a learner's own words
STOPPED = "Not graded: the run of this notebook stopped before this cell (its process exited (status 1))."
OUTSIDE = ("nbgrader could not run this notebook to the end (DeadKernelError: Kernel died); graded outside the "
           "notebook kernel only.")


def failed(student, message, what, index=0, **fields):
    return {**record(student, "01-attention", "sdpa-visible", 0, [*([QUOTE] if index else []), message]),
            FAILURE: {"what": what, "message": index}, **fields}


def test_a_record_says_what_stopped_its_notebook():
    records = [failed("ada", STOPPED, RUN_STOPPED, index=1), failed("bob", OUTSIDE, KERNEL_STOPPED)]
    assert records_say_failures(records)
    assert record_failure(records[0], True) == ("limit", RUN_STOPPED, STOPPED)  # its message, not the quote before it
    assert record_failure(records[1], True) == ("limit", KERNEL_STOPPED, OUTSIDE)
    unreadable = failed("cy", "Not graded: x.ipynb is not valid JSON.", NOT_GRADED_WHAT)
    assert record_failure(unreadable, True)[:2] == ("unreadable", NOT_GRADED_WHAT)
    grader = failed("dan", "Not graded: the grading job stopped before this submission.", JOB_STOPPED,
                    grader_error=True)
    assert record_failure(grader, True)[:2] == ("grader", "grading error")  # the grader's own failure, as before


def test_only_records_from_before_the_field_are_read_by_their_words():
    quoting = record("eve", "01-attention", "sdpa-visible", 0, [QUOTE])
    new_run = [failed("ada", STOPPED, RUN_STOPPED), quoting]
    assert record_failure(quoting, records_say_failures(new_run)) is None  # graded normally: its words are its own
    old_run = [record("ada", "01-attention", "sdpa-visible", 0, [STOPPED]), quoting]
    assert not records_say_failures(old_run)
    assert record_failure(old_run[0], False) == ("limit", RUN_STOPPED, STOPPED)  # the old text match, kept for them
    assert record_failure(quoting, False)[:2] == ("limit", TIME_BUDGET)  # ... with its known mistake


def test_a_field_that_cannot_be_shown_is_no_failure():
    feedback = ["one message"]
    assert failures.clean_failure({"what": RUN_STOPPED, "message": 0}, feedback) == {"what": RUN_STOPPED, "message": 0}
    for value in (None, "run stopped", {"what": "no such kind", "message": 0}, {"what": RUN_STOPPED, "message": 1},
                  {"what": RUN_STOPPED, "message": "0"}, {"what": RUN_STOPPED, "message": True}):
        assert failures.clean_failure(value, feedback) is None, value
    records, bad = clean_records([{**record("ada", "a", "u-visible", 0, feedback), FAILURE: {"what": "x"}}])
    assert bad == 0 and records[0][FAILURE] is None and records_say_failures(records)


def test_limits_of_answer_cells_and_of_nbgraders_kernel():
    assert failures.answer_cell("TimeoutError: the cell ran longer than 30 s") == "answer cell: TimeoutError"
    assert failures.answer_cell("MemoryError") == "answer cell: MemoryError"
    assert failures.answer_cell("ValueError: TimeoutError") is None  # the learner's own mistake
    assert failures.kernel_stop("TimeoutError: the notebook ran past its time budget") == TIME_BUDGET
    assert failures.kernel_stop("OSError: the notebook wrote too much") == failures.DISK_LIMIT
    assert failures.kernel_stop("MemoryError: the notebook used more") == KERNEL_STOPPED
    assert set(failures.FAILURES.values()) == {"limit", "unreadable"}


class Cell:
    def __init__(self, grade_id, points=1.0):
        self.grade_id, self.points = grade_id, points


class Notebook:
    name = "01-attention"
    graded = (Cell("a-visible"), Cell("b-visible"), Cell("c-visible"))


class Packed:
    student, assignment = "ada", "01-attention"


def test_the_run_records_the_failure_where_the_message_is():
    verdicts = {"a-visible": Verdict(True, ""), "b-visible": Verdict(False, STOPPED, failure=RUN_STOPPED),
                "c-visible": Verdict(False, "AssertionError: [shape] wrong")}
    nbgrader = {"a-visible": (1.0, []), "b-visible": (0.0, ["The cell wrote to stderr: x"]), "c-visible": (0.0, [])}
    records = mark_failures(combined_records(Packed, Notebook, nbgrader, verdicts), verdicts)
    assert [r.get(FAILURE) for r in records] == [None, {"what": RUN_STOPPED, "message": 1}, None]
    assert records[1]["feedback"][1] == STOPPED
    stopped = mark_failures(combined_records(Packed, Notebook, None, verdicts, "DeadKernelError: Kernel died"),
                            verdicts, KERNEL_STOPPED)
    assert [r[FAILURE] for r in stopped] == [{"what": KERNEL_STOPPED, "message": 0}] * 3  # its message comes first
    assert all("graded outside the notebook kernel only" in r["feedback"][0] for r in stopped)
    assert json.loads(json.dumps(stopped)) == stopped  # as results.json keeps it


def page_tables(folder, records):
    return Tables(write_report(write_class(folder, records)).read_text(encoding="utf-8"))


def test_the_report_reads_the_field_as_it_read_the_words(tmp_path):
    notes = ("The run of this notebook for its outputs stopped (its process exited (status 1)): the cells after that "
             "point show no output; no points depend on them.")
    structured = [failed("ada", STOPPED, RUN_STOPPED), failed("bob", OUTSIDE, KERNEL_STOPPED),
                  failed("cy", "Not graded: no notebook named 01-attention.ipynb was submitted.", NOT_GRADED_WHAT),
                  failed("dan", notes, OUTPUTS_RUN_STOPPED)]
    plain = [{k: v for k, v in r.items() if k != FAILURE} for r in structured]
    new, old = page_tables(tmp_path / "new", structured), page_tables(tmp_path / "old", plain)
    assert new.body("limits") == old.body("limits") and len(new.body("limits")) == 3
    assert new.body("missing") == old.body("missing")
    assert [row[3] for row in new.body("limits")] == [RUN_STOPPED, KERNEL_STOPPED, OUTPUTS_RUN_STOPPED]
    assert stops(structured) == stops(plain)
    quoting = record("eve", "01-attention", "sdpa-visible", 0, [QUOTE])
    assert "eve" not in str(page_tables(tmp_path / "new2", [*structured, quoting]).body("limits"))
    assert "eve" in str(page_tables(tmp_path / "old2", [*plain, quoting]).body("limits"))  # the old reading's mistake


def test_a_submission_the_job_stopped_before_is_known_by_its_field():
    stopped = failed("ada", "Not graded: the grading job stopped before this submission (see logs).", JOB_STOPPED,
                     grader_error=True)
    assert analyse(clean_records([stopped, failed("bob", STOPPED, RUN_STOPPED)])[0]).job_stopped == {("ada", "01-attention")}
    renamed = {**stopped, "feedback": ["Not graded: the job ended early."]}  # other words, the same field
    assert analyse(clean_records([renamed])[0]).job_stopped == {("ada", "01-attention")}
    old = {k: v for k, v in stopped.items() if k != FAILURE}
    assert analyse(clean_records([old])[0]).job_stopped == {("ada", "01-attention")}  # the old text match


def test_the_terminal_names_a_stopped_submission_by_its_field():
    from autograder.grading.run.runner import Progress

    class Done:
        key = "eve/01-attention"

    quoting = [record("eve", "01-attention", "sdpa-visible", 0, [QUOTE])]
    lines = []
    for recorded in (True, None):  # a worker's result (it says so), and records of unknown age
        progress = Progress(1, lines.append, terminal=False)
        progress.finished(Done, {"records": quoting, failures.RECORDS_SAY_FAILURES: recorded})
        progress.close()
    assert "stopped" not in lines[0] and "stopped (time budget)" in lines[1], lines


def test_a_missing_notebook_is_told_by_the_graders_first_words():
    missing = record("fay", "01-attention", "sdpa-visible", 0, ["Not graded: no notebook named x.ipynb was submitted."])
    assert record_failure(missing, True)[:2] == ("unreadable", NOT_GRADED_WHAT)
    quoting = record("gus", "01-attention", "sdpa-visible", 0, ["ValueError: Not graded: no notebook named x"])
    assert record_failure(quoting, True) is None and record_failure(quoting, False) is None
