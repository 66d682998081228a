"""What a question asks, read from plainer phrasings (issue 14's twenty-second blind round): a plain word for a
diagnosis, "see the doctors again", "how many times was she in", "what's the home like", a number or a size asked
for, and the patient's own events named after a possessive."""

from __future__ import annotations

import pytest

from clinrag.retrieve.head import asked_attributes
from clinrag.retrieve.intent import (
    asks_drug_effect,
    asks_for_quantity,
    counted_things,
    device_identity_asked,
    fact_kind,
    gives_quantity,
    kind_candidates,
    name_owners,
    possessed_things,
    shown_things,
)
from clinrag.retrieve.query import provided_things, understand
from clinrag.retrieve.vocabulary import is_thing


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was the final sickness they found in Ada Stone?", "diagnosis"),
        ("Please what is the name of the sickness that made Ada Stone to be admitted?", "diagnosis"),
        ("After her stomach bleeding, when is Ada Stone supposed to see the doctors again?", "followup"),
        ("How many times was Ada Stone in with you, and when?", "admissions_summary"),
        ("Before they admitted Ada Stone, which drugs was she using at home?", "admission_medications"),
        ("What was Ada Stone on before she fell and went in?", "admission_medications"),
        ("Ada Stone, after the knee replacement - what's the home like?", "social"),
        ("Ada Stone the appendix they sent for test, result come back already or not?", "results"),
        ("Ada Stone did get any complication or everything did go smooth?", "complication"),
        ("Ada Stone after hip operation, at home stay with who?", "social"),
        ("Caller signs: Ada Stone before hospital, medicine every day what?", "admission_medications"),
        ("Before Ada Stone go in hospital, what medicine was she on?", "admission_medications"),
        ("Ada Stone pneumonia discharge, must see doctor again when?", "followup"),
        ("What the doctors say was really wrong with Ada Stone?", "diagnosis"),
    ],
)
def test_plain_phrasings_ask_for_their_kind(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_a_plain_word_for_a_diagnosis_is_what_is_asked_not_a_thing_to_find() -> None:
    for question in (
        "What was the final sickness they found in Ada Stone?",
        "What was the sickness they treated Ada Stone for in the end?",
    ):
        reading = understand(question)
        assert "sickness" not in reading.things - asked_attributes(question, reading, ["Ada Stone"])
    named = "Did Ada Stone have motion sickness?"  # named, not asked for: a thing a record must hold
    assert "sickness" in understand(named).things
    assert not asked_attributes(named, understand(named), ["Ada Stone"])


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What size of mesh did they put in?", True),
        ("How many units of blood did she get?", True),
        ("What dose of warfarin was she sent home on?", True),
        ("How many times was she admitted?", False),  # her stays, listed
        ("How much blood did she lose?", True),
        ("Which mesh did they use?", False),
    ],
)
def test_a_number_or_a_size_is_asked_for(question: str, asked: bool) -> None:
    assert asks_for_quantity(question) is asked


def test_a_number_is_given_in_figures_or_words() -> None:
    assert gives_quantity("Transfused 2 units of packed red cells.")
    assert gives_quantity("Received a single dose of vitamin K.")
    assert not gives_quantity("Open repair of the right inguinal hernia with mesh.")


@pytest.mark.parametrize(
    ("question", "possessed"),
    [
        ("Any dressings on Ada Stone's cataract extraction wound?", {"cataract", "extraction", "wound"}),
        ("How is the Stones' dog?", {"dog"}),
        ("Was she seen after her knee replacement?", {"knee", "replacement"}),
        ("When's Ada Stone seeing the team?", set()),  # a contraction, not a possessive
        ("what's on the list? it's long", set()),
    ],
)
def test_the_patients_own_events_follow_a_possessive(question: str, possessed: set[str]) -> None:
    assert possessed_things(question) == possessed


@pytest.mark.parametrize(
    ("question", "provided"),
    [
        ("Did they set her up with a personal alarm before she came home?", {"personal", "alarm"}),
        ("Was he given a walking frame on the ward?", {"walking", "frame"}),
        ("Did they give her any medication for the pain?", set()),  # a kind of fact: asked for, not named
        ("Did they give him a follow-up appointment?", set()),
    ],
)
def test_what_the_patient_was_given_is_named(question: str, provided: set[str]) -> None:
    assert provided_things(question) == provided


@pytest.mark.parametrize(
    "question",
    [
        "Back at the clinic - allergic to anything? Want to give them some Panadol.",
        "Give me a timeline of Ada Stone's stays.",
        "We were given a bag of new medicines when Ada Stone came home; which were prescribed on discharge?",
        "Any recorded drug allergy before I give her an antibiotic?",
        "What operation was done on Ada Stone? I must give him a correct answer, not a guess.",
        "What follow-up did the hospital ask for? I'll give her a lift if it's on a weekday.",
    ],
)
def test_what_the_asker_gives_or_is_given_names_nothing(question: str) -> None:
    assert provided_things(question) == frozenset()


def test_a_kind_cued_only_after_the_question_leaves_its_things_to_find() -> None:
    reading = understand("Ada Stone FEV1 / FEV1:FVC from her PFTs? trying to stage her for clinic")
    assert reading.fact_kind == "followup"
    assert "fev1" in reading.things
    assert not reading.context


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("how many physio sessions did she get at home after her knee op?", {"physio", "session"}),
        ("What size of mesh did they put in?", {"mesh"}),
        ("How many units of blood was he given?", {"unit"}),
        ("What dose?", set()),
        ("How much does he drink?", set()),
    ],
)
def test_what_a_number_is_asked_of_is_found(question: str, counted: set[str]) -> None:
    assert counted_things(question) == counted


@pytest.mark.parametrize("term", ["t-score", "z-score", "k-wire", "c-section"])
def test_a_letter_joined_to_a_word_is_a_thing(term: str) -> None:
    assert is_thing(term)


@pytest.mark.parametrize("word", ["e-mail", "t-shirt"])
def test_a_plain_letter_compound_is_no_thing(word: str) -> None:
    assert not is_thing(word)


def test_a_procedure_named_with_its_site_needs_the_site() -> None:
    from clinrag.retrieve.head import examined_sites

    sites = examined_sites("Is this shoulder replacement thing running in the family?")
    assert [thing.word for thing in sites] == ["joint replacement", "shoulder"]
    assert examined_sites("Did she have a joint replacement?") == ()


def test_a_therapy_referred_to_is_asked_for_not_context() -> None:
    reading = understand("Was Ada Stone ever referred to the pain clinic or for acupuncture after her operation?")
    assert reading.fact_kind == "followup"
    assert "acupuncture" in reading.things


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("Can the sleep study that Ada Stone had be used for the visa medical?", "sleep study"),
        ("Ada Stone has a stoma - what was the operation that left her with it?", "stoma"),
    ],
)
def test_a_named_examination_or_stoma_is_a_class_a_record_must_name(question: str, thing: str) -> None:
    assert thing in understand(question).things


def test_a_living_will_is_a_document_not_where_the_patient_lives() -> None:
    reading = understand("Did anybody go over Ada Stone's living will with the family?")
    assert reading.fact_kind != "social"


@pytest.mark.parametrize(
    "question",
    ["what medications was he taking beforehand?", "Ada Stone, June admission - give me the full home list."],
)
def test_beforehand_and_the_home_list_ask_for_the_admission_medications(question: str) -> None:
    assert fact_kind(question) == "admission_medications"


def test_hacs_are_hospital_acquired_complications() -> None:
    assert understand("Any complications / HACs documented during Ada Stone's IP stay?").fact_kind == "complication"


def test_a_cause_the_question_proposes_is_found() -> None:
    from clinrag.retrieve.intent import proposed_causes

    question = "Is Ada Stone's pneumonia at least as likely as not related to burn pit exposure in service?"
    assert proposed_causes(question) == {"burn", "pit", "exposure"}
    assert proposed_causes("Was her AKI due to the contrast?") == {"contrast"}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was wrong with Ada Stone when they first went in? We were up at the cabin.", "presentation"),
        ("What was wrong with Ada Stone when they let her out?", "diagnosis"),
        ("what kind sickness Ada Stone had that time?", "diagnosis"),
        ("Her family wanted the cord to take home and bury. Was it given to them when she left?", None),
        ("Ada Stone's take home meds?", "discharge_medications"),
        ("What medications was Ada Stone on before her knee replacement?", "admission_medications"),
        ("What was up with Ada Stone when they first got taken in?", "presentation"),
        ("When and where must Ada Stone come for the control visit after the hospital?", "followup"),
        ("what did the hospital put down for Ada Stone and the ale?", "social"),
        ("ada stone - what tablets they come out on?", "discharge_medications"),
        ("Ada Stone had something done under the anaesthetic - what was it called?", "procedure"),
        ("amy brown's been in and out like a yo-yo - what dates was they in? first one first", "admissions_summary"),
        ("Stone, Ada: admit history w/ dates (oldest -> newest)", "admissions_summary"),
        ("When must my niece Ada Stone go back after having the baby, and where?", "followup"),
        ("Review date and department for Ada Stone after discharge? Please mention.", "followup"),
    ],
)
def test_more_ways_of_asking_for_a_kind(question: str, kind: str | None) -> None:
    assert fact_kind(question) == kind


def test_keyhole_is_read_as_laparoscopic() -> None:
    assert "laparoscopic" in understand("Ada Stone had her gallbladder done - was it keyhole?").things


@pytest.mark.parametrize(
    ("question", "roles"),
    [
        (
            "Was an Aboriginal Liaison Officer called to see Ada Stone while she was in?",
            {"aboriginal", "liaison", "officer"},
        ),
        ("was Ada Stone seen by the dietitian?", {"dietitian"}),
        ("What did the surgeon do for Ada Stone?", set()),
        ("when Ada Stone was in, did the rabbi from the shul come to visit?", {"rabbi"}),
        ("did Ada Stone receive Holy Communion from the hospital chaplain?", {"hospital", "chaplain"}),
        ("What was Ada Stone taking regular? I'll get them from the chemist.", set()),
    ],
)
def test_a_role_the_patient_was_seen_by_is_found(question: str, roles: set[str]) -> None:
    from clinrag.retrieve.intent import consulted_roles

    assert consulted_roles(question) == roles


@pytest.mark.parametrize(
    ("question", "done"),
    [
        ("When did Ada Stone have her colostomy reversed?", True),
        ("Has Ada Stone had the echo yet?", True),
        ("Did she complete the programme, and when did she finish?", True),
        ("Did she have follow-up arranged?", False),
        ("Ada Stone has to have her follow-up sorted. What did the hospital arrange?", False),
    ],
)
def test_a_question_whether_something_happened_is_told_from_a_plan(question: str, done: bool) -> None:
    from clinrag.retrieve.intent import asks_if_done

    assert asks_if_done(question) is done


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When's he supposed to go back and where?", "followup"),
        (
            "all the times Ada Stone was admitted, oldest first please, it's for the blue badge forms",
            "admissions_summary",
        ),
        ("What was the matter with Ada Stone when they first got taken in?", "presentation"),
        ("What was wrong with Ada Stone when the ambulance took her in?", "presentation"),
    ],
)
def test_going_back_every_time_admitted_and_what_took_them_in(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


@pytest.mark.parametrize("word", ["passport", "consulate", "visitor"])
def test_papers_visitors_and_flying_are_things_to_find(word: str) -> None:
    assert is_thing(word)


def test_a_test_named_in_a_medication_question_is_still_asked_for() -> None:
    question = "before they gave Ada Stone the drugs after her hip operation, did they check her G6PD?"
    assert "g6pd" in understand(question).things


def test_it_in_an_aside_points_back_at_nothing() -> None:
    question = "Ada Stone came home from the bowel surgery. What was she discharged on? I'm trying to get it sorted."
    assert "bowel" not in understand(question).things


def test_a_clause_said_before_the_question_asks_for_nothing() -> None:
    """ "X, an Australian citizen, was admitted … for alcohol withdrawal. Were any complications recorded during that
    admission?" asks for the complication, not the social history the statement's "alcohol" cues."""
    question = (
        "Ada Stone, an Australian citizen, was admitted in April 2020 for alcohol withdrawal. Were any complications "
        "recorded during that admission?"
    )
    assert fact_kind(question) == "complication"


@pytest.mark.parametrize(
    ("asks", "question", "expected"),
    [
        ("asks_for_volume", "How many of them hamstring repair jobs does the hospital do in a year?", True),
        ("asks_for_volume", "How many knee replacements do your surgeons do per year?", True),
        ("asks_for_volume", "How many times a day does Ada Stone take metoprolol?", False),
        ("asks_for_volume", "How many units does Ada Stone drink a week?", False),
        ("asks_for_volume", "How many times has Ada Stone been admitted in the last year?", False),
        ("asks_for_charges", "How much was the TV rental by the bed when Ada Stone was in?", True),
        ("asks_for_charges", "What was the bill for Ada Stone's stay?", True),
        (
            "asks_for_charges",
            "Can you say me what is the diagnosis of Bill Pugh when leaving from the hospital?",
            False,
        ),
        ("asks_for_charges", "How much does Ada Stone drink a week?", False),
        (
            "asks_general_advice",
            "Is it safe for someone with COPD to run a solid-fuel stove in a narrowboat cabin overnight?",
            True,
        ),
        (
            "asks_general_advice",
            "How soon after a hernia repair can a fisherman usually go back to hauling creels?",
            True,
        ),
        ("asks_general_advice", "How long after a new tattoo should someone wait before an MRI scan?", True),
        ("asks_general_advice", "Is it true that singing in a choir helps the lungs recover after an infection?", True),
        ("asks_general_advice", "Which patients with COPD were admitted in winter?", False),
        ("asks_general_advice", "Is it safe for Ada Stone to fly after her operation?", False),
        ("asks_general_advice", "Can anyone with a penicillin allergy be found in the records?", False),
        (
            "asks_general_advice",
            "is it bad for the lungs to play a brass instrument outside in freezing weather?",
            True,
        ),
        ("asks_general_advice", "Is it ok for Ada Stone to play a brass instrument?", False),
    ],
)
def test_questions_no_patients_record_answers_are_told_apart(asks: str, question: str, expected: bool) -> None:
    """What a hospital does in a year, what a stay cost, what is safe for someone unnamed: no record answers them."""
    from clinrag.retrieve import intent

    assert getattr(intent, asks)(question) is expected


def test_the_anaesthetic_a_procedure_was_done_under_is_no_thing_to_find() -> None:
    assert "anaesthetic" not in understand("Ada Stone had something done under the anaesthetic - what was it?").things


def test_gastroscopy_is_the_egd_a_note_records() -> None:
    from clinrag.retrieve.classes import member_words

    assert {"egd", "esophagogastroduodenoscopy"} <= set(member_words("gastroscopy"))


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Oy vey, Ada Stone came home with so many pills. What did the hospital send home?", "discharge_medications"),
        ("the lady wants every time mi abuelita Ada Stone was in the hospital, with the dates", "admissions_summary"),
        ("How many times was Ada Stone by you? Give me the dates from the first one.", "admissions_summary"),
        ("Were any complications or intercurrent events recorded during Ada Stone's hospitalisation?", "complication"),
        # a request asks, a statement before it does not
        (
            "Follow-up request, patient Ada Stone. The reporter describes only 'a kidney operation'. Please provide "
            "the final discharge diagnosis so the event can be coded.",
            "diagnosis",
        ),
        # a terse question of its own asks, the statement before it does not
        ("Ada Stone had the back operation and something went funny. A complication that was?", "complication"),
        # a terse question after a heading leans on the heading for what it asks
        ("night handover - Ada Stone's follow-up: diabetes centre, and when?", "followup"),
    ],
)
def test_requests_terse_questions_and_new_voices_say_what_is_asked(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_a_heading_says_what_a_request_is_for_not_what_it_asks() -> None:
    """ "ICSR follow-up:" and "Case follow-up request 2:" name the report, not the follow-up after discharge: the
    procedure the question goes on to name is what a record must hold."""
    for question in (
        "Case follow-up request 2: please provide the MedDRA preferred term under which Ada Stone's sclerotherapy "
        "was coded in the hospital record.",
        "ICSR follow-up: in the treating team's opinion, was Ada Stone's kyphoplasty causally related to the suspect "
        "product?",
    ):
        understanding = understand(question)
        assert understanding.fact_kind is None
        assert understanding.things & {"sclerotherapy", "kyphoplasty"}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Ada Stone - which tablets did they go home wiv?", "discharge_medications"),
        ("What did the 'ospital discharge 'em on, Ada Stone, gawd help us?", "discharge_medications"),
        ("What tablets was Ada Stone on before she done her hip?", "admission_medications"),
        ("Ada Stone was carted off in the ambulance. What was up wiv 'em when they got there?", "presentation"),
        ("What was wrong wiv Ada Stone when she come in, what was she feelin'?", "presentation"),
        ("Ada Stone, my cousin, was in with the diarrhea. Is anybody staying by her at the house?", "social"),
        ("Was a drug and alcohol screen taken from Ada Stone?", "results"),
        ("Applicant: Stone, Ada. Medicines on leaving hospital, with doses, for panel?", "discharge_medications"),
        ("ada stone tablets before they went in - which ones?", "admission_medications"),
        ("ada stone, every time she was in wi the dates, oldest first", "admissions_summary"),
        ("Ada Stone was in for the alcohol. Went something wrong during that stay?", "complication"),
        ("Ada Stone, August 2022. Which controle did they plan after?", "followup"),
        ("Inoperahan po ba si Ada Stone? Ano po yung ginawa?", "procedure"),
        ("ada stone nagyoyosi pa ba, sabi ng hospital?", "social"),
        ("Umiinom pa ba si Ada Stone? What did the hospital write?", "social"),
        ("ada stone - sino ang kasama sa bahay?", "social"),
        ("Ilang beses na po na-confine si Ada Stone? Pls list all the dates.", "admissions_summary"),
        ("Before Ada Stone was confined, ano po yung maintenance meds?", "admission_medications"),
        ("Before she went in with her belly, what was Ada Stone taking regular?", "admission_medications"),
        ("Please list each time Sister Ada Stone was admitted to your hospital, earliest first.", "admissions_summary"),
        ("Ada Stone has been in your hospital more than once. Can you give me all the dates?", "admissions_summary"),
        ("Mon père Ada Stone went to the urgence in August 2016. Pour quoi exactement?", "presentation"),
        ("ada stone, all the times she was in wiv the dates, oldest first", "admissions_summary"),
        ("Could you list every time Ada Stone was admitted, with the dates, oldest first?", "admissions_summary"),
        ("Can you list when Ada Stone went in each time, first one first?", "admissions_summary"),
        ("How many times have you had Ada Stone in? Can you give me all the dates?", "admissions_summary"),
        ("which ameliyat did they do on Ada Stone? dede keeps asking", "procedure"),
        ("tablets for home for Ada Stone - names and de doses please", "discharge_medications"),
        ("Ada Stone going-home ilaç list with the doses", "discharge_medications"),
        ("Ada Stone - discharge ausadhi with doses, sir", "discharge_medications"),
        ("ada stone regular oshud before they went in?", "admission_medications"),
    ],
)
def test_cockney_cajun_and_plain_wordings_say_what_is_asked(question: str, kind: str) -> None:
    from clinrag.retrieve.spoken import written_form

    assert fact_kind(written_form(question)[0]) == kind


@pytest.mark.parametrize(
    "word",
    ["cousin", "nonc", "abuelita", "tante", "oncle", "abbess", "teta", "matant", "eeddo", "amca", "dede", "seanmhair"],
)
def test_a_word_for_kin_is_no_thing_to_find(word: str) -> None:
    assert not is_thing(word)


@pytest.mark.parametrize("word", ["icu", "intensive"])
def test_intensive_care_is_a_thing_a_record_must_name(word: str) -> None:
    assert is_thing(word)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("After her knee replacement, did the hospital write down whether she can actually swim?", {"swim"}),
        ("Did the nurses note that he wears hearing aids?", {"wear", "hearing", "aids"}),
        ("Did the hospital record whether she smokes?", set()),  # a kind of fact: the reading weighs it
        ("did the hospital write down that I live on my own or with somebody?", set()),
        ("Did they write down that she's allergic to penicillin?", set()),  # an allergy: a kind of fact
        ("After his stay, did the hospital record his height? I need it for the rope.", {"height"}),
        ("Did the hospital record his smoking history?", set()),
        ("Did the hospital record her emergency contact's name and phone number?", {"emergency", "contact", "phone"}),
        ("Did the hospital record which lunar year she was born in?", {"lunar", "born"}),  # "which" after the verb
        ("Did the hospital note when he last had his eyes tested?", {"eyes", "tested"}),
        ("Did they record whether he's left- or right-handed?", {"left", "right-handed"}),  # "left": no discharge
        ("Did the hospital note when she was admitted?", set()),  # when she was admitted: no thing recorded
        ("Which of my usual tablets did you write down when I came in?", set()),
        ("Did they record Ada Stone's height?", {"ada", "stone", "height"}),  # less the names, when given
        ("After his back operation, did the hospital record when he last had a tetanus jab?", {"tetanus", "jab"}),
        (
            "Did they write down the name of his dance partner as someone to ring?",
            {"dance", "partner", "ring", "someone"},
        ),
        (
            "Did the hospital write down where he caught it - from someone at work, maybe?",
            {"caught", "someone", "work"},
        ),
        ("Did they document where she lives?", set()),  # where she lives: a kind of fact
    ],
)
def test_what_a_question_asks_the_record_to_say_is_what_a_record_must_name(question: str, words: set[str]) -> None:
    from clinrag.retrieve.recorded import recorded_attribute

    assert recorded_attribute(question) == words


def test_whoever_a_name_is_asked_of_is_found() -> None:
    assert name_owners("Ada Stone says the porter who took her to theatre knew her. What was the porter's name?") == {
        "porter"
    }
    assert name_owners("What is the name of the lady in the next bed?") == {"lady"}
    assert name_owners("What was the name of the operation?") == frozenset()  # a kind of fact, not a person
    assert name_owners("What is Ada Stone's name on the ward list?") == frozenset()  # the patient's own


def test_a_question_inside_a_statement_says_what_is_asked() -> None:
    """ "I need to know what procedure was done … What was it?": the embedded question, not what she was told."""
    question = (
        "She's said it was 'women's stuff' and I won't pry, but I need to know what procedure was done before "
        "I put her back on the rota. What was it?"
    )
    assert kind_candidates(question)[0] == "procedure"


def test_what_a_test_is_asked_to_have_shown_is_found() -> None:
    assert shown_things("Did the scan show boy or girl? Mum is knitting.") == {"boy", "girl"}
    assert shown_things("Did the CT show a bleed?") == {"bleed"}
    assert shown_things("Did his bloods show anything?") == frozenset()  # what it showed at all


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What did the doctors say Ada Stone had when they let her go?", "diagnosis"),
        ("Who's home with Ada Stone, or are they on their own?", "social"),
        ("What medicines with doses she got for going home that time?", "discharge_medications"),
    ],
)
def test_this_rounds_wordings_ask_for_their_kind(question: str, kind: str) -> None:
    assert fact_kind(question) == kind


def test_whoever_wants_the_answer_is_no_kind_asked() -> None:
    """ "The surgery wants to know": the GP's surgery asks; no question about surgery."""
    read = understand("Did Ada Stone get her flu jab, and in which arm? The surgery wants to know if she needs one.")
    assert read.fact_kind is None
    assert "jab" in read.things


def test_a_length_in_centimetres_is_a_size_asked_for() -> None:
    question = "How long is the scar, in centimetres? She wonders whether it will show."
    assert asks_for_quantity(question)
    assert counted_things(question) == {"scar"}


def test_her_name_after_someone_else_is_theirs() -> None:
    question = "One night nurse was very kind to Ada Stone, a Nigerian lady. Abeg what is her name?"
    assert name_owners(question) == {"lady"}


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Can anastrozole slow a fielder's reactions at first slip? Ada Stone is on it.", True),
        ("Can glucosamine slow a fielder's reactions? Ada Stone is on it.", True),  # no drug name, no one's name
        ("Abeg, can Ada Stone drink zobo every day while taking glucosamine?", True),
        ("Can Ada Stone have penicillin?", False),  # her allergies answer it
        ("can ada stone have IV contrast?", False),
        ("Could metformin have caused Ada Stone's lactic acidosis?", False),  # what her record says caused it
    ],
)
def test_what_a_medicine_does_in_general_is_told_apart(question: str, asked: bool) -> None:
    assert asks_drug_effect(question) is asked


def test_a_devices_make_or_serial_number_is_asked_for() -> None:
    assert "serial" in device_identity_asked("What make of hip did they put in, and the serial number?")
    assert device_identity_asked("Which hip operation did she have?") == frozenset()


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What symptoms was Ada Stone admitted with? I only wrote 'unwell'.", "presentation"),
        ("Which medicines did the hospital give Ada Stone to take at home?", "discharge_medications"),
        ("Which medicines does Ada Stone take at home?", "admission_medications"),
    ],
)
def test_the_noun_a_question_word_opens_on_says_the_kind(question: str, kind: str) -> None:
    assert kind_candidates(question)[0] == kind
    assert len(kind_candidates(question)) == 1


def test_what_the_ward_gave_her_is_a_thing_to_find() -> None:
    assert provided_things("Did the ward give her the vegetarian meals she asked for?") == {"vegetarian", "meal"}


def test_an_mri_scan_of_the_knee_names_its_site() -> None:
    from clinrag.retrieve.head import examined_sites

    assert [thing.word for thing in examined_sites("Did they do an MRI scan of the knee first?")] == ["mri", "knee"]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Crossing notebook - Ada Stone - what tablets home with, and how much?", "discharge_medications"),
        ("ada stone - what was the actual problem when they turned up at a&e?", "presentation"),
    ],
)
def test_the_last_blind_rounds_wordings_ask_for_their_kind(question: str, kind: str) -> None:
    assert understand(question).fact_kind == kind


def test_the_askers_own_book_is_who_asks() -> None:
    """ "Crossing notebook - …", "Client card, Stone, Ada: …": the heading is the asker's, nothing to find."""
    assert understand("Crossing notebook - Ada Stone - what tablets home with?").things == frozenset()
    assert "crossing" not in understand("Client card, Stone, Ada: any allergies?").things
