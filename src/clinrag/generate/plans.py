"""Sentences of a record that say what is to come ("Will discuss colostomy reversal in 3-6 months.", "To be
followed with carotid duplex."): a plan is no event, so it answers no question about a result, a procedure, a
complication, a diagnosis or a presentation, wherever in the note it stands.

Example:
    >>> without_plans("Sigmoid colectomy with end colostomy. Will discuss colostomy reversal in 3-6 months.")
    'Sigmoid colectomy with end colostomy.'
"""

from __future__ import annotations

import re
from typing import Final

from clinrag.ingest.sentences import sentence_spans

_PLAN: Final = re.compile(
    r"^(?:[-*•]\s*|\d+[.)]\s*)?(?:(?:he|she|they|patient|pt|the patient)\s+)?"
    r"(?:will\b|would\b|is to\b|are to\b|to be\b|plans?\b|planned\b|planning\b|should\b|needs?\b|consider|discuss"
    r"|outpatient\b|follow[- ]?up\b|f/u\b|arrange|schedul|book|await|recommend)",
    re.IGNORECASE,
)
"""A sentence that opens by saying what is to happen (with its subject, a list marker before it)."""
_DONE: Final = re.compile(
    r"\b(?:was|were) (?:performed|done|completed|placed|started|given)\b|\bunderwent\b|\bshowed\b|\brevealed\b"
    r"|\bdemonstrated\b",
    re.IGNORECASE,
)
"""Words of something done: "Plan was for a cholecystectomy, which was performed on HD2" tells an event."""


def is_plan(sentence: str) -> bool:
    """Whether ``sentence`` only says what is to come.

    Example:
        >>> is_plan("To be followed with carotid duplex."), is_plan("Carotid duplex showed 70% stenosis.")
        (True, False)
    """
    return _PLAN.match(sentence) is not None and _DONE.search(sentence) is None


def without_plans(text: str) -> str:
    """``text`` without its plan sentences (:func:`is_plan`), the rest as written."""
    kept: list[str] = []
    end = 0
    for start, stop in sentence_spans(text):
        if is_plan(text[start:stop]):
            kept.append(text[end:start].rstrip(" \t"))
            end = stop
    kept.append(text[end:])
    return "".join(kept).strip()
