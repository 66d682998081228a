"""The tables behind a population answer, laid out once for every surface: the web app's HTML table and chart, and
the Markdown table the OpenAI-compatible API appends to the message content.

A table has the query's groups (hospital, department, year), the ranked item (top-N), the count as shown (``12``,
``<5``, ``≥13``: small cells are never shown), the share when known, and each hospital's count when more than one
counted. Everything comes from the `PopulationAnswer`: aggregates only, nothing is recounted here.

Example:
    >>> from clinrag.generate.population_answer import PopulationResult, TableRow
    >>> from clinrag.population.merge import merge
    >>> from clinrag.population.query import PopulationQuery
    >>> query = PopulationQuery()
    >>> result = PopulationResult(key="Q1", description="number of patients", query=query,
    ...                           table=(TableRow(label="total", count="12", value=12, by_org={"A": "7", "B": "5"}),),
    ...                           merged=merge(query, []))
    >>> print(markdown_table(result))
    **[Q1] number of patients**
    <BLANKLINE>
    |  | count | A | B |
    |---|---:|---:|---:|
    | total | 12 | 7 | 5 |
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.generate.population_answer import PopulationAnswer, PopulationResult, RoutedAnswer, TableRow
from clinrag.types import Answer

GROUP_WORDS = {"org": "hospital", "dept": "department", "year": "year"}
ITEM_WORDS = {
    "diagnosis": "diagnosis",
    "procedure": "procedure",
    "medication": "medication",
    "complication": "complication",
    "chief_complaint": "chief complaint",
    "insurance": "insurance",
    "admission_type": "admission type",
    "dept": "department",
}


@dataclass(frozen=True)
class TableLayout:
    """One result's table: column headers, which columns are numbers, the rows' cells as shown, and the rows."""

    title: str
    headers: tuple[str, ...]
    numeric: tuple[bool, ...]
    cells: tuple[tuple[str, ...], ...]
    rows: tuple[TableRow, ...]


def org_names(result: PopulationResult) -> dict[str, str]:
    """Each organisation's code and the name it goes by (``{"A": "Hospital A"}``), in the answer's order.

    Example:
        >>> from clinrag.population.merge import merge
        >>> from clinrag.population.outcome import OrgPart
        >>> from clinrag.population.query import PopulationQuery
        >>> q = PopulationQuery()
        >>> r = PopulationResult(key="Q1", description="d", query=q, merged=merge(q, []),
        ...                      orgs=(OrgPart(org="A", name="Hospital A", status="ok"),))
        >>> org_names(r)
        {'A': 'Hospital A'}
    """
    return {part.org: part.label for part in result.orgs}


def row_label(row: TableRow, names: dict[str, str] | None = None) -> str:
    """The row's group and item in words (``Hospital A · Essential hypertension (I10)``), for charts.

    Example:
        >>> row_label(TableRow(group={"org": "A"}, item="I10", label="Hypertension", count="9", value=9), {"A": "H A"})
        'H A · Hypertension (I10)'
    """
    known = names or {}
    groups = [known.get(value, value) if key == "org" else value for key, value in row.group.items()]
    return " · ".join([*groups, _item(row)] if row.item or not groups else groups)


def layout(result: PopulationResult) -> TableLayout:
    """The table of one result: groups, item, count, share (when known), and each hospital's count (when more than
    one counted and the table is not already by hospital).

    Example:
        >>> from clinrag.population.merge import merge
        >>> from clinrag.population.query import PopulationQuery
        >>> q = PopulationQuery()
        >>> r = PopulationResult(key="Q1", description="d", query=q, merged=merge(q, []),
        ...                      table=(TableRow(label="total", count="<5", value=1, suppressed=True),))
        >>> layout(r).headers, layout(r).cells
        (('', 'count'), (('total', '<5'),))
    """
    query = result.query
    names = org_names(result)
    groups = list(query.group_by)
    has_item = any(row.item for row in result.table)
    show_item = has_item or not groups
    has_share = any(row.share is not None for row in result.table)
    orgs = [org for org in names if any(org in row.by_org for row in result.table)]
    orgs += sorted({org for row in result.table for org in row.by_org} - set(orgs))
    if len(orgs) < 2 or "org" in groups:
        orgs = []
    columns = [(GROUP_WORDS.get(name, name), False) for name in groups]
    if show_item:
        columns.append((ITEM_WORDS.get(query.measure.of or "", "item") if has_item else "", False))
    columns += [("count", True), *([("share", True)] if has_share else []), *((names.get(o, o), True) for o in orgs)]
    cells = []
    for row in result.table:
        line = [
            names.get(row.group.get(g, ""), row.group.get(g, "")) if g == "org" else row.group.get(g, "")
            for g in groups
        ]
        line += [_item(row)] if show_item else []
        line += [row.count, *([share_text(row.share)] if has_share else []), *(row.by_org.get(o, "") for o in orgs)]
        cells.append(tuple(line))
    title = f"[{result.key}] {result.description}" + (f" ({result.label})" if result.label else "")
    headers = tuple(header for header, _ in columns)
    return TableLayout(title, headers, tuple(number for _, number in columns), tuple(cells), result.table)


def share_text(share: float | None) -> str:
    """A share as a whole percentage, or an empty string when it is not known.

    Example:
        >>> share_text(0.254), share_text(None)
        ('25 %', '')
    """
    return f"{100 * share:.0f} %" if share is not None else ""


def markdown_table(result: PopulationResult) -> str:
    """One result's table in Markdown (GitHub's pipe tables), headed by the query it counts."""
    table = layout(result)
    lines = [f"**{_escape(table.title)}**", ""]
    lines.append("| " + " | ".join(_escape(h) for h in table.headers) + " |")
    lines.append("|" + "|".join("---:" if number else "---" for number in table.numeric) + "|")
    lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in table.cells]
    return "\n".join(lines)


def markdown_tables(population: PopulationAnswer) -> str:
    """Every result's table in Markdown, separated by blank lines (empty when no result has a table)."""
    return "\n\n".join(markdown_table(result) for result in population.results if result.table)


def message_content(answer: Answer) -> str:
    """What a chat client shows: the answer text, with the population tables in Markdown after the population part
    (before a records answer, when both answered).

    Example:
        >>> message_content(Answer(question="q", text="Aspirin. [1]", generator="extractive"))
        'Aspirin. [1]'
    """
    population = answer.population if isinstance(answer, RoutedAnswer) else None
    if population is None:
        return answer.text
    tables = markdown_tables(population)
    if not tables:
        return answer.text
    if answer.text.startswith(population.text):
        rest = answer.text[len(population.text) :].strip()
        return f"{population.text}\n\n{tables}" + (f"\n\n{rest}" if rest else "")
    return f"{answer.text}\n\n{tables}"


def _item(row: TableRow) -> str:
    if row.item and row.label and row.label != row.item:
        return f"{row.label} ({row.item})"
    return row.label or row.item or ""


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
