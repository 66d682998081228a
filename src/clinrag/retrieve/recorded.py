"""What a question asks whether the record says about the patient: "did the hospital write down whether she can
swim?", "did the nurses note that he wears hearing aids?".

The clause after "whether", "that" or "if", the patient's own thing the verb takes ("did they record his height?"),
or what a "which", "who", "where" or "how many" after the verb asks ("record which lunar year she was born in"), is
what the record must say. When it asks for a kind of fact ("that she smokes", "whether I live on my own"), the rest
of the reading weighs it. When it does not — swimming, handedness, a hearing aid, when he last had a tetanus jab —
most of its plain words are what one record must name before anything is quoted as an answer; otherwise the answer
step would quote the stay's other lines, read from the words around the clause ("after his back operation"), or from
one common word of it ("emergency" of "her emergency contact's phone number").

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
from clinrag.retrieve.vocabulary import ADDRESS_WORDS, ASKER_WORDS

_RECORDED_WHETHER: Final = re.compile(
    r"\b(?:write|wrote|written|note|noted|record|recorded|document|documented|mention|mentioned)"
    r"(?:\s+down)?(?:\s+anywhere)?\s+(?:(?:whether|that|if)\s+(?=(?:he|she|they|I|we|you|his|her|their|my|our"
    r"|(?-i:[A-Z])\w+)\b)|(?=(?:his|her|their|my|our)\s|(?-i:[A-Z])\w+\s+(?-i:[A-Z])\w+(?:'s|\u2019s|')\s)"
    r"|(?=(?:which|who|whose|where|why|how|when\s+(?:he|she|they|I)\s+last)\b"
    r"|the\s+(?:name|names|number|details?)\s+of\s))([^?.]*)\?",
    re.IGNORECASE,
)
_PLAIN: Final = frozenset(
    {"actually", "really", "still", "ever", "even", "properly", "cannot", "cant", "can", "could", "would", "able"}
    | {"whether", "anywhere", "many", "last", "maybe", "perhaps"}
)
"""Words that qualify what the clause says without naming it."""
_GENERIC: Final = frozenset(
    {"name", "type", "kind", "sort", "year", "date", "number", "time", "day", "days", "detail", "whose"}
)
"""Words that say what form the answer takes ("her contact's name", "his skin type", "which year"), not what it is
about: no record need name them."""


def recorded_attribute(question: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The plain (BM25-folded) words of what ``question`` asks whether the record says about the patient (less the
    words of ``names``), when that is no kind of fact; empty otherwise.

    Example:
        >>> sorted(recorded_attribute("Did they note whether Ada Stone wears hearing aids?", ["Ada Stone"]))
        ['aids', 'hearing', 'wear']
    """
    named = {token for name in names for token in tokenize(name)}
    words: set[str] = set()
    for match in _RECORDED_WHETHER.finditer(question):
        clause = match.group(1)
        tokens = set(tokenize(clause)) - named
        if fact_kind(clause) is not None:
            continue
        words |= tokens - ADDRESS_WORDS - ASKER_WORDS - _PLAIN - _GENERIC
    return frozenset(words)
