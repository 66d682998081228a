"""An answer that cites both patients' records and the literature, in two labelled parts: the sentences citing
records first, under "From the records:", then those citing abstracts or guidelines, under "From the literature:".
The citation numbers stay the answer's one numbering; an answer citing one kind of source is left as it is.

Example:
    >>> from clinrag.types import AnswerSentence
    >>> said = [AnswerSentence(text="Apixaban halved bleeding.", citations=(2,), support=1.0, supported=True),
    ...         AnswerSentence(text="Ada takes apixaban.", citations=(1,), support=1.0, supported=True)]
    >>> ordered, labels = in_parts(said, {1: "note", 2: "abstract"})
    >>> [s.text for s in ordered], labels
    (['Ada takes apixaban.', 'Apixaban halved bleeding.'], {0: 'From the records:', 1: 'From the literature:'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from clinrag.retrieve.sources import SourceFamily, family_of
from clinrag.types import AnswerSentence

LABELS: Final = {SourceFamily.RECORDS: "From the records:", SourceFamily.LITERATURE: "From the literature:"}
"""The label each part of a mixed answer opens with."""


def in_parts(
    sentences: Sequence[AnswerSentence], kinds: Mapping[int, str]
) -> tuple[list[AnswerSentence], dict[int, str]]:
    """``sentences`` with those citing records first, and the label opening each part (by the index of its first
    sentence); no labels when every sentence's sources are of one family. ``kinds`` maps a source number to its
    chunk's `types.SourceKind` value; a sentence belongs to the family of its first citation (records without one)."""

    def family(sentence: AnswerSentence) -> SourceFamily:
        cited = [kinds[n] for n in sentence.citations if n in kinds]
        return family_of(cited[0]) if cited else SourceFamily.RECORDS

    families = [family(sentence) for sentence in sentences]
    if len(set(families)) < 2:
        return list(sentences), {}
    records = [s for s, f in zip(sentences, families, strict=True) if f == SourceFamily.RECORDS]
    literature = [s for s, f in zip(sentences, families, strict=True) if f == SourceFamily.LITERATURE]
    labels = {0: LABELS[SourceFamily.RECORDS], len(records): LABELS[SourceFamily.LITERATURE]}
    return records + literature, labels
