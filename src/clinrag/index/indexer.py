"""Builds and updates a node's indexes from its chunk store: one Qdrant Edge shard per leaf (department).

Updates are incremental and idempotent: chunks whose ids are new are embedded and added, ids that left the
chunk store (a deleted or changed note) are removed, the rest is left alone. An index is only ever updated with
the embedder it was built with.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> from clinrag.ingest.pipeline import ingest_mimic
    >>> from clinrag.settings import IngestSettings
    >>> from clinrag.index.embed import OnnxMiniLmEmbedder
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out / "cohort", patients=10, seed=1, workers=1)
    >>> with ChunkStore.open(out / "chunks.sqlite") as chunks:
    ...     _ = ingest_mimic(out / "cohort/hospitals/C", chunks, IngestSettings(tables=()))
    ...     summary = build_indexes(chunks, out / "index", OnnxMiniLmEmbedder(threads=1))
    >>> summary.leaves["neurology"].added > 0
    True
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from clinrag.index.edge import MANIFEST_FILE, EdgeStore
from clinrag.index.embed import Embedder
from clinrag.index.lexical import Bm25Encoder, average_length
from clinrag.index.store import IndexManifest, VectorStore
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.types import Chunk

EMBED_BATCH = 256
OPTIMIZE_AFTER = 1000  # points added in one update before the vector index is rebuilt
SAMPLE_FOR_AVERAGE = 5000
ProgressCallback = Callable[[str, int], None]


@dataclass
class LeafSummary:
    """What one leaf's index update did."""

    added: int = 0
    removed: int = 0
    kept: int = 0
    seconds: float = 0.0

    @property
    def chunks_per_second(self) -> float:
        """Embedding and indexing throughput of this update."""
        return self.added / self.seconds if self.seconds else 0.0


@dataclass
class IndexSummary:
    """Per-leaf outcomes of `build_indexes`."""

    folder: Path
    embedder_id: str
    leaves: dict[str, LeafSummary] = field(default_factory=dict)


def leaf_folders(index_root: Path) -> dict[str, Path]:
    """The leaf indexes under a node's index folder, by leaf name."""
    if not index_root.is_dir():
        return {}
    return {p.name: p for p in sorted(index_root.iterdir()) if (p / MANIFEST_FILE).is_file()}


def _batches(chunks: Iterator[Chunk], size: int) -> Iterator[list[Chunk]]:
    while batch := list(itertools.islice(chunks, size)):
        yield batch


def index_chunks(
    store: VectorStore,
    chunks: Iterator[Chunk],
    embedder: Embedder,
    on_progress: Callable[[int], None] | None = None,
) -> int:
    """Embed and upsert ``chunks`` into ``store``; returns how many."""
    encoder = Bm25Encoder(store.manifest.bm25_average_length)
    done = 0
    for batch in _batches(chunks, EMBED_BATCH):
        texts = [chunk.indexed_text for chunk in batch]
        store.upsert(batch, embedder.embed(texts), [encoder.encode_document(text) for text in texts])
        done += len(batch)
        if on_progress is not None:
            on_progress(done)
    return done


def _open_or_create(folder: Path, chunks: ChunkStore, leaf: str, embedder: Embedder) -> EdgeStore:
    if (folder / MANIFEST_FILE).is_file():
        store = EdgeStore.open(folder)
        try:
            store.manifest.check(embedder.id, embedder.dimension, str(folder))
        except Exception:
            store.close()
            raise
        return store
    sample = [c.indexed_text for c in itertools.islice(chunks.chunks(dept=leaf), SAMPLE_FOR_AVERAGE)]
    manifest = IndexManifest.new(embedder.id, embedder.dimension, average_length(sample))
    return EdgeStore.create(folder, manifest)


def build_indexes(
    chunks: ChunkStore,
    index_root: Path,
    embedder: Embedder,
    on_progress: ProgressCallback | None = None,
) -> IndexSummary:
    """Bring the index of every leaf in ``chunks`` up to date under ``index_root/LEAF``."""
    summary = IndexSummary(folder=index_root, embedder_id=embedder.id)
    leaves = sorted({dept for _, dept, _, _, _ in chunks.breakdown()})
    for leaf in leaves:
        started = time.perf_counter()
        store = _open_or_create(index_root / leaf, chunks, leaf, embedder)
        try:
            wanted = chunks.chunk_ids(dept=leaf)
            present = store.chunk_ids()
            stale = present - wanted
            store.delete(stale)
            missing = (c for c in chunks.chunks(dept=leaf) if c.chunk_id not in present)
            report = partial(on_progress, leaf) if on_progress else None
            added = index_chunks(store, missing, embedder, report)
            if added >= OPTIMIZE_AFTER:
                store.optimize()
        finally:
            store.close()
        summary.leaves[leaf] = LeafSummary(
            added=added, removed=len(stale), kept=len(present) - len(stale), seconds=time.perf_counter() - started
        )
    for leaf, folder in leaf_folders(index_root).items():
        if leaf not in leaves:  # a department that no longer has chunks
            store = EdgeStore.open(folder)
            try:
                removed = store.count()
                store.delete(store.chunk_ids())
            finally:
                store.close()
            summary.leaves[leaf] = LeafSummary(removed=removed)
    return summary
