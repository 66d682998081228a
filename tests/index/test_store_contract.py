"""One contract for every vector store backend, built in or a plugin's, and congruence between the embedded and
server backends.

The backends: a Qdrant Edge shard, qdrant-client's local mode (the server backend without a server), and a plugin
registered under ``clinrag.stores`` by an installed package (a package written to a temporary folder on
``sys.path``) whose factory wraps the Edge backend in a folder of its own, chosen by ``index.backend`` and reached
through `clinrag.index.backend` as any backend is."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import ConfigError, StoreError
from clinrag.index.backend import create_leaf_store, drop_indexes, leaf_names, leaf_stores, open_leaf_store
from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.server import ServerStore
from clinrag.index.store import EmbedderMismatchError, IndexManifest, StoreQuery, VectorStore, payload_digest
from clinrag.plugins import STORES, plugin_names
from clinrag.settings import IndexSettings
from clinrag.types import Chunk, SearchFilters, SourceKind

from ..plugin_packages import install_plugin

DEPTS = ("medicine", "surgery", "psychiatry")
SECTIONS = ("History of Present Illness", "Brief Hospital Course", "Discharge Medications")
ORGS = ("A", "B")
SERVICES = ("MED", "SURG", "PSYCH", "CMED")
NOTE_TYPES = ("DS", "RR")
KINDS = ("note", "row")
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
PLUGIN = """
from clinrag.index.backend import EdgeLeaves


class PluginLeaves(EdgeLeaves):
    \"\"\"The Edge backend, its shards in a folder of its own: a store made through the plugin is told apart.\"\"\"


def make_stores(settings, index_root):
    return PluginLeaves(index_root / "plugin-shards")


def make_nothing(settings, index_root):
    return object()
"""
PLUGIN_NAME = "contract-edge"


def _corpus(size: int = 120, seed: int = 0) -> tuple[list[Chunk], np.ndarray, list[dict[int, float]]]:
    """Chunks over two organisations, three departments, four services, two note types, rows and notes, 2015-2022
    (BM25 scores tie often: few distinct words and lengths)."""
    rng = random.Random(seed)
    chunks = []
    for i in range(size):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        row = i % 5 == 0
        chunks.append(
            Chunk.create(
                source_id=f"note:{i // 4}",
                text=text,
                org=ORGS[i % 2] if i % 3 else "A",
                dept=DEPTS[i % 3],
                leaf=DEPTS[i % 3],
                subject_id=1000 + i % 7,
                hadm_id=2000 + i % 11,
                section=SECTIONS[i % 3],
                service=SERVICES[i % 4],
                note_type=None if row else NOTE_TYPES[i % 2],
                source_kind=SourceKind.ROW if row else SourceKind.NOTE,
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


@pytest.fixture
def plugin_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An installed package (``contract-stores-plugin``) registering ``contract-edge`` as a store backend, one whose
    factory makes something else, one that does not load, and one taking the built-in name ``server``."""
    targets = {
        PLUGIN_NAME: "contract_stores_plugin:make_stores",
        "makes-nothing": "contract_stores_plugin:make_nothing",
        "broken": "contract_stores_plugin:no_such_factory",
        "server": "contract_stores_plugin:make_stores",
    }
    folder = tmp_path / "site-packages"
    folder.mkdir()
    install_plugin(folder, monkeypatch, "contract_stores_plugin", PLUGIN, {STORES: targets})
    return PLUGIN_NAME


def _plugin(tmp: Path, name: str) -> VectorStore:
    """A leaf store made through the plugin ``name``, as the indexer makes one: by ``index.backend``."""
    return create_leaf_store(tmp / "A" / "index", "leaf", IndexManifest.new("test-embedder", DIM, 8.0), _by(name))


def _by(name: str) -> IndexSettings:
    return IndexSettings(backend=name)


@pytest.fixture(params=[*sorted(BACKENDS), "plugin"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "plugin":
        created = _plugin(tmp_path, request.getfixturevalue("plugin_on_path"))
    else:
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
        assert hit.chunk.org in ORGS
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
    assert store.count(SearchFilters(orgs=("C",))) == 0


def test_doubtful_sparse_values_never_break_the_store(store: VectorStore) -> None:
    chunks, vectors, _ = _corpus()
    store.upsert(chunks[:2], vectors[:2], [{1: float("nan"), 2: 1.0}, {3: float("inf"), 4: 0.0}])
    store.upsert(chunks[2:4], vectors[2:4], [{5: 1.0}, {6: 2.0}])
    assert store.count() == len(chunks)
    assert store.query(_query("hybrid"))


def test_digests_follow_payloads_and_replacing_payloads_keeps_vectors(store: VectorStore) -> None:
    chunks, vectors, _ = _corpus()
    assert store.digests() == {c.chunk_id: payload_digest(c) for c in chunks}
    moved = [c.model_copy(update={"service": "NEW", "charttime": datetime(2030, 1, 1)}) for c in chunks[:6]]
    store.replace_payloads(moved)
    assert store.count() == len(chunks)
    assert store.count(SearchFilters(services=("NEW",))) == 6
    assert store.count(SearchFilters(start=datetime(2030, 1, 1))) == 6  # date_ts follows the new date
    digests = store.digests()
    assert all(digests[c.chunk_id] == payload_digest(c) for c in moved)
    query = _query("dense", SearchFilters(services=("NEW",)))
    assert query.dense is not None
    hits = store.query(query)
    assert [h.chunk for h in sorted(hits, key=lambda h: h.chunk.position)] == moved
    for hit in hits:  # position i is row i of the vectors: the vectors were kept
        assert hit.score == pytest.approx(float(vectors[hit.chunk.position] @ query.dense), abs=1e-4)


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


def test_a_plugin_store_is_listed_opened_and_dropped_through_the_settings(plugin_on_path: str, tmp_path: Path) -> None:
    settings = _by(plugin_on_path)
    root = tmp_path / "A" / "index"
    assert type(leaf_stores(root, settings)).__name__ == "PluginLeaves"
    assert leaf_names(root, settings) == []
    chunks, vectors, sparse = _corpus()
    for leaf in ("surgery", "medicine"):
        created = create_leaf_store(root, leaf, IndexManifest.new("test-embedder", DIM, 8.0), settings)
        created.upsert(chunks[:10], vectors[:10], sparse[:10])
        created.close()
    assert (root / "plugin-shards" / "medicine").is_dir()  # the plugin's factory chose where, not the built-in
    assert leaf_names(root, settings) == ["medicine", "surgery"]
    assert leaf_names(root) == []  # the built-in edge backend sees none of them
    reopened = open_leaf_store(root, "medicine", settings)
    assert isinstance(reopened, EdgeStore)
    assert reopened.count() == 10
    reopened.close()
    with pytest.raises(StoreError, match="no index here"):
        open_leaf_store(root, "psychiatry", settings)
    assert drop_indexes(root, settings) == ["medicine", "surgery"]
    assert leaf_names(root, settings) == []


def test_a_store_plugin_name_is_a_valid_setting_and_a_bad_one_is_a_config_error(
    plugin_on_path: str, tmp_path: Path
) -> None:
    assert {plugin_on_path, "makes-nothing", "broken"} <= set(plugin_names(STORES))
    assert _by(plugin_on_path).backend == plugin_on_path
    root = tmp_path / "A" / "index"
    with pytest.raises(ConfigError, match=r"clinrag\.stores plugin 'broken' .* failed to load"):
        leaf_names(root, _by("broken"))
    with pytest.raises(ConfigError, match="store plugin 'makes-nothing' made object, not LeafStores"):
        leaf_names(root, _by("makes-nothing"))
    with pytest.raises(ValueError, match="unknown 'absent': one of edge, server, broken"):
        _by("absent")
    uninstalled = IndexSettings().model_copy(update={"backend": "absent"})  # set without validation
    with pytest.raises(ConfigError, match=r"no clinrag\.stores plugin named 'absent'"):
        leaf_names(root, uninstalled)


def test_a_store_plugin_named_like_a_built_in_is_refused(plugin_on_path: str) -> None:
    assert "server" in plugin_names(STORES)
    with pytest.raises(ValueError, match=r"'server' is built in.* may not take a built-in name"):
        _by("server")
    assert _by("edge").backend == "edge"  # a built-in name no plugin takes is still chosen


def _some(rng: random.Random, values: Sequence[str], chance: float) -> tuple[str, ...] | None:
    return tuple(rng.sample(list(values), rng.randint(1, len(values) - 1 or 1))) if rng.random() < chance else None


def _random_filters(rng: random.Random) -> SearchFilters:
    """Any mix of the filter fields, each set with some chance (a date range may be open at either end)."""
    return SearchFilters(
        subject_ids=tuple(rng.sample(range(1000, 1007), rng.randint(1, 4))) if rng.random() < 0.4 else None,
        hadm_ids=tuple(rng.sample(range(2000, 2011), rng.randint(1, 6))) if rng.random() < 0.15 else None,
        orgs=_some(rng, ORGS, 0.3),
        depts=_some(rng, DEPTS, 0.3),
        services=_some(rng, SERVICES, 0.3),
        sections=_some(rng, SECTIONS, 0.3),
        note_types=_some(rng, NOTE_TYPES, 0.2),
        source_kinds=_some(rng, KINDS, 0.25),
        start=datetime(rng.randint(2015, 2019), rng.randint(1, 12), 1) if rng.random() < 0.35 else None,
        end=datetime(rng.randint(2018, 2023), rng.randint(1, 12), 1) if rng.random() < 0.35 else None,
    )


def _matches(chunk: Chunk, filters: SearchFilters) -> bool:
    """What the filters mean, written out plainly (the reference both backends are held to)."""
    fields = {
        "subject_ids": chunk.subject_id,
        "hadm_ids": chunk.hadm_id,
        "orgs": chunk.org,
        "depts": chunk.dept,
        "services": chunk.service,
        "sections": chunk.section,
        "note_types": chunk.note_type,
        "source_kinds": chunk.source_kind.value,
    }
    for name, value in fields.items():
        allowed = getattr(filters, name)
        if allowed is not None and value not in allowed:
            return False
    moment = chunk.charttime
    assert moment is not None
    return (filters.start is None or moment >= filters.start) and (filters.end is None or moment < filters.end)


@pytest.mark.parametrize("seed", range(6))
def test_backends_are_congruent_under_random_filters(tmp_path: Path, seed: int) -> None:
    """Same matches and scores from both backends in every mode, under random mixes of every filter field (ties on
    BM25 scores included: both engines break them the same way, so rank fusion and MMR agree too)."""
    chunks, vectors, sparse = _corpus(seed=seed)
    stores = [BACKENDS[name](tmp_path / name) for name in sorted(BACKENDS)]
    rng = random.Random(seed)
    nonempty = 0
    try:
        for backend in stores:
            backend.upsert(chunks, vectors, sparse)
        for trial in range(8):
            filters = _random_filters(rng)
            expected = {c.chunk_id for c in chunks if _matches(c, filters)}
            nonempty += bool(expected)
            for mode in ("dense", "bm25", "hybrid", "hybrid-mmr"):
                # Every match (limit and fetch_k above the corpus size), so that nothing depends on a cut-off;
                # scores agree to float32 precision.
                query = replace(_query(mode, filters, trial, 500), fetch_k=500)
                edge, server = ({h.chunk.chunk_id: h.score for h in backend.query(query)} for backend in stores)
                assert edge.keys() == server.keys(), (mode, filters)
                assert all(abs(edge[cid] - server[cid]) < 1e-3 for cid in edge), (mode, filters)
                if mode == "dense" or mode.startswith("hybrid"):  # dense and fusion see every match
                    assert edge.keys() == expected, (mode, filters)
                else:  # BM25 sees the matches that share a query term
                    assert edge.keys() <= expected, (mode, filters)
                if mode == "hybrid-mmr":  # MMR's greedy order, not just its set
                    orders = [[h.chunk.chunk_id for h in backend.query(query)] for backend in stores]
                    assert orders[0] == orders[1], filters
            assert stores[0].count(filters) == stores[1].count(filters) == len(expected)
    finally:
        for backend in stores:
            backend.close()
    assert nonempty >= 4, "the random filters leave something to find in most trials"
