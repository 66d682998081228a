"""Writes a MIMIC-style discharge summary and records where each clinical fact stands in it.

The builder appends text piece by piece and keeps the character offsets of every fact it writes (diagnosis,
procedure, medication, complication, finding, social history, allergy). Prose paragraphs are hard-wrapped the way
real notes are, by turning spaces into newlines, so offsets never move.

Example:
    >>> builder = NoteBuilder(wrap_width=30)
    >>> builder.section("Chief Complaint")
    >>> builder.fact_line("chest pain", kind="finding", value="chest pain")
    >>> note, facts = builder.finish()
    >>> note[facts[0].start:facts[0].end]
    'chest pain'
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass

_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class Fact:
    """A value the generator wrote into a note, with its location (offsets into the note text)."""

    kind: str
    value: str
    label: str
    section: str
    start: int
    end: int
    noise: bool = False
    history: bool = False


@dataclass(frozen=True)
class FactSlot:
    """What a fact placeholder (``{diagnosis}``) expands to and how the fact is recorded."""

    text: str
    kind: str
    value: str
    label: str = ""


def _agree_article(literal: str, following: str) -> str:
    """Turn "a " before a value spoken with a vowel sound ("8", "11", "18", "80...") into "an "."""
    if (literal.endswith((" a ", "\na ", " A ", "\nA ")) or literal in ("a ", "A ")) and (
        following.startswith("8") or following in ("11", "18")
    ):
        return literal[:-1] + "n "
    return literal


def hard_wrap(text: str, width: int) -> str:
    """Break lines longer than ``width`` by turning the last space before the limit into a newline.

    The result has exactly the length of ``text`` (offsets stay valid).

    Example:
        >>> hard_wrap("one two three four", 9)
        'one two\\nthree\\nfour'
    """
    chars = list(text)
    line_start = 0
    while len(text) - line_start > width:
        newline = text.find("\n", line_start, line_start + width + 1)
        if newline != -1:
            line_start = newline + 1
            continue
        cut = text.rfind(" ", line_start, line_start + width + 1)
        if cut <= line_start:
            cut = text.find(" ", line_start + width)
            if cut == -1:
                break
        chars[cut] = "\n"
        line_start = cut + 1
    return "".join(chars)


class NoteBuilder:
    """Accumulates a note's text and the facts located in it."""

    def __init__(self, wrap_width: int = 80) -> None:
        self._parts: list[str] = []
        self._length = 0
        self._facts: list[Fact] = []
        self._section = ""
        self._wrap_width = wrap_width

    def raw(self, text: str) -> None:
        """Append text as is."""
        self._parts.append(text)
        self._length += len(text)

    def section(self, title: str, inline: str = "") -> None:
        """Start a section: a blank-ish separator line as MIMIC has, then ``Title:`` (and inline content)."""
        self.raw(" \n" if self._parts else "")
        self.raw(f"{title}: {inline}\n" if inline else f"{title}:\n")
        self._section = title

    def fact_line(self, text: str, *, kind: str, value: str, label: str = "", prefix: str = "", **flags: bool) -> None:
        """Append ``prefix`` then a line whose text (after the prefix) is one fact."""
        self.raw(prefix)
        self._record(kind, value, label or text, self._length, self._length + len(text), **flags)
        self.raw(text + "\n")

    def paragraph(
        self,
        template: str,
        values: Mapping[str, str],
        slots: Mapping[str, FactSlot] | None = None,
        *,
        wrap: bool = True,
        **flags: bool,
    ) -> None:
        """Render ``template`` (placeholders from ``values`` and fact ``slots``), hard-wrap it, append it."""
        pieces: list[str] = []
        spans: list[tuple[FactSlot, int, int]] = []
        length = 0
        for parsed_literal, field, _, _ in _FORMATTER.parse(template):
            literal = _agree_article(parsed_literal, values.get(field, "") if field else "")
            pieces.append(literal)
            length += len(literal)
            if field is None:
                continue
            if slots is not None and field in slots:
                slot = slots[field]
                spans.append((slot, length, length + len(slot.text)))
                text = slot.text
            else:
                text = values[field]
            pieces.append(text)
            length += len(text)
        body = "".join(pieces)
        if wrap:
            body = hard_wrap(body, self._wrap_width)
        for slot, start, end in spans:
            self._record(
                slot.kind, slot.value, slot.label or slot.text, self._length + start, self._length + end, **flags
            )
        self.raw(body + "\n")

    def whole_fact_paragraph(self, text: str, *, kind: str, value: str, wrap: bool = True, **flags: bool) -> None:
        """Append a paragraph that as a whole states one fact (a finding sentence, a social-history line)."""
        self._record(kind, value, text, self._length, self._length + len(text), **flags)
        self.raw((hard_wrap(text, self._wrap_width) if wrap else text) + "\n")

    def finish(self) -> tuple[str, list[Fact]]:
        """The note text and its facts."""
        return "".join(self._parts), list(self._facts)

    def _record(self, kind: str, value: str, label: str, start: int, end: int, **flags: bool) -> None:
        self._facts.append(Fact(kind, value, label, self._section, start, end, **flags))


def fill(template: str, values: Mapping[str, str]) -> str:
    """Fill a template that has no fact placeholders (chief complaints, follow-up lines)."""
    return template.format_map(values)
