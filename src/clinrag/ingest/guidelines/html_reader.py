"""HTML guidelines into blocks, with selectolax (Lexbor's HTML5 parser).

The page's ``<main>`` (else its ``<article>``, else its ``<body>``) is walked in document order after dropping what
is not the guideline (scripts, styles, navigation, headers, footers, asides, forms). ``<h1>``–``<h6>`` become
headings; paragraphs and other blocks become lines, list items lines starting ``- ``; a table becomes its caption
and one line per row, cells joined with `` | ``. Text directly inside a container (a ``<div>`` without
``<p>``) is a line too. Nothing is fetched: links, images and stylesheets are never followed.

Example:
    >>> html = "<body><nav>Menu</nav><h1>AF</h1><h2>Dose</h2><p>Give <b>5 mg</b>.</p><ul><li>Review</li></ul>"
    >>> html += "<table><tr><th>Age</th><th>Dose</th></tr><tr><td>80+</td><td>2.5 mg</td></tr></table></body>"
    >>> [getattr(b, "level", 0) and f"h{b.level} {b.text}" or b.text for b in read_html(html.encode())]
    ['h1 AF', 'h2 Dose', 'Give 5 mg.', '- Review', 'Age | Dose', '80+ | 2.5 mg']
"""

from __future__ import annotations

import re
from typing import Final

from selectolax.lexbor import LexborHTMLParser, LexborNode

from clinrag.ingest.guidelines.blocks import Block, Heading, Line, clean, table_row

_DROPPED: Final = "script, style, noscript, template, nav, header, footer, aside, form, button, svg, iframe"
_INLINE: Final = frozenset(
    {
        "-text", "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "mark", "q", "s",
        "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr", "del", "ins", "img",
    }
)  # fmt: skip
_HEADING: Final = re.compile(r"^h([1-6])$")
_LISTS: Final = frozenset({"ul", "ol"})
_SKIPPED: Final = frozenset({"-comment", "head", "title", "meta", "link"})


class _Walker:
    """Collects blocks from a tree in document order."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []

    def container(self, node: LexborNode, marker: str = "") -> None:
        """The children of ``node``: runs of inline content become lines (the first prefixed with ``marker``, the
        list item's ``- ``), block children are visited in turn."""
        run: list[str] = []
        for child in node.iter(include_text=True):
            tag = child.tag or ""
            if tag in _INLINE:
                run.append(child.text(deep=True) or "")
            elif tag == "br":
                run.append(" ")
            elif tag not in _SKIPPED:
                marker = self._flush(run, marker)
                run = []
                self.block(child)
        self._flush(run, marker)

    def _flush(self, run: list[str], marker: str) -> str:
        text = clean("".join(run))
        if not text:
            return marker
        self.blocks.append(Line(f"{marker}{text}"))
        return ""  # the marker goes on the item's first line only

    def block(self, node: LexborNode) -> None:
        """One block element."""
        tag = node.tag or ""
        heading = _HEADING.match(tag)
        if heading:
            self.blocks.append(Heading(int(heading.group(1)), clean(node.text(deep=True, separator=" "))))
        elif tag == "table":
            self.table(node)
        elif tag in _LISTS:
            for item in node.iter():
                if item.tag == "li":
                    self.container(item, "- ")
                else:
                    self.block(item)
        elif tag == "pre":
            self.blocks.extend(Line(line) for line in (node.text(deep=True) or "").splitlines() if line.strip())
        else:
            self.container(node)

    def table(self, node: LexborNode) -> None:
        """A table: its caption, then one ``cell | cell`` line per row (rows of nested tables are not repeated)."""
        caption = node.css_first("caption")
        if caption is not None:
            self._flush([caption.text(deep=True, separator=" ")], "")
        for row in node.css("tr"):
            enclosing = _enclosing_table(row)
            if enclosing is None or enclosing.mem_id != node.mem_id:
                continue
            cells = [cell.text(deep=True, separator=" ") for cell in row.iter() if cell.tag in ("td", "th")]
            line = table_row(cells)
            if line:
                self.blocks.append(Line(line))


def _enclosing_table(node: LexborNode) -> LexborNode | None:
    parent = node.parent
    while parent is not None and parent.tag != "table":
        parent = parent.parent
    return parent


def read_html(content: bytes) -> list[Block]:
    """The blocks of an HTML document (see the module docstring); the encoding is the document's own (its BOM or
    meta charset), else UTF-8."""
    tree = LexborHTMLParser(content)
    for node in tree.css(_DROPPED):
        node.decompose()
    root = tree.css_first("main") or tree.css_first("article") or tree.body
    if root is None:
        return []
    walker = _Walker()
    walker.container(root)
    return walker.blocks
