"""The class report (OUT/report.html) for every reader (issue 53): axe-core's WCAG 2.1 A and AA rules find no violation
at a desktop's size and on a 375-px phone (200 % zoom of a 750-px window), in English and with the instructor's
language Korean (COURSE_LANG=ko: its sentences, and the Korean edition's messages in its tables); nothing scrolls the
page sideways (wide tables and figures scroll in their own box, which the keyboard can reach), and the figures' labels
are never drawn smaller than 12 px.

The class has the real course's shape (tests/grading/outputs/test_class_report.course_shape: ten assignments, so the heatmap is wide),
made as results.json directly. Screenshots at 375 px: build/screenshots/report-a11y-*.png.
"""
import pytest

from autograder.grading.outputs.class_report import LABEL_PX, write_report
from learner_kit.i18n import speaking
from tests.browser.a11y import assert_readable, axe_installed, file_pages
from tests.browser.jupyter_servers import Screens
from tests.grading.outputs.test_class_report import (
    course_shape,
    submission,
    synthetic_class,
    write_class,
)

CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
SMALLEST_LABEL_PX = 12


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """{language: report.html} of one class of 21 students, graded in that language."""
    axe_installed()
    units, mistakes = course_shape()
    folder, made = tmp_path_factory.mktemp("report-a11y"), {}
    for language in ("en", "ko"):
        with speaking(language), pytest.MonkeyPatch.context() as patch:
            patch.setattr("tests.grading.outputs.test_class_report.MISTAKES", mistakes)
            records = synthetic_class(20, seed=5, units=units)  # its messages in the class's language
            first = next(iter(units))
            records += submission("Zoë Kim-Nakamura-Rodríguez", first, {units[first][0][0]: ["sdpa-no-scale"]}, units=units)
            made[language] = write_report(write_class(folder / language, records, logs=True))
    return made


@pytest.fixture
def browse(chromium):
    with file_pages(chromium, CURRENT_PAGE) as open_file:
        yield open_file


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_axe_finds_no_violation_nothing_scrolls_the_page_sideways_and_labels_stay_readable(reports, browse, language, size):
    page = browse(reports[language], size)

    def shoot(shown):  # the page's top, its heatmap and its scores (the whole page is too long to shoot quickly)
        screens = Screens(f"report-a11y-{language}")
        for name, where in (("top", "h1"), ("heatmap", "#misconceptions figure"), ("scores", "#scores table")):
            shown.locator(where).first.scroll_into_view_if_needed()
            screens.take(shown, f"phone-{name}")

    assert_readable(page, language, size, shoot)
    # each figure's drawn size against its PNG's: its labels (LABEL_PX at the PNG's size) scale with it
    figures = page.evaluate("() => Array.from(document.querySelectorAll('figure img')).map(i => "
                            "[i.alt.slice(0, 30), i.getBoundingClientRect().width / i.naturalWidth])")
    assert len(figures) == 2, figures  # the heatmap and the scores' distribution
    small = [(alt, round(scale * LABEL_PX, 1)) for alt, scale in figures if scale * LABEL_PX < SMALLEST_LABEL_PX - 0.05]
    assert not small, f"{language} at {size}: figure labels drawn at (px) {small}"
    if size == "phone":  # a box that scrolls takes the keyboard's focus, and says what it holds
        boxes = page.evaluate("() => Array.from(document.querySelectorAll('table, figure img')).map(e => "
                              "{ const b = e.closest('.scroll-box'); return b && [b.tabIndex, b.getAttribute('role'),"
                              " b.getAttribute('aria-label')]; })")
        assert boxes and all(b and b[0] == 0 and b[1] == "region" and b[2] for b in boxes), boxes
