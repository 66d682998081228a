"""Markdown guidelines into blocks, with markdown-it-py (CommonMark and GitHub's tables).

ATX and setext headings become headings; paragraphs lines; list items lines starting ``- `` (or their number,
``1. ``); tables one ``cell | cell`` line per row; code blocks their lines. Inline markup is reduced to its text
(links keep their words, images their alt text); inline HTML is dropped and HTML blocks are read as HTML.

Example:
    >>> text = "# AF\\n\\n## Dose\\n\\nGive **5 mg**, see [the table](t.html).\\n\\n- Review\\n\\n| Age | Dose |\\n"
    >>> text += "|---|---|\\n| 80+ | 2.5 mg |\\n"
    >>> [getattr(b, "level", 0) and f"h{b.level} {b.text}" or b.text for b in read_markdown(text.encode())]
    ['h1 AF', 'h2 Dose', 'Give 5 mg, see the table.', '- Review', 'Age | Dose', '80+ | 2.5 mg']
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from clinrag.ingest.guidelines.blocks import Block, Heading, Line, clean, table_row
from clinrag.ingest.guidelines.html_reader import read_html


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _inline_text(token: Token) -> str:
    """The plain text of an inline token: markup dropped, links' words and images' alt text kept."""
    pieces: list[str] = []
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            pieces.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
        elif child.type == "image":
            pieces.append(_inline_text(child))
    return clean("".join(pieces))


def _blocks(tokens: Sequence[Token]) -> list[Block]:
    blocks: list[Block] = []
    markers: list[str] = []  # the marker each open list item still owes its first line
    row: list[str] | None = None
    heading: int | None = None
    for token in tokens:
        if token.type == "heading_open":
            heading = int(token.tag[1:])
        elif token.type == "heading_close":
            heading = None
        elif token.type == "list_item_open":
            ordered = token.markup in (".", ")")
            markers.append(f"{token.info}{token.markup} " if ordered else "- ")
        elif token.type == "list_item_close":
            markers.pop()
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            line = table_row(row)
            if line:
                blocks.append(Line(line))
            row = None
        elif token.type == "inline":
            text = _inline_text(token)
            if row is not None:
                row.append(text)
            elif heading is not None:
                blocks.append(Heading(heading, text))
            elif text:
                marker = markers[-1] if markers else ""
                if markers:
                    markers[-1] = ""
                blocks.append(Line(marker + text))
        elif token.type in ("fence", "code_block"):
            blocks.extend(Line(line) for line in token.content.splitlines() if line.strip())
        elif token.type == "html_block":
            blocks.extend(read_html(token.content.encode()))
    return blocks


def read_markdown(content: bytes) -> list[Block]:
    """The blocks of a Markdown document (see the module docstring); UTF-8, a BOM allowed."""
    return _blocks(_parser().parse(content.decode("utf-8-sig")))
