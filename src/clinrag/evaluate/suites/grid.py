"""The ``grid`` suite: every combination of a parameter grid (`clinrag.evaluate.grid.GridSpec`, YAML) run end to
end on one hospital's notes of the demo cohort — ingest, index, retrieve, answer, verify — and ranked by the
weighted score the YAML gives, as the published PubMed system searched 64 combinations.

Per combination: **recall@k** (at the combination's k) and **nDCG@10** of the retrieval against the gold chunks of
the retrieval benchmark's questions (gold recomputed for each chunking), and on the same questions **answer rate**,
**cites gold** (the answer cites a gold chunk) and **faithfulness** (`Answer.support`); **rejection**: share of the
negative and noise questions that abstain. Cached: one node per chunk size × name prefixing (embedding each distinct
chunk text once across them), one run per combination that differs in what its mode and generator read (the
packaged grid's 64 combinations are 64 distinct runs). The mean score per value of each parameter (``by/...``)
counts the combinations that read it (λ: the ``hybrid-mmr`` ones).

Example:
    >>> GridSuite().spec().grid.chunk_size
    (800, 1200)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.evaluate.answers import AnswerQuestion, rejection_questions
from clinrag.evaluate.grid import CachingEmbedder, Combination, GridError, GridSpec
from clinrag.evaluate.retrieval_gold import ChunkLookup, Cohort, Question
from clinrag.evaluate.retrieval_metrics import ndcg_at_k, recall_at_k
from clinrag.evaluate.retrieval_questions import build_questions
from clinrag.evaluate.suites.base import Cell, Progress, Register, SuiteInputError, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import bars, grouped_bars
from clinrag.evaluate.trend import mean
from clinrag.generate.answer import Answerer
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retrieval, Retriever
from clinrag.retrieve.scope import ScopeNames
from clinrag.settings import IngestSettings
from clinrag.types import SearchFilters

TOP: int = 10
"""Combinations shown in the ranking table and plot."""


class _FirstRetrieval:
    """The retriever as an answerer's searcher, keeping the first retrieval of each answer (its question's)."""

    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever
        self.first: Retrieval | None = None

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        found = self.retriever.retrieve(question, filters, k)
        if self.first is None:
            self.first = found
        return found

    def scope_names(self) -> ScopeNames:
        return self.retriever.scope_names()


@dataclass(frozen=True)
class _Node:
    folder: Path
    lookup: ChunkLookup
    chunks: int


@dataclass
class _Run:
    metrics: dict[str, float | None] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class GridSuite:
    """The grid of ``grid`` (None: the packaged 64-combination grid); ``limit`` runs only its first combinations
    and ``per_kind``/``rejection`` override its question counts (small versions)."""

    grid: Path | None = None
    limit: int | None = None
    per_kind: int | None = None
    rejection: int | None = None
    name: str = "grid"

    def spec(self) -> GridSpec:
        """The grid read from its file."""
        try:
            return GridSpec.load(self.grid)
        except GridError as exc:
            raise SuiteInputError(str(exc)) from None

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Build (or reuse) a node per index key, run every distinct combination, score and rank."""
        spec = self.spec()
        cohort = context.require_cohort()
        hospital = cohort / "hospitals" / spec.corpus.hospital
        if not hospital.is_dir():
            raise SuiteInputError(f"{cohort}: no hospital {spec.corpus.hospital!r} in the cohort")
        combinations = spec.combinations()[: self.limit]
        embedder = CachingEmbedder(context.embedder())
        result = SuiteResult(self.name)
        nodes: dict[tuple[int, bool], _Node] = {}
        index_keys = list(dict.fromkeys(c.index_key for c in combinations))
        progress.stage("grid: nodes", len(index_keys))
        for done, key in enumerate(index_keys, start=1):
            started = time.perf_counter()
            nodes[key] = _prepare(context, hospital, spec.corpus.hospital, key, embedder)
            result.timings[f"node c{key[0]} p{'+' if key[1] else '-'}/build_s"] = round(
                time.perf_counter() - started, 2
            )
            progress(done)
        result.timings["embedded_texts"] = embedder.embedded
        result.timings["reused_texts"] = embedder.reused
        per_kind = self.per_kind or spec.questions.per_kind
        rejection = spec.questions.rejection if self.rejection is None else self.rejection
        reference = nodes[index_keys[0]]
        questions = build_questions(Cohort.load(cohort), reference.lookup, context.seed, per_kind, TOP)
        with ChunkStore.open(reference.folder / "chunks.sqlite") as store:
            names = sorted({c.patient_name for c in store.chunks() if c.patient_name})
            corpus = "\n".join(c.text for c in store.chunks())
        unique = [n for n in names if sum(m == n for m in names) == 1]
        rejections = rejection_questions(unique, corpus, context.seed, rejection)

        runs: dict[tuple[object, ...], _Run] = {}
        distinct = list(dict.fromkeys(c.run_key for c in combinations))
        progress.stage("grid: combinations", len(distinct))
        for combination in combinations:
            if combination.run_key in runs:
                continue
            runs[combination.run_key] = _run(context, combination, nodes[combination.index_key], questions, rejections)
            progress(len(runs))
        ranked = sorted(combinations, key=lambda c: (-spec.score(runs[c.run_key].metrics), combinations.index(c)))
        rows: list[tuple[Cell, ...]] = []
        for rank, combination in enumerate(ranked, start=1):
            run = runs[combination.run_key]
            score = spec.score(run.metrics)
            result.add_metrics(combination.label, {**run.metrics, "score": score, "rank": rank})
            rows.append((rank, *combination.cells(), *(run.metrics.get(m) for m in spec.weights), score))
            if run.seconds:
                result.timings[f"{combination.label}/latency_p50_s"] = round(statistics.median(run.seconds), 4)
        result.metrics["combinations"] = len(combinations)
        result.metrics["distinct_runs"] = len(distinct)
        result.metrics["indexes"] = len(nodes)
        result.metrics["questions"] = len(questions)
        result.metrics["rejection_questions"] = len(rejections)
        best = ranked[0]
        result.metrics["best/score"] = spec.score(runs[best.run_key].metrics)
        columns = ("rank", *Combination.__dataclass_fields__, *spec.weights, "score")
        result.add_table(
            Table(
                "ranking",
                columns,
                rows,
                "Score = Σ weight × metric / Σ weight with the grid file's weights "
                + ", ".join(f"{name} {weight:g}" for name, weight in spec.weights.items())
                + ". Ties keep the grid's order.",
            )
        )
        for parameter in ("chunk_size", "name_prefix", "k", "fetch_k", "mode", "mmr_lambda", "threshold"):
            result.add_metrics(f"by/{parameter}", _by_parameter(ranked, runs, spec, parameter))
        shown = ranked[:TOP]
        result.add_plot(
            bars(
                "top-scores",
                f"Score of the best {len(shown)} combinations",
                {c.label: spec.score(runs[c.run_key].metrics) for c in shown},
                ylabel="weighted score",
                caption="The grid's best combinations by the weighted score (labels: c chunk size, p name prefix, "
                "k, f fetch_k, mode, λ, t threshold, generator, T temperature).",
            )
        )
        metric_names = list(spec.weights)
        result.add_plot(
            grouped_bars(
                "best-metrics",
                "Metrics of the best and the worst combination",
                metric_names,
                {
                    f"best: {best.label}": [runs[best.run_key].metrics.get(m) for m in metric_names],
                    f"worst: {ranked[-1].label}": [runs[ranked[-1].run_key].metrics.get(m) for m in metric_names],
                },
                caption="Each weighted metric of the top- and bottom-ranked combinations.",
            )
        )
        result.notes += [
            f"{len(combinations)} combinations ({len(distinct)} distinct runs, {len(nodes)} indexes) on hospital "
            f"{spec.corpus.hospital}'s notes; {len(questions)} retrieval questions and {len(rejections)} negative and "
            f"noise questions (seed {context.seed}).",
            "Gold chunks are recomputed for each chunking from the same gold facts; a fact split across two chunks "
            "of a small chunk size has no gold chunk there and counts as not found.",
        ]
        result.details = {"grid": spec.model_dump(mode="json"), "best": best.to_json()}
        return result


def _prepare(
    context: SuiteContext, hospital: Path, org: str, key: tuple[int, bool], embedder: CachingEmbedder
) -> _Node:
    size, prefix = key
    folder = context.cache("grid", context.cohort_key(), f"{org}-c{size}-p{'on' if prefix else 'off'}")
    ingest = IngestSettings(chunk_max_chars=size, name_prefix_notes=prefix, tables=())
    with ChunkStore.open(folder / "chunks.sqlite") as store:
        ingest_mimic(hospital, store, ingest, org)
        build_indexes(store, folder / "index", embedder, index=context.settings.index)
        return _Node(folder, ChunkLookup(store.chunks()), store.count())


def _run(
    context: SuiteContext,
    combination: Combination,
    node: _Node,
    questions: Sequence[Question],
    rejections: Sequence[AnswerQuestion],
) -> _Run:
    retrieve = context.settings.retrieve.model_copy(
        update={
            "mode": combination.mode,
            "k": combination.k,
            "fetch_k": combination.fetch_k,
            "mmr_lambda": combination.mmr_lambda,
            "score_threshold": combination.threshold,
        }
    )
    answer = context.settings.answer.model_copy(
        update={"generator": combination.generator, "temperature": combination.temperature, "sources": combination.k}
    )
    embedder = context.embedder()
    retriever = Retriever.open(node.folder, retrieve, embedder)
    run = _Run()
    try:
        searcher = _FirstRetrieval(retriever)
        answerer = Answerer(searcher, answer, context.generator(combination.generator), embedder)
        recall: list[float] = []
        ndcg: list[float] = []
        answered: list[float] = []
        gold_cited: list[float] = []
        faithful: list[float | None] = []
        for question in questions:
            searcher.first = None
            started = time.perf_counter()
            found = answerer.answer(question.text)
            run.seconds.append(time.perf_counter() - started)
            first = searcher.first
            ranked: list[str] = [hit.chunk.chunk_id for hit in first.hits] if first is not None else []
            gold = node.lookup.relevant(question.gold)
            recall.append(recall_at_k(ranked, gold, combination.k))
            ndcg.append(ndcg_at_k(ranked, gold, TOP))
            answered.append(0.0 if found.abstained else 1.0)
            if not found.abstained:
                cited = {found.sources[n - 1].chunk.chunk_id for n in found.cited}
                gold_cited.append(1.0 if cited & gold else 0.0)
                faithful.append(found.support)
        abstained: list[float] = []
        for rejection in rejections:
            started = time.perf_counter()
            abstained.append(1.0 if answerer.answer(rejection.text).abstained else 0.0)
            run.seconds.append(time.perf_counter() - started)
    finally:
        retriever.close()
    run.metrics = {
        "recall_at_k": mean(recall),
        "ndcg_at_10": mean(ndcg),
        "answer_rate": mean(answered),
        "cites_gold": round(sum(gold_cited) / len(questions), 4) if questions else None,
        "faithfulness": mean(faithful),
        "rejection": mean(abstained),
    }
    return run


def _by_parameter(
    ranked: Sequence[Combination], runs: Mapping[tuple[object, ...], _Run], spec: GridSpec, parameter: str
) -> dict[str, float | None]:
    """The mean score of the combinations with each value of ``parameter``, among those whose mode and generator
    read it (λ: the ``hybrid-mmr`` ones)."""
    groups: dict[str, list[float]] = {}
    for combination in ranked:
        if not combination.reads(parameter):
            continue
        value = combination.to_json()[parameter]
        groups.setdefault(f"{value}", []).append(spec.score(runs[combination.run_key].metrics))
    return {value: mean(scores) for value, scores in groups.items()}


def register_suite(register: Register) -> None:
    """Register ``grid`` (quick: the packaged grid's first 4 combinations, 3 questions per kind, 2 rejection)."""
    register(
        "grid",
        "a parameter grid from YAML run end to end and ranked by its weighted score",
        GridSuite,
        lambda: GridSuite(limit=4, per_kind=3, rejection=2),
    )
