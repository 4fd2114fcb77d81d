"""What stopped a notebook from being graded normally, as a record of OUT/results.json says it.

The run records it where it happens (run/worker.py, run/runner.py, run/verify.py): a record's ``"failure"`` is
``{"what": one of FAILURES, "message": the index in its "feedback" of the message that says so}``, and its
``"grader_error": true`` marks the grader's own failure. One kind has no field: a notebook missing or unreadable
keeps results.json's plain record (its one message, the grader's "Not graded: ...", is all it has;
tests/grading/test_grading.py pins those fields), and is told by that message's start, which a learner's message
never has (theirs start with the name of their exception). The class report (class_report/) and the terminal
(report.stops) read them here. Records written before the "failure" field existed are read by the old match of
the grader's message text in both languages (``failure_in_messages``), kept only for them.
"""
import re

FAILURE = "failure"  # a record's field: {"what": ..., "message": index in its feedback}
GRADER_ERROR = "grader_error"  # a record's field, True where the grader's own code failed (never read from its text)
RECORDS_SAY_FAILURES = "records_say_failures"  # a worker's result: its records have the "failure" field where one was

TIME_BUDGET = "time budget"
RUN_STOPPED = "run stopped"  # the notebook's process ended (a limit, a crash) before a graded cell was judged
OUTPUTS_RUN_STOPPED = "outputs run stopped"  # the run of the learner's own cells, after every verdict
KERNEL_STOPPED = "kernel stopped"  # nbgrader's autograde did not finish: graded outside its kernel only
DISK_LIMIT = "sandbox limit: disk"
WORKER_DIED = "grading worker died"
JOB_STOPPED = "grading job stopped"  # the run ended before this submission was graded
NOT_GRADED_WHAT = "not graded"  # missing or unreadable, or its code could not be run at all
ANSWER_CELL = "answer cell: {error}"  # an answer cell stopped by TimeoutError or MemoryError
CELL_LIMIT_ERRORS = ("TimeoutError", "MemoryError")

# what -> kind: "limit" (time budget, sandbox limit, a kernel or worker that died) or "unreadable" (missing notebook,
# not JSON, a link, no nbgrader metadata...); "grader" (the grader's own trouble) is the GRADER_ERROR field's.
FAILURES = {TIME_BUDGET: "limit", RUN_STOPPED: "limit", OUTPUTS_RUN_STOPPED: "limit", KERNEL_STOPPED: "limit",
            DISK_LIMIT: "limit", WORKER_DIED: "limit", JOB_STOPPED: "limit", NOT_GRADED_WHAT: "unreadable",
            **{ANSWER_CELL.format(error=error): "limit" for error in CELL_LIMIT_ERRORS}}


def failure(what, message=0):
    """A record's "failure" value."""
    return {"what": what, "message": message}


def mark(record, what, message=0):
    """``record`` with its "failure" set, unless the run recorded an earlier one (the first failure of a record is
    what stopped it, as its messages are in order)."""
    if not record.get(FAILURE):
        record[FAILURE] = failure(what, message)
    return record


def answer_cell(error):
    """The failure of an answer cell that stopped with ``error`` (the child's "Name: text" of it), where that is a
    limit (TimeoutError, MemoryError), else None: any other error of the learner's code is its own mistake."""
    name = str(error).partition(":")[0].strip()
    return ANSWER_CELL.format(error=name) if name in CELL_LIMIT_ERRORS else None


# What stopped nbgrader's kernel (--kernel-run), by the name of the error forked_kernels' watchdog ends it with.
WATCHDOG_STOPS = {"TimeoutError": TIME_BUDGET, "OSError": DISK_LIMIT}


def kernel_stop(watchdog_error):
    """The failure of a notebook whose nbgrader kernel the watchdog stopped with ``watchdog_error``."""
    return WATCHDOG_STOPS.get(str(watchdog_error).partition(":")[0].strip(), KERNEL_STOPPED)


def clean_failure(value, feedback):
    """A record's "failure" as read from results.json, or None where it names none that can be shown."""
    if not isinstance(value, dict) or value.get("what") not in FAILURES:
        return None
    index = value.get("message")
    if type(index) is not int or not 0 <= index < len(feedback):
        return None
    return failure(value["what"], index)


def records_say_failures(records):
    """Whether ``records`` were written by a run that records failures (one of them has the field): then a record
    without it was graded normally, and no message text is read."""
    return any(FAILURE in r for r in records)


def record_failure(record, recorded):
    """(kind, what, message) of a record that says its notebook could not be graded normally, else None.

    ``recorded``: records_say_failures of the records it comes with; where False (records written before the field
    existed), the old text match. "grader" only where the record says so itself (GRADER_ERROR), never from its words.
    """
    messages = record["feedback"]
    if record.get(GRADER_ERROR) is True and messages:
        return "grader", "grading error", messages[0]
    if not recorded:
        return failure_in_messages(messages)
    found = record.get(FAILURE)
    if found:
        return FAILURES[found["what"]], found["what"], messages[found["message"]]
    if messages and messages[0].startswith(NOT_GRADED):  # a notebook missing or unreadable (see the note above)
        return "unreadable", NOT_GRADED_WHAT, messages[0]
    return None


def job_stopped(record, recorded, problem):
    """Whether ``record`` stands for a submission the grading job stopped before (its ``problem``: record_failure's)."""
    if recorded:
        return (record.get(FAILURE) or {}).get("what") == JOB_STOPPED
    return problem[0] == "grader" and "stopped before this submission" in problem[2]  # the old text match


# ------------------------------------------------------------------ records written before the "failure" field

# What stopped a notebook, by a fragment of its message (first match wins; the order matters).
LIMITS = (
    ("ran past its time budget", TIME_BUDGET),
    ("시간 예산", TIME_BUDGET),  # the same, in a Korean submission's feedback
    ("The run of this notebook for its outputs stopped", OUTPUTS_RUN_STOPPED),
    ("출력을 보여 주려고 노트북을 실행하다가 멈췄습니다", OUTPUTS_RUN_STOPPED),
    ("wrote too much into the grader's kernel folder", DISK_LIMIT),
    ("the grading worker stopped twice", WORKER_DIED),
    ("nbgrader could not run this notebook to the end", KERNEL_STOPPED),
    ("nbgrader가 이 노트북을 끝까지 실행하지 못했습니다", KERNEL_STOPPED),
    ("the run of this notebook stopped before this cell", RUN_STOPPED),
    ("이 셀에 이르기 전에 노트북 실행이 멈췄습니다", RUN_STOPPED),  # the same, in a Korean submission's feedback
)
CELL_LIMIT = re.compile(r"stopped with (TimeoutError|MemoryError)|정답 셀이 (TimeoutError|MemoryError)")
# (the grader's own words where that happened; no longer read to classify: a learner's text may quote them)
GRADER_TROUBLE = ("internal grading error", "the grading job stopped before this submission",
                  "the notebook's code could not be run", "채점기 내부 오류", "노트북의 코드를 실행할 수 없었습니다")
NOT_GRADED = ("Not graded:", "채점되지 않음:")


def failure_in_messages(messages, grader_error=False):
    """The old reading, by text, kept for records written before the "failure" field: (kind, what, message) of the
    first message that says a notebook could not be graded normally, else None (``grader_error``: GRADER_ERROR)."""
    if grader_error and messages:
        return "grader", "grading error", messages[0]
    for message in messages:
        for fragment, what in LIMITS:
            if fragment in message:
                return "limit", what, message
        found = CELL_LIMIT.search(message)
        if found:
            return "limit", ANSWER_CELL.format(error=found.group(1) or found.group(2)), message
        if message.startswith(NOT_GRADED):
            return "unreadable", NOT_GRADED_WHAT, message
    return None
