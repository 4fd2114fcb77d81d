"""What one notebook's kernel leaves for the next in its job, and what it can take from the grader.

The fixture course's ISOLATION students, graded with --kernel-run (nbgrader's kernel runs each notebook
too, after the run that decides) by one worker (--jobs 1: every kernel is forked from the same kernel server): an attack added to each one's right fx-attn, a spy added to its right
fx-ctrl, and an honest student. Dask picks the order; the notebooks graded after an attack's are its
targets (tasks.jsonl says which). Each attack gains nothing, and every notebook keeps full marks.
"""
import json
import re

import pytest

from autograder.grading.bookkeeping.config import Settings
from tests.fixtures.grading_course import ISOLATION, write_sources, write_submissions
from tests.grading.test_grading import grade, points, total

MEMORY_REASON = f"used more than {Settings().kernel_memory_mb} MiB of memory"
DISK_REASON = "wrote too much into the grader's kernel folder"
SPIES = [student for student in ISOLATION if student != "honest"]  # their fx-ctrl looks for the stash


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("isolation")
    source = write_sources(base / "source")
    submitted = write_submissions(base / "submitted", catalogue=ISOLATION)
    result = grade(submitted, base / "out", source, 1, "--kernel-run")
    assert result.returncode == 0, result.stderr[-3000:]
    tasks = [json.loads(line) for line in (base / "out" / "logs" / "tasks.jsonl").read_text().splitlines()]
    return {"base": base, "records": json.loads((base / "out" / "results.json").read_text()), "tasks": tasks}


def page(course, student, assignment="fx-attn"):
    return (course["base"] / "out" / "feedback" / student / assignment / f"{assignment}.html").read_text()


def feedback(course, student):
    records = [r for r in course["records"] if (r["student"], r["assignment"]) == (student, "fx-attn")]
    return [message for record in records for message in record["feedback"]]


def graded_after(course, submission):
    """The submissions whose grading started after ``submission``'s ended (all on the one worker)."""
    (ended,) = [task["ended"] for task in course["tasks"] if task["submission"] == submission]
    return {task["submission"] for task in course["tasks"] if task["started"] >= ended}


def test_every_notebook_keeps_its_marks(course):
    """Every answer in the class is right: no attack costs anyone else (or its author) a point."""
    for student in ISOLATION:
        assert total(course, student) == 3, (student, points(course, student))
        assert total(course, student, "fx-ctrl") == 2, (student, points(course, student, "fx-ctrl"))


def test_a_planted_startup_file_reaches_no_later_kernel(course):
    assert "planted in" in page(course, "plant")
    assert graded_after(course, "plant/fx-attn")  # ... and they kept their marks (above)
    for student in ISOLATION:
        assert "AssertionError: planted" not in page(course, student, "fx-ctrl"), student


def test_nothing_stashed_in_the_sandbox_is_left_for_the_next_notebook(course):
    assert "stashed" in page(course, "stash")
    assert any(f"{spy}/fx-ctrl" in graded_after(course, "stash/fx-attn") for spy in SPIES)
    for spy in SPIES:
        found = re.search(r"stash found: (\[.*?\])", page(course, spy, "fx-ctrl"))
        assert found and found.group(1) == "[]", (spy, found and found.group(1))


def test_a_kernel_holds_no_descriptor_of_the_graders(course):
    looked = re.search(r"looked at (\d+) descriptors; foreign descriptors: (\[.*?\])", page(course, "fd-check"))
    assert looked and looked.group(2) == "[]", looked and looked.group(2)
    assert int(looked.group(1)) > 10  # the kernel's sockets, pipes and files were all looked at


def test_address_space_without_memory_is_not_a_memory_bomb(course):
    assert "reserved 8 GiB of address space" in page(course, "reserve")
    assert not any(MEMORY_REASON in message for message in feedback(course, "reserve"))


def test_a_memory_bomb_is_stopped_with_the_reason(course):
    assert any(MEMORY_REASON in message for message in feedback(course, "memory-hog")), feedback(course, "memory-hog")
    assert "allocated 6 GiB" not in page(course, "memory-hog")


@pytest.mark.parametrize("student, done", [("deep-disk", "MiB in all"), ("file-swarm", "made 200000 files")])
def test_writing_anywhere_below_the_socket_folder_is_stopped(course, student, done):
    assert any(DISK_REASON in message for message in feedback(course, student)), feedback(course, student)
    assert done not in page(course, student)  # stopped before it had written everything
