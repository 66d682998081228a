"""Which kinds of source a question asks: the records (notes and EHR rows of patients), the literature (a library's
citations and guidelines), or both — read by rules from the question's words, before anything is searched.

A federation root asks a library only when the question asks what the evidence says ("trials", "guidelines",
"Smith et al.", "what does the literature say"), and the hospitals only when it asks about patients, so that a
patient's answer never quotes an abstract and a question about trials never lists patients. A question that asks
both ("What do the guidelines recommend for Ada Stone's atrial fibrillation?") goes to both, and its answer labels
each part by the kind of source it cites; one that names no source goes to the records.

Example:
    >>> sorted(map(str, sources_asked("What do trials say about apixaban in atrial fibrillation?")))
    ['literature']
    >>> sorted(map(str, sources_asked("Who was treated for a stroke?")))
    ['records']
    >>> sorted(map(str, sources_asked("What is the edoxaban dose in atrial fibrillation?")))
    ['records']
    >>> sorted(map(str, sources_asked("What do the guidelines recommend for our patients with atrial fibrillation?")))
    ['literature', 'records']
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final


class SourceFamily(StrEnum):
    """The two kinds of source a node may hold: a hospital's records, or a library's literature."""

    RECORDS = "records"
    LITERATURE = "literature"


LITERATURE_KINDS: Final = frozenset({"abstract", "guideline"})
"""`types.SourceKind` values of the literature; every other kind (notes, rows, a calculator's result computed from
them) is of the records."""

_LITERATURE = re.compile(
    r"\b(?:evidence|literature|trials?|studies|(?:a|the|one) study (?:of|by|in|showed|found)|meta-?analys[ie]s|"
    r"systematic reviews?|guidelines?|recommend(?:s|ed|ation|ations)?|published|publications?|pubmed|pmid|papers?|"
    r"articles?|journals?|abstracts?|randomi[sz]ed|cohort studies|et al\b|authors?)",
    re.IGNORECASE,
)
"""Words that ask what the published evidence or a guideline says."""

_RECORDS = re.compile(
    r"\b(?:patients?|who|whom|whose|our|admitted|admissions?|discharged?|his|her|he|she|him|hospitali[sz]ed|"
    r"hospitals?|records?|notes?|chart|stays?|wards?|mrn|subject)\b|\b[A-Z][a-z]+(?:'s|’s)\s",
    re.IGNORECASE,
)
"""Words that ask about patients, one or several, or a possessive name ("Ada Stone's")."""

_CAPITALISED_RUN = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b(?! et al)")
"""Two or more capitalised words inside the question: a person's name ("Did Ada Stone have a sleep study?") unless
one of them names an organisation or a publication (`_NOT_A_PERSON`)."""

_NOT_A_PERSON: Final = frozenset(
    [
        "society",
        "association",
        "college",
        "foundation",
        "agency",
        "institute",
        "journal",
        "group",
        "trial",
        "trials",
        "study",
        "network",
        "collaboration",
        "council",
        "committee",
        "federation",
        "academy",
        "organization",
        "organisation",
        "guideline",
        "guidelines",
    ]
)

_LITERATURE_TERMS: Final = re.compile(r"\b(?:cohort stud|case report|case series)", re.IGNORECASE)
"""Study designs whose words are also record words ("cohort", "case")."""


def asks_literature(question: str) -> bool:
    """Whether ``question`` asks what the literature or a guideline says.

    Example:
        >>> asks_literature("Apixaban versus warfarin, Smith et al.?"), asks_literature("What was Ada's dose?")
        (True, False)
    """
    return _LITERATURE.search(question) is not None or _LITERATURE_TERMS.search(question) is not None


def asks_records(question: str) -> bool:
    """Whether ``question`` asks about patients (one by name or pronoun, or a group of them).

    Example:
        >>> asks_records("Which patients had a stroke?"), asks_records("Do trials favour apixaban?")
        (True, False)
    """
    if _RECORDS.search(question) is not None:
        return True
    return any(
        not {word.lower() for word in run.group().split()} & _NOT_A_PERSON
        for run in _CAPITALISED_RUN.finditer(question)
    )


def sources_asked(question: str) -> frozenset[SourceFamily]:
    """The kinds of source that answer ``question``: the literature when it asks for evidence by name, the records
    when it asks about patients or does not name the literature ("weakness after a stroke", "What is the edoxaban
    dose in atrial fibrillation?": the records first, as the hospitals' users expect; "What do the guidelines say
    about the edoxaban dose?" asks the library)."""
    literature = asks_literature(question)
    records = asks_records(question) or not literature
    return frozenset(
        family for family, asked in ((SourceFamily.RECORDS, records), (SourceFamily.LITERATURE, literature)) if asked
    )


def family_of(source_kind: str) -> SourceFamily:
    """The family of a chunk's `types.SourceKind` value.

    Example:
        >>> str(family_of("abstract")), str(family_of("note"))
        ('literature', 'records')
    """
    return SourceFamily.LITERATURE if source_kind in LITERATURE_KINDS else SourceFamily.RECORDS
