"""The Ray engine (`clinrag.ingest.scale`, `clinrag.index.scale`) against the local one on a small synthetic cohort:
the same chunk store, the same collections (ids, payloads, dense vectors bit for bit, BM25 vectors, manifests) and
the same search results. Ray runs in this process with two CPUs; the collections are qdrant-client's local mode
(the same client API as a Qdrant server; no server binary is available here). Skipped without the ``scale`` extra.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from clinrag.errors import MissingDependencyError
from clinrag.index.backend import LOCAL_DIR, leaf_names, open_leaf_store
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.store import StoreQuery
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.scale.engine import require_ray
from clinrag.settings import IndexSettings, IngestSettings, ScaleSettings

INGEST = IngestSettings(tables=("admissions",))
INDEX = IndexSettings(backend="server")  # qdrant-client local mode under NODE/index/LEAF/qdrant-local
SCALE = ScaleSettings(engine="ray", workers=2, window=100)  # several windows, so that reuse across them is tested
QUESTIONS = ("What was the patient discharged on?", "seizure medication", "admitted with headache and weakness")


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: `import ray` raises ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'clinrag\[scale\]'"):
        require_ray()


@pytest.mark.parametrize("command", [["ingest", "--help"], ["index", "build", "--help"]])
def test_the_engine_option_names_the_extra_in_help(command: list[str]) -> None:
    from typer.testing import CliRunner

    from clinrag.app.cli import app

    shown = CliRunner().invoke(app, command, env={"COLUMNS": "240"}).output
    assert "pip install 'clinrag[scale]'" in shown  # not eaten by Rich's markup as a style tag


@pytest.fixture(scope="module")
def ray_started() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="the Ray engine needs the scale extra: pip install 'clinrag[scale]'")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # as `ray_session` does: nothing leaves the machine
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def nodes(cohort: Path, tmp_path_factory: pytest.TempPathFactory, ray_started: None) -> tuple[Path, Path]:
    """Hospital C ingested and indexed by each engine: (local node, Ray node)."""
    from clinrag.index.scale.build import build_indexes_ray
    from clinrag.ingest.scale.chunking import ray_note_chunker
    from clinrag.ingest.scale.engine import ray_session

    local, distributed = tmp_path_factory.mktemp("local"), tmp_path_factory.mktemp("ray")
    with ChunkStore.open(local / "chunks.sqlite") as chunks:
        ingest_mimic(cohort / "hospitals/C", chunks, INGEST)
        build_indexes(chunks, local / "index", OnnxMiniLmEmbedder(threads=2), index=INDEX)
    with ray_session(SCALE), ChunkStore.open(distributed / "chunks.sqlite") as chunks:
        ingest_mimic(cohort / "hospitals/C", chunks, INGEST, chunker=ray_note_chunker(SCALE))
        summary = build_indexes_ray(chunks, distributed / "index", INDEX, SCALE)
        assert sum(leaf.added for leaf in summary.leaves.values()) == chunks.count()
    return local, distributed


@pytest.mark.slow
def test_a_fhir_export_chunks_the_same_on_ray(cohort: Path, tmp_path: Path, ray_started: None) -> None:
    from clinrag.ingest.fhir.export import write_export
    from clinrag.ingest.formats import open_reader
    from clinrag.ingest.scale.chunking import ray_note_chunker
    from clinrag.ingest.scale.engine import ray_session

    export = tmp_path / "fhir"
    write_export(cohort / "hospitals/C", export)
    with ChunkStore.open(tmp_path / "local/chunks.sqlite") as chunks:
        ingest_mimic(export, chunks, INGEST, reader=open_reader(export))
    with ray_session(SCALE), ChunkStore.open(tmp_path / "ray/chunks.sqlite") as chunks:
        ingest_mimic(export, chunks, INGEST, reader=open_reader(export), chunker=ray_note_chunker(SCALE))
    rows = _chunk_rows(tmp_path / "local")
    assert any(str(row[1]).startswith("note:") for row in rows)
    assert _chunk_rows(tmp_path / "ray") == rows


def _chunk_rows(node: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(node / "chunks.sqlite") as db:
        chunks = db.execute("SELECT * FROM chunks ORDER BY chunk_id").fetchall()
        sources = db.execute("SELECT source_id, scope, digest, chunks FROM sources ORDER BY source_id").fetchall()
        patients = db.execute("SELECT * FROM patients ORDER BY subject_id").fetchall()
    return [*chunks, *sources, *patients]


def _points(node: Path, leaf: str) -> dict[str, tuple[Any, np.ndarray, dict[int, float]]]:
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(node / "index" / leaf / LOCAL_DIR))
    try:
        records, _ = client.scroll(leaf, limit=100_000, with_payload=True, with_vectors=True)
    finally:
        client.close()
    points = {}
    for record in records:
        vectors = record.vector if isinstance(record.vector, dict) else {}
        sparse: Any = vectors["bm25"]
        terms = dict(zip(sparse.indices, sparse.values, strict=True))
        points[str(record.id)] = (record.payload, np.asarray(vectors["dense"], dtype=np.float32), terms)
    return points


@pytest.mark.slow
def test_same_chunk_store(nodes: tuple[Path, Path]) -> None:
    local, distributed = nodes
    rows = _chunk_rows(local)
    assert rows
    assert _chunk_rows(distributed) == rows


@pytest.mark.slow
def test_same_collections_bit_for_bit(nodes: tuple[Path, Path]) -> None:
    local, distributed = nodes
    leaves = leaf_names(local / "index", INDEX)
    assert leaves
    assert leaf_names(distributed / "index", INDEX) == leaves
    for leaf in leaves:
        mine, theirs = _points(local, leaf), _points(distributed, leaf)
        assert mine.keys() == theirs.keys()
        for point, (payload, dense, sparse) in mine.items():
            other_payload, other_dense, other_sparse = theirs[point]
            assert other_payload == payload
            assert np.array_equal(other_dense, dense)  # bit for bit: the int8 embedder runs each text alone
            assert other_sparse == sparse
        manifests = [open_leaf_store(node / "index", leaf, INDEX) for node in nodes]
        try:
            first, second = (dataclasses.replace(store.manifest, created="") for store in manifests)
        finally:
            for store in manifests:
                store.close()
        assert first == second


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_same_search_results(nodes: tuple[Path, Path], mode: Any) -> None:
    embedder = OnnxMiniLmEmbedder(threads=2)
    found = 0
    for leaf in leaf_names(nodes[0] / "index", INDEX):
        stores = [open_leaf_store(node / "index", leaf, INDEX) for node in nodes]
        try:
            for question in QUESTIONS:
                query = StoreQuery(
                    mode=mode, dense=embedder.embed([question])[0], sparse=Bm25Encoder.encode_query(question), limit=10
                )
                first, second = ([(hit.chunk.chunk_id, hit.score) for hit in store.query(query)] for store in stores)
                assert second == first  # same chunks, same order, same scores
                found += len(first)
        finally:
            for store in stores:
                store.close()
    assert found >= 10


def test_cli_engine_ray_without_the_extra(cohort: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from clinrag.app.cli import app

    monkeypatch.setitem(sys.modules, "ray", None)
    store = tmp_path / "chunks.sqlite"
    result = CliRunner().invoke(app, ["ingest", str(cohort / "hospitals/C"), "--store", str(store), "--engine", "ray"])
    assert isinstance(result.exception, MissingDependencyError)
    assert "clinrag[scale]" in str(result.exception)
    result = CliRunner().invoke(app, ["ingest", str(cohort / "hospitals/C"), "--engine", "spark"])
    assert result.exit_code != 0
    assert "--engine must be local or ray" in result.output
