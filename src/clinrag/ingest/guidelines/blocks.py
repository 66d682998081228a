"""What the HTML, PDF and Markdown readers produce, and how it becomes sections and chunks.

A reader turns a document into `Block`s in reading order: headings (with their level) and lines of text (a
paragraph, a list item, a table row written ``cell | cell``). `sections` groups the lines under the headings
above them; `section_chunks` packs each section's lines into chunks of whole sentences with the same packer as
notes (`clinrag.ingest.chunking`), so a table row or a list item is never joined to the line before it.

Example:
    >>> blocks = [Heading(1, "AF"), Heading(2, "Rate control"), Line("Offer a beta-blocker."), Line("A | B")]
    >>> [(s.path, s.lines) for s in sections(blocks, title="AF")]
    [(('Rate control',), ['Offer a beta-blocker.', 'A | B'])]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from clinrag.ingest.chunking import pack, units_of

SECTION_SEPARATOR: Final = " > "


@dataclass(frozen=True)
class Heading:
    """A heading: ``level`` 1 (the largest) to 6, and its text."""

    level: int
    text: str


@dataclass(frozen=True)
class Line:
    """A line of text under the last heading: a paragraph, a list item (``- item``) or a table row (``a | b``)."""

    text: str


Block = Heading | Line


@dataclass
class Section:
    """The lines under one heading; ``path`` is the heading and the headings above it, outermost first (empty for
    text before the first heading)."""

    path: tuple[str, ...]
    lines: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The headings joined (``Management > Rate control``), or ``""`` before the first heading."""
        return SECTION_SEPARATOR.join(self.path)


def clean(text: str) -> str:
    """Whitespace collapsed to single spaces, trimmed.

    Example:
        >>> clean("  Offer\\n  apixaban\\u00a0 5 mg ")
        'Offer apixaban 5 mg'
    """
    return " ".join(text.split())


def table_row(cells: Iterable[str]) -> str:
    """A table row as one readable line: cells cleaned and joined with `` | `` (empty trailing cells dropped).

    Example:
        >>> table_row(["Age ", "Target", ""])
        'Age | Target'
    """
    values = [clean(cell) for cell in cells]
    while values and not values[-1]:
        values.pop()
    return " | ".join(values)


def _same(left: str, right: str) -> bool:
    return clean(left).casefold().rstrip(".:") == clean(right).casefold().rstrip(".:")


def sections(blocks: Iterable[Block], title: str = "") -> list[Section]:
    """The sections of a document, in order, each with its heading path; sections without lines are dropped. A
    heading repeating the guideline's ``title`` (a page's H1) is left out of the paths: every line is under it."""
    found: list[Section] = [Section(())]
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if isinstance(block, Heading):
            text = clean(block.text)
            if not text or (title and _same(text, title) and not stack):
                continue
            stack = [(level, name) for level, name in stack if level < block.level] + [(block.level, text)]
            found.append(Section(tuple(name for _, name in stack)))
        elif clean(block.text):
            found[-1].lines.append(block.text.strip())
    return [section for section in found if section.lines]


def section_chunks(section: Section, max_chars: int) -> list[str]:
    """The section's lines packed into chunk bodies of at most ``max_chars`` characters, of whole sentences; each
    line starts a line of its chunk.

    Example:
        >>> section_chunks(Section(("Dose",), ["Give 5 mg. Review at 4 weeks.", "Age | Dose"]), max_chars=30)
        ['Give 5 mg. Review at 4 weeks.', 'Age | Dose']
    """
    return pack(units_of("\n".join(section.lines)), max_chars)
