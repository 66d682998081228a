"""MEDLINE/PubMed XML (issue 20): every field of DTD-conformant records read back, MedlineDate forms, update files
(revised versions, DeleteCitation), malformed records reported with file, line and PMID and skipped, a truncated gzip
keeping what came before it, and memory that does not grow with the file."""

from __future__ import annotations

import doctest
import gzip
import hashlib
import tracemalloc
from importlib import resources
from pathlib import Path

import pytest
from lxml import etree

from clinrag.errors import ConfigError
from clinrag.ingest import medline
from clinrag.ingest.medline import Deletion, MedlineRecord, Problem, publication_date, read_medline
from clinrag.ingest.synthetic import medline as synthetic
from clinrag.ingest.synthetic.medline import article_xml, synthetic_records, write_medline


def _records(path: Path) -> list[MedlineRecord]:
    return [event for event in read_medline(path) if isinstance(event, MedlineRecord)]


@pytest.mark.parametrize("name", ["base.xml", "base.xml.gz"])
def test_every_field_is_read_back(tmp_path: Path, name: str) -> None:
    written = write_medline(tmp_path / name, synthetic_records(40, seed=3))
    read = _records(tmp_path / name)
    assert len(read) == len(written)
    for got, expected in zip(read, written, strict=True):
        assert got.model_dump(exclude={"line"}) == expected.model_dump(exclude={"line"})
        assert got.line > 0
    assert any(a.collective for r in read for a in r.authors)  # collective names too
    assert all(r.abstract[0].label == "BACKGROUND" for r in read)
    assert "RESULTS: " in read[0].abstract_text


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        ("<PubDate><Year>2019</Year><Month>Mar</Month></PubDate>", (2019, 3)),
        ("<PubDate><Year>2019</Year><Month>11</Month></PubDate>", (2019, 11)),
        ("<PubDate><Year>2019</Year></PubDate>", (2019, None)),
        ("<PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>", (1998, 12)),
        ("<PubDate><MedlineDate>2000 Spring</MedlineDate></PubDate>", (2000, 3)),
        ("<PubDate><MedlineDate>1975-1976</MedlineDate></PubDate>", (1975, None)),
        ("<PubDate><MedlineDate>2001 Jul/Aug</MedlineDate></PubDate>", (2001, 7)),
    ],
)
def test_publication_dates_in_every_form(xml: str, expected: tuple[int | None, int | None]) -> None:
    assert publication_date(etree.fromstring(xml)) == expected


def test_an_update_file_revises_and_deletes(tmp_path: Path) -> None:
    base = synthetic_records(5, seed=1)
    revised = base[2].model_copy(update={"version": 2, "title": "A corrected title."})
    write_medline(tmp_path / "update.xml", [revised], deleted=[base[0].pmid, base[1].pmid])
    events = list(read_medline(tmp_path / "update.xml"))
    assert isinstance(events[0], MedlineRecord)
    assert (events[0].pmid, events[0].version, events[0].title) == (base[2].pmid, 2, "A corrected title.")
    assert events[-1] == Deletion(pmids=(base[0].pmid, base[1].pmid), line=events[-1].line)


def test_a_malformed_record_is_reported_with_file_line_and_pmid_and_skipped(tmp_path: Path) -> None:
    good = synthetic_records(3, seed=2)
    no_title = (
        article_xml(good[1])
        .replace("<ArticleTitle>", "<VernacularTitle>")
        .replace("</ArticleTitle>", "</VernacularTitle>")
        .replace(good[1].title, "")
    )
    no_pmid = article_xml(good[2]).replace(f'<PMID Version="1">{good[2].pmid}</PMID>', "")
    path = tmp_path / "bad.xml"
    path.write_text(synthetic.HEADER + article_xml(good[0]) + no_title + no_pmid + "</PubmedArticleSet>\n")
    events = list(read_medline(path))
    assert [type(e).__name__ for e in events] == ["MedlineRecord", "Problem", "Problem"]
    first, second = events[1], events[2]
    assert isinstance(first, Problem)
    assert isinstance(second, Problem)
    assert (first.pmid, first.line, first.message) == (good[1].pmid, 5, "no ArticleTitle")  # the header takes lines 1-3
    assert (second.pmid, second.line, second.message) == (None, 6, "no PMID")
    assert first.file == str(path)


def test_a_truncated_gzip_keeps_what_came_before_and_says_where_it_stopped(tmp_path: Path) -> None:
    whole = tmp_path / "whole.xml.gz"
    write_medline(whole, synthetic_records(200, seed=4))
    cut = tmp_path / "cut.xml.gz"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    events = list(read_medline(cut))
    records = [e for e in events if isinstance(e, MedlineRecord)]
    assert 20 < len(records) < 200
    assert records == _records(whole)[: len(records)]
    assert isinstance(events[-1], Problem)
    assert "cut short" in events[-1].message
    assert events[-1].line >= records[-1].line


def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    def peak(count: int) -> int:
        path = tmp_path / f"{count}.xml.gz"
        write_medline(path, synthetic_records(count, seed=5))
        tracemalloc.start()
        assert sum(1 for _ in read_medline(path)) == count
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(300), peak(3000)
    assert large < 2 * small  # ten times the records, not ten times the memory


def test_the_modules_examples_hold() -> None:
    for module in (medline, synthetic):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0
        assert outcome.failed == 0


def test_the_gzip_is_a_real_gzip(tmp_path: Path) -> None:
    write_medline(tmp_path / "x.xml.gz", synthetic_records(2))
    with gzip.open(tmp_path / "x.xml.gz", "rt") as handle:
        assert "<PubmedArticleSet>" in handle.read()


def test_citations_for_a_seed_are_byte_identical_to_the_reference(tmp_path: Path) -> None:
    # the digest of the file written before the topics, journals and designs moved to medline.toml (issue 23)
    write_medline(tmp_path / "base.xml", synthetic_records(500, seed=0))
    digest = hashlib.sha256((tmp_path / "base.xml").read_bytes()).hexdigest()
    assert digest == "e7a7dce74d742419ccbc624437a12063e6de40b5355f5f9a6241c4d5388516d1"


def test_malformed_citation_content_is_reported_by_field(tmp_path: Path) -> None:
    shipped = resources.files("clinrag.ingest.synthetic") / "medline.toml"
    broken = shipped.read_text(encoding="utf-8").replace('outcomes = ["stroke"', 'outcome = ["stroke"', 1)
    (tmp_path / "medline.toml").write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        synthetic.load_content(tmp_path / "medline.toml")
    message = str(raised.value)
    assert "medline.toml: topics.0.outcomes: Field required" in message
    assert "medline.toml: topics.0.outcome: Unexpected keyword argument" in message
