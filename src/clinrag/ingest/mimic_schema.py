"""The MIMIC-IV v2.2 / MIMIC-IV-Note v2.2 tables clinrag reads and the synthetic cohort writes.

Columns are listed in MIMIC's order with their kind; ``required`` columns must be present for ingestion. The
synthetic cohort adds one column that MIMIC does not have: ``patients.name``.

Example:
    >>> TABLES["admissions"].path
    'hosp/admissions.csv'
    >>> TABLES["discharge"].column("text").kind
    <Kind.TEXT: 'text'>
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DATE_FORMAT = "%Y-%m-%d"


class Kind(StrEnum):
    """How a column's values are written."""

    INT = "int"
    FLOAT = "float"
    STR = "str"
    TEXT = "text"  # free text with newlines (note bodies)
    DATETIME = "datetime"  # YYYY-MM-DD HH:MM:SS
    DATE = "date"  # YYYY-MM-DD


@dataclass(frozen=True)
class Column:
    """One column: name, kind, whether it may be empty, whether ingestion needs it."""

    name: str
    kind: Kind
    nullable: bool = False
    required: bool = False


@dataclass(frozen=True)
class Table:
    """One MIMIC file: its module folder (hosp or note), name and columns in order."""

    module: str
    name: str
    columns: tuple[Column, ...]
    extra: tuple[Column, ...] = ()

    @property
    def path(self) -> str:
        """Path relative to a MIMIC root, uncompressed form."""
        return f"{self.module}/{self.name}.csv"

    @property
    def mimic_columns(self) -> tuple[str, ...]:
        """Column names exactly as MIMIC-IV has them."""
        return tuple(column.name for column in self.columns)

    @property
    def all_columns(self) -> tuple[Column, ...]:
        """MIMIC columns followed by clinrag's extra columns (written by the synthetic cohort)."""
        return self.columns + self.extra

    @property
    def required(self) -> tuple[str, ...]:
        """Columns ingestion cannot do without."""
        return tuple(column.name for column in self.columns if column.required)

    def column(self, name: str) -> Column:
        """The column called ``name``; KeyError if the table has none."""
        for column in self.all_columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} has no column {name!r}")


def _c(name: str, kind: Kind, nullable: bool = False, required: bool = False) -> Column:
    return Column(name, kind, nullable, required)


INT, F, S, T, DT, D = Kind.INT, Kind.FLOAT, Kind.STR, Kind.TEXT, Kind.DATETIME, Kind.DATE
_STAY_KEYS = (_c("subject_id", INT, required=True), _c("hadm_id", INT, required=True))
"""The columns every table of a hospital stay starts with."""
_ICD_CODE = (_c("icd_code", S, required=True), _c("icd_version", INT, required=True))
"""An ICD code as MIMIC writes it (no dot) and its version (9 or 10)."""
_ICD_TITLES = (*_ICD_CODE, _c("long_title", S, required=True))
"""The columns of both ICD dictionaries (``d_icd_diagnoses``, ``d_icd_procedures``)."""

PATIENTS = Table(
    "hosp",
    "patients",
    (
        _c("subject_id", INT, required=True),
        _c("gender", S),
        _c("anchor_age", INT),
        _c("anchor_year", INT),
        _c("anchor_year_group", S),
        _c("dod", D, nullable=True),
    ),
    extra=(_c("name", S, nullable=True),),
)
ADMISSIONS = Table(
    "hosp",
    "admissions",
    (
        *_STAY_KEYS,
        _c("admittime", DT, required=True),
        _c("dischtime", DT, nullable=True),
        _c("deathtime", DT, nullable=True),
        _c("admission_type", S),
        _c("admit_provider_id", S, nullable=True),
        _c("admission_location", S, nullable=True),
        _c("discharge_location", S, nullable=True),
        _c("insurance", S, nullable=True),
        _c("language", S, nullable=True),
        _c("marital_status", S, nullable=True),
        _c("race", S, nullable=True),
        _c("edregtime", DT, nullable=True),
        _c("edouttime", DT, nullable=True),
        _c("hospital_expire_flag", INT),
    ),
)
DIAGNOSES_ICD = Table(
    "hosp",
    "diagnoses_icd",
    (
        *_STAY_KEYS,
        _c("seq_num", INT, required=True),
        *_ICD_CODE,
    ),
)
PROCEDURES_ICD = Table(
    "hosp",
    "procedures_icd",
    (
        *_STAY_KEYS,
        _c("seq_num", INT, required=True),
        _c("chartdate", D, required=True),
        *_ICD_CODE,
    ),
)
PRESCRIPTIONS = Table(
    "hosp",
    "prescriptions",
    (
        *_STAY_KEYS,
        _c("pharmacy_id", INT, nullable=True),
        _c("poe_id", S, nullable=True),
        _c("poe_seq", INT, nullable=True),
        _c("order_provider_id", S, nullable=True),
        _c("starttime", DT, nullable=True),
        _c("stoptime", DT, nullable=True),
        _c("drug_type", S),
        _c("drug", S, required=True),
        _c("formulary_drug_cd", S, nullable=True),
        _c("gsn", S, nullable=True),
        _c("ndc", S, nullable=True),
        _c("prod_strength", S, nullable=True),
        _c("form_rx", S, nullable=True),
        _c("dose_val_rx", S, nullable=True),
        _c("dose_unit_rx", S, nullable=True),
        _c("form_val_disp", S, nullable=True),
        _c("form_unit_disp", S, nullable=True),
        _c("doses_per_24_hrs", F, nullable=True),
        _c("route", S, nullable=True),
    ),
)
SERVICES = Table(
    "hosp",
    "services",
    (
        *_STAY_KEYS,
        _c("transfertime", DT, required=True),
        _c("prev_service", S, nullable=True),
        _c("curr_service", S, required=True),
    ),
)
D_ICD_DIAGNOSES = Table(
    "hosp",
    "d_icd_diagnoses",
    _ICD_TITLES,
)
D_ICD_PROCEDURES = Table(
    "hosp",
    "d_icd_procedures",
    _ICD_TITLES,
)
DISCHARGE = Table(
    "note",
    "discharge",
    (
        _c("note_id", S, required=True),
        _c("subject_id", INT, required=True),
        _c("hadm_id", INT, nullable=True, required=True),
        _c("note_type", S),
        _c("note_seq", INT),
        _c("charttime", DT, nullable=True),
        _c("storetime", DT, nullable=True),
        _c("text", T, required=True),
    ),
)

TABLES: dict[str, Table] = {
    table.name: table
    for table in (
        PATIENTS,
        ADMISSIONS,
        DIAGNOSES_ICD,
        PROCEDURES_ICD,
        PRESCRIPTIONS,
        SERVICES,
        D_ICD_DIAGNOSES,
        D_ICD_PROCEDURES,
        DISCHARGE,
    )
}
"""Every table clinrag knows, by MIMIC file name."""
