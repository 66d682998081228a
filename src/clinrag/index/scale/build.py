"""`clinrag index build --engine ray`: a node's leaf indexes brought up to date with the embedding done by a Ray
Data actor pool, everything else as the local engine (`clinrag.index.indexer.build_indexes`) does it.

Per leaf, as locally: the index is opened or created in the store ``IndexSettings.backend`` names (an Edge shard; a
Qdrant server or cluster collection per leaf, sharded and replicated as ``IndexSettings`` says, with its manifest;
or a store plugin's index), chunks gone from the chunk store are deleted, payloads whose metadata changed are
rewritten, and the chunks the index lacks are embedded and written with their BM25 vectors. Unlike the local engine,
the chunks to embed of all leaves are streamed from the chunk store in windows of ``ScaleSettings.window``; each
window's distinct texts (texts met before in the build are not embedded again) go through one Ray Data pipeline, and
the vectors come back to the driver, which writes them while the next window is embedded. The driver holds the chunk
store and the store clients; the workers only need the texts, the embedder's package and its settings.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> from clinrag.ingest.pipeline import ingest_mimic
    >>> from clinrag.ingest.scale.engine import ray_session
    >>> from clinrag.settings import IndexSettings, IngestSettings, ScaleSettings
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out / "cohort", patients=10, seed=1, workers=1)
    >>> scale = ScaleSettings(engine="ray", workers=2)
    >>> with ChunkStore.open(out / "chunks.sqlite") as chunks, ray_session(scale):  # doctest: +SKIP
    ...     _ = ingest_mimic(out / "cohort/hospitals/C", chunks, IngestSettings(tables=()))
    ...     summary = build_indexes_ray(chunks, out / "index", IndexSettings(backend="server"), scale)
    >>> summary.leaves["neurology"].added > 0  # doctest: +SKIP
    True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.index.backend import leaf_names
from clinrag.index.embed import Vectors
from clinrag.index.indexer import (
    OPTIMIZE_AFTER,
    ChangeSorter,
    IndexSummary,
    LeafSummary,
    ProgressCallback,
    VectorReuse,
    empty_vanished_leaves,
    finish_leaf,
    open_and_prune_leaf,
)
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.scale.embed import RayEmbedder
from clinrag.index.store import VectorStore
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.settings import IndexSettings, ScaleSettings
from clinrag.types import Chunk


@dataclass
class _Leaf:
    """One leaf's index during a build: its store, what it held, and what this build did to it."""

    name: str
    store: VectorStore
    sorter: ChangeSorter
    encoder: Bm25Encoder
    summary: LeafSummary
    lock: threading.Lock = field(default_factory=threading.Lock)


def _open_leaf(
    chunks: ChunkStore, index_root: Path, leaf: str, embedder: RayEmbedder, index: IndexSettings, exists: bool
) -> _Leaf:
    """Open or create ``leaf``'s index and delete the chunks the chunk store no longer has (as the local engine)."""
    started = time.perf_counter()
    store, stored, removed = open_and_prune_leaf(index_root, leaf, chunks, embedder, index, exists)
    lock = threading.Lock()
    summary = LeafSummary(removed=removed, kept=len(stored), seconds=time.perf_counter() - started)
    return _Leaf(leaf, store, ChangeSorter(store, stored, lock), Bm25Encoder.of(store.manifest), summary, lock)


def _fresh(chunks: ChunkStore, leaves: list[_Leaf]) -> Iterator[tuple[_Leaf, Chunk]]:
    """Every leaf's chunks that its index lacks, leaf after leaf, in chunk store order."""
    for leaf in leaves:
        for chunk in leaf.sorter.fresh(chunks.chunks(dept=leaf.name)):
            yield leaf, chunk


def _window(items: Iterator[tuple[_Leaf, Chunk]], size: int) -> Iterator[list[tuple[_Leaf, Chunk]]]:
    window: list[tuple[_Leaf, Chunk]] = []
    for item in items:
        window.append(item)
        if len(window) == size:
            yield window
            window = []
    if window:
        yield window


def _write(window: list[tuple[_Leaf, Chunk]], vectors: Vectors) -> None:
    """Write one embedded window, leaf by leaf, with BM25 vectors from each leaf's own manifest."""
    rows: dict[str, list[int]] = {}
    owners: dict[str, _Leaf] = {}
    for row, (leaf, _) in enumerate(window):
        rows.setdefault(leaf.name, []).append(row)
        owners[leaf.name] = leaf
    for name, taken in rows.items():
        leaf = owners[name]
        batch = [window[row][1] for row in taken]
        sparse = [leaf.encoder.encode_document(chunk.indexed_text) for chunk in batch]
        with leaf.lock:
            leaf.store.upsert(batch, vectors[taken], sparse)


def build_indexes_ray(
    chunks: ChunkStore,
    index_root: Path,
    index: IndexSettings,
    scale: ScaleSettings,
    cache_dir: Path | None = None,
    on_progress: ProgressCallback | None = None,
) -> IndexSummary:
    """Bring every leaf's index in the store ``index`` names (under ``index_root``, or where it keeps them) up to
    date, with the embedding done by a Ray Data actor pool of ``scale.workers`` actors (Ray must be started:
    `clinrag.ingest.scale.engine.ray_session`); the same result as `build_indexes` with the same settings."""
    embedder = RayEmbedder(index, cache_dir, scale.workers)
    summary = IndexSummary(folder=index_root, embedder_id=embedder.id)
    names = sorted({dept for _, dept, _, _, _ in chunks.breakdown()})
    existing = leaf_names(index_root, index)
    leaves: list[_Leaf] = []
    reuse = VectorReuse(embedder)  # distinct texts are embedded once per build, as locally
    try:
        for name in names:
            leaves.append(_open_leaf(chunks, index_root, name, embedder, index, name in existing))
        with ThreadPoolExecutor(1, thread_name_prefix="index-write") as writer:
            pending: Future[None] | None = None
            for window in _window(_fresh(chunks, leaves), scale.window):
                started = time.perf_counter()
                vectors = reuse.embed([chunk.indexed_text for _, chunk in window])
                if pending is not None:
                    pending.result()  # one window in flight: bounded memory, and a failed write stops the build
                pending = writer.submit(_write, window, vectors)
                share = (time.perf_counter() - started) / len(window)
                for leaf, _ in window:
                    leaf.summary.added += 1
                    leaf.summary.seconds += share
                if on_progress is not None:
                    for leaf in {leaf.name: leaf for leaf, _ in window}.values():
                        on_progress(leaf.name, leaf.summary.added)
            if pending is not None:
                pending.result()
    finally:
        for leaf in leaves:
            finish_leaf(leaf.store, leaf.summary.added >= OPTIMIZE_AFTER)
    for leaf in leaves:
        leaf.summary.updated = leaf.sorter.updated
        leaf.summary.kept -= leaf.sorter.updated
        summary.leaves[leaf.name] = leaf.summary
    empty_vanished_leaves(index_root, existing, names, index, summary)
    return summary
