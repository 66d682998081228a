"""Retrieval quality on the synthetic cohort, scored against its gold facts: `evaluate_retrieval` runs the benchmark.

The benchmark in parts, one module each:

- `clinrag.evaluate.retrieval_gold`: the cohort's gold facts, the question record and which chunks state a fact
  (the qrels);
- `clinrag.evaluate.retrieval_aspects` and `clinrag.evaluate.retrieval_questions`: templated questions of three
  kinds (single patient, single note, multi patient) written from the gold facts;
- `clinrag.evaluate.retrieval_metrics`: recall@k, MRR@k and nDCG@k (binary relevance, trec_eval conventions);
- `clinrag.evaluate.retrieval_runner`: the configurations (mode × name prefix × patient resolution), the nodes they
  search and a retriever's answers to every question;
- `clinrag.evaluate.retrieval_report`: scores per question kind, the share of returned hits that belong to a patient
  the question did not name, latency, the targets, and the JSON and markdown of a run.

This module prepares the nodes, writes the questions, runs and scores every configuration, and calibrates the
relevance threshold on the default one.

Example:
    >>> CALIBRATION_CONFIGURATION.label
    'hybrid prefix=on resolve=on'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from pathlib import Path
from typing import Final

from clinrag.evaluate.retrieval_gold import ChunkLookup, Cohort, K, Question
from clinrag.evaluate.retrieval_questions import build_questions
from clinrag.evaluate.retrieval_report import RetrievalReport, score_runs
from clinrag.evaluate.retrieval_runner import (
    CHUNKS_FILE,
    Configuration,
    NodeBuild,
    QuestionRun,
    all_configurations,
    on_off,
    prepare_node,
    run_questions,
)
from clinrag.evaluate.threshold import OFF_TOPIC_QUESTIONS, ThresholdCalibration, calibrate_threshold
from clinrag.index.embed import Embedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.synthetic.cohort import FULL
from clinrag.settings import RetrieveSettings

ProgressCallback = Callable[[str], None]


def evaluate_retrieval(
    cohort_folder: Path,
    work: Path,
    embedder: Embedder,
    configurations: Sequence[Configuration] | None = None,
    questions: Sequence[Question] | None = None,
    seed: int = 0,
    per_kind: int = 100,
    k: int = K,
    on_progress: ProgressCallback | None = None,
) -> RetrievalReport:
    """Prepare one node per name-prefix setting under ``work`` (reused when already built), write the questions
    (unless given), and run and score every configuration.

    Example:
        >>> report = evaluate_retrieval(Path("cohort"), Path("work"), OnnxMiniLmEmbedder())  # doctest: +SKIP
        >>> print(report.markdown())  # doctest: +SKIP
    """
    from clinrag.retrieve.hybrid import Retriever  # the question builder works without the retriever stack

    say = on_progress or (lambda message: None)
    configurations = list(configurations or all_configurations())
    nodes: dict[bool, NodeBuild] = {}
    for prefix in dict.fromkeys(config.name_prefix for config in configurations):
        say(f"preparing node prefix={on_off(prefix)}")
        nodes[prefix] = prepare_node(cohort_folder / FULL, work / f"prefix-{on_off(prefix)}", prefix, embedder)
    lookups: dict[bool, ChunkLookup] = {}
    for prefix, node in nodes.items():
        with ChunkStore.open(node.folder / CHUNKS_FILE) as store:
            lookups[prefix] = ChunkLookup(store.chunks())
    if questions is None:
        questions = build_questions(Cohort.load(cohort_folder), next(iter(lookups.values())), seed, per_kind, k)
    report = RetrievalReport(list(questions), list(nodes.values()))
    for config in configurations:
        say(f"running {config.label} ({len(report.questions)} questions)")
        settings = RetrieveSettings(
            mode=config.mode, resolve_patients=config.resolve_patients, k=k, score_threshold=None
        )
        retriever = Retriever.open(nodes[config.name_prefix].folder, settings, embedder)
        try:
            runs = run_questions(retriever, report.questions, k)
            qrels = lookups[config.name_prefix].qrels(report.questions)
            if config == CALIBRATION_CONFIGURATION:
                say(f"calibrating the threshold on {config.label}")
                off_topic = [
                    hit.scores["dense"] for text in OFF_TOPIC_QUESTIONS for hit in retriever.retrieve(text, k=k).hits
                ]
                report.calibration = _calibrate(runs, qrels, off_topic)
        finally:
            retriever.close()
        report.results.append(score_runs(config, report.questions, runs, qrels))
    return report


CALIBRATION_CONFIGURATION: Final = Configuration("hybrid", name_prefix=True, resolve_patients=True)
"""The default setup, whose dense cosines calibrate the relevance threshold."""


def _calibrate(
    runs: Sequence[QuestionRun], qrels: Mapping[str, Set[str]], off_topic: Sequence[float]
) -> ThresholdCalibration:
    relevant: list[float] = []
    irrelevant: list[float] = []
    for run in runs:
        for chunk_id, cosine in zip(run.ranked, run.dense_scores, strict=True):
            (relevant if chunk_id in qrels[run.qid] else irrelevant).append(cosine)
    return calibrate_threshold(relevant, irrelevant, off_topic)
