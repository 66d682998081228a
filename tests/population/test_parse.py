"""Population questions read into queries by rules and a vocabulary (issue 17)."""

from __future__ import annotations

from datetime import date

import pytest

from clinrag.population.parse import parse_question
from clinrag.population.query import CodeCriterion, MedicationCriterion, RangeCriterion, TextCriterion, ValueCriterion
from clinrag.population.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return Vocabulary.build(
        diagnoses=[("I5023", "Acute on chronic systolic (congestive) heart failure"), ("E85", "Amyloidosis")],
        procedures=[("02100Z9", "Bypass Coronary Artery, One Artery from Left Internal Mammary, Open Approach")],
        drugs=["Apixaban", "Metoprolol Succinate XL", "Metoprolol Tartrate"],
        services=[("CMED", "cardiothoracic"), ("CSURG", "cardiothoracic"), ("ORTHO", "orthopaedics")],
        insurances=["Medicare", "Medicaid", "Other"],
        admission_types=["EW EMER.", "DIRECT EMER.", "ELECTIVE", "URGENT"],
        organisations=[("A", "Hospital A")],
    )


def test_heavy_alcohol_is_a_text_criterion_ranked_by_diagnosis(vocabulary: Vocabulary) -> None:
    reading = parse_question(
        "For patients who report heavy alcohol consumption, what are the most common diagnoses?", vocabulary
    )
    query = reading.query
    assert query is not None
    assert query.measure.kind == "top"
    assert query.measure.of == "diagnosis"
    assert query.cohort == (TextCriterion(phrase="heavy alcohol consumption"),)  # read anywhere in the note


def test_complications_after_bypass(vocabulary: Vocabulary) -> None:
    query = parse_question("What complications follow coronary artery bypass?", vocabulary).query
    assert query is not None
    assert query.measure.of == "complication"
    assert isinstance(query.cohort[0], CodeCriterion)
    assert query.cohort[0].prefixes[0] == "0210"


def test_two_insurances_are_ranked_at_the_hospital_asked(vocabulary: Vocabulary) -> None:
    reading = parse_question("Is Medicare or Medicaid more common at Hospital A?", vocabulary)
    assert reading.orgs == ("A",)
    assert reading.query is not None
    assert reading.query.measure.of == "insurance"
    assert reading.query.cohort == (ValueCriterion(kind="insurance", values=("Medicare", "Medicaid")),)


def test_services_or_together_and_admissions_are_the_unit(vocabulary: Vocabulary) -> None:
    query = parse_question(
        "For cardiology and cardiothoracic admissions, what was the most common procedure?", vocabulary
    ).query
    assert query is not None
    assert query.unit == "admission"
    assert query.measure.of == "procedure"
    assert query.cohort == (ValueCriterion(kind="service", values=("CMED", "CSURG")),)


def test_a_comparison_of_two_presentations_makes_one_query_each(vocabulary: Vocabulary) -> None:
    reading = parse_question(
        "Do orthopaedic patients come in more after a mechanical fall or for pain from an existing condition?",
        vocabulary,
    )
    assert len(reading.queries) == 2
    assert reading.labels == ("mechanical fall", "pain from an existing condition")
    assert all(ValueCriterion(kind="service", values=("ORTHO",)) in q.cohort for q in reading.queries)


def test_ages_years_sex_drugs_and_codes(vocabulary: Vocabulary) -> None:
    reading = parse_question(
        "How many women over 65 on metoprolol had heart failure since 2019?", vocabulary, today=date(2024, 1, 1)
    )
    query = reading.query
    assert query is not None
    assert query.measure.kind == "count"
    assert RangeCriterion(kind="age", low=66) in query.cohort
    assert RangeCriterion(kind="year", low=2019) in query.cohort
    assert ValueCriterion(kind="sex", values=("F",)) in query.cohort
    assert MedicationCriterion(drugs=("Metoprolol Succinate XL", "Metoprolol Tartrate")) in query.cohort
    assert CodeCriterion(kind="diagnosis", prefixes=("I50",), label="heart failure") in query.cohort
    assert any(rule.startswith("age") for rule in reading.rules)


def test_trends_and_groupings(vocabulary: Vocabulary) -> None:
    query = parse_question("Trend in heart failure admissions per year by hospital", vocabulary).query
    assert query is not None
    assert set(query.group_by) == {"year", "org"}


def test_an_unknown_term_is_reported_with_its_nearest_entries(vocabulary: Vocabulary) -> None:
    reading = parse_question("How many patients took apixiban?", vocabulary)
    assert reading.query is None
    assert [(u.term, u.nearest[0]) for u in reading.unknown] == [("apixiban", "Apixaban")]
    assert "nearest: Apixaban" in reading.describe()


def test_a_question_about_one_patient_has_no_query(vocabulary: Vocabulary) -> None:
    reading = parse_question("What was Deanna Mahoney discharged on?", vocabulary)
    assert reading.query is None
    assert reading.rules == ("no population cue",)


def test_titles_give_prefixes_when_no_synonym_does() -> None:
    vocabulary = Vocabulary.build(
        diagnoses=[("E85", "Amyloidosis"), ("E851", "Neuropathic heredofamilial amyloidosis")]
    )
    query = parse_question("How many patients with amyloidosis?", vocabulary).query
    assert query is not None
    assert query.cohort == (CodeCriterion(kind="diagnosis", prefixes=("E85",), label="amyloidosis"),)
