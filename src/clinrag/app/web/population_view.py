"""What the web app shows under a population answer: the route and its reason, each query in words with its table
and a bar chart, every hospital's part (counted, denied, unreachable), and the example passages of text criteria.

The chart is inline SVG drawn here (no script, no library, nothing inline the Content-Security-Policy forbids: bars
are ``rect`` elements sized by attributes, coloured by the stylesheet). A small cell is drawn as its text (``<5``)
with no bar at all, so no bar length tells what the table withholds; a lower bound (``≥13``) is drawn to its bound
only, with an open end. All text is escaped.

Example:
    >>> from clinrag.generate.population_answer import TableRow
    >>> svg = str(bar_chart([TableRow(label="A", count="9", value=9), TableRow(label="B", count="<5", value=1,
    ...                                                                              suppressed=True)], "counts"))
    >>> svg.count("<rect"), "&lt;5" in svg
    (1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from clinrag.app.population_tables import TableLayout, layout, org_names, row_label
from clinrag.generate.population_answer import EvidenceNote, PopulationAnswer, RouteInfo, TableRow
from clinrag.population.outcome import OrgPart

ROUTE_WORDS = {
    "population": "Counted across hospitals",
    "records": "Searched records",
    "both": "Counted across hospitals and searched records",
    "experience": "From similar patients",
    "calculator": "Computed by a calculator",
}
PART_WORDS = {
    "ok": "counted",
    "denied": "denied by policy",
    "refused": "refused",
    "unreachable": "unreachable",
    "error": "failed",
}
CHART_ROWS = 30
"""Bars drawn at most (the table lists every row)."""
_WIDTH, _LABEL, _ROW = 640, 250, 24
_BAR_MAX = _WIDTH - _LABEL - 16 - 56
_LABEL_CHARS = 36


@dataclass(frozen=True)
class RouteView:
    """The planner's route in words, and its reason."""

    route: str
    words: str
    reason: str


@dataclass(frozen=True)
class PartView:
    """One hospital's part in the count: status in words, departments counted and those denied (not counted)."""

    name: str
    status: str
    words: str
    reason: str
    counted: tuple[str, ...]
    denied: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the hospital's aggregate is in the sum."""
        return self.status == "ok"


@dataclass(frozen=True)
class ResultView:
    """One query: its anchor, the query in words, its total, its table and chart."""

    key: str
    anchor: str
    table: TableLayout
    chart: Markup
    description: str
    total: str | None
    denominator: str | None


@dataclass(frozen=True)
class PopulationView:
    """Everything the population part of a turn shows."""

    results: list[ResultView]
    parts: list[PartView]
    contributed: tuple[str, ...]
    denied: tuple[str, ...]
    unreachable: tuple[str, ...]
    evidence: tuple[EvidenceNote, ...]


def route_view(route: RouteInfo | None) -> RouteView | None:
    """The route in words (``Counted across hospitals``), or None for answers from before routing.

    Example:
        >>> route_view(RouteInfo(route="records", reason="names a patient")).words
        'Searched records'
    """
    if route is None:
        return None
    return RouteView(route.route, ROUTE_WORDS.get(route.route, route.route), route.reason)


def part_views(population: PopulationAnswer) -> list[PartView]:
    """Each hospital's part, once (from the first query that asked it), in the answer's order."""
    seen: dict[str, OrgPart] = {}
    for result in population.results:
        for part in result.orgs:
            seen.setdefault(part.org, part)
    return [
        PartView(
            part.label,
            part.status,
            PART_WORDS.get(part.status, part.status),
            part.reason,
            tuple(path.split("/")[-1] for path in part.counted),
            tuple(path.split("/")[-1] for path in part.denied),
        )
        for part in seen.values()
    ]


def population_view(turn_id: str, population: PopulationAnswer) -> PopulationView:
    """The view of a population answer for turn ``turn_id``: each result's table and chart, anchored
    ``pop-TURN-Q1`` so that the answer's ``[Q1]`` links to it."""
    results = []
    for result in population.results:
        table = layout(result)
        names = org_names(result)
        chart = bar_chart(result.table, table.title, names) if result.table else Markup("")
        results.append(
            ResultView(
                result.key,
                f"pop-{turn_id}-{result.key}",
                table,
                chart,
                result.description + (f" ({result.label})" if result.label else ""),
                result.total,
                result.denominator,
            )
        )
    return PopulationView(
        results,
        part_views(population),
        population.contributed,
        population.denied,
        population.unreachable,
        population.evidence,
    )


def hidden(row: TableRow) -> bool:
    """Whether a row's count is a small cell (``<5``): drawn as text only, never as a bar.

    Example:
        >>> hidden(TableRow(count="<5", value=1, suppressed=True)), hidden(TableRow(count="≥13", value=13))
        (True, False)
    """
    return row.count.startswith("<")


def bar_chart(rows: Sequence[TableRow], title: str, names: dict[str, str] | None = None) -> Markup:
    """A horizontal bar chart of the rows' counts as inline SVG (at most `CHART_ROWS` bars), scaled to the largest
    count shown; small cells are text without a bar, lower bounds are drawn to the bound with an open end."""
    shown = list(rows[:CHART_ROWS])
    top = max((row.value for row in shown if not hidden(row)), default=0)
    height = _ROW * len(shown) + 4
    pieces = [
        f'<svg class="chart" viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
    ]
    for index, row in enumerate(shown):
        pieces.append(_bar(index * _ROW, row, row_label(row, names), top))
    pieces.append("</svg>")
    return Markup("".join(pieces))


def _bar(y: int, row: TableRow, label: str, top: int) -> str:
    short = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
    kind = "small" if hidden(row) else "bound" if row.suppressed else "exact"
    width = 0
    if kind != "small" and top > 0 and row.value > 0:
        width = max(2, round(_BAR_MAX * row.value / top))
    x = _LABEL + 8
    parts = [
        f'<g class="bar {kind}" data-count="{escape(row.count)}"><title>{escape(label)}: {escape(row.count)}</title>',
        f'<text class="label" x="{_LABEL}" y="{y + 16}" text-anchor="end">{escape(short)}</text>',
    ]
    if width:
        parts.append(f'<rect x="{x}" y="{y + 5}" width="{width}" height="{_ROW - 10}" rx="2"></rect>')
    parts.append(f'<text class="count" x="{x + width + 6}" y="{y + 16}">{escape(row.count)}</text></g>')
    return "".join(parts)


def query_keys(population: PopulationAnswer | None) -> Iterable[str]:
    """The keys the answer cites for its queries (``Q1``, …).

    Example:
        >>> list(query_keys(None))
        []
    """
    return [result.key for result in population.results] if population is not None else []
