"""The course's Korean font for the instructor's pages: embedded in each feedback page (only the glyphs it uses),
and served to formgrader (formgrader_style.py), so that Hangul is drawn on a machine without a Korean font.

The font is NanumGothic, the one the lab and the figures use (learner_kit/fonts.py: the pinned
koreanize-matplotlib wheel). Cutting a font down to a page's glyphs with fontTools takes about 4 s from the
shipped file; from the font reduced once to its Hangul (the "base": no hinting, no layout tables, cached on disk
beside the gradebook templates), about 0.2 s, and only pages with Hangul pay it. A page embeds the result as a
data: URL: it still loads nothing, and can be mailed alone.
"""
import base64
import functools
import hashlib
import html
import io
import os

from autograder import environment

FAMILY = "Course Hangul"  # its own name: the @font-face covers Hangul only (unicode-range), the rest keeps its font
# Hangul Jamo, CJK symbols and punctuation, compatibility Jamo, Jamo extended A, syllables, Jamo extended B,
# full-width forms: what Korean text uses (learner_kit/lab_style.py serves the lab the same ranges).
RANGES = ((0x1100, 0x11FF), (0x3000, 0x303F), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF),
          (0xFF00, 0xFFEF))
UNICODE_RANGE = ", ".join(f"U+{low:04X}-{high:04X}" for low, high in RANGES)
# The fonts of the pages it is put first in: nbgrader's feedback template and formgrader (Bootstrap 3's).
TEXT_FONTS = '"Helvetica Neue", Helvetica, Arial, sans-serif'
CODE_FONTS = 'Menlo, Monaco, Consolas, "Courier New", monospace'


def hangul(text):
    """The code points of ``text`` in RANGES, sorted. Each distinct character is looked at once (``set(text)``): a
    feedback page is about a megabyte, and testing its every character against RANGES took 0.3 to 1 s a page."""
    return tuple(sorted(code for code in map(ord, set(text)) if any(low <= code <= high for low, high in RANGES)))


def _options(hinting):
    from fontTools import subset

    options = subset.Options()
    options.layout_features = []  # Korean needs no shaping here: syllables are precomposed glyphs
    options.hinting = hinting
    options.drop_tables += ["TSI0", "TSI1", "TSI2", "TSI3", "TSI5", "DSIG"]  # VTT's (fonts.VTT_TABLES): browsers reject an empty TSI3
    options.name_IDs = [1, 2]
    options.glyph_names = False
    options.notdef_outline = True
    options.recalc_bounds = False
    return options


def _regular():
    from learner_kit.fonts import korean_font_files

    found = [file for file in korean_font_files() if file.name == "NanumGothic.ttf"]
    return found[0] if found else None


def cache_dir():
    return environment.cache_dir()


@functools.cache
def hangul_base():
    """NanumGothic cut down to RANGES, as TrueType bytes (None without the font): made once, then read from disk."""
    from fontTools import version
    from fontTools.subset import Subsetter
    from fontTools.ttLib import TTFont

    source = _regular()
    if source is None:
        return None
    key = hashlib.sha256(f"{source.stat().st_size}:{version}:{UNICODE_RANGE}".encode()).hexdigest()[:16]
    cached = cache_dir() / f"hangul-{key}.ttf"
    if cached.is_file():
        return cached.read_bytes()
    font = TTFont(str(source), recalcTimestamp=False)
    subsetter = Subsetter(_options(hinting=False))
    subsetter.populate(unicodes=[code for low, high in RANGES for code in range(low, high + 1)])
    subsetter.subset(font)
    font["post"].formatType = 3.0  # no glyph names
    out = io.BytesIO()
    font.save(out)
    data = out.getvalue()
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(data)
        os.replace(partial, cached)
    except OSError:  # a read-only home: made again next time
        pass
    return data


@functools.lru_cache(maxsize=32)
def subset(code_points):
    """TrueType bytes of the glyphs of ``code_points`` (a tuple, hangul()'s), or None without the font."""
    from fontTools.subset import Subsetter
    from fontTools.ttLib import TTFont

    base = hangul_base()
    if base is None or not code_points:
        return None
    font = TTFont(io.BytesIO(base), lazy=True, recalcBBoxes=False, recalcTimestamp=False)
    subsetter = Subsetter(_options(hinting=True))  # the base has no hints left: glyphs are copied as they are
    subsetter.populate(unicodes=code_points)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def font_rules(src):
    """The @font-face (``src``: its url(...)) and the page's text and code fonts with it first."""
    return (f'@font-face {{ font-family: "{FAMILY}"; src: {src} format("truetype"); font-weight: 400; '
            f"font-style: normal; unicode-range: {UNICODE_RANGE}; }}\n"
            f'body {{ font-family: "{FAMILY}", {TEXT_FONTS}; }}\n'
            f'code, kbd, pre, samp {{ font-family: "{FAMILY}", {CODE_FONTS}; }}\n')


def embedded_style(text):
    """A <style> with the glyphs of the Hangul in ``text`` (a page: its character references count, as
    ``&#54620;`` in a heading that nbconvert wrote so) embedded, or "" (no Hangul, or no font installed)."""
    data = subset(hangul(html.unescape(text)))
    if not data:
        return ""
    url = "url(data:font/ttf;base64," + base64.b64encode(data).decode("ascii") + ")"
    return f'<style id="course-hangul-font">\n{font_rules(url)}</style>\n'


def with_hangul_font(html):
    """The page ``html`` with embedded_style() in its head, where it has Hangul; the page as it is on any failure
    (a page without the font is still a page: the reader's own fonts draw what they can)."""
    try:
        style = embedded_style(html)
    except Exception:  # fontTools on a font it cannot read: never worth a feedback page
        return html
    if not style or "</head>" not in html:
        return html
    return html.replace("</head>", style + "</head>", 1)
