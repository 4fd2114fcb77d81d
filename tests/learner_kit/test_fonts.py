"""Korean text in a figure renders with a real font: no missing-glyph boxes (issue 15's first need)."""
import logging
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import rc_context  # noqa: E402

from learner_kit.fonts import FAMILY, korean_font_files, use_korean_font  # noqa: E402

KOREAN = "어텐션 가중치: 쿼리(질의)와 키 −1.5"


class _Logged(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _draw(text):
    """Draw `text` as a title and tick label; return the warnings matplotlib gave (as warnings or log records:
    mathtext logs a missing glyph)."""
    logged = _Logged()
    logging.getLogger("matplotlib").addHandler(logged)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title(text)
        ax.plot([-1.5, 1.0])
        ax.set_xlabel("키 (key)")
        log_axis = fig.add_axes((0.6, 0.6, 0.2, 0.2))  # its ticks (10⁻¹) are mathtext, with a minus sign
        log_axis.semilogy([0.01, 0.1, 1.0])
        log_axis.set_ylabel("시간 (초)")
        fig.canvas.draw()
        plt.close(fig)
    logging.getLogger("matplotlib").removeHandler(logged)
    return [str(w.message) for w in caught] + logged.messages


def test_the_pinned_package_ships_the_font():
    assert [file.name for file in korean_font_files()][:1] == ["NanumGothic.ttf"]


def test_korean_text_renders_without_missing_glyphs():
    with rc_context():
        assert use_korean_font() == FAMILY
        missing = [w for w in _draw(KOREAN) if "missing from font" in w or "glyph" in w.lower()]
        assert not missing, missing


def test_without_the_font_the_same_text_is_missing_glyphs():
    """The check above can fail: DejaVu Sans alone has no Hangul, and matplotlib says so."""
    with rc_context({"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}):
        assert any("missing from font" in w or "Glyph" in w for w in _draw(KOREAN))


def test_the_web_font_is_the_same_font_without_the_table_browsers_reject():
    """Chromium's and Firefox's font sanitiser (OTS) refuse the shipped file for its empty TSI3 table
    ("TSI3: zero-length table"; tests/browser/test_learner_lab.py saw it): web_font drops Visual TrueType's
    tables and keeps every glyph."""
    import io

    from fontTools.ttLib import TTFont

    from learner_kit.fonts import VTT_TABLES, web_font

    shipped = korean_font_files()[0]
    original = TTFont(str(shipped), lazy=True)
    assert original.reader.tables["TSI3"].length == 0, "the shipped font has changed: is web_font still needed?"
    served = TTFont(io.BytesIO(web_font(shipped)), lazy=True)
    assert [tag for tag in VTT_TABLES if tag in served] == []
    assert [tag for tag, entry in served.reader.tables.items() if entry.length == 0] == []
    assert served.getBestCmap() == original.getBestCmap() and ord("한") in served.getBestCmap()
    assert served.reader["glyf"] == original.reader["glyf"], "the glyphs are copied as they are"


def test_the_lab_style_gives_hangul_the_font_and_speaks_the_lab_language():
    """learner_kit/lab_style.py: NanumGothic only for Hangul (English keeps the theme's fonts); in Korean, the
    Validate dialog's English sentences are replaced, in English nothing is."""
    import re

    from learner_kit.lab_style import lab_css

    korean, english = lab_css("ko"), lab_css("en")
    ranges = re.findall(r"unicode-range: ([^;]+);", korean)
    assert ranges and all("U+0" not in r and "U+AC00-D7AF" in r for r in ranges), ranges  # no Basic Latin
    assert re.search(r'--jp-content-font-family: "NanumGothic", system-ui', korean)
    for sentence in ("성공! 노트북이 모든 테스트를 통과합니다.", "다음 셀이 실패했습니다:", "검증 결과"):
        assert f'content: "{sentence}"' in korean, sentence
    assert "content:" not in english and "@font-face" in english
