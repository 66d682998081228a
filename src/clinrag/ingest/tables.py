"""Structured rows become chunks: one chunk per row, written as ``field: value`` lines.

Example:
    >>> row_text({"hadm_id": 2, "admission_type": "URGENT", "deathtime": None})
    'hadm_id: 2\\nadmission_type: URGENT'
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

from clinrag.ingest.fhir.schema import FHIR_ROW_KEYS, FHIR_TABLES
from clinrag.ingest.mimic_schema import TABLES

ROW_KEYS: dict[str, tuple[str, ...]] = {
    "admissions": ("hadm_id",),
    "diagnoses_icd": ("hadm_id", "seq_num"),
    "procedures_icd": ("hadm_id", "seq_num"),
    "prescriptions": ("hadm_id", "pharmacy_id"),
    **FHIR_ROW_KEYS,
}
"""The columns that identify a row of each table that can be chunked (MIMIC-IV's, then FHIR's own)."""
_CHUNKED_TABLES = {**TABLES, **FHIR_TABLES}

DROPPED_COLUMNS: dict[str, frozenset[str]] = {
    "admissions": frozenset({"admit_provider_id"}),
    "prescriptions": frozenset(
        {"poe_id", "poe_seq", "order_provider_id", "formulary_drug_cd", "gsn", "ndc", "form_val_disp", "form_unit_disp"}
    ),
}
"""Columns left out of row text: identifiers with no clinical meaning."""

TITLED_TABLES = {"diagnoses_icd": "d_icd_diagnoses", "procedures_icd": "d_icd_procedures"}


def chunk_columns(table: str) -> tuple[str, ...]:
    """The columns of ``table`` that go into its row chunks."""
    dropped = DROPPED_COLUMNS.get(table, frozenset())
    columns = _CHUNKED_TABLES[table].mimic_columns
    return tuple(name for name in columns if name not in dropped or name in ROW_KEYS[table])


def _show(value: object) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def row_text(row: Mapping[str, object]) -> str:
    """``field: value`` lines for the non-empty values of ``row``."""
    return "\n".join(f"{key}: {_show(value)}" for key, value in row.items() if value not in (None, ""))


def row_source_id(table: str, row: Mapping[str, object]) -> str:
    """The stable source id of a row, from its key columns (``row:diagnoses_icd:20000001:3``)."""
    return ":".join(["row", table, *(str(row.get(key, "")) for key in ROW_KEYS[table])])
