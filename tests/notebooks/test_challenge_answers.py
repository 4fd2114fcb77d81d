"""Right answers written unlike the solution pass the challenge notebooks' visible tests, and no later cell crashes.

One run per notebook (every English notebook, and one Korean one): each graded unit answered by the first zoo style
(tests/zoo/zoo_styles_*.py) whose code is not the reference's, run through the whole release notebook
(tests/challenge_answers.py). `make challenge-answers` runs every style.
"""
import ast

import nbformat
import pytest

from autograder.paths import assignment_ids, solutions_dir
from tests.challenge_answers import EXCLUDED, STYLES, Unusable, answer_cells, execute, style_source, units_of


def _shape(source, unit):
    """The code's AST with docstrings dropped and the top-level definition named `unit`, as a comparable string."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant):
                node.body = node.body[1:] or [ast.Pass()]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.name = unit
    tree.body = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return ast.dump(tree)


def unlike_reference(assignment, lang="en", skip=0):
    """{unit: the first usable style whose code differs from the reference answer} (the next one after `skip`
    such styles, cycling)."""
    reference = answer_cells(nbformat.read(solutions_dir(lang, "challenge") / assignment / f"{assignment}.ipynb",
                                           as_version=4))
    choice = {}
    for unit in units_of(assignment, lang):
        unlike = []
        for style in STYLES.get(unit, []):
            if style.__name__ in EXCLUDED:
                continue
            try:
                source = style_source(unit, style, list(reference))
            except Unusable:
                continue
            if _shape(source, unit) != _shape(reference[unit].source, unit):
                unlike.append(style)
        if unlike:
            choice[unit] = unlike[skip % len(unlike)]
    return choice


# The Korean run takes the second style of each unit: its messages and pass line are the Korean ones.
RUNS = [("en", a) for a in assignment_ids("en", "challenge")] + [("ko", "02-multi-head")]
SKIP = {"en": 0, "ko": 1}


def test_every_unit_has_a_style_unlike_the_reference():
    for lang, assignment in RUNS:
        missing = set(units_of(assignment, lang)) - set(unlike_reference(assignment, lang, SKIP[lang]))
        assert not missing, f"{assignment}: no zoo style for {sorted(missing)}"


@pytest.mark.parametrize("lang, assignment", RUNS, ids=[f"{lang}-{a}" for lang, a in RUNS])
def test_right_answers_in_another_style_pass_and_nothing_crashes(lang, assignment):
    choice = unlike_reference(assignment, lang, SKIP[lang])
    result = execute(assignment, choice, lang)
    assert result.visible, f"{assignment}: no visible test cell found"
    assert result.ok, f"{assignment} with {result.styles}:\n" + "\n".join(result.problems())


def test_a_wrong_answer_is_reported():
    """The control: a zoo bug (scores not scaled) in notebook 01 fails its visible test, and the run says so."""
    from tests.zoo.zoo_attention import sdpa_unscaled

    result = execute("01-attention", {"scaled_dot_product_attention": sdpa_unscaled})
    assert result.styles == {"scaled_dot_product_attention": "sdpa_unscaled"}
    assert result.visible == {"scaled_dot_product_attention-visible": False}
    assert any(where == "scaled_dot_product_attention-visible" for _, where, _, _ in result.crashes), result.crashes
