"""Scoring the retrieval benchmark's runs and reporting them: metrics per question kind and aspect, wrong-patient
hits and latency per configuration, the retrieval targets, and the JSON and markdown of a whole run.

Example:
    >>> result = score_runs(Configuration("bm25", True, True), [], [], {})
    >>> result.scores["all"].questions, result.wrong_patient_rate
    (0, 0.0)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from clinrag.evaluate.retrieval_gold import KINDS, Question
from clinrag.evaluate.retrieval_metrics import Scores
from clinrag.evaluate.retrieval_runner import Configuration, NodeBuild, QuestionRun, on_off
from clinrag.evaluate.threshold import ThresholdCalibration


@dataclass(frozen=True)
class ConfigurationResult:
    """The scores of one configuration: per question kind, per ``kind/aspect`` and over ``all`` questions;
    wrong-patient hits; latency."""

    configuration: Configuration
    scores: dict[str, Scores]
    named_questions: int
    named_hits: int
    wrong_patient_hits: int
    wrong_patient_questions: int
    no_such_patient: int
    latency_ms: dict[str, float]

    @property
    def wrong_patient_rate(self) -> float:
        """Share of the hits returned for patient-named questions that belong to another patient."""
        return self.wrong_patient_hits / self.named_hits if self.named_hits else 0.0

    def to_json(self) -> dict[str, object]:
        """JSON-ready, with rounded figures."""
        return {
            "mode": self.configuration.mode,
            "name_prefix": self.configuration.name_prefix,
            "resolve_patients": self.configuration.resolve_patients,
            "scores": {
                kind: {name: round(value, 4) if isinstance(value, float) else value for name, value in vars(s).items()}
                for kind, s in self.scores.items()
            },
            "wrong_patient_rate": round(self.wrong_patient_rate, 4),
            "wrong_patient_hits": self.wrong_patient_hits,
            "named_hits": self.named_hits,
            "wrong_patient_questions": self.wrong_patient_questions,
            "named_questions": self.named_questions,
            "no_such_patient": self.no_such_patient,
            "latency_ms": {name: round(value, 2) for name, value in self.latency_ms.items()},
        }


def score_runs(
    configuration: Configuration,
    questions: Sequence[Question],
    runs: Sequence[QuestionRun],
    qrels: Mapping[str, Set[str]],
) -> ConfigurationResult:
    """Metrics per kind and per aspect, wrong-patient counts and latency percentiles of one configuration's runs."""
    by_id = {run.qid: run for run in runs}
    pairs: dict[str, list[tuple[Sequence[str], Set[str]]]] = {kind: [] for kind in (*KINDS, "all")}
    named = named_hits = wrong_hits = wrong_questions = 0
    for question in questions:
        run = by_id[question.qid]
        pair = (run.ranked, qrels[question.qid])
        pairs[question.kind].append(pair)
        pairs["all"].append(pair)
        pairs.setdefault(f"{question.kind}/{question.aspect}", []).append(pair)
        if question.named_subjects:
            wrong = sum(subject not in question.named_subjects for subject in run.subjects)
            named += 1
            named_hits += len(run.subjects)
            wrong_hits += wrong
            wrong_questions += wrong > 0
    milliseconds = sorted(run.seconds * 1000 for run in runs)
    return ConfigurationResult(
        configuration=configuration,
        scores={kind: Scores.of(found) for kind, found in pairs.items()},
        named_questions=named,
        named_hits=named_hits,
        wrong_patient_hits=wrong_hits,
        wrong_patient_questions=wrong_questions,
        no_such_patient=sum(run.no_such_patient for run in runs),
        latency_ms=_latency(milliseconds),
    )


def _latency(milliseconds: Sequence[float]) -> dict[str, float]:
    if not milliseconds:
        return {"mean": 0.0, "p50": 0.0, "p95": 0.0}
    return {
        "mean": statistics.fmean(milliseconds),
        "p50": milliseconds[len(milliseconds) // 2],
        "p95": milliseconds[min(len(milliseconds) - 1, math.ceil(0.95 * len(milliseconds)) - 1)],
    }


@dataclass(frozen=True)
class TargetCheck:
    """One retrieval target checked against one configuration."""

    target: str
    configuration: str
    value: float
    threshold: float
    met: bool


def check_targets(results: Sequence[ConfigurationResult]) -> list[TargetCheck]:
    """Single-patient recall@10 >= 0.95 with resolution on; multi-patient recall@10 >= 0.80 with hybrid modes;
    no hit of another patient for patient-named questions with resolution on."""
    checks: list[TargetCheck] = []
    for result in results:
        config, label = result.configuration, result.configuration.label
        if config.resolve_patients:
            value = result.scores["single_patient"].recall_at_10
            checks.append(TargetCheck("single_patient recall@10 >= 0.95", label, value, 0.95, value >= 0.95))
            hits = float(result.wrong_patient_hits)
            checks.append(TargetCheck("wrong-patient hits == 0", label, hits, 0.0, hits == 0))
        if config.mode.startswith("hybrid"):
            value = result.scores["multi_patient"].recall_at_10
            checks.append(TargetCheck("multi_patient recall@10 >= 0.80", label, value, 0.80, value >= 0.80))
    return checks


@dataclass
class RetrievalReport:
    """Everything a benchmark run produced: questions, node builds, results per configuration, target checks."""

    questions: list[Question]
    nodes: list[NodeBuild] = field(default_factory=list)
    results: list[ConfigurationResult] = field(default_factory=list)
    calibration: ThresholdCalibration | None = None

    def to_json(self) -> dict[str, object]:
        """The full table, question counts, a few sample questions per kind, target checks and the markdown."""
        counts: dict[str, dict[str, int]] = {}
        for question in self.questions:
            aspects = counts.setdefault(question.kind, {})
            aspects[question.aspect] = aspects.get(question.aspect, 0) + 1
        samples = {kind: [q.text for q in self.questions if q.kind == kind][:5] for kind in KINDS}
        return {
            "questions": {
                "total": len(self.questions),
                "per_kind": {kind: sum(counts.get(kind, {}).values()) for kind in KINDS},
                "per_aspect": counts,
                "samples": samples,
            },
            "nodes": [
                {
                    "name_prefix": node.name_prefix,
                    "chunks": node.chunks,
                    "ingest_seconds": round(node.ingest_seconds, 2),
                    "index_seconds": round(node.index_seconds, 2),
                }
                for node in self.nodes
            ],
            "results": [result.to_json() for result in self.results],
            "targets": [vars(check) for check in check_targets(self.results)],
            "threshold_calibration": (
                None
                if self.calibration is None
                else {name: round(v, 4) if isinstance(v, float) else v for name, v in vars(self.calibration).items()}
            ),
            "markdown": self.markdown(),
        }

    def markdown(self) -> str:
        """The results as a markdown table: one row per configuration, R@5 / R@10 / MRR / nDCG@10 per kind."""
        short = {"single_patient": "SP", "single_note": "SN", "multi_patient": "MP"}
        metrics = ("R@5", "R@10", "MRR", "nDCG")
        header = ["mode", "prefix", "resolve"]
        header += [f"{short[kind]} {metric}" for kind in KINDS for metric in metrics]
        header += ["wrong-patient rate", "wrong-patient Qs", "p50 ms", "p95 ms"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for result in self.results:
            config = result.configuration
            row = [config.mode, on_off(config.name_prefix), on_off(config.resolve_patients)]
            for kind in KINDS:
                s = result.scores[kind]
                row += [f"{value:.3f}" for value in (s.recall_at_5, s.recall_at_10, s.mrr_at_10, s.ndcg_at_10)]
            row += [
                f"{result.wrong_patient_rate:.3f}",
                f"{result.wrong_patient_questions}/{result.named_questions}",
                f"{result.latency_ms['p50']:.0f}",
                f"{result.latency_ms['p95']:.0f}",
            ]
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines)
