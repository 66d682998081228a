"""Section intent: which sections a question asks about, for phrasings the retrieval benchmark does not use."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.ingest.notes import CANONICAL
from clinrag.retrieve import intent
from clinrag.retrieve.intent import SECTION_CUES, section_intent
from clinrag.retrieve.query import understand


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(intent)
    assert outcome.attempted > 0
    assert outcome.failed == 0


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What antibiotics did she go home on?", ("Discharge Medications",)),
        ("List his discharge meds", ("Discharge Medications",)),
        ("What was he on at home before admission?", ("Medications on Admission",)),
        ("Which home medications does the patient take?", ("Medications on Admission",)),
        ("Any adverse reactions to penicillin?", ("Allergies",)),
        ("Is she intolerant of statins?", ("Allergies",)),
        ("What was the final diagnosis?", ("Discharge Diagnosis",)),
        ("Did she need an operation?", ("Major Surgical or Invasive Procedure", "Brief Hospital Course")),
        ("Is he a smoker?", ("Social History",)),
        ("Does he live alone?", ("Social History",)),
        ("What did the CT show?", ("Pertinent Results",)),
        ("What brought her to the hospital?", ("Chief Complaint", "History of Present Illness")),
        ("Does diabetes run in the family?", ("Family History",)),
        ("When is her follow-up appointment?", ("Followup Instructions",)),
        ("Where was he discharged to?", ("Discharge Disposition",)),
        ("Summarise the note", ()),
        ("Who is Betty Henry?", ()),
    ],
)
def test_everyday_phrasings_find_their_section(question: str, expected: tuple[str, ...]) -> None:
    assert section_intent(question) == expected


def test_a_question_about_two_things_prefers_both_sections() -> None:
    found = section_intent("Which patients with a history of heart failure were discharged on furosemide?")
    assert set(found) == {"Past Medical History", "Discharge Medications"}


def test_every_cue_names_known_sections_and_compiles() -> None:
    for pattern, sections in SECTION_CUES:
        assert sections, pattern
        assert set(sections) <= set(CANONICAL), sections


def test_understand_carries_the_sections() -> None:
    assert understand("What was he sent home with?").sections == ("Discharge Medications",)
    assert understand("hello").sections == ()


@settings(deadline=None)  # no per-example time limit: a loaded machine may pause any example
@given(st.text(max_size=200))
def test_any_text_gives_known_sections_without_repeats(text: str) -> None:
    found = section_intent(text)
    assert len(found) == len(set(found))
    assert set(found) <= set(CANONICAL)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("ada stone what was wrong when they came in?", "presentation"),  # no "with"
        ("What were she poorly with when she got there?", "presentation"),
        ("When the ambulance came out for Ada Stone, what was the trouble?", "presentation"),
        ("Which medicines did the hospital send home, and at what dose each?", "discharge_medications"),
        ("Ada Stone diabetes clinic follow-up?", "followup"),  # "clinic follow-up" is no asker's place
        ("could she keep anything down when she presented?", "presentation"),
        ("what happened to bring him in - did he have a fall?", "presentation"),
        ("What brought Ada Stone into hospital?", "presentation"),
        ("Ada Stone - PC? I think leg pain on walking", "presentation"),
        ("What was the problem when he came in?", "presentation"),
        ("What was it Ada Stone was kept in with in the end?", "diagnosis"),
        ("now they have discharged her. What was the problem exactly?", "diagnosis"),
        ("Did they cut Ada Stone open or was it just one of them cameras?", "procedure"),
        ("ada stone developed something on the ward from her meds didnt she? what was it", "complication"),
        ("Ada Stone c diff treatment", "complication"),  # how the stay's problem was treated: the course
        ("What treatment did Ada Stone get for her cellulitis?", "complication"),
        ("What was written as the problem when she came in?", "presentation"),
        ("What was she bad with when she got to yow?", "presentation"),
        ("Which medicines, and at what doses, did the hospital discharge Ada Stone on?", "discharge_medications"),
        ("TVN. Ada Stone's hip wound - when were the staples meant to come out, and where?", "followup"),
        ("Something about a blood test. What was the reason she presented?", "presentation"),  # the question's kind
        ("Before Ada Stone went into your hospital, what medicines was she on?", "admission_medications"),
        ("Does Ada Stone stay alone, or with family?", "social"),
        ("What was the trouble when she came in?", "presentation"),
        ("What are the tablets Ada Stone must take now at home, and how much of each one?", "discharge_medications"),
        ("What did she come home on, tablets and doses?", "discharge_medications"),
        ("When Ada Stone left your hospital, what did the doctors finally say the illness was?", "diagnosis"),
        ("He lives upstairs from Mae. What medicines did they give him to go home?", "discharge_medications"),
        ("Weekend cover - Stone, Ada, social set-up documented?", "social"),
        ("does she have a partner at home?", "social"),
        ("Is he on his own in the house or is there someone with him?", "social"),
        ("Hospice nurse: Ada Stone - what was the original reason she was admitted, what was found?", "presentation"),
        ("abeg, the medicines ada stone dey take before they enter hospital - which ones?", "admission_medications"),
        ("What was the trouble when she was admitted? The minister would like to visit.", "presentation"),
        ("What did the doctors say was the problem when Ada Stone was discharged?", "diagnosis"),
        (
            "What medicines was Ada on before going in? Her daughter wants to check the dosette box",
            "admission_medications",
        ),
    ],
)
def test_lay_phrasings_ask_for_their_kind(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind
