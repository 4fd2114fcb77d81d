"""The browser suite: the course as a learner and an instructor see it, in Chromium driven by Playwright.

Debian's chromium is driven (`make browser-tool` installs it; CHROMIUM=path picks another build);
Playwright's own browser download is never used. The servers are started with the Makefile's own
commands (`make lab`, `make formgrader`) on a free localhost port with a token, in temporary
folders, with their own JupyterLab settings and layouts, so nothing saved on this machine can mask
what a new learner sees. The learner's day runs first, the instructor's after (it grades the
learner's kind of mistake in the background meanwhile).

Every step saves a screenshot under build/screenshots/ (git-ignored): look at them when a step
fails, or to see what the learner sees.
"""
import subprocess
import sys

import nbformat
import pytest

from tests.browser.answers import ASSIGNMENT, UNIT, WRONG
from tests.browser.hub_fixtures import accounts, hub, people  # noqa: F401  (the hub tests' fixtures)
from tests.browser.jupyter_servers import ROOT, SCREENSHOTS, chromium_path

STUDENT = "learner"
# Cells the learner added that try to run script in the instructor's formgrader (its page holds the Jupyter token).
HOSTILE_MARKDOWN = 'My notes <script>window.pwned = "markdown"</script><img src="x" onerror="window.pwned = \'markdown img\'">'
HOSTILE_CODE = ("from IPython.display import HTML, display\n"
                "display(HTML('<b>hostile output</b><img src=\"x\" onerror=\"window.pwned = 1\"><script>window.pwned = 2</script>'))")


def pytest_collection_modifyitems(session, config, items):
    """The learner's day before the instructor's (who grades a submission in the background meanwhile)."""
    slots = [i for i, item in enumerate(items) if "browser/test_" in item.nodeid]
    ordered = sorted((items[i] for i in slots), key=lambda item: "instructor" in item.nodeid)
    for slot, item in zip(slots, ordered):
        items[slot] = item


@pytest.fixture(scope="session")
def chromium():
    """Chromium, driven by Playwright: a failure (never a skip) when either is missing."""
    path = chromium_path()
    if path is None:
        pytest.fail("chromium was not found: `make browser-tool` installs Debian's chromium as root "
                    "(or: apt-get install chromium), or set CHROMIUM=/path/to/chromium. The browser suite drives it "
                    "with Playwright; Playwright's own browser download is not needed.")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing: `make venv` installs requirements.txt")
    for old in SCREENSHOTS.glob("FAILED-*.png"):
        old.unlink()
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
    yield browser
    browser.close()
    playwright.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.browser_failed = report.failed


@pytest.fixture(autouse=True)
def screenshot_on_failure(request):
    """When a step fails, the page as it was then: build/screenshots/FAILED-<test>.png."""
    yield
    if getattr(request.node, "browser_failed", False):
        page = getattr(request.node.module, "CURRENT_PAGE", {}).get("page")
        if page is not None:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(SCREENSHOTS / f"FAILED-{request.node.name}.png"))
            except Exception:  # the page may be gone; the failure says more
                pass


def submission(folder):
    """SUBMITTED/<student>/01-attention/01-attention.ipynb: the release copy with the wrong answer typed in."""
    nb = nbformat.read(str(ROOT / "course" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    answers = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == UNIT]
    assert len(answers) == 1, f"no answer cell {UNIT} in course/{ASSIGNMENT}"
    answers[0].source = WRONG
    nb.cells += [nbformat.v4.new_markdown_cell(HOSTILE_MARKDOWN), nbformat.v4.new_code_cell(HOSTILE_CODE)]
    target = folder / STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, str(target))
    return folder


@pytest.fixture(scope="session")
def grading(tmp_path_factory):
    """`autograder grade` of the submission, started at once (niced): {"out": OUT, "process": Popen}."""
    home = tmp_path_factory.mktemp("instructor")
    submitted, out = submission(home / "submitted"), home / "graded"
    log = open(home / "grading.log", "wb")
    process = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "autograder", "grade", str(submitted),
                                "--out", str(out)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    yield {"home": home, "submitted": submitted, "out": out, "process": process, "log": home / "grading.log"}
    if process.poll() is None:
        process.kill()
        process.wait()
    log.close()


@pytest.fixture(scope="session", autouse=True)
def grade_early(request):
    """Start the grading with the first browser step when an instructor step is to run: it overlaps the learner's day."""
    if any("test_instructor" in item.nodeid for item in request.session.items):
        request.getfixturevalue("grading")
