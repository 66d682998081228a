"""Evaluation suites: each measures one capability the way the published work did and returns a
`SuiteResult` — metrics (name → number, equal for equal inputs and seed), timings, tables, plots and notes — that
`run_suites` gathers into a `RunReport`, written as ``run.json``, ``report.md`` and one self-contained
``report.html`` by `write_run`, and compared metric by metric by `compare_markdown`.

A new suite is a class with a ``name`` and ``run(context, progress) -> SuiteResult``, registered with
`registry.register` under a full and a quick size.

Example:
    >>> from clinrag.evaluate.suites import names
    >>> names()[:3]
    ['retrieval', 'answers', 'safety']
"""

from clinrag.evaluate.suites.base import (
    Plot,
    Progress,
    QuietProgress,
    Suite,
    SuiteInputError,
    SuiteResult,
    Table,
)
from clinrag.evaluate.suites.compare import compare_markdown, deltas
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.registry import make, names, register
from clinrag.evaluate.suites.run import RunReport, load_run, run_suites, write_run

__all__ = [
    "Plot",
    "Progress",
    "QuietProgress",
    "RunReport",
    "Suite",
    "SuiteContext",
    "SuiteInputError",
    "SuiteResult",
    "Table",
    "compare_markdown",
    "deltas",
    "load_run",
    "make",
    "names",
    "register",
    "run_suites",
    "write_run",
]
