"""MedicationRequest, MedicationStatement and MedicationAdministration resources as `Fact` rows.

A MedicationRequest of a stay is a MIMIC-IV ``prescriptions`` row (drug, strength, form, dose, route, start and stop,
doses per 24 hours, with its RxNorm code when it has one); statements, administrations and requests without a stay
are ``medications`` rows. The drug comes from ``medicationCodeableConcept`` or the Medication referenced (contained
or in the export, joined once the export is read).

Example:
    >>> from clinrag.ingest.fhir.references import Origin
    >>> fact = medication_fact(Origin("f", 1, "MedicationRequest/r1"), {"resourceType": "MedicationRequest",
    ...     "id": "r1", "status": "active", "intent": "order", "subject": {"reference": "Patient/p1"},
    ...     "medicationCodeableConcept": {"text": "Apixaban", "coding": [{"system": RXNORM, "code": "1364430"}]},
    ...     "dosageInstruction": [{"route": {"text": "PO"}, "timing": {"repeat": {"frequency": 2, "period": 1,
    ...     "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 5, "unit": "mg"}}]}]})
    >>> fact.mimic_row["drug"], fact.mimic_row["doses_per_24_hrs"], fact.mimic_row["rxnorm"], fact.row["dose"]
    ('Apixaban', 2.0, '1364430', '5 mg')
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.ingest.fhir.clinical import effective, quantity_text, range_text
from clinrag.ingest.fhir.codes import RXNORM, SNOMED, preferred, system_name
from clinrag.ingest.fhir.facts import Fact
from clinrag.ingest.fhir.references import Origin, contained, reference_key
from clinrag.ingest.fhir.values import Json, codings, number_id, obj, objs, period, string, text_of

PRODUCT_STRENGTH = "http://clinrag.example/fhir/StructureDefinition/product-strength"
"""Extension on a Medication: the product strength as MIMIC-IV's ``prod_strength`` writes it ("20mg Tab")."""
DRUG_TYPE = "http://clinrag.example/fhir/CodeSystem/drug-type"
"""Code system of a MedicationRequest category: MIMIC-IV's ``drug_type`` (MAIN, BASE, ADDITIVE)."""
PHARMACY_IDENTIFIERS = ("/identifier/medication-request-phid",)
_PER_DAY = {"h": 24.0, "d": 1.0, "wk": 1 / 7, "min": 1440.0}


@dataclass(frozen=True)
class MedicationInfo:
    """A drug as named by a CodeableConcept or a Medication resource."""

    drug: str | None
    code: str | None
    code_system: str | None
    rxnorm: str | None
    form: str | None = None
    strength: str | None = None


def concept_info(concept: object) -> MedicationInfo:
    """The drug a CodeableConcept names, with its preferred code (RxNorm first)."""
    found = codings(concept)
    chosen = preferred(found, (RXNORM, SNOMED))
    rxnorm = next((code for system, code, _ in found if system == RXNORM), None)
    return MedicationInfo(
        text_of(concept), chosen[1] if chosen else None, system_name(chosen[0]) if chosen else None, rxnorm
    )


def _strength(medication: Json) -> str | None:
    for extension in objs(medication, "extension"):
        if extension.get("url") == PRODUCT_STRENGTH:
            return string(extension, "valueString")
    for ingredient in objs(medication, "ingredient"):
        top, unit = quantity_text(obj(obj(ingredient, "strength"), "numerator"))
        bottom, per = quantity_text(obj(obj(ingredient, "strength"), "denominator"))
        if top:
            shown = f"{top}{unit or ''}"
            return f"{shown}/{bottom if bottom not in (None, '1') else ''}{per or ''}" if per else shown
    return None


def medication_info(medication: Json) -> MedicationInfo:
    """The drug a Medication resource describes: its code, form and strength."""
    info = concept_info(obj(medication, "code"))
    return MedicationInfo(
        info.drug, info.code, info.code_system, info.rxnorm, text_of(obj(medication, "form")), _strength(medication)
    )


def apply_medication(fact: Fact, info: MedicationInfo) -> None:
    """Fill a medication Fact's drug columns from ``info`` (a referenced Medication, read later)."""
    fact.row.update(drug=info.drug, code=info.code, code_system=info.code_system)
    if fact.mimic_row is not None:
        fact.mimic_row.update(drug=info.drug or info.code or "", prod_strength=info.strength, form_rx=info.form)
        if info.rxnorm:
            fact.mimic_row["rxnorm"] = info.rxnorm


def _dose(dosage: Json) -> tuple[str | None, str | None]:
    """(dose, unit) of a Dosage (first doseAndRate) or of a MedicationAdministration's dosage."""
    if "dose" in dosage:
        return quantity_text(obj(dosage, "dose"))
    for item in objs(dosage, "doseAndRate"):
        if "doseQuantity" in item:
            return quantity_text(obj(item, "doseQuantity"))
        if "doseRange" in item:
            return range_text(obj(item, "doseRange"))
    return None, None


def _per_day(dosage: Json) -> float | None:
    repeat = obj(obj(dosage, "timing"), "repeat")
    frequency, length = repeat.get("frequency"), repeat.get("period")
    unit = string(repeat, "periodUnit")
    if not isinstance(frequency, int) or not isinstance(length, int | float) or not length or unit not in _PER_DAY:
        return None
    return round(frequency * _PER_DAY[unit] / float(length), 4)


def medication_fact(origin: Origin, resource: Json) -> Fact:
    """A MedicationRequest, MedicationStatement or MedicationAdministration as a Fact (see the module example)."""
    kind = str(resource.get("resourceType"))
    reference = obj(resource, "medicationReference")
    local = contained(resource, reference)
    info = (
        medication_info(local)
        if local is not None
        else concept_info(obj(resource, "medicationCodeableConcept"))
        if "medicationCodeableConcept" in resource
        else MedicationInfo(None, None, None, None)
    )
    if kind == "MedicationRequest":
        dosages = objs(resource, "dosageInstruction")
        bounds = obj(obj(obj(dosages[0] if dosages else {}, "timing"), "repeat"), "boundsPeriod")
        start, stop = period(bounds)
        start = start or effective(resource, "authoredOn")
    else:
        dosages = objs(resource, "dosage")
        start, stop = period(obj(resource, "effectivePeriod"))
        start = start or effective(resource)
    dosage = dosages[0] if dosages else {}
    dose, unit = _dose(dosage)
    route = text_of(obj(dosage, "route"))
    encounter = reference_key(obj(resource, "encounter")) or reference_key(obj(resource, "context"))
    row = {
        "resource_id": string(resource, "id"),
        "resource": kind,
        "status": string(resource, "status"),
        "starttime": start,
        "stoptime": stop,
        "drug": None,
        "code": None,
        "code_system": None,
        "dose": " ".join(p for p in (dose, unit) if p) or None,
        "route": route,
    }
    fact = Fact(origin, reference_key(obj(resource, "subject")), encounter, "medications", row, when=start)
    if kind == "MedicationRequest":
        categories = [c for item in objs(resource, "category") for c in codings(item) if c[0] == DRUG_TYPE]
        fact.mimic_table = "prescriptions"
        fact.mimic_row = {
            "pharmacy_id": number_id(resource, PHARMACY_IDENTIFIERS),
            "starttime": start,
            "stoptime": stop,
            "drug_type": categories[0][1] if categories else "MAIN",
            "dose_val_rx": dose,
            "dose_unit_rx": unit,
            "doses_per_24_hrs": _per_day(dosage),
            "route": route,
        }
    apply_medication(fact, info)
    if local is None and "medicationReference" in resource:
        fact.medication_ref = reference_key(reference)
    return fact
