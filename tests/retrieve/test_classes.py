"""The clinical class vocabulary (issue 14): a question naming a class accepts a source naming a member, not a
source naming a non-member, and a negated member does not count."""

from __future__ import annotations

import doctest

import pytest
from pydantic import ValidationError

from clinrag.evaluate.adversarial import note_chunk
from clinrag.generate.citations import on_question, verify
from clinrag.generate.extractive import extract_answer, question_terms
from clinrag.retrieve import classes
from clinrag.retrieve.classes import ClassVocabulary, asked_classes, class_mentions, mentioned
from clinrag.retrieve.query import understand
from clinrag.types import Source


def test_doctests() -> None:
    assert doctest.testmod(classes).failed == 0


def test_the_packaged_vocabulary_loads_and_validates() -> None:
    vocabulary = ClassVocabulary.load()
    names = {item.name for item in vocabulary.classes}
    assert {"antidepressant", "anticoagulant", "statin", "urologic procedure", "contrast", "delirium"} <= names
    with pytest.raises(ValidationError):
        ClassVocabulary.load('[[class]]\nname = "x"\nkind = "drug"\nmembers = ["a"]\n')  # no way to ask
    with pytest.raises(ValidationError):
        ClassVocabulary.load('[[class]]\nname = "x"\nkind = "drug"\nasked = ["x"]\nmembers = ["a"]\nstems = ["ol"]\n')


@pytest.mark.parametrize(
    ("question", "member_text", "other_text"),
    [
        ("Which antidepressant was Ada Stone discharged on?", "Citalopram 20 mg PO DAILY", "Atorvastatin 40 mg"),
        ("Is Ada Stone on anticoagulation at home?", "Apixaban 5 mg PO BID", "Aspirin 81 mg PO DAILY"),
        ("Is Ada Stone on any thyroid medication?", "Levothyroxine Sodium 75 mcg PO DAILY", "Lisinopril 10 mg"),
        ("Ada Stone's urologic procedure?", "Major Surgical or Invasive Procedure: TURP", "lap chole"),
        ("Which gallbladder operation did Ada Stone have?", "lap chole", "TURP"),
        ("Did Ada Stone get confused after the operation?", "Course complicated by postoperative delirium.", "Ate."),
        ("Which beta blocker is Ada Stone on?", "Nebivolol 5 mg daily", "Nifedipine 30 mg"),  # by the INN stem
        ("Ada Stone c diff treatment", "# C. diff colitis: treated with PO vancomycin.", "Stool softener PRN"),
        ("How was Ada Stone's cdiff treated?", "Clostridioides difficile infection", "the diff between them"),
    ],
)
def test_a_class_question_accepts_a_member_and_not_a_non_member(
    question: str, member_text: str, other_text: str
) -> None:
    terms = question_terms(understand(question), ["Ada Stone"])
    assert terms, "the class is a thing to find"
    assert terms & mentioned(member_text)
    assert not terms & mentioned(other_text)


@pytest.mark.parametrize(
    "text",
    [
        "No anticoagulation given the bleed; not on apixaban.",
        "She denies warfarin use.",
        "Discharged without enoxaparin.",
    ],
)
def test_a_negated_member_does_not_count(text: str) -> None:
    assert "anticoagulant" not in class_mentions(text)


def test_a_member_affirmed_in_another_clause_counts() -> None:
    assert "anticoagulant" in class_mentions("No bleeding. Started on apixaban 5 mg BID.")


def test_procedure_sites_name_a_group_only_when_a_procedure_is_asked() -> None:
    asked = [c.name for c in asked_classes("What kidney operation did she have?", procedure_asked=True)]
    assert "kidney procedure" in asked
    assert not [c for c in asked_classes("Does she have kidney disease?") if c.kind == "procedure"]
    assert "kidney procedure" not in understand("Does Ada Stone have kidney disease?").things


def _source(number: int, section: str, text: str) -> Source:
    return Source(number=number, chunk=note_chunk(7, "Ada Stone", section, f"{section}: {text}"), score=1.0)


def test_the_extractive_answer_quotes_the_member_and_the_gate_passes() -> None:
    understanding = understand("Which antidepressant was Ada Stone discharged on?")
    medications = _source(1, "Discharge Medications", "1. Lisinopril 10 mg PO DAILY\n2. Citalopram 20 mg PO DAILY")
    answer = extract_answer(understanding, [medications], names=["Ada Stone"])
    assert "Citalopram" in answer
    terms = question_terms(understanding, ["Ada Stone"])
    checked = on_question(verify(answer, {1: medications.chunk.text}), terms, {1: medications.chunk.text})
    assert all(sentence.supported for sentence in checked.sentences)


def test_a_non_member_source_does_not_answer_a_class_question() -> None:
    understanding = understand("Which antidepressant was Ada Stone discharged on?")
    medications = _source(1, "Discharge Medications", "1. Lisinopril 10 mg PO DAILY\n2. Atorvastatin 40 mg PO QPM")
    terms = question_terms(understanding, ["Ada Stone"])
    assert not terms & mentioned(medications.chunk.text)
    checked = on_question(
        verify("Ada Stone was discharged on atorvastatin [1].", {1: medications.chunk.text}),
        terms,
        {1: medications.chunk.text},
    )
    assert not any(sentence.supported for sentence in checked.sentences)


def test_topics_help_find_lines_but_are_not_things() -> None:
    understanding = understand("Mason Marsh tobacco?")
    assert "tobacco use" in understanding.classes
    assert "tobacco use" not in understanding.things
    assert "smoker" in understanding.lexical_text


def test_an_event_named_as_a_time_chooses_the_stay_not_the_line() -> None:
    understanding = understand("Roger Barron - any problems after his knee replacement?")
    assert understanding.fact_kind == "complication"
    assert "knee" in understanding.anchors
    assert "knee" not in understanding.things


@pytest.mark.parametrize(
    ("question", "study_text", "other_text"),
    [
        ("Did Ada Stone have an MRI of the brain?", "MRI brain: no acute infarct.", "BLOOD WBC-7.1 Hgb-13.1"),
        ("What did Ada Stone's CT show?", "CT head without contrast: no bleed.", "CXR: no infiltrate."),
        ("Was an echo done on Ada Stone?", "TTE: LVEF 55%, no wall motion abnormality.", "ECG: sinus rhythm."),
    ],
)
def test_a_named_study_needs_a_source_naming_that_study(question: str, study_text: str, other_text: str) -> None:
    understanding = understand(question)
    terms = question_terms(understanding, ["Ada Stone"])
    assert terms, understanding
    assert terms & mentioned(study_text)
    assert not terms & mentioned(other_text)


@pytest.mark.parametrize("question", ["What tests did Ada Stone have?", "Any labs for Ada Stone?"])
def test_general_result_words_name_no_study(question: str) -> None:
    assert question_terms(understand(question), ["Ada Stone"]) == frozenset()


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("VTE prophylaxis on discharge, what drug?", ["thromboprophylaxis"]),
        ("Is he on an opioid analgesic?", ["opioid"]),
        ("Any pain relief and an opioid?", ["opioid", "analgesic"]),
    ],
)
def test_a_class_named_inside_a_longer_class_name_is_not_asked(question: str, names: list[str]) -> None:
    assert sorted(found.name for found in asked_classes(question)) == sorted(names)


def test_cancer_and_culture_are_classes_a_record_must_name() -> None:
    from clinrag.retrieve.classes import mentioned
    from clinrag.retrieve.query import understand

    assert "cancer" in understand("Has Ada Stone had cancer?").things
    assert "cancer" in mentioned("Malignant neoplasm of right kidney, except renal pelvis")
    assert "culture" in understand("blood cultures for Ada Stone - what grew?").things
    assert "culture" not in mentioned("BLOOD WBC-14.7 RBC-3.80 Hgb-9.6")
    assert "transfusion" in mentioned("transfusion was not required")
    assert "transfusion" not in mentioned("Hgb-9.7 Hct-39.0")


def test_a_blood_group_is_a_study_a_record_must_name() -> None:
    """ "What blood group is she?" is not answered by "CBT-based groups": a record must give the blood type."""
    from clinrag.retrieve.classes import mentioned
    from clinrag.retrieve.query import understand

    assert "blood group" in understand("What blood group is Ada Stone?").things
    assert "blood group" in mentioned("Blood type O+, antibody screen negative, rubella immune.")
    assert "blood group" not in mentioned("Engaged in milieu, CBT-based groups and family meeting.")
