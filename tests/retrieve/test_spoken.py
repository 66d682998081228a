"""Spoken and regional English is read as the standard words it stands for, and nothing else is changed: names,
clinical words and drugs stay as written (issue 14: a family of questions in Scots abstained because its words
were taken for things no record names)."""

from __future__ import annotations

import pytest

from clinrag.retrieve.intent import fact_kind
from clinrag.retrieve.query import understand
from clinrag.retrieve.spoken import spoken_words, written_form


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Whit wis wrang wi Ada Stone?", "What was wrong with Ada Stone?"),
        ("did she hae onythin done tae her?", "did she have anything done to her?"),
        ("who's she stayin wi at hame?", "who's she staying with at home?"),
        ("what happened to the operashun", "what happened to the operation"),
        ("any complicashun b4 she went home", "any complication before she went home"),
        ("y'all gonna tell me what meds he ain't taking", "you going to tell me what meds he is not taking"),
        ("wah tablet dem give her fi tek a yard?", "what tablet they give her for take at home?"),
        ("Is she on it? Di new doctor a ask", "Is she on it? The new doctor a ask"),  # a sentence's first word
    ],
)
def test_spoken_words_are_read_as_standard_english(question: str, read: str) -> None:
    assert written_form(question)[0] == read


@pytest.mark.parametrize(
    "text",
    [
        "Ada Stone had a frenotomy and a septoplasty",  # clinical words English hardly knows
        "protein, insulin, aspirin and heparin within the margin",  # words ending in -in that are words
        "darin hardin and erin robin",  # names typed in lower case
        "Admitted: Whit Stone and Wis Brown",  # a capitalised word mid-sentence may be a name
        "urine output was low",
    ],
)
def test_names_clinical_words_and_known_words_are_left_alone(text: str) -> None:
    assert written_form(text) == (text, ())


def test_the_table_is_read_from_data_and_reads_each_word_once() -> None:
    table = spoken_words()
    assert table["afore"] == "before"
    assert table["arvo"] == "afternoon"
    assert not set(table) & set(table.values())  # no word is read twice over


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Whit did they say wis wrang wi Ada Stone when they let her oot?", "diagnosis"),
        ("Whit wis it that took Ada Stone intae hospital tae begin wi?", "presentation"),
        ("ada stone - whit pills wis she takin afore aw this?", "admission_medications"),
        ("Does Ada Stone bide on her ain or is there somebody in the hoose wi her?", "social"),
        ("who's ada stone stayin wi at hame?", "social"),
        ("What did the doctors say were wrang wi' Ada Stone when she came out?", "diagnosis"),  # the apostrophe's "th"
    ],
)
def test_a_question_in_scots_asks_for_its_kind_and_names_no_thing(question: str, kind: str) -> None:
    reading = understand(question)
    assert reading.fact_kind == kind
    assert not reading.things - {"ada", "stone"}
    assert fact_kind(written_form(question)[0]) == kind


@pytest.mark.parametrize(
    ("question", "read"),
    [
        (
            "Sir Ada Stone was admitted how many times po? Kindly give the dates.",
            "Sir Ada Stone was admitted how many times? Kindly give the dates.",
        ),
        (
            "Good afternoon po. Any complication in the hospital po, ma'am?",
            "Good afternoon. Any complication in the hospital, ma'am?",
        ),
        ("can go home already or not lah?", "can go home already or not?"),
    ],
)
def test_a_particle_closing_a_clause_is_read_as_nothing(question: str, read: str) -> None:
    assert written_form(question)[0] == read


@pytest.mark.parametrize("question", ["was she switched to PO cipro?", "po cipro or iv at discharge?"])
def test_po_by_mouth_is_left_alone(question: str) -> None:
    assert written_form(question) == (question, ())


def test_a_particle_names_no_thing_to_find() -> None:
    assert "po" not in understand("Ada Stone was admitted how many times po?").things


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Pole for disturbing. Our shosho was admitted.", "Sorry for disturbing. Our grandmother was admitted."),
        ("Which medicaments must she take now?", "Which medications must she take now?"),
        ("Who's Ada Stone livin' with now?", "Who's Ada Stone living with now?"),
        (
            "what kine sickness Ada Stone had dat time? da whole ohana like know",
            "what kind sickness Ada Stone had that time? the whole family like know",
        ),
        ("Mudder can't make head nor tail of it.", "Mudder can't make sense of it."),
        ("what was Ada Stone taking before going in b'y?", "what was Ada Stone taking before going in?"),
        ("were it t'keyhole or did they open him up?", "were it the keyhole or did they open him up?"),
        ("What surgery did Ada Stone have at yinz's hospital?", "What surgery did Ada Stone have at your hospital?"),
        (
            "what meds did they send Ada Stone hyem with? gannin to the chemist",
            "what meds did they send Ada Stone home with? going to the chemist",
        ),
        ("Ada Stone still on the tabs?", "Ada Stone still smoking?"),
        (
            "what tablets was me arl fella Ada Stone taking before the ozzy? he got took in Monday",
            "what tablets was me old fella Ada Stone taking before the hospital? he got taken in Monday",
        ),
        ("Yow lot asked me mom and she cor remember summat", "You lot asked me mom and she can't remember something"),
        ("eish, my tannie and my athai", "oh, my aunt and my aunt"),
        ("Oy vey, my tante is farklempt", "Oh dear, my aunt is upset"),
        (
            "every time mi abuelita was in, first one first porfa",
            "every time mi grandmother was in, first one first please",
        ),
        (
            "Our Hausarzt has nothing in the Entlassbrief. Hausarzt asks.",
            "Our family doctor has nothing in the discharge letter. Family doctor asks.",
        ),
        ("ilang beses na-confine, yung pinaka-una first", "how many times admitted, the earliest first"),
        ("Who does he live with onshore?", "Who does he live with at home?"),
        ("my co-brother asks", "my brother-in-law asks"),
        ("remédios for home, por favor. When is the retorno?", "medicines for home, please. When is the follow-up?"),
        ("Tanpri, which renmèd?", "Please, which medicines?"),
        ("What were she poorly wi' when she got there?", "What were she poorly with when she got there?"),
        ("an operation for his waterworks; his usual yeuk", "an operation for his urinary; his usual medicines"),
        ("did onything geng wrang while he wis in?", "did anything go wrong while he was in?"),  # Shetland
        ("when da ambulance cam oot tae da hoose", "when the ambulance came out to the house"),
        ("Fit pills is she tae tak noo, and foo muckle o each?", "What pills is she to take now, and how much o each?"),
        ("fit wis wrang wi her fan she cam in?", "what was wrong with her when she came in?"),  # Doric
        ("Fa dis she bide wi? It's been near a fortnicht.", "Who dis she live with? It's been near a fortnight."),
        ("Is he fit to drive? A fit note?", "Is he fit to drive? A fit note?"),  # English
        ("and Tinā wants to tell the aiga in Apia", "and mother wants to tell the family in Apia"),  # Samoan
        ("an op for a rupture in his groin", "an op for a hernia in his groin"),  # an old lay word
        ("friend of my teściowa. Proszę, which tablets?", "friend of my mother-in-law. Please, which tablets?"),
        ("nani ji says theek hai, acha", "grandmother says okay, okay"),  # Punjabi
    ],
)
def test_regional_words_are_read_as_standard_english(question: str, read: str) -> None:
    """East African, French-English, Hawaiian Pidgin, Newfoundland, Yorkshire, Pittsburgh, Geordie, Scouse, Black
    Country, South African and Indian words, German nouns as German capitalises them, and a dropped g marked by an
    apostrophe."""
    assert written_form(question)[0] == read


def test_a_capitalised_word_the_file_does_not_write_capitalised_is_left() -> None:
    """Only the German nouns the file writes with a capital are read mid-sentence; a capitalised "Yow" or "Summat"
    mid-sentence may be a name."""
    assert written_form("Ask Summat Stone about it.")[0] == "Ask Summat Stone about it."
