"""The node retriever end to end: real chunks, the real embedder, Qdrant Edge shards, the patient registry."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.store import EmbedderMismatchError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever
from clinrag.retrieve.patients import PatientRegistry
from clinrag.settings import IngestSettings, RetrieveSettings
from clinrag.types import SearchFilters


@pytest.fixture(scope="module")
def node(node_c: Path) -> Path:
    """Hospital C, indexed (the session fixture)."""
    return node_c


@pytest.fixture
def retriever(node: Path) -> Iterator[Retriever]:
    opened = Retriever.open(node, RetrieveSettings(k=10))
    yield opened
    opened.close()


def _names(folder: Path) -> dict[str, int]:
    with (folder / "hosp/patients.csv").open(newline="") as handle:
        return {row["name"]: int(row["subject_id"]) for row in csv.DictReader(handle)}


def _unique_name(cohort: Path, org: str) -> tuple[str, int]:
    names = _names(cohort / "hospitals" / org)
    everyone = _names(cohort / "full")
    counts: dict[str, int] = {}
    with (cohort / "full/hosp/patients.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            counts[row["name"]] = counts.get(row["name"], 0) + 1
    name = next(n for n in sorted(names) if counts[n] == 1)
    return name, everyone[name]


@pytest.mark.parametrize("template", ["What was {} discharged on?", "{}'s discharge diagnosis", "does {} smoke"])
def test_a_named_patient_gets_only_their_chunks(retriever: Retriever, cohort: Path, template: str) -> None:
    name, subject_id = _unique_name(cohort, "C")
    result = retriever.retrieve(template.format(name))
    assert result.hits
    assert {hit.chunk.subject_id for hit in result.hits} == {subject_id}
    assert result.resolution is not None
    assert result.resolution.subject_ids == {subject_id}


def test_discharge_medication_questions_find_the_medication_list(retriever: Retriever, cohort: Path) -> None:
    name, _ = _unique_name(cohort, "C")
    result = retriever.retrieve(f"Which drugs was {name} sent home with?")
    assert "Discharge Medications" in [hit.chunk.section for hit in result.hits[:3]]


def test_a_patient_known_only_elsewhere_returns_nothing(retriever: Retriever, cohort: Path) -> None:
    here = set(_names(cohort / "hospitals/C"))
    elsewhere = sorted(set(_names(cohort / "hospitals/A")) - here)
    result = retriever.retrieve(f"What medications was {elsewhere[0]} discharged on?")
    assert result.no_such_patient
    assert result.hits == ()


def test_without_a_patient_hits_span_patients(retriever: Retriever) -> None:
    result = retriever.retrieve("left-sided weakness from a stroke")
    assert len({hit.chunk.subject_id for hit in result.hits}) > 1
    assert [hit.rank for hit in result.hits] == list(range(1, len(result.hits) + 1))


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid", "hybrid-mmr"])
def test_filters_and_modes(retriever: Retriever, mode: str) -> None:
    filters = SearchFilters(sections=("Discharge Medications", "Brief Hospital Course"))
    result = retriever.retrieve("seizure medication", filters, mode=mode)  # type: ignore[arg-type]
    assert result.hits
    assert {hit.chunk.section for hit in result.hits} <= {"Discharge Medications", "Brief Hospital Course"}


def test_year_expressions_become_date_filters(retriever: Retriever) -> None:
    result = retriever.retrieve("strokes since 2020")
    assert result.filters.start == datetime(2020, 1, 1)
    assert result.hits
    for hit in result.hits:
        moment = hit.chunk.charttime or hit.chunk.admittime
        assert moment is not None
        assert moment >= datetime(2020, 1, 1)


def test_latest_admission_narrows_to_one_stay(retriever: Retriever, cohort: Path) -> None:
    name, subject_id = _unique_name(cohort, "C")
    assert retriever.chunks is not None
    latest = retriever.chunks.admissions(subject_id)[-1]
    result = retriever.retrieve(f"What happened during {name}'s most recent admission?")
    assert result.filters.hadm_ids == (latest,)
    assert result.hits
    assert {hit.chunk.hadm_id for hit in result.hits} == {latest}


def test_first_and_latest_admissions_of_a_longitudinal_patient(cohort: Path, tmp_path: Path) -> None:
    with ChunkStore.open(tmp_path / "a.sqlite") as chunks:
        ingest_mimic(cohort / "hospitals/A", chunks, IngestSettings(tables=()))
        registry = dict(chunks.patients())
        subject = next(s for s in sorted(registry) if len(chunks.admissions(s)) > 2)
        stays = chunks.admissions(subject)
        # No leaf stores: the filters are worked out before any index is searched.
        bare = Retriever({}, OnnxMiniLmEmbedder(), PatientRegistry(registry.items()), RetrieveSettings(), chunks)
        first = bare.retrieve(f"Why was {registry[subject]} first admitted?")
        latest = bare.retrieve(f"{registry[subject]}'s latest admission")
    assert first.filters.hadm_ids == (stays[0],)
    assert latest.filters.hadm_ids == (stays[-1],)


def test_threshold_drops_weak_hits(node: Path) -> None:
    strict = Retriever.open(node, RetrieveSettings(score_threshold=0.99))
    try:
        result = strict.retrieve("left-sided weakness from a stroke")
    finally:
        strict.close()
    assert result.hits == ()
    assert result.below_threshold > 0


def test_an_index_of_another_embedder_is_refused(node: Path, tmp_path: Path) -> None:
    class Other(OnnxMiniLmEmbedder):
        id = "another-model"

    shutil.copytree(node, tmp_path / "copy")
    with pytest.raises(EmbedderMismatchError, match="another-model"):
        Retriever.open(tmp_path / "copy", RetrieveSettings(), Other())


def test_registry_of_the_node_is_its_own(node: Path, cohort: Path) -> None:
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        registry = PatientRegistry(chunks.patients())
    assert len(registry) == len(_names(cohort / "hospitals/C"))


def test_the_asked_about_section_rises_without_excluding_others(node: Path, cohort: Path) -> None:
    name, _ = _unique_name(cohort, "C")
    question = f"What was {name} taking before being admitted?"
    ranks: dict[float, list[str | None]] = {}
    for weight in (0.0, 1.0):
        opened = Retriever.open(node, RetrieveSettings(k=10, section_weight=weight))
        try:
            ranks[weight] = [hit.chunk.section for hit in opened.retrieve(question).hits]
        finally:
            opened.close()
    assert "Medications on Admission" in ranks[1.0][:3]
    assert ranks[1.0].index("Medications on Admission") <= ranks[0.0].index("Medications on Admission")
    assert len(set(ranks[1.0])) > 1  # a preference, not a filter


def test_an_explicit_section_filter_beats_the_wording(retriever: Retriever) -> None:
    result = retriever.retrieve("Who was sent home on aspirin?", SearchFilters(sections=("Brief Hospital Course",)))
    assert result.hits
    assert {hit.chunk.section for hit in result.hits} == {"Brief Hospital Course"}
