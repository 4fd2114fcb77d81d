"""No import cycle inside autograder/grading: each module of it can be read, and imported, before the ones that use it.

Function-level imports count too (grimp reads every import statement): a cycle hidden inside a function is still one
module needing the other's name, only found later. A cycle through code outside grading (the checks, learner_kit)
counts as well.
"""
import grimp
import pytest

GRADING = "autograder.grading"


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("autograder", "learner_kit", "sandbox_servers", cache_dir=None)


def grading_imports(graph):
    """Every (importer, imported) of two modules inside grading."""
    modules = {m for m in graph.modules if m == GRADING or m.startswith(GRADING + ".")}
    return sorted((importer, imported) for importer in modules
                  for imported in graph.find_modules_directly_imported_by(importer) if imported in modules)


def test_no_import_cycle_inside_grading(graph):
    edges = grading_imports(graph)
    assert len(edges) > 50, "grimp found grading's imports"  # the check below would pass on an empty graph
    cycles = []
    for importer, imported in edges:
        back = graph.find_shortest_chain(importer=imported, imported=importer)
        if back:
            cycles.append(" -> ".join((importer, *back)))
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_check_finds_a_planted_cycle(graph):
    """What the test above reads as a cycle: outputs/report.py importing the class report back, as it once did."""
    graph.add_import(importer="autograder.grading.outputs.report", imported="autograder.grading.outputs.class_report")
    try:
        importer, imported = "autograder.grading.outputs.class_report.records", "autograder.grading.outputs.report"
        assert (importer, imported) in grading_imports(graph)
        assert graph.find_shortest_chain(importer=imported, imported=importer)
    finally:
        graph.remove_import(importer="autograder.grading.outputs.report",
                            imported="autograder.grading.outputs.class_report")
