"""Encounter resources as MIMIC-IV admissions: period, type, class, where from and to, service, diagnoses' ranks.

An emergency encounter (class ``EMER``) that is ``partOf`` another gives that stay its ED registration times
(MIMIC's ``edregtime``/``edouttime``) instead of being a stay of its own.

Example:
    >>> record = encounter_record({"resourceType": "Encounter", "id": "e1", "class": {"code": "IMP"},
    ...     "period": {"start": "2150-01-01T10:00:00Z", "end": "2150-01-05T12:00:00Z"},
    ...     "serviceType": {"coding": [{"code": "ORTHO"}]}, "subject": {"reference": "Patient/p1"},
    ...     "diagnosis": [{"condition": {"reference": "Condition/c1"}, "rank": 2}]})
    >>> record.service, record.ranks, record.subject_ref
    ('ORTHO', {'Condition/c1': 2}, 'Patient/p1')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from clinrag.ingest.fhir.references import reference_key
from clinrag.ingest.fhir.values import Json, first_coding, number_id, obj, objs, period, string, text_of

ENCOUNTER_IDENTIFIERS = ("/identifier/encounter-hosp",)
"""Identifier systems whose numeric value is the hadm_id (MIMIC-IV on FHIR's); else the id, else its hash."""
EXPIRED = frozenset({"exp", "expired", "died"})


@dataclass
class EncounterRecord:
    """What clinrag keeps of an Encounter."""

    hadm_id: int
    subject_ref: str | None
    start: datetime | None
    end: datetime | None
    admission_type: str
    admission_location: str | None
    discharge_location: str | None
    service: str | None
    part_of: str | None
    emergency: bool
    expired: bool
    ranks: dict[str, int] = field(default_factory=dict)
    ed_start: datetime | None = None
    ed_end: datetime | None = None


def service_of(concept: object) -> str | None:
    """A service from ``serviceType``: its first coding's code (a MIMIC-IV service code, or the code a source's
    ``[departments]`` maps), else its text."""
    return first_coding(concept, "code") or text_of(concept)


def encounter_record(resource: Json) -> EncounterRecord:
    """An Encounter resource as an `EncounterRecord` (see the module example)."""
    start, end = period(obj(resource, "period"))
    klass = obj(resource, "class")
    hospitalization = obj(resource, "hospitalization")
    disposition = obj(hospitalization, "dischargeDisposition")
    types = objs(resource, "type")
    admission_type = (text_of(types[0]) if types else None) or string(klass, "display") or string(klass, "code") or ""
    ranks: dict[str, int] = {}
    for item in objs(resource, "diagnosis"):
        key = reference_key(obj(item, "condition"))
        rank = item.get("rank")
        if key and isinstance(rank, int) and rank > 0:
            ranks[key] = rank
    return EncounterRecord(
        hadm_id=number_id(resource, ENCOUNTER_IDENTIFIERS),
        subject_ref=reference_key(obj(resource, "subject")),
        start=start,
        end=end,
        admission_type=admission_type,
        admission_location=text_of(obj(hospitalization, "admitSource")),
        discharge_location=text_of(disposition),
        service=service_of(obj(resource, "serviceType")),
        part_of=reference_key(obj(resource, "partOf")),
        emergency=(string(klass, "code") or "").upper() == "EMER",
        expired=any(code.lower() in EXPIRED for _, code, _ in _all_codes(disposition)),
        ranks=ranks,
    )


def _all_codes(concept: object) -> list[tuple[str, str, str | None]]:
    return [(string(c, "system") or "", string(c, "code") or "", string(c, "display")) for c in objs(concept, "coding")]
