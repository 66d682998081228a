"""MEDLINE XML robustness (issue 20): a record that is not well-formed XML — a bare ``&`` in a title, a record left
without its end tag — is reported with file, line and PMID and skipped, and every later record is still read (the
byte stream is split at its records and each is parsed on its own); records split across read blocks are read as a
whole; ``PubmedBookArticle`` records (NCBI Bookshelf) are read; a file that is not MEDLINE says so."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from clinrag.ingest import medline
from clinrag.ingest.medline import MedlineRecord, Problem, read_medline
from clinrag.ingest.synthetic.medline import HEADER, article_xml, synthetic_records, write_medline

BOOK = """<PubmedBookArticle><BookDocument><PMID Version="1">20301295</PMID>
<ArticleIdList><ArticleId IdType="bookaccession">NBK1435</ArticleId></ArticleIdList>
<Book><Publisher><PublisherName>University of Washington, Seattle</PublisherName></Publisher>
<BookTitle book="gene">GeneReviews&#174;</BookTitle><PubDate><Year>1993</Year><Month>Nov</Month></PubDate>
<AuthorList Type="editors"><Author><LastName>Adam</LastName><ForeName>Margaret P</ForeName><Initials>MP</Initials>
</Author></AuthorList></Book>
<ArticleTitle book="gene" part="a-thal">Alpha-Thalassemia</ArticleTitle><Language>eng</Language>
<AuthorList Type="authors"><Author><LastName>Origa</LastName><ForeName>Raffaella</ForeName><Initials>R</Initials>
</Author><Author><LastName>Moi</LastName><Initials>P</Initials></Author></AuthorList>
<PublicationType UI="D016454">Review</PublicationType>
<Abstract><AbstractText Label="CLINICAL CHARACTERISTICS">Alpha-thalassemia has two forms.</AbstractText></Abstract>
<KeywordList Owner="NOTNLM"><Keyword>HBA1</Keyword></KeywordList></BookDocument>
<PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">20301295</ArticleId>
<ArticleId IdType="doi">10.0000/example.book</ArticleId></ArticleIdList></PubmedBookData></PubmedBookArticle>
"""


def _events(path: Path) -> list[MedlineRecord | Problem]:
    return [event for event in read_medline(path) if isinstance(event, MedlineRecord | Problem)]


@pytest.mark.parametrize("name", ["bad.xml", "bad.xml.gz"])
def test_a_record_that_is_not_well_formed_is_skipped_and_reading_goes_on(tmp_path: Path, name: str) -> None:
    good = synthetic_records(6, seed=3)
    ampersand = article_xml(good[1]).replace(good[1].title, "Salt & pepper: a trial.")
    unclosed = article_xml(good[3]).replace("</PubmedArticle>", "")
    body = HEADER + article_xml(good[0]) + ampersand + article_xml(good[2]) + unclosed
    body += article_xml(good[4]) + article_xml(good[5]) + "</PubmedArticleSet>\n"
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(body.encode()))
    else:
        path.write_text(body)
    events = _events(path)
    assert [type(e).__name__ for e in events] == ["MedlineRecord", "Problem", "MedlineRecord", "Problem"] + [
        "MedlineRecord"
    ] * 2
    assert [e.pmid for e in events] == [record.pmid for record in good]
    first, second = events[1], events[3]
    assert isinstance(first, Problem)
    assert isinstance(second, Problem)
    assert (first.file, first.line) == (str(path), 5)  # the header takes lines 1-3; one record a line
    assert first.message.startswith("not well-formed XML (")
    assert first.message.endswith("; skipped")
    assert "Salt" not in first.message  # where and why, never the record's text
    assert (second.line, second.message) == (7, "no </PubmedArticle>; skipped")
    assert [e.line for e in events if isinstance(e, MedlineRecord)] == [4, 6, 8, 9]


def test_records_across_read_blocks_are_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "base.xml.gz"
    write_medline(path, synthetic_records(25, seed=6), deleted=[1, 2])
    expected = list(read_medline(path))
    monkeypatch.setattr(medline, "CHUNK_BYTES", 7)  # every tag cut somewhere
    assert list(read_medline(path)) == expected
    assert len(expected) == 26


def test_a_book_article_is_read(tmp_path: Path) -> None:
    records = synthetic_records(2, seed=7)
    path = tmp_path / "books.xml"
    path.write_text(HEADER + article_xml(records[0]) + BOOK + article_xml(records[1]) + "</PubmedArticleSet>\n")
    events = _events(path)
    assert [e.pmid for e in events] == [records[0].pmid, 20301295, records[1].pmid]
    book = events[1]
    assert isinstance(book, MedlineRecord)
    assert (book.title, book.journal, book.year, book.month) == ("Alpha-Thalassemia", "GeneReviews®", 1993, 11)
    assert [a.display for a in book.authors] == ["Origa R", "Moi P"]  # the chapter's authors, not the editors
    assert book.publication_types == ("Review",)
    assert book.abstract[0].label == "CLINICAL CHARACTERISTICS"
    assert (book.doi, book.languages, book.keywords, book.line) == ("10.0000/example.book", ("eng",), ("HBA1",), 5)
    assert events[2].line == 5 + BOOK.count("\n")


def test_a_book_without_a_title_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "book.xml"
    untitled = BOOK.replace("<ArticleTitle", "<X").replace("</ArticleTitle>", "</X>").replace("GeneReviews&#174;", "")
    path.write_text(HEADER + untitled + "</PubmedArticleSet>\n")
    assert _events(path) == [
        Problem(file=str(path), line=4, pmid=20301295, message="no ArticleTitle or BookTitle"),
    ]


def test_a_file_that_is_not_medline_says_so(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><body>Not found</body></html>\n")
    assert _events(path) == [
        Problem(file=str(path), line=0, message="not MEDLINE XML: no PubmedArticleSet in the file"),
    ]
    empty = tmp_path / "empty.xml"
    empty.write_text(HEADER + "</PubmedArticleSet>\n")
    assert _events(empty) == []  # an update file with nothing in it is no problem


def test_a_plain_file_cut_inside_a_record_keeps_the_ones_before(tmp_path: Path) -> None:
    records = synthetic_records(4, seed=8)
    path = tmp_path / "cut.xml"
    text = HEADER + "".join(article_xml(r) for r in records[:3]) + article_xml(records[3])[:200]
    path.write_text(text)
    events = _events(path)
    assert [e.pmid for e in events] == [r.pmid for r in records]
    last = events[-1]
    assert isinstance(last, Problem)
    assert last.line == 7
    assert last.message == "the file is cut short or corrupt after line 7: <PubmedArticle> is not closed"
