"""What a question asks whether the record says about the patient: "did the hospital write down whether she can
swim?", "did the nurses note that he wears hearing aids?".

The clause after "whether", "that" or "if", or the patient's own thing the verb takes ("did they record his
height?"), is what the record must say. When it asks for a kind of fact ("that she
smokes", "whether I live on my own") or names a clinical thing, the rest of the reading weighs it. When it does neither
— swimming, handedness, reading, a hearing aid — its plain words are what a record must name before anything is
quoted as an answer; otherwise the answer step would quote the stay's other lines, read from the words around the
clause ("after her knee replacement").

Example:
    >>> sorted(recorded_attribute("After her knee replacement, did the hospital write down whether she can swim?"))
    ['swim']
    >>> sorted(recorded_attribute("Did the hospital write down whether she smokes?"))
    []
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from clinrag.index.lexical import tokenize
from clinrag.retrieve.intent import fact_kind
from clinrag.retrieve.vocabulary import ADDRESS_WORDS, ASKER_WORDS, KIND_WORDS, is_thing

_RECORDED_WHETHER: Final = re.compile(
    r"\b(?:write|wrote|written|note|noted|record|recorded|document|documented|mention|mentioned)"
    r"(?:\s+down)?(?:\s+anywhere)?\s+(?:(?:whether|that|if)\s+(?=(?:he|she|they|I|we|you|his|her|their|my|our"
    r"|(?-i:[A-Z])\w+)\b)|(?=(?:his|her|their|my|our)\s))([^?.]*)\?",
    re.IGNORECASE,
)
_PLAIN: Final = frozenset(
    {"actually", "really", "still", "ever", "even", "properly", "cannot", "cant", "can", "could", "would", "able"}
)
"""Words that qualify what the clause says without naming it."""


def recorded_attribute(question: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The plain (BM25-folded) words of what ``question`` asks whether the record says about the patient (less the
    words of ``names``), when that is no kind of fact and names no clinical thing; empty otherwise.

    Example:
        >>> sorted(recorded_attribute("Did they note whether Ada Stone wears hearing aids?", ["Ada Stone"]))
        ['aids', 'hearing', 'wear']
    """
    named = {token for name in names for token in tokenize(name)}
    words: set[str] = set()
    for match in _RECORDED_WHETHER.finditer(question):
        clause = match.group(1)
        tokens = set(tokenize(clause)) - named
        if fact_kind(clause) is not None or tokens & KIND_WORDS or any(is_thing(token) for token in tokens):
            continue
        words |= tokens - ADDRESS_WORDS - ASKER_WORDS - _PLAIN
    return frozenset(words)
