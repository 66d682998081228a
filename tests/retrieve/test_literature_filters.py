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
        "publication type review: no citation of that type in this library, not applied",
        "author Smyth: no citation in this library, not applied",
        "MeSH Gout: no citation indexed with it in this library, not applied",
    )


def test_an_author_named_twice_is_said_once() -> None:
    assert read_literature_filters("trials by Smith et al.", VOCABULARY).notes == (
        "publication type randomized controlled trial: applied",
        "author Smith: applied",
    )


def test_the_modules_examples_hold() -> None:
    outcome = doctest.testmod(literature_filters)
    assert outcome.attempted > 0
    assert outcome.failed == 0
