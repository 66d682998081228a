"""The data of ``bench_federation.py``: the demo cohort and the three hospitals' indexes, and one centralised index
over the same chunks that reuses the vectors the hospitals' indexes hold (same model, same chunk texts), so both
sides rank identical vectors."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from clinrag.access.demo import DEMO_TREES
from clinrag.demo.build import build_demo
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors
from clinrag.index.indexer import build_indexes, leaf_folders
from clinrag.index.sparse_copy import copy_tree
from clinrag.index.store import DENSE, chunk_id_of
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import IngestSettings, RetrieveSettings, Settings, SynthSettings

ORGS = tuple(sorted(DEMO_TREES))
EMBEDDER = OnnxMiniLmEmbedder(threads=2)
DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"


def prepare(out: Path, patients: int, seed: int) -> tuple[Settings, dict[str, Any]]:
    """Build (or reuse) the demo cohort and the hospitals' indexes under ``out``: ``data/demo`` is copied when it
    holds a cohort of ``patients`` and ``seed``, ``out`` is reused when it already holds the nodes. Returns the
    settings the cohort was ingested with and what the results record about it."""
    settings = Settings(synth=SynthSettings(workers=2), ingest=IngestSettings(tables=("admissions",)))
    source = "built"
    demo_manifest = DEMO / "cohort" / "cohort.json"
    if not (out / "nodes").is_dir() and demo_manifest.is_file():
        described = json.loads(demo_manifest.read_text())
        if described.get("patients") == patients and described.get("seed") == seed:
            shutil.copytree(DEMO / "cohort", out / "cohort", dirs_exist_ok=True)
            copy_tree(DEMO / "nodes", out / "nodes", exists_ok=True)
            settings = Settings(synth=SynthSettings(workers=2))  # make demo ingests every default table
            source = f"copied from {DEMO}"
    elif (out / "nodes").is_dir():
        source = f"reused {out}"
    started = time.perf_counter()
    demo = build_demo(out, patients=patients, seed=seed, settings=settings)
    chunks = {org: sum(leaf.added + leaf.kept for leaf in demo.indexes[org].leaves.values()) for org in ORGS}
    info = {
        "patients": patients,
        "seed": seed,
        "tables": list(settings.ingest.tables),
        "source": source,
        "build_seconds": round(time.perf_counter() - started, 1),
        "chunks_per_org": chunks,
        "leaves_per_org": {org: sorted(demo.indexes[org].leaves) for org in ORGS},
    }
    return settings, info


class ReusingEmbedder:
    """An embedder that returns the vectors the hospitals' indexes already hold for a text (same model), and embeds
    only texts it has not seen."""

    def __init__(self, known: dict[str, Vectors]) -> None:
        self.known = known
        self.embedded = 0

    @property
    def id(self) -> str:
        """The id of the model that made the vectors."""
        return EMBEDDER.id

    @property
    def dimension(self) -> int:
        """The vectors' dimension."""
        return EMBEDDER.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The vectors of ``texts``, one row each; texts not seen before are embedded (and counted)."""
        missing = [text for text in texts if text not in self.known]
        if missing:
            self.embedded += len(missing)
            self.known.update(zip(missing, EMBEDDER.embed(missing), strict=True))
        return np.stack([self.known[text] for text in texts]) if texts else np.zeros((0, self.dimension), np.float32)


def stored_vectors(out: Path) -> dict[str, Vectors]:
    """Indexed text -> stored dense vector, over every leaf of every hospital."""
    known: dict[str, Vectors] = {}
    for org in ORGS:
        with ChunkStore.open(out / "nodes" / org / "chunks.sqlite") as chunks:
            texts = {chunk.chunk_id: chunk.indexed_text for chunk in chunks.chunks()}
        for folder in leaf_folders(out / "nodes" / org / "index").values():
            store = EdgeStore.open(folder)
            try:
                offset: Any = None
                while True:
                    records, offset = store._shard.scroll(
                        qe.ScrollRequest(limit=1000, offset=offset, with_payload=False, with_vector=[DENSE])
                    )
                    for record in records:
                        vector = record.vector[DENSE] if isinstance(record.vector, dict) else record.vector
                        known[texts[chunk_id_of(record.id)]] = np.asarray(vector, dtype=np.float32)
                    if offset is None:
                        break
            finally:
                store.close()
    return known


def centralised(out: Path, settings: Settings) -> tuple[Retriever, dict[str, Any]]:
    """One node holding every hospital's chunks (one leaf per department across hospitals), built under
    ``out/centralised``; returns its retriever and what the results record about it."""
    folder = out / "centralised"
    started = time.perf_counter()
    embedder = ReusingEmbedder(stored_vectors(out))
    read = time.perf_counter()
    with ChunkStore.open(folder / "chunks.sqlite") as chunks:
        for org in ORGS:
            ingest_mimic(out / "cohort" / "hospitals" / org, chunks, settings.ingest, org)
        ingested = time.perf_counter()
        summary = build_indexes(chunks, folder / "index", embedder)
        count = chunks.count()
    info = {
        "chunks": count,
        "leaves": sorted(summary.leaves),
        "vectors_embedded_anew": embedder.embedded,
        "seconds": {
            "read_stored_vectors": round(read - started, 1),
            "ingest": round(ingested - read, 1),
            "index": round(time.perf_counter() - ingested, 1),
        },
    }
    return Retriever.open(folder, RetrieveSettings(), EMBEDDER), info
