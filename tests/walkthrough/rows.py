"""Every walkthrough row, from the cases_<notebook>.py modules of this package."""
import importlib
import pkgutil

import tests.walkthrough as package
from tests.walkthrough import Mistake


def all_rows():
    rows = []
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("cases_")):
        found = importlib.import_module(f"{package.__name__}.{module}")
        rows += [value for value in vars(found).get("ROWS", ()) if isinstance(value, Mistake)]
    return rows
