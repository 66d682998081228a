"""Filters a literature question states, read by rules and checked against the library (issue 20): authors ("by
Smith", "Smith et al.", "Smith and colleagues"), journals ("in the Lancet", "published in Chest", NEJM), publication
types ("randomised trials", "meta-analyses", "systematic reviews", "cohort studies") and MeSH terms written as such
("MeSH Sepsis"). Years and ranges ("since 2020", "between 2015 and 2018") are the date filters every question has.

A filter is applied only when the library has it; one that matches nothing here is dropped and said ("no citation
by Smyth in this library"), never applied silently, never invented. The library's vocabulary is the
``library.json`` that `clinrag pubmed ingest` writes beside the chunk store.

Example:
    >>> vocabulary = LibraryVocabulary(authors={"smith": ("Smith J",)}, journals={"lancet": "Lancet"},
    ...                                publication_types=("Randomized Controlled Trial",), mesh={})
    >>> found = read_literature_filters("Randomised trials by Smith et al. in the Lancet?", vocabulary)
    >>> found.filters
    {'publication_types': ('Randomized Controlled Trial',), 'authors': ('Smith J',), 'journals': ('Lancet',)}
    >>> read_literature_filters("Trials by Smyth?", vocabulary).notes
    ('publication type randomized controlled trial: applied', 'author Smyth: no citation in this library, not applied')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final

VOCABULARY_FILE: Final = "library.json"
_AUTHOR_PATTERNS: Final = (
    re.compile(r"\bby\s+(?:Dr\.?\s+)?([A-Z][A-Za-z'’-]+(?:\s+[A-Z][A-Za-z'’-]+)?)"),
    re.compile(r"\b([A-Z][A-Za-z'’-]+)\s+et\s+al\b"),
    re.compile(r"\b([A-Z][A-Za-z'’-]+)\s+and\s+(?:colleagues|co-?workers|coauthors)\b"),
)
_TYPES: Final = (
    (
        re.compile(r"\b(?:randomi[sz]ed(?:\s+controlled)?\s+(?:clinical\s+)?trials?|RCTs?|trials?)\b", re.I),
        "Randomized Controlled Trial",
    ),
    (re.compile(r"\bmeta-?analys[ie]s\b", re.I), "Meta-Analysis"),
    (re.compile(r"\b(?:systematic\s+)?reviews?\b", re.I), "Review"),
    (re.compile(r"\b(?:cohort|observational)\s+stud(?:y|ies)\b", re.I), "Observational Study"),
)
_JOURNAL_CUE: Final = r"\b(?:in|from|published\s+in|appeared\s+in)\s+(?:the\s+)?"
_JOURNAL_ALIASES: Final = {"nejm": "n engl j med", "new england journal": "the new england journal of medicine"}
_MESH: Final = re.compile(r"\bMeSH(?:\s+term)?[:\s]+([A-Za-z][\w ,'-]*?)(?=[?.;]|$|\s+(?:and|in|by|since)\b)")


@dataclass(frozen=True)
class LibraryVocabulary:
    """What a library's citations may be filtered on: authors by folded surname (the forms cited), journal titles and
    abbreviations (folded) → title, publication types, MeSH descriptors (folded → descriptor)."""

    authors: dict[str, tuple[str, ...]]
    journals: dict[str, str]
    publication_types: tuple[str, ...]
    mesh: dict[str, str]


@dataclass(frozen=True)
class LiteratureFilters:
    """The filters read from a question (`SearchFilters` fields → values) and, in words, each applied or dropped."""

    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def load_vocabulary(folder: Path) -> LibraryVocabulary | None:
    """The vocabulary of the library whose chunk store is in ``folder``, or None when it is not a library."""
    path = folder / VOCABULARY_FILE
    if not path.exists():
        return None
    return _load(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=16)
def _load(path: Path, _mtime: int) -> LibraryVocabulary:
    data = json.loads(path.read_text())
    return LibraryVocabulary(
        authors={surname: tuple(sorted(forms)) for surname, forms in data["authors"].items()},
        journals=dict(data["journals"]),
        publication_types=tuple(sorted(data["publication_types"])),
        mesh={descriptor.casefold(): descriptor for descriptor in data["mesh"]},
    )


def read_literature_filters(question: str, vocabulary: LibraryVocabulary) -> LiteratureFilters:
    """The filters ``question`` states (see the module docstring)."""
    filters: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for kind_pattern, kind in _TYPES:
        if kind_pattern.search(question):
            if kind in vocabulary.publication_types:
                filters["publication_types"] = (kind,)
                notes.append(f"publication type {kind.lower()}: applied")
            else:
                notes.append(f"publication type {kind.lower()}: no citation of that type in this library, not applied")
            break
    authors: list[str] = []
    for pattern in _AUTHOR_PATTERNS:
        for match in pattern.finditer(question):
            surname = match.group(1).strip()
            forms = vocabulary.authors.get(surname.casefold()) or vocabulary.authors.get(surname.split()[-1].casefold())
            if forms:
                authors.extend(forms)
                notes.append(f"author {surname}: applied")
            elif surname.casefold() not in vocabulary.journals:
                notes.append(f"author {surname}: no citation in this library, not applied")
    if authors:
        filters["authors"] = tuple(dict.fromkeys(authors))
    journals = _journals(question, vocabulary)
    if journals:
        filters["journals"] = journals
        notes.append(f"journal {', '.join(journals)}: applied")
    for match in _MESH.finditer(question):
        term = match.group(1).strip()
        descriptor = vocabulary.mesh.get(term.casefold())
        if descriptor:
            filters["mesh"] = (*filters.get("mesh", ()), descriptor)
            notes.append(f"MeSH {descriptor}: applied")
        else:
            notes.append(f"MeSH {term}: no citation indexed with it in this library, not applied")
    return LiteratureFilters(filters, tuple(dict.fromkeys(notes)))  # "by Smith et al.": one author, said once


def _journals(question: str, vocabulary: LibraryVocabulary) -> tuple[str, ...]:
    folded = question.casefold()
    for alias, name in _JOURNAL_ALIASES.items():
        folded = re.sub(rf"\b{alias}\b", name, folded)
    found = []
    for key, title in sorted(vocabulary.journals.items(), key=lambda item: -len(item[0])):
        short = key.split(" (")[0]  # "lancet (london, england)" is written "the Lancet"
        if len(short) < 3 or title in found:
            continue
        cued = re.search(_JOURNAL_CUE + re.escape(short) + r"\b", folded)
        acronym = short.isalpha() and len(short) <= 4 and re.search(rf"\b{re.escape(short.upper())}\b", question)
        if cued or acronym:
            found.append(title)
    return tuple(found)
