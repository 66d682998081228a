"""Building a node's leaf indexes from its chunk store: one shard per leaf, incremental, embedder-safe."""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

import numpy as np
import pytest

from clinrag.index.edge import EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors, normalise
from clinrag.index.indexer import build_indexes, leaf_folders
from clinrag.index.store import EmbedderMismatchError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings


class HashingEmbedder:
    """A real (if crude) embedder for fast tests: a bag of hashed words, normalised."""

    id = "trigram-hash/test"
    dimension = 64

    def embed(self, texts: list[str]) -> Vectors:
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
    assert all(leaf.added == 0 and leaf.removed == 0 for leaf in again.leaves.values())

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
