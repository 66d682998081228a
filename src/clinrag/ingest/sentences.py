"""Sentence boundaries in clinical note text, with character offsets so callers can quote exactly.

Boundaries inside a line are decided by spaCy's rule-based ``sentencizer`` over spaCy's English tokenizer. The
tokenizer's exceptions keep titles and common abbreviations whole (``Ms.``, ``Dr.``, ``e.g.``, ``vs.``, ``a.m.``);
clinical ones are added here (``Pt.``, ``approx.``, ``q.d.``, ``b.i.d.``, ``p.o.`` ...), so their period never ends a
sentence. A ``___`` placeholder is a word like any other: ``Ms. ___ is`` stays one sentence, ``at ___. She`` is two.
Decimal numbers (``3.5 mg``, ``BMI 34.2``) are single tokens and dose lists (``Q4H:PRN``) have no sentence-final
punctuation, so neither is split.

Line structure comes first: every line break is a hard boundary (the text is expected unwrapped, see
:func:`clinrag.ingest.notes.unwrap`), so a heading line (``Discharge Medications:``) and each list line (``- item``,
``* item``, ``1. item``, ``# HTN: stable; ...``) start their own sentence. A list line of several sentences is split
into them, its marker staying with the first. A bullet written inline after a sentence (``fever. - Please take``)
also starts a sentence.

Example:
    >>> split_sentences("Ms. ___ is a 68 year old woman. She takes 5 mg p.o. b.i.d. at ___.\\n- Please take it.")
    ['Ms. ___ is a 68 year old woman.', 'She takes 5 mg p.o. b.i.d. at ___.', '- Please take it.']
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

CLINICAL_ABBREVIATIONS = (
    "pt.",
    "pts.",
    "approx.",
    "appt.",
    "abd.",
    "ext.",
    "resp.",
    "wt.",
    "ht.",
    "y.o.",
    "p.o.",
    "q.d.",
    "q.o.d.",
    "b.i.d.",
    "t.i.d.",
    "q.i.d.",
    "q.h.s.",
    "h.s.",
    "p.r.n.",
    "a.c.",
    "p.c.",
    "i.v.",
    "s.c.",
    "s.q.",
)
"""Abbreviations whose period does not end a sentence, beyond spaCy's own; each also in Capital and UPPER case."""

LIST_MARKER = re.compile(r"[ \t]*(?:[-*•–#]|\d{1,3}[.)]|[a-zA-Z][.)])[ \t]+(?=\S)")
"""The marker that opens a list line: ``- ``, ``* ``, ``• ``, ``# ``, ``1. ``, ``2) ``, ``a. ``."""

_BULLETS = frozenset("-*•–")
_INLINE_MARKER = re.compile(r"[.!?:][\"')\]]*\s+(?:[-*•–]|\d{1,3}[.)])\s")
_ENDS = frozenset(".!?")
# The library is asked only about lines where a sentence could end before the line does; a period between digits
# (3.5) or punctuation at the very end cannot start a new sentence, and such lines are the majority of a note.
_MAYBE_BOUNDARY = re.compile(r"(?:[!?]|(?<!\d)\.|\.(?!\d))[\"')\]]*(?:\s+\S|[^\s.!?\"')\]])")
_SEGMENTER_CACHE = 8192
_LINE = re.compile(r"\S(?:[^\n]*\S)?")  # a line without its surrounding whitespace


def _spelling_variants(abbreviation: str) -> set[str]:
    return {abbreviation, abbreviation.capitalize(), abbreviation.upper()}


def _list_markers(doc: Doc) -> Doc:
    """Make an inline bullet (``fever. - Please``) or numbered item (``mg. 2. Senna``) start its own sentence."""
    if not _INLINE_MARKER.search(doc.text):
        return doc
    for token in doc[1:]:
        previous = doc[token.i - 1]
        follower = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if follower is None:
            continue
        if token.text in _BULLETS and token.whitespace_ and previous.whitespace_ and previous.text[-1] in _ENDS:
            token.is_sent_start = True
            follower.is_sent_start = False
        elif (
            token.text.isdigit()
            and len(token.text) <= 3
            and (token.is_sent_start or previous.text == ":")
            and follower.text in {".", ")"}
            and follower.whitespace_
            and follower.i + 1 < len(doc)
        ):
            token.is_sent_start = True
            doc[follower.i + 1].is_sent_start = False
    return doc


@cache
def segmenter() -> Language:
    """The process's spaCy pipeline for sentences, built on first use (blank English, no model weights).

    Example:
        >>> [sentence.text for sentence in segmenter()("Seen by Dr. ___. Pt. is well.").sents]
        ['Seen by Dr. ___.', 'Pt. is well.']
    """
    import spacy
    from spacy.language import Language

    if "clinrag_list_markers" not in Language.factories:
        Language.component("clinrag_list_markers", func=_list_markers)
    nlp = spacy.blank("en")
    tokenizer: Any = nlp.tokenizer  # spaCy's Cython Tokenizer has no type stubs
    for abbreviation in CLINICAL_ABBREVIATIONS:
        for variant in _spelling_variants(abbreviation):
            tokenizer.add_special_case(variant, [{"ORTH": variant}])
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("clinrag_list_markers")
    return nlp


@lru_cache(maxsize=_SEGMENTER_CACHE)
def _segment(body: str) -> tuple[tuple[int, int], ...]:
    """Sentence spans in one line's body (offsets into ``body``), as the segmenter sees them."""
    return tuple((sentence.start_char, sentence.end_char) for sentence in segmenter()(body).sents)


def _stripped(text: str, start: int, end: int) -> tuple[int, int] | None:
    piece = text[start:end]
    if not piece.strip():
        return None
    return start + len(piece) - len(piece.lstrip()), start + len(piece.rstrip())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, in order, without surrounding whitespace.

    ``text[start:end]`` is the sentence exactly as written; every non-space character of ``text`` lies in one span.

    Example:
        >>> text = "Dear Mr. ___,\\nYou were admitted at ___. Take 3.5 mg daily."
        >>> [text[start:end] for start, end in sentence_spans(text)]
        ['Dear Mr. ___,', 'You were admitted at ___.', 'Take 3.5 mg daily.']
    """
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        start, end = line.span()
        marker = LIST_MARKER.match(text, start, end)
        body_start = marker.end() if marker else start
        if not _MAYBE_BOUNDARY.search(text, body_start, end):
            spans.append((start, end))
            continue
        first = True
        for piece_start, piece_end in _segment(text[body_start:end]):
            span = _stripped(text, body_start + piece_start, body_start + piece_end)
            if span is None:
                continue
            if first:
                span, first = (start, span[1]), False
            spans.append(span)
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, as written, without surrounding whitespace.

    Example:
        >>> split_sentences("Hgb 7.2 vs. 8.1 prior, approx. 2 units given.\\n1. OxyCODONE 5 mg PO Q4H:PRN pain")
        ['Hgb 7.2 vs. 8.1 prior, approx. 2 units given.', '1. OxyCODONE 5 mg PO Q4H:PRN pain']
    """
    return [text[start:end] for start, end in sentence_spans(text)]
