"""The tables behind a population answer, laid out once for every surface: the web app's HTML table and chart, and
the Markdown table the OpenAI-compatible API appends to the message content; and the table of the similar patients
behind an experience answer (`experience_cells`, `markdown_experience`).

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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from clinrag.generate.experience import ExperienceOrg, ExperiencePart, SharedView, SimilarView
from clinrag.generate.population_answer import (
    GROUP_WORDS,
    PopulationAnswer,
    PopulationResult,
    RoutedAnswer,
    TableRow,
)
from clinrag.population.similar_sets import KIND_WORDS
from clinrag.types import Answer

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

SHARED_KINDS = KIND_WORDS
"""The kinds of items two similar patients share, in the order shown, and their words."""
EXPERIENCE_HEADERS = ("hospital", "patient", "score", *(f"shared {words}" for words in SHARED_KINDS.values()), "cited")
EXPERIENCE_STATUS = {"ok": "ranked", "denied": "denied by policy", "unreachable": "unreachable", "error": "failed"}
SHARED_SHOWN = 4
"""Shared items a Markdown cell names per kind (the rest are counted: ``+3 more``)."""

PatientNames = Mapping[tuple[str, int], str]
"""Patients' names by ``(org, subject_id)``, as the answer's sources give them."""


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
    (before a records answer, when both answered), and the similar patients' table after an experience answer.

    Example:
        >>> message_content(Answer(question="q", text="Aspirin. [1]", generator="extractive"))
        'Aspirin. [1]'
    """
    content = _with_population(answer)
    experience = answer.experience if isinstance(answer, RoutedAnswer) else None
    if experience is None:
        return content
    table = markdown_experience(experience, source_names(answer))
    return f"{content}\n\n{table}" if table else content


def _with_population(answer: Answer) -> str:
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


def shared_text(item: SharedView) -> str:
    """A shared item in words: its title with the code when they differ (a drug is its name).

    Example:
        >>> shared_text(SharedView(code="I10", title="Essential hypertension", version=10))
        'Essential hypertension (I10)'
        >>> shared_text(SharedView(code="aspirin", title="aspirin"))
        'aspirin'
    """
    if item.title and item.title != item.code:
        return f"{item.title} ({item.code})"
    return item.title or item.code


def patient_text(view: SimilarView, names: PatientNames | None = None) -> str:
    """A similar patient as ``Name (subject_id)`` when the name is known, else the subject id.

    Example:
        >>> view = SimilarView(org="A", subject_id=7, score=0.5)
        >>> patient_text(view, {("A", 7): "Betty Henry"}), patient_text(view)
        ('Betty Henry (7)', '7')
    """
    name = (names or {}).get((view.org, view.subject_id))
    return f"{name} ({view.subject_id})" if name else str(view.subject_id)


def cited_keys(part: ExperiencePart) -> set[tuple[str, int]]:
    """The ``(org, subject_id)`` of every similar patient whose passages the answer cites.

    Example:
        >>> view = SimilarView(org="A", subject_id=7, score=0.5)
        >>> cited_keys(ExperiencePart(patient="Betty Henry", patients=(view,), cited_patients=(view,)))
        {('A', 7)}
    """
    return {(view.org, view.subject_id) for view in part.cited_patients}


def experience_org_names(part: ExperiencePart) -> dict[str, str]:
    """Each organisation's code and the name it goes by (its code when it has none).

    Example:
        >>> experience_org_names(ExperiencePart(patient="x", orgs=(ExperienceOrg(org="A", name="Hospital A",
        ...                                                                    status="ok"),)))
        {'A': 'Hospital A'}
    """
    return {org.org: org.name or org.org for org in part.orgs}


def experience_cells(part: ExperiencePart, names: PatientNames | None = None) -> tuple[tuple[str, ...], ...]:
    """One row per similar patient, best first, under `EXPERIENCE_HEADERS`: hospital, patient, score, the items
    shared per kind (at most `SHARED_SHOWN` named, the rest counted) and whether the answer cites them.

    Example:
        >>> view = SimilarView(org="A", subject_id=7, score=0.41, shared={"med": (SharedView(code="aspirin"),)})
        >>> experience_cells(ExperiencePart(patient="Betty Henry", patients=(view,)))
        (('A', '7', '0.410', '', 'aspirin', '', 'no'),)
    """
    hospitals = experience_org_names(part)
    cited = cited_keys(part)
    rows = []
    for view in part.patients:
        shared = [_shared_cell(view.shared.get(kind, ())) for kind in SHARED_KINDS]
        used = "yes" if (view.org, view.subject_id) in cited else "no"
        hospital = hospitals.get(view.org, view.org)
        rows.append((hospital, patient_text(view, names), f"{view.score:.3f}", *shared, used))
    return tuple(rows)


def org_status_text(org: ExperienceOrg) -> str:
    """One organisation's part in the ranking in words (``Hospital C: denied by policy``).

    Example:
        >>> org_status_text(ExperienceOrg(org="B", name="Hospital B", status="unreachable", reason="timed out"))
        'Hospital B: unreachable — timed out'
    """
    words = EXPERIENCE_STATUS.get(org.status, org.status)
    detail = f" — {org.reason}" if org.reason and org.reason != words else ""
    return f"{org.name or org.org}: {words}{detail}"


def markdown_experience(part: ExperiencePart, names: PatientNames | None = None) -> str:
    """The similar patients in Markdown: a heading, their table (when any) and each organisation that took no part
    in the ranking (denied, unreachable, failed); empty when there is nothing to show.

    Example:
        >>> view = SimilarView(org="A", subject_id=7, score=0.41, shared={"med": (SharedView(code="aspirin"),)})
        >>> print(markdown_experience(ExperiencePart(patient="Betty Henry", patients=(view,), cited_patients=(view,),
        ...     orgs=(ExperienceOrg(org="C", name="Hospital C", status="denied", reason="denied by policy"),))))
        **Patients most similar to Betty Henry**
        <BLANKLINE>
        | hospital | patient | score | shared diagnoses | shared medications | shared procedures | cited |
        |---|---|---:|---|---|---|---|
        | A | 7 | 0.410 |  | aspirin |  | yes |
        <BLANKLINE>
        Not ranked — Hospital C: denied by policy.
    """
    blocks = []
    if part.patients:
        numeric = [header == "score" for header in EXPERIENCE_HEADERS]
        lines = [f"**Patients most similar to {_escape(part.patient)}**", ""]
        lines.append("| " + " | ".join(EXPERIENCE_HEADERS) + " |")
        lines.append("|" + "|".join("---:" if number else "---" for number in numeric) + "|")
        lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in experience_cells(part, names)]
        blocks.append("\n".join(lines))
    failed = [org_status_text(org) for org in part.orgs if org.status != "ok"]
    if failed:
        blocks.append("Not ranked — " + "; ".join(failed) + ".")
    return "\n\n".join(blocks)


def source_names(answer: Answer) -> dict[tuple[str, int], str]:
    """The names of the patients the answer's sources belong to, by ``(org, subject_id)``.

    Example:
        >>> source_names(Answer(question="q", text="t", generator="extractive"))
        {}
    """
    return _names((source.chunk.org, source.chunk.subject_id, source.chunk.patient_name) for source in answer.sources)


def _names(rows: Iterable[tuple[str, int | None, str | None]]) -> dict[tuple[str, int], str]:
    return {(org, subject): name for org, subject, name in rows if subject is not None and name}


def _shared_cell(items: tuple[SharedView, ...]) -> str:
    named = "; ".join(shared_text(item) for item in items[:SHARED_SHOWN])
    more = len(items) - SHARED_SHOWN
    return named + (f"; +{more} more" if more > 0 else "")


def _item(row: TableRow) -> str:
    if row.item and row.label and row.label != row.item:
        return f"{row.label} ({row.item})"
    return row.label or row.item or ""


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
