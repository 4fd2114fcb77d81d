"""A learner's day in JupyterLab, in a real browser: `make lab`, notebook 01, from a blank to a passing test.

The steps run in order on one server and one page, as one person would go: each asserts what
that person would check and saves a screenshot (build/screenshots/learner-NN-*.png).

The Korean learner's lab (`make lab COURSE_LANG=ko`) comes last, on a server of its own: its Hangul drawn with
the font the course ships (learner_kit/lab_style.py; without it, a machine with no Korean font, as this
one, shows empty boxes), and nbgrader's Validate dialog in Korean.

BROWSER_SUITE_BREAK=figure|message runs the same steps on a copy of notebook 01 whose attention
figure is never shown, or whose visible test has lost its message: the suite must then fail
(that is how it was shown to catch those regressions).
"""
import json
import os
import re
import subprocess

from types import SimpleNamespace

import pytest

from learner_kit.workspace import stamp_kernel
from tests.browser.answers import ASSIGNMENT, RIGHT, UNIT, WRONG, WRONG_ID
from tests.browser.jupyter_servers import ROOT, Screens, Server, open_page

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
STDERR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step


def _broken_copy(workspace, how):
    """Notebook 01 as the release has it, broken on purpose (see the module's docstring)."""
    release = ROOT / "course" / ASSIGNMENT / NOTEBOOK
    nb = json.loads(release.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    for cell in code:
        source = "".join(cell["source"])
        if how == "figure" and "attention_heatmap(" in source:
            source = source.replace("plt.show()", "plt.close(fig)")
        if how == "message" and cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"{UNIT}-visible":
            indented = "".join(f"    {line}" for line in source.splitlines(keepends=True))
            source = f"try:\n{indented}\nexcept AssertionError:\n    raise AssertionError() from None\n"
        cell["source"] = source
    target = workspace / ASSIGNMENT / NOTEBOOK
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    stamp_kernel(target)  # as `make lab` would have copied it


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    home = tmp_path_factory.mktemp("learner")
    workspace = home / "workspace"
    if os.environ.get("BROWSER_SUITE_BREAK"):
        _broken_copy(workspace, os.environ["BROWSER_SUITE_BREAK"])
    server = Server("lab", {"WORKSPACE": workspace, "LAB_WORKSPACES": home / "layouts"}, "LAB_ARGS", home)
    server.workspace = workspace
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def learner(chromium, lab):
    errors = []
    page = open_page(chromium, errors)
    CURRENT_PAGE["page"] = page
    yield SimpleNamespace(page=page, errors=errors, screens=Screens("learner"))
    CURRENT_PAGE.clear()
    page.close()


@pytest.fixture(autouse=True)
def no_dialog_left_open(request):
    """A step that failed with a dialog open must not block the next ones: close it, as a person would."""
    yield
    page = CURRENT_PAGE.get("page")
    if page is not None and page.locator(".jp-Dialog").count():
        page.keyboard.press("Escape")


# ---------------------------------------------------------------- what a person does in the page

def saved_code_cells(workspace):
    """The code cells of the learner's notebook 01 as saved on disk (dicts), in order."""
    nb = json.loads((workspace / ASSIGNMENT / NOTEBOOK).read_text(encoding="utf-8"))
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def code_cell(page, workspace, grade_id=None, calls=None):
    """The code cell shown for the notebook's cell with nbgrader ``grade_id``, or the last one that calls ``calls``.

    Found in the notebook on disk (its nbgrader metadata), then by position in the page: the steps
    do not depend on the wording of the notebook's code.
    """
    cells = saved_code_cells(workspace)
    if grade_id is not None:
        found = [i for i, c in enumerate(cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id]
    else:
        found = [i for i, c in enumerate(cells) if f"{calls}(" in "".join(c["source"])][-1:]
    assert len(found) == 1, f"notebook {ASSIGNMENT} has no single code cell {grade_id or calls!r}"
    shown = page.locator(".jp-NotebookPanel .jp-CodeCell")
    shown.nth(len(cells) - 1).wait_for(state="attached", timeout=30_000)
    assert shown.count() == len(cells), f"the page shows {shown.count()} code cells, the notebook has {len(cells)}"
    return shown.nth(found[0])


def prompts(page, workspace):
    """The execution counts shown left of the code cells that hold code ('[3]:', '[ ]:', '[*]:').

    Empty code cells (the hidden tests' places) are left out: JupyterLab does not run them.
    """
    empty = ["".join(c["source"]).strip() == "" for c in saved_code_cells(workspace)]
    shown = [p.strip() for p in page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt").all_text_contents()]
    assert len(shown) == len(empty), f"the page shows {len(shown)} code cells, the notebook has {len(empty)}"
    return [prompt for prompt, blank in zip(shown, empty) if not blank]


def run_all(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()


def type_into(page, cell, text):
    """Replace the cell's source by typing into its editor (select all, then the new text)."""
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)
    assert cell.locator(".cm-content").inner_text().strip() == text.strip(), "the editor does not hold what was typed"


def run_cell(page, cell):
    """Select ``cell`` and run it with Shift+Enter; wait until it has a new execution count."""
    before = cell.locator(".jp-InputArea-prompt").text_content().strip()
    cell.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "([cell, before]) => { const t = cell.querySelector('.jp-InputArea-prompt').textContent.trim();"
        " return /^\\[\\d+\\]:$/.test(t) && t !== before; }",
        arg=[cell.element_handle(), before], timeout=60_000)


def validate(page):
    """Press nbgrader's Validate button; the dialog's text (the dialog is left open)."""
    page.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    title = dialog.locator(".jp-Dialog-header").inner_text()
    assert "Validation Results" in title, f"Validate opened {title!r}: {dialog.inner_text()[:500]}"
    return dialog


def close_dialog(page):
    page.locator(".jp-Dialog").get_by_role("button", name=re.compile(r"^(Ok|확인)$")).click()  # 확인: the Korean lab
    page.locator(".jp-Dialog").wait_for(state="detached")


def tab_is_dirty(page):
    return page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").count() > 0


# ---------------------------------------------------------------- the learner's day, in order

def test_lab_opens_on_notebook_01_ready_to_use(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    page.goto(lab.url("/lab"))  # what a learner reopens later: /lab, not the printed URL
    page.locator(".jp-NotebookPanel").first.wait_for()
    page.locator("#jp-main-statusbar", has_text="Idle").wait_for(timeout=90_000)  # the kernel has started
    current = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current").inner_text().strip()
    assert current == NOTEBOOK, f"/lab opened {current!r}, not {NOTEBOOK}"
    assert page.locator(".jp-Launcher").count() == 0, "the Launcher is open"
    assert page.locator(".jp-NotebookPanel h1").first.inner_text().strip(), "the notebook's title is not rendered"
    page.wait_for_timeout(1000)  # the kernel's metadata has arrived by now
    assert not tab_is_dirty(page), "the untouched notebook is marked unsaved as soon as its kernel starts"
    menus = page.locator("#jp-menu-panel .lm-MenuBar-itemLabel").all_inner_texts()
    assert "Nbgrader" not in menus, f"the learner's menu bar offers nbgrader's instructor tools: {menus}"
    assert page.get_by_text("Create Assignment").count() == 0, "the instructor's Create Assignment panel is offered"
    assert page.get_by_text("Jupyter news").count() == 0, "Jupyter's news pop-up is shown"
    assert page.locator(".jp-Dialog").count() == 0
    assert page.get_by_role("button", name="Validate").is_visible(), "nbgrader's Validate button is missing"
    assert not errors, f"the browser console shows errors: {errors}"
    screens.take(page, "opens-on-01")


def test_markdown_latex_and_tables_render(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    markdown = page.locator(".jp-NotebookPanel .jp-MarkdownCell")
    rendered = page.locator(".jp-NotebookPanel .jp-MarkdownCell .jp-RenderedMarkdown")
    assert markdown.count() >= 5 and rendered.count() == markdown.count(), "some Markdown cells are not rendered"
    formulas = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown mjx-container")
    assert formulas.count() >= 10, f"only {formulas.count()} formulas typeset by MathJax"
    text = "\n".join(rendered.all_text_contents())
    leftovers = [raw for raw in ("$$", "\\frac", "\\sqrt", "\\operatorname") if raw in text]
    assert not leftovers, f"LaTeX left raw in the rendered text: {leftovers}"
    tables = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown table")
    assert tables.count() >= 2, f"{tables.count()} tables rendered"
    for table in tables.all():
        assert table.locator("tr").count() >= 3, "a table has fewer than two rows under its header"
    tables.first.scroll_into_view_if_needed()
    screens.take(page, "shapes-table")
    formulas.first.scroll_into_view_if_needed()
    screens.take(page, "formulas")
    assert not errors, f"the browser console shows errors: {errors}"


def test_run_all_stops_at_the_first_blank_with_its_message(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    run_all(page)
    error = page.locator(STDERR).first
    error.wait_for(timeout=90_000)
    test_cell = code_cell(page, lab.workspace, f"{UNIT}-visible")
    assert test_cell.locator(STDERR).count() == 1, "the first error is not in the unit's test cell"
    message = test_cell.locator(STDERR).text_content()
    assert "[not-implemented]" in message, f"the test's message does not say the blank is unfilled:\n{message[-800:]}"
    page.wait_for_timeout(1500)  # a cell queued after the error would have started by now
    shown = prompts(page, lab.workspace)
    first_blank = shown.index("[ ]:")
    assert all(re.fullmatch(r"\[\d+\]:", p) for p in shown[:first_blank]), f"cells before the test did not run: {shown}"
    assert set(shown[first_blank:]) == {"[ ]:"}, f"cells after the failing test ran or are still queued: {shown}"
    page.wait_for_timeout(500)  # the cell that stopped the run has scrolled its message into view (learner_kit.show_failure)
    top, height = error.evaluate("e => [e.getBoundingClientRect().top, window.innerHeight]")
    assert 0 <= top <= height - 60, (
        f"after Run All the message starts {top:.0f} px down a window {height} px high: the learner must scroll to read it")
    screens.take(page, "run-all-stops-at-blank")


def test_validate_reports_the_blank_in_a_few_lines(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    dialog = validate(page)
    text = dialog.inner_text()
    assert "failed" in text and "[not-implemented]" in text and UNIT in text, text[:1500]
    body = dialog.locator(".jp-Dialog-body")
    overflow = body.evaluate("b => b.scrollHeight - b.clientHeight")
    assert overflow <= 4, f"the report needs scrolling ({overflow} px more than its box): the message may be out of sight"
    screens.take(page, "validate-blank")
    close_dialog(page)


def test_a_wrong_answer_gets_its_mistake_named(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    answer = code_cell(page, lab.workspace, UNIT)
    type_into(page, answer, WRONG)
    run_cell(page, answer)
    test_cell = code_cell(page, lab.workspace, f"{UNIT}-visible")
    run_cell(page, test_cell)
    output = test_cell.locator(".jp-OutputArea").text_content()
    assert WRONG_ID in output, f"the test does not name the mistake {WRONG_ID}:\n{output[-1500:]}"
    assert "All visible tests passed" not in output
    # Only the message: no traceback of the test cell or of learner_kit in front of it (TestFailed renders itself).
    assert "Traceback" not in output and "learner_kit" not in output and "File " not in output, output[:1500]
    assert output.lstrip().startswith(f"AssertionError: {WRONG_ID}"), output[:300]
    test_cell.locator(STDERR).scroll_into_view_if_needed()
    screens.take(page, "wrong-answer-named")


def test_the_right_answer_passes(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    answer = code_cell(page, lab.workspace, UNIT)
    type_into(page, answer, RIGHT)
    run_cell(page, answer)
    test_cell = code_cell(page, lab.workspace, f"{UNIT}-visible")
    run_cell(page, test_cell)
    output = test_cell.locator(".jp-OutputArea").text_content()
    assert f"All visible tests passed for {UNIT}." in output, output[-1500:]
    assert test_cell.locator(STDERR).count() == 0
    test_cell.locator(".jp-OutputArea").scroll_into_view_if_needed()
    screens.take(page, "right-answer-passes")


def test_the_attention_figure_appears(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    run_all(page)
    figure_cell = code_cell(page, lab.workspace, calls="attention_heatmap")
    image = figure_cell.locator(".jp-OutputArea-output img")
    try:  # Run All reaches this cell after every cell above it: slower where make test runs two test files at once
        image.wait_for(timeout=120_000)
    except Exception:
        pytest.fail(f"no figure under the attention heatmap cell; its output:\n{figure_cell.locator('.jp-OutputArea').text_content()[-1500:]}")
    natural_width, natural_height, shown_width, area_width = image.evaluate(
        "i => [i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width,"
        " i.closest('.jp-OutputArea').getBoundingClientRect().width]")
    assert natural_width >= 500 and natural_height >= 200, f"the figure is {natural_width}x{natural_height} px"
    assert natural_width / natural_height > 1.5, "the two heatmaps are not side by side"
    assert shown_width <= area_width + 1, "the figure is wider than the notebook: clipped"
    shown = prompts(page, lab.workspace)
    assert "[ ]:" not in shown and "[*]:" not in shown, f"not every cell ran: {shown}"
    assert page.locator(STDERR).count() == 0, "an error or warning is shown: " + "\n".join(page.locator(STDERR).all_text_contents())[:1500]
    assert page.locator(".jp-NotebookPanel .jp-OutputArea-output img").count() >= 2, "the scaling figure is missing"
    image.scroll_into_view_if_needed()
    screens.take(page, "attention-figure")


def test_validate_says_success_on_the_finished_notebook(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    dialog = validate(page)
    assert "Success! Your notebook passes all the tests." in dialog.inner_text(), dialog.inner_text()[:1500]
    screens.take(page, "validate-success")
    close_dialog(page)
    assert not tab_is_dirty(page), "Validate saves the notebook first"


def test_make_progress_counts_the_finished_unit(lab, learner):
    result = subprocess.run(["make", "--no-print-directory", "progress", f"WORKSPACE={lab.workspace}"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {unit: next((line for line in result.stdout.splitlines() if f" {unit} " in f" {line} "), "")
            for unit in (UNIT, "split_heads")}
    assert "passed" in rows[UNIT] and "not started" in rows["split_heads"], result.stdout
    assert re.search(r"^1 of \d+ units pass their visible test\.$", result.stdout, re.M), result.stdout


def test_the_work_survives_a_restart_of_make_lab(lab, learner):
    page, errors, screens = learner.page, learner.errors, learner.screens
    lab.stop()
    lab.start()
    synced = [line for line in lab.log_text(since_start=True).splitlines() if "untouched" in line]
    assert synced, f"`make lab` did not say the work is untouched:\n{lab.log_text(since_start=True)[:2000]}"
    page.goto(lab.url("/lab"))
    page.locator(".jp-NotebookPanel").first.wait_for()
    answer = code_cell(page, lab.workspace, UNIT)
    answer.scroll_into_view_if_needed()
    assert "math.sqrt(d_k)" in answer.locator(".cm-content").text_content(), "the learner's answer is gone"
    test_cell = code_cell(page, lab.workspace, f"{UNIT}-visible")
    assert f"All visible tests passed for {UNIT}." in test_cell.locator(".jp-OutputArea").text_content()
    assert code_cell(page, lab.workspace, calls="attention_heatmap").locator(".jp-OutputArea-output img").count() == 1
    answer.scroll_into_view_if_needed()
    screens.take(page, "after-restart")


# ---------------------------------------------------------------- the Korean learner's lab (make lab COURSE_LANG=ko)

HANGUL = "[\\uac00-\\ud7a3]"


@pytest.fixture(scope="module")
def korean_lab(tmp_path_factory):
    """`make lab COURSE_LANG=ko` on a workspace whose notebook 01 holds the right answer (Validate succeeds)."""
    home = tmp_path_factory.mktemp("learner-ko")
    workspace = home / "workspace-ko"
    nb = json.loads((ROOT / "ko" / "course" / ASSIGNMENT / NOTEBOOK).read_text(encoding="utf-8"))
    [answer] = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == UNIT]
    answer["source"] = RIGHT
    target = workspace / ASSIGNMENT / NOTEBOOK
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    stamp_kernel(target)
    server = Server("lab", {"WORKSPACE": workspace, "LAB_WORKSPACES": home / "layouts", "COURSE_LANG": "ko",
                            "LAB_SETTINGS": workspace / ".jupyter" / "lab" / "user-settings"}, "LAB_ARGS", home)
    server.workspace = workspace
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def korean_learner(chromium, korean_lab):
    errors = []
    page = open_page(chromium, errors)
    CURRENT_PAGE["page"] = page
    yield SimpleNamespace(page=page, errors=errors, screens=Screens("learner-ko"))
    CURRENT_PAGE.clear()
    page.close()


def platform_fonts(page, selector):
    """{font family: glyphs drawn} for the text of the element ``selector`` picks: what Chromium really drew
    with (DevTools' CSS.getPlatformFontsForNode), whatever the style sheets ask for."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"nothing in the page matches {selector}"
        return {font["familyName"]: font["glyphCount"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}
    finally:
        cdp.detach()


def test_korean_markdown_is_drawn_with_the_shipped_font(korean_lab, korean_learner):
    """Without a Korean font on the machine, Hangul was empty boxes: NanumGothic, shipped with the course, draws
    every Hangul syllable of a Markdown cell and a comment, and English words keep the theme's font."""
    page, errors, screens = korean_learner.page, korean_learner.errors, korean_learner.screens
    page.goto(korean_lab.url("/lab"))
    page.locator(".jp-NotebookPanel .jp-RenderedMarkdown").first.wait_for()
    page.locator("#jp-main-statusbar", has_text="대기").wait_for(timeout=90_000)  # "Idle" in the Korean lab
    probes = page.evaluate(f"""() => {{  // the Hangul of an element's own text (the DevTools call reads just that)
        const own = element => [...element.childNodes].filter(n => n.nodeType === Node.TEXT_NODE)
            .map(n => n.textContent).join('');
        const probe = (element, name) => {{ if (!element) return 0; element.setAttribute('data-probe', name);
            return own(element).match(/{HANGUL}/g).length; }};
        const paragraph = [...document.querySelectorAll('.jp-NotebookPanel .jp-RenderedMarkdown p')]
            .find(p => /{HANGUL}/.test(own(p)));
        const comment = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .cm-line, .jp-CodeCell .cm-line *')]
            .find(e => /^\\s*#.*{HANGUL}/.test(own(e)));
        return {{paragraph: probe(paragraph, 'paragraph'), comment: probe(comment, 'comment')}};
    }}""")
    assert probes["paragraph"] and probes["comment"], f"notebook 01 shows no Markdown paragraph or comment in Korean: {probes}"
    for name in ("paragraph", "comment"):
        page.locator(f"[data-probe={name}]").scroll_into_view_if_needed()
        page.evaluate("document.fonts.ready")
        drawn = platform_fonts(page, f"[data-probe={name}]")
        assert drawn.get("NanumGothic", 0) >= probes[name], (
            f"the {name}'s {probes[name]} Hangul syllables are drawn with {drawn}, not all with NanumGothic")
        assert sum(drawn.values()) > drawn["NanumGothic"], (
            f"the {name}'s spaces and Latin letters are drawn with NanumGothic too (its unicode-range is lost): {drawn}")
    faces = page.evaluate("[...document.fonts].filter(f => f.family.replaceAll('\"', '') === 'NanumGothic')"
                          ".map(f => [f.weight, f.status])")
    assert ["400", "loaded"] in faces, f"the shipped NanumGothic: {faces}"
    page.locator("[data-probe=paragraph]").scroll_into_view_if_needed()
    screens.take(page, "hangul-font")
    assert not errors, f"the browser console shows errors: {errors}"


def test_korean_validate_speaks_korean(korean_lab, korean_learner):
    """nbgrader's Validate dialog writes fixed English sentences: the Korean lab shows them in Korean instead."""
    page, screens = korean_learner.page, korean_learner.screens
    page.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    dialog.locator(".validation-success").wait_for()
    shown = dialog.evaluate("""d => [d.querySelector('.jp-Dialog-header'), d.querySelector('.validation-success p')]
        .map(e => [getComputedStyle(e, '::before').content, parseFloat(getComputedStyle(e, '::before').fontSize),
                   parseFloat(getComputedStyle(e).fontSize)])""")
    (title, title_size, english_title_size), (sentence, sentence_size, english_size) = shown
    assert "검증 결과" in title and "성공" in sentence, shown
    assert title_size >= 13 and sentence_size >= 10, f"the Korean sentences are too small to read: {shown}"
    assert english_title_size == 0 and english_size == 0, f"the English sentences are still shown beside the Korean: {shown}"
    screens.take(page, "validate-success")
    close_dialog(page)


def test_korean_lab_menus_speak_korean(korean_lab, korean_learner):
    """JupyterLab's own menus come from its Korean language pack (jupyterlab-language-pack-ko-KR), which `make lab
    COURSE_LANG=ko` selects in the workspace's settings; the English lab keeps English menus (tested above by name)."""
    page, screens = korean_learner.page, korean_learner.screens
    page.goto(korean_lab.url("/lab"))
    menu = page.locator("#jp-menu-panel .lm-MenuBar-itemLabel")
    menu.filter(has_text="파일").first.wait_for()  # the pack's words replace the English ones once they are loaded
    labels = [label.strip() for label in menu.all_inner_texts()]
    assert "File" not in labels and "도움말" in labels, labels
    settings = korean_lab.workspace / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "translation-extension"
    assert (settings / "plugin.jupyterlab-settings").is_file()
    screens.take(page, "menus-korean")
