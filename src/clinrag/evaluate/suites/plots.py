"""The report's plots, drawn with matplotlib's object API (no pyplot, no global figure state, no display) and kept
as SVG text: glyphs as paths, no date, a fixed id salt — the same numbers give the same bytes, and the report needs
no font or network to show them.

Example:
    >>> plot = grouped_bars("recall", "Recall@10", ["dense", "hybrid"], {"plain": [0.5, 0.7]}, ylabel="recall@10")
    >>> plot.svg.startswith("<?xml") and "<svg" in plot.svg
    True
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from clinrag.evaluate.suites.base import Plot

COLOURS: Final = ("#1f5f8b", "#d1793b", "#3b8b5a", "#8b3b6e", "#6e6e6e", "#b8a23b", "#3bb0b8", "#b83b3b")
_STYLE: Final[dict[str, Any]] = {
    "svg.hashsalt": "clinrag-eval",
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _style() -> AbstractContextManager[None]:
    # matplotlib types rc_context's keys as a Literal of every rcParam name; these are among them
    return mpl.rc_context(_STYLE)  # type: ignore[arg-type]


def render(figure: Figure, name: str, title: str, caption: str = "", timed: bool = False) -> Plot:
    """Draw ``figure`` to SVG text and return it as a `Plot` (the figure is not kept); ``timed``: it shows
    timings."""
    buffer = io.StringIO()
    with _style():
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return Plot(name, title, buffer.getvalue(), caption, timed)


def _figure(width: float, height: float) -> Figure:
    with _style():
        return Figure(figsize=(width, height), layout="constrained")


def grouped_bars(
    name: str,
    title: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    ylabel: str = "",
    caption: str = "",
    limit: tuple[float, float] | None = (0.0, 1.0),
    reference: Mapping[str, float] | None = None,
) -> Plot:
    """Bars of each series side by side for every label (missing values: no bar); ``reference`` draws dashed
    horizontal lines (published figures, say) with their names in the legend."""
    with _style():
        figure = _figure(max(4.5, 0.55 * len(labels) * max(1, len(series)) + 1.5), 3.4)
        axes = figure.add_subplot()
        positions = np.arange(len(labels))
        width = 0.8 / max(1, len(series))
        for number, (label, values) in enumerate(series.items()):
            shown = [math.nan if v is None else float(v) for v in values]
            offset = (number - (len(series) - 1) / 2) * width
            axes.bar(positions + offset, shown, width, label=label, color=COLOURS[number % len(COLOURS)])
        for number, (label, value) in enumerate((reference or {}).items()):
            axes.axhline(value, linestyle="--", linewidth=1, color=COLOURS[-1 - number % 3], label=label)
        axes.set_xticks(positions, labels, rotation=30 if max((len(x) for x in labels), default=0) > 10 else 0)
        for tick in axes.get_xticklabels():
            tick.set_horizontalalignment("right" if tick.get_rotation() else "center")
        if limit is not None:
            axes.set_ylim(*limit)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        if len(series) > 1 or reference:
            axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return render(figure, name, title, caption)


def bars(name: str, title: str, values: Mapping[str, float], ylabel: str = "", caption: str = "") -> Plot:
    """One bar per label (shares from 0 to 1).

    Example:
        >>> bars("exact", "Exactness", {"A.phys": 1.0, "B.nurse": 0.5}).name
        'exact'
    """
    return grouped_bars(name, title, list(values), {ylabel or title: list(values.values())}, ylabel, caption)


def heatmap(
    name: str,
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float | None]],
    caption: str = "",
    limit: tuple[float, float] = (0.0, 1.0),
) -> Plot:
    """A grid of values (row × column), each cell written in; missing cells left blank. Column labels are turned
    45° (anchored at their right end) when there are more than six or any is longer than six characters, so that
    neighbours do not overlap.

    Example:
        >>> heatmap("access", "Access", ["A.phys"], ["A", "B"], [[1.0, None]]).title
        'Access'
    """
    grid = np.array([[math.nan if v is None else float(v) for v in row] for row in values], dtype=float)
    with _style():
        figure = _figure(max(3.5, 0.9 * len(columns) + 2.0), max(2.2, 0.35 * len(rows) + 1.2))
        axes = figure.add_subplot()
        image = axes.imshow(grid, cmap="Blues", vmin=limit[0], vmax=limit[1], aspect="auto")
        turned = len(columns) > 6 or max((len(c) for c in columns), default=0) > 6
        axes.set_xticks(range(len(columns)), columns, rotation=45 if turned else 0, ha="right" if turned else "center")
        if turned:  # anchor each turned label's end under its column
            axes.tick_params(axis="x", pad=2)
            for tick in axes.get_xticklabels():
                tick.set_rotation_mode("anchor")
        axes.set_yticks(range(len(rows)), rows)
        for (r, c), value in np.ndenumerate(grid):
            if not math.isnan(value):
                dark = value > limit[0] + 0.6 * (limit[1] - limit[0])
                axes.text(c, r, f"{value:.2f}", ha="center", va="center", color="white" if dark else "black")
        figure.colorbar(image, ax=axes, shrink=0.8)
        axes.set_title(title)
        return render(figure, name, title, caption)


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float] | None:
    """Least-squares line through the points: (slope, intercept, r²); None with fewer than two distinct x.

    Example:
        >>> fit_line([0, 1, 2], [1, 3, 5])
        (2.0, 1.0, 1.0)
    """
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0:
        return None
    slope, intercept = np.polyfit(x, y, 1)
    predicted = slope * x + intercept
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(((y - predicted) ** 2).sum()) / total if total else 1.0
    return round(float(slope), 6), round(float(intercept), 6), round(r2, 6)


def point_labels(
    points: Mapping[str, tuple[float, float]], same: float = 0.03, near: tuple[float, float] = (0.25, 0.06)
) -> list[tuple[str, float, float, int]]:
    """The scatter's labels: names of points at (nearly) the same place — within ``same`` of the x and y ranges —
    joined into one label, and each label given a line (0, 1, …) above its point, one more than the labels placed
    before it whose points lie within ``near`` (shares of the x and y ranges), so that neighbours' labels do not
    overprint; as (text, x, y, line).

    Example:
        >>> point_labels({"a": (0.1, 0.5), "b": (0.1, 0.5), "c": (0.9, 0.2), "d": (0.15, 0.51)})
        [('a, b', 0.1, 0.5, 0), ('c', 0.9, 0.2, 0), ('d', 0.15, 0.51, 1)]
    """
    xs = [x for x, _ in points.values()]
    ys = [y for _, y in points.values()]
    x_span = (max(xs) - min(xs)) if xs else 0.0
    y_span = (max(ys) - min(ys)) if ys else 0.0

    def within(a: tuple[float, float], b: tuple[float, float], fx: float, fy: float) -> bool:
        return abs(a[0] - b[0]) <= fx * x_span + 1e-9 and abs(a[1] - b[1]) <= fy * y_span + 1e-9

    groups: list[tuple[list[str], tuple[float, float]]] = []
    for name, point in points.items():
        group = next((g for g in groups if within(g[1], point, same, same)), None)
        if group is None:
            groups.append(([name], point))
        else:
            group[0].append(name)
    labels: list[tuple[str, float, float, int]] = []
    for names, (x, y) in groups:
        line = 1 + max((row for _, px, py, row in labels if within((px, py), (x, y), *near)), default=-1)
        labels.append((", ".join(names), x, y, line))
    return labels


def scatter(
    name: str,
    title: str,
    points: Mapping[str, tuple[float, float]],
    xlabel: str,
    ylabel: str,
    caption: str = "",
    fit: bool = False,
    timed: bool = False,
) -> Plot:
    """One labelled point per name (`point_labels`: coinciding points share a label, neighbours' labels are
    lifted apart); with ``fit``, the least-squares line and its r² (`fit_line`); ``timed``: an
    axis shows timings."""
    with _style():
        figure = _figure(5.0, 3.6)
        axes = figure.add_subplot()
        xs = [x for x, _ in points.values()]
        ys = [y for _, y in points.values()]
        axes.scatter(xs, ys, color=COLOURS[0], s=18)
        right = min(xs, default=0.0) + 0.6 * (max(xs, default=0.0) - min(xs, default=0.0))
        for label, x, y, row in point_labels(points):  # labels of the right part to the left of their point
            left = x > right
            axes.annotate(
                label,
                (x, y),
                fontsize=7,
                xytext=(-3 if left else 3, 3 + 9 * row),
                textcoords="offset points",
                ha="right" if left else "left",
            )
        line = fit_line(xs, ys) if fit else None
        if line is not None:
            slope, intercept, r2 = line
            ends = np.array([min(xs), max(xs)])
            axes.plot(
                ends,
                slope * ends + intercept,
                color=COLOURS[1],
                label=f"y = {slope:.3g}x + {intercept:.3g}, r² = {r2:.2f}",
            )
            axes.legend(fontsize=8, frameon=False)
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        return render(figure, name, title, caption, timed)
