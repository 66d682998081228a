"""BM25 as sparse vectors, so that Qdrant scores it inside the engine with the same filters as dense search.

Documents are encoded with BM25's term-frequency saturation and length normalisation; Qdrant's IDF modifier
supplies the inverse document frequency from the collection at query time; a query is the set of its terms with
weight 1. The dot product of the two is then exactly Okapi BM25.

Tokenisation is clinical: lower-case, keeps codes and compounds whole (``c5-6``, ``i21.4``, ``t2dm``,
``q4h``), keeps numbers, drops English stopwords and MIMIC's de-identification marks (``___``), and folds simple
plurals and possessives. Accents are dropped, so a word written with one is one token ("família" is "familia",
not "fam" and "lia").

Documents of new indexes are encoded with clinical abbreviations expanded (``expand=True``; "severe AS" also
counts as "aortic stenosis", see `clinrag.index.abbreviations`), as questions are; an index records which way in
its manifest (``lexical``) and keeps to it on updates.

Example:
    >>> tokenize("Mr. ___'s C5-6 fractures were repaired.")
    ['mr', 'c5-6', 'fracture', 'repaired']
    >>> encoder = Bm25Encoder(average_length=10.0)
    >>> vector = encoder.encode_document("aspirin aspirin daily")
    >>> sorted(vector) == sorted({term_index("aspirin"), term_index("daily")})
    True
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass

from clinrag.index.abbreviations import expand_abbreviations
from clinrag.index.store import LEXICAL_EXPANDED, IndexManifest

_TOKEN = re.compile(r"[a-z0-9]+(?:[-./][a-z0-9]+)*")

_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
    not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _fold(token: str) -> str:
    if token.endswith("'s"):
        token = token[:-2]
    if len(token) > 4 and token.isalpha():
        if token.endswith("ies"):
            return token[:-3] + "y"
        if token.endswith("s") and not token.endswith(("ss", "us", "is")):
            return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Clinical BM25 tokens of ``text`` (see the module docstring)."""
    tokens = []
    if not text.isascii():  # "família", "Mãe": the letters, not fragments around the accented one
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    for raw in _TOKEN.findall(text.lower().replace("’", "'").replace("'s ", " ")):
        token = _fold(raw.strip("-./"))
        if token and token not in STOPWORDS and not (len(token) == 1 and token.isalpha()):
            tokens.append(token)
    return tokens


def mentioned_words(text: str) -> frozenset[str]:
    """The tokens of ``text`` and the parts of its hyphenated ones: what a text *mentions* when a question asks
    whether it names a thing ("antipsychotic-induced dystonia" mentions "antipsychotic").

    Example:
        >>> sorted(mentioned_words("antipsychotic-induced acute dystonia"))
        ['acute', 'antipsychotic', 'antipsychotic-induced', 'dystonia', 'induced']
    """
    tokens = tokenize(text)
    parts = {_fold(part) for token in tokens if "-" in token for part in token.split("-")}
    return frozenset(tokens) | {part for part in parts if part and part not in STOPWORDS and len(part) > 1}


def term_index(term: str) -> int:
    """The sparse-vector dimension of a term: a stable 32-bit hash (collisions are rare and harmless)."""
    return zlib.crc32(term.encode())


@dataclass(frozen=True)
class Bm25Encoder:
    """Encodes documents and queries as BM25 sparse vectors ({dimension: weight}).

    ``average_length`` is the corpus's mean document length in tokens; it is fixed per index (stored in the
    index manifest) so that scores do not drift as documents are added. With ``expand``, a document's clinical
    abbreviations are expanded before it is encoded.
    """

    average_length: float
    k1: float = 1.2
    b: float = 0.75
    expand: bool = False

    @classmethod
    def of(cls, manifest: IndexManifest) -> Bm25Encoder:
        """The encoder an index was built with (average length and document expansion from its manifest)."""
        return cls(manifest.bm25_average_length, expand=manifest.lexical == LEXICAL_EXPANDED)

    def encode_document(self, text: str) -> dict[int, float]:
        """Term-frequency part of BM25 for every term of a document."""
        counts = Counter(tokenize(expand_abbreviations(text)[0] if self.expand else text))
        length = sum(counts.values())
        norm = self.k1 * (1 - self.b + self.b * length / max(self.average_length, 1.0))
        vector: dict[int, float] = {}
        for term, frequency in counts.items():
            index = term_index(term)
            vector[index] = vector.get(index, 0.0) + frequency * (self.k1 + 1) / (frequency + norm)
        return vector

    @staticmethod
    def encode_query(text: str) -> dict[int, float]:
        """Every distinct query term with weight 1 (IDF comes from the engine)."""
        return {term_index(term): 1.0 for term in dict.fromkeys(tokenize(text))}


def average_length(texts: list[str], expand: bool = False) -> float:
    """Mean token count of ``texts`` (1.0 for none), for `Bm25Encoder.average_length`; with ``expand``, of the
    texts with their abbreviations expanded, as `Bm25Encoder` encodes them with ``expand``."""
    if not texts:
        return 1.0
    return sum(len(tokenize(expand_abbreviations(text)[0] if expand else text)) for text in texts) / len(texts)
