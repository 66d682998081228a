"""A run as text for people: Markdown (``report.md``) and one self-contained HTML page (``report.html``: inline CSS,
plots as base64 SVG images, no script, nothing fetched), both with every suite's metrics, tables, plots and notes.

Example:
    >>> from clinrag.evaluate.suites.base import SuiteResult, Table
    >>> from clinrag.evaluate.suites.run import RunReport
    >>> result = SuiteResult("answers", metrics={"extractive/answer_rate": 0.9})
    >>> result.add_table(Table("per generator", ("generator", "answer rate"), [("extractive", 0.9)]))
    >>> "| extractive | 0.900 |" in markdown(RunReport({"seed": 0}, [result]))
    True
"""

from __future__ import annotations

import base64
import html as escape
from collections.abc import Mapping, Sequence

from clinrag.evaluate.suites.base import Cell, Number, SuiteResult, Table
from clinrag.evaluate.suites.run import PLOTS_DIR, RunReport


def cell(value: Cell) -> str:
    """A cell as shown: shares and scores with three decimals, large numbers with separators, None as blank.

    Example:
        >>> cell(0.12345), cell(12345.0), cell(3), cell(None), cell(True)
        ('0.123', '12,345.0', '3', '', 'yes')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return value


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    """A table in Markdown."""
    lines = ["| " + " | ".join(_md_escape(c) for c in table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(_md_escape(cell(v)) for v in row) + " |" for row in table.rows]
    return "\n".join(lines)


def metrics_table(values: Mapping[str, Number], title: str = "metric") -> Table:
    """Metrics as a two-column table, sorted by name."""
    return Table(title, (title, "value"), [(name, value) for name, value in sorted(values.items())])


def _run_line(report: RunReport) -> str:
    run = report.run
    parts = [f"{key}: {run[key]}" for key in ("seed", "generators", "demo", "clinrag", "started_at") if key in run]
    if "seconds" in run:
        parts.append(f"{run['seconds']} s")
    return "; ".join(parts)


def markdown(report: RunReport) -> str:
    """The whole run in Markdown (plots as links to ``plots/SUITE-NAME.svg``)."""
    parts = ["# clinrag evaluation", "", _run_line(report), ""]
    for result in report.results:
        parts += [f"## {result.suite}", "", f"{len(result.metrics)} metrics, {result.seconds:.1f} s.", ""]
        parts += [f"- {note}" for note in result.notes]
        if result.notes:
            parts.append("")
        for table in result.tables:
            parts += [f"### {table.name}", ""]
            if table.caption:
                parts += [table.caption, ""]
            parts += [markdown_table(table), ""]
        for plot in result.plots:
            parts += [f"![{plot.title}]({PLOTS_DIR}/{result.suite}-{plot.name}.svg)", ""]
            if plot.caption:
                parts += [f"*{plot.caption}*", ""]
        parts += ["<details><summary>All metrics</summary>", "", markdown_table(metrics_table(result.metrics)), ""]
        if result.timings:
            parts += [markdown_table(metrics_table(result.timings, "timing")), ""]
        parts += ["</details>", ""]
    return "\n".join(parts).rstrip() + "\n"


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fafafa}
header{background:#1f5f8b;color:#fff;padding:14px 28px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;opacity:.85;font-size:12px}main{padding:8px 28px 40px;max-width:1200px}
nav a{margin-right:12px}section.suite{background:#fff;border:1px solid #e1e4e8;border-radius:6px;padding:4px 18px 16px;
margin:18px 0}h2{border-bottom:1px solid #e1e4e8;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0 10px;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;white-space:nowrap}th{background:#f0f3f6}
td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:10px 0 16px}
figure img{max-width:100%;height:auto;border:1px solid #eee;background:#fff}figcaption{font-size:12px;color:#57606a}
ul.notes{color:#57606a;font-size:13px}details{margin-top:10px}summary{cursor:pointer;color:#1f5f8b}
"""


def _html_table(table: Table, css_class: str = "") -> str:
    head = "".join(f"<th>{escape.escape(c)}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        cells = []
        for value in row:
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            cells.append(f"<td{' class=n' if numeric else ''}>{escape.escape(cell(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    caption = f"<caption>{escape.escape(table.caption)}</caption>" if table.caption else ""
    attribute = f' class="{css_class}"' if css_class else ""
    return f"<table{attribute}>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _html_suite(result: SuiteResult) -> str:
    parts = [
        f'<section class="suite" id="suite-{escape.escape(result.suite)}">',
        f"<h2>{escape.escape(result.suite)}</h2>",
    ]
    parts.append(f"<p>{len(result.metrics)} metrics, {result.seconds:.1f} s.</p>")
    if result.notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{escape.escape(n)}</li>" for n in result.notes) + "</ul>")
    for table in result.tables:
        parts += [f"<h3>{escape.escape(table.name)}</h3>", _html_table(table, "result")]
    for plot in result.plots:
        if not plot.svg:
            continue
        data = base64.b64encode(plot.svg.encode("utf-8")).decode("ascii")
        caption = f"<figcaption>{escape.escape(plot.caption)}</figcaption>" if plot.caption else ""
        parts.append(
            f'<figure class="plot" data-plot="{escape.escape(result.suite)}/{escape.escape(plot.name)}">'
            f'<img alt="{escape.escape(plot.title)}" src="data:image/svg+xml;base64,{data}">{caption}</figure>'
        )
    parts.append("<details><summary>All metrics</summary>")
    parts.append(_html_table(metrics_table(result.metrics), "metrics"))
    if result.timings:
        parts.append(_html_table(metrics_table(result.timings, "timing"), "timings"))
    parts += ["</details>", "</section>"]
    return "\n".join(parts)


def html(report: RunReport, title: str = "clinrag evaluation") -> str:
    """The whole run as one HTML page that needs nothing else: styles inline, plots as data: images."""
    names: Sequence[str] = [r.suite for r in report.results]
    links = " ".join(f'<a href="#suite-{escape.escape(n)}">{escape.escape(n)}</a>' for n in names)
    body = "\n".join(_html_suite(result) for result in report.results)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">"
        f"<title>{escape.escape(title)}</title><style>{_CSS}</style></head>\n"
        f"<body><header><h1>{escape.escape(title)}</h1><p>{escape.escape(_run_line(report))}</p></header>\n"
        f"<main><nav>{links}</nav>\n{body}\n</main></body></html>\n"
    )
