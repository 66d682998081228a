"""What the two built-in Qdrant stores (`clinrag.index.edge`, `clinrag.index.server`) write and read back the same
way: the points of chunks, in batches; every chunk id, every chunk id with its payload digest (both by scrolling
through all points, a page at a time); and a point's stored dense vector.

Example:
    >>> from types import SimpleNamespace as Record
    >>> pages = {None: ([Record(id="00000000000000000000000000000001", payload={"digest": "d1"})], 1), 1: ([], None)}
    >>> scrolled_digests(lambda offset, payload: pages[offset])
    {'00000000000000000000000000000001': 'd1'}
    >>> stored_dense({"dense": [1.0, 0.0]}), stored_dense(None)
    ([1.0, 0.0], None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, cast

from clinrag.index.embed import Vectors
from clinrag.index.store import DENSE, DIGEST, chunk_id_of, clean_sparse, payload_of, point_id
from clinrag.types import Chunk

UPSERT_BATCH = 256
"""Points a store writes in one request."""
SCROLL_PAGE = 1000
"""Points a store's scroll request asks for at a time."""

Page = Callable[[Any, bool | list[str]], tuple[Sequence[Any], Any]]
"""A store's scroll request: given the offset to start at (None: the first point) and the payload fields to return
(False: none), up to `SCROLL_PAGE` records (each with ``id`` and ``payload``) and the next offset (None: no more)."""


class NewPoint(NamedTuple):
    """A chunk's point as a store writes it: its id, dense vector, sparse vector and payload."""

    id: str
    dense: list[float]
    sparse: tuple[list[int], list[float]]
    """Indices and values (`clean_sparse`: no zero or non-finite value)."""
    payload: dict[str, Any]


def point_batches(
    chunks: Sequence[Chunk], dense: Vectors, sparse: Sequence[dict[int, float]]
) -> Iterator[list[NewPoint]]:
    """The points of ``chunks`` (rows of ``dense`` and ``sparse`` in the same order), `UPSERT_BATCH` at a time."""
    for start in range(0, len(chunks), UPSERT_BATCH):
        yield [
            NewPoint(point_id(chunk.chunk_id), dense[row].tolist(), clean_sparse(sparse[row]), payload_of(chunk))
            for row, chunk in enumerate(chunks[start : start + UPSERT_BATCH], start)
        ]


def _scrolled(page: Page, payload: bool | list[str]) -> Iterator[Any]:
    offset: Any = None
    while True:
        records, offset = page(offset, payload)
        yield from records
        if offset is None:
            return


def scrolled_chunk_ids(page: Page) -> set[str]:
    """Every chunk id in the store (its payloads are not read)."""
    return {chunk_id_of(record.id) for record in _scrolled(page, False)}


def scrolled_digests(page: Page) -> dict[str, str | None]:
    """Every chunk id with its stored payload digest (None when it has none); reads only the ``digest`` field."""
    found: dict[str, str | None] = {}
    for record in _scrolled(page, [DIGEST]):
        digest = (record.payload or {}).get(DIGEST)
        found[chunk_id_of(record.id)] = digest if isinstance(digest, str) else None
    return found


def stored_dense(vectors: object) -> list[float] | None:
    """The dense vector among a point's named ``vectors`` (None when the store did not return it)."""
    stored = vectors.get(DENSE) if isinstance(vectors, dict) else None
    return cast(list[float], stored) if isinstance(stored, list) else None
