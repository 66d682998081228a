"""The one reading of a question the answer step works from: fact kind, clinical things, spelling, scope."""

from __future__ import annotations

import pytest

from clinrag.retrieve.query import told_only, understand
from clinrag.retrieve.scope import ScopeNames, named_scope
from clinrag.retrieve.vocabulary import correct_spelling, is_thing


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What procedure did Hunter Owen undergo during the hospital stay?", "procedure"),
        ("What follow-up was arranged for Hunter Owen after discharge?", "followup"),
        ("What was Hunter Owen's primary discharge diagnosis?", "diagnosis"),
        ("Is Hunter Owen allergic to anything?", "allergy"),
        ("Is Hunter Owen alergic to anythng?", "allergy"),
        ("What complication did Ada Stone have after his coronary artery bypass?", "complication"),
        ("Summarize Evelyn Bush's hospital admissions over the years", "admissions_summary"),
        ("Which drugs was Ada Stone sent home with?", "discharge_medications"),
        ("Who was treated for a stroke?", "diagnosis"),
        ("Which new tablets did Ada Stone get after his prostate resection?", "discharge_medications"),
        ("Was Ada Stone anaemic after the hip surgery?", "complication"),
        ("Did Ada Stone have a drug-related rash after the bypass?", "complication"),
        ("Ada Stone's pain relief for after the back surgery?", "discharge_medications"),
        ("Which sickness they found finally for Ada Stone?", "diagnosis"),
    ],
)
def test_the_fact_kind_asked_for(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind


@pytest.mark.parametrize(
    "question",
    [
        "What procedure did Hunter Owen undergo during the hospital stay?",
        "What follow-up was arranged for Hunter Owen after discharge?",
        "Summarize Evelyn Bush's hospital admissions over the years",
        "Is Hunter Owen alergic to anythng?",
    ],
)
def test_words_that_say_what_is_asked_are_not_things_to_find(question: str) -> None:
    things = understand(question).things - {"hunter", "owen", "evelyn", "bush"}
    assert things == frozenset()


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("Did Alexandra Edwards experience anemia during the stay?", "anemia"),
        ("When did Ada Stone have a cochlear implant?", "cochlear"),
        ("Why was Ada Stone started on clozapine?", "clozapine"),
        ("Why was Ada Stone started on lithium?", "lithium"),
        ("Who was treated for a stroke?", "stroke"),
        ("What complication followed the bypass?", "bypass"),
    ],
)
def test_clinical_things_are_found(question: str, thing: str) -> None:
    assert thing in understand(question).things


def test_common_verbs_are_not_things_but_jargon_and_drugs_are() -> None:
    assert not any(is_thing(word) for word in ("undergo", "arranged", "experience", "summarize", "happened"))
    assert all(is_thing(word) for word in ("anemia", "stroke", "warfarin", "apixaban", "cholecystectomy"))


def test_spelling_is_corrected_only_for_lower_case_words_near_a_kind_or_long_clinical_word() -> None:
    assert correct_spelling("what medicatons is she on")[0] == "what medications is she on"
    assert correct_spelling("Is Alergic allergic?")[1] == ()  # capitalised: maybe a name, never changed
    assert correct_spelling("any pnuemonia?")[0] == "any pneumonia?"  # the one clinical word one typo away
    assert correct_spelling("any apixabam?")[1] == ()  # a drug's name is never guessed
    found = understand("is she alergic")
    assert found.sections == ("Allergies",)
    assert found.lexical_text.startswith("is she alergic")  # the words as written stay


def test_a_question_about_a_set_of_patients_is_known() -> None:
    assert understand("Who was treated for a stroke?").about_patients
    assert not understand("Was Ada Stone treated for a stroke?").about_patients


NAMES = ScopeNames(orgs={"A": "Hospital A", "C": "Hospital C"}, depts=("orthopaedics", "surgery", "psychiatry"))


@pytest.mark.parametrize(
    ("question", "orgs", "depts"),
    [
        ("Is Medicare or Medicaid more common among patients at Hospital A?", ("A",), ()),
        ("Who had a fall at hospital c?", ("C",), ()),
        ("Which orthopedic patients had a fall?", (), ("orthopaedics",)),
        ("Who was admitted in psychiatry at Hospital A?", ("A",), ("psychiatry",)),
        ("What surgery did Ada Stone have?", (), ()),  # a kind of procedure, not a department
        ("Who had a hospital-acquired infection?", (), ()),
    ],
)
def test_named_hospitals_and_departments(question: str, orgs: tuple[str, ...], depts: tuple[str, ...]) -> None:
    scope = named_scope(question, NAMES)
    assert (scope.orgs, scope.depts) == (orgs, depts)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Ada Stone takes buspirone at home - what was she discharged on?", "discharge_medications"),
        ("Ada Stone, s/p L3-L5 laminectomy: was there any intraoperative complication?", "complication"),
        ("Ada Stone had the big bowel surgery, what was the diagnosis exactly?", "diagnosis"),
    ],
)
def test_a_statement_says_why_and_the_question_what_is_asked(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind


def test_who_asks_and_how_they_were_reached_are_not_things() -> None:
    assert not any(is_thing(word) for word in ("bleeped", "paged", "physio", "dietitian", "pharmacist"))


def test_who_the_patient_is_and_asking_verbs_are_no_things_but_clinical_acronyms_are() -> None:
    assert not any(is_thing(word) for word in ("35f", "80m", "25yo", "67yom", "confirm", "regarding"))
    assert all(is_thing(word) for word in ("ect", "peg", "pci", "pe"))


def test_a_complaints_officer_asks_no_presenting_complaint() -> None:
    from clinrag.retrieve.intent import fact_kind

    assert fact_kind("Complaints officer: was Tina Roy's urinary retention documented?") is None
    assert fact_kind("What did Tina Roy complain of?") == "presentation"


def test_treatments_in_everyday_words_are_things_and_stay_what_is_asked() -> None:
    from clinrag.retrieve.vocabulary import is_procedure_word

    assert all(is_thing(word) for word in ("chemo", "biopsy", "stent", "crutches", "drain"))
    assert all(is_procedure_word(word) for word in ("chemo", "resection", "transfusion", "stoma"))
    assert not any(is_procedure_word(word) for word in ("asthma", "anemia", "allergy"))


def test_why_someone_was_in_hospital_the_last_time_asks_the_latest_presentation() -> None:
    from clinrag.retrieve.query import understand

    found = understand("the family asks why he was in hospital the last time")
    assert found.fact_kind == "presentation"
    assert found.latest_admission


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("The family of Ada Stone have raised a formal complaint; did any complication arise?", "complication"),
        ("The complaint submitted on behalf of Ada Stone concerns her care; which operation was done?", "procedure"),
        ("ada stone dec 2018 admit - presntng complaint?", "presentation"),
        ("Pack-year history of Stone, Ada for the screening log, please.", "social"),
        ("For the background section of the report, with whom did Stone, Ada live?", "social"),
        ("what did the doctors find was wrong with Ada Stone?", "diagnosis"),
        ("Chaplain: how many times has Ada Stone stayed with us?", "admissions_summary"),
        ("on which dates was Ada Stone admitted to this hospital?", "admissions_summary"),
    ],
)
def test_records_officers_and_relatives_wordings_ask_their_kind(question: str, kind: str) -> None:
    from clinrag.retrieve.intent import fact_kind

    assert fact_kind(question) == kind


def test_a_long_clinical_word_one_typo_away_is_read_as_that_word_but_a_british_spelling_is_kept() -> None:
    assert correct_spelling("any wound infecton after?")[0] == "any wound infection after?"
    assert correct_spelling("the anaesthetic pre-assessment")[1] == ()
    assert is_thing("bunion")  # one letter from "union", but typists rarely miss the first letter


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("I live two hours away, what actually was wrong with my mum Ada Stone in the end?", "diagnosis"),
        ("Dad (Ada Stone) won't say - what did you write down as the reason he came in?", "presentation"),
        ("In respect of Stone, Ada, kindly state the domestic circumstances recorded.", "social"),
        ("Virtual ward nurse: can you run through every time Ada Stone has been in hospital?", "admissions_summary"),
        ("For the claim history of Ada Stone, please state the date of each hospital admission.", "admissions_summary"),
        ("ada stone was told to see someone after the leg infection when was it", "followup"),
    ],
)
def test_relatives_assessors_and_nurses_at_home_ask_their_kind(question: str, kind: str) -> None:
    from clinrag.retrieve.intent import fact_kind

    assert fact_kind(question) == kind


def test_came_back_names_no_back_and_a_caseload_is_no_thing() -> None:
    from clinrag.retrieve.classes import asked_classes

    assert "spine procedure" not in [c.name for c in asked_classes("he came back to us", procedure_asked=True)]
    assert "spine procedure" in [c.name for c in asked_classes("his back operation", procedure_asked=True)]
    assert not any(is_thing(word) for word in ("caseload", "monitoring", "therapist", "opcs"))
    assert is_thing("redo")


def test_sounded_out_endings_and_body_parts_and_pointing_back() -> None:
    from clinrag.retrieve.intent import fact_kind

    assert correct_spelling("what was the operashun")[0] == "what was the operation"
    assert correct_spelling("there was a complicashun")[0] == "there was a complication"
    assert all(is_thing(word) for word in ("tendon", "wrist", "ligament"))
    assert not is_thing("radiographer")
    pointing = understand("I think I had a septoplasty when I was in, what did it show and when is my appointment?")
    assert "septoplasty" in pointing.things
    assert "septoplasty" not in pointing.context
    assert fact_kind("Weekend cover for Stone, Ada - what was she on before she came in?") == "admission_medications"
    assert fact_kind("My name is Ada Stone, when was I admitted each time?") == "admissions_summary"
    assert fact_kind("what does my hospital file say about cigarets?") == "social"


def test_the_askers_world_is_no_thing_to_find() -> None:
    """A rare word of a statement beside the question ("the evening pooja"), a 'for' in a clause of its own, and
    "have it right" (which points back at nothing) leave the question's own things alone."""
    pooja = understand(
        "They took Ada Stone for an operation while the family was at the temple for the evening pooja. "
        "What operation did Ada Stone have?"
    )
    assert "pooja" not in pooja.things | pooja.anchors
    assert "pooja" in pooja.context
    review = understand(
        "I've got the first absence review on Thursday. What was Ada Stone's diagnosis? I'd rather have it right."
    )
    assert "absence" not in review.things
    told = understand("Ada Stone had a hip fracture. What operation did she have?")
    assert "fracture" in told.things | told.anchors  # a clinical word of a statement is still the question's
    thali = understand("She always wears her thali. Did the hospital write down whether she took it off?")
    assert "thali" in thali.things  # no kind asked: what the statement tells is what is asked about
    assert "schirmer" in understand("Schirmer test ... Ada Stone ... anything come of it?").things  # no sentences
    jab = understand("Was Ada Stone given her flu jab while she was in? Our nurse runs the flu clinic on nights.")
    assert jab.fact_kind is None  # the clinic is the asker's: the question asks for a jab, no follow-up
    assert "jab" in jab.things
    belongings = understand("Did the hospital log them in with Ada Stone's belongings?")
    assert "belonging" in belongings.things  # property, like a passport, is what a record must name
    assert "chaplain" in understand("Which church was Ada Stone's chaplain from?").things
    grinder = understand(
        "Ada Stone runs the stump grinder. She went home after a water infection. Which meds, at what doses? "
        "Nobody operates the grinder on anything that makes them drowsy."
    )
    assert grinder.fact_kind == "discharge_medications"  # the procedure word is of people at large, not asked
    assert grinder.sections == ("Discharge Medications",)
    party = understand(
        "I smelled smoke on Ada Stone at the party last month. What did the hospital write about her smoking?"
    )
    assert party.date_range is None  # the asker's own time, no filter on the records
    assert understand("Was Ada Stone admitted in the last 2 years?").date_range is not None
    crossing = "I've offered to run Ada Stone in after the morning crossing. What follow-up has been arranged?"
    assert told_only(crossing, understand(crossing).anchors) == {"crossing"}  # the asker's morning, no event
