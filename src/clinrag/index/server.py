"""The scale-out backend: a Qdrant server or cluster through ``qdrant-client`` (``url=``, api key), or the
client's local mode on disk (``path=``), which speaks the same API and is what the tests run against.

One collection per leaf holds the points; a companion collection ``NAME__manifest`` holds the index manifest.

Example:
    >>> import tempfile, numpy as np
    >>> from clinrag.types import Chunk
    >>> store = ServerStore.create(ServerStore.local(tempfile.mkdtemp()), "medicine", IndexManifest.new("t", 2, 5.0))
    >>> store.upsert([Chunk.create(source_id="n:1", text="x", org="A", dept="medicine")],
    ...              np.array([[1.0, 0.0]], dtype=np.float32), [{3: 1.0}])
    >>> store.count()
    1
    >>> store.close()
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models

from clinrag.errors import StoreError
from clinrag.index.embed import Vectors
from clinrag.index.qdrant_points import (
    SCROLL_PAGE,
    UPSERT_BATCH,
    point_batches,
    scrolled_chunk_ids,
    scrolled_digests,
    stored_dense,
)
from clinrag.index.store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    IndexManifest,
    StoreHit,
    StoreQuery,
    conditions,
    payload_of,
    point_id,
    store_hits,
)
from clinrag.types import Chunk, SearchFilters

MANIFEST_SUFFIX = "__manifest"


def _filter(filters: SearchFilters | None) -> models.Filter | None:
    must: list[models.Condition] = []
    for condition in conditions(filters):
        if condition.values:
            values = list(condition.values)
            match: models.MatchValue | models.MatchAny = (
                models.MatchValue(value=values[0]) if len(values) == 1 else models.MatchAny(any=values)
            )
            must.append(models.FieldCondition(key=condition.key, match=match))
        else:
            must.append(
                models.FieldCondition(key=condition.key, range=models.Range(gte=condition.gte, lt=condition.lt))
            )
    return models.Filter(must=must) if must else None


class ServerStore:
    """A leaf's index as a collection of a Qdrant server (or of qdrant-client's local mode)."""

    def __init__(self, client: QdrantClient, name: str, manifest: IndexManifest) -> None:
        self._client = client
        self.name = name
        self.manifest = manifest

    @staticmethod
    def connect(url: str, api_key: str | None = None) -> QdrantClient:
        """A client for a Qdrant server."""
        return QdrantClient(url=url, api_key=api_key)

    @staticmethod
    def local(path: str | Path) -> QdrantClient:
        """A client for qdrant-client's local mode on disk (one process at a time)."""
        return QdrantClient(path=str(path))

    @classmethod
    def create(
        cls, client: QdrantClient, name: str, manifest: IndexManifest, shards: int = 1, replicas: int = 1
    ) -> ServerStore:
        """A new collection ``name`` (which must not exist) with payload indexes and the manifest, in ``shards``
        shards of ``replicas`` copies each on a Qdrant cluster (local mode and a single server ignore both); the
        manifest's collection ``name__manifest`` has one shard of ``replicas`` copies."""
        if client.collection_exists(name):
            raise StoreError(f"collection {name} exists already; open it, or delete it to rebuild")
        client.create_collection(
            name,
            vectors_config={DENSE: models.VectorParams(size=manifest.dimension, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            shard_number=shards,
            replication_factor=replicas,
        )
        with warnings.catch_warnings():  # local mode warns that it ignores payload indexes; servers use them
            warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
            for field in KEYWORD_FIELDS:
                client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD)
            for field in INTEGER_FIELDS:
                client.create_payload_index(name, field, models.PayloadSchemaType.INTEGER)
        meta = name + MANIFEST_SUFFIX
        client.create_collection(  # one point: one shard, as many copies as the leaf's, so it survives what they do
            meta,
            vectors_config=models.VectorParams(size=1, distance=models.Distance.DOT),
            shard_number=1,
            replication_factor=replicas,
        )
        client.upsert(meta, [models.PointStruct(id=1, vector=[1.0], payload={"manifest": manifest.to_json()})])
        return cls(client, name, manifest)

    @classmethod
    def open(cls, client: QdrantClient, name: str) -> ServerStore:
        """The existing collection ``name`` and its manifest."""
        meta = name + MANIFEST_SUFFIX
        if not client.collection_exists(name) or not client.collection_exists(meta):
            raise StoreError(f"collection {name} (or its manifest) not found; build it with 'clinrag index build'")
        records = client.retrieve(meta, [1], with_payload=True)
        manifest = IndexManifest.from_json(str((records[0].payload or {})["manifest"]))
        return cls(client, name, manifest)

    def upsert(self, chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]) -> None:
        """Insert or replace the points of ``chunks``."""
        for batch in point_batches(chunks, dense, sparse):
            points = []
            for point in batch:
                indices, values = point.sparse
                vector: dict[str, Any] = {
                    DENSE: point.dense,
                    SPARSE: models.SparseVector(indices=indices, values=values),
                }
                points.append(models.PointStruct(id=point.id, vector=vector, payload=point.payload))
            self._client.upsert(self.name, points)

    def delete(self, chunk_ids: Iterable[str]) -> None:
        """Remove points by chunk id."""
        ids: list[models.ExtendedPointId] = [point_id(chunk_id) for chunk_id in chunk_ids]
        for start in range(0, len(ids), 1000):
            self._client.delete(self.name, points_selector=models.PointIdsList(points=ids[start : start + 1000]))

    def count(self, filters: SearchFilters | None = None) -> int:
        """Exact count of points matching ``filters``."""
        return int(self._client.count(self.name, count_filter=_filter(filters), exact=True).count)

    def chunk_ids(self) -> set[str]:
        """Every chunk id in the collection."""
        return scrolled_chunk_ids(self._page)

    def digests(self) -> dict[str, str | None]:
        """Every chunk id with its stored payload digest (reads only the ``digest`` field)."""
        return scrolled_digests(self._page)

    def _page(self, offset: Any, payload: bool | list[str]) -> tuple[list[models.Record], Any]:
        """One scroll page (`clinrag.index.qdrant_points.Page`)."""
        return self._client.scroll(self.name, limit=SCROLL_PAGE, offset=offset, with_payload=payload)

    def replace_payloads(self, chunks: Sequence[Chunk]) -> None:
        """Overwrite the payloads of existing points (their vectors stay), in one request per batch."""
        for start in range(0, len(chunks), UPSERT_BATCH):
            operations: list[models.UpdateOperation] = [
                models.OverwritePayloadOperation(
                    overwrite_payload=models.SetPayload(payload=payload_of(chunk), points=[point_id(chunk.chunk_id)])
                )
                for chunk in chunks[start : start + UPSERT_BATCH]
            ]
            self._client.batch_update_points(self.name, operations)

    def optimize(self) -> None:
        """Nothing to do: a Qdrant server (and local mode) index in the background (or need no index)."""

    def query(self, query: StoreQuery) -> list[StoreHit]:
        """Dense, BM25, hybrid (RRF in the server) or hybrid followed by MMR."""
        flt = _filter(query.filters)
        dense = query.dense.tolist() if query.dense is not None else None
        sparse = (
            models.SparseVector(indices=list(query.sparse), values=list(query.sparse.values()))
            if query.sparse
            else None
        )
        common: dict[str, Any] = {"limit": query.limit, "with_payload": True, "with_vectors": [DENSE]}
        if query.mode == "bm25" or dense is None:
            if sparse is None:
                return []
            result = self._client.query_points(self.name, query=sparse, using=SPARSE, query_filter=flt, **common)
        elif query.mode == "dense" or sparse is None:
            result = self._client.query_points(self.name, query=dense, using=DENSE, query_filter=flt, **common)
        else:
            prefetch = [
                models.Prefetch(query=dense, using=DENSE, limit=query.fetch_k, filter=flt),
                models.Prefetch(query=sparse, using=SPARSE, limit=query.fetch_k, filter=flt),
            ]
            fusion = models.RrfQuery(rrf=models.Rrf(k=query.rrf_k, weights=list(query.weights)))
            if query.mode == "hybrid":
                result = self._client.query_points(self.name, prefetch=prefetch, query=fusion, **common)
            else:
                fused = models.Prefetch(prefetch=prefetch, query=fusion, limit=query.fetch_k)
                mmr = models.NearestQuery(
                    nearest=dense, mmr=models.Mmr(diversity=1 - query.mmr_lambda, candidates_limit=query.fetch_k)
                )
                result = self._client.query_points(self.name, prefetch=[fused], query=mmr, using=DENSE, **common)
        points = [
            (dict(point.payload or {}), float(point.score), stored_dense(point.vector)) for point in result.points
        ]
        return store_hits(query.dense, points)

    def snapshot(self, target: Path) -> Path:
        """Backups of a server collection are taken with Qdrant's own snapshot API."""
        raise StoreError(
            f"collection {self.name}: use the Qdrant server's snapshot API (POST /collections/{self.name}/snapshots)"
        )

    def close(self) -> None:
        """Release the client."""
        self._client.close()
