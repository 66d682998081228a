"""Sentence packing: pack the sentences of a text into chunks of at most ``max_chars`` characters.

Sentences come from :mod:`clinrag.ingest.sentences`. A sentence is never split unless it alone is longer than
``max_chars``; then it is cut at spaces (or, for a single over-long token, at the limit). Line structure matters in
clinical notes (medication lists, labelled lines), so a sentence that starts a new line is joined with a newline,
others with a space. No non-space character is ever lost or reordered.

Example:
    >>> pack_text("Aspirin was started. Metoprolol was increased. Follow up in 2 weeks.", max_chars=50)
    ['Aspirin was started. Metoprolol was increased.', 'Follow up in 2 weeks.']
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.ingest.sentences import sentence_spans


@dataclass(frozen=True)
class Unit:
    """A sentence and whether it begins a new line in the source text."""

    text: str
    starts_line: bool


def units_of(text: str) -> list[Unit]:
    """The sentences of ``text`` (:func:`clinrag.ingest.sentences.sentence_spans`), marking those that start a line.

    Example:
        >>> [(unit.text, unit.starts_line) for unit in units_of("Seen by Dr. ___. Plan: home.\\n- Aspirin")]
        [('Seen by Dr. ___.', True), ('Plan: home.', False), ('- Aspirin', True)]
    """
    units: list[Unit] = []
    for start, end in sentence_spans(text):
        line_start = text.rfind("\n", 0, start) + 1
        units.append(Unit(text[start:end], starts_line=not text[line_start:start].strip()))
    return units


def _split_long(text: str, max_chars: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for token in text.split():
        word = token
        while len(word) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        if not word:
            continue
        if current and len(current) + 1 + len(word) > max_chars:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def pack(units: list[Unit], max_chars: int) -> list[str]:
    """Greedily pack units into chunks of at most ``max_chars`` characters."""
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    chunks: list[str] = []
    current = ""
    for unit in units:
        parts = [unit.text] if len(unit.text) <= max_chars else _split_long(unit.text, max_chars)
        for index, part in enumerate(parts):
            separator = "\n" if unit.starts_line and index == 0 else " "
            if current and len(current) + 1 + len(part) <= max_chars:
                current = current + separator + part
            else:
                if current:
                    chunks.append(current)
                current = part
    if current:
        chunks.append(current)
    return chunks


def pack_text(text: str, max_chars: int) -> list[str]:
    """Split ``text`` into sentences and pack them into chunks of at most ``max_chars`` characters."""
    return pack(units_of(text), max_chars)
