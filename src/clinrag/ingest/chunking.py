"""Sentence packing: split text into sentences and pack them into chunks of at most ``max_chars`` characters.

A sentence is never split unless it alone is longer than ``max_chars``; then it is cut at spaces (or, for a
single over-long token, at the limit). Line structure matters in clinical notes (medication lists, labelled
lines), so a sentence that starts a new line is joined with a newline, others with a space. No non-space
character is ever lost or reordered.

Example:
    >>> pack_text("Aspirin was started. Metoprolol was increased. Follow up in 2 weeks.", max_chars=45)
    ['Aspirin was started. Metoprolol was increased.', 'Follow up in 2 weeks.']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ABBREVIATIONS = frozenset(
    {
        "dr",
        "mr",
        "mrs",
        "ms",
        "st",
        "vs",
        "e.g",
        "i.e",
        "approx",
        "etc",
        "no",
        "pt",
        "pts",
        "inc",
        "fig",
        "al",
        "q",
        "p.o",
        "b.i.d",
        "t.i.d",
        "q.d",
        "h.s",
        "a.m",
        "p.m",
        "hx",
        "sx",
        "dx",
        "tx",
        "yo",
        "y.o",
        "mg",
        "ml",
    }
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9_#])")
_LAST_WORD = re.compile(r"(\S+)$")


@dataclass(frozen=True)
class Unit:
    """A sentence and whether it begins a new line in the source text."""

    text: str
    starts_line: bool


def split_sentences(line: str) -> list[str]:
    """Split one line into sentences, not after abbreviations such as ``Dr.`` or ``e.g.``.

    Example:
        >>> split_sentences("Seen by Dr. ___ today. Plan: discharge.")
        ['Seen by Dr. ___ today.', 'Plan: discharge.']
    """
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(line):
        candidate = line[start : match.start()]
        last = _LAST_WORD.search(candidate)
        word = last.group(1).rstrip(".!?\"')]").lower() if last else ""
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        sentences.append(candidate.strip())
        start = match.end()
    tail = line[start:].strip()
    if tail:
        sentences.append(tail)
    return [sentence for sentence in sentences if sentence]


def units_of(text: str) -> list[Unit]:
    """The sentences of ``text``, line by line, marking those that start a line."""
    units: list[Unit] = []
    for line in text.split("\n"):
        for position, sentence in enumerate(split_sentences(line)):
            units.append(Unit(sentence, starts_line=position == 0))
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
