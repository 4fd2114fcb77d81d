"""The language a learner reads: English (the source text) or Korean.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

Every sentence a learner can see is written in English where it is made, wrapped in
``tr``: ``tr("Built with n_layers={n}, `layers` holds {count} layers.", n=n, count=count)``.
Its translations live in tables keyed by that English template, as gettext keys its
catalogues: ``learner_kit/locales/<language>/*.py`` for the learner kit's sentences and
``autograder/locales/<language>/*.py`` for the hidden checks' (each module a dict
``TRANSLATIONS``; the autograder adds its package with ``add_translations``, so nothing
here imports the grader). tests/learner_kit/test_i18n.py finds every ``tr("...")`` in the code and
fails when a language has no entry for one, or an entry whose {fields} differ. (Not gettext's
.po/.mo files: a .mo is compiled on every machine or committed as a binary, and the Python tables are
read by that test as they are; they export to .po with Babel when translators want their tools.)

Rules for a template: pass values, never English words, as fields (a plural is two
templates, chosen by the count); ``{name}`` fields are filled only when fields are given,
so a template without fields may hold braces freely, one with fields doubles them (``{{``).

Which language: ``set_language("ko")`` (each notebook's set-up cell says its own), else the
environment variable COURSE_LANG, else English. The grader speaks each submission's
language (its notebook's ``course_language`` metadata) with ``speaking(language)``.
"""
import contextlib
import importlib
import os
import pkgutil

from learner_kit import particles

LANGUAGES = ("en", "ko")
DEFAULT = "en"
ENVIRONMENT_VARIABLE = "COURSE_LANG"
METADATA_KEY = "course_language"  # a notebook's language, in its metadata (written by the builder)

_chosen = None
_packages = ["learner_kit.locales"]
_tables = {}


def set_language(language, figures=True):
    """Speak ``language`` ("en" or "ko") from now on, in this process; figures get a font that writes it."""
    global _chosen
    _chosen = _checked(language)
    if _chosen == "ko" and figures:
        from learner_kit.fonts import use_korean_font  # matplotlib: only for a notebook that needs Hangul

        use_korean_font()


def chosen_language():
    """The language set_language (or speaking) chose in this process, or None when none was."""
    return _chosen


def language():
    """The language messages are written in now."""
    if _chosen is not None:
        return _chosen
    wanted = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    return wanted if wanted in LANGUAGES else DEFAULT


@contextlib.contextmanager
def speaking(language):
    """Speak ``language`` inside the block (None: leave it as it is), then as before."""
    global _chosen
    before = _chosen
    if language is not None:
        _chosen = _checked(language)
    try:
        yield
    finally:
        _chosen = before


def notebook_language(notebook):
    """The language a notebook (an nbformat node or a dict) says it is written in; English if it says none."""
    metadata = notebook.get("metadata", {}) if hasattr(notebook, "get") else {}
    found = str(metadata.get(METADATA_KEY, DEFAULT)).strip().lower()
    return found if found in LANGUAGES else DEFAULT


def tr(template, /, **fields):
    """``template`` in the current language, its {fields} filled in."""
    lang = language()
    if lang != DEFAULT:
        template = translations(lang).get(template, template)
    text = template.format(**fields) if fields else template
    return particles.resolve(text) if lang == "ko" and fields else text


def add_translations(package):
    """Also read ``<package>.<language>`` modules' TRANSLATIONS (the grader's sentences)."""
    if package not in _packages:
        _packages.append(package)
        _tables.clear()


def translations(lang):
    """{English template: translation} of ``lang``, from every registered package."""
    if lang not in _tables:
        table = {}
        for package in _packages:
            try:
                parent = importlib.import_module(f"{package}.{lang}")
            except ModuleNotFoundError:
                continue
            for module in pkgutil.iter_modules(parent.__path__):
                table.update(importlib.import_module(f"{parent.__name__}.{module.name}").TRANSLATIONS)
        _tables[lang] = table
    return _tables[lang]


def _checked(language):
    code = str(language).strip().lower()
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    return code
