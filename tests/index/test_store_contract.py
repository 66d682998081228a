"""One contract for every vector store backend, and congruence between the embedded and server backends."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import StoreError
from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.server import ServerStore
from clinrag.index.store import EmbedderMismatchError, IndexManifest, StoreQuery, VectorStore
from clinrag.types import Chunk, SearchFilters, SourceKind

DEPTS = ("medicine", "surgery", "psychiatry")
SECTIONS = ("History of Present Illness", "Brief Hospital Course", "Discharge Medications")
WORDS = [
    "fever",
    "cough",
    "pneumonia",
    "fracture",
    "hip",
    "fall",
    "depression",
    "citalopram",
    "chf",
    "furosemide",
    "stroke",
    "weakness",
    "aspirin",
]
DIM = 8


def _corpus(size: int = 120, seed: int = 0) -> tuple[list[Chunk], np.ndarray, list[dict[int, float]]]:
    rng = random.Random(seed)
    chunks = []
    for i in range(size):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        chunks.append(
            Chunk.create(
                source_id=f"note:{i // 4}",
                text=text,
                org="A",
                dept=DEPTS[i % 3],
                leaf=DEPTS[i % 3],
                subject_id=1000 + i % 7,
                hadm_id=2000 + i % 11,
                section=SECTIONS[i % 3],
                source_kind=SourceKind.NOTE if i % 5 else SourceKind.ROW,
                charttime=datetime(2015 + i % 8, 1 + i % 12, 1 + i % 28),
                position=i,
            )
        )
    vectors = np.random.default_rng(seed).standard_normal((size, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    encoder = Bm25Encoder(8.0)
    return chunks, vectors, [encoder.encode_document(c.indexed_text) for c in chunks]


def _edge(tmp: Path) -> VectorStore:
    return EdgeStore.create(tmp / "edge", IndexManifest.new("test-embedder", DIM, 8.0))


def _server(tmp: Path) -> VectorStore:
    return ServerStore.create(ServerStore.local(tmp / "local"), "leaf", IndexManifest.new("test-embedder", DIM, 8.0))


BACKENDS: dict[str, Callable[[Path], VectorStore]] = {"edge": _edge, "server-local": _server}


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    created = BACKENDS[request.param](tmp_path)
    chunks, vectors, sparse = _corpus()
    created.upsert(chunks, vectors, sparse)
    yield created
    created.close()


def _query(mode: str, filters: SearchFilters | None = None, seed: int = 1, limit: int = 10) -> StoreQuery:
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    vector /= np.linalg.norm(vector)
    sparse = Bm25Encoder.encode_query("pneumonia fracture citalopram")
    return StoreQuery(mode=mode, dense=vector, sparse=sparse, filters=filters, limit=limit, fetch_k=40)  # type: ignore[arg-type]


def test_count_and_ids(store: VectorStore) -> None:
    chunks, _, _ = _corpus()
    assert store.count() == len(chunks)
    assert store.chunk_ids() == {c.chunk_id for c in chunks}


def test_upsert_replaces_and_delete_removes(store: VectorStore) -> None:
    chunks, vectors, sparse = _corpus()
    store.upsert(chunks[:5], vectors[:5], sparse[:5])
    assert store.count() == len(chunks)
    store.delete([c.chunk_id for c in chunks[:10]] + ["f" * 32])
    assert store.count() == len(chunks) - 10
    assert not {c.chunk_id for c in chunks[:10]} & store.chunk_ids()


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid", "hybrid-mmr"])
def test_every_mode_returns_chunks_with_payload(store: VectorStore, mode: str) -> None:
    hits = store.query(_query(mode))
    assert 0 < len(hits) <= 10
    assert len({h.chunk.chunk_id for h in hits}) == len(hits)
    for hit in hits:
        assert hit.chunk.org == "A"
        assert -1.0 <= hit.dense_score <= 1.0 + 1e-5


def test_dense_scores_are_cosines_in_order(store: VectorStore) -> None:
    chunks, vectors, _ = _corpus()
    query = _query("dense")
    assert query.dense is not None
    expected = sorted(((float(vectors[i] @ query.dense), c.chunk_id) for i, c in enumerate(chunks)), reverse=True)
    hits = store.query(query)
    assert [h.chunk.chunk_id for h in hits] == [cid for _, cid in expected[:10]]
    for hit, (cosine, _) in zip(hits, expected, strict=False):
        assert hit.score == pytest.approx(cosine, abs=1e-4)
        assert hit.dense_score == pytest.approx(cosine, abs=1e-4)


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid", "hybrid-mmr"])
def test_filters_hold_in_every_mode(store: VectorStore, mode: str) -> None:
    filters = SearchFilters(
        subject_ids=(1001, 1002), depts=("medicine", "surgery"), start=datetime(2017, 1, 1), end=datetime(2021, 1, 1)
    )
    hits = store.query(_query(mode, filters, limit=50))
    assert hits
    for hit in hits:
        chunk = hit.chunk
        assert chunk.subject_id in (1001, 1002)
        assert chunk.dept in ("medicine", "surgery")
        assert chunk.charttime is not None
        assert datetime(2017, 1, 1) <= chunk.charttime < datetime(2021, 1, 1)
    assert store.count(filters) == sum(
        1
        for c in _corpus()[0]
        if c.subject_id in (1001, 1002)
        and c.dept in ("medicine", "surgery")
        and c.charttime is not None
        and datetime(2017, 1, 1) <= c.charttime < datetime(2021, 1, 1)
    )


def test_filter_on_sections_and_kinds(store: VectorStore) -> None:
    filters = SearchFilters(sections=("Discharge Medications",), source_kinds=("note",))
    hits = store.query(_query("hybrid", filters, limit=50))
    assert hits
    assert all(h.chunk.section == "Discharge Medications" for h in hits)
    assert all(h.chunk.source_kind == "note" for h in hits)


def test_a_filter_nothing_matches_returns_nothing(store: VectorStore) -> None:
    assert store.query(_query("hybrid", SearchFilters(subject_ids=(42,)))) == []
    assert store.count(SearchFilters(orgs=("B",))) == 0


def test_doubtful_sparse_values_never_break_the_store(store: VectorStore) -> None:
    chunks, vectors, _ = _corpus()
    store.upsert(chunks[:2], vectors[:2], [{1: float("nan"), 2: 1.0}, {3: float("inf"), 4: 0.0}])
    store.upsert(chunks[2:4], vectors[2:4], [{5: 1.0}, {6: 2.0}])
    assert store.count() == len(chunks)
    assert store.query(_query("hybrid"))


def test_manifest_refuses_another_embedder(store: VectorStore) -> None:
    with pytest.raises(EmbedderMismatchError, match="test-embedder"):
        store.manifest.check("all-MiniLM-L6-v2/onnx-int8", 384, "leaf")
    store.manifest.check("test-embedder", DIM, "leaf")


def test_edge_store_reopens_and_snapshots(tmp_path: Path) -> None:
    store = _edge(tmp_path)
    chunks, vectors, sparse = _corpus()
    store.upsert(chunks, vectors, sparse)
    snapshot = store.snapshot(tmp_path / "backup" / "leaf.tar")
    store.delete([c.chunk_id for c in chunks[:30]])
    store.close()
    reopened = EdgeStore.open(tmp_path / "edge")
    assert reopened.count() == len(chunks) - 30
    reopened.close()
    restored = EdgeStore.restore(snapshot, tmp_path / "restored")
    assert restored.count() == len(chunks)
    assert restored.manifest.embedder_id == "test-embedder"
    assert restored.query(_query("hybrid"))
    restored.close()
    with pytest.raises(StoreError, match="exists already"):
        EdgeStore.restore(snapshot, tmp_path / "restored")
    with pytest.raises(StoreError, match="no index here"):
        EdgeStore.open(tmp_path / "nothing")


@pytest.mark.parametrize("seed", range(6))
def test_backends_are_congruent_under_random_filters(tmp_path: Path, seed: int) -> None:
    chunks, vectors, sparse = _corpus(seed=seed)
    stores = [BACKENDS[name](tmp_path / name) for name in sorted(BACKENDS)]
    rng = random.Random(seed)
    try:
        for backend in stores:
            backend.upsert(chunks, vectors, sparse)
        for trial in range(5):
            filters = SearchFilters(
                subject_ids=tuple(rng.sample(range(1000, 1007), rng.randint(1, 4))) if rng.random() < 0.6 else None,
                depts=tuple(rng.sample(DEPTS, rng.randint(1, 2))) if rng.random() < 0.5 else None,
                start=datetime(rng.randint(2015, 2019), 1, 1) if rng.random() < 0.4 else None,
            )
            for mode in ("dense", "bm25"):
                # Every match (limit above the corpus size), so that ties cannot fall differently at a cut-off;
                # scores agree to float32 precision.
                edge, server = (
                    {h.chunk.chunk_id: h.score for h in backend.query(_query(mode, filters, trial, 500))}
                    for backend in stores
                )
                assert edge.keys() == server.keys(), (mode, filters)
                assert all(abs(edge[cid] - server[cid]) < 1e-3 for cid in edge), (mode, filters)
            assert stores[0].count(filters) == stores[1].count(filters)
    finally:
        for backend in stores:
            backend.close()
