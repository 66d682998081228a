"""Who asks, what they plan and what they ask: the reading of a question keeps them apart (issue 14's held-out
misses: an asker's role read as the thing asked, a planned test read as a result, a plan read as the patient's
event)."""

from __future__ import annotations

import pytest

from clinrag.retrieve.head import asks_for_kind_only
from clinrag.retrieve.intent import anchor_spans, asker_spans, fact_kind, kind_candidates
from clinrag.retrieve.query import understand
from clinrag.retrieve.vocabulary import is_thing


@pytest.mark.parametrize(
    ("question", "role"),
    [
        ("Dental surgeon: is Ada Stone allergic to anything?", "Dental surgeon"),
        ("Stoma nurse specialist. I'm seeing Ada Stone next week - which operation?", "Stoma nurse specialist"),
        ("Anaesthetist, pre-op: Ada Stone's allergies?", "Anaesthetist"),
        ("Radiographer doing a hip film on Ada Stone - what was done?", "Radiographer"),
        ("hi, I'm the district nurse for Ada Stone, who does she live with?", "district nurse"),
        ("Did Ada Stone have any complication in the hospital? I am her caregiver.", "I am her caregiver"),
    ],
)
def test_the_askers_role_is_found_and_names_nothing_to_find(question: str, role: str) -> None:
    assert [question[start:end] for start, end in asker_spans(question)] == [role]
    assert not {token.lower() for token in role.split()} & understand(question).things


@pytest.mark.parametrize(
    "question",
    ["Which surgeon did Ada Stone's knee replacement?", "Do the carers at home know about her allergies?"],
)
def test_a_role_inside_the_question_is_not_the_asker(question: str) -> None:
    assert asker_spans(question) == []


def test_a_role_cues_no_kind() -> None:
    assert kind_candidates("Dental surgeon: is Ada Stone allergic to anything?") == ("allergy",)


def test_an_event_in_a_plan_is_not_the_patients_but_theirs_by_name_is() -> None:
    assert anchor_spans("I want to prescribe amoxicillin after taking a tooth out - any allergy?") == []
    assert anchor_spans("Dental surgeon: after the extraction he shouldn't be alone - who does he live with?") == []
    question = "We will review him after his bypass - any complications?"
    assert [question[start:end] for start, end in anchor_spans(question)] == ["bypass"]
    question = "I'm Ada - what complications did I have after the hip operation?"
    assert [question[start:end] for start, end in anchor_spans(question)] == ["hip operation"]


@pytest.mark.parametrize(
    "question",
    [
        "When is his repeat chest X-ray due, per the discharge plan?",
        "Does she need a follow up chest xray, and when?",
        "Which bloods need doing after discharge and when?",
        "Which blood tests were arranged alongside the lithium?",
        "What bloods does she need until it is gone?",
        "After the COPD admission was she booked for lung function tests?",
    ],
)
def test_a_planned_test_is_follow_up(question: str) -> None:
    assert fact_kind(question) == "followup"


def test_a_result_of_a_follow_up_scan_is_a_result() -> None:
    assert fact_kind("What did the follow-up CT show?") == "results"


@pytest.mark.parametrize(
    "question",
    [
        "Which medicines was the service user already on when admitted?",
        "Which medicines was he on at the time of admission?",
        "What was she on before the pneumonia admission?",
    ],
)
def test_medicines_when_admitted_are_the_admission_list(question: str) -> None:
    assert fact_kind(question) == "admission_medications"


def test_on_discharge_alone_says_when() -> None:
    assert kind_candidates("Which bloods need doing after discharge?") == ("followup",)
    assert fact_kind("What was Ada Stone given on discharge?") == "discharge_medications"


def test_who_helps_with_medicines_is_social_history() -> None:
    assert fact_kind("Who helps her with her medications at home?") == "social"


def test_the_asking_clause_chooses_the_kind() -> None:
    question = "Writing the medical history for Ada Stone: what symptoms took her into hospital?"
    assert kind_candidates(question) == ("presentation",)


def test_a_relative_before_a_lower_case_name_is_not_part_of_it() -> None:
    from clinrag.retrieve.patient_mentions import find_mentions
    from clinrag.retrieve.patients import PatientRegistry

    registry = PatientRegistry([(1, "Gina Sanford")])
    assert [m.subject_ids for m in find_mentions("does my nan gina sanford smoke?", registry).mentions] == [(1,)]
    assert [m.subject_ids for m in find_mentions("Did Nan Gina Sanford smoke?", registry).mentions] == [(1,)]


@pytest.mark.parametrize(
    "question",
    [
        "I am the caregiver of Ma'am Gina Sanford. Does she have allergy po?",
        "Good afternoon po. Lola Gina Sanford is confused since the operation.",
        "hiya so my great nan gina sanford is in pain, is she allergic to anything?",
        "Auntie Gina Sanford - does she smoke?",
        "before Meemaw gina sanford went into the hospital, what medicines was she on at home?",
        "Pole for disturbing. Our shosho Gina Sanford was admitted at your hospital.",
    ],
)
def test_an_honorific_or_kin_word_before_a_full_name_is_not_part_of_it(question: str) -> None:
    from clinrag.retrieve.patient_mentions import find_mentions
    from clinrag.retrieve.patients import PatientRegistry

    registry = PatientRegistry([(1, "Gina Sanford"), (2, "Lola Sanford")])
    resolution = find_mentions(question, registry)
    assert resolution.subject_ids == {1}
    assert not resolution.unknown_persons


def test_a_word_that_is_no_address_word_still_makes_a_longer_name() -> None:
    from clinrag.retrieve.patient_mentions import find_mentions
    from clinrag.retrieve.patients import PatientRegistry

    registry = PatientRegistry([(1, "Gina Sanford")])
    resolution = find_mentions("Did Maria Gina Sanford smoke?", registry)
    assert resolution.subject_ids == frozenset()
    assert resolution.unknown_persons == ("Maria Gina Sanford",)


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("did Laura Dawson get her flu jab while she was an inpatient?", "jab"),
        ("Medical examiner: what was recorded as Ada Stone's cause of death?", "death"),
        ("wasn't Ada Stone's VQ scan meant to be repeated before she went home?", "vq"),
    ],
)
def test_what_a_negative_question_names_is_a_thing_to_find(question: str, thing: str) -> None:
    assert thing in understand(question).things


def test_a_blood_test_booked_is_follow_up_whatever_the_bloods() -> None:
    found = understand("For Ada Stone: is there a clinic appointment or blood test booked after discharge?")
    assert found.fact_kind == "followup"
    assert "blood" not in found.things


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Cardiac rehab intake for Ada Stone - what was the patient taking before they came into hospital?",
         "admission_medications"),
        ("annual review ada stone: follow up instructions from the discharge summary?", "followup"),
        ("is there an opioid he can't have?", "allergy"),
        ("what medications did the hospital discharge them with?", "discharge_medications"),
    ],
)  # fmt: skip
def test_more_everyday_cues(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


@pytest.mark.parametrize(
    ("question", "place"),
    [
        ("Falls clinic - who reported the Holter monitor that Ada Stone had on the ward?", "Falls clinic"),
        ("When was Ada Stone admitted, each time? - endoscopy unit, pre-assessment history", "endoscopy unit"),
    ],
)
def test_the_askers_clinic_or_unit_is_the_asker(question: str, place: str) -> None:
    assert place in [question[start:end] for start, end in asker_spans(question)]
    assert not {word.lower() for word in place.split()} & understand(question).things


def test_the_askers_own_plan_names_nothing_to_find_but_a_question_about_a_drug_does() -> None:
    planned = understand("We're considering methotrexate for Ada Stone and need her alcohol history. How much?")
    assert "methotrexate" not in planned.things
    asked = understand("Your letter does not say whether colchicine should be continued; what dose?")
    assert "colchicine" in asked.things


def test_an_aside_after_the_question_names_nothing_to_find() -> None:
    question = "Travel clinic: what medication was Ada Stone sent home on? Need to check it against the antimalarials."
    assert "antimalarial" not in understand(question).things
    assert understand(question).fact_kind == "discharge_medications"
    assert understand("what abx did she go home on? ?uti again what abx").fact_kind == "discharge_medications"


def test_a_kind_named_after_the_question_still_counts() -> None:
    assert fact_kind("wat was ada stone on b4 they came in? home meds pls") == "admission_medications"


def test_the_askers_place_after_the_question_cues_nothing() -> None:
    question = "Why was the Hickman line insertion for Ada Stone cancelled? Genetics clinic asking."
    assert "followup" not in kind_candidates(question)
    assert "hickman" in understand(question).things


def test_every_stay_in_an_aside_asks_for_no_summary() -> None:
    question = "Ada Stone, pre-admission medication list? (same for every stay I think). GP receptionist"
    assert fact_kind(question) == "admission_medications"


def test_the_surgeons_who_arrange_follow_up_ask_for_no_procedure() -> None:
    assert kind_candidates("He had a kidney taken out - what follow up did the surgeons arrange?") == ("followup",)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("hiya im Ada Stone's carer, is there any medicine they react too?", "allergy"),
        ("what did the hospital say was actually wrong with Ada Stone?", "diagnosis"),
        ("ada stone come home yesterday, whats the main thing they was in for", "diagnosis"),
        ("Mum was in for a few days with a cough - what did the doctors say it was in the end?", "diagnosis"),
        ("Anticoag clinic: Stone, Ada, current meds as per the d/c summary, with strengths.", "discharge_medications"),
        ("ada stone old meds from before the hospital, what were they", "admission_medications"),
        ("Before she went in for the bowel surgery what was she on?", "admission_medications"),
        ("what was Dad taking before he went into hospital all confused?", "admission_medications"),
        ("was Mum supposed to have another x-ray after the pneumonia? what follow up did they want?", "followup"),
        ("What exactly did ortho do? fracture clinic nurse", "procedure"),
    ],
)
def test_plain_phrasings_cue_their_kind(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_a_terse_aside_after_the_question_narrows_the_kind() -> None:
    assert kind_candidates("community midwife - ada stone, why was she admitted in march 2023? final dx") == (
        "diagnosis",
    )


def test_the_dates_of_admissions_ask_for_the_admissions() -> None:
    assert fact_kind("dates ada stone was admited? in order pls") == "admissions_summary"


def test_a_drug_in_the_askers_plan_is_asked_about_when_the_question_points_back_at_it() -> None:
    question = "I'm about to counsel Ada Stone on cinnarizine interactions - which other meds did they flag with it?"
    assert "cinnarizine" in understand(question).things
    assert "methotrexate" not in understand("We're considering methotrexate for Ada; how much does she drink?").things


def test_a_condition_that_sent_a_patient_in_is_context_of_a_medication_question() -> None:
    found = understand("what was Dad taking before he went into hospital all confused?")
    assert found.fact_kind == "admission_medications"
    assert not found.things


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("HPI for Ada Stone's follow-up visit: principle dx from the hospitalization?", "diagnosis"),
        ("Ada said the stay 'didn't go to plan' - did something happen to them while they were in?", "complication"),
        ("Ada Stone - anything happen on the ward? her carer says her neck went funny", "complication"),
        ("Understanding Ada's story - what was happening to them that made them go into hospital?", "presentation"),
        ("Ada Stone - second admission, Nov 2015 - how was she presenting when she came in?", "presentation"),
    ],
)  # fmt: skip
def test_more_plain_phrasings_cue_their_kind(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_what_develops_during_a_stay_is_what_is_asked() -> None:
    found = understand("Which patients developed a pressure ulcer during their admission?")
    assert found.fact_kind == "complication"
    assert "ulcer" in found.things


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("what was Ada Stone in hospital for, in plain english if poss?", "poss"),
        ("meds so the HCP can prescribe?", "hcp"),
        ("Jay Glenn is my deckhand. What was he taking before he went in?", "deckhand"),
        ("Infirmarian writing: list each time Ada Stone was admitted", "infirmarian"),
        ("gail krause may complication po ba during the confinement?", "confinement"),
        ("Pugh, Bill - complications in hosp? y/n + what", "hosp"),
    ],
)
def test_shorthand_and_roles_name_nothing_to_find(question: str, word: str) -> None:
    assert word not in understand(question).things


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("The GP referral says 'post hospital' for Ada Stone - what was actually wrong with them?", "diagnosis"),
        ("any problems for ada stone during the hospital stay? just so I don't push them too hard", "complication"),
        ("Ada Stone, Jan 2023 with the bleed - what did they actually do to stop it?", "procedure"),
    ],
)
def test_adverbs_and_a_hospital_stay_keep_their_cue(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_a_kind_named_after_the_question_does_not_make_what_it_asks_context() -> None:
    question = "Ada Stone - blood group and rhesus status? booking bloods at the antenatal clinic"
    assert not asks_for_kind_only(question, understand(question), ["Ada Stone"])


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Ada Stone - what did the diarrhoea turn out to be? care home asking", "diagnosis"),
        ("Ada Stone was muddled when she went in - what did they put it down to in the end?", "diagnosis"),
        ("ada stone, when she came in withdrawing from alcohol - wat meds did she leave on?", "discharge_medications"),
        ("Ada Stone - what was she on before the knee op? pre-op list for the records", "admission_medications"),
        ("Ada Stone when she broke her hip - what was her home like, stairs? on her own?", "social"),
        ("Ada Stone - what checks did they want after she went home? BP check with who?", "followup"),
        ("Ada Stone's echo result from the admission? ejection fraction pls, cardiology clinic letter", "results"),
    ],
)
def test_a_third_set_of_plain_phrasings_cue_their_kind(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind


def test_a_question_typed_in_capitals_is_read_as_words() -> None:
    found = understand("DEAR SIR IS Ada Stone ALERGIC TO ANY MEDICINES ... THE NEW DOCTOR ASKED")
    assert found.fact_kind == "allergy"
    assert not found.things


@pytest.mark.parametrize("word", ["oot", "hame", "ony", "fer", "hoose", "botherin"])
def test_a_word_spelt_as_it_is_spoken_names_nothing(word: str) -> None:
    assert not is_thing(word)


@pytest.mark.parametrize("word", ["hida", "inr", "ercp", "copd", "stent", "tavi", "ulcer"])
def test_short_clinical_words_stay_things(word: str) -> None:
    assert is_thing(word)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Got Ada Stone back at the clinic after the flight - they allergic to anything, mate?", "allergy"),
        ("Booking a car home for Ada Stone - what were they actually in hospital with?", "diagnosis"),
        ("ada stone discharge - what was the illness, for the eligibility form", "diagnosis"),
        ("What tablets did they send Ada Stone home on? Need to sort a blister pack.", "discharge_medications"),
        ("What was Ada on before they got flown out? Their own scripts, from before hospital", "admission_medications"),
        ("Stone, Ada - regular meds prior to going in, so I can compare with what's back", "admission_medications"),
        ("Anything go pear-shaped for Ada Stone while they were down in the city?", "complication"),
        ("What was it that got Ada Stone flown out in the first place?", "presentation"),
        ("Is Ada Stone still on the durries or did they give up?", "social"),
        ("How much grog does Ada Stone get through?", "social"),
        ("Ada Stone - NKDA or has she got something listed?", "allergy"),
        ("Ada Stone was on something for her stomach before she came in - what was it?", "admission_medications"),
    ],
)  # fmt: skip
def test_a_fourth_set_of_plain_phrasings_cue_their_kind(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind


def test_what_has_come_back_is_no_follow_up() -> None:
    question = "Ada Stone - regular meds prior to going in, to compare with what's come back"
    assert "followup" not in kind_candidates(question)


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("list all the times Ada Stone was admitted, oldest to newest please, for the MCP forms", "for the MCP forms"),
        (
            "Stone, Ada: please document any complications for the guardian's incident log.",
            "for the guardian's incident log",
        ),
        ("VSO - Ada Stone, veteran. What was the final diagnosis?", "VSO"),
    ],
)
def test_what_the_asker_needs_the_answer_for_and_an_opening_acronym_are_the_asker(question: str, span: str) -> None:
    assert span in [question[start:end] for start, end in asker_spans(question)]


@pytest.mark.parametrize("question", ["CT - Ada Stone result?", "PMH: Ada Stone?", "HR - was it high on admission?"])
def test_a_clinical_abbreviation_opening_the_question_is_what_is_asked(question: str) -> None:
    assert asker_spans(question) == []


def test_what_the_patient_had_at_the_time_says_when() -> None:
    """ "when he had the high fever, was there any complication?": the stay of the fever, not a fever to find."""
    question = "In October 2018, when he had the high fever and the shaking, was there any complication?"
    assert [question[start:end] for start, end in anchor_spans(question)] == ["high fever"]
    assert fact_kind(question) == "complication"


def test_a_time_while_the_patient_had_something_asks_no_complication_of_itself() -> None:
    """ "when she had the hip done": a time, but not one after an event, so no question of what happened after."""
    assert fact_kind("Her dentures went missing when she had the hip done. Did anybody write it down?") is None
