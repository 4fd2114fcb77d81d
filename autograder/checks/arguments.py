"""Every graded module's `dropout` argument reaches the parts it configures (learner_kit/arguments.py).

A hidden property of each unit that takes a `dropout` (COURSE.md): built with another rate, every
nn.Dropout inside has it, and a composite built from the course's stand-ins passes it to each of
them. The value aspects cannot see it: they run in evaluation mode. Appended to the units'
`properties` once every family has registered them (checks/__init__.py imports this last).
"""
from dataclasses import replace
from functools import partial

from learner_kit.arguments import DROPOUT_ARGUMENT, dropout_problem
from sandbox_servers import probes

from .core import UNITS


def dropout_reaches_parts(unit_name, outcome, case):
    """'' when a fresh unit built with another dropout rate has it in every part that drops."""
    instance = outcome.instance
    if instance is None:
        return ""
    return dropout_problem(unit_name, UNITS[unit_name].init,
                           lambda init: probes.probe("dropout_rates", instance, init))


for _name in DROPOUT_ARGUMENT:
    _spec = UNITS[_name]
    if "properties" in _spec.cases and not any(getattr(p, "func", None) is dropout_reaches_parts for p in _spec.properties):
        UNITS[_name] = replace(_spec, properties=(*_spec.properties, partial(dropout_reaches_parts, _name)))
