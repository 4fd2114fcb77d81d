"""Every sentence a learner can read has its Korean text (learner_kit/i18n.py)."""
import ast
import re
import string
from pathlib import Path

import pytest

from learner_kit import i18n
from learner_kit.messages import CATALOGUE, EXTRA_IDS, catalogue_of, format_message

ROOT = Path(__file__).resolve().parents[2]
CODE = [path for folder in ("learner_kit", "sandbox_servers", "autograder", "lab-config") for path in sorted((ROOT / folder).rglob("*.py"))
        if "locales" not in path.parts]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
OTHER_LANGUAGES = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]


def tr_calls():
    """(file:line, template or None when it is not a literal, keyword names) of every tr(...) call."""
    found = []
    for path in CODE:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tr" and node.args:
                first = node.args[0]
                template = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                found.append((where, template, {k.arg for k in node.keywords}))
    return found


def fields(template):
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def all_translations(lang):
    import autograder.checks  # noqa: F401  (registers the checks' translations)

    i18n._tables.clear()
    return i18n.translations(lang)


def test_tr_gets_literal_templates():
    """A template is a literal: an f-string or a variable could not be looked up."""
    calls = tr_calls()
    assert len(calls) > 100, "the code's sentences go through tr()"
    assert [where for where, template, _ in calls if template is None] == []


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_every_sentence_is_translated(lang):
    table = all_translations(lang)
    missing = sorted({f"{where}: {template!r}" for where, template, _ in tr_calls() if template and template not in table})
    assert missing == [], f"{len(missing)} sentences have no {lang} text:\n" + "\n".join(missing[:40])


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_translations_keep_the_fields(lang):
    table = all_translations(lang)
    wrong = []
    for where, template, keywords in tr_calls():
        if template in table and keywords:
            if fields(template) != keywords:
                wrong.append(f"{where}: the call gives {sorted(keywords)}, the template uses {sorted(fields(template))}")
            elif fields(table[template]) != fields(template):
                wrong.append(f"{where}: {lang} uses {sorted(fields(table[template]))}, English {sorted(fields(template))}")
    assert wrong == []


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_translations_are_in_the_language(lang):
    table = all_translations(lang)
    assert [english for english, text in table.items() if not HANGUL.search(text) and HANGUL.search(english) is None
            and re.search(r"[A-Za-z]{3,}\s+[a-z]{3,}\s+[a-z]{3,}", text)] == []


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_every_mistake_id_has_its_text(lang):
    catalogue = catalogue_of(lang)
    assert set(catalogue) == set(CATALOGUE), "the same ids in every language"
    for mistake_id, (what, why) in catalogue.items():
        assert HANGUL.search(what) and HANGUL.search(why), mistake_id
    assert set(EXTRA_IDS) <= set(catalogue)


def test_format_message_speaks_the_language():
    with i18n.speaking("ko"):
        korean = format_message("sdpa-no-scale", "")
    english = format_message("sdpa-no-scale", "")
    assert korean.startswith("[sdpa-no-scale] ") and HANGUL.search(korean)
    assert english.startswith("[sdpa-no-scale] The scores") and not HANGUL.search(english)


def test_language_is_chosen_in_order(monkeypatch):
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.delenv(i18n.ENVIRONMENT_VARIABLE, raising=False)
    assert i18n.language() == "en"
    monkeypatch.setenv(i18n.ENVIRONMENT_VARIABLE, "ko")
    assert i18n.language() == "ko"
    monkeypatch.setenv(i18n.ENVIRONMENT_VARIABLE, "klingon")
    assert i18n.language() == "en", "an unknown language in the environment is not an error: English"
    with i18n.speaking("ko"):
        assert i18n.language() == "ko"
    assert i18n.language() == "en"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.set_language("fr")
    assert i18n.notebook_language({"metadata": {"course_language": "ko"}}) == "ko"
    assert i18n.notebook_language({"metadata": {}}) == "en"


def test_the_class_report_recognises_korean_grading_messages():
    """The report sorts notebooks that did not run by fragments of the grader's messages, in both languages."""
    from autograder.grading.outputs import class_report

    korean = [text for text in all_translations("ko").values()]
    fragments = ([f for f, _ in class_report.LIMITS] + list(class_report.GRADER_TROUBLE) + list(class_report.NOT_GRADED)
                 + list(class_report.OUTSIDE_ONLY))
    for fragment in fragments:
        if HANGUL.search(fragment):
            assert any(fragment in text for text in korean), f"{fragment!r} is in no Korean message"
    with i18n.speaking("ko"):
        message = i18n.tr("Not graded: the run of this notebook stopped before this cell ({failure}).", failure="time")
        stopped = i18n.tr(" (the answer cell of {unit} stopped with {error})", unit="LayerNorm", error="TimeoutError")
    assert class_report.failure_in_messages([message])[:2] == ("limit", "run stopped")
    assert class_report.failure_in_messages(["[shape] ..." + stopped])[:2] == ("limit", "answer cell: TimeoutError")


def test_validate_names_the_failed_cell_in_the_notebook_language():
    import runpy

    import nbformat

    from learner_kit.i18n import set_language  # noqa: F401  (the module imports it too)

    class Config:
        def __getattr__(self, name):
            return self.__dict__.setdefault(name, type("Section", (), {})())

    settings = runpy.run_path(str(ROOT / "lab-config" / "nbgrader_config.py"), init_globals={"get_config": Config})
    cell = nbformat.v4.new_code_cell("assert False", metadata={"nbgrader": {"grade_id": "LayerNorm-visible"}})
    assert settings["_named"](cell, "ko").source == "LayerNorm의 테스트 셀(정답 셀 바로 아래)이 다음 메시지로 멈췄습니다:"
    assert settings["_named"](cell).source == "The test cell of LayerNorm (below its answer cell) stops with:"
