"""The embedded backend: one Qdrant Edge shard per leaf, on local disk, in process (``qdrant-edge-py``).

Layout of a leaf's index folder: ``shard/`` (Qdrant's files) and ``manifest.json`` (embedder, dimension, BM25
average length). A snapshot is one gzip tar file holding both (see `EdgeStore.snapshot`); restoring unpacks it
into an empty folder, or replaces an existing index once the restored one opens.

One process at a time may open a shard (Qdrant locks its write-ahead log); opening a shard another process holds,
such as a node that ``make demo`` serves, fails with a `StoreError` that says so and what to do.

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

import contextlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import qdrant_edge as qe

from clinrag.errors import StoreError
from clinrag.index.embed import Vectors
from clinrag.index.qdrant_points import SCROLL_PAGE, point_batches, scrolled_chunk_ids, scrolled_digests, stored_dense
from clinrag.index.store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    IndexManifest,
    StoreHit,
    StoreQuery,
    clean_sparse,
    conditions,
    payload_of,
    point_id,
    store_hits,
)
from clinrag.types import Chunk, SearchFilters

MANIFEST_FILE = "manifest.json"
SHARD_DIR = "shard"
SNAPSHOT_INFO = "snapshot.json"
SNAPSHOT_FORMAT = 2
SIZE_HEADER = "clinrag.size"  # a shard file's full length when the archive holds it without its trailing zeros
STAGING_DIR = ".staging"
SCAN_BLOCK = 1 << 20


@dataclass(frozen=True)
class SnapshotInfo:
    """A written snapshot: its file, leaf, chunks, the shard's bytes on disk (apparent size) and the file's size."""

    path: Path
    leaf: str
    chunks: int
    shard_bytes: int
    snapshot_bytes: int


def snapshot_leaf(snapshot: Path) -> str | None:
    """The leaf a snapshot was taken of (None for the first format, which did not record it)."""
    try:
        with tarfile.open(snapshot) as archive:
            member = archive.extractfile(SNAPSHOT_INFO)
            return str(json.loads(member.read())["leaf"]) if member is not None else None
    except KeyError:
        return None
    except (OSError, tarfile.TarError, ValueError) as exc:
        raise StoreError(f"{snapshot}: not a snapshot written by 'clinrag index snapshot' ({exc})") from None


class ShardLockedError(StoreError):
    """The shard is open in another process (a running node, or another command)."""


def _node_of(folder: Path) -> Path:
    """The node folder of a leaf index folder ``NODE/index/LEAF``."""
    return folder.parent.parent if folder.parent.name == "index" else folder.parent


def _open_error(folder: Path, exc: Exception) -> StoreError:
    text = str(exc)
    if "WouldBlock" in text or "Resource temporarily unavailable" in text:
        node = _node_of(folder)
        return ShardLockedError(
            f"{folder}: the index is held by another running process, most likely a node serving {node} "
            f"('make demo' or 'clinrag node serve'); one process at a time may open a shard. Ask through the "
            f"running node instead (clinrag ask QUESTION --as USER), or stop it and run this command again"
        )
    return StoreError(f"{folder}: cannot open the index shard ({text})")


def _data_length(path: Path, size: int) -> int:
    """The length of ``path`` without its trailing zero bytes (Qdrant preallocates its files: 32 MB write-ahead-log
    segments, 32 MB vector and payload pages, 2-4 MB payload index pages, mostly unwritten)."""
    with path.open("rb") as handle:
        end = size
        while end > 0:
            start = max(0, end - SCAN_BLOCK)
            handle.seek(start)
            block = handle.read(end - start).rstrip(b"\0")
            if block:
                return start + len(block)
            end = start
    return 0


def _add_trimmed(archive: tarfile.TarFile, path: Path, name: str) -> tuple[int, int]:
    """Add ``path`` as ``name`` without its trailing zeros, recording its full size; returns (full, stored) bytes."""
    size = path.stat().st_size
    length = _data_length(path, size)
    info = tarfile.TarInfo(name)
    info.size = length
    info.mtime = int(path.stat().st_mtime)
    info.mode = 0o644
    if length != size:
        info.pax_headers = {SIZE_HEADER: str(size)}
    with path.open("rb") as handle:
        archive.addfile(info, handle)
    return size, length


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _unpack(snapshot: Path, target: Path) -> dict[str, Any]:
    """Unpack ``snapshot`` into ``target`` (``shard/`` and the manifest); returns its ``snapshot.json`` ({} for
    the first format, a tar of the shard inside a tar, which Qdrant Edge unpacks)."""
    try:
        archive = tarfile.open(snapshot)  # noqa: SIM115 - closed by the with below, once the error is translated
    except (OSError, tarfile.TarError) as exc:
        raise StoreError(f"{snapshot}: not a snapshot written by 'clinrag index snapshot' ({exc})") from None
    with archive, tempfile.TemporaryDirectory() as work:
        names = archive.getnames()
        if MANIFEST_FILE not in names:
            raise StoreError(f"{snapshot}: not a snapshot written by 'clinrag index snapshot' (no {MANIFEST_FILE})")
        if "shard.tar" in names:  # format 1
            archive.extractall(work, filter="data")
            qe.EdgeShard.unpack_snapshot(str(Path(work) / "shard.tar"), str(target / SHARD_DIR))
            shutil.copy(Path(work) / MANIFEST_FILE, target / MANIFEST_FILE)
            return {}
        info: dict[str, Any] = {}
        for member in archive:
            extracted = archive.extractfile(member) if member.isfile() else None
            if member.name == SNAPSHOT_INFO and extracted is not None:
                info = json.loads(extracted.read())
                continue
            if member.name != MANIFEST_FILE and not member.name.startswith(f"{SHARD_DIR}/"):
                continue
            archive.extract(member, target, filter="data")
            full = member.pax_headers.get(SIZE_HEADER)
            if full is not None:
                os.truncate(target / member.name, int(full))  # the zeros come back as holes: sparse, as written
        return info


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
            raise _open_error(folder, exc) from None
        return cls(shard, folder, manifest)

    def upsert(self, chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]) -> None:
        """Insert or replace the points of ``chunks`` (rows of ``dense`` and ``sparse`` in the same order)."""
        for batch in point_batches(chunks, dense, sparse):
            points = [qe.Point(p.id, {DENSE: p.dense, SPARSE: qe.SparseVector(*p.sparse)}, p.payload) for p in batch]
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
        return scrolled_chunk_ids(self._page)

    def digests(self) -> dict[str, str | None]:
        """Every chunk id with its stored payload digest (scrolls through all points, reading only ``digest``)."""
        return scrolled_digests(self._page)

    def _page(self, offset: Any, payload: bool | list[str]) -> tuple[list[qe.Record], Any]:
        """One scroll page (`clinrag.index.qdrant_points.Page`), without vectors."""
        request = qe.ScrollRequest(limit=SCROLL_PAGE, offset=offset, with_payload=payload, with_vector=False)
        return self._shard.scroll(request)

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
            [
                (point.payload or {}, float(point.score), stored_dense(point.vector))
                for point in self._shard.query(request)
            ],
        )

    def optimize(self) -> None:
        """Build the vector index after a bulk load (blocking; queries without filters get much faster)."""
        self._shard.optimize()

    def snapshot(self, target: Path) -> Path:
        """Write a snapshot to ``target`` (see `write_snapshot`); returns its path."""
        return self.write_snapshot(target).path

    def write_snapshot(self, target: Path, leaf: str | None = None) -> SnapshotInfo:
        """Write a gzip tar file with the manifest and the shard, taken after a flush (the store stays usable).

        Qdrant preallocates its files (32 MB write-ahead-log segments and vector/payload pages, a few MB per
        payload index) and leaves them sparse on disk; each file is archived without its trailing zeros and its
        full length recorded, so the snapshot is proportional to the data and a restore gives back the same files,
        sparse again.
        """
        self._shard.flush()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        full = stored = 0
        shard_dir = self.folder / SHARD_DIR
        with tarfile.open(partial, "w:gz", compresslevel=6, format=tarfile.PAX_FORMAT) as archive:
            chunks = self.count()
            info = {"format": SNAPSHOT_FORMAT, "leaf": leaf or self.folder.name, "chunks": chunks}
            _add_bytes(archive, SNAPSHOT_INFO, json.dumps(info).encode())
            _add_bytes(archive, MANIFEST_FILE, self.manifest.to_json().encode())
            for path in sorted(shard_dir.rglob("*")):
                name = f"{SHARD_DIR}/{path.relative_to(shard_dir).as_posix()}"
                if path.is_dir():
                    archive.add(path, arcname=name, recursive=False)
                elif path.is_file():
                    size, length = _add_trimmed(archive, path, name)
                    full, stored = full + size, stored + length
        partial.replace(target)
        return SnapshotInfo(target, str(info["leaf"]), chunks, full, target.stat().st_size)

    @classmethod
    def restore(cls, snapshot: Path, folder: Path, replace: bool = False) -> EdgeStore:
        """Unpack a snapshot into ``folder`` and open it.

        ``folder`` must not hold an index unless ``replace``: then the snapshot is unpacked next to it and opened,
        and only then takes the old index's place (the old one is removed last). A shard that a running process
        holds is never replaced.
        """
        exists = (folder / MANIFEST_FILE).exists()
        if exists and not replace:
            raise StoreError(
                f"{folder}: an index exists already; add --replace to replace it (the old index stays until the "
                "restored one opens), or restore into another node folder"
            )
        if exists:
            cls.open(folder).close()  # refuses a shard held by a running node
        staging = folder.parent / STAGING_DIR / f"{folder.name}-{uuid.uuid4().hex[:8]}"
        staging.mkdir(parents=True)
        try:
            _unpack(snapshot, staging)
            cls.open(staging).close()
            if exists:
                retired = staging.with_name(staging.name + "-old")
                folder.rename(retired)
                staging.rename(folder)
                shutil.rmtree(retired, ignore_errors=True)
            else:
                folder.parent.mkdir(parents=True, exist_ok=True)
                if folder.exists():
                    folder.rmdir()  # an empty folder left by an earlier attempt (anything else: OSError)
                staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            with contextlib.suppress(OSError):
                staging.parent.rmdir()
        return cls.open(folder)

    def close(self) -> None:
        """Flush to disk and release the shard."""
        self._shard.flush()
        self._shard.close()
