"""The retrieval-quality benchmark: questions and gold chunks from the cohort's gold facts, metrics, and the runner."""

from __future__ import annotations

import csv
import doctest
import importlib
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from clinrag.evaluate.retrieval import evaluate_retrieval
from clinrag.evaluate.retrieval_gold import KINDS, ChunkLookup, Cohort, Question, normalise_space
from clinrag.evaluate.retrieval_metrics import ndcg_at_k, recall_at_k, reciprocal_rank
from clinrag.evaluate.retrieval_questions import build_questions
from clinrag.evaluate.retrieval_runner import Configuration
from clinrag.index.embed import Vectors, normalise
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.settings import IngestSettings

PATIENTS = 300
SEED = 11


class HashingEmbedder:
    """A fast stand-in embedder (hashed bag of words): enough to build an index and run BM25 through it."""

    id = "test-hashing"
    dimension = 64

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                rows[row, sum(map(ord, word)) % self.dimension] += 1.0
        return normalise(rows)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("retrieval-eval")
    generate_cohort(out, patients=PATIENTS, seed=SEED, workers=2)
    for prefix in (True, False):
        with ChunkStore.open(out / f"chunks-{prefix}.sqlite") as store:
            ingest_mimic(out / "full", store, IngestSettings(name_prefix_notes=prefix, tables=()))
    return out


@pytest.fixture(scope="module")
def cohort(folder: Path) -> Cohort:
    return Cohort.load(folder)


@pytest.fixture(scope="module")
def lookups(folder: Path) -> dict[bool, ChunkLookup]:
    found = {}
    for prefix in (True, False):
        with ChunkStore.open(folder / f"chunks-{prefix}.sqlite") as store:
            found[prefix] = ChunkLookup(store.chunks())
    return found


@pytest.fixture(scope="module")
def questions(cohort: Cohort, lookups: dict[bool, ChunkLookup]) -> list[Question]:
    return build_questions(cohort, lookups[True], seed=3, per_kind=100)


def test_questions_are_deterministic_for_a_seed(cohort: Cohort, lookups: dict[bool, ChunkLookup]) -> None:
    first = build_questions(cohort, lookups[True], seed=3, per_kind=100)
    again = build_questions(cohort, lookups[False], seed=3, per_kind=100)
    other = build_questions(cohort, lookups[True], seed=4, per_kind=100)
    assert [(q.qid, q.text, q.gold) for q in first] == [(q.qid, q.text, q.gold) for q in again]
    assert [q.text for q in first] != [q.text for q in other]


def test_enough_questions_of_every_kind(questions: list[Question]) -> None:
    assert len(questions) >= 200
    counts = {kind: sum(q.kind == kind for q in questions) for kind in KINDS}
    assert counts["single_patient"] == counts["single_note"] == 100
    assert counts["multi_patient"] >= 50
    assert len({q.qid for q in questions}) == len(questions)
    assert len({q.aspect for q in questions if q.kind == "single_patient"}) >= 10


def test_every_question_has_gold_chunks_that_state_the_fact(
    questions: list[Question], lookups: dict[bool, ChunkLookup]
) -> None:
    for lookup in lookups.values():
        for question in questions:
            relevant = lookup.relevant(question.gold)
            assert relevant, question.text
            for chunk_id in relevant:
                text = normalise_space(lookup.texts[chunk_id])
                assert any(fact.text in text for fact in question.gold), (question.text, text)
    sizes = [[len(lookups[prefix].relevant(q.gold)) for q in questions] for prefix in (True, False)]
    assert sizes[0] == sizes[1]  # the name prefix changes chunk ids, never which chunks are relevant


def test_fact_texts_are_the_note_slices(folder: Path, cohort: Cohort) -> None:
    csv.field_size_limit(1 << 30)
    with (folder / "full" / "note" / "discharge.csv").open(newline="") as handle:
        notes = {row["note_id"]: row["text"] for row in csv.DictReader(handle)}
    with (folder / "gold_facts.jsonl").open() as handle:
        raw = [json.loads(line) for line in handle]
    assert len(raw) == len(cohort.facts)
    for record, fact in zip(raw, cohort.facts, strict=True):
        assert fact.note_id == record["note_id"]
        assert fact.text == " ".join(notes[fact.note_id][record["start"] : record["end"]].split())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(words: list[str], length: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + length]) for i in range(len(words) - length + 1)}


def test_questions_paraphrase_instead_of_copying(questions: list[Question], lookups: dict[bool, ChunkLookup]) -> None:
    lookup = lookups[True]
    for question in questions:
        asked = _runs(_words(question.text), 6)
        for chunk_id in lookup.relevant(question.gold):
            assert not asked & _runs(_words(lookup.texts[chunk_id]), 6), question.text


def test_patient_questions_name_their_patient(questions: list[Question], cohort: Cohort) -> None:
    named = [q for q in questions if q.kind != "multi_patient"]
    assert all(len(q.named_subjects) == 1 for q in named)
    for question in named:
        name = cohort.names[question.named_subjects[0]]
        assert name.lower() in question.text.lower()
        assert {fact.subject_id for fact in question.gold} == set(question.named_subjects)
    assert any("'s " in q.text for q in named)  # possessive forms
    assert any(cohort.names[q.named_subjects[0]].lower() in q.text for q in named)  # lowercase names
    assert any(cohort.names[q.named_subjects[0]] in q.text for q in named)


def test_single_note_gold_is_one_note(questions: list[Question]) -> None:
    for question in (q for q in questions if q.kind == "single_note"):
        assert question.note_id is not None
        assert {fact.note_id for fact in question.gold} == {question.note_id}


def test_multi_patient_values_are_held_by_a_few_patients(
    questions: list[Question], lookups: dict[bool, ChunkLookup]
) -> None:
    trend = [q for q in questions if q.kind == "multi_patient"]
    assert len({q.aspect for q in trend}) >= 4
    for question in trend:
        assert not question.named_subjects
        assert 2 <= len({fact.subject_id for fact in question.gold}) <= 6
        assert len({fact.value for fact in question.gold}) == 1
        assert len(lookups[True].relevant(question.gold)) <= 10


# --- metrics --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    ["retrieval", *(f"retrieval_{part}" for part in ("gold", "aspects", "questions", "metrics", "runner", "report"))],
)
def test_docstring_examples_run(module: str) -> None:
    outcome = doctest.testmod(importlib.import_module(f"clinrag.evaluate.{module}"))
    assert outcome.failed == 0


def test_metrics_on_hand_computed_examples() -> None:
    ranked = ["x", "a", "y", "b", "z", "q", "w", "e", "r", "t", "c"]
    relevant = {"a", "b", "c"}
    assert recall_at_k(ranked, relevant, 5) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, relevant, 10) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, relevant, 11) == pytest.approx(1.0)
    assert reciprocal_rank(ranked, relevant, 10) == pytest.approx(0.5)
    assert reciprocal_rank(["x", "y"], {"a"}, 10) == 0.0
    assert reciprocal_rank(["x", "a"], {"a"}, 1) == 0.0
    dcg = 1 / np.log2(3) + 1 / np.log2(5)
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert ndcg_at_k(ranked, relevant, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(["a", "b"], {"a", "b"}, 10) == 1.0
    assert ndcg_at_k([], {"a"}, 10) == 0.0
    assert recall_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0  # duplicates count once
    assert recall_at_k(["a"], set(), 10) == 0.0


def test_metrics_agree_with_ir_measures() -> None:
    import ir_measures  # a dev dependency: the proof that the in-house metrics are trec_eval's must not skip
    from ir_measures import RR, R, nDCG

    rng = random.Random(0)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    ours: dict[tuple[str, str], float] = {}
    for number in range(60):
        qid = f"q{number}"
        pool = [f"d{i}" for i in range(30)]
        relevant = set(rng.sample(pool, rng.randint(1, 12)))
        ranked = rng.sample(pool, rng.randint(0, 15))
        qrels[qid] = dict.fromkeys(sorted(relevant), 1)
        run[qid] = {doc: float(len(ranked) - rank) for rank, doc in enumerate(ranked)}
        ours[qid, "R@5"] = recall_at_k(ranked, relevant, 5)
        ours[qid, "R@10"] = recall_at_k(ranked, relevant, 10)
        ours[qid, "RR@10"] = reciprocal_rank(ranked, relevant, 10)
        ours[qid, "nDCG@10"] = ndcg_at_k(ranked, relevant, 10)
    theirs = {
        (metric.query_id, str(metric.measure)): metric.value
        for metric in ir_measures.iter_calc([R @ 5, R @ 10, RR @ 10, nDCG @ 10], qrels, run)
    }
    for key, value in ours.items():
        assert theirs.get(key, 0.0) == pytest.approx(value, abs=1e-9), key


# --- the runner ------------------------------------------------------------------------------------------------------


def test_runner_end_to_end_with_bm25(tmp_path: Path) -> None:
    generate_cohort(tmp_path / "cohort", patients=12, seed=2, workers=1)
    configurations = [Configuration("bm25", True, True), Configuration("bm25", True, False)]
    report = evaluate_retrieval(
        tmp_path / "cohort", tmp_path / "work", HashingEmbedder(), configurations, seed=1, per_kind=8
    )
    assert {q.kind for q in report.questions} == set(KINDS)
    assert [r.configuration for r in report.results] == configurations
    for result in report.results:
        assert result.scores["all"].questions == len(report.questions)
        for scores in result.scores.values():
            for value in (scores.recall_at_5, scores.recall_at_10, scores.mrr_at_10, scores.ndcg_at_10):
                assert 0.0 <= value <= 1.0
        assert result.named_questions == sum(q.kind != "multi_patient" for q in report.questions)
    resolved = report.results[0]
    assert resolved.wrong_patient_hits == 0
    assert resolved.scores["single_patient"].recall_at_10 > 0
    payload = json.loads(json.dumps(report.to_json()))
    assert len(payload["results"]) == 2
    assert payload["markdown"].count("\n| bm25 |") == 2
    again = evaluate_retrieval(  # the node is reused: nothing new to ingest or index
        tmp_path / "cohort", tmp_path / "work", HashingEmbedder(), configurations[:1], report.questions
    )
    assert again.results[0].scores == resolved.scores
