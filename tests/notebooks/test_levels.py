"""The two levels of every notebook (autograder/levels.py): one source, the same grading, different blanks.

Both levels of all ten notebooks are built here in both languages, without running them
(build_notebooks.notebook), and compared: the graded cells, grade ids, points and hidden tests
are the same; the challenge answer cells run the guided ones' code; every unit has an exercise
card whose hints give no line of its solution. The committed challenge notebooks must be what
the builder makes, one of them runs under nbval, and one `autograder grade` run grades challenge
submissions against the same hidden tests and records their level. `make lab`, `make progress` and
`make release` know the level; challenge_blank is unit-tested on tricky inputs at the end.
"""
import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.build_notebooks import CARD_TEXT, HINT_KEYS, HINTS_FENCE, notebook
from autograder.levels import BEGIN, END, LEVEL_KEY, LEVELS, challenge_blank, prose_for, without_markers
from autograder.paths import EDITIONS, ROOT, assignment_ids, course_dir, solutions_dir, sources_dir
from learner_kit.i18n import METADATA_KEY

IDS = sorted(md.stem for md in sources_dir("en").glob("[0-9][0-9]-*.md"))
CASES = [(lang, assignment) for lang in EDITIONS for assignment in IDS
         if (sources_dir(lang) / f"{assignment}.md").is_file()]
REGION = re.compile(rf"^[ \t]*{BEGIN}\n(.*?)^[ \t]*{END}", re.M | re.S)
MIN_LEAK = 10  # characters (spaces removed) a solution line needs to count as given away: not `return x`


@functools.cache
def built(assignment, lang, level):
    return notebook(assignment, lang, level)


def graded_meta(nb):
    return [cell.metadata["nbgrader"] for cell in nb.cells if "nbgrader" in cell.metadata]


def answer_cells(nb):
    """{unit: the answer cell}: the cells the learner writes, named by their grade id."""
    return {cell.metadata["nbgrader"]["grade_id"]: cell for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("solution")}


def code_pairs(assignment, lang):
    guided, challenge = built(assignment, lang, "guided"), built(assignment, lang, "challenge")
    mine = [c for c in guided.cells if c.cell_type == "code"]
    theirs = [c for c in challenge.cells if c.cell_type == "code"]
    assert len(mine) == len(theirs), "the same code cells at both levels"
    return list(zip(mine, theirs))


# ------------------------------------------------------------------ the same grading at both levels

@pytest.mark.parametrize("lang, assignment", CASES)
def test_graded_cells_grade_ids_and_points_are_the_same(lang, assignment):
    """nbgrader grades a challenge submission against the guided source: every graded and locked cell
    (grade id, points, kind; provided cells' ids are numbered by position) must be the same."""
    guided, challenge = graded_meta(built(assignment, lang, "guided")), graded_meta(built(assignment, lang, "challenge"))
    assert challenge == guided
    assert any(meta.get("points") for meta in guided), "a notebook with graded cells"


@pytest.mark.parametrize("lang, assignment", CASES)
def test_hidden_tests_and_provided_code_are_the_same(lang, assignment):
    pairs = [(a, b) for a, b in code_pairs(assignment, lang) if a.metadata.get("nbgrader", {}).get("locked")]
    assert pairs and any("BEGIN HIDDEN TESTS" in a.source for a, _ in pairs)
    for guided, challenge in pairs:
        assert challenge.source == guided.source, guided.metadata["nbgrader"]["grade_id"]


@pytest.mark.parametrize("lang, assignment", CASES)
def test_challenge_answer_cells_run_the_guided_code(lang, assignment):
    """The challenge notebook takes the guided one's outputs and its solutions are the guided ones: its code,
    without the blank markers, is the guided code; every other code cell is the same."""
    for guided, challenge in code_pairs(assignment, lang):
        if guided.metadata.get("nbgrader", {}).get("solution"):
            assert without_markers(challenge.source) == without_markers(guided.source)
            # the challenge blanks hold every line of the guided blanks (they are wider, never elsewhere)
            inside = {line for region in REGION.findall(challenge.source) for line in region.splitlines()}
            assert {line for region in REGION.findall(guided.source) for line in region.splitlines()} <= inside
        else:
            assert challenge.source == guided.source


@pytest.mark.parametrize("lang, assignment", CASES)
def test_committed_challenge_notebook_is_what_the_builder_makes(lang, assignment):
    """challenge/solutions/ (and challenge/ko/solutions/) are built from the Markdown, never edited, and carry the
    guided notebook's outputs (python -m autograder.build_notebooks --level challenge)."""
    path = solutions_dir(lang, "challenge") / assignment / f"{assignment}.ipynb"
    rebuild = f"python -m autograder.build_notebooks --lang {lang} --level challenge {assignment}"
    assert path.is_file(), f"{path} is missing: {rebuild}"
    committed = nbformat.read(path, as_version=4)
    assert [c.source for c in committed.cells] == [c.source for c in built(assignment, lang, "challenge").cells], (
        f"{path} is not what notebooks/ builds: {rebuild}")
    assert (committed.metadata[METADATA_KEY], committed.metadata[LEVEL_KEY]) == (lang, "challenge")
    guided = nbformat.read(solutions_dir(lang) / assignment / f"{assignment}.ipynb", as_version=4)
    outputs = [c.outputs for c in guided.cells if c.cell_type == "code"]
    assert [c.outputs for c in committed.cells if c.cell_type == "code"] == outputs, (
        f"{path} does not carry the outputs of the guided notebook built last: {rebuild}")


# ------------------------------------------------------------------ exercise cards

def cards(lang, assignment, level):
    """[(unit, fields)] of the source's ```hints fences at ``level`` (a card may differ per level), in order."""
    text = prose_for((sources_dir(lang) / f"{assignment}.md").read_text(encoding="utf-8"), level)
    return [(m["unit"], yaml.safe_load(m["body"])) for m in HINTS_FENCE.finditer(text)]


def normalised(text):
    return re.sub(r"\s+", "", text)


# Lines every nn.Module writes, which a hint may name without giving the exercise away.
BOILERPLATE = {"super().__init__()"}


def solution_code_lines(answer_source):
    """The normalised code lines (comments dropped) of an answer cell's solution regions, long enough to matter."""
    lines = set()
    for region in REGION.findall(answer_source):
        for line in region.splitlines():
            code = normalised(re.sub(r"(^|\s)#.*$", "", line))
            if len(code) >= MIN_LEAK and code not in BOILERPLATE:
                lines.add(code)
    return lines


@pytest.mark.parametrize("lang, assignment", CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_unit_has_an_exercise_card_with_three_hints(lang, assignment, level):
    units = list(answer_cells(built(assignment, lang, "guided")))
    found = cards(lang, assignment, level)
    assert [unit for unit, _ in found] == units, "one ```hints card per answer cell, in the order of the answer cells"
    for unit, fields in found:
        assert fields["difficulty"] in (1, 2, 3) and isinstance(fields["minutes"], int) and fields["minutes"] > 0, unit
        for key in HINT_KEYS:
            assert isinstance(fields.get(key), str) and fields[key].strip(), f"{unit}: no {key} hint"
    title, cells = CARD_TEXT[lang]["title"], built(assignment, lang, level).cells
    for unit in units:  # the card stands between the prose and its answer cell
        card = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and title.format(unit=unit) in c.source)
        answer = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == unit)
        between = [c for c in cells[card + 1:answer] if c.cell_type == "code"]
        assert card < answer and not between, f"the card of {unit} is not right above its answer cell"


@pytest.mark.parametrize("lang, assignment", CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_no_hint_gives_a_line_of_the_solution(lang, assignment, level):
    """Hints say the idea, the shapes and the operations in words: no line of the unit's blanks at this level (the
    solution regions of its answer cell; comments and spaces ignored) stands in any of its hints. A card shown at both
    levels is checked against the challenge blanks too: a line the guided cell gives may be the challenge's answer."""
    answers = answer_cells(built(assignment, lang, level))
    leaks = []
    for unit, fields in cards(lang, assignment, level):
        hints = {key: normalised(str(fields.get(key, ""))) for key in HINT_KEYS}
        leaks += [f"{unit} {key}: {line}" for line in solution_code_lines(answers[unit].source)
                  for key, hint in hints.items() if line in hint]
    assert leaks == []


def test_the_leak_check_is_not_blind():
    cell = "def f(x):\n    ### BEGIN SOLUTION\n    y = x.transpose(1, 2)  # swap\n    return y\n    ### END SOLUTION"
    assert solution_code_lines(cell) == {"y=x.transpose(1,2)"}
    assert "y=x.transpose(1,2)" in normalised("Write `y = x.transpose(1,2)` here")


@pytest.mark.parametrize("lang", EDITIONS)
def test_one_challenge_notebook_passes_nbval(lang):
    """nbval on one small challenge notebook (06-masks): its stored outputs are what its code prints. The other
    notebooks need no run: their code is the guided notebooks' (test_challenge_answer_cells_run_the_guided_code)
    and they carry the guided notebooks' outputs (test_committed_challenge_notebook_is_what_the_builder_makes),
    which `make test-notebooks` runs under nbval."""
    path = solutions_dir(lang, "challenge") / "06-masks" / "06-masks.ipynb"
    if not path.is_file():
        pytest.skip(f"{path} not built")
    result = subprocess.run([sys.executable, "-m", "pytest", "--nbval", str(path), "--nbval-sanitize-with",
                             str(ROOT / "tests" / "nbval_sanitize.cfg"), "-p", "no:cacheprovider", "-q"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(r"\b\d+ passed", result.stdout)


# ------------------------------------------------------------------ grading a challenge submission

CHALLENGE = assignment_ids("en", "challenge")


@pytest.fixture(scope="module")
def graded_run(tmp_path_factory):
    """One `autograder grade` run: the ten challenge solution notebooks, the untouched challenge release, a
    Korean challenge solution and an untouched guided release (for the recorded level)."""
    base = tmp_path_factory.mktemp("levels")
    submitted = base / "submitted"
    students = [("perfect-challenge", solutions_dir("en", "challenge"), CHALLENGE),
                ("untouched-challenge", course_dir("en", "challenge"), CHALLENGE),
                ("perfect-ko-challenge", solutions_dir("ko", "challenge"), ["06-masks"]),
                ("untouched-guided", course_dir("en"), ["06-masks"])]
    for student, folder, assignments in students:
        for assignment in assignments:
            notebook_path = folder / assignment / f"{assignment}.ipynb"
            (submitted / student / assignment).mkdir(parents=True)
            shutil.copyfile(notebook_path, submitted / student / assignment / notebook_path.name)
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(base / "out"), "--jobs", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1500, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((base / "out" / "results.json").read_text(encoding="utf-8")), base / "out"


def records_of(graded, student, assignment):
    return [r for r in graded if (r["student"], r["assignment"]) == (student, assignment)]


@pytest.mark.skipif(len(CHALLENGE) < 10, reason="the ten challenge notebooks are not all built")
def test_challenge_submissions_are_graded_by_the_same_hidden_tests(graded_run):
    graded, _ = graded_run
    for assignment in CHALLENGE:
        perfect = records_of(graded, "perfect-challenge", assignment)
        assert perfect, f"no graded cells for {assignment}"
        lost = {r["grade_id"]: r["feedback"] for r in perfect if r["points"] != r["max_points"]}
        assert not lost, f"{assignment}: {lost}"
        guided_cells = {meta["grade_id"]: meta["points"] for meta in
                        graded_meta(nbformat.read(solutions_dir() / assignment / f"{assignment}.ipynb", as_version=4))
                        if meta.get("grade")}
        assert {r["grade_id"]: r["max_points"] for r in perfect} == guided_cells
        untouched = records_of(graded, "untouched-challenge", assignment)
        assert untouched and sum(r["points"] for r in untouched) == 0, [(r["grade_id"], r["points"]) for r in untouched]
    korean = records_of(graded, "perfect-ko-challenge", "06-masks")
    assert korean and all(r["points"] == r["max_points"] for r in korean)


@pytest.mark.skipif(len(CHALLENGE) < 10, reason="the ten challenge notebooks are not all built")
def test_the_level_is_recorded_and_reported(graded_run):
    graded, out = graded_run
    levels = {r["student"]: set() for r in graded}
    for r in graded:
        levels[r["student"]].add(r["level"])
    assert levels == {"perfect-challenge": {"challenge"}, "untouched-challenge": {"challenge"},
                      "perfect-ko-challenge": {"challenge"}, "untouched-guided": {"guided"}}
    report = (out / "report.html").read_text(encoding="utf-8")
    table = report[report.index('<table id="levels">'):]
    table = table[:table.index("</table>")]
    assert "Submissions at the challenge level (21;" in table
    assert "perfect-challenge" in table and "untouched-guided" not in table


# ------------------------------------------------------------------ make lab, progress and release

def make(*args):
    return subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("lang, level, release, workspace", [
    ("en", "guided", "course", "workspace"), ("ko", "guided", "ko/course", "workspace-ko"),
    ("en", "challenge", "challenge/course", "workspace-challenge"),
    ("ko", "challenge", "challenge/ko/course", "workspace-ko-challenge")])
def test_make_lab_and_progress_open_each_level_in_its_own_workspace(lang, level, release, workspace):
    lab = make("lab", f"COURSE_LANG={lang}", f"LEVEL={level}")
    assert lab.returncode == 0, lab.stderr
    assert f"start.py lab --venv .venv --lang {lang} --level {level} --workspace {workspace}" in lab.stdout
    # what start.py (make lab's code, and the way in without make) runs for them
    plan = subprocess.run([sys.executable, "start.py", "--dry-run", "--lang", lang, "--level", level], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert plan.returncode == 0, plan.stderr
    assert f"learner_kit.workspace {release} {workspace} --layout {workspace}/.jupyter/workspaces" in plan.stdout
    assert f"cd {workspace} && COURSE_LANG={lang}" in plan.stdout
    progress = make("progress", f"COURSE_LANG={lang}", f"LEVEL={level}")
    assert progress.returncode == 0 and f"learner_kit.progress {workspace}\n" in progress.stdout
    ignored = subprocess.run(["git", "check-ignore", "-q", f"{workspace}/01-attention/01-attention.ipynb"], cwd=ROOT)
    assert ignored.returncode == 0, f"{workspace}/ is the learner's: git ignores it"


def test_progress_reads_a_challenge_workspace(tmp_path):
    """`make progress LEVEL=challenge`: a whole-body blank left as released is "not started", a written one passes."""
    from learner_kit.workspace import sync_workspace

    release = course_dir("en", "challenge")
    if not all((release / a).is_dir() for a in ("02-multi-head", "06-masks")):
        pytest.skip("the challenge release of 02 and 06 is not made")
    for assignment in ("02-multi-head", "06-masks"):
        sync_workspace(release / assignment, tmp_path / assignment)
    solved = solutions_dir("en", "challenge") / "06-masks" / "06-masks.ipynb"
    shutil.copyfile(solved, tmp_path / "06-masks" / "06-masks.ipynb")
    result = subprocess.run([sys.executable, "-m", "learner_kit.progress", str(tmp_path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(r"split_heads +· not started", result.stdout) and re.search(r"make_tgt_mask +✓ passed", result.stdout)
    assert "3 of 6 units pass their visible test" in result.stdout, result.stdout


def test_make_refuses_an_unknown_level():
    result = make("lab", "LEVEL=expert")
    assert result.returncode != 0 and "LEVEL=expert is not a level of the course" in result.stderr


def test_make_release_releases_both_levels_of_both_editions():
    result = make("release")
    assert result.returncode == 0, result.stderr
    for flags in ("autograder.release 01-attention", "--lang ko 01-attention", "--level challenge 01-attention",
                  "--lang ko --level challenge 01-attention"):
        assert flags in result.stdout, flags
    shown = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True)
    assert "LEVEL=challenge" in shown.stdout and "workspace-ko-challenge" in shown.stdout


@pytest.mark.parametrize("lang, level, nbgrader_config", [
    ("en", "challenge", "challenge/nbgrader_config.py"), ("ko", "challenge", "challenge/ko/nbgrader_config.py")])
def test_each_level_is_an_nbgrader_course(lang, level, nbgrader_config):
    """Stock nbgrader reads the level's folder as a course: the root's settings, its own folder as the root."""
    from traitlets.config.loader import PyFileConfigLoader

    config_file = ROOT / nbgrader_config
    c = PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()  # as Jupyter loads it
    assert c.CourseDirectory.root == str(config_file.parent)
    assert (c.CourseDirectory.source_directory, c.CourseDirectory.release_directory) == ("solutions", "course")
    assert config_file.parent / "solutions" == solutions_dir(lang, level)
    assert c.ClearSolutions.code_stub == {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    assert c.Exchange.root == str(config_file.parent / "exchange")


def test_stock_nbgrader_releases_and_autogrades_in_the_challenge_folder(tmp_path):
    """`cd challenge && nbgrader generate_assignment 06-masks`, then autograde of its solution: full marks."""
    if not (solutions_dir("en", "challenge") / "06-masks").is_dir():
        pytest.skip("no challenge 06-masks")
    bin_dir = Path(sys.executable).parent
    flags = [f"--CourseDirectory.release_directory={tmp_path / 'release'}",
             f"--CourseDirectory.submitted_directory={tmp_path / 'submitted'}",
             f"--CourseDirectory.autograded_directory={tmp_path / 'autograded'}",
             f"--CourseDirectory.db_url=sqlite:///{tmp_path / 'gradebook.db'}", f"--Exchange.root={tmp_path / 'exchange'}"]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "NBGRADER_EXECUTION": "autograde", "MPLBACKEND": "Agg"}

    def nbgrader(*args):
        return subprocess.run([str(bin_dir / "nbgrader"), *args, *flags], cwd=ROOT / "challenge", capture_output=True,
                              text=True, timeout=600, env=env)

    released = nbgrader("generate_assignment", "06-masks", "--force")
    assert released.returncode == 0, released.stderr[-3000:]
    release = nbformat.read(tmp_path / "release" / "06-masks" / "06-masks.ipynb", as_version=4)
    assert release.metadata[LEVEL_KEY] == "challenge"
    assert not any(BEGIN in cell.source or "BEGIN HIDDEN TESTS" in cell.source for cell in release.cells)
    folder = tmp_path / "submitted" / "learner" / "06-masks"
    folder.mkdir(parents=True)
    shutil.copyfile(solutions_dir("en", "challenge") / "06-masks" / "06-masks.ipynb", folder / "06-masks.ipynb")
    graded = nbgrader("autograde", "06-masks", "--create", "--force")
    assert graded.returncode == 0, graded.stderr[-3000:]

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission("06-masks", "learner")
        assert submission.max_score > 0 and submission.score == submission.max_score


# ------------------------------------------------------------------ challenge_blank

def test_challenge_blank_keeps_a_multi_line_signature_and_its_docstring():
    code = ('def f(\n    a,\n    b=(1, 2),  # a: tuple\n) -> int:\n    """Doc,\n    two lines."""\n    x = a\n'
            f"    {BEGIN}\n    y = b\n    {END}\n    return y")
    assert challenge_blank(code) == ('def f(\n    a,\n    b=(1, 2),  # a: tuple\n) -> int:\n    """Doc,\n    two lines."""\n'
                                     f"    {BEGIN}\n    x = a\n    y = b\n    return y\n    {END}")


def test_challenge_blank_keeps_decorators_and_blanks_below_a_header_without_docstring():
    code = f"import functools\n\n\n@functools.cache\ndef g(x):\n    {BEGIN}\n    return x + 1\n    {END}\n\n\nz = g(1)"
    assert challenge_blank(code) == (f"import functools\n\n\n@functools.cache\ndef g(x):\n    {BEGIN}\n    return x + 1\n"
                                     f"    {END}\n\n\nz = g(1)")


def test_challenge_blank_blanks_only_the_methods_holding_a_blank():
    code = ("class M(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            f"        {BEGIN}\n        self.lin = nn.Linear(d, d)\n        {END}\n\n"
            '    def forward(self, x):\n        """Doc."""\n        return self.lin(x)')
    assert challenge_blank(code) == ("class M(nn.Module):\n    def __init__(self, d):\n"
                                     f"        {BEGIN}\n        super().__init__()\n        self.lin = nn.Linear(d, d)\n"
                                     f"        {END}\n\n"
                                     '    def forward(self, x):\n        """Doc."""\n        return self.lin(x)')


def test_challenge_blank_takes_a_blank_closed_after_the_last_return():
    code = ('def h(x):\n    """Doc."""\n    if x:\n'
            f"        {BEGIN}\n        return 1\n        {END}\n    {BEGIN}\n    return 2\n    {END}\n\n\n"
            "def after():\n    return 3")
    assert challenge_blank(code) == ('def h(x):\n    """Doc."""\n'
                                     f"    {BEGIN}\n    if x:\n        return 1\n    return 2\n    {END}\n\n\n"
                                     "def after():\n    return 3")


def test_challenge_blank_blanks_the_outer_function_of_a_nested_one():
    code = (f'def outer(x):\n    """Doc."""\n    def inner(y):\n        {BEGIN}\n        return y\n        {END}\n'
            "    return inner(x)")
    assert challenge_blank(code) == (f'def outer(x):\n    """Doc."""\n    {BEGIN}\n    def inner(y):\n'
                                     f"        return y\n    return inner(x)\n    {END}")


@pytest.mark.parametrize("code", [
    f"x = 1\n{BEGIN}\ny = 2\n{END}",  # a blank in top-level code
    f"def f():\n    return 1\n\n\n{BEGIN}\ny = f()\n{END}",  # a blank after a function, outside it
    "def f():\n    return 1",  # no blank at all
])
def test_challenge_blank_refuses_markers_outside_a_function(code):
    with pytest.raises(ValueError):
        challenge_blank(code)
