"""Counting a population query at one node: DuckDB over ``population.duckdb``, small cells protected.

Only facts whose documents the asker may retrieve count: ``allowed_depts`` (the leaves Cedar lets them search;
None: all) and, optionally, ``may_see`` deciding each document class (department, service, table, sensitivity
labels) as the node's Cedar policies would (`cedar_may_see`). Text criteria are counted from the verified matches
the caller passes (`population.text`). What comes back is an `OrgAggregate`: counts, ranges for small cells, the
unknown criterion values with their nearest known ones, and a few evidence sentences; or a refusal with its reason
(`population.suppress`). Top-N rows carry every item (the root ranks the sum of all hospitals).

``complication`` ranks the admissions' secondary diagnoses (sequence > 1): coded data cannot tell a complication
from a comorbidity, and the answer says so. ``chief_complaint`` ranks the normalised Chief Complaint lines.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> from clinrag.population.query import Measure, PopulationQuery, ValueCriterion
    >>> from clinrag.population.tables import materialise
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=40, seed=3, workers=1)
    >>> path = materialise(out / "hospitals" / "A", out / "A" / "population.duckdb").path
    >>> query = PopulationQuery(measure=Measure(kind="top", of="insurance", n=3), unit="admission")
    >>> result = count(query, path, allowed_depts=None, text_matches={}, min_cell=5, org="A")
    >>> result.status, result.total is not None and result.total.value == sum(r.count.estimate for r in result.rows)
    ('ok', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import duckdb

from clinrag.access.policy import PolicyEngine
from clinrag.population.lexicon import unknown_terms
from clinrag.population.matches import TextMatch
from clinrag.population.query import PopulationQuery, TextCriterion, ValueCriterion
from clinrag.population.results import MAX_EVIDENCE_CHARS, Cell, Count, Evidence, OrgAggregate
from clinrag.population.sql import EXCLUSIVE_ITEMS, CompiledQuery, compile_query
from clinrag.population.suppress import difference_refusal, shown, shown_share
from clinrag.population.tables import DocumentClass, MaySee, connect, document_classes, meta, visible_classes
from clinrag.types import Actor, Chunk, SourceKind

MAX_ROWS: Final = 500
EVIDENCE_PER_CRITERION: Final = 3
ADMINISTRATIVE: Final = frozenset({"admission_type", "insurance"})


def cedar_may_see(engine: PolicyEngine, actor: Actor) -> MaySee:
    """A `MaySee` that asks ``engine`` whether ``actor`` may retrieve a document of each class (policies that
    depend on the patient are not supported: a class has no patient)."""

    def decide(document: DocumentClass) -> bool:
        chunk = Chunk.create(
            source_id=f"class:{document.class_id}",
            text="",
            org=document.org,
            dept=document.dept,
            leaf=document.leaf,
            service=document.service or None,
            source_kind=SourceKind.NOTE if document.source_kind == "note" else SourceKind.ROW,
            table=None if document.source_kind == "note" else document.table,
        ).model_copy(update={"sensitivity": document.sensitivity})
        return engine.can_retrieve(actor, [chunk])[0].allowed

    return decide


def _text_admissions(
    text_matches: Mapping[TextCriterion, Sequence[TextMatch]], allowed_depts: frozenset[str] | None
) -> dict[TextCriterion, list[int]]:
    return {
        criterion: sorted(
            {m.hadm_id for m in matches if m.hadm_id is not None and (allowed_depts is None or m.dept in allowed_depts)}
        )
        for criterion, matches in text_matches.items()
    }


def _fetch(connection: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, object]) -> list[Any]:
    used = {name: value for name, value in params.items() if f"${name}" in sql}
    return connection.execute(sql, used).fetchall()


def _group(groups: Sequence[str], row: Sequence[Any]) -> dict[str, str]:
    return {name: str(row[index]) for index, name in enumerate(groups)}


def _notes(query: PopulationQuery, visible: set[int], classes: Sequence[DocumentClass]) -> list[str]:
    notes = []
    admin_seen = any(c.class_id in visible and c.table == "admissions" for c in classes)
    clinical_seen = any(c.class_id in visible and c.table != "admissions" for c in classes)
    admin_asked = {str(c.kind) for c in query.cohort if isinstance(c, ValueCriterion)} & ADMINISTRATIVE
    if query.measure.of in ADMINISTRATIVE:
        admin_asked.add(str(query.measure.of))
    if admin_asked and not admin_seen:
        notes.append(
            f"{', '.join(sorted(admin_asked)).replace('_', ' ')} is recorded in the admissions department, "
            "which you may not see here"
        )
    if not clinical_seen:
        notes.append("you may not see any clinical department here: only administrative records count")
    if query.measure.of == "complication":
        notes.append("complications are counted as the secondary diagnoses coded during the stay")
    if query.unit == "patient" and query.group_by and set(query.group_by) - {"org"}:
        notes.append("a patient with stays in several groups counts in each; the total counts them once")
    return notes


def _evidence(
    org: str,
    text_matches: Mapping[TextCriterion, Sequence[TextMatch]],
    cohort: set[int],
    allowed_depts: frozenset[str] | None,
) -> list[Evidence]:
    found = []
    for criterion, matches in text_matches.items():
        chosen = [m for m in matches if m.hadm_id in cohort and (allowed_depts is None or m.dept in allowed_depts)][
            :EVIDENCE_PER_CRITERION
        ]
        found += [
            Evidence(org=org, phrase=criterion.phrase, chunk_id=m.chunk_id, sentence=m.sentence[:MAX_EVIDENCE_CHARS])
            for m in chosen
        ]
    return found


def _counts(
    connection: duckdb.DuckDBPyConnection, query: PopulationQuery, sql: CompiledQuery, min_cell: int
) -> tuple[Count, Count | None, list[Cell], bool, str | None]:
    """The total, the denominator (shares), the cells, whether rows were cut, and a refusal."""
    unit = "subject_id" if query.unit == "patient" else "hadm_id"
    groups = query.group_by
    total_n = int(_fetch(connection, sql.counts("cohort", (), unit), sql.params)[0][0])
    measure = query.measure
    if measure.kind == "share":
        den_n = int(_fetch(connection, sql.counts("seen", (), unit), sql.params)[0][0])
        total, denominator = shown_share(total_n, den_n, min_cell)
    else:
        total, denominator = shown(total_n, min_cell), None
    cells: list[Cell] = []
    truncated = False
    exclusive = bool(groups) and measure.kind != "top"
    if measure.kind == "top" and measure.of is not None:
        exclusive = measure.of in EXCLUSIVE_ITEMS
        rows = _fetch(connection, sql.top(measure.of, groups, unit, MAX_ROWS + 1), sql.params)
        truncated = len(rows) > MAX_ROWS
        width = len(groups)
        cells = [
            Cell(
                group=_group(groups, row),
                item=str(row[width]),
                label=str(row[width + 1] or ""),
                count=shown(int(row[width + 2]), min_cell),
            )
            for row in rows[:MAX_ROWS]
        ]
    elif groups:
        numerators = {
            tuple(r[:-1]): int(r[-1]) for r in _fetch(connection, sql.counts("cohort", groups, unit), sql.params)
        }
        if measure.kind == "share":
            seen = _fetch(connection, sql.counts("seen", groups, unit), sql.params)
            for row in sorted(seen, key=lambda r: tuple(str(v) for v in r[:-1])):
                num, den = shown_share(numerators.get(tuple(row[:-1]), 0), int(row[-1]), min_cell)
                cells.append(Cell(group=_group(groups, row), count=num, denominator=den))
        else:
            cells = [
                Cell(group=_group(groups, key), count=shown(n, min_cell))
                for key, n in sorted(numerators.items(), key=lambda kv: tuple(str(v) for v in kv[0]))
            ]
    refusal = None
    if exclusive:
        refusal = difference_refusal(total, [c.count for c in cells], min_cell)
        if refusal is None and denominator is not None:
            refusal = difference_refusal(denominator, [c.denominator for c in cells if c.denominator], min_cell)
    return total, denominator, cells, truncated, refusal


def count(
    query: PopulationQuery,
    tables_path: Path,
    *,
    allowed_depts: frozenset[str] | None,
    text_matches: Mapping[TextCriterion, Sequence[TextMatch]],
    min_cell: int,
    org: str,
    may_see: MaySee | None = None,
) -> OrgAggregate:
    """Count ``query`` over the node's population tables for an asker who may see ``allowed_depts`` (and, when
    given, the document classes ``may_see`` allows); see the module docstring."""
    with connect(tables_path) as connection:
        classes = document_classes(connection)
        visible = visible_classes(classes, allowed_depts, may_see)
        unknown = unknown_terms(query, connection, visible)
        text_admissions = _text_admissions(text_matches, allowed_depts)
        missing = [c for c in query.cohort if isinstance(c, TextCriterion) and c not in text_matches]
        if missing:
            raise ValueError(f"no text matches given for: {', '.join(c.describe() for c in missing)}")
        sql = compile_query(query, org, visible, text_admissions, meta(connection).get("admissions_department", ""))
        total, denominator, cells, truncated, refusal = _counts(connection, query, sql, min_cell)
        notes = _notes(query, set(visible), classes)
        unlinked = sum(1 for ms in text_matches.values() for m in ms if m.hadm_id is None)
        if unlinked:
            notes.append(f"{unlinked} text match(es) belong to no admission and are not counted")
        evidence: list[Evidence] = []
        if text_matches and refusal is None and not total.suppressed:
            cohort_rows = _fetch(connection, sql.base + " SELECT DISTINCT hadm_id FROM cohort", sql.params)
            evidence = _evidence(org, text_matches, {int(r[0]) for r in cohort_rows}, allowed_depts)
    if refusal is not None:
        return OrgAggregate(
            org=org, query=query, status="refused", reason=refusal, min_cell=min_cell, unknown=tuple(unknown)
        )
    return OrgAggregate(
        org=org,
        query=query,
        min_cell=min_cell,
        total=total,
        denominator=denominator,
        rows=tuple(cells),
        truncated=truncated,
        notes=tuple(notes),
        unknown=tuple(unknown),
        evidence=tuple(evidence),
    )
