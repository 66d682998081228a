"""The node retriever end to end: real chunks, the real embedder, Qdrant Edge shards, the patient registry."""

from __future__ import annotations

import csv
import dataclasses
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import StoreError
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors
from clinrag.index.indexer import build_indexes
from clinrag.index.sparse_copy import copy_tree
from clinrag.index.store import EmbedderMismatchError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever, TextAnalysis, dense_text, patient_choices, plan_query
from clinrag.retrieve.patients import PatientRegistry
from clinrag.settings import IndexSettings, IngestSettings, RetrieveSettings
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


@pytest.mark.parametrize(
    "form",
    [
        "Did Zebulon {surname} experience anemia during the hospital stay?",  # the case: another given name
        "What labs did Mr. {surname} have?",
        "Did {surname} {given} have anemia?",  # swapped without a comma
        "Did {given} {surname}x have anemia?",  # one edit
    ],
)
def test_a_name_short_of_a_full_match_retrieves_nothing_and_lists_the_patient(
    retriever: Retriever, cohort: Path, form: str
) -> None:
    name, subject_id = _unique_name(cohort, "C")
    given, surname = name.split()[0], name.split()[-1]
    surnames = [other.split()[-1] for other in _names(cohort / "hospitals/C")]
    if surnames.count(surname) > 1 or len(name.split()) != 2:
        pytest.skip("the first unique name shares its surname or has a middle name")
    result = retriever.retrieve(form.format(given=given, surname=surname))
    assert result.hits == ()
    assert not result.no_such_patient
    assert [(choice.subject_id, choice.name, choice.org) for choice in result.clarify] == [(subject_id, name, "C")]
    assert result.clarify[0].depts


def test_patient_choices_list_only_permitted_patients() -> None:
    registry = PatientRegistry([(1, "Tracie Edwards"), (2, "Mark Edwards"), (3, "Ada Stone")])
    near = registry.resolve("Did Alexandra Edwards have anemia?", detect_persons=False).near
    assert [c.subject_id for c in patient_choices(near, registry)] == [1, 2]
    only_mark = patient_choices(near, registry, "A", "medicine", permitted=lambda sid: sid == 2)
    assert [(c.subject_id, c.name, c.org, c.depts) for c in only_mark] == [(2, "Mark Edwards", "A", ("medicine",))]
    assert patient_choices(near, registry, permitted=lambda sid: False) == ()


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


def test_a_month_asked_of_one_patient_chooses_the_stays_that_overlap_it(cohort: Path, tmp_path: Path) -> None:
    with ChunkStore.open(tmp_path / "a.sqlite") as chunks:
        ingest_mimic(cohort / "hospitals/A", chunks, IngestSettings(tables=()))
        registry = dict(chunks.patients())
        subject = next(s for s in sorted(registry) if len(chunks.admissions(s)) > 1)
        hadm, began, ended = chunks.admission_spans(subject)[-1]
        assert began is not None
        assert ended is not None
        assert began <= ended
        bare = Retriever({}, OnnxMiniLmEmbedder(), PatientRegistry(registry.items()), RetrieveSettings(), chunks)
        # a stay is asked by the month it began, though its discharge note is filed under the day it ended
        month = began.strftime("%B %Y")
        asked = bare.retrieve(f"{registry[subject]}'s admission in {month}: what was she discharged on?")
        anyone = bare.retrieve(f"who was admitted in {month}?")  # no one patient: the dates filter the chunks
    assert hadm in asked.filters.hadm_ids
    assert asked.filters.start is None
    assert anyone.filters.start is not None


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

    copy_tree(node, tmp_path / "copy")
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


def test_a_server_backend_in_local_mode_finds_what_the_edge_shards_find(
    node: Path, cohort: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "node"
    shutil.copytree(node, copy, ignore=shutil.ignore_patterns("index"))
    local = IndexSettings(backend="server")
    embedder = OnnxMiniLmEmbedder(threads=2)
    with ChunkStore.open(copy / "chunks.sqlite") as chunks:
        build_indexes(chunks, copy / "index", embedder, index=local)
    with pytest.raises(StoreError, match="no index"):
        Retriever.open(copy, embedder=embedder)  # the default (Edge) backend finds no shard there
    name, _ = _unique_name(cohort, "C")
    questions = [f"What was {name} discharged on?", "left-sided weakness from a stroke", "seizure medication"]
    edge = Retriever.open(node, RetrieveSettings(k=10), embedder)
    server = Retriever.open(copy, RetrieveSettings(k=10), embedder, index=local)
    try:
        assert set(server.stores) == set(edge.stores)
        for question in questions:
            for mode in ("dense", "bm25", "hybrid", "hybrid-mmr"):
                ours, theirs = (r.retrieve(question, mode=mode).hits for r in (edge, server))
                assert ours or mode == "bm25", (question, mode)  # BM25 may find no word of a short question
                assert [h.chunk.chunk_id for h in ours] == [h.chunk.chunk_id for h in theirs], (question, mode)
                assert [h.score for h in ours] == pytest.approx([h.score for h in theirs], abs=1e-4)
    finally:
        edge.close()
        server.close()


def test_a_changed_service_or_date_is_found_by_its_filter(node: Path, cohort: Path, tmp_path: Path) -> None:
    """A stay moved from NMED to NSURG and its note redated keep their text (and chunk ids); re-ingesting and
    re-building rewrites the payloads without embedding anything, and the filters on the new values find them."""
    copy, source = tmp_path / "node", tmp_path / "C"
    copy_tree(node, copy)
    shutil.copytree(cohort / "hospitals/C", source)
    with (source / "hosp/services.csv").open(newline="") as handle:
        services = list(csv.DictReader(handle))
    stay = next(row for row in services if row["curr_service"] == "NMED")
    stay["curr_service"] = "NSURG"
    with (source / "hosp/services.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(services[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(services)
    with (source / "note/discharge.csv").open(newline="") as handle:
        notes = list(csv.DictReader(handle))
    note = next(row for row in notes if row["hadm_id"] == stay["hadm_id"])
    note["charttime"] = "2031-06-01 00:00:00"
    with (source / "note/discharge.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(notes[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(notes)
    embedder = OnnxMiniLmEmbedder(threads=2)
    with ChunkStore.open(copy / "chunks.sqlite") as chunks:
        ingest_mimic(source, chunks, IngestSettings(tables=("admissions",)))
        summary = build_indexes(chunks, copy / "index", embedder)
        expected = {c.chunk_id for c in chunks.chunks(dept="neurology") if c.note_id == note["note_id"]}
    assert summary.leaves["neurology"].updated == len(expected) > 0
    assert summary.leaves["neurology"].added == 0
    retriever = Retriever.open(copy, RetrieveSettings(k=50), embedder)
    try:
        moved = SearchFilters(services=("NSURG",), hadm_ids=(int(stay["hadm_id"]),))
        found = retriever.retrieve("Why was the patient admitted?", moved)
        assert {hit.chunk.note_id for hit in found.hits} == {note["note_id"]}
        assert all(hit.chunk.service == "NSURG" for hit in found.hits)
        stale = SearchFilters(services=("NMED",), hadm_ids=(int(stay["hadm_id"]),))
        assert not [h for h in retriever.retrieve("Why was the patient admitted?", stale).hits if h.chunk.note_id]
        later = retriever.retrieve("Why was the patient admitted?", SearchFilters(start=datetime(2031, 1, 1)))
        assert {hit.chunk.chunk_id for hit in later.hits} == expected
    finally:
        retriever.close()


def test_a_question_about_a_set_of_patients_embeds_what_it_asks_about() -> None:
    embedded: list[str] = []

    def embed(text: str) -> Vectors:
        embedded.append(text)
        return np.zeros(4, dtype=np.float32)

    plan = plan_query("Which patients had low magnesium?", None, RetrieveSettings(), None, None, embed)
    assert plan.ranking_text == "Which patients had low magnesium?"  # BM25 and display keep the question
    assert plan.dense_text.startswith("low magnesium")
    assert "hypomagnesemia" in plan.dense_text  # the same expansions as the BM25 query
    assert embedded == [plan.dense_text]
    other = plan_query("What is the dose of aspirin?", None, RetrieveSettings(), None, None, embed)
    assert other.dense_text == other.ranking_text == "What is the dose of aspirin?"


@pytest.mark.parametrize(
    "question",
    ["Which patients had low magnesium?", "Who was diagnosed with CHB?", "What is the dose of aspirin?", "SOB"],
)
def test_dense_text_is_what_a_plan_without_named_patients_embeds(question: str) -> None:
    # The federation root embeds dense_text(...) and sends it, so that nodes need not embed it again.
    plan = plan_query(question, None, RetrieveSettings(), None, None, _no_vector)
    assert dense_text(question, RetrieveSettings(), patients_named=False) == plan.dense_text
    named = plan_query(question, SearchFilters(subject_ids=(1,)), RetrieveSettings(), None, None, _no_vector)
    assert dense_text(question, RetrieveSettings(), patients_named=True) == named.dense_text == question


def test_plans_sharing_a_text_analysis_equal_plans_without(retriever: Retriever, cohort: Path) -> None:
    name, _ = _unique_name(cohort, "C")
    shared = TextAnalysis()
    for question in ("Which patients had low magnesium?", f"Did {name} have AF?", "SOB since 2019", "SOB"):
        alone = plan_query(question, None, RetrieveSettings(), retriever.registry, None, _no_vector)
        together = plan_query(question, None, RetrieveSettings(), retriever.registry, None, _no_vector, shared)
        assert dataclasses.replace(alone, dense=None) == dataclasses.replace(together, dense=None)


def test_a_named_patient_question_embeds_the_question_without_the_name(retriever: Retriever, cohort: Path) -> None:
    name, subject_id = _unique_name(cohort, "C")
    plan = plan_query(f"Who does {name} live with?", None, RetrieveSettings(), retriever.registry, None, _no_vector)
    assert plan.filters.subject_ids == (subject_id,)
    assert name not in plan.dense_text
    assert plan.dense_text == plan.ranking_text


def _no_vector(text: str) -> Vectors:
    return np.zeros(4, dtype=np.float32)
