"""The course's Korean font in the instructor's pages (issue 36): a feedback page with Hangul embeds the glyphs it
uses, and only those (a page without Hangul is left as it was). Chromium draws them on a machine without a Korean
font: tests/browser/test_feedback_offline.py."""
import base64
import io
import re

from fontTools.ttLib import TTFont

from autograder.grading.outputs.feedback_page import write_fallback
from autograder.grading.outputs.page_font import FAMILY, with_hangul_font

PAGE = ("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><h1>어텐션 가중치</h1>"
        "<pre># 모양: (B, L, d_k)</pre><p>Latin only here</p><h2>&#54620;&#44397;&#50612;</h2></body></html>")


def embedded_font(html):
    found = re.search(r"url\(data:font/ttf;base64,([A-Za-z0-9+/=]+)\)", html)
    assert found, "no font embedded"
    return TTFont(io.BytesIO(base64.b64decode(found.group(1))))


def test_a_page_with_hangul_embeds_exactly_its_glyphs():
    page = with_hangul_font(PAGE)
    assert page.count("@font-face") == 1 and f'font-family: "{FAMILY}", "Helvetica Neue"' in page and "unicode-range: U+1100-11FF" in page
    assert page.index('id="course-hangul-font"') < page.index("</head>")
    font = embedded_font(page)
    covered = set(font.getBestCmap())
    # what nbconvert writes as character references too (a Markdown heading); no space, no Latin, nothing else
    assert covered == {ord(ch) for ch in "어텐션가중치모양한국"}
    assert len(page) - len(PAGE) < 20_000  # ten syllables: a few kB, not the 4.7 MB font


def test_a_page_without_hangul_is_unchanged():
    english = PAGE.replace("어텐션 가중치", "Attention weights").replace("모양", "shape").replace(
        "&#54620;&#44397;&#50612;", "Korean")
    assert with_hangul_font(english) == english


def test_the_fallback_page_gets_the_font_too(tmp_path):
    record = {"grade_id": "scaled_dot_product_attention-visible", "points": 0, "max_points": 1,
              "feedback": ["[not-implemented] 빈칸을 채우세요."]}
    write_fallback(tmp_path / "page.html", [record], "학생 / 01-attention / 01-attention", "ko")
    font = embedded_font((tmp_path / "page.html").read_text(encoding="utf-8"))
    assert {ord(ch) for ch in "빈칸을채우세요학생"} <= set(font.getBestCmap())
