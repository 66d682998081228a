"""Filters a literature question states (issue 20): authors, journals, publication types and MeSH terms read by
rules, checked against the library, dropped and said when the library has none."""

from __future__ import annotations

import doctest

import pytest

from clinrag.retrieve import literature_filters
from clinrag.retrieve.literature_filters import LibraryVocabulary, read_literature_filters

VOCABULARY = LibraryVocabulary(
    authors={"smith": ("Smith AB", "Smith J"), "o'neil": ("O'Neil P",), "van der berg": ("van der Berg K",)},
    journals={
        "lancet (london, england)": "Lancet (London, England)",
        "lancet": "Lancet (London, England)",
        "jama": "JAMA",
        "chest": "Chest",
        "n engl j med": "The New England Journal of Medicine",
    },
    publication_types=("Journal Article", "Meta-Analysis", "Randomized Controlled Trial"),
    mesh={"sepsis": "Sepsis", "atrial fibrillation": "Atrial Fibrillation"},
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did Smith et al. find about apixaban?", {"authors": ("Smith AB", "Smith J")}),
        ("Studies by O'Neil on sepsis", {"authors": ("O'Neil P",)}),
        ("Smith and colleagues on warfarin", {"authors": ("Smith AB", "Smith J")}),
        ("Randomised controlled trials of apixaban", {"publication_types": ("Randomized Controlled Trial",)}),
        ("any RCTs of apixaban?", {"publication_types": ("Randomized Controlled Trial",)}),
        ("meta-analyses of statins", {"publication_types": ("Meta-Analysis",)}),
        ("What was published in the Lancet about sepsis?", {"journals": ("Lancet (London, England)",)}),
        ("What does JAMA say about sepsis?", {"journals": ("JAMA",)}),
        ("apixaban results in NEJM", {"journals": ("The New England Journal of Medicine",)}),
        ("abstracts with MeSH Sepsis since 2020", {"mesh": ("Sepsis",)}),
        ("Does apixaban lower stroke in atrial fibrillation?", {}),
        ("chest pain and jama-like words", {}),
    ],
)
def test_the_filters_a_question_states(question: str, expected: dict[str, tuple[str, ...]]) -> None:
    assert read_literature_filters(question, VOCABULARY).filters == expected


def test_what_the_library_lacks_is_dropped_and_said() -> None:
    found = read_literature_filters("Reviews by Smyth et al. with MeSH Gout", VOCABULARY)
    assert found.filters == {}
    assert found.notes == (
        "filter by publication type review: no citation of that type in this library, not applied",
        "filter by author Smyth: no citation in this library, not applied",
        "filter by MeSH Gout: no citation indexed with it in this library, not applied",
    )


def test_an_author_named_twice_is_said_once() -> None:
    assert read_literature_filters("trials by Smith et al.", VOCABULARY).notes == (
        "filter by publication type randomized controlled trial: applied",
        "filter by author Smith: applied",
    )


def test_the_modules_examples_hold() -> None:
    outcome = doctest.testmod(literature_filters)
    assert outcome.attempted > 0
    assert outcome.failed == 0


SPELLING = LibraryVocabulary(
    authors={"smith": ("Smith J",)},
    journals={},
    publication_types=(),
    mesh={},
    words={"apixaban": 30, "bleeding": 80, "fibrillation": 50, "warfarin": 40, "rivaroxaban": 20},
)


@pytest.mark.parametrize(
    ("question", "read", "corrections"),
    [
        (
            "Did apixban lower bleding?",
            "Did apixaban lower bleeding?",
            (("apixban", "apixaban"), ("bleding", "bleeding")),
        ),
        (
            "Warfrin in atrial fibrilation",
            "Warfarin in atrial fibrillation",
            (("Warfrin", "warfarin"), ("fibrilation", "fibrillation")),
        ),
        ("Is *apixban* a typo we keep?", "Is apixban a typo we keep?", ()),  # asterisks: kept as written
        ("Trials by Smiht on warfarin", "Trials by Smiht on warfarin", ()),  # capitalised mid-sentence: a name
        ("Does heparin lower bleeding?", "Does heparin lower bleeding?", ()),  # a drug name, not the library's: kept
        ("What did the study show?", "What did the study show?", ()),  # English words are never changed
    ],
)
def test_misspellings_are_read_as_the_librarys_words(
    question: str, read: str, corrections: tuple[tuple[str, str], ...]
) -> None:
    assert literature_filters.correct_library_spelling(question, SPELLING) == (read, corrections)


@pytest.mark.parametrize(
    ("question", "guidelines", "citations", "filtered", "note"),
    [
        ("What do the guidelines recommend for apixaban?", 2, 300, ("guideline",), "guidelines: applied"),
        ("What did trials find about apixaban?", 2, 300, ("abstract",), "published studies: applied"),
        ("Do trials and guidelines agree on apixaban?", 2, 300, None, None),
        ("Does apixaban lower stroke?", 2, 300, None, None),
        ("What do the guidelines recommend for apixaban?", 0, 300, None, "no guideline in this library, not applied"),
        ("What did trials find about apixaban?", 2, 0, None, "no citation in this library, not applied"),
        ("What did trials find about apixaban?", 0, 300, None, None),  # one kind of source: nothing to narrow
        ("What do the guidelines recommend for apixaban?", None, None, None, None),  # not counted: not filtered
    ],
)
def test_the_kind_of_source_a_question_names(
    question: str, guidelines: int | None, citations: int | None, filtered: tuple[str, ...] | None, note: str | None
) -> None:
    vocabulary = LibraryVocabulary(
        authors={}, journals={}, publication_types=(), mesh={}, citations=citations, guidelines=guidelines
    )
    found = read_literature_filters(question, vocabulary)
    assert found.filters.get("source_kinds") == filtered
    said = [text for text in found.notes if text.startswith("filter by source")]
    if note is None:
        assert said == []
    else:
        assert len(said) == 1, said
        assert said[0].endswith(note)
