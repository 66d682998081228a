"""The suites ``clinrag eval`` knows, by name, each in a full and a quick size (the quick one: a few questions
per kind, for a smoke run and the tests). A new suite registers itself with `register`.

Example:
    >>> "retrieval" in names(), make("calculators", quick=True).name
    (True, 'calculators')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clinrag.evaluate.suites.base import Suite, SuiteInputError


@dataclass(frozen=True)
class Entry:
    """A registered suite: what it measures (one line), and how to make it full-size and quick."""

    name: str
    summary: str
    full: Callable[[], Suite]
    quick: Callable[[], Suite]


_SUITES: dict[str, Entry] = {}
_BUILTINS_LOADED: list[bool] = []


def register(name: str, summary: str, full: Callable[[], Suite], quick: Callable[[], Suite]) -> None:
    """Make a suite known by ``name`` (registering a name again replaces it)."""
    _SUITES[name] = Entry(name, summary, full, quick)


def _builtins() -> None:
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED.append(True)
    from clinrag.evaluate.suites import (
        answers,
        calculators,
        discharge,
        grid,
        literature,
        population,
        retrieval,
        safety,
        trend,
    )

    known = dict(_SUITES)  # registered before the built-ins were loaded: kept, and they win
    _SUITES.clear()
    for module in (retrieval, answers, safety, calculators, discharge, literature, population, trend, grid):
        module.register_suite(register)
    _SUITES.update(known)


def names() -> list[str]:
    """Every registered suite's name, in the order they run by default."""
    _builtins()
    return list(_SUITES)


def entry(name: str) -> Entry:
    """One suite's entry; `SuiteInputError` names the known ones."""
    _builtins()
    if name not in _SUITES:
        raise SuiteInputError(f"no suite {name!r}; the suites are {', '.join(_SUITES)}")
    return _SUITES[name]


def make(name: str, quick: bool = False) -> Suite:
    """The suite ``name``, full-size or quick."""
    found = entry(name)
    return found.quick() if quick else found.full()
