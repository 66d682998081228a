"""Literature into a library node (issue 20): citations become chunks with their metadata, idempotently; update
files revise and delete, older versions never replace newer; malformed records are reported and skipped; semantic
paragraphs split where neighbouring sentences drift apart; abstracts are never labelled sensitive."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np

from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest import literature
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.literature import abstract_chunks, ingest_medline, semantic_paragraphs
from clinrag.ingest.synthetic import medline as synthetic
from clinrag.ingest.synthetic.medline import article_xml, synthetic_records, write_medline
from clinrag.types import SourceKind


def _store(tmp_path: Path) -> ChunkStore:
    return ChunkStore.open(tmp_path / "node" / "chunks.sqlite")


def test_citations_become_chunks_with_their_metadata(tmp_path: Path) -> None:
    records = write_medline(tmp_path / "base.xml.gz", synthetic_records(30, seed=1))
    with _store(tmp_path) as store:
        report = ingest_medline([tmp_path / "base.xml.gz"], store, "LIB")
        assert (report.new, report.chunks, report.problems) == (30, 30, [])
        chunks = {chunk.citation.pmid: chunk for chunk in store.chunks() if chunk.citation is not None}
    assert set(chunks) == {r.pmid for r in records}
    first = chunks[records[0].pmid]
    assert first.source_kind == SourceKind.ABSTRACT
    assert (first.org, first.dept, first.subject_id) == ("LIB", "literature", None)
    assert first.text.startswith(records[0].title)
    assert "CONCLUSIONS: " in first.text
    assert first.citation is not None
    assert first.citation.authors[0] == records[0].authors[0].display
    assert first.citation.mesh[0] == records[0].mesh[0].descriptor
    assert first.citation.year == records[0].year
    assert first.charttime is not None
    assert first.charttime.year == records[0].year  # "since 2020" filters literature as it does notes
    assert first.context.startswith(first.citation.short)  # the metadata header is indexed, not shown


def test_running_it_again_changes_nothing_and_updates_revise_and_delete(tmp_path: Path) -> None:
    base = synthetic_records(10, seed=2)
    write_medline(tmp_path / "base.xml", base)
    revised = base[3].model_copy(update={"version": 2, "title": "A corrected title."})
    older = base[4].model_copy(update={"title": "An older title."})  # version 1 again: never replaces
    write_medline(tmp_path / "update.xml", [revised], deleted=[base[0].pmid])
    with _store(tmp_path) as store:
        ingest_medline([tmp_path / "base.xml"], store, "LIB")
        again = ingest_medline([tmp_path / "base.xml"], store, "LIB")
        assert (again.new, again.changed, again.unchanged) == (0, 0, 10)
        update = ingest_medline([tmp_path / "update.xml"], store, "LIB")
        assert (update.changed, update.deleted) == (1, 1)
        write_medline(tmp_path / "stale.xml", [revised.model_copy(update={"version": 1}), older])
        stale = ingest_medline([tmp_path / "stale.xml"], store, "LIB")
        assert (stale.older, stale.changed) == (1, 1)  # base[4] v1 with new content is a change of v1
        titles = {c.citation.pmid: c.citation.title for c in store.chunks() if c.citation is not None}
    assert base[0].pmid not in titles
    assert titles[base[3].pmid] == "A corrected title."
    assert len(titles) == 9


def test_a_malformed_record_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    good = synthetic_records(3, seed=3)
    broken = article_xml(good[1]).replace(f'<PMID Version="1">{good[1].pmid}</PMID>', "")
    path = tmp_path / "bad.xml"
    path.write_text(synthetic.HEADER + article_xml(good[0]) + broken + article_xml(good[2]) + "</PubmedArticleSet>\n")
    with _store(tmp_path) as store:
        report = ingest_medline([path], store, "LIB")
    assert report.new == 2
    (problem,) = report.problems
    assert (problem.file, problem.line, problem.message) == (str(path), 5, "no PMID")


def test_semantic_paragraphs_split_at_local_minima() -> None:
    vectors = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]], dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert semantic_paragraphs(list("abcde"), vectors) == [["a", "b"], ["c", "d"], ["e"]]
    assert semantic_paragraphs(["one"], vectors[:1]) == [["one"]]


def test_paragraph_chunks_with_the_real_embedder(tmp_path: Path) -> None:
    record = synthetic_records(1, seed=4)[0]
    embedder = OnnxMiniLmEmbedder(threads=2)
    chunks = abstract_chunks(record, "LIB", "literature", "paragraphs", embedder.embed)
    assert 1 <= len(chunks) <= 8
    assert all(chunk.text.startswith(record.title) for chunk in chunks)
    assert [c.section for c in chunks] == [f"Paragraph {i}" for i in range(1, len(chunks) + 1)]
    words = " ".join(c.text.split("\n", 1)[1] for c in chunks)
    assert all(section.text.split()[0] in words for section in record.abstract)  # every sentence kept


def test_abstracts_are_never_labelled_sensitive(tmp_path: Path) -> None:
    record = synthetic_records(1, seed=5)[0].model_copy(
        update={"title": "Lorazepam versus phenobarbital for alcohol withdrawal and heroin use: a trial."}
    )
    write_medline(tmp_path / "x.xml", [record])
    with _store(tmp_path) as store:
        ingest_medline([tmp_path / "x.xml"], store, "LIB")
        (chunk,) = list(store.chunks())
    assert chunk.sensitivity == ()


def test_the_modules_examples_hold() -> None:
    outcome = doctest.testmod(literature)
    assert outcome.attempted > 0
    assert outcome.failed == 0
