"""The embedded backend: one Qdrant Edge shard per leaf, on local disk, in process (``qdrant-edge-py``).

Layout of a leaf's index folder: ``shard/`` (Qdrant's files) and ``manifest.json`` (embedder, dimension, BM25
average length). A snapshot is one tar file holding both; restoring unpacks it into an empty folder.

Example:
    >>> import tempfile, pathlib, numpy as np
    >>> from clinrag.types import Chunk
    >>> store = EdgeStore.create(pathlib.Path(tempfile.mkdtemp()) / "leaf", IndexManifest.new("test", 2, 5.0))
    >>> chunk = Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine")
    >>> store.upsert([chunk], np.array([[1.0, 0.0]], dtype=np.float32), [{7: 1.0}])
    >>> store.count()
    1
    >>> store.close()
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import qdrant_edge as qe

from clinrag.errors import StoreError
from clinrag.index.embed import Vectors
from clinrag.index.store import (
    DENSE,
    DIGEST,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    IndexManifest,
    StoreHit,
    StoreQuery,
    chunk_id_of,
    clean_sparse,
    conditions,
    payload_of,
    point_id,
    store_hits,
)
from clinrag.types import Chunk, SearchFilters

MANIFEST_FILE = "manifest.json"
SHARD_DIR = "shard"
UPSERT_BATCH = 256


def _dense(point: qe.ScoredPoint) -> list[float] | None:
    """The stored dense vector of a point (None when the shard did not return it)."""
    stored = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
    return cast(list[float], stored) if isinstance(stored, list) else None


def _filter(filters: SearchFilters | None) -> qe.Filter | None:
    must: list[Any] = []
    for condition in conditions(filters):
        if condition.values:
            values = cast(list[str], list(condition.values))  # all str or all int; the stub wants one of them
            match = qe.MatchValue(values[0]) if len(values) == 1 else qe.MatchAny(values)
            must.append(qe.FieldCondition(key=condition.key, match=match))
        else:
            must.append(qe.FieldCondition(key=condition.key, range=qe.RangeFloat(gte=condition.gte, lt=condition.lt)))
    return qe.Filter(must=must) if must else None


class EdgeStore:
    """A leaf's index as a Qdrant Edge shard. Use `create` or `open`; `close` when done."""

    def __init__(self, shard: qe.EdgeShard, folder: Path, manifest: IndexManifest) -> None:
        self._shard = shard
        self.folder = folder
        self.manifest = manifest

    @classmethod
    def create(cls, folder: Path, manifest: IndexManifest) -> EdgeStore:
        """A new, empty index in ``folder`` (which must not hold one already)."""
        if (folder / MANIFEST_FILE).exists():
            raise StoreError(f"{folder}: an index exists already; open it, or delete the folder to rebuild")
        folder.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=manifest.dimension, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        shard = qe.EdgeShard.create(str(folder / SHARD_DIR), config)
        for field in KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
        for field in INTEGER_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Integer))
        (folder / MANIFEST_FILE).write_text(manifest.to_json())
        return cls(shard, folder, manifest)

    @classmethod
    def open(cls, folder: Path) -> EdgeStore:
        """The existing index in ``folder``."""
        manifest_path = folder / MANIFEST_FILE
        if not manifest_path.is_file():
            raise StoreError(f"{folder}: no index here (missing {MANIFEST_FILE}); build one with 'clinrag index build'")
        manifest = IndexManifest.from_json(manifest_path.read_text())
        try:
            shard = qe.EdgeShard.load(str(folder / SHARD_DIR))
        except Exception as exc:
            raise StoreError(f"{folder}: cannot open the index shard ({exc})") from None
        return cls(shard, folder, manifest)

    def upsert(self, chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]) -> None:
        """Insert or replace the points of ``chunks`` (rows of ``dense`` and ``sparse`` in the same order)."""
        for start in range(0, len(chunks), UPSERT_BATCH):
            points = []
            for offset, chunk in enumerate(chunks[start : start + UPSERT_BATCH]):
                terms = sparse[start + offset]
                vectors = {DENSE: dense[start + offset].tolist(), SPARSE: qe.SparseVector(*clean_sparse(terms))}
                points.append(qe.Point(point_id(chunk.chunk_id), vectors, payload_of(chunk)))
            self._shard.update(qe.UpdateOperation.upsert_points(points))

    def delete(self, chunk_ids: Iterable[str]) -> None:
        """Remove points by chunk id."""
        ids: list[int | uuid.UUID | str] = [point_id(chunk_id) for chunk_id in chunk_ids]
        for start in range(0, len(ids), 1000):
            self._shard.update(qe.UpdateOperation.delete_points(ids[start : start + 1000]))

    def count(self, filters: SearchFilters | None = None) -> int:
        """Exact count of points matching ``filters``."""
        return int(self._shard.count(qe.CountRequest(filter=_filter(filters), exact=True)))

    def chunk_ids(self) -> set[str]:
        """Every chunk id in the shard (scrolls through all points)."""
        ids: set[str] = set()
        offset: Any = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(limit=1000, offset=offset, with_payload=False, with_vector=False)
            )
            ids.update(chunk_id_of(record.id) for record in records)
            if offset is None:
                return ids

    def digests(self) -> dict[str, str | None]:
        """Every chunk id with its stored payload digest (scrolls through all points, reading only ``digest``)."""
        found: dict[str, str | None] = {}
        offset: Any = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(limit=1000, offset=offset, with_payload=[DIGEST], with_vector=False)
            )
            for record in records:
                digest = (record.payload or {}).get(DIGEST)
                found[chunk_id_of(record.id)] = digest if isinstance(digest, str) else None
            if offset is None:
                return found

    def replace_payloads(self, chunks: Sequence[Chunk]) -> None:
        """Overwrite the payloads of existing points (their vectors stay)."""
        for chunk in chunks:
            self._shard.update(qe.UpdateOperation.overwrite_payload([point_id(chunk.chunk_id)], payload_of(chunk)))

    def query(self, query: StoreQuery) -> list[StoreHit]:
        """Dense, BM25, hybrid (RRF inside the engine) or hybrid followed by MMR."""
        flt = _filter(query.filters)
        dense = query.dense.tolist() if query.dense is not None else None
        sparse = qe.SparseVector(*clean_sparse(query.sparse)) if query.sparse else None
        common: dict[str, Any] = {"limit": query.limit, "with_payload": True, "with_vector": [DENSE]}
        by_dense = qe.Query.Nearest(dense, using=DENSE) if dense is not None else None
        by_terms = qe.Query.Nearest(sparse, using=SPARSE) if sparse is not None else None
        if query.mode == "bm25" or by_dense is None:
            if by_terms is None:
                return []
            request = qe.QueryRequest(query=by_terms, filter=flt, **common)
        elif query.mode == "dense" or by_terms is None or dense is None:
            request = qe.QueryRequest(query=by_dense, filter=flt, **common)
        else:
            prefetches = [
                qe.Prefetch(limit=query.fetch_k, query=by_dense, filter=flt),
                qe.Prefetch(limit=query.fetch_k, query=by_terms, filter=flt),
            ]
            # The stubs type Fusion.Rrf as not being a Fusion; it is what the engine expects.
            fusion = cast(Any, qe.Fusion.Rrf(k=query.rrf_k, weights=list(query.weights)))
            if query.mode == "hybrid":
                request = qe.QueryRequest(prefetches=prefetches, query=fusion, **common)
            else:
                fused = qe.Prefetch(limit=query.fetch_k, prefetches=prefetches, query=fusion)
                mmr = qe.Mmr(dense, lambda_=query.mmr_lambda, candidates_limit=query.fetch_k, using=DENSE)
                request = qe.QueryRequest(prefetches=[fused], query=mmr, **common)
        return store_hits(
            query.dense,
            [(point.payload or {}, float(point.score), _dense(point)) for point in self._shard.query(request)],
        )

    def optimize(self) -> None:
        """Build the vector index after a bulk load (blocking; queries without filters get much faster)."""
        self._shard.optimize()

    def snapshot(self, target: Path) -> Path:
        """A tar file with the manifest and the shard, taken after a flush (the store stays usable)."""
        self._shard.flush()
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as work:
            shard_tar = Path(work) / "shard.tar"
            with tarfile.open(shard_tar, "w") as archive:
                archive.add(self.folder / SHARD_DIR, arcname=".")
            with tarfile.open(target, "w") as archive:
                archive.add(shard_tar, arcname="shard.tar")
                data = self.manifest.to_json().encode()
                info = tarfile.TarInfo(MANIFEST_FILE)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return target

    @classmethod
    def restore(cls, snapshot: Path, folder: Path) -> EdgeStore:
        """Unpack a snapshot into ``folder`` (which must not hold an index) and open it."""
        if (folder / MANIFEST_FILE).exists():
            raise StoreError(f"{folder}: an index exists already; restore into an empty folder")
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as work, tarfile.open(snapshot) as archive:
            archive.extractall(work, filter="data")
            qe.EdgeShard.unpack_snapshot(str(Path(work) / "shard.tar"), str(folder / SHARD_DIR))
            shutil.copy(Path(work) / MANIFEST_FILE, folder / MANIFEST_FILE)
        return cls.open(folder)

    def close(self) -> None:
        """Flush to disk and release the shard."""
        self._shard.flush()
        self._shard.close()
