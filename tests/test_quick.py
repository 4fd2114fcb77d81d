"""`make test-quick` (tests/quick.py): a change selects the test files that import it, within the budget."""
import json

from tests import quick


def test_a_changed_file_stands_for_its_module():
    assert quick.module_of("sandbox_servers/wire.py") == "sandbox_servers.wire"
    assert quick.module_of("autograder/checks/__init__.py") == "autograder.checks"
    assert quick.module_of("autograder/grading/outputs/templates/class_report/page.html.j2") == "autograder.grading.outputs.class_report"
    assert quick.module_of("tests/zoo/cases.py") == "tests.zoo.cases"
    assert quick.module_of("README.md") is None and quick.module_of("notebooks/01-attention.ipynb") is None


def run_quick(monkeypatch, capsys, changed, times, budget=170):
    monkeypatch.setattr(quick, "changed_files", lambda base: changed)
    monkeypatch.setattr(quick, "UNKNOWN_S", 0.5)
    monkeypatch.setattr(quick, "BASELINE", quick.ROOT / "no-such-file")
    durations = quick.ROOT / "build" / "quick-test-durations.json"
    durations.parent.mkdir(exist_ok=True)
    durations.write_text(json.dumps(times))
    monkeypatch.setattr(quick, "DURATIONS", durations)
    try:
        assert quick.main(["--dry-run", "--budget", str(budget), "--workers", "1"]) == 0
    finally:
        durations.unlink()
    return capsys.readouterr().out


def test_a_change_selects_the_tests_that_import_it_directly_or_not(monkeypatch, capsys):
    out = run_quick(monkeypatch, capsys, ["sandbox_servers/wire.py"], {}, budget=10_000)
    assert "tests/sandbox_servers/test_wire_hostile.py" in out  # imports sandbox_servers.wire itself
    assert "tests/grading/run/test_judge.py" in out  # through the grader's modules that import it
    assert "tests/test_import_contracts.py" not in out  # it imports none of the packages


def test_the_budget_leaves_the_slowest_and_names_them(monkeypatch, capsys):
    times = {"tests/grading/outputs/test_class_report.py": 40.0, "tests/grading/outputs/test_lms_export.py": 500.0}
    out = run_quick(monkeypatch, capsys, ["autograder/grading/outputs/templates/class_report/page.html.j2"], times, budget=100)
    assert "  tests/grading/outputs/test_class_report.py" in out
    assert "left for `make test` (over the budget): " in out and "tests/grading/outputs/test_lms_export.py" in out.split("left for")[1]
