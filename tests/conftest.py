"""Shared fixtures: one small synthetic cohort per test session (generated, never committed), and the demo
federation on loopback (`tests/shared/federation.py`: ``demo_out``, ``federation``, ``open_federation``) that the
federation tests and the web and API tests (`tests/app`) share, built once per session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.settings import IngestSettings

pytest_plugins = ["tests.shared.federation"]

COHORT_PATIENTS = 80
COHORT_SEED = 5


@pytest.fixture(scope="session")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cohort of 80 patients (seed 5) with the case-study split, generated with two workers."""
    out = tmp_path_factory.mktemp("cohort")
    generate_cohort(out, patients=COHORT_PATIENTS, seed=COHORT_SEED, workers=2)
    return out


@pytest.fixture(scope="session")
def gold_facts(cohort: Path) -> list[dict[str, object]]:
    """The cohort's gold facts."""
    with (cohort / "gold_facts.jsonl").open() as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="session")
def node_c(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Hospital C of the session cohort (notes and admission rows), indexed with the default embedder."""
    folder = tmp_path_factory.mktemp("node-c")
    with ChunkStore.open(folder / "chunks.sqlite") as chunks:
        ingest_mimic(cohort / "hospitals/C", chunks, IngestSettings(tables=("admissions",)))
        build_indexes(chunks, folder / "index", OnnxMiniLmEmbedder(threads=2))
    return folder
