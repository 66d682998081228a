"""Which kinds of source a question asks (records, literature, or both), read by rules before anything is searched:
what a federation root uses to ask a library only about the literature and the hospitals only about patients."""

from __future__ import annotations

import pytest

from clinrag.retrieve.sources import (
    SourceFamily,
    asks_effect,
    asks_literature,
    asks_records,
    family_of,
    records_clauses,
    sources_asked,
)

RECORDS = frozenset({SourceFamily.RECORDS})
LITERATURE = frozenset({SourceFamily.LITERATURE})
BOTH = RECORDS | LITERATURE


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who was treated for a stroke?", RECORDS),
        ("What medications was Ada Stone discharged on?", RECORDS),
        ("Is Ada Stone allergic to anything?", RECORDS),
        ("Did Ada Stone have a sleep study?", RECORDS),  # a study of hers, not a published one
        ("How many patients had a stroke at Hospital B?", RECORDS),
        ("Did apixaban lower major bleeding in randomised trials by Smith et al.?", LITERATURE),
        ("What does the evidence say about early mobilisation after hip replacement?", LITERATURE),
        ("What do the Example Cardiology Society guidelines recommend for anticoagulation?", LITERATURE),
        ("Anticoagulation in AF: what do the guidelines say?", LITERATURE),
        ("Summarize the studies of SGLT2 inhibitors in heart failure", LITERATURE),
        ("What do the guidelines recommend for Ada Stone's atrial fibrillation?", BOTH),
        ("Which of our patients would the guidelines anticoagulate?", BOTH),
        ("What is the edoxaban dose in atrial fibrillation?", RECORDS),  # names no source: the records
        ("weakness after a stroke", RECORDS),
        # whole words only, and a patient's own trial or consult
        ("Amy Brown - was prior authorisation obtained for her bariatric surgery?", RECORDS),
        ("What's the diagnosis on Ada Stone's discharge paperwork?", RECORDS),
        ("Tommy Dawson - did he pass the voiding trial?", RECORDS),
        ("Was a trial without catheter done before discharge?", RECORDS),
        ("What did the cardiology consult recommend for Mrs. Henry?", BOTH),
        ("What are the guidelines recommending for anticoagulation?", LITERATURE),
    ],
)
def test_the_sources_a_question_asks(question: str, expected: frozenset[SourceFamily]) -> None:
    assert sources_asked(question) == expected


def test_each_reading_alone() -> None:
    assert asks_literature("Smith et al. on warfarin")
    assert not asks_records("Smith et al. on warfarin")
    assert asks_records("his last admission")
    assert not asks_literature("his last admission")


def test_every_source_kind_has_a_family() -> None:
    assert {family_of(kind) for kind in ("note", "row", "calculator")} == {SourceFamily.RECORDS}
    assert {family_of(kind) for kind in ("abstract", "guideline")} == {SourceFamily.LITERATURE}


@pytest.mark.parametrize(
    "question",
    [
        "Did ramipril lower end-stage kidney disease?",
        "Does apixaban lower stroke more than warfarin?",
        "Is finerenone better than ramipril for CKD?",
        "Apixaban versus warfarin in atrial fibrillation",
        "Rivaroxaban vs warfarin for stroke prevention?",
        "Did apixaban reduce stroke compared with warfarin among patients with atrial fibrillation?",
        "Does metformin reduce mortality in older adults with diabetes?",
        "Did early mobilisation reduce length of stay after hip replacement?",
        "What is the efficacy of dapagliflozin in heart failure?",
        "How effective is tiotropium in COPD?",
        "Is apixaban more effective than aspirin?",
    ],
)
def test_a_treatments_effect_in_general_asks_the_literature(question: str) -> None:
    assert asks_effect(question)
    assert sources_asked(question) == LITERATURE


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Did apixaban lower Ada Stone's INR?", RECORDS),  # a patient's value
        ("Was she better on ramipril?", RECORDS),
        ("Did ramipril lower his blood pressure?", RECORDS),
        ("Was apixaban better than warfarin for Roger Barron?", RECORDS),
        ("Did apixaban reduce stroke in our patients?", RECORDS),
        ("Which patients did better on apixaban than warfarin?", RECORDS),
        ("Did the swelling improve after diuretics?", RECORDS),  # no object: about a stay
        ("Is the creatinine better than yesterday?", RECORDS),  # a value against an earlier one
        ("Did the patient improve?", RECORDS),
        # population questions: counted at the hospitals, never sent to the library
        ("How many patients on apixaban versus warfarin had a stroke?", RECORDS),
        ("Is bleeding more common on apixaban than warfarin?", RECORDS),
        ("What proportion of patients on ramipril compared with lisinopril were readmitted?", RECORDS),
        # a cue word still asks the literature, with or without a patient
        ("Did apixaban lower stroke in trials?", LITERATURE),
        ("What do trials say about Ada Stone's apixaban versus warfarin?", BOTH),
    ],
)
def test_patients_and_counts_keep_an_effect_question_with_the_records(
    question: str, expected: frozenset[SourceFamily]
) -> None:
    assert sources_asked(question) == expected


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        (
            "How many of our patients with atrial fibrillation are on apixaban, and what do the trials say about "
            "apixaban versus warfarin?",
            "How many of our patients with atrial fibrillation are on apixaban",
        ),
        ("How many patients had a stroke? What do the guidelines recommend?", "How many patients had a stroke?"),
        ("How many patients had a stroke; published evidence on thrombolysis?", "How many patients had a stroke;"),
        # one clause asking both, or none asking the literature: the whole question
        (
            "What do the guidelines recommend for our patients with atrial fibrillation?",
            "What do the guidelines recommend for our patients with atrial fibrillation?",
        ),
        ("How many patients had a stroke and took apixaban?", "How many patients had a stroke and took apixaban?"),
        ("What do the trials say? And the guidelines?", "What do the trials say? And the guidelines?"),
        ("What did Mrs. Henry take? What do trials say about it?", "What did Mrs. Henry take?"),  # no break at "Mrs."
    ],
)
def test_the_clauses_that_ask_the_records(question: str, kept: str) -> None:
    assert records_clauses(question) == kept
