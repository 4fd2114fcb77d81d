"""Reading the course's notebooks in tests: assignments present, solution regions, answer cells."""
import re

import nbformat

from autograder.levels import DEFAULT_LEVEL, LEVELS
from autograder.paths import EDITIONS, assignment_ids, course_dir, solutions_dir

SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def source_notebook(assignment, lang="en", level=DEFAULT_LEVEL):
    return nbformat.read(solutions_dir(lang, level) / assignment / f"{assignment}.ipynb", as_version=4)


def release_notebook(assignment, release_dir=None, lang="en", level=DEFAULT_LEVEL):
    release_dir = course_dir(lang, level) if release_dir is None else release_dir
    return nbformat.read(release_dir / assignment / f"{assignment}.ipynb", as_version=4)


def solution_lines(nb):
    """The substantial lines inside the notebook's ### BEGIN/END SOLUTION regions."""
    lines = set()
    for cell in nb.cells:
        for region in SOLUTION_REGION.findall(cell.source):
            lines.update(line.strip() for line in region.splitlines() if len(line.strip()) >= 12)
    return lines


ASSIGNMENTS = assignment_ids()
# (edition, assignment) of every built notebook of every edition
EDITION_ASSIGNMENTS = [(lang, assignment) for lang in EDITIONS for assignment in assignment_ids(lang)]
# (edition, level, assignment) of every built notebook of every edition and level (autograder/levels.py)
LEVEL_ASSIGNMENTS = [(lang, level, assignment) for lang in EDITIONS for level in LEVELS
                     for assignment in assignment_ids(lang, level)]


# A learner's scaled_dot_product_attention without the 1/sqrt(d_k) factor: [sdpa-no-scale].
NO_SCALE_ATTENTION = """
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = scores.softmax(-1)
    return weights @ value, weights
"""
