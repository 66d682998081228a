"""The root's sum of the organisations' aggregates.

Totals, denominators and cells with the same group and item are added. An exact part adds exactly; a suppressed
part (``<5``: 1..4) adds its range, so a sum with suppressed parts is reported as ``≥`` its known parts plus one
per suppressed part, or ``<5`` while every part together stays below the threshold. Nothing is ever subtracted, so
the root reveals no more than each node did. Top-N is ranked on the sum (every node sends every item) by the exact
value or lower bound, and cut to N. Patients are counted per hospital: a patient treated at two hospitals counts at
each (hospitals share no identities). Unknown terms are those no contributing hospital knew.

Example:
    >>> from clinrag.population.query import PopulationQuery
    >>> from clinrag.population.results import Count, OrgAggregate, OrgStatus
    >>> query = PopulationQuery()
    >>> parts = [OrgAggregate(org="A", query=query, total=Count.exact(12)),
    ...          OrgAggregate(org="B", query=query, total=Count.small(5))]
    >>> merged = merge(query, parts, [OrgStatus(org="C", status="unreachable")])
    >>> merged.total.text(5), merged.contributed, [s.status for s in merged.statuses]
    ('≥13', ('A', 'B'), ['ok', 'ok', 'unreachable'])
"""

from __future__ import annotations

from collections.abc import Sequence

from clinrag.population.query import PopulationQuery
from clinrag.population.results import Cell, Count, MergedAggregate, OrgAggregate, OrgStatus, UnknownTerm

PATIENTS_NOTE = "patients are counted per hospital: one treated at several hospitals counts at each"


def _add(left: Count | None, right: Count | None) -> Count | None:
    if left is None:
        return right
    if right is None:
        return left
    return left + right


def _cells(query: PopulationQuery, parts: Sequence[OrgAggregate]) -> tuple[Cell, ...]:
    summed: dict[tuple[tuple[tuple[str, str], ...], str | None], Cell] = {}
    for part in parts:
        for cell in part.rows:
            key = (tuple(sorted(cell.group.items())), cell.item)
            if key not in summed:
                summed[key] = cell
                continue
            before = summed[key]
            summed[key] = before.model_copy(
                update={
                    "count": before.count + cell.count,
                    "denominator": _add(before.denominator, cell.denominator),
                    "label": before.label or cell.label,
                }
            )
    cells = list(summed.values())
    if query.measure.kind != "top":
        return tuple(sorted(cells, key=lambda c: tuple(sorted(c.group.items()))))
    ranked: dict[tuple[tuple[str, str], ...], list[Cell]] = {}
    for cell in sorted(cells, key=lambda c: (-c.count.estimate, c.item or "")):
        ranked.setdefault(tuple(sorted(cell.group.items())), []).append(cell)
    return tuple(cell for group in sorted(ranked) for cell in ranked[group][: query.measure.n])


def _unknown(parts: Sequence[OrgAggregate]) -> tuple[UnknownTerm, ...]:
    if not parts:
        return ()
    keys = [{(u.criterion, u.term) for u in part.unknown} for part in parts]
    everywhere = set.intersection(*keys)
    nearest: dict[tuple[str, str], list[str]] = {}
    for part in parts:
        for term in part.unknown:
            nearest.setdefault((term.criterion, term.term), []).extend(term.nearest)
    return tuple(
        UnknownTerm(criterion=criterion, term=term, nearest=tuple(dict.fromkeys(nearest[criterion, term]))[:5])
        for criterion, term in sorted(everywhere)
    )


def merge(
    query: PopulationQuery, aggregates: Sequence[OrgAggregate], others: Sequence[OrgStatus] = ()
) -> MergedAggregate:
    """Sum ``aggregates`` (refused ones are listed, not summed); ``others`` names organisations that did not
    answer (denied, unreachable, error), so the answer can say who is missing."""
    mins = {part.min_cell for part in aggregates} or {5}
    parts = [part for part in aggregates if part.status == "ok"]
    statuses = [OrgStatus(org=part.org, status=part.status, reason=part.reason) for part in aggregates]
    total: Count | None = None
    denominator: Count | None = None
    for part in parts:
        total = _add(total, part.total)
        denominator = _add(denominator, part.denominator)
    notes = list(dict.fromkeys(note for part in parts for note in part.notes))
    if query.unit == "patient" and len(parts) > 1:
        notes.append(PATIENTS_NOTE)
    if any(part.truncated for part in parts):
        notes.append("some hospital sent only its most frequent items; rankings may miss rare ones")
    return MergedAggregate(
        query=query,
        min_cell=max(mins),
        statuses=(*statuses, *others),
        total=total,
        denominator=denominator,
        rows=_cells(query, parts),
        notes=tuple(notes),
        unknown=_unknown(parts),
        evidence=tuple(e for part in parts for e in part.evidence),
    )
