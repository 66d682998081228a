"""Two runs side by side: every metric's value in each and the change (``clinrag eval compare RUN_A RUN_B``).
Metrics in only one run are listed with a blank for the other; timings are compared in their own table.

Example:
    >>> from clinrag.evaluate.suites.base import SuiteResult
    >>> from clinrag.evaluate.suites.run import RunReport
    >>> a = RunReport({}, [SuiteResult("s", metrics={"x": 0.5, "gone": 1})])
    >>> b = RunReport({}, [SuiteResult("s", metrics={"x": 0.75, "new": 2})])
    >>> [(d.name, d.delta) for d in deltas(a.flat_metrics(), b.flat_metrics())]
    [('s/gone', None), ('s/new', None), ('s/x', 0.25)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from clinrag.evaluate.suites.base import Number, Table
from clinrag.evaluate.suites.report import markdown_table
from clinrag.evaluate.suites.run import RunReport


@dataclass(frozen=True)
class Delta:
    """One metric in both runs (None where a run lacks it) and B − A."""

    name: str
    a: Number | None
    b: Number | None

    @property
    def delta(self) -> float | None:
        """B − A (None unless both runs have the metric)."""
        if self.a is None or self.b is None:
            return None
        return round(float(self.b) - float(self.a), 10)


def deltas(a: Mapping[str, Number], b: Mapping[str, Number]) -> list[Delta]:
    """Every metric of either run, by name."""
    return [Delta(name, a.get(name), b.get(name)) for name in sorted(set(a) | set(b))]


def _table(name: str, found: list[Delta]) -> Table:
    return Table(name, ("metric", "A", "B", "B − A"), [(d.name, d.a, d.b, d.delta) for d in found])


def compare_markdown(a: RunReport, b: RunReport, a_name: str = "A", b_name: str = "B") -> str:
    """The comparison in Markdown: counts of metrics changed, then every metric, then every timing."""
    metrics = deltas(a.flat_metrics(), b.flat_metrics())
    changed = [d for d in metrics if d.delta]
    only = [d for d in metrics if d.delta is None]
    lines = [
        f"# clinrag eval compare: A = {a_name}, B = {b_name}",
        "",
        f"{len(metrics)} metrics: {len(changed)} changed, {len(metrics) - len(changed) - len(only)} equal, "
        f"{len(only)} in one run only.",
        "",
        "## Metrics",
        "",
        markdown_table(_table("metrics", metrics)),
        "",
    ]
    timings = deltas(a.flat_timings(), b.flat_timings())
    if timings:
        lines += ["## Timings (machine-dependent)", "", markdown_table(_table("timings", timings)), ""]
    return "\n".join(lines)
