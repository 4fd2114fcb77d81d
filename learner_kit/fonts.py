"""A font with Hangul for the figures of the Korean edition, from a pinned package (nothing downloaded).

    from learner_kit.fonts import use_korean_font
    use_korean_font()   # titles and labels in Korean render, no missing-glyph boxes

The font is NanumGothic (SIL Open Font License), shipped inside the `koreanize-matplotlib` wheel
pinned in requirements.txt. Only its font files are used: importing that package would also change
matplotlib's settings as a side effect, so it is located, not imported.
"""
import importlib.util
from pathlib import Path

FAMILY = "NanumGothic"


def korean_font_files():
    """The NanumGothic .ttf files of the pinned package, or [] when it is not installed."""
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or spec.origin is None:
        return []
    return sorted((Path(spec.origin).parent / "fonts").glob("NanumGothic*.ttf"))


def use_korean_font():
    """Register NanumGothic with matplotlib, after DejaVu Sans: Latin, digits and math from DejaVu, Hangul from it.
    Returns the family's name; raises RuntimeError (saying what to install) when the font is missing."""
    from matplotlib import font_manager, rcParams

    files = korean_font_files()
    if not files:
        raise RuntimeError("The Korean font is missing: run `make venv` (it installs koreanize-matplotlib).")
    for file in files:
        font_manager.fontManager.addfont(str(file))
    # a list of families: matplotlib takes each glyph from the first that has it (DejaVu Sans has no Hangul,
    # NanumGothic no U+2212 minus sign). DejaVu Sans comes first because mathtext (the 10⁻¹ of a log axis)
    # takes every glyph from the first family only.
    rcParams["font.family"] = ["DejaVu Sans", FAMILY]
    return FAMILY
