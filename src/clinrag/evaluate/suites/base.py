"""What a suite is and what it returns: the `Suite` protocol, `SuiteResult` (metrics, timings, tables, plots,
notes, details), `Table`, `Plot` and the `Progress` a suite reports to.

Metrics are numbers that depend only on the inputs and the seed (two runs give equal metrics); timings are seconds
and milliseconds, which depend on the machine and are kept apart so determinism can be checked on metrics alone.
Metric names are paths: ``GENERATOR/KIND/METRIC`` and the like, unique within a suite. Tables hold metrics only
(timings are shown with the timings), so they too are equal across runs; a plot drawn from timings is marked
``timed``.

Example:
    >>> result = SuiteResult("demo", metrics={"extractive/answer_rate": 0.5})
    >>> result.add_table(Table("per generator", ("generator", "answer rate"), [("extractive", 0.5)]))
    >>> result.metric("extractive/answer_rate"), result.tables[0].columns
    (0.5, ('generator', 'answer rate'))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from clinrag.errors import ClinragError

if TYPE_CHECKING:
    from clinrag.evaluate.suites.context import SuiteContext

Number = int | float
Cell = str | int | float | bool | None


class SuiteInputError(ClinragError):
    """A suite's inputs are missing or unusable (no demo cohort, no node, no local model): exit status 2."""

    exit_code = 2


@runtime_checkable
class Progress(Protocol):
    """Where a suite reports its work: `clinrag.app.console.ProgressReport` is one (a bar on a terminal)."""

    def __call__(self, done: int) -> None:
        """``done`` items of the current stage are finished."""

    def stage(self, description: str, total: int | None = None) -> None:
        """A new stage of ``total`` items begins."""


class QuietProgress:
    """A `Progress` that reports nothing, remembering the stages it was told of (tests, library use).

    Example:
        >>> quiet = QuietProgress()
        >>> quiet.stage("retrieval", 3); quiet(3)
        >>> quiet.stages
        ['retrieval']
    """

    def __init__(self) -> None:
        self.stages: list[str] = []

    def __call__(self, done: int) -> None:
        """Ignored."""

    def stage(self, description: str, total: int | None = None) -> None:
        """Remembered."""
        self.stages.append(description)


@dataclass(frozen=True)
class Table:
    """A table of a report: named columns, rows of cells (numbers are formatted when rendered).

    Example:
        >>> Table("t", ("user", "exact"), [("A.phys", 1.0)]).column("exact")
        [1.0]
    """

    name: str
    columns: tuple[str, ...]
    rows: Sequence[Sequence[Cell]]
    caption: str = ""

    def __post_init__(self) -> None:
        widths = {len(row) for row in self.rows}
        if widths - {len(self.columns)}:
            raise ValueError(f"table {self.name!r}: rows of {sorted(widths)} cells for {len(self.columns)} columns")

    def column(self, name: str) -> list[Cell]:
        """The cells of one column."""
        at = self.columns.index(name)
        return [row[at] for row in self.rows]

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"name": self.name, "caption": self.caption, "columns": list(self.columns), "rows": _rows(self.rows)}


def _rows(rows: Sequence[Sequence[Cell]]) -> list[list[Cell]]:
    return [[None if isinstance(c, float) and not math.isfinite(c) else c for c in row] for row in rows]


@dataclass(frozen=True)
class Plot:
    """A figure of a report, already drawn: its SVG text (see `clinrag.evaluate.suites.plots.render`). ``timed``:
    it shows timings, so two runs draw it differently (every other plot is the same bytes for the same metrics)."""

    name: str
    title: str
    svg: str
    caption: str = ""
    timed: bool = False

    def to_json(self) -> dict[str, object]:
        """Its name, title, caption and whether it shows timings (the SVG goes to the HTML report and ``plots/``,
        not the JSON)."""
        return {"name": self.name, "title": self.title, "caption": self.caption, "timed": self.timed}


@dataclass
class SuiteResult:
    """Everything one suite measured. ``details`` holds what the suite's benchmark wrote as JSON before (the full
    tables, failures, published figures), for readers of ``run.json``."""

    suite: str
    metrics: dict[str, Number] = field(default_factory=dict)
    timings: dict[str, Number] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0

    def metric(self, name: str) -> Number:
        """One metric by name (KeyError names the ones there are)."""
        try:
            return self.metrics[name]
        except KeyError:
            raise KeyError(f"{self.suite} has no metric {name!r}; it has {sorted(self.metrics)[:20]}") from None

    def add_metrics(self, prefix: str, values: Mapping[str, Number | None]) -> None:
        """Add ``values`` as ``PREFIX/NAME`` (``None`` values — nothing to measure — are left out)."""
        for name, value in values.items():
            if value is not None:
                self.metrics[f"{prefix}/{name}" if prefix else name] = value

    def add_table(self, table: Table) -> None:
        """Add a table (names are unique within a suite)."""
        if any(known.name == table.name for known in self.tables):
            raise ValueError(f"{self.suite} already has a table {table.name!r}")
        self.tables.append(table)

    def add_plot(self, plot: Plot) -> None:
        """Add a plot (names are unique within a suite)."""
        if any(known.name == plot.name for known in self.plots):
            raise ValueError(f"{self.suite} already has a plot {plot.name!r}")
        self.plots.append(plot)

    def to_json(self) -> dict[str, object]:
        """JSON-ready (plots by name only)."""
        return {
            "metrics": dict(sorted(self.metrics.items())),
            "timings": dict(sorted(self.timings.items())),
            "tables": [table.to_json() for table in self.tables],
            "plots": [plot.to_json() for plot in self.plots],
            "notes": list(self.notes),
            "details": self.details,
            "seconds": round(self.seconds, 1),
        }

    @classmethod
    def from_json(cls, suite: str, data: Mapping[str, object]) -> SuiteResult:
        """Read back what `to_json` wrote (plots come back without their SVG)."""
        tables = [
            Table(str(t["name"]), tuple(t["columns"]), [tuple(r) for r in t["rows"]], str(t.get("caption", "")))
            for t in _list(data.get("tables"))
        ]
        plots = [
            Plot(str(p["name"]), str(p["title"]), "", str(p.get("caption", "")), bool(p.get("timed")))
            for p in _list(data.get("plots"))
        ]
        return cls(
            suite,
            metrics=_numbers(data.get("metrics")),
            timings=_numbers(data.get("timings")),
            tables=tables,
            plots=plots,
            notes=[str(n) for n in _list(data.get("notes"))],
            details=dict(data.get("details") or {}),  # type: ignore[call-overload]
            seconds=float(data.get("seconds") or 0.0),  # type: ignore[arg-type]
        )


def _list(value: object) -> list[dict]:  # type: ignore[type-arg]
    return list(value) if isinstance(value, list) else []


def _numbers(value: object) -> dict[str, Number]:
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, int | float) and not isinstance(v, bool)}


@runtime_checkable
class Suite(Protocol):
    """An evaluation: a name, and a run over a `SuiteContext` reporting to a `Progress`.

    A suite keeps its own size (questions per kind, configurations) as fields, so a small version for tests is
    the same class with smaller numbers. It must be deterministic for ``context.seed``: two runs on the same inputs
    give equal `SuiteResult.metrics`.

    Example:
        >>> class Constant:
        ...     name = "constant"
        ...     def run(self, context, progress):
        ...         return SuiteResult(self.name, metrics={"one": 1})
        >>> isinstance(Constant(), Suite)
        True
    """

    @property
    def name(self) -> str:
        """The suite's name: ``clinrag eval NAME``, and its section of the report."""

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Measure, and return the figures."""


Register = Callable[[str, str, Callable[[], Suite], Callable[[], Suite]], None]
"""`clinrag.evaluate.suites.registry.register`: name, one-line summary, full-size and quick factories."""
