"""Filters that match nothing in a library are dropped and said (issue 20): a year or range no citation or
guideline was published in, and a journal the question names that the library does not hold; the corrected question
is said whole beside the words read otherwise."""

from __future__ import annotations

from datetime import datetime

import pytest

from clinrag.federation.protocol import reply_notes
from clinrag.retrieve.literature_filters import (
    LibraryVocabulary,
    library_dates,
    read_literature_filters,
    spelling_notes,
)
from clinrag.types import SearchFilters

VOCABULARY = LibraryVocabulary(
    authors={"smith": ("Smith J",)},
    journals={
        "lancet (london, england)": "Lancet (London, England)",
        "lancet": "Lancet (London, England)",
        "chest": "Chest",
        "n engl j med": "The New England Journal of Medicine",
        "journal of hospital medicine": "Journal of Hospital Medicine",
    },
    publication_types=("Randomized Controlled Trial",),
    mesh={},
    years={2003: 4, 2010: 2, 2016: 5, 2024: 1},
)


def _range(start: int | None, end: int | None) -> tuple[datetime | None, datetime | None]:
    return (datetime(start, 1, 1) if start else None, datetime(end, 1, 1) if end else None)


@pytest.mark.parametrize(
    ("asked", "kept", "note"),
    [
        (_range(2035, None), False, "filter by year since 2035: no citation in this library, not applied"),
        (_range(2020, None), True, "filter by year since 2020: applied"),
        (_range(2011, 2016), False, "filter by year 2011 to 2015: no citation in this library, not applied"),
        (_range(2015, 2019), True, "filter by year 2015 to 2018: applied"),
        (_range(2016, 2017), True, "filter by year 2016: applied"),
        (_range(2017, 2018), False, "filter by year 2017: no citation in this library, not applied"),
        (_range(None, 2003), False, "filter by year before 2003: no citation in this library, not applied"),
        (_range(None, 2004), True, "filter by year before 2004: applied"),
        (
            (datetime(2016, 3, 1), datetime(2016, 7, 1)),
            True,
            "filter by year 2016-03-01 to 2016-06-30: applied",
        ),
    ],
)
def test_a_year_range_no_citation_has_is_dropped_and_said(
    asked: tuple[datetime | None, datetime | None], kept: bool, note: str
) -> None:
    filters = SearchFilters(start=asked[0], end=asked[1], authors=("Smith J",))
    result, notes = library_dates(filters, asked, VOCABULARY)
    assert notes == (note,)
    assert result == (filters if kept else SearchFilters(authors=("Smith J",)))


def test_a_range_not_from_the_question_or_an_uncounted_library_is_left_alone() -> None:
    given = SearchFilters(start=datetime(2035, 1, 1))
    assert library_dates(given, None, VOCABULARY) == (given, ())  # set by the caller, not read from the question
    assert library_dates(given, _range(2030, None), VOCABULARY) == (given, ())  # the caller's, not the question's
    old = LibraryVocabulary(authors={}, journals={}, publication_types=(), mesh={})  # library.json without years
    assert library_dates(given, _range(2035, None), old) == (given, ())


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("What did trials in Nature Medicine find about apixaban?", "filter by journal Nature Medicine"),
        (
            "Was anything published in the Journal of Hypothetical Studies on sepsis?",
            "filter by journal Journal of Hypothetical Studies",
        ),
        ("studies of warfarin published in JAMA since 2016", "filter by journal JAMA"),
        ("Sepsis trials from the Annals of Internal Medicine", "filter by journal Annals of Internal Medicine"),
        ("In the BMJ, what was found about statins?", "filter by journal BMJ"),
    ],
)
def test_a_journal_the_library_lacks_is_said(question: str, note: str) -> None:
    found = read_literature_filters(question, VOCABULARY)
    assert "journals" not in found.filters
    assert f"{note}: no citation in this library, not applied" in found.notes


@pytest.mark.parametrize(
    ("question", "journal"),
    [
        ("What was published in the Lancet about sepsis?", "Lancet (London, England)"),
        ("apixaban trials published in Chest in 2016", "Chest"),
        ("warfarin results in NEJM", "The New England Journal of Medicine"),
        ("Anything in the Journal of Hospital Medicine on delirium?", "Journal of Hospital Medicine"),
    ],
)
def test_a_journal_the_library_holds_is_applied_and_not_said_missing(question: str, journal: str) -> None:
    found = read_literature_filters(question, VOCABULARY)
    assert found.filters["journals"] == (journal,)
    assert not [note for note in found.notes if "journal" in note and "not applied" in note], found.notes


@pytest.mark.parametrize(
    "question",
    [
        "Does apixaban lower stroke in COPD or in Atrial Fibrillation?",
        "What happened in Hospital B?",
        "Trials by Smith et al. in 2016",
        "Was it published in 2020?",
    ],
)
def test_no_journal_is_read_where_none_is_named(question: str) -> None:
    assert not [note for note in read_literature_filters(question, VOCABULARY).notes if "journal" in note]


def test_the_corrected_question_is_said_whole_and_travels() -> None:
    notes = spelling_notes("Did apixaban lower major bleeding?", (("apixban", "apixaban"), ("bleding", "bleeding")))
    assert notes == (
        "spelling: 'apixban' read as 'apixaban'",
        "spelling: 'bleding' read as 'bleeding'",
        'spelling: question read as "Did apixaban lower major bleeding?"',
    )
    assert reply_notes(notes) == list(notes)  # a node's reply carries it over the federation
    assert spelling_notes("Did apixaban work?", ()) == ()  # nothing corrected, nothing said
    assert reply_notes(['spelling: question read as "x"\nAda Stone has AF']) == []
