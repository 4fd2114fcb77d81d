"""The learner's lab, readable in its language: a Jupyter server extension that `make lab` enables (lab-config/).

JupyterLab links `custom/custom.css` in its page when LabApp.custom_css is on (lab-config/jupyter_server_config.json),
and serves it from a `custom/` folder beside the user's Jupyter configuration only. This extension puts
lab-config/custom first among those folders; its custom.css imports `course-lab/lab.css`, written here:

- the Hangul of Markdown cells, code, comments and outputs in NanumGothic, the font the course already ships
  for its figures (learner_kit/fonts.py), served from the pinned package by this extension: a machine without
  a Korean font otherwise shows empty boxes. An @font-face with a unicode-range for Hangul only, so every other
  character keeps the theme's font;
- in the Korean lab, the Validate dialog's fixed English sentences (written by nbgrader's lab extension, which
  has no translations) shown in Korean, through tr().
"""
import asyncio
import functools
import os
from pathlib import Path

from tornado import web

from learner_kit.fonts import FAMILY, korean_font_files, web_font
from learner_kit.i18n import DEFAULT, language, speaking, tr

CUSTOM = Path(__file__).resolve().parent.parent / "lab-config" / "custom"
URL = "course-lab"  # under the server's base URL: lab.css and fonts/<name>.ttf
# Hangul Jamo, compatibility Jamo, Jamo extended A and B, syllables; and the CJK symbols and full-width forms
# Korean text uses (「」, ·, ～).
HANGUL_RANGE = "U+1100-11FF, U+3000-303F, U+3130-318F, U+A960-A97F, U+AC00-D7AF, U+D7B0-D7FF, U+FF00-FFEF"
# JupyterLab 4's own font lists (its light and dark themes), with the Hangul font first: only the characters
# of HANGUL_RANGE come from it.
THEME_FONTS = {
    "--jp-ui-font-family": 'system-ui, -apple-system, blinkmacsystemfont, "Segoe UI", helvetica, arial, sans-serif, '
                           '"Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol"',
    "--jp-content-font-family": 'system-ui, -apple-system, blinkmacsystemfont, "Segoe UI", helvetica, arial, '
                                'sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol"',
    "--jp-code-font-family-default": 'menlo, consolas, "DejaVu Sans Mono", monospace',
    "--jp-code-font-family": 'menlo, consolas, "DejaVu Sans Mono", monospace',
}


def _css_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\A ") + '"'


def font_css():
    """@font-face rules for the shipped NanumGothic (regular and bold) and the theme's fonts with it first."""
    files = {file.stem: file for file in korean_font_files()}
    faces = [(name, weight) for name, weight in (("NanumGothic", 400), ("NanumGothicBold", 700)) if name in files]
    rules = [f'@font-face {{ font-family: "{FAMILY}"; src: url("fonts/{name}.ttf") format("truetype"); '
             f"font-weight: {weight}; font-style: normal; font-display: swap; unicode-range: {HANGUL_RANGE}; }}"
             for name, weight in faces]
    if faces:  # `:root:root` wins over the theme's `:root`, whichever style sheet comes last
        rules.append(":root:root {\n" + "".join(f'  {variable}: "{FAMILY}", {fonts};\n'
                                               for variable, fonts in THEME_FONTS.items()) + "}")
    return "\n".join(rules) + "\n"


def _replaced(selector, text, size="var(--jp-ui-font-size1)"):
    """CSS that shows ``text`` instead of the element's own (which stays in the page, unseen)."""
    return (f"{selector} {{ font-size: 0; }}\n"
            f"{selector}::before {{ content: {_css_string(text)}; font-size: {size}; }}\n")


def validate_css():
    """The Validate dialog's own sentences (nbgrader's lab extension writes them in English) in tr()'s language;
    nothing in English."""
    if language() == DEFAULT:  # nbgrader's own words
        return ""
    dialog = ".jp-Dialog-content:has(.validation-success, .validation-failed, .validation-changed, .validation-type-changed)"
    return "".join([
        _replaced(".validation-success > div > p", tr("Success! Your notebook passes all the tests.")),
        _replaced(".validation-failed > div > p", tr("The following cell failed:")),
        _replaced(".validation-changed > div > p", tr("The source of the following cell has changed, but it should not have!")),
        _replaced(".validation-type-changed > div > p", tr("The type of the following cell has changed, but it should not have!")),
        _replaced(f"{dialog} .jp-Dialog-header", tr("Validation Results"), "calc(1.44 * var(--jp-ui-font-size1))"),
    ])


def lab_css(lang=None):
    """The whole of `course-lab/lab.css`, in ``lang`` (default: COURSE_LANG, as `make lab` sets it)."""
    with speaking(lang or os.environ.get("COURSE_LANG", "").strip().lower() or None):
        return "/* the course's lab style: learner_kit/lab_style.py */\n" + font_css() + validate_css()


class LabCSSHandler(web.RequestHandler):
    """lab.css; no authentication needed, as for JupyterLab's own custom.css and static files."""

    def get(self):
        self.set_header("Content-Type", "text/css; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(self.settings["course_lab_css"])


@functools.cache
def _font_bytes(name):
    files = {file.name: file for file in korean_font_files()}
    return web_font(files[name]) if name in files else None


class FontHandler(web.RequestHandler):
    """fonts/<name>.ttf: one of the shipped fonts, as browsers accept it (fonts.web_font), made once."""

    async def get(self, name):
        data = await asyncio.to_thread(_font_bytes, name)  # the first time about 0.4 s: off the server's loop
        if data is None:
            raise web.HTTPError(404)
        self.set_header("Content-Type", "font/ttf")
        self.set_header("Cache-Control", "max-age=86400")
        self.finish(data)


def _jupyter_server_extension_points():
    return [{"module": "learner_kit.lab_style"}]


def _load_jupyter_server_extension(serverapp):
    settings = serverapp.web_app.settings
    # JupyterLab's custom/ handler reads this list on every request: lab-config/custom comes first.
    if str(CUSTOM) not in settings["static_custom_path"]:
        settings["static_custom_path"].insert(0, str(CUSTOM))
    settings["course_lab_css"] = lab_css()
    base = settings.get("base_url", "/").rstrip("/")
    serverapp.web_app.add_handlers(".*$", [(f"{base}/{URL}/lab.css", LabCSSHandler),
                                           (f"{base}/{URL}/fonts/([A-Za-z]+\\.ttf)", FontHandler)])
    serverapp.log.info("The course's lab style is served at %s/%s/", base, URL)
