"""Building a node's leaf indexes from its chunk store: one shard per leaf, incremental, embedder-safe."""

from __future__ import annotations

import csv
import shutil
import zlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from clinrag.index.backend import LOCAL_DIR, leaf_names, open_leaf_store
from clinrag.index.edge import MANIFEST_FILE, EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors, normalise
from clinrag.index.indexer import VectorReuse, build_indexes, index_chunks, leaf_folders
from clinrag.index.store import EmbedderMismatchError, IndexManifest, StoreQuery
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IndexSettings, IngestSettings
from clinrag.types import Chunk, SearchFilters

BACKENDS = {"edge": IndexSettings(), "server-local": IndexSettings(backend="server")}


class HashingEmbedder:
    """A real (if crude) embedder for fast tests: a bag of hashed words, normalised."""

    id = "trigram-hash/test"
    dimension = 64

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                rows[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
        return normalise(rows)


@pytest.fixture
def node(cohort: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "node"
    shutil.copytree(cohort / "hospitals/B", tmp_path / "source")
    with ChunkStore.open(folder / "chunks.sqlite") as chunks:
        ingest_mimic(tmp_path / "source", chunks, IngestSettings(tables=("admissions",)))
    return folder


def test_one_index_per_leaf_with_every_chunk(node: Path) -> None:
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        summary = build_indexes(chunks, node / "index", HashingEmbedder())
        expected = {dept: chunks.chunk_ids(dept=dept) for dept in ("admissions", "medicine", "cardiothoracic")}
    assert set(summary.leaves) == set(expected)
    assert set(leaf_folders(node / "index")) == set(expected)
    for leaf, ids in expected.items():
        store = EdgeStore.open(node / "index" / leaf)
        assert store.chunk_ids() == ids
        assert store.manifest.embedder_id == "trigram-hash/test"
        store.close()


def test_rebuilding_is_incremental(node: Path, tmp_path: Path) -> None:
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        build_indexes(chunks, node / "index", HashingEmbedder())
        again = build_indexes(chunks, node / "index", HashingEmbedder())
    assert all(leaf.added == leaf.removed == leaf.updated == 0 for leaf in again.leaves.values())
    assert all(leaf.kept > 0 for leaf in again.leaves.values())

    notes = tmp_path / "source/note/discharge.csv"
    lines = notes.read_text().split("\n10")  # drop the last note of the file
    notes.write_text("\n10".join(lines[:-1]) + "\n")
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        ingest_mimic(tmp_path / "source", chunks, IngestSettings(tables=("admissions",)))
        after = build_indexes(chunks, node / "index", HashingEmbedder())
        for leaf in after.leaves:
            store = EdgeStore.open(node / "index" / leaf)
            assert store.chunk_ids() == chunks.chunk_ids(dept=leaf)
            store.close()
    assert sum(leaf.removed for leaf in after.leaves.values()) > 0


def test_another_embedder_is_refused(node: Path) -> None:
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        build_indexes(chunks, node / "index", HashingEmbedder())
        with pytest.raises(EmbedderMismatchError, match="trigram-hash/test"):
            build_indexes(chunks, node / "index", OnnxMiniLmEmbedder(threads=1))


def _rewrite(path: Path, change: dict[str, dict[str, str]], key: str) -> None:
    """Set columns of the CSV rows whose ``key`` column is in ``change`` (``{key value: {column: value}}``)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(change.get(row[key], {}))
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_changed_service_or_date_reaches_the_index_without_embedding(
    node: Path, tmp_path: Path, backend: str
) -> None:
    settings = BACKENDS[backend]
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        build_indexes(chunks, node / "index", HashingEmbedder(), index=settings)
    with (tmp_path / "source/hosp/services.csv").open(newline="") as handle:
        stay = next(row["hadm_id"] for row in csv.DictReader(handle) if row["curr_service"] == "CSURG")
    with (tmp_path / "source/note/discharge.csv").open(newline="") as handle:
        note = next(row["note_id"] for row in csv.DictReader(handle) if row["hadm_id"] == stay)
    # Same department (both codes map to cardiothoracic at hospital B), same text: only metadata changes.
    _rewrite(tmp_path / "source/hosp/services.csv", {stay: {"curr_service": "CMED"}}, "hadm_id")
    _rewrite(tmp_path / "source/note/discharge.csv", {note: {"charttime": "2031-06-01 00:00:00"}}, "note_id")
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        ingest_mimic(tmp_path / "source", chunks, IngestSettings(tables=("admissions",)))
        after = build_indexes(chunks, node / "index", HashingEmbedder(), index=settings)
        expected = {c.chunk_id for c in chunks.chunks(dept="cardiothoracic") if c.note_id == note}
    leaf = after.leaves["cardiothoracic"]
    assert leaf.updated == len(expected) > 0
    assert leaf.added == leaf.removed == 0  # nothing re-embedded
    store = open_leaf_store(node / "index", "cardiothoracic", settings)
    try:
        assert store.count(SearchFilters(hadm_ids=(int(stay),), services=("CSURG",))) == 0
        moved = SearchFilters(services=("CMED",), start=datetime(2031, 1, 1))
        assert store.count(moved) == len(expected)
        vector = HashingEmbedder().embed(["chest pain"])[0]
        for mode in ("dense", "hybrid"):
            query = StoreQuery(mode=mode, dense=vector, sparse={1: 1.0}, filters=moved, limit=100)
            assert {hit.chunk.chunk_id for hit in store.query(query)} == expected
    finally:
        store.close()
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        again = build_indexes(chunks, node / "index", HashingEmbedder(), index=settings)
    assert all(leaf.added == leaf.removed == leaf.updated == 0 for leaf in again.leaves.values())


def test_a_server_backend_in_local_mode_keeps_one_collection_per_leaf(node: Path) -> None:
    local = BACKENDS["server-local"]
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        summary = build_indexes(chunks, node / "index", HashingEmbedder(), index=local)
        expected = {leaf: chunks.chunk_ids(dept=leaf) for leaf in summary.leaves}
    assert leaf_names(node / "index", local) == sorted(expected)
    assert leaf_names(node / "index") == [] == sorted(leaf_folders(node / "index"))  # no Edge shard was made
    for leaf, ids in expected.items():
        assert (node / "index" / leaf / LOCAL_DIR).is_dir()
        assert not (node / "index" / leaf / MANIFEST_FILE).exists()
        store = open_leaf_store(node / "index", leaf, local)
        assert store.chunk_ids() == ids
        assert store.manifest.embedder_id == "trigram-hash/test"
        store.close()
    with ChunkStore.open(node / "chunks.sqlite") as chunks, pytest.raises(EmbedderMismatchError):
        build_indexes(chunks, node / "index", OnnxMiniLmEmbedder(threads=1), index=local)


class CountingEmbedder(HashingEmbedder):
    """Counts the texts it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return super().embed(texts)


def test_identical_texts_are_embedded_once(tmp_path: Path) -> None:
    texts = ["Allergies: penicillin", "Family History: non-contributory", "Allergies: penicillin", "CHF exacerbation"]
    chunks = [Chunk.create(source_id=f"note:{i}", text=t, org="A", dept="medicine") for i, t in enumerate(texts)]
    embedder = CountingEmbedder()
    store = EdgeStore.create(tmp_path / "leaf", IndexManifest.new(embedder.id, embedder.dimension, 3.0))
    try:
        assert index_chunks(store, iter(chunks), embedder) == 4
        assert sorted(embedder.texts) == sorted(set(texts))
        assert store.chunk_ids() == {c.chunk_id for c in chunks}
        query = StoreQuery(mode="dense", dense=embedder.embed(["Allergies: penicillin"])[0], sparse=None, limit=2)
        assert [round(hit.score, 5) for hit in store.query(query)] == [1.0, 1.0]  # both copies got the vector
    finally:
        store.close()


def test_texts_seen_in_an_earlier_batch_or_leaf_are_not_embedded_again(tmp_path: Path) -> None:
    first = ["Allergies: penicillin", "CHF exacerbation"]
    second = ["Allergies: penicillin", "Hip fracture"]
    embedder = CountingEmbedder()
    reuse = VectorReuse(embedder)
    for leaf, texts in (("medicine", first), ("orthopaedics", second)):
        chunks = [Chunk.create(source_id=f"note:{leaf}{i}", text=t, org="A", dept=leaf) for i, t in enumerate(texts)]
        store = EdgeStore.create(tmp_path / leaf, IndexManifest.new(embedder.id, embedder.dimension, 3.0))
        try:
            assert index_chunks(store, iter(chunks), embedder, reuse=reuse) == 2
            vector = embedder.embed(["Allergies: penicillin"])[0]
            hit = store.query(StoreQuery(mode="dense", dense=vector, sparse=None, limit=1))[0]
            assert hit.chunk.text == "Allergies: penicillin"
            assert round(hit.score, 5) == 1.0
        finally:
            store.close()
    assert embedder.texts.count("Allergies: penicillin") == 1 + 2  # embedded once for the index, twice to query
    assert reuse.reused == 1


def test_reuse_holds_at_most_its_limit() -> None:
    reuse = VectorReuse(CountingEmbedder(), limit=2)
    reuse.embed(["a", "b", "c"])
    assert len(reuse._vectors) == 2
    assert np.allclose(reuse.embed(["c"]), CountingEmbedder().embed(["c"]))


def test_a_failing_write_stops_indexing(tmp_path: Path) -> None:
    class Broken(EdgeStore):
        def upsert(self, chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]) -> None:
            raise OSError("disk full")

    embedder = HashingEmbedder()
    store = Broken.create(tmp_path / "leaf", IndexManifest.new(embedder.id, embedder.dimension, 3.0))
    chunks = [Chunk.create(source_id=f"note:{i}", text=f"text {i}", org="A", dept="d") for i in range(3)]
    try:
        with pytest.raises(OSError, match="disk full"):
            index_chunks(store, iter(chunks), embedder)
    finally:
        store.close()
