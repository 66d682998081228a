"""Patient and Coverage resources as what MIMIC-IV keeps of a person: name, sex, birth, death, and insurance.

Example:
    >>> record = patient_record({"resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1948",
    ...     "name": [{"use": "old", "family": "Smith", "given": ["Ann"]},
    ...              {"use": "official", "family": "Jones", "given": ["Ann", "Marie"]}]})
    >>> record.name, record.gender, record.birth
    ('Ann Marie Jones', 'F', datetime.date(1948, 1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from clinrag.ingest.fhir.references import reference_key
from clinrag.ingest.fhir.values import Json, number_id, obj, objs, parse_date, period, string, text_of

PATIENT_IDENTIFIERS = ("/identifier/patient",)
"""Identifier systems whose numeric value is the subject_id (MIMIC-IV on FHIR's); else the id, else its hash."""
RACE_EXTENSION = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race"
_NAME_USES = ("official", "usual", "", "temp", "nickname", "anonymous", "maiden", "old")
_GENDERS = {"male": "M", "female": "F"}


@dataclass(frozen=True)
class PatientRecord:
    """What clinrag keeps of a Patient."""

    subject_id: int
    name: str | None
    gender: str
    birth: date | None
    dod: date | None
    race: str | None
    language: str | None
    marital_status: str | None


def human_name(resource: Json) -> str | None:
    """The name to show: the first name by use (official, usual, unstated, temp, nickname, ...), ended ones last;
    its ``text`` when given, else given names and family name."""
    names = objs(resource, "name")
    if not names:
        return None

    def rank(name: Json) -> tuple[bool, int]:
        ended = period(obj(name, "period"))[1] is not None
        use = string(name, "use") or ""
        return ended, _NAME_USES.index(use) if use in _NAME_USES else len(_NAME_USES)

    for name in sorted(names, key=rank):
        text = string(name, "text")
        if text:
            return " ".join(text.split())
        given = [part.strip() for part in name.get("given", []) if isinstance(part, str) and part.strip()]
        family = string(name, "family")
        parts = [*given, family] if family else given
        if parts:
            return " ".join(parts)
    return None


def _race(resource: Json) -> str | None:
    for extension in objs(resource, "extension"):
        if extension.get("url") != RACE_EXTENSION:
            continue
        for part in objs(extension, "extension"):
            if part.get("url") == "text":
                return string(part, "valueString")
        for part in objs(extension, "extension"):
            if part.get("url") == "ombCategory":
                return string(obj(part, "valueCoding"), "display") or string(obj(part, "valueCoding"), "code")
    return None


def _language(resource: Json) -> str | None:
    communications = objs(resource, "communication")
    preferred = [c for c in communications if c.get("preferred") is True] or communications
    return text_of(obj(preferred[0], "language")) if preferred else None


def patient_record(resource: Json) -> PatientRecord:
    """A Patient resource as a `PatientRecord` (see the module example)."""
    dead = string(resource, "deceasedDateTime")
    return PatientRecord(
        subject_id=number_id(resource, PATIENT_IDENTIFIERS),
        name=human_name(resource),
        gender=_GENDERS.get(string(resource, "gender") or "", ""),
        birth=parse_date(string(resource, "birthDate")),
        dod=parse_date(dead),
        race=_race(resource),
        language=_language(resource),
        marital_status=text_of(obj(resource, "maritalStatus")),
    )


@dataclass(frozen=True)
class CoverageRecord:
    """A Coverage: whose it is, when, and the insurance it names (its type, else its payor)."""

    resource_id: str
    subject_ref: str | None
    status: str | None
    insurance: str | None
    payor: str | None
    start: datetime | None
    end: datetime | None

    def covers(self, moment: datetime) -> bool:
        """Whether the coverage's period (open ends allowed) contains ``moment``."""
        return (self.start is None or self.start <= moment) and (self.end is None or moment <= self.end)


def coverage_record(resource: Json) -> CoverageRecord:
    """A Coverage resource as a `CoverageRecord` (the beneficiary is the patient, else the subscriber)."""
    payors = [string(p, "display") or reference_key(p) for p in objs(resource, "payor")]
    payor = ", ".join(p for p in payors if p) or None
    start, end = period(obj(resource, "period"))
    beneficiary = reference_key(obj(resource, "beneficiary")) or reference_key(obj(resource, "subscriber"))
    return CoverageRecord(
        resource_id=string(resource, "id") or "",
        subject_ref=beneficiary,
        status=string(resource, "status"),
        insurance=text_of(obj(resource, "type")) or payor,
        payor=payor,
        start=start,
        end=end,
    )
