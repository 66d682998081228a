"""A clinical resource read but not yet joined to its patient and stay: the `Fact` every resource module returns.

References stay as ``Type/id`` keys until the whole export is read (a Condition may come before its Encounter); the
reader then resolves them, and a Fact becomes a MIMIC-IV row (``mimic_table``) when it has a stay and the codes
MIMIC needs, else a row of its FHIR table (``table``).

Example:
    >>> from clinrag.ingest.fhir.references import Origin
    >>> fact = Fact(Origin("Condition.ndjson", 1, "Condition/c1"), "Patient/p1", None, "conditions", {})
    >>> fact.mimic_table is None
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from clinrag.ingest.fhir.references import Origin


@dataclass
class Fact:
    """One clinical resource, read; ``row`` and ``mimic_row`` lack subject_id, hadm_id and seq_num, set when joined."""

    origin: Origin
    subject_ref: str | None
    encounter_ref: str | None
    table: str
    row: dict[str, Any]
    mimic_table: str | None = None
    mimic_row: dict[str, Any] | None = None
    when: datetime | None = None
    title: str | None = None
    medication_ref: str | None = None
    result_refs: tuple[str, ...] = field(default_factory=tuple)
