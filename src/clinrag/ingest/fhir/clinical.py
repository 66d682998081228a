"""Condition, Procedure, AllergyIntolerance, Observation and DiagnosticReport resources as `Fact` rows.

An ICD-10-CM (or ICD-9-CM) Condition of a stay is a MIMIC-IV ``diagnoses_icd`` row and an ICD-10-PCS Procedure a
``procedures_icd`` row; other codes (SNOMED CT, LOINC, CPT) keep code and system name in the FHIR tables.

Example:
    >>> from clinrag.ingest.fhir.references import Origin
    >>> fact = condition_fact(Origin("f", 1, "Condition/c1"), {"resourceType": "Condition", "id": "c1",
    ...     "code": {"coding": [{"system": "http://hl7.org/fhir/sid/icd-10-cm", "code": "I10", "display": "HTN"}]},
    ...     "subject": {"reference": "Patient/p1"}, "encounter": {"reference": "Encounter/e1"}})
    >>> fact.mimic_table, fact.mimic_row, fact.row["code_system"]
    ('diagnoses_icd', {'icd_code': 'I10', 'icd_version': 10}, 'ICD-10-CM')
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clinrag.ingest.fhir.codes import (
    CPT,
    DIAGNOSIS,
    ICD9CM,
    ICD10CM,
    ICD10PCS,
    LOINC,
    PROCEDURE,
    RXNORM,
    SNOMED,
    icd_of,
    preferred,
    system_name,
)
from clinrag.ingest.fhir.facts import Fact
from clinrag.ingest.fhir.references import Origin, reference_key
from clinrag.ingest.fhir.values import Json, number_text, obj, objs, parse_datetime, period, string, text_of
from clinrag.ingest.fhir.values import codings as codings_of


def code_columns(concept: object, order: tuple[str, ...]) -> dict[str, str | None]:
    """``name``, ``code`` and ``code_system`` (by name) of a CodeableConcept, preferring systems in ``order``."""
    chosen = preferred(codings_of(concept), order)
    return {
        "name": text_of(concept),
        "code": chosen[1] if chosen else None,
        "code_system": system_name(chosen[0]) if chosen else None,
    }


def _first_text(resource: Json, key: str) -> str | None:
    items = objs(resource, key)
    return text_of(items[0]) if items else None


def effective(resource: Json, prefix: str = "effective") -> datetime | None:
    """When a resource happened: ``{prefix}DateTime``, ``{prefix}Instant``, ``{prefix}Period.start``, else issued."""
    return (
        parse_datetime(string(resource, f"{prefix}DateTime"))
        or parse_datetime(string(resource, f"{prefix}Instant"))
        or period(obj(resource, f"{prefix}Period"))[0]
        or parse_datetime(string(resource, "issued"))
    )


def _fact(
    origin: Origin,
    resource: Json,
    table: str,
    row: dict[str, Any],
    when: datetime | None = None,
    result_refs: tuple[str, ...] = (),
    patient: str = "subject",
) -> Fact:
    """A `Fact` of ``resource`` for ``table``: its patient the reference under ``patient``, its stay ``encounter``."""
    subject, stay = reference_key(obj(resource, patient)), reference_key(obj(resource, "encounter"))
    return Fact(origin, subject, stay, table, row, when=when, result_refs=result_refs)


def condition_fact(origin: Origin, resource: Json) -> Fact:
    """A Condition: ``diagnoses_icd`` when ICD-coded (and joined to a stay), else a ``conditions`` row."""
    concept = obj(resource, "code")
    icd = icd_of(codings_of(concept), DIAGNOSIS)
    onset = effective(resource, "onset") or parse_datetime(string(resource, "recordedDate"))
    row = {
        "resource_id": string(resource, "id"),
        "onset": onset,
        **code_columns(concept, (ICD10CM, SNOMED, ICD9CM)),
        "category": _first_text(resource, "category"),
        "clinical_status": text_of(obj(resource, "clinicalStatus")),
        "verification_status": text_of(obj(resource, "verificationStatus")),
    }
    fact = _fact(origin, resource, "conditions", row, when=onset)
    if icd:
        fact.mimic_table, fact.mimic_row, fact.title = (
            "diagnoses_icd",
            {"icd_code": icd[0], "icd_version": icd[1]},
            icd[2],
        )
    return fact


def procedure_fact(origin: Origin, resource: Json) -> Fact:
    """A Procedure: ``procedures_icd`` when ICD-coded with a date (and joined to a stay), else a ``procedures`` row."""
    concept = obj(resource, "code")
    icd = icd_of(codings_of(concept), PROCEDURE)
    performed = effective(resource, "performed")
    row = {
        "resource_id": string(resource, "id"),
        "performed": performed,
        **code_columns(concept, (ICD10PCS, SNOMED, CPT)),
        "status": string(resource, "status"),
    }
    fact = _fact(origin, resource, "procedures", row, when=performed)
    if icd and performed:
        mimic = {"chartdate": performed.date(), "icd_code": icd[0], "icd_version": icd[1]}
        fact.mimic_table, fact.mimic_row, fact.title = "procedures_icd", mimic, icd[2]
    return fact


def allergy_fact(origin: Origin, resource: Json) -> Fact:
    """An AllergyIntolerance as an ``allergies`` row (substance, category, criticality, reactions)."""
    reactions = []
    for reaction in objs(resource, "reaction"):
        shown = [text_of(m) for m in objs(reaction, "manifestation")]
        severity = string(reaction, "severity")
        words = ", ".join(s for s in shown if s)
        reactions.append(f"{words} ({severity})" if severity and words else words or severity or "")
    categories = resource.get("category")
    row = {
        "resource_id": string(resource, "id"),
        "recorded": parse_datetime(string(resource, "recordedDate")) or effective(resource, "onset"),
        **{
            k if k != "name" else "substance": v
            for k, v in code_columns(obj(resource, "code"), (RXNORM, SNOMED)).items()
        },
        "category": ", ".join(c for c in categories if isinstance(c, str)) if isinstance(categories, list) else None,
        "criticality": string(resource, "criticality"),
        "clinical_status": text_of(obj(resource, "clinicalStatus")),
        "reaction": "; ".join(r for r in reactions if r) or None,
    }
    return _fact(origin, resource, "allergies", row, patient="patient")


def quantity_text(quantity: object) -> tuple[str | None, str | None]:
    """(value, unit) of a Quantity; the unit is its human ``unit``, else its UCUM ``code``."""
    value = quantity.get("value") if isinstance(quantity, dict) else None
    number = number_text(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    comparator = string(quantity, "comparator") or ""
    unit = string(quantity, "unit") or string(quantity, "code")
    return (comparator + number if number is not None else None), unit


def range_text(span: object) -> tuple[str, str | None]:
    """(``low-high``, unit) of a Range; the unit is the low end's, else the high end's."""
    low, unit = quantity_text(obj(span, "low"))
    high, high_unit = quantity_text(obj(span, "high"))
    return f"{low or ''}-{high or ''}", unit or high_unit


def observation_value(element: Json) -> tuple[str | None, str | None]:
    """(value, unit) of an Observation or one of its components, whatever ``value[x]`` it has."""
    if "valueQuantity" in element:
        return quantity_text(obj(element, "valueQuantity"))
    if "valueCodeableConcept" in element:
        return text_of(obj(element, "valueCodeableConcept")), None
    for key in ("valueString", "valueBoolean", "valueInteger", "valueDateTime", "valueTime"):
        if key in element:
            return string(element, key), None
    if "valueRange" in element:
        return range_text(obj(element, "valueRange"))
    if "valueRatio" in element:
        top, top_unit = quantity_text(obj(obj(element, "valueRatio"), "numerator"))
        bottom, bottom_unit = quantity_text(obj(obj(element, "valueRatio"), "denominator"))
        return f"{top or ''}/{bottom or ''}", "/".join(u for u in (top_unit, bottom_unit) if u) or None
    absent = text_of(obj(element, "dataAbsentReason"))
    return (f"absent: {absent}" if absent else None), None


def _reference_range(resource: Json) -> str | None:
    ranges = objs(resource, "referenceRange")
    if not ranges:
        return None
    text = string(ranges[0], "text")
    if text:
        return text
    low, unit = quantity_text(obj(ranges[0], "low"))
    high, high_unit = quantity_text(obj(ranges[0], "high"))
    if low is None and high is None:
        return None
    shown = f"{low or ''}-{high or ''}" if low and high else f">= {low}" if low else f"<= {high}"
    return f"{shown} {unit or high_unit}" if unit or high_unit else shown


def lab_name(name: str | None) -> str | None:
    """The name a lab or vital sign is written with in notes: a LOINC long name without its property, system and
    method (the words from its first bracket on), so that its result reads as a line of a note does.

    Example:
        >>> lab_name("Creatinine [Mass/volume] in Serum or Plasma"), lab_name("Heart rate")
        ('Creatinine', 'Heart rate')
    """
    if not name:
        return None
    return name.split(" [", 1)[0].strip() or name


def observation_fact(origin: Origin, resource: Json) -> Fact:
    """An Observation (vital sign, lab, ...) as an ``observations`` row whose ``result`` reads as a lab line of a
    note or a MIMIC-IV ``labevents`` row with its label: the short name, the value and its unit (``Creatinine 1.4
    mg/dL``), components each so (``Systolic 142 mmHg; Diastolic 88 mmHg``), so that calculators read it.

    Example:
        >>> from clinrag.ingest.fhir.references import Origin
        >>> fact = observation_fact(Origin("f", 1, "Observation/o1"), {"resourceType": "Observation", "id": "o1",
        ...     "code": {"coding": [{"system": "http://loinc.org", "code": "2160-0",
        ...     "display": "Creatinine [Mass/volume] in Serum or Plasma"}]}, "valueQuantity": {"value": 1.4,
        ...     "unit": "mg/dL"}, "subject": {"reference": "Patient/p1"}})
        >>> fact.row["result"], fact.row["code"]
        ('Creatinine 1.4 mg/dL', '2160-0')
    """
    value, unit = observation_value(resource)
    charttime = effective(resource)
    codes = code_columns(obj(resource, "code"), (LOINC, SNOMED))
    parts = []
    for component in objs(resource, "component"):
        shown, part_unit = observation_value(component)
        if shown is not None:
            name = lab_name(text_of(obj(component, "code"))) or "component"
            parts.append(" ".join(p for p in (name, shown, part_unit) if p))
    if value is None and parts:
        result = "; ".join(parts)
    elif value is not None:
        result = " ".join(p for p in (lab_name(codes["name"]), value, unit) if p)
    else:
        result = None
    row = {
        "resource_id": string(resource, "id"),
        "charttime": charttime,
        "category": _first_text(resource, "category"),
        **codes,
        "result": result,
        "unit": unit,
        "interpretation": _first_text(resource, "interpretation"),
        "reference_range": _reference_range(resource),
    }
    return _fact(origin, resource, "observations", row, when=charttime)


def report_fact(origin: Origin, resource: Json) -> Fact:
    """A DiagnosticReport as a ``diagnostic_reports`` row; its results are named once the export is read."""
    charttime = effective(resource)
    row = {
        "resource_id": string(resource, "id"),
        "charttime": charttime,
        "category": _first_text(resource, "category"),
        **code_columns(obj(resource, "code"), (LOINC, SNOMED)),
        "status": string(resource, "status"),
        "conclusion": string(resource, "conclusion"),
        "results": None,
    }
    results = tuple(key for key in (reference_key(r) for r in objs(resource, "result")) if key)
    return _fact(origin, resource, "diagnostic_reports", row, when=charttime, result_refs=results)
