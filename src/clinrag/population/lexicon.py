"""A node's vocabulary for population questions, and the criterion values it does not know.

The vocabulary (ICD codes with titles, drug names, services, departments, admission types, insurances, chief
complaints) lets a question parser turn words into criteria; counting uses it to report every criterion value the
node does not know, with the nearest ones it does (never silently dropping it). Only what the asker may see is in
it, so a suggestion never reveals a code or drug of a denied department.

Example:
    >>> _close("warfarine", ("warfarin", "metformin (glucophage)")), _close("glucophage", ("metformin (glucophage)",))
    (('warfarin',), ('metformin (glucophage)',))
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb

from clinrag.ingest.source import SourceConfig
from clinrag.population.query import CodeCriterion, MedicationCriterion, PopulationQuery, ValueCriterion
from clinrag.population.results import UnknownTerm
from clinrag.population.tables import connect, document_classes, normalise_drug

NEAREST: Final = 5
_VALUE_SQL: Final = {
    "service": "SELECT DISTINCT service FROM admissions WHERE list_contains($vis, clin_class) ORDER BY 1",
    "dept": "SELECT DISTINCT dept FROM admissions WHERE list_contains($vis, clin_class) ORDER BY 1",
    "admission_type": "SELECT DISTINCT admission_type FROM admissions WHERE list_contains($vis, adm_class) ORDER BY 1",
    "insurance": "SELECT DISTINCT insurance FROM admissions WHERE list_contains($vis, adm_class) ORDER BY 1",
    "drug": "SELECT DISTINCT drug FROM prescriptions WHERE list_contains($vis, class_id) ORDER BY 1",
    "complaint": "SELECT DISTINCT complaint FROM complaints WHERE list_contains($vis, class_id) ORDER BY 1",
}
_CODES_SQL: Final = {
    kind: f"SELECT code, version, any_value(title) FROM {table} WHERE list_contains($vis, class_id) "
    "GROUP BY code, version ORDER BY code"
    for kind, table in (("diagnosis", "diagnoses"), ("procedure", "procedures"))
}
Code = tuple[str, int, str]
"""(ICD code, version, title)."""


@dataclass(frozen=True)
class Vocabulary:
    """What a node's structured data names, restricted to what the asker may see."""

    diagnoses: tuple[Code, ...] = ()
    procedures: tuple[Code, ...] = ()
    drugs: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    admission_types: tuple[str, ...] = ()
    insurances: tuple[str, ...] = ()
    chief_complaints: tuple[str, ...] = ()


def _strings(connection: duckdb.DuckDBPyConnection, what: str, visible: list[int]) -> tuple[str, ...]:
    return tuple(str(row[0]) for row in connection.execute(_VALUE_SQL[what], {"vis": visible}).fetchall() if row[0])


def _codes(connection: duckdb.DuckDBPyConnection, kind: str, visible: list[int]) -> tuple[Code, ...]:
    rows = connection.execute(_CODES_SQL[kind], {"vis": visible}).fetchall()
    return tuple((str(r[0]), int(r[1]), str(r[2] or "")) for r in rows)


def read_vocabulary(connection: duckdb.DuckDBPyConnection, visible: list[int]) -> Vocabulary:
    """The vocabulary of the document classes ``visible`` (ids from `tables.document_classes`)."""
    return Vocabulary(
        diagnoses=_codes(connection, "diagnosis", visible),
        procedures=_codes(connection, "procedure", visible),
        drugs=_strings(connection, "drug", visible),
        services=_strings(connection, "service", visible),
        departments=_strings(connection, "dept", visible),
        admission_types=_strings(connection, "admission_type", visible),
        insurances=_strings(connection, "insurance", visible),
        chief_complaints=_strings(connection, "complaint", visible),
    )


def node_vocabulary(tables_path: Path, allowed_depts: frozenset[str] | None = None) -> Vocabulary:
    """The vocabulary of a node's population tables, limited to the departments ``allowed_depts`` (None: all),
    for a question parser."""
    with connect(tables_path) as connection:
        visible = [c.class_id for c in document_classes(connection) if allowed_depts is None or c.leaf in allowed_depts]
        return read_vocabulary(connection, visible)


def _code_unknown(
    criterion: CodeCriterion, connection: duckdb.DuckDBPyConnection, visible: list[int]
) -> list[UnknownTerm]:
    table = "diagnoses" if criterion.kind == "diagnosis" else "procedures"
    unknown = []
    for prefix in criterion.prefixes:
        present = connection.execute(
            f"SELECT count(*) FROM {table} WHERE list_contains($vis, class_id) AND version = $version "
            "AND starts_with(code, $prefix)",
            {"vis": visible, "version": criterion.version, "prefix": prefix},
        ).fetchall()
        if present[0][0]:
            continue
        listed = connection.execute(
            "SELECT count(*) FROM icd WHERE kind = $kind AND version = $version AND starts_with(code, $prefix)",
            {"kind": criterion.kind, "version": criterion.version, "prefix": prefix},
        ).fetchall()
        if listed[0][0]:  # a real code nobody the asker may see has: a true zero, not an unknown term
            continue
        codes = [c for c in _codes(connection, criterion.kind, visible) if c[1] == criterion.version]
        nearest: list[Code] = []
        for length in range(len(prefix) - 1, 0, -1):  # the codes sharing the longest prefix with it
            nearest = [c for c in codes if c[0].startswith(prefix[:length])] or _listed(
                connection, criterion, prefix[:length]
            )
            if nearest:
                break
        shown = tuple(f"{code} ({title})" if title else code for code, _, title in nearest[:NEAREST])
        unknown.append(UnknownTerm(criterion=criterion.describe(), term=prefix, nearest=shown))
    return unknown


def _listed(connection: duckdb.DuckDBPyConnection, criterion: CodeCriterion, prefix: str) -> list[Code]:
    """Codes of the node's ICD dictionary (public knowledge, not its patients) that start with ``prefix``."""
    rows = connection.execute(
        "SELECT code, version, title FROM icd WHERE kind = $kind AND version = $version AND starts_with(code, $prefix) "
        f"ORDER BY code LIMIT {NEAREST}",
        {"kind": criterion.kind, "version": criterion.version, "prefix": prefix},
    ).fetchall()
    return [(str(r[0]), int(r[1]), str(r[2] or "")) for r in rows]


def _close(term: str, names: tuple[str, ...]) -> tuple[str, ...]:
    lowered = {name.lower(): name for name in names}
    close = difflib.get_close_matches(term.lower(), list(lowered), n=NEAREST, cutoff=0.6)
    words = [name for low, name in lowered.items() if term.lower() in low.replace("(", " ").replace(")", " ").split()]
    return tuple(dict.fromkeys([lowered[c] for c in close] + words))[:NEAREST]


def _drug_known(drug: str, drugs: tuple[str, ...]) -> bool:
    return any(name == drug or name.startswith(drug + " ") for name in drugs)


def unknown_terms(
    query: PopulationQuery, connection: duckdb.DuckDBPyConnection, visible: list[int]
) -> list[UnknownTerm]:
    """Every criterion value of ``query`` that the asker's part of the node does not know, with the nearest
    known ones (an ICD code in the node's dictionary that nobody visible has is a true zero, not unknown)."""
    unknown: list[UnknownTerm] = []
    for criterion in query.cohort:
        if isinstance(criterion, CodeCriterion):
            unknown += _code_unknown(criterion, connection, visible)
        elif isinstance(criterion, MedicationCriterion):
            drugs = _strings(connection, "drug", visible)
            unknown += [
                UnknownTerm(criterion=criterion.describe(), term=drug, nearest=_close(normalise_drug(drug), drugs))
                for drug in criterion.drugs
                if not _drug_known(normalise_drug(drug), drugs)
            ]
        elif isinstance(criterion, ValueCriterion):
            names = ("F", "M") if criterion.kind == "sex" else _strings(connection, criterion.kind, visible)
            for value in criterion.values:
                wanted = SourceConfig(org="").service_code(value) if criterion.kind == "service" else value
                if (wanted or "").lower() not in {name.lower() for name in names}:
                    unknown.append(
                        UnknownTerm(criterion=criterion.describe(), term=value, nearest=_close(value, names))
                    )
    return unknown
