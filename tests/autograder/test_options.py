"""The grader's options as traits (autograder/options.py): docs/options.md is what the code makes, lists every option
of --help with the same help text, and a course's autograder_config.py sets what the command line leaves out."""
import pickle
import re
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from autograder import cli, options_doc
from autograder.grading.bookkeeping import config as course_config
from autograder.grading.bookkeeping.config import Settings

COMMANDS = list(cli.COMMANDS)


def subparser(command):
    parser = cli.build_parser()
    return next(action for action in parser._actions if action.dest == "command").choices[command]


def help_entries(command):
    """{heading: help} of the options ``autograder COMMAND --help`` lists, headed as docs/options.md heads them."""
    entries = {}
    for action in subparser(command)._actions:
        if "-h" in action.option_strings:
            continue
        if not action.option_strings:
            heading = action.metavar or action.dest
        elif action.nargs == 0:
            heading = action.option_strings[0]
        else:
            heading = f"{action.option_strings[0]} {action.metavar or action.dest.upper()}"
        entries[f"`{heading}`"] = action.help
    return entries


def doc_entries(command):
    """{heading: help} of docs/options.md's section of ``command`` (options that have a flag)."""
    text = options_doc.DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## autograder {command}\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^#### (`[^`]+`)\n\n(.+)$", section, re.MULTILINE)
    return {heading: help for heading, help in found if not heading.startswith("`c.")}


def test_the_options_reference_is_what_the_code_makes():
    assert options_doc.DOC.read_text(encoding="utf-8") == options_doc.text(), \
        "docs/options.md is out of date: python -m autograder.options_doc (make options-doc) writes it"
    assert options_doc.main(["--check"]) == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_help_is_in_the_reference_with_its_help_and_no_other(command):
    listed, documented = help_entries(command), doc_entries(command)
    assert listed and set(listed) == set(documented), (set(listed) ^ set(documented))
    for heading, help in listed.items():
        assert documented[heading] == help, heading
    shown = subparser(command).format_help()  # what --help prints names each of them
    for heading in listed:
        assert heading.strip("`").split()[0] in shown, heading


def test_grade_help_keeps_every_option():
    flags = {flag for flag in re.findall(r"--[a-z][a-z-]*", subparser("grade").format_usage())}
    assert flags == {"--out", "--jobs", "--scheduler", "--slurm", "--slurm-partition", "--slurm-account",
                     "--slurm-walltime", "--slurm-workers-per-job", "--slurm-worker-memory", "--slurm-interface",
                     "--slurm-option", "--source", "--db-url", "--timeout", "--budget", "--fresh", "--table",
                     "--no-sandbox", "--roster", "--kernel-run"}


def test_the_budgets_help_is_the_budgets_own():
    from sandbox_servers import budget

    assert help_entries("grade")["`--budget BUDGET`"] == budget.HELP


def test_the_defaults_are_the_options_defaults_without_a_config_file(monkeypatch, tmp_path):
    monkeypatch.setattr(course_config, "grader_config_file", lambda: tmp_path / "none.py")
    args, _ = cli.parse(["grade", "sub", "--out", "out"])
    assert (args.jobs, args.scheduler, args.budget, args.timeout, args.no_sandbox, args.kernel_run) == \
        (1, None, 120, None, False, False)
    assert (args.slurm, args.slurm_walltime, args.slurm_worker_memory, args.slurm_option) == (False, "02:00:00", "6G", [])
    assert args.submitted == Path("sub") and args.source == Path(Settings().source_dir)
    args, _ = cli.parse(["collect-zip", "a.zip", "--roster", "r.csv"])
    assert (args.downloads, args.out, args.lms) == ([Path("a.zip")], Path("submitted"), None)


def write_config(tmp_path, monkeypatch, text):
    path = tmp_path / "autograder_config.py"
    path.write_text("c = get_config()  # noqa\n" + text)
    monkeypatch.setattr(course_config, "grader_config_file", lambda: path)


def test_a_config_file_sets_what_the_command_line_leaves_out(monkeypatch, tmp_path):
    write_config(tmp_path, monkeypatch, "c.AutograderGrade.jobs = 3\nc.Settings.notebook_budget_s = 45\n"
                                        "c.Sandbox.sandbox = False\nc.Sandbox.verifier_memory_mb = 1234\n"
                                        "c.AutograderGrade.scheduler = 'tcp://10.0.0.5:8786'\n"
                                        "c.Slurm.partition = 'gpu'\n")
    args, config = cli.parse(["grade", "sub", "--out", "out", "--budget", "60"])
    assert (args.jobs, args.budget, args.no_sandbox) == (3, 60, True)  # the command line wins
    assert args.scheduler == "tcp://10.0.0.5:8786"
    assert args.slurm_partition is None  # Slurm's options only count with Slurm
    settings = Settings(config=config, notebook_budget_s=args.budget)
    assert (settings.verifier_memory_mb, settings.kernel_memory_mb, settings.notebook_budget_s) == (1234, 4096, 60)
    args, _ = cli.parse(["grade", "sub", "--out", "out", "--slurm"])
    assert args.slurm_partition == "gpu" and args.scheduler is None  # --slurm starts its own scheduler


def test_a_config_value_of_the_wrong_type_stops_the_command(monkeypatch, tmp_path, capsys):
    write_config(tmp_path, monkeypatch, "c.AutograderGrade.jobs = 'four'\n")
    assert cli.main(["grade", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]) == 2
    assert "autograder_config.py" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_settings_keep_the_dataclasss_ways():
    settings = Settings(notebook_budget_s=30, sandbox=False)
    assert set(settings.to_json()) == {"source_dir", "cell_timeout", "kernel_memory_mb", "verifier_memory_mb",
                                       "notebook_budget_s", "sandbox", "kernel_run"}  # the run's fingerprint's keys
    assert settings == Settings(**settings.to_json()) and hash(settings) == hash(Settings(**settings.to_json()))
    assert pickle.loads(pickle.dumps(settings)) == settings != Settings()
    with pytest.raises(FrozenInstanceError):
        settings.sandbox = True


def test_the_scheduler_nbgrader_config_names_is_still_used(monkeypatch, tmp_path):
    course = tmp_path / "nbgrader_config.py"
    course.write_text("c = get_config()  # noqa\nc.AutograderGrade.scheduler = 'tcp://10.0.0.9:8786'\n")
    monkeypatch.setattr(course_config, "course_config_file", lambda: course)
    monkeypatch.setattr(course_config, "grader_config_file", lambda: tmp_path / "none.py")
    assert cli.parse(["grade", "sub", "--out", "out"])[0].scheduler == "tcp://10.0.0.9:8786"
    assert cli.parse(["grade", "sub", "--out", "out", "--scheduler", "tcp://h:1"])[0].scheduler == "tcp://h:1"
    assert cli.parse(["grade", "sub", "--out", "out", "--slurm"])[0].scheduler is None
