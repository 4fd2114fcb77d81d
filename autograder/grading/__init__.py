"""The instructor's grading pipeline behind ``autograder grade`` (see README.md here)."""
import sys

# jsonschema (under nbformat and nbgrader) imports rfc3987-syntax wherever it is installed
# (jupyter-events pulls it in), and that package compiles 38 lark grammars on import: 2.5 s
# in every grading process. It serves only the "iri" string formats, which no notebook or
# nbgrader schema uses, so grading processes go without it (tests/grading/test_grading_units.py).
sys.modules.setdefault("rfc3987_syntax", None)
