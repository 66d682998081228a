"""Every calculator clinrag has, found by name.

Each module of this package that defines ``CALCULATORS`` (a tuple of `Calculator`) contributes them; a new
calculator needs no edit here. Names are unique.

Example:
    >>> get("bmi").title
    'Body mass index (BMI)'
    >>> "bsa" in names()
    True
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache

import clinrag.calculators as package
from clinrag.calculators.spec import Calculator
from clinrag.errors import ClinragError


class UnknownCalculatorError(ClinragError):
    """No calculator by that name (exit status 2); the message suggests the nearest names."""

    exit_code = 2


@cache
def registry() -> dict[str, Calculator]:
    """Every calculator by name, from the package's modules (sorted by name).

    Raises:
        ValueError: two calculators share a name (a programming error caught by the tests).
    """
    found: dict[str, Calculator] = {}
    for module in pkgutil.iter_modules(package.__path__):
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        for calculator in getattr(loaded, "CALCULATORS", ()):
            if calculator.name in found:
                raise ValueError(f"two calculators are named {calculator.name!r} ({module.name})")
            found[calculator.name] = calculator
    return dict(sorted(found.items()))


def names() -> list[str]:
    """Every calculator's name."""
    return list(registry())


def get(name: str) -> Calculator:
    """The calculator called ``name`` (case and ``-`` / ``_`` do not matter).

    Raises:
        UnknownCalculatorError: no such calculator; the nearest names are suggested.
    """
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    found = registry().get(key)
    if found is not None:
        return found
    near = difflib.get_close_matches(key, names(), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else "; 'clinrag calc list' shows them all"
    raise UnknownCalculatorError(f"no calculator named {name!r}{hint}")
