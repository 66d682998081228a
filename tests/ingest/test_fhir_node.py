"""A node built from FHIR written by hand (``tests/fixtures/fhir/bundle``): ingested, indexed (Qdrant Edge, the
default embedder) and asked. A calculator takes a lab value from an Observation's chunk as it takes one from a
note, cited with its provenance."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from clinrag.calculators.registry import registry
from clinrag.generate.calculation import RECORD_PASSAGES, answer_calculation
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.fhir.reader import FhirReader
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import IngestSettings, RetrieveSettings

BUNDLE = Path(__file__).parents[1] / "fixtures" / "fhir" / "bundle"
EMBEDDER = OnnxMiniLmEmbedder(threads=2)


@pytest.fixture(scope="module")
def bundle_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    """The hand-written Bundle's node, its retriever open."""
    node = tmp_path_factory.mktemp("bundle-node")
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        ingest_mimic(BUNDLE, chunks, IngestSettings(), reader=FhirReader(BUNDLE))
        build_indexes(chunks, node / "index", EMBEDDER)
    retriever = Retriever.open(node, RetrieveSettings(), EMBEDDER)
    yield retriever
    retriever.close()


def test_a_calculator_reads_a_lab_from_an_observation(bundle_node: Retriever) -> None:
    answer, calc = answer_calculation(
        "What is the CKD-EPI eGFR of Grace Adaeze Lindqvist?",
        registry()["ckd_epi_2021"],
        lambda text: bundle_node.retrieve(text, None, k=RECORD_PASSAGES).hits,
    )
    used = {i.name: i for i in calc.inputs}
    creatinine = used["creatinine"]
    assert creatinine.origin == "stated"
    assert (creatinine.value, creatinine.unit) == (1.4, "mg/dL")
    assert creatinine.citation is not None
    cited = next(s for s in answer.sources if s.number == creatinine.citation)
    assert cited.chunk.table == "observations"  # the Observation's row, not a note
    assert "result: Creatinine 1.4 mg/dL" in cited.chunk.text
    assert creatinine.source.startswith(f"[{creatinine.citation}] ")  # with the chunk's provenance
    assert "row:observations:" in creatinine.source
    assert "charttime: 2023-02-11 09:10:00" in cited.chunk.text
    assert f"[{creatinine.citation}]" in answer.text
    assert (used["age"].value, used["sex"].value) == (61.0, "female")  # from the discharge note
    assert calc.value is not None
    assert not calc.missing
