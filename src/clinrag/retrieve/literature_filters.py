"""Filters a literature question states, read by rules and checked against the library: authors ("by
Smith", "Smith et al.", "Smith and colleagues"), journals ("in the Lancet", "published in Chest", NEJM), publication
types ("randomised trials", "meta-analyses", "systematic reviews", "cohort studies") and MeSH terms written as such
("MeSH Sepsis"), and — in a library of citations and guidelines — the kind of source when the question names one
("guidelines", or studies: "trials", "papers").
Years and ranges ("since 2020", "between 2015 and 2018") are the date filters every question has; in a library they
are checked against the years its sources were published (`library_dates`). A journal named after a cue ("published
in Nature Medicine", "in the Journal of X") that the library lacks is said, not ignored.

A filter is applied only when the library has it; one that matches nothing here is dropped and said ("no citation
by Smyth in this library"), never applied silently, never invented. The library's vocabulary is the
``library.json`` that `clinrag pubmed ingest` writes beside the chunk store.

Example:
    >>> vocabulary = LibraryVocabulary(authors={"smith": ("Smith J",)}, journals={"lancet": "Lancet"},
    ...                                publication_types=("Randomized Controlled Trial",), mesh={})
    >>> found = read_literature_filters("Randomised trials by Smith et al. in the Lancet?", vocabulary)
    >>> found.filters
    {'publication_types': ('Randomized Controlled Trial',), 'authors': ('Smith J',), 'journals': ('Lancet',)}
    >>> read_literature_filters("Trials by Smyth?", vocabulary).notes[1]
    'filter by author Smyth: no citation in this library, not applied'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Final

from symspellpy import SymSpell, Verbosity

from clinrag.ingest.literature import VOCABULARY_FILE
from clinrag.retrieve.vocabulary import DRUG_WORDS, clinical_words, zipf
from clinrag.types import SearchFilters

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
    words: dict[str, int] = field(default_factory=dict)
    """The library's words (five letters or more) and how often they occur: what misspellings are corrected to."""
    speller: SymSpell | None = field(default=None, compare=False, repr=False)
    """The words' spelling index, built once per loaded library (`load_vocabulary`)."""
    citations: int | None = None
    """How many citations the library holds (None: a library indexed before it was counted)."""
    guidelines: int | None = None
    """How many guidelines it holds (None: not counted)."""
    years: dict[int, int] | None = None
    """The years its citations and guidelines were published, with their counts (None: a library indexed before they
    were counted, whose date filters are applied unchecked)."""


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
        words=dict(data.get("words", {})),
        speller=_speller(data.get("words", {})),
        citations=data.get("citations"),
        guidelines=data.get("guidelines"),
        years={int(year): count for year, count in data["years"].items()} if "years" in data else None,
    )


def read_literature_filters(question: str, vocabulary: LibraryVocabulary) -> LiteratureFilters:
    """The filters ``question`` states (see the module docstring)."""
    filters: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for kind_pattern, kind in _TYPES:
        if kind_pattern.search(question):
            if kind in vocabulary.publication_types:
                filters["publication_types"] = (kind,)
                notes.append(f"filter by publication type {kind.lower()}: applied")
            else:
                notes.append(
                    f"filter by publication type {kind.lower()}: no citation of that type in this library, not applied"
                )
            break
    source = _source_asked(question)
    counts = (vocabulary.guidelines, vocabulary.citations)
    if source is not None and None not in counts:  # a library indexed before it counted them is not filtered
        kind, words, held = source
        asked, other = counts if kind == "guideline" else counts[::-1]
        if not asked:
            notes.append(f"filter by source {words}: no {held} in this library, not applied")
        elif other:  # a library of one kind of source needs no filter to keep to it
            filters["source_kinds"] = (kind,)
            notes.append(f"filter by source {words}: applied")
    authors: list[str] = []
    for pattern in _AUTHOR_PATTERNS:
        for match in pattern.finditer(question):
            surname = match.group(1).strip()
            forms = vocabulary.authors.get(surname.casefold()) or vocabulary.authors.get(surname.split()[-1].casefold())
            if forms:
                authors.extend(forms)
                notes.append(f"filter by author {surname}: applied")
            elif surname.casefold() not in vocabulary.journals:
                notes.append(f"filter by author {surname}: no citation in this library, not applied")
    if authors:
        filters["authors"] = tuple(dict.fromkeys(authors))
    journals = _journals(question, vocabulary)
    if journals:
        filters["journals"] = journals
        notes.append(f"filter by journal {', '.join(journals)}: applied")
    for named in _journals_named(question):
        if not _held(named, vocabulary, journals):
            notes.append(f"filter by journal {named}: no citation in this library, not applied")
    for match in _MESH.finditer(question):
        term = match.group(1).strip()
        descriptor = vocabulary.mesh.get(term.casefold())
        if descriptor:
            filters["mesh"] = (*filters.get("mesh", ()), descriptor)
            notes.append(f"filter by MeSH {descriptor}: applied")
        else:
            notes.append(f"filter by MeSH {term}: no citation indexed with it in this library, not applied")
    return LiteratureFilters(filters, tuple(dict.fromkeys(notes)))  # "by Smith et al.": one author, said once


_GUIDELINE_WORDS: Final = re.compile(r"\b(?:guidelines?|recommendations?)\b", re.I)
_STUDY_WORDS: Final = re.compile(
    r"\b(?:trials?|stud(?:y|ies)|abstracts?|papers?|articles?|publications?|literature|pubmed|meta-?analys[ie]s|"
    r"reviews?|et al)\b",
    re.I,
)


def _source_asked(question: str) -> tuple[str, str, str] | None:
    """The one kind of source the question asks — ``guideline`` when it names guidelines or recommendations and no
    study, ``abstract`` when it names studies and no guideline — with how the note says it and what it counts; None
    when it names both or neither."""
    guidelines, studies = _GUIDELINE_WORDS.search(question), _STUDY_WORDS.search(question)
    if guidelines and not studies:
        return "guideline", "guidelines", "guideline"
    if studies and not guidelines:
        return "abstract", "published studies", "citation"
    return None


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


_CAPITALISED: Final = r"[A-Z][\w'’&-]*\.?"
_TITLE_RUN: Final = rf"{_CAPITALISED}(?:\s+(?:(?:of|and|the|for|in|&)\s+)*{_CAPITALISED})*"
_NAMED_AFTER_PUBLISHED: Final = re.compile(
    rf"\b(?i:published|appeared|reported|printed)\s+(?i:in)\s+(?:(?i:the)\s+)?({_TITLE_RUN})"
)
_NAMED_AFTER_IN: Final = re.compile(rf"\b(?i:in|from)\s+(?:(?i:the)\s+)?({_TITLE_RUN})")
_JOURNAL_WORDS: Final = frozenset(
    [
        "journal",
        "journals",
        "medicine",
        "lancet",
        "nature",
        "science",
        "annals",
        "archives",
        "proceedings",
        "bulletin",
        "reports",
        "letters",
        "review",
        "reviews",
        "research",
        "transactions",
        "acta",
        "bmj",
        "jama",
        "plos",
        "circulation",
        "gazette",
    ]
)
_TRAILING: Final = re.compile(r"(?:\s+(?:of|and|the|for|in|&))+$")


def _journals_named(question: str) -> tuple[str, ...]:
    """Journal names a question states: a capitalised run after "published in" (or appeared, reported, printed in),
    or after "in"/"from" when it holds a word journals are named with ("Journal", "Medicine", "Lancet", "Annals" …)
    — "in Nature Medicine", "published in the Journal of Hypothetical Studies"; "in COPD" names none."""
    named: list[str] = []
    for pattern, needs_word in ((_NAMED_AFTER_PUBLISHED, False), (_NAMED_AFTER_IN, True)):
        for match in pattern.finditer(question):
            run = _TRAILING.sub("", match.group(1)).rstrip(".")
            words = {word.casefold().strip(".") for word in run.split()}
            if needs_word and not words & _JOURNAL_WORDS:
                continue
            if not any(run in earlier or earlier in run for earlier in named):
                named.append(run)
    return tuple(named)


def _held(named: str, vocabulary: LibraryVocabulary, applied: tuple[str, ...]) -> bool:
    """Whether a journal named in the question is one the library holds (and so was applied), by title or
    abbreviation, ignoring case and a leading "the"."""
    folded = _JOURNAL_ALIASES.get(named.casefold(), named.casefold()).removeprefix("the ")
    titles = {title.casefold().removeprefix("the ") for title in applied}
    return any(folded in title or title.split(" (")[0] == folded for title in titles) or any(
        folded == key.split(" (")[0].removeprefix("the ") for key in vocabulary.journals
    )


def library_dates(
    filters: SearchFilters, asked: tuple[datetime | None, datetime | None] | None, vocabulary: LibraryVocabulary
) -> tuple[SearchFilters, tuple[str, ...]]:
    """``filters`` with the question's date range (``asked``: start inclusive, end exclusive) kept when a source of
    the library was published in it and dropped otherwise, and the note saying which. A range set otherwise than by
    the question, or a library whose years were not counted, is left as it is, unsaid.

    Example:
        >>> vocabulary = LibraryVocabulary(authors={}, journals={}, publication_types=(), mesh={},
        ...                                years={2016: 3, 2021: 2})
        >>> since = (datetime(2035, 1, 1), None)
        >>> kept, notes = library_dates(SearchFilters(start=since[0]), since, vocabulary)
        >>> kept.start, notes
        (None, ('filter by year since 2035: no citation in this library, not applied',))
        >>> library_dates(SearchFilters(start=datetime(2020, 1, 1)), (datetime(2020, 1, 1), None), vocabulary)[1]
        ('filter by year since 2020: applied',)
    """
    if asked is None or vocabulary.years is None or (filters.start, filters.end) != asked or asked == (None, None):
        return filters, ()
    start, end = asked
    first = start.year if start is not None else None
    last = (end - timedelta(microseconds=1)).year if end is not None else None
    held = any((first is None or year >= first) and (last is None or year <= last) for year in vocabulary.years)
    words = _range_words(start, end)
    if held:
        return filters, (f"filter by year {words}: applied",)
    dropped = filters.model_copy(update={"start": None, "end": None})
    return dropped, (f"filter by year {words}: no citation in this library, not applied",)


def _range_words(start: datetime | None, end: datetime | None) -> str:
    """ "since 2020", "before 2010", "2016", "2015 to 2018", or ISO dates for a range not made of whole years."""
    whole = all(
        when is None or (when.month, when.day, when.time()) == (1, 1, datetime.min.time()) for when in (start, end)
    )
    if not whole:
        last = (end - timedelta(days=1)).date().isoformat() if end is not None else ""
        return f"{start.date().isoformat() if start is not None else ''} to {last}".strip()
    if end is None:
        return f"since {start.year}" if start is not None else ""
    if start is None:
        return f"before {end.year}"
    if end.year - start.year == 1:
        return str(start.year)
    return f"{start.year} to {end.year - 1}"


def spelling_notes(corrected: str, pairs: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """What the answer says of a question ``corrected`` by `correct_library_spelling`: each word read otherwise
    (``pairs``), then the whole question as read; nothing when no word was.

    Example:
        >>> spelling_notes("Did apixaban work?", (("apixban", "apixaban"),))
        ("spelling: 'apixban' read as 'apixaban'", 'spelling: question read as "Did apixaban work?"')
    """
    if not pairs:
        return ()
    words = tuple(f"spelling: '{written}' read as '{read}'" for written, read in pairs)
    return (*words, f'spelling: question read as "{corrected}"')


_QUESTION_WORD: Final = re.compile(r"\*[^*]+\*|[A-Za-z][A-Za-z-]*[A-Za-z]")


def correct_library_spelling(question: str, vocabulary: LibraryVocabulary) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``question`` with misspelt words corrected to the library's own words, and the ``(written, read as)`` pairs.

    A word is corrected only when it is lower case (a capitalised word mid-sentence may be an author), five letters
    or more, not in *asterisks* (kept as written, asterisks dropped), not a word of the library, of everyday English,
    of the clinical vocabulary or a drug name, and a library word lies within one edit (two for words of eight
    letters or more); the most frequent of the closest wins.

    Example:
        >>> vocabulary = LibraryVocabulary(authors={}, journals={}, publication_types=(), mesh={},
        ...                                words={"apixaban": 12, "bleeding": 40, "fibrillation": 30})
        >>> correct_library_spelling("Did apixban lower bleding in *fibrilation*?", vocabulary)
        ('Did apixaban lower bleeding in fibrilation?', (('apixban', 'apixaban'), ('bleding', 'bleeding')))
    """
    if not vocabulary.words:
        return question, ()
    speller = vocabulary.speller or _speller(vocabulary.words)
    corrections: list[tuple[str, str]] = []

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.startswith("*"):
            return word.strip("*")
        lowered = word.lower()
        opening = not question[: match.start()].strip()
        if len(word) < 5 or not (word.islower() or (opening and word.istitle())) or _known(lowered, vocabulary):
            return word
        found = speller.lookup(lowered, Verbosity.CLOSEST, max_edit_distance=2 if len(word) >= 8 else 1)
        if not found:
            return word
        best = str(max(found, key=lambda s: s.count).term)
        corrections.append((word, best))
        return best.capitalize() if word[0].isupper() else best

    return _QUESTION_WORD.sub(fix, question), tuple(corrections)


def _known(word: str, vocabulary: LibraryVocabulary) -> bool:
    return (
        word in vocabulary.words
        or word in DRUG_WORDS
        or word in clinical_words()
        or zipf(word) > 0.0
        or word in vocabulary.authors
    )


def _speller(words: dict[str, int]) -> SymSpell:
    speller = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
    for word, count in words.items():
        speller.create_dictionary_entry(word, count)
    return speller
