"""Nodes built from FHIR written by hand and asked. ``tests/fixtures/fhir/bundle`` (ingested, indexed in Qdrant Edge
with the default embedder): a calculator takes a lab value from an Observation's chunk as it takes one from a note,
cited with its provenance. ``tests/fixtures/fhir/snomed`` (coded in SNOMED CT and RxNorm only): its conditions,
procedures and medications reach the population tables, so population questions and similar patients see them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from clinrag.calculators.registry import registry
from clinrag.generate.calculation import RECORD_PASSAGES, answer_calculation
from clinrag.generate.planner import Planner
from clinrag.generate.routed import answer_routed
from clinrag.generate.similar_finders import LocalFinder
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.fhir.reader import FhirReader
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.population.node import LocalCounter
from clinrag.population.tables import materialise, population_path
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import IngestSettings, RetrieveSettings
from clinrag.types import Answer

BUNDLE = Path(__file__).parents[1] / "fixtures" / "fhir" / "bundle"
SNOMED = Path(__file__).parents[1] / "fixtures" / "fhir" / "snomed"
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


@pytest.fixture(scope="module")
def snomed_node(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SNOMED CT / RxNorm-only Bundle (``tests/fixtures/fhir/snomed``): chunk store and population tables."""
    node = tmp_path_factory.mktemp("snomed-node")
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        summary = ingest_mimic(SNOMED, chunks, IngestSettings(), reader=FhirReader(SNOMED))
    assert not summary.report.problems
    assert not summary.report.skipped
    materialise(SNOMED, population_path(node), reader=FhirReader(SNOMED))
    return node


def test_snomed_and_rxnorm_codes_reach_the_population_tables(snomed_node: Path) -> None:
    with duckdb.connect(str(population_path(snomed_node)), read_only=True) as connection:
        diagnoses = connection.execute(
            "SELECT subject_id, code, version, title FROM diagnoses ORDER BY 1, 2"
        ).fetchall()
        procedures = connection.execute("SELECT subject_id, code FROM procedures ORDER BY 1, 2").fetchall()
        drugs = connection.execute("SELECT subject_id, drug FROM prescriptions ORDER BY 1, 2").fetchall()
    assert diagnoses == [
        (101, "SNOMED:195967001", 0, "Asthma"),
        (101, "SNOMED:38341003", 0, "Hypertensive disorder"),
        (102, "SNOMED:195967001", 0, "Asthma"),
        (102, "SNOMED:38341003", 0, "Hypertensive disorder"),
        (103, "SNOMED:74400008", 0, "Appendicitis"),  # Cyrus Dunn's asthma has no stay: not counted
    ]
    assert procedures == [(101, "SNOMED:127783003"), (102, "SNOMED:127783003"), (103, "SNOMED:80146002")]
    assert drugs == [  # a MedicationAdministration, MedicationStatements and another MedicationAdministration
        (101, "albuterol inhaler"),
        (101, "prednisolone"),
        (102, "albuterol inhaler"),
        (103, "cefazolin"),
    ]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many patients were given albuterol?", "2 patients you may see had medication albuterol inhaler"),
        ("What are the most common diagnoses?", "Asthma (2), Hypertensive disorder (2), Appendicitis (1)"),
    ],
)
def test_population_questions_count_snomed_and_rxnorm_rows(snomed_node: Path, question: str, said: str) -> None:
    counter = LocalCounter(snomed_node, min_cell=1)
    plan = Planner(counter.vocabulary(), detect_persons=False).plan(question)
    assert plan.route == "population"
    answer = answer_routed(plan, counter, _no_records)
    assert said in answer.text


def test_similar_patients_share_snomed_codes(snomed_node: Path) -> None:
    found = LocalFinder(snomed_node).find("What were patients like Ada Brook discharged with?", 5)
    assert not found.error
    best = found.matches[0]
    assert best.subject_id == 102  # Ben Cole: the same two conditions, procedure and inhaler
    assert {item.code for item in best.shared["dx"]} == {"SNOMED:195967001", "SNOMED:38341003"}
    assert {item.code for item in best.shared["proc"]} == {"SNOMED:127783003"}
    assert {item.code for item in best.shared["med"]} == {"albuterol inhaler"}


def _no_records() -> Answer:
    raise AssertionError("a population question must not go to records")
