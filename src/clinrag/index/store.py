"""The vector store seam: one protocol, two Qdrant backends (embedded Edge shard, Qdrant server / local mode).

Both keep, per chunk, a dense vector (``dense``, cosine), a BM25 sparse vector (``bm25``, IDF modifier) and the
chunk as payload, with payload indexes on every filter field. What is backend-neutral lives here: point ids,
payload conversion, filters as plain conditions, the query description and the index manifest.

Every payload carries ``digest``, a hash of the rest of the payload, so that an update can tell a chunk whose
metadata changed (same text, hence same id, but a new service or date) from an unchanged one without reading
whole payloads back.

Example:
    >>> point_id("0123456789abcdef0123456789abcdef")
    '01234567-89ab-cdef-0123-456789abcdef'
    >>> from clinrag.types import Chunk
    >>> chunk = Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine")
    >>> payload_of(chunk)["digest"] == payload_digest(chunk), chunk_of(payload_of(chunk)) == chunk
    (True, True)
    >>> [c.key for c in conditions(SearchFilters(subject_ids=(1,), depts=("medicine",)))]
    ['subject_id', 'dept']
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from clinrag.errors import ConfigError
from clinrag.index.embed import Vectors
from clinrag.types import Chunk, SearchFilters, chunk_date

DENSE = "dense"
SPARSE = "bm25"
DIGEST = "digest"
DERIVED_FIELDS = frozenset({"date_ts", DIGEST})  # payload fields that are not chunk fields
Mode = Literal["dense", "bm25", "hybrid", "hybrid-mmr"]
MANIFEST_VERSION = 1
LEXICAL_PLAIN = ""
"""BM25 documents encoded from their text as written (indexes built before abbreviation expansion)."""
LEXICAL_EXPANDED = "abbreviations-1"
"""BM25 documents encoded with clinical abbreviations expanded (`clinrag.index.abbreviations`); new indexes."""

KEYWORD_FIELDS = ("org", "dept", "leaf", "service", "section", "section_group", "note_type", "source_kind", "table")
INTEGER_FIELDS = ("subject_id", "hadm_id", "date_ts")
FILTER_FIELDS = {
    "subject_ids": "subject_id",
    "hadm_ids": "hadm_id",
    "orgs": "org",
    "depts": "dept",
    "services": "service",
    "sections": "section",
    "section_groups": "section_group",
    "note_types": "note_type",
    "source_kinds": "source_kind",
    "authors": "citation.authors",
    "journals": "citation.journal",
    "publication_types": "citation.publication_types",
    "mesh": "citation.mesh",
}


class EmbedderMismatchError(ConfigError):
    """An index was built with another embedder: its scores are not comparable with this query's."""


@dataclass(frozen=True)
class IndexManifest:
    """What an index was built with; indexes with different embedders are never queried or merged together."""

    embedder_id: str
    dimension: int
    bm25_average_length: float
    version: int = MANIFEST_VERSION
    created: str = ""
    lexical: str = LEXICAL_PLAIN
    """How BM25 documents were encoded: an update encodes new chunks the same way, so an index stays consistent."""

    def check(self, embedder_id: str, dimension: int, where: str) -> None:
        """Refuse an embedder other than the one this index was built with."""
        if (embedder_id, dimension) != (self.embedder_id, self.dimension):
            raise EmbedderMismatchError(
                f"{where}: index built with embedder {self.embedder_id} ({self.dimension} dimensions), "
                f"not {embedder_id} ({dimension}); rebuild it with 'clinrag index build --rebuild' or use that embedder"
            )

    def to_json(self) -> str:
        """The manifest as JSON."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> IndexManifest:
        """Parse a manifest written by `to_json`."""
        return cls(**json.loads(text))

    @classmethod
    def new(cls, embedder_id: str, dimension: int, bm25_average_length: float) -> IndexManifest:
        """A manifest stamped with the current time."""
        created = datetime.now(UTC).isoformat(timespec="seconds")
        return cls(embedder_id, dimension, round(bm25_average_length, 3), MANIFEST_VERSION, created, LEXICAL_EXPANDED)


def point_id(chunk_id: str) -> str:
    """The Qdrant point id (a UUID) of a 32-hex-digit chunk id."""
    return str(uuid.UUID(hex=chunk_id))


def chunk_id_of(point: object) -> str:
    """The chunk id of a Qdrant point id (UUID object or string)."""
    return uuid.UUID(str(point)).hex


def _bare_payload(chunk: Chunk) -> dict[str, Any]:
    payload = chunk.model_dump(mode="json", exclude_none=True)
    date = chunk_date(chunk)
    if date is not None:
        payload["date_ts"] = int(date.replace(tzinfo=UTC).timestamp())
    return payload


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def payload_digest(chunk: Chunk) -> str:
    """A hash of everything stored about ``chunk`` (its fields and ``date_ts``), kept in the payload as ``digest``.

    Example:
        >>> from clinrag.types import Chunk
        >>> before = Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine", service="MED")
        >>> after = before.model_copy(update={"service": "SURG"})
        >>> before.chunk_id == after.chunk_id, payload_digest(before) == payload_digest(after)
        (True, False)
    """
    return _digest(_bare_payload(chunk))


def payload_of(chunk: Chunk) -> dict[str, Any]:
    """The payload stored with a chunk: the chunk itself, ``date_ts`` (epoch seconds) for date filters, and
    ``digest`` (`payload_digest`)."""
    payload = _bare_payload(chunk)
    payload[DIGEST] = _digest(payload)
    return payload


def chunk_of(payload: dict[str, Any]) -> Chunk:
    """The chunk stored in a payload."""
    return Chunk.model_validate({key: value for key, value in payload.items() if key not in DERIVED_FIELDS})


def _own_chunk_of(payload: dict[str, Any]) -> Chunk:
    """`chunk_of` for a payload the caller owns (a fresh dict from the store client): derived fields are popped."""
    for key in DERIVED_FIELDS:
        payload.pop(key, None)
    return Chunk.model_validate(payload)


def timestamp(moment: datetime) -> int:
    """Epoch seconds of a naive (UTC) or aware datetime, as stored in ``date_ts``."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return int(aware.timestamp())


@dataclass(frozen=True)
class Condition:
    """One filter condition: ``key`` is any of ``values``, or within [gte, lt)."""

    key: str
    values: tuple[str | int, ...] = ()
    gte: int | None = None
    lt: int | None = None


def conditions(filters: SearchFilters | None) -> list[Condition]:
    """The conditions (all must hold) that express ``filters``."""
    if filters is None:
        return []
    result = []
    for field, key in FILTER_FIELDS.items():
        values = getattr(filters, field)
        if values is not None:
            result.append(Condition(key, tuple(values)))
    if filters.start is not None or filters.end is not None:
        result.append(
            Condition(
                "date_ts",
                gte=timestamp(filters.start) if filters.start else None,
                lt=timestamp(filters.end) if filters.end else None,
            )
        )
    return result


@dataclass(frozen=True)
class StoreQuery:
    """One search: mode, query vectors, filters and sizes.

    ``weights`` are (dense, bm25) for fusion; ``fetch_k`` candidates come from each retriever before fusion/MMR.
    """

    mode: Mode
    dense: Vectors | None
    sparse: dict[int, float] | None
    filters: SearchFilters | None = None
    limit: int = 10
    fetch_k: int = 50
    rrf_k: int = 60
    weights: tuple[float, float] = (1.0, 1.0)
    mmr_lambda: float = 0.5


@dataclass(frozen=True)
class StoreHit:
    """A chunk found by a store: the mode's score and, always, the dense cosine with the query."""

    chunk: Chunk
    score: float
    dense_score: float
    vector: Vectors | None = None


def clean_sparse(terms: dict[int, float]) -> tuple[list[int], list[float]]:
    """Indices and values of a sparse vector, with non-finite or zero values dropped.

    Qdrant Edge accepts a malformed sparse vector and then fails on every later write to the shard, so nothing
    doubtful is ever sent.
    """
    kept = [(index, value) for index, value in terms.items() if np.isfinite(value) and value != 0.0]
    return [index for index, _ in kept], [float(value) for _, value in kept]


def stored_vector(vector: Sequence[float] | None) -> Vectors | None:
    """A stored dense vector as a float32 array (None when the store did not return it)."""
    return None if vector is None else np.asarray(vector, dtype=np.float32)


def dense_score(query: Vectors | None, vector: Sequence[float] | None) -> float:
    """Cosine of a normalised query and a stored vector (0.0 when either is missing)."""
    if query is None or vector is None:
        return 0.0
    return float(np.dot(query, np.asarray(vector, dtype=np.float32)))


def store_hits(
    query: Vectors | None, points: Sequence[tuple[dict[str, Any], float, Sequence[float] | None]]
) -> list[StoreHit]:
    """The hits of a store's answer, in order, from each point's ``(payload, score, stored dense vector)``.

    ``payload`` must be a dict the caller gives up (a fresh one from the store client): its derived fields are
    removed in place. The same values as `chunk_of`, `dense_score` and `stored_vector` per point, for less work:
    every stored vector is converted once, all in one array (each hit's ``vector`` is a row of it), and the cosine is
    the same ``np.dot`` of the query with that float32 row.

    Example:
        >>> from clinrag.types import Chunk
        >>> chunk = Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine")
        >>> hit = store_hits(np.array([0.6, 0.8], dtype=np.float32), [(payload_of(chunk), 0.9, [1.0, 0.0])])[0]
        >>> hit.chunk == chunk, round(hit.dense_score, 3), hit.vector.tolist()
        (True, 0.6, [1.0, 0.0])
    """
    stored = [vector for _, _, vector in points if vector is not None]
    rows: Vectors | None = None
    if stored and len({len(vector) for vector in stored}) == 1:
        values = itertools.chain.from_iterable(stored)
        count = len(stored) * len(stored[0])
        rows = np.fromiter(values, dtype=np.float32, count=count).reshape(len(stored), len(stored[0]))
    hits = []
    row = 0
    for payload, score, vector in points:
        array: Vectors | None = None
        if vector is not None:
            array = rows[row] if rows is not None else np.asarray(vector, dtype=np.float32)
            row += 1
        cosine = 0.0 if query is None or array is None else float(np.dot(query, array))
        hits.append(StoreHit(_own_chunk_of(payload), score, cosine, array))
    return hits


class VectorStore(Protocol):
    """A Qdrant collection (or Edge shard) of chunks with dense and BM25 vectors."""

    manifest: IndexManifest

    def upsert(self, chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]) -> None:
        """Insert or replace points for ``chunks``."""
        ...

    def delete(self, chunk_ids: Iterable[str]) -> None:
        """Remove the points of ``chunk_ids`` (unknown ids are ignored)."""
        ...

    def count(self, filters: SearchFilters | None = None) -> int:
        """Points matching ``filters`` (all when None)."""
        ...

    def chunk_ids(self) -> set[str]:
        """Every chunk id stored."""
        ...

    def digests(self) -> dict[str, str | None]:
        """Every chunk id stored, with the payload ``digest`` it was stored with (None for points written before
        digests were kept)."""
        ...

    def replace_payloads(self, chunks: Sequence[Chunk]) -> None:
        """Overwrite the payloads of stored points with those of ``chunks`` (same ids; vectors are kept)."""
        ...

    def optimize(self) -> None:
        """Build the vector index after a bulk load where the backend does not do it in the background."""
        ...

    def query(self, query: StoreQuery) -> list[StoreHit]:
        """Run one search."""
        ...

    def snapshot(self, target: Path) -> Path:
        """Write a backup of the store to ``target`` (a file); returns its path."""
        ...

    def close(self) -> None:
        """Flush and release the store."""
        ...
