"""Tables for FHIR resources that have no MIMIC-IV table clinrag reads: one chunk per row, like MIMIC's rows.

Coded rows that MIMIC-IV has go to MIMIC's own tables (an ICD-coded Condition of an encounter is a ``diagnoses_icd``
row, a MedicationRequest of an encounter a ``prescriptions`` row); these tables hold the rest, each row keyed by
the resource's id and keeping its code with the code system's name (``LOINC``, ``SNOMED CT``, ``RxNorm``).

Example:
    >>> FHIR_TABLES["observations"].mimic_columns[:4]
    ('resource_id', 'subject_id', 'hadm_id', 'charttime')
    >>> FHIR_ROW_KEYS["allergies"]
    ('resource_id',)
"""

from __future__ import annotations

from clinrag.ingest.mimic_schema import Column, Kind, Table

S, T, INT, DT = Kind.STR, Kind.TEXT, Kind.INT, Kind.DATETIME


def _c(name: str, kind: Kind = S, nullable: bool = True) -> Column:
    return Column(name, kind, nullable)


_ID = (_c("resource_id", S, False), _c("subject_id", INT, False))
_CODE = (_c("name"), _c("code"), _c("code_system"))

CONDITIONS = Table(
    "fhir",
    "conditions",
    (
        *_ID,
        _c("hadm_id", INT),
        _c("onset", DT),
        *_CODE,
        _c("category"),
        _c("clinical_status"),
        _c("verification_status"),
    ),
)
PROCEDURES = Table("fhir", "procedures", (*_ID, _c("hadm_id", INT), _c("performed", DT), *_CODE, _c("status")))
MEDICATIONS = Table(
    "fhir",
    "medications",
    (
        *_ID,
        _c("hadm_id", INT),
        _c("resource"),
        _c("status"),
        _c("starttime", DT),
        _c("stoptime", DT),
        _c("drug"),
        _c("code"),
        _c("code_system"),
        _c("dose"),
        _c("route"),
    ),
)
ALLERGIES = Table(
    "fhir",
    "allergies",
    (
        *_ID,
        _c("recorded", DT),
        _c("substance"),
        _c("code"),
        _c("code_system"),
        _c("category"),
        _c("criticality"),
        _c("clinical_status"),
        _c("reaction"),
    ),
)
OBSERVATIONS = Table(
    "fhir",
    "observations",
    (
        *_ID,
        _c("hadm_id", INT),
        _c("charttime", DT),
        _c("category"),
        *_CODE,
        _c("result"),
        _c("unit"),
        _c("interpretation"),
        _c("reference_range"),
    ),
)
DIAGNOSTIC_REPORTS = Table(
    "fhir",
    "diagnostic_reports",
    (
        *_ID,
        _c("hadm_id", INT),
        _c("charttime", DT),
        _c("category"),
        *_CODE,
        _c("status"),
        _c("conclusion", T),
        _c("results"),
    ),
)
COVERAGE = Table(
    "fhir",
    "coverage",
    (*_ID, _c("status"), _c("insurance"), _c("payor"), _c("start", DT), _c("end", DT)),
)

FHIR_TABLES: dict[str, Table] = {
    table.name: table
    for table in (CONDITIONS, PROCEDURES, MEDICATIONS, ALLERGIES, OBSERVATIONS, DIAGNOSTIC_REPORTS, COVERAGE)
}
"""The FHIR-only tables, by name, in the order ingestion chunks them."""

FHIR_ROW_KEYS: dict[str, tuple[str, ...]] = dict.fromkeys(FHIR_TABLES, ("resource_id",))
"""Each FHIR-only row is identified by its resource's id."""
