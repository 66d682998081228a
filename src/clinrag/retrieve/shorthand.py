"""Shorthand clinicians type in questions for the kind of information they want ("presenting sx", "what op",
"PTA meds", "f/u appts", "prior admits"), read as the words it stands for before the question's kind of fact is
read. Unlike :mod:`clinrag.index.abbreviations` (clinical terms, expanded for BM25 on both questions and notes),
these words name no clinical thing: left as written, a question's "sx" or "appt" would be a thing no record spells,
and the answer would abstain.

Example:
    >>> expand_shorthand("presenting sx for Ada Stone? PTA list?")
    ('presenting symptoms for Ada Stone? prior to admission list?', (('sx', 'symptoms'), ('PTA', 'prior to admission')))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

QUESTION_SHORTHAND: Final[Mapping[str, str]] = MappingProxyType(
    {
        "sx": "symptoms",
        "op": "operation",
        "ops": "operations",
        "pta": "prior to admission",
        "appt": "appointment",
        "appts": "appointments",
        "admits": "admissions",
        "readmits": "readmissions",
        "rx": "prescriptions",
        "tx": "treatment",
        "hx": "history",
        "pmh": "past medical history",
        "shx": "social history",
        "fhx": "family history",
        "dx": "diagnosis",
        "ddx": "differential diagnosis",
        "f/u": "follow-up",
        "fu": "follow-up",
        "d/c'd": "discharged",
        "d/c'ed": "discharged",
        "dc'd": "discharged",
        "d/c": "discharge",
        "dc": "discharge",
        "c/o": "complaining of",
        "s/p": "status post",
        "tta": "discharge medications",  # "to take away" (British): what a patient goes home with
        "ttas": "discharge medications",
        "tto": "discharge medications",  # "to take out"
        "ttos": "discharge medications",
        "meds": "medications",
        "med": "medication",
        "w/": "with",
        "pt": "patient",
        "pts": "patients",
        "poss": "possible",  # "in plain english if poss"
        "units of blood": "units of blood transfused",  # a plain phrase for what a record calls a transfusion
        "wat": "what",
        "wot": "what",
        "bc": "because",
        "b/c": "because",
        "resp": "respiratory",
        "postop": "postoperative",
        "post-op": "postoperative",
        "preop": "preoperative",
        "pre-op": "preoperative",
        "hac": "hospital-acquired complication",  # the quality team's term
        "hacs": "hospital-acquired complications",
        "living will": "advance directive",  # a document, not where the patient lives
        "theatre": "operating theatre",
        "theater": "operating theater",
    }
)
"""Shorthand (matched as a whole word, in any case) and what it stands for in a question."""

_PATTERN: Final = re.compile(
    r"(?<![\w/-])(?:"
    + "|".join(re.escape(word) for word in sorted(QUESTION_SHORTHAND, key=len, reverse=True))
    + r")(?![\w/-])",
    re.IGNORECASE,
)
_CAPITALS_MEAN_OTHERWISE: Final = frozenset({"med", "pt", "pts", "tx", "dc"})
"""In capitals these are other things: morphine equivalent dose, prothrombin time, transplant, direct current."""


def expand_shorthand(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with question shorthand replaced by the words it stands for, and the ``(written, read as)`` pairs.

    "MED", "PT", "TX" and "DC" in capitals (:data:`_CAPITALS_MEAN_OTHERWISE`) and "theatre" already after
    "operating" are left as written.

    Example:
        >>> expand_shorthand("what op did she have; f/u appts?")[0]
        'what operation did she have; follow-up appointments?'
    """
    found: list[tuple[str, str]] = []

    def read(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.isupper() and word.lower() in _CAPITALS_MEAN_OTHERWISE:
            return word
        if word.lower().startswith("theat") and text[: match.start()].lower().rstrip().endswith("operating"):
            return word
        meaning = QUESTION_SHORTHAND[word.lower()]
        found.append((word, meaning))
        return meaning

    return _PATTERN.sub(read, text), tuple(found)
