"""learner_kit's import graph (grimp, import-linter's graph): no cycle among its modules, and a written list of the
modules that decide grades.

A learner_kit module that the grader imports, directly or through others, decides grades: a change that looks
learner-side changes verdicts. GRADE_DECIDING lists them in one place, so that a new dependency of the grader is a
change to this file, and each of them says so at its top (MARKER, in its docstring).

Only learner_kit's cycles are checked here; autograder/grading's are another change's.
"""
import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
GRADER = ("autograder.checks", "autograder.grading", "sandbox_servers")  # the hidden checks, grading, the sandbox
MARKER = "Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py)."
GRADE_DECIDING = frozenset({
    # calling a unit and judging what it gave (learner_kit.harness re-exports their names)
    "learner_kit.calls", "learner_kit.weights", "learner_kit.verdicts", "learner_kit.naming",
    "learner_kit.learner_errors", "learner_kit.torch_state", "learner_kit.wording", "learner_kit.harness",
    # the messages and the language they are told in
    "learner_kit.messages", "learner_kit.mistakes", "learner_kit.i18n", "learner_kit.particles", "learner_kit.fonts", "learner_kit.slips",
    # where a computation parts from the reference's
    "learner_kit.trace", "learner_kit.locate", "learner_kit.steps", "learner_kit.parting",
    # what the checks bind, build or watch around the learner's unit
    "learner_kit.replay", "learner_kit.stand_ins", "learner_kit.arguments", "learner_kit.watch",
    # the visible checks, which grading runs again
    "learner_kit.visible", "learner_kit.explain", "learner_kit.live", "learner_kit.show_failure",
    "learner_kit.static_hints", "learner_kit.packed",  # the stored fingerprints' file format
})


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("learner_kit", "autograder", "sandbox_servers", cache_dir=None)


def cycles(graph, package="learner_kit"):
    """The direct imports inside `package` that close a cycle: (importer, imported) where `imported` leads back."""
    modules = graph.find_descendants(package) | {package}
    return sorted((importer, imported) for importer in modules for imported in graph.find_modules_directly_imported_by(
        importer) if imported in modules and graph.chain_exists(importer=imported, imported=importer))


def test_no_cycle_among_learner_kits_modules(graph):
    found = cycles(graph)
    assert not found, "\n".join(f"{a} -> {b}, back by {' -> '.join(graph.find_shortest_chain(b, a))}"
                                for a, b in found)


def test_a_planted_cycle_is_found(graph):
    graph.add_import(importer="learner_kit.torch_state", imported="learner_kit.calls")  # calls imports torch_state
    try:
        assert ("learner_kit.calls", "learner_kit.torch_state") in cycles(graph)
    finally:
        graph.remove_import(importer="learner_kit.torch_state", imported="learner_kit.calls")


def grade_deciding(graph):
    """The learner_kit modules that the grader imports, directly or through others."""
    reached = set().union(*(graph.find_upstream_modules(side, as_package=True) for side in GRADER))
    return {module for module in reached if module.startswith("learner_kit.")}


def test_the_grader_relies_on_the_listed_learner_kit_modules(graph):
    found = grade_deciding(graph)
    assert found == GRADE_DECIDING, (
        f"newly imported by the grader: {sorted(found - GRADE_DECIDING)} (add them to GRADE_DECIDING and put the "
        f"marker sentence in their docstrings); no longer: {sorted(GRADE_DECIDING - found)}")


def test_the_package_itself_holds_no_code():
    """`learner_kit` itself is imported by the grader (for its folder) but is left out of the list: nothing in it runs."""
    tree = ast.parse((ROOT / "learner_kit" / "__init__.py").read_text(encoding="utf-8"))
    assert all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in tree.body)


def docstring(module):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


@pytest.mark.parametrize("module", sorted(GRADE_DECIDING))
def test_a_grade_deciding_module_says_so_at_its_top(module):
    assert MARKER in docstring(module).splitlines(), f"{module}'s docstring lacks the line: {MARKER}"


def test_no_other_module_claims_to_decide_grades():
    others = sorted(f"learner_kit.{path.stem}" for path in (ROOT / "learner_kit").glob("*.py")
                    if path.stem != "__init__" and f"learner_kit.{path.stem}" not in GRADE_DECIDING)
    assert others, "learner_kit has modules that learners alone use"
    assert [module for module in others if "Decides grades:" in docstring(module)] == []
