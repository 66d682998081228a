"""Federated vs centralised: with policies off, the federation's dense top-k equals one index over all the chunks,
hit for hit, on every question (ixn = 1.0). Hybrid is measured by the benchmark (BM25 statistics are per leaf)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.federation.root import FederationRoot
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever, TimedEmbedder
from clinrag.settings import FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, ORGS, SETTINGS, Federation

EMBEDDER_ONCE = TimedEmbedder(EMBEDDER)
QUESTIONS = (
    "hospital course",
    "Which patients were discharged on aspirin?",
    "weakness after a stroke",
    "chest pain with troponin elevation",
    "fall at home with hip pain",
    "alcohol withdrawal",
    "What was the chief complaint?",
    "discharge instructions after surgery",
    "shortness of breath and leg swelling",
    "urinary tract infection treated with antibiotics",
)


@pytest.fixture(scope="module")
def centralised(open_federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    """One node holding every hospital's chunks, indexed together."""
    folder = tmp_path_factory.mktemp("centralised")
    with ChunkStore.open(folder / "chunks.sqlite") as chunks:
        for org in ORGS:
            ingest_mimic(open_federation.out / "cohort" / "hospitals" / org, chunks, SETTINGS.ingest, org)
        build_indexes(chunks, folder / "index", EMBEDDER)
    retriever = Retriever.open(folder, RetrieveSettings(), EMBEDDER)
    yield retriever
    retriever.close()


def _ids(hits: tuple[object, ...]) -> list[str]:
    return [hit.chunk.chunk_id for hit in hits]  # type: ignore[attr-defined]


def test_federated_dense_equals_centralised(open_federation: Federation, centralised: Retriever) -> None:
    # The root embeds the question once and sends the vector; nodes use it (and re-embed what they change).
    federation_settings = FederationSettings(timeout=30)
    root = FederationRoot(
        open_federation.orgs, RetrieveSettings(), EMBEDDER.id, federation_settings, embed=EMBEDDER_ONCE
    )
    token = open_federation.token("A.phys")
    assert centralised.chunks is not None
    names = [name for _, name in centralised.chunks.patients() if name][:4]
    questions = [*QUESTIONS, *(f"What was {name} discharged on?" for name in names)]
    for question in questions:
        federated = root.search(question, token, k=10, mode="dense").retrieval
        central = centralised.retrieve(question, k=10, mode="dense")
        detail = [
            [(h.chunk.org, h.chunk.dept, h.chunk.subject_id, round(h.score, 4)) for h in hits]
            for hits in (federated.hits, central.hits)
        ]
        assert _ids(federated.hits) == _ids(central.hits), (question, detail)
        assert [round(h.score, 5) for h in federated.hits] == [round(h.score, 5) for h in central.hits]
