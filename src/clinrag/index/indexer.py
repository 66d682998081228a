"""Builds and updates a node's indexes from its chunk store: one index per leaf (department), in the store
``IndexSettings.backend`` chooses: a Qdrant Edge shard by default, a Qdrant server's collection, or a store plugin's
index (entry point group ``clinrag.stores``; see `clinrag.index.backend`).

Updates are incremental and idempotent: chunks whose ids are new are embedded and added, ids that left the
chunk store (a deleted or changed note) are removed, and chunks whose id stayed but whose metadata changed (a
note's service or date corrected, same text) get their payload rewritten without re-embedding; the rest is left
alone. Unchanged chunks cost a digest comparison each. An index is only ever updated with the embedder it was
built with.

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

import hashlib
import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from clinrag.index.backend import create_leaf_store, leaf_names, open_leaf_store
from clinrag.index.edge import MANIFEST_FILE
from clinrag.index.embed import Embedder, Vectors
from clinrag.index.lexical import Bm25Encoder, average_length
from clinrag.index.store import IndexManifest, VectorStore, payload_digest
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.settings import IndexSettings
from clinrag.types import Chunk

EMBED_BATCH = 1024  # chunks per embedder call: the embedder sorts each call by length, so larger pads less
REUSE_LIMIT = 50_000  # vectors kept for reuse within one build (about 77 MB at 384 dimensions)
OPTIMIZE_AFTER = 1000  # points added in one update before the vector index is rebuilt
SAMPLE_FOR_AVERAGE = 5000
ProgressCallback = Callable[[str, int], None]


@dataclass
class LeafSummary:
    """What one leaf's index update did: chunks embedded and added, removed, with their payload rewritten
    (metadata changed, text not), and left alone."""

    added: int = 0
    removed: int = 0
    updated: int = 0
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
    """The leaf indexes under a node's index folder that the edge store keeps there (Qdrant Edge shards), by leaf
    name; `leaf_names` lists the leaves of any store: the edge store's, a Qdrant server's or a store plugin's."""
    if not index_root.is_dir():
        return {}
    return {p.name: p for p in sorted(index_root.iterdir()) if (p / MANIFEST_FILE).is_file()}


def _batches(chunks: Iterator[Chunk], size: int) -> Iterator[list[Chunk]]:
    while batch := list(itertools.islice(chunks, size)):
        yield batch


class VectorReuse:
    """Vectors of texts embedded earlier in one build, by a hash of the text, so that a text is embedded once however
    often it recurs (a longitudinal patient's notes repeat allergies, family history and home medications, name
    prefix included: 16 % of the chunks of 1,000 synthetic notes, a third of them in another batch or leaf than
    their first copy). Holds at most ``limit`` vectors, dropping the oldest first; ``embedded`` and ``reused`` count
    texts.

    Example:
        >>> from clinrag.index.embed import normalise
        >>> class Counting:
        ...     id, dimension, calls = "count", 2, 0
        ...     def embed(self, texts):
        ...         Counting.calls += len(texts)
        ...         return normalise(np.ones((len(texts), 2), dtype=np.float32))
        >>> reuse = VectorReuse(Counting())
        >>> _ = reuse.embed(["a", "b", "a"]), reuse.embed(["b", "c"])
        >>> Counting.calls, reuse.reused
        (3, 2)
    """

    def __init__(self, embedder: Embedder, limit: int = REUSE_LIMIT) -> None:
        self.embedder = embedder
        self.limit = limit
        self.embedded = 0
        self.reused = 0
        self._vectors: OrderedDict[bytes, Vectors] = OrderedDict()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for ``texts`` in order; only texts not seen before reach the embedder, each once."""
        keys = [hashlib.blake2b(text.encode(), digest_size=16).digest() for text in texts]
        fresh = {key: text for key, text in zip(keys, texts, strict=True) if key not in self._vectors}
        if fresh:
            for key, vector in zip(fresh, self.embedder.embed(list(fresh.values())), strict=True):
                self._vectors[key] = vector
        self.embedded += len(fresh)
        self.reused += len(texts) - len(fresh)
        out: Vectors = np.zeros((len(texts), self.embedder.dimension), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = self._vectors[key]
        while len(self._vectors) > self.limit:
            self._vectors.popitem(last=False)
        return out


def index_chunks(
    store: VectorStore,
    chunks: Iterator[Chunk],
    embedder: Embedder,
    on_progress: Callable[[int], None] | None = None,
    reuse: VectorReuse | None = None,
    store_lock: threading.Lock | None = None,
) -> int:
    """Embed and upsert ``chunks`` into ``store``; returns how many.

    Identical texts are embedded once (within the call, and across calls that share ``reuse``). While a batch is
    embedded, the previous one is encoded for BM25 and written by a second thread, so the store's work overlaps
    the embedder's. Whoever else uses ``store`` meanwhile (the caller's ``chunks`` iterator, say) holds
    ``store_lock`` while doing so.
    """
    encoder = Bm25Encoder.of(store.manifest)
    vectors_of = reuse or VectorReuse(embedder)
    lock = store_lock or threading.Lock()
    done = 0

    def write(batch: list[Chunk], vectors: Vectors) -> None:
        sparse = [encoder.encode_document(chunk.indexed_text) for chunk in batch]
        with lock:
            store.upsert(batch, vectors, sparse)

    with ThreadPoolExecutor(1, thread_name_prefix="index-write") as writer:
        pending: Future[None] | None = None
        for batch in _batches(chunks, EMBED_BATCH):
            vectors = vectors_of.embed([chunk.indexed_text for chunk in batch])
            if pending is not None:
                pending.result()  # one batch in flight: bounded memory, and a failed write stops the build
            pending = writer.submit(write, batch, vectors)
            done += len(batch)
            if on_progress is not None:
                on_progress(done)
        if pending is not None:
            pending.result()
    return done


def open_or_create_leaf(
    index_root: Path, leaf: str, chunks: ChunkStore, embedder: Embedder, settings: IndexSettings | None, exists: bool
) -> VectorStore:
    """The index of ``leaf``: opened (and checked against ``embedder``) when it ``exists``, else created with a
    manifest whose BM25 average length is measured on the leaf's first chunks in ``chunks`` (so any engine that
    indexes the same chunk store writes the same manifest and the same sparse vectors)."""
    if exists:
        store = open_leaf_store(index_root, leaf, settings)
        try:
            store.manifest.check(embedder.id, embedder.dimension, f"{index_root / leaf}")
        except Exception:
            store.close()
            raise
        return store
    sample = [c.indexed_text for c in itertools.islice(chunks.chunks(dept=leaf), SAMPLE_FOR_AVERAGE)]
    manifest = IndexManifest.new(embedder.id, embedder.dimension, average_length(sample, expand=True))
    return create_leaf_store(index_root, leaf, manifest, settings)


def open_and_prune_leaf(
    index_root: Path, leaf: str, chunks: ChunkStore, embedder: Embedder, settings: IndexSettings | None, exists: bool
) -> tuple[VectorStore, dict[str, str | None], int]:
    """The index of ``leaf`` (`open_or_create_leaf`) with the chunks the chunk store no longer has deleted from it;
    also the payload digests of the chunks it kept (`VectorStore.digests`) and how many it lost. Closed again when
    that fails. Shared by the local and the Ray engine."""
    store = open_or_create_leaf(index_root, leaf, chunks, embedder, settings, exists)
    try:
        stored = store.digests()
        stale = stored.keys() - chunks.chunk_ids(dept=leaf)
        store.delete(stale)
        for chunk_id in stale:
            del stored[chunk_id]
    except BaseException:
        store.close()
        raise
    return store, stored, len(stale)


class ChangeSorter:
    """Sorts a leaf's chunks against what its index holds: `fresh` yields the chunks to embed (ids not stored)
    and, on the way, rewrites the payloads of stored chunks whose digest differs (metadata changed, text not)."""

    def __init__(self, store: VectorStore, stored: dict[str, str | None], lock: threading.Lock) -> None:
        self.store = store
        self.stored = stored
        self.lock = lock
        self.updated = 0
        self._pending: list[Chunk] = []

    def fresh(self, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        """The chunks of ``chunks`` the index lacks; stored ones whose payload changed are rewritten on the way."""
        for chunk in chunks:
            if chunk.chunk_id not in self.stored:
                yield chunk
            elif self.stored[chunk.chunk_id] != payload_digest(chunk):
                self._pending.append(chunk)
                if len(self._pending) >= EMBED_BATCH:
                    self.flush()
        self.flush()

    def flush(self) -> None:
        """Rewrite the payloads collected so far."""
        if self._pending:
            with self.lock:  # `index_chunks` writes to the same store from its writer thread
                self.store.replace_payloads(self._pending)
            self.updated += len(self._pending)
            self._pending = []


def finish_leaf(store: VectorStore, optimize: bool) -> None:
    """Rebuild the vector index after a bulk load (if asked), then flush and close."""
    try:
        if optimize:
            store.optimize()
    finally:
        store.close()


def build_indexes(
    chunks: ChunkStore,
    index_root: Path,
    embedder: Embedder,
    on_progress: ProgressCallback | None = None,
    index: IndexSettings | None = None,
) -> IndexSummary:
    """Bring the index of every leaf in ``chunks`` up to date in the store ``index.backend`` names (the edge store:
    under ``index_root/LEAF``; a Qdrant server or a store plugin: where it keeps them): new chunks are embedded and
    added, chunks gone from the chunk store removed, and chunks whose metadata changed with their text (same id) get
    their payload rewritten."""
    summary = IndexSummary(folder=index_root, embedder_id=embedder.id)
    leaves = sorted({dept for _, dept, _, _, _ in chunks.breakdown()})
    existing = leaf_names(index_root, index)
    reuse = VectorReuse(embedder)  # shared by the leaves: one patient's notes can sit in several departments
    # A finished leaf is optimised and flushed to disk by a second thread while the next leaf is embedded.
    with ThreadPoolExecutor(1, thread_name_prefix="index-close") as closer:
        finishing: list[Future[None]] = []
        for leaf in leaves:
            started = time.perf_counter()
            store, stored, removed = open_and_prune_leaf(index_root, leaf, chunks, embedder, index, leaf in existing)
            try:
                lock = threading.Lock()
                sorter = ChangeSorter(store, stored, lock)
                report = partial(on_progress, leaf) if on_progress else None
                added = index_chunks(store, sorter.fresh(chunks.chunks(dept=leaf)), embedder, report, reuse, lock)
            except BaseException:
                store.close()
                raise
            finishing.append(closer.submit(finish_leaf, store, added >= OPTIMIZE_AFTER))
            summary.leaves[leaf] = LeafSummary(
                added=added,
                removed=removed,
                updated=sorter.updated,
                kept=len(stored) - sorter.updated,
                seconds=time.perf_counter() - started,
            )
        for future in finishing:
            future.result()
    empty_vanished_leaves(index_root, existing, leaves, index, summary)
    return summary


def empty_vanished_leaves(
    index_root: Path,
    existing: Iterable[str],
    current: Container[str],
    index: IndexSettings | None,
    summary: IndexSummary,
) -> None:
    """Empty the leaf indexes of ``existing`` departments that no longer have chunks (not in ``current``), each
    recorded in ``summary`` with how many chunks it lost; shared by the local and the Ray engine."""
    for leaf in existing:
        if leaf not in current:
            store = open_leaf_store(index_root, leaf, index)
            try:
                removed = store.count()
                store.delete(store.chunk_ids())
            finally:
                store.close()
            summary.leaves[leaf] = LeafSummary(removed=removed)
