"""MEDLINE/PubMed XML, streamed: the annual baseline and daily update files, plain or gzipped, read
record by record in constant memory: the byte stream is split at each ``<PubmedArticle>``, ``<PubmedBookArticle>``
and ``<DeleteCitation>`` and each record parsed by lxml on its own, so one record that is not well-formed XML (a bare
``&`` in a title, a missing end tag) is reported and skipped and reading goes on at the next.

Each ``<PubmedArticle>`` becomes a `MedlineRecord`: PMID and its version, DOI, title, the abstract with its
structured-section labels, authors (last name, fore name, initials, collective names, affiliations), journal, volume,
issue, pages, languages, year and month (``MedlineDate`` forms such as ``1998 Dec-1999 Jan`` too), publication
types, MeSH descriptors with their qualifiers and major-topic flags, and keywords. A ``<DeleteCitation>`` in an
update file becomes a `Deletion` of its PMIDs. A ``<PubmedBookArticle>`` (NCBI Bookshelf) is read as a record too
(`parse_book`). A record that breaks the rules this reader relies on (not well-formed, no PMID, no title) is a
`Problem` with the file, its line and PMID (when one can be found), and is skipped; a gzip or XML stream cut short
keeps what came before it and ends with a `Problem` saying where it stopped. Nothing here stores anything:
ingestion decides what a revised version replaces.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sample.xml"
    >>> _ = path.write_text('''<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">12</PMID>
    ... <Article><Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate></JournalIssue>
    ... <Title>J Test</Title></Journal><ArticleTitle>Aspirin after stroke.</ArticleTitle>
    ... <Abstract><AbstractText Label="RESULTS">Fewer strokes.</AbstractText></Abstract>
    ... <AuthorList><Author><LastName>Smith</LastName><Initials>J</Initials></Author></AuthorList></Article>
    ... </MedlineCitation></PubmedArticle></PubmedArticleSet>''')
    >>> record = next(read_medline(path))
    >>> record.pmid, record.year, record.month, record.authors[0].last, record.abstract[0].label
    (12, 1998, 12, 'Smith', 'RESULTS')
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final, cast

from lxml import etree
from pydantic import BaseModel, ConfigDict

MONTHS: Final = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}
_SEASONS: Final = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AbstractSection(_Model):
    """One ``<AbstractText>``: its label (``RESULTS``), NLM category and text; unlabelled abstracts have one."""

    label: str = ""
    category: str = ""
    text: str


class Author(_Model):
    """An author: a person (last, fore name, initials) or a collective name, with affiliations."""

    last: str = ""
    fore: str = ""
    initials: str = ""
    collective: str = ""
    affiliations: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        """``Smith J`` or the collective name."""
        return self.collective or f"{self.last} {self.initials}".strip()


class MeshHeading(_Model):
    """A MeSH descriptor with its unique id, major-topic flag, and qualifiers as (name, ui, major)."""

    descriptor: str
    ui: str = ""
    major: bool = False
    qualifiers: tuple[tuple[str, str, bool], ...] = ()


class MedlineRecord(_Model):
    """One citation (see the module docstring)."""

    pmid: int
    version: int = 1
    doi: str = ""
    title: str
    abstract: tuple[AbstractSection, ...] = ()
    authors: tuple[Author, ...] = ()
    journal: str = ""
    journal_abbrev: str = ""
    issn: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    languages: tuple[str, ...] = ()
    year: int | None = None
    month: int | None = None
    publication_types: tuple[str, ...] = ()
    mesh: tuple[MeshHeading, ...] = ()
    keywords: tuple[str, ...] = ()
    line: int = 0
    """The line of the file the record starts on."""

    @property
    def abstract_text(self) -> str:
        """The abstract as one text, each labelled section starting with its label."""
        return "\n".join(f"{s.label}: {s.text}" if s.label else s.text for s in self.abstract)


class Deletion(_Model):
    """A ``<DeleteCitation>``: these PMIDs are withdrawn."""

    pmids: tuple[int, ...]
    line: int = 0


class Problem(_Model):
    """A record skipped or a file cut short: where, and why (never the record's text)."""

    file: str
    line: int
    pmid: int | None = None
    message: str


MedlineEvent = MedlineRecord | Deletion | Problem


def _text(element: etree._Element | None) -> str:
    """All text inside ``element`` (inline markup such as ``<i>`` kept as its words), whitespace collapsed."""
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())


def _texts(parent: etree._Element, path: str) -> tuple[str, ...]:
    """The texts (as `_text` reads them) of the elements at ``path`` under ``parent``, those not empty."""
    return tuple(text for text in (_text(x) for x in parent.iterfind(path)) if text)


def _pmid_and_version(parent: etree._Element) -> tuple[int, str]:
    """The PMID of ``parent``'s ``<PMID>`` and its ``Version`` attribute as written (``"1"`` when absent).

    Raises:
        ValueError: no ``<PMID>``, or one that is not a number.
    """
    found = parent.find("PMID")
    if found is None or not (found.text or "").strip().isdigit():
        raise ValueError("no PMID")
    return int((found.text or "").strip()), found.get("Version", "1")


def _month(word: str) -> int | None:
    word = word.strip().lower()
    if word.isdigit():
        number = int(word)
        return number if 1 <= number <= 12 else None
    return MONTHS.get(word[:3]) or _SEASONS.get(word)


def publication_date(pub_date: etree._Element | None) -> tuple[int | None, int | None]:
    """Year and month of a ``<PubDate>``, from ``Year``/``Month`` or a ``MedlineDate`` ("1998 Dec-1999 Jan": 1998,
    12; "2000 Spring": 2000, 3).

    Example:
        >>> publication_date(etree.fromstring("<PubDate><MedlineDate>2000 Spring</MedlineDate></PubDate>"))
        (2000, 3)
    """
    if pub_date is None:
        return None, None
    year = pub_date.findtext("Year")
    if year and year.strip().isdigit():
        month = pub_date.findtext("Month")
        return int(year), _month(month) if month else None
    medline = pub_date.findtext("MedlineDate") or ""
    found = _YEAR.search(medline)
    if found is None:
        return None, None
    after = medline[found.end() :].strip().split()
    return int(found.group(1)), _month(re.split(r"[-/]", after[0])[0]) if after else None


def _authors(article: etree._Element) -> tuple[Author, ...]:
    authors = []
    for author in article.iterfind("AuthorList/Author"):
        affiliations = _texts(author, "AffiliationInfo/Affiliation")
        authors.append(
            Author(
                last=_text(author.find("LastName")),
                fore=_text(author.find("ForeName")),
                initials=_text(author.find("Initials")),
                collective=_text(author.find("CollectiveName")),
                affiliations=affiliations,
            )
        )
    return tuple(authors)


def _mesh(citation: etree._Element) -> tuple[MeshHeading, ...]:
    headings = []
    for heading in citation.iterfind("MeshHeadingList/MeshHeading"):
        descriptor = heading.find("DescriptorName")
        if descriptor is None:
            continue
        qualifiers = tuple(
            (_text(q), q.get("UI", ""), q.get("MajorTopicYN") == "Y") for q in heading.iterfind("QualifierName")
        )
        headings.append(
            MeshHeading(
                descriptor=_text(descriptor),
                ui=descriptor.get("UI", ""),
                major=descriptor.get("MajorTopicYN") == "Y",
                qualifiers=qualifiers,
            )
        )
    return tuple(headings)


def _pages(article: etree._Element) -> str:
    pages = article.findtext("Pagination/MedlinePgn")
    if pages:
        return str(pages).strip()
    start, end = article.findtext("Pagination/StartPage"), article.findtext("Pagination/EndPage")
    return "-".join(part.strip() for part in (start, end) if part)


def _doi(
    element: etree._Element,
    paths: tuple[str, ...] = ("PubmedData/ArticleIdList/ArticleId", "MedlineCitation/Article/ELocationID"),
) -> str:
    for path in paths:
        for item in element.iterfind(path):
            if (item.get("IdType") or item.get("EIdType")) == "doi" and item.text:
                return str(item.text).strip()
    return ""


def _abstract(parent: etree._Element) -> tuple[AbstractSection, ...]:
    """The abstract's sections with their structured labels, those with text."""
    return tuple(
        AbstractSection(label=part.get("Label", ""), category=part.get("NlmCategory", ""), text=_text(part))
        for part in parent.iterfind("Abstract/AbstractText")
        if _text(part)
    )


def parse_article(element: etree._Element) -> MedlineRecord:
    """A ``<PubmedArticle>`` element as a record.

    Raises:
        ValueError: no PMID, or no title; the message names what is missing.
    """
    citation = element.find("MedlineCitation")
    if citation is None:
        raise ValueError("no MedlineCitation")
    pmid, version = _pmid_and_version(citation)
    article = citation.find("Article")
    if article is None:
        raise ValueError("no Article")
    title = _text(article.find("ArticleTitle")) or _text(article.find("VernacularTitle"))
    if not title:
        raise ValueError("no ArticleTitle")
    journal = article.find("Journal")
    year, month = publication_date(journal.find("JournalIssue/PubDate") if journal is not None else None)
    if year is None:
        year, month = publication_date(article.find("ArticleDate"))
    return MedlineRecord(
        pmid=pmid,
        version=int(version or 1),
        doi=_doi(element),
        title=title,
        abstract=_abstract(article),
        authors=_authors(article),
        journal=_text(journal.find("Title")) if journal is not None else "",
        journal_abbrev=_text(journal.find("ISOAbbreviation")) if journal is not None else "",
        issn=_text(journal.find("ISSN")) if journal is not None else "",
        volume=_text(journal.find("JournalIssue/Volume")) if journal is not None else "",
        issue=_text(journal.find("JournalIssue/Issue")) if journal is not None else "",
        pages=_pages(article),
        languages=_texts(article, "Language"),
        year=year,
        month=month,
        publication_types=tuple(_text(x) for x in article.iterfind("PublicationTypeList/PublicationType")),
        mesh=_mesh(citation),
        keywords=_texts(citation, "KeywordList/Keyword"),
        line=element.sourceline or 0,
    )


def parse_book(element: etree._Element) -> MedlineRecord:
    """A ``<PubmedBookArticle>`` (a book or a chapter of one, as NCBI Bookshelf's documents are) as a record: the
    chapter's title, else the book's; the book's title where an article has its journal; the book's publication
    date; the document's authors (else the book's), abstract, pages, languages, publication types, keywords and DOI.

    Raises:
        ValueError: no PMID, or no title; the message names what is missing.

    Example:
        >>> book = parse_book(etree.fromstring(
        ...     "<PubmedBookArticle><BookDocument><PMID Version='1'>20301295</PMID><Book><Publisher>"
        ...     "<PublisherName>University of Washington</PublisherName></Publisher><BookTitle>GeneReviews</BookTitle>"
        ...     "<PubDate><Year>1993</Year></PubDate></Book><ArticleTitle>Alpha-Thalassemia</ArticleTitle>"
        ...     "<AuthorList Type='authors'><Author><LastName>Origa</LastName><Initials>R</Initials></Author>"
        ...     "</AuthorList><PublicationType UI='D016454'>Review</PublicationType></BookDocument>"
        ...     "</PubmedBookArticle>"))
        >>> book.pmid, book.title, book.journal, book.year, book.authors[0].display, book.publication_types
        (20301295, 'Alpha-Thalassemia', 'GeneReviews', 1993, 'Origa R', ('Review',))
    """
    document = element.find("BookDocument")
    if document is None:
        raise ValueError("no BookDocument")
    pmid, version = _pmid_and_version(document)
    book = document.find("Book")
    book_title = _text(book.find("BookTitle")) if book is not None else ""
    title = _text(document.find("ArticleTitle")) or _text(document.find("VernacularTitle")) or book_title
    if not title:
        raise ValueError("no ArticleTitle or BookTitle")
    year, month = publication_date(book.find("PubDate") if book is not None else None)
    authors = _authors(document) or (_authors(book) if book is not None else ())
    return MedlineRecord(
        pmid=pmid,
        version=int(version or 1),
        doi=_doi(element, ("BookDocument/ArticleIdList/ArticleId", "PubmedBookData/ArticleIdList/ArticleId")),
        title=title,
        abstract=_abstract(document),
        authors=authors,
        journal=book_title,
        volume=_text(book.find("Volume")) if book is not None else "",
        pages=_pages(document),
        languages=_texts(document, "Language"),
        year=year,
        month=month,
        publication_types=tuple(_text(x) for x in document.iterfind("PublicationType")),
        keywords=_texts(document, "KeywordList/Keyword"),
        line=element.sourceline or 0,
    )


def _open(path: Path) -> BinaryIO:
    with path.open("rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


CHUNK_BYTES: Final = 1 << 16
"""Bytes read at a time; memory holds one such block and the record being read, whatever the file's size."""
_RECORD_TAGS: Final = (b"PubmedArticle", b"PubmedBookArticle", b"DeleteCitation")
_RECORD_START: Final = re.compile(rb"<(PubmedArticle|PubmedBookArticle|DeleteCitation)[\s>/]")
_SET: Final = re.compile(rb"<(?:PubmedArticleSet|PubmedBookArticleSet)[\s>/]")
_LONGEST_START: Final = max(len(tag) for tag in _RECORD_TAGS) + 2
_PMID: Final = re.compile(rb"<PMID[^>]*>\s*(\d+)\s*</PMID>")


def _blocks(path: Path) -> Iterator[bytes]:
    """The file's bytes, decompressed, in blocks of `CHUNK_BYTES`."""
    with _open(path) as stream:
        while block := stream.read(CHUNK_BYTES):
            yield block


def read_medline(path: Path) -> Iterator[MedlineEvent]:
    """Every record, deletion and problem of one MEDLINE XML file, in file order (see the module docstring).

    The byte stream is split at its records' tags and each record parsed on its own (no DTD, no entities, no
    network), so a record that is not well-formed XML is a `Problem` (file, line, PMID when it can be found) and
    reading goes on at the next record; a file cut short keeps every record before the cut."""
    buffer = b""
    line = 1  # the line ``buffer`` starts on
    last_line = 0
    is_medline = False
    try:
        for block in _blocks(path):
            buffer += block
            is_medline = is_medline or _SET.search(buffer) is not None
            consumed, events = _split(path, buffer, line, final=False)
            for event in events:
                last_line = event.line or last_line
                yield event
            line += buffer.count(b"\n", 0, consumed)
            buffer = buffer[consumed:]
    except (EOFError, zlib.error, OSError) as exc:
        where = f"after line {last_line}" if last_line else "before the first record"
        yield Problem(file=str(path), line=last_line, message=f"the file is cut short or corrupt {where}: {exc}")
        return
    _, events = _split(path, buffer, line, final=True)
    yield from events
    if not is_medline and not last_line and not events:
        yield Problem(file=str(path), line=0, message="not MEDLINE XML: no PubmedArticleSet in the file")


def _split(path: Path, buffer: bytes, line: int, final: bool) -> tuple[int, list[MedlineEvent]]:
    """The whole records in ``buffer`` (which starts on ``line``) as events, and how many bytes they took; with
    ``final``, a record left without its end tag is a problem: the file was cut short there."""
    events: list[MedlineEvent] = []
    position = 0
    at, counted = line, 0  # the line of byte ``counted``: newlines are counted once, not from the block's start
    start = _RECORD_START.search(buffer)
    while start is not None:
        tag = start.group(1)
        at += buffer.count(b"\n", counted, start.start())
        counted = start.start()
        following = _RECORD_START.search(buffer, start.end())
        close = buffer.find(b"</" + tag + b">", start.end())
        if close >= 0 and (following is None or close < following.start()):
            end = close + len(tag) + 3
            events.append(_parse(path, buffer[start.start() : end], at))
            position = end
        elif following is not None:  # no end tag before the next record: this one is broken, the next is read
            events.append(_broken(path, buffer[start.start() : following.start()], at, f"no </{tag.decode()}>"))
            position = following.start()
        elif final:
            where = f"the file is cut short or corrupt after line {at}: <{tag.decode()}> is not closed"
            events.append(Problem(file=str(path), line=at, pmid=_pmid(buffer[start.start() :]), message=where))
            return len(buffer), events
        else:  # the record goes on in the next block
            return start.start(), events
        start = following  # the next record's start tag, searched for once
    if final:
        return len(buffer), events
    return max(position, len(buffer) - _LONGEST_START), events  # a start tag may be cut at the block's end


def _parse(path: Path, record: bytes, line: int) -> MedlineEvent:
    """One record's bytes as an event, parsed with a fresh parser that loads no DTD and resolves no entity."""
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, huge_tree=True)
    try:
        element = etree.fromstring(record, parser)
    except etree.XMLSyntaxError as exc:
        reason = str(exc.msg or "").split(", line ")[0] or "syntax error"
        return _broken(path, record, line + max((exc.lineno or 1) - 1, 0), f"not well-formed XML ({reason})")
    event = _event(path, element)
    return event.model_copy(update={"line": line + (event.line or 1) - 1})


def _pmid(record: bytes) -> int | None:
    found = _PMID.search(record)
    return int(found.group(1)) if found else None


def _broken(path: Path, record: bytes, line: int, reason: str) -> Problem:
    """A record that could not be read: where, its PMID when one can be found, and why (never its text)."""
    return Problem(file=str(path), line=line, pmid=_pmid(record), message=f"{reason}; skipped")


def _event(path: Path, element: etree._Element) -> MedlineEvent:
    if element.tag == "DeleteCitation":
        pmids = tuple(int(p.text) for p in element.iterfind("PMID") if p.text and p.text.strip().isdigit())
        return Deletion(pmids=pmids, line=element.sourceline or 0)
    try:
        return parse_book(element) if element.tag == "PubmedBookArticle" else parse_article(element)
    except ValueError as exc:
        pmid_text = element.findtext("MedlineCitation/PMID") or element.findtext("BookDocument/PMID") or ""
        pmid = int(pmid_text) if pmid_text.strip().isdigit() else None
        return Problem(file=str(path), line=element.sourceline or 0, pmid=pmid, message=str(exc))
