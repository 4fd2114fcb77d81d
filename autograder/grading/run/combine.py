"""One record per graded cell: nbgrader's score, lowered (never raised) by the out-of-kernel check.

A record is {student, assignment, notebook, grade_id, points, max_points, feedback}, with "failure" (what stopped
its notebook, outputs/failures.py) and "grader_error" where they apply; a key starting with "_" is internal and
dropped from what is written out.
"""
from autograder.grading.outputs.failures import mark
from learner_kit.i18n import tr


def number(value):
    value = float(value)
    return int(value) if value.is_integer() else round(value, 6)


def record(submission, notebook, cell, points, feedback):
    return {
        "student": submission.student,
        "assignment": submission.assignment,
        "notebook": notebook,
        "grade_id": cell.grade_id,
        "points": number(max(0.0, min(points, cell.points))),
        "max_points": number(cell.points),
        "feedback": feedback,
    }


def zero_records(submission, source_notebook, why):
    """Every graded cell of a notebook that could not be graded at all: 0 points, and why."""
    return [record(submission, source_notebook.name, cell, 0.0, [why]) for cell in source_notebook.graded]


def zero_submission(submission, source_notebooks, why):
    """Zero records for every notebook of a submission that could not be graded."""
    return [r for source in source_notebooks for r in zero_records(submission, source, why)]


def _add(messages, message):
    first = message.splitlines()[0] if message else ""
    if message and not any(m.splitlines()[0] == first for m in messages if m):
        messages.append(message)


def combined_records(submission, source_notebook, nbgrader_results, verdicts, nbgrader_failure=None):
    """Records from nbgrader's {grade_id: (points, messages)} (None if it failed) and the verifier's verdicts."""
    records = []
    for cell in source_notebook.graded:
        passed, verifier_message = verdicts[cell.grade_id]
        outside = cell.points if passed else 0.0
        if nbgrader_results is None:
            points, feedback = outside, [tr("nbgrader could not run this notebook to the end ({failure}); graded outside the "
                                            "notebook kernel only.", failure=nbgrader_failure)]
        else:
            points, messages = nbgrader_results[cell.grade_id]
            if getattr(verdicts[cell.grade_id], "decisive", False) and points < outside:
                # a composite right with right parts, whose notebook test ran with the learner's wrong ones (judge.Verdict)
                points, messages = outside, [verifier_message]
            points, feedback = min(points, outside), list(messages)
        if not passed:
            _add(feedback, verifier_message)
        if points <= 0 and not feedback:
            feedback.append(tr("No points: the test did not pass."))
        entry = record(submission, source_notebook.name, cell, points, feedback)
        if not passed and nbgrader_results is not None and nbgrader_results[cell.grade_id][0] > 0:
            entry["_verifier_message"] = verifier_message  # shown in the feedback notebook too
        records.append(entry)
    return records


def message_index(messages, message):
    """Where combined_records put ``message`` among ``messages`` (``_add``: once per first line), or None."""
    first = message.splitlines()[0] if message else None
    return next((i for i, m in enumerate(messages) if m and m.splitlines()[0] == first), None) if first else None


def mark_failures(records, verdicts, nbgrader_stopped=None):
    """Each record's "failure" (outputs/failures.py), in the order its messages say them: nbgrader's run that did not
    finish (``nbgrader_stopped``: what stopped it; combined_records put its message first), then what stopped the
    judge's run at its cell (judge.Verdict.failure), at the verdict's message."""
    for entry in records:
        if nbgrader_stopped:
            mark(entry, nbgrader_stopped, 0)
        verdict = verdicts.get(entry["grade_id"])
        index = message_index(entry["feedback"], verdict[1]) if getattr(verdict, "failure", None) else None
        if index is not None:
            mark(entry, verdict.failure, index)
    return records


def public(records):
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in records]
