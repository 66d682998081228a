"""PDF guidelines into blocks, with pdfplumber (pdfminer.six's layout, ruled tables found from their lines).

Per page, top to bottom: ruled tables become one ``cell | cell`` line per row, and their text is not read again as
lines. The other text lines are told apart by their font: the body size is the size most characters of the
document have; a short line set larger than the body is a heading (the largest size level 1, the next level 2…),
and so is a short bold line at body size that does not end a sentence (the lowest level). Body lines are joined
into paragraphs — a wide vertical gap, a bullet or a number ends one — with words hyphenated across lines rejoined;
bullets are written ``- ``; bare page numbers ("3", "Page 3 of 9") are dropped.

One column is assumed: a two-column layout is read line by line across both columns.

Example (the tests read PDFs written with fpdf2; this is what a file that is no PDF gives):
    >>> try:
    ...     read_pdf(b"not a PDF")
    ... except PDF_ERRORS as error:
    ...     print(type(error).__name__)
    PdfminerException
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

import pdfplumber
from pdfminer.psexceptions import PSException
from pdfplumber.page import Page
from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

from clinrag.ingest.guidelines.blocks import Block, Heading, Line, clean, table_row

PDF_ERRORS: Final = (PdfminerException, MalformedPDFException, PSException)
"""What pdfplumber raises on a file that is not a readable PDF."""

_LARGER: Final = 1.15  # a heading's font is at least this much larger than the body's
_HEADING_CHARS: Final = 120
_PAGE_NUMBER: Final = re.compile(r"^(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE)
_BULLET: Final = re.compile(r"^(?:[•▪◦●‣∙·*–-])\s+")
_NUMBERED: Final = re.compile(r"^\d{1,3}[.)]\s+\S")
_BOLD: Final = re.compile(r"bold|black|heavy|semibold", re.IGNORECASE)


@dataclass(frozen=True)
class _TextLine:
    top: float
    bottom: float
    text: str
    size: float
    bold: bool


@dataclass(frozen=True)
class _Table:
    top: float
    rows: tuple[str, ...]


def _size(chars: list[dict[str, Any]]) -> float:
    return round(max(float(char["size"]) for char in chars) * 2) / 2


def _page_items(page: Page) -> list[_TextLine | _Table]:
    tables = page.find_tables()
    text_page = page
    for table in tables:
        text_page = text_page.outside_bbox(table.bbox)
    items: list[_TextLine | _Table] = []
    for line in text_page.extract_text_lines(return_chars=True):
        chars = [char for char in line["chars"] if str(char.get("text", "")).strip()]
        text = clean(line["text"])
        if not chars or not text or _PAGE_NUMBER.match(text):
            continue
        bold = all(_BOLD.search(str(char.get("fontname", ""))) for char in chars)
        items.append(_TextLine(float(line["top"]), float(line["bottom"]), text, _size(chars), bold))
    for table in tables:
        rows = tuple(row for row in (table_row(cell or "" for cell in cells) for cells in table.extract()) if row)
        items.append(_Table(float(table.bbox[1]), rows))
    return sorted(items, key=lambda item: item.top)


def _heading_levels(lines: list[_TextLine]) -> tuple[float, dict[float, int]]:
    """The body size and each heading size's level (largest first)."""
    weights: Counter[float] = Counter()
    for line in lines:
        weights[line.size] += len(line.text)
    body = weights.most_common(1)[0][0] if weights else 0.0
    sizes = sorted({line.size for line in lines if line.size >= body * _LARGER}, reverse=True)
    return body, {size: min(level, 6) for level, size in enumerate(sizes, start=1)}


def _is_heading(line: _TextLine, body: float, levels: dict[float, int]) -> int | None:
    if len(line.text) > _HEADING_CHARS or not any(c.isalpha() for c in line.text):
        return None
    if line.size in levels:
        return levels[line.size]
    if line.bold and line.size >= body and not line.text.endswith((".", ",", ";")):
        return min(len(levels) + 1, 6)
    return None


def _join(paragraph: str, text: str) -> str:
    if not paragraph:
        return text
    if re.search(r"[A-Za-z]-$", paragraph):  # a word broken across lines ("beta-" / "blocker")
        return paragraph + text
    return f"{paragraph} {text}"


def _blocks(pages: list[list[_TextLine | _Table]]) -> list[Block]:
    body, levels = _heading_levels([item for items in pages for item in items if isinstance(item, _TextLine)])
    blocks: list[Block] = []
    paragraph = ""
    previous: _TextLine | None = None

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            blocks.append(Line(paragraph))
        paragraph = ""

    for items in pages:
        if paragraph and paragraph.endswith((".", ":", ";", "!", "?")):
            flush()  # a page ends a paragraph unless a sentence runs on to the next
        previous = None
        for item in items:
            if isinstance(item, _Table):
                flush()
                blocks.extend(Line(row) for row in item.rows)
                previous = None
                continue
            level = _is_heading(item, body, levels)
            if level is not None:
                flush()
                blocks.append(Heading(level, item.text))
                previous = None
                continue
            height = item.bottom - item.top
            gap = item.top - previous.bottom if previous is not None else 0.0
            bullet = _BULLET.match(item.text)
            if bullet or _NUMBERED.match(item.text) or (previous is not None and gap > 0.8 * height):
                flush()
            paragraph = _join(paragraph, "- " + item.text[bullet.end() :] if bullet else item.text)
            previous = item
    flush()
    return blocks


def read_pdf(content: bytes) -> list[Block]:
    """The blocks of a PDF document (see the module docstring); raises one of `PDF_ERRORS` when it is not a
    readable PDF. Encrypted PDFs are read only when they open without a password."""
    with pdfplumber.open(io.BytesIO(content)) as document:
        pages = [_page_items(page) for page in document.pages]
    return _blocks(pages)
