"""What the page shows beside the numbers: for each mistake id, what learners see (the class report's catalogue,
in English and Korean), for each unit, where the course teaches it (the class report's Teaching: the release
notebook's section above the unit's answer cell, in each edition), and the class roster (the hub's class JSON)."""
import json

from autograder.course import GRADED_UNITS
from autograder.grading.outputs.class_report import Teaching, catalogue
from autograder.paths import edition_root
from learner_kit.messages import catalogue_of

LANGS = ("en", "ko")


def ids_explained():
    """{id: {lang: {"what": ..., "why": ...}}} for every id a learner can be shown."""
    english = catalogue()
    found = {}
    for lang in LANGS:
        texts = english if lang == "en" else catalogue_of(lang)
        for mistake, (what, why) in texts.items():
            found.setdefault(mistake, {})[lang] = {"what": what, "why": why}
    return found


def units_taught():
    """{unit: {lang: {"notebook", "section", "summary"}}}: where each graded unit is taught, per edition."""
    found = {}
    for lang in LANGS:
        teaching = Teaching(out=None, course_dir=edition_root(lang) / "course")
        for assignment, units in GRADED_UNITS.items():
            for unit in units:
                section = teaching.section(assignment, assignment, unit)
                if section is not None:
                    shown = section.notebook if lang == "en" else f"{lang}/{section.notebook}"
                    found.setdefault(unit, {})[lang] = {"notebook": shown, "section": section.title,
                                                        "summary": section.summary}
    return found


def roster(class_file):
    """The hub's students (names), from its class JSON (hub/class.example.json's format)."""
    data = json.loads(class_file.read_text(encoding="utf-8"))
    return sorted(data.get("students", {}))
