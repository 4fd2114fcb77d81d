"""`autograder lti-push`'s bookkeeping without an LMS (autograder/grading/outputs/lti_push.py): what it sends, what it
keeps, what it names. A stand-in for PyLTI1p3's AGS records the calls; the real exchange with an LTI 1.3 platform
(lti1p3platform on loopback) is tests/browser/test_hub_lti.py's."""
import json

import pytest

from autograder.grading.outputs import lti_push


def gradebook(path, scores):
    """nbgrader's gradebook with one assignment ``a1`` (notebook ``a1``, two cells of 2 points) and ``scores``:
    {student: (auto points of cell 1, of cell 2)}."""
    from nbgrader.api import Gradebook

    url = f"sqlite:///{path}"
    with Gradebook(url) as book:
        book.add_assignment("a1")
        book.add_notebook("a1", "a1")
        for cell in ("c1", "c2"):
            book.add_grade_cell(cell, "a1", "a1", max_score=2, cell_type="code")
        for student, points in scores.items():
            book.add_student(student)
            book.add_submission("a1", student)
            notebook = book.find_submission_notebook("a1", "a1", student)
            for grade, value in zip(sorted(notebook.grades, key=lambda g: g.name), points):
                grade.auto_score, grade.needs_manual_grade = value, False  # as autograde leaves a code cell
            book.db.commit()
    return url


class FakeLms:
    """PyLTI1p3's side, recorded: a line item per notebook, scores; refuses ``refused`` users; ``down`` raises as a
    connection failure does (no response)."""

    calls, refused, down = [], set(), False

    def __init__(self, spec, key, lineitems, scopes):
        assert key == "KEY" and lineitems == "https://lms.example/lineitems"

    def lineitem(self, assignment, notebook, maximum):
        FakeLms.calls.append(("lineitem", assignment, notebook, maximum))
        return f"https://lms.example/lineitems/{assignment}"

    def send(self, lineitem, user, score, maximum, grading, stamp):
        if FakeLms.down:
            raise ConnectionError("refused")
        if user in FakeLms.refused:
            error = RuntimeError("422")
            error.response = type("R", (), {"status_code": 422, "text": "user not in course"})()
            raise error
        FakeLms.calls.append(("score", lineitem, user, score, maximum, grading))


@pytest.fixture
def hub(tmp_path):
    folder = tmp_path / "hub"
    (folder / "lti").mkdir(parents=True)
    (folder / "lti" / "tool-key.pem").write_text("KEY")
    launched = {"ada": {"sub": "lms-ada"}, "bo": {"sub": "lms-bo"}, "cy": {"sub": "lms-cy"}}
    for entry in launched.values():
        entry.update(lineitems="https://lms.example/lineitems", scope=lti_push.SCOPES, last_launch="2026-01-01")
    (folder / "lti" / "launches.json").write_text(json.dumps(launched))
    (folder / "class.json").write_text(json.dumps({"lti": {"issuer": "i", "client_id": "c", "token_url": "t"}}))
    FakeLms.calls, FakeLms.refused, FakeLms.down = [], {"lms-cy"}, False
    return folder


def run(out, hub, **options):
    return lti_push.push(out, hub, hub / "class.json", lms_factory=FakeLms, **options)


def test_push_sends_once_names_the_unsent_and_resumes(tmp_path, hub):
    out = tmp_path / "out"
    out.mkdir()
    url = gradebook(out / "gradebook.db", {"ada": (2, 1), "bo": (0, 0), "cy": (2, 2), "dee": (1, 1)})
    planned = run(out, hub, dry_run=True)
    assert len(planned["planned"]) == 3 and FakeLms.calls == [] and not (out / lti_push.RECORD).exists()

    first = run(out, hub)
    assert first["sent"] == 2
    assert FakeLms.calls == [("lineitem", "a1", "a1", 4.0),
                             ("score", "https://lms.example/lineitems/a1", "lms-ada", 3.0, 4.0, "FullyGraded"),
                             ("score", "https://lms.example/lineitems/a1", "lms-bo", 0.0, 4.0, "FullyGraded")]
    assert first["not_sent"]["dee/a1/a1"].startswith("never launched")
    assert first["not_sent"]["cy/a1/a1"].startswith("the LMS refused it") and "422" in first["not_sent"]["cy/a1/a1"]

    FakeLms.calls = []
    again = run(out, hub)
    assert again["sent"] == 0 and again["unchanged"] == 2 and FakeLms.calls == []  # cy tried again, refused again

    from nbgrader.api import Gradebook  # a manual score (formgrader): bo's first cell
    with Gradebook(url) as book:
        grade = next(g for g in book.find_submission_notebook("a1", "a1", "bo").grades if g.name == "c1")
        grade.manual_score = 2
        book.db.commit()
    FakeLms.down = True
    down = run(out, hub)
    assert down["sent"] == 0 and "could not be reached" in down["not_sent"]["bo/a1/a1"]
    FakeLms.down = False
    resumed = run(out, hub)
    assert resumed["sent"] == 1 and FakeLms.calls[-1][2:4] == ("lms-bo", 2.0)  # the line item reused, not asked for
    record = json.loads((out / lti_push.RECORD).read_text())
    assert [r["sent"] for r in record["runs"]] == [2, 0, 0, 1]
    assert record["sent"]["bo/a1/a1"]["scoreGiven"] == 2.0 and record["sent"]["bo/a1/a1"]["timestamp"]
    assert [c[0] for c in FakeLms.calls].count("lineitem") == 0


def test_push_without_what_it_needs_says_why(tmp_path, hub):
    with pytest.raises(lti_push.PushError, match="no gradebook.db"):
        run(tmp_path, hub)
    (tmp_path / "gradebook.db").touch()
    (hub / "class.json").write_text("{}")
    with pytest.raises(lti_push.PushError, match="no lti section"):
        run(tmp_path, hub)
