"""Checks that name a learner's mistake, one module per unit family: see README.md.

    from autograder.checks import check
    check("scaled_dot_product_attention", scaled_dot_product_attention, "masks")
"""
from learner_kit.i18n import add_translations

from . import additive, attention, decoder, encoder, feedforward, generator, heads, masks, norm, train  # noqa: F401  (each family registers its units)
from . import arguments  # noqa: F401,E402  (after the families: adds the dropout property to their units)
from .core import ASPECTS, UNITS, CheckFailure, UnitSpec, aspects_of, check, register

add_translations("autograder.locales")  # the checks' sentences in other languages

__all__ = ["ASPECTS", "UNITS", "CheckFailure", "UnitSpec", "aspects_of", "check", "register"]
