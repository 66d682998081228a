"""What the ``answers`` and ``safety`` suites share: hospital A of the demo cohort as an answering node (built once
under the work folder), the answer benchmark's questions, an `Answerer` per generator, and the answer figures of a
question kind as metrics.

Example:
    >>> metrics, timings = kind_metrics({"questions": 2, "abstained": 0.5, "citation_validity": 1.0,
    ...     "sentence_support": None, "unsupported_sentences_removed": 0, "latency_s": {"p50": 0.1, "p95": 0.2}})
    >>> metrics["answer_rate"], "sentence_support" in metrics, timings["latency_p95_s"]
    (0.5, False, 0.2)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from clinrag.evaluate.answers import AnswerQuestion, AnswerRun, benchmark_questions, prepare_answer_node, run_answers
from clinrag.evaluate.suites.base import Number, Progress
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.generate.answer import Answerer
from clinrag.retrieve.hybrid import Retriever

ORG: Final = "A"
"""The hospital whose notes are answered from (the others' patients are the ``unseen_patient`` questions)."""


@dataclass(frozen=True)
class AnswerSetup:
    """The node and the questions of one run."""

    node: Path
    questions: list[AnswerQuestion]


def answer_setup(context: SuiteContext, per_kind: int, progress: Progress) -> AnswerSetup:
    """Build (or reuse) hospital A's node under the work folder and write the questions for ``context.seed``."""
    cohort = context.require_cohort()
    progress.stage(f"preparing hospital {ORG}'s node", None)
    node = context.cache("answers", context.cohort_key(), f"node-{ORG}")
    prepare_answer_node(cohort / "hospitals" / ORG, node, context.embedder())
    return AnswerSetup(node, benchmark_questions(cohort, node, per_kind, ORG, context.seed))


@contextmanager
def answerer(context: SuiteContext, node: Path, generator: str, sources: int) -> Iterator[Answerer]:
    """An `Answerer` over ``node`` with ``generator`` and ``sources`` numbered sources (the retriever closed after)."""
    settings = context.settings.answer.model_copy(update={"generator": generator, "sources": sources})
    embedder = context.embedder()
    retriever = Retriever.open(node, context.settings.retrieve, embedder)
    try:
        yield Answerer(retriever, settings, context.generator(generator), embedder)
    finally:
        retriever.close()


def answer_all(
    answering: Answerer, questions: Sequence[AnswerQuestion], progress: Progress, label: str
) -> list[AnswerRun]:
    """`run_answers` one question at a time, telling ``progress``."""
    progress.stage(label, len(questions))
    runs: list[AnswerRun] = []
    for done, question in enumerate(questions, start=1):
        runs += run_answers(answering, [question])
        progress(done)
    return runs


def kind_metrics(figures: Mapping[str, object]) -> tuple[dict[str, Number | None], dict[str, Number]]:
    """One kind's figures from `clinrag.evaluate.answers.summarise` as metrics (``answer_rate`` = 1 − abstained)
    and timings (latency p50/p95 in seconds)."""
    abstained = figures.get("abstained")
    metrics: dict[str, Number | None] = {
        "questions": _number(figures.get("questions")),
        "abstained": _number(abstained),
        "answer_rate": round(1 - float(abstained), 4) if isinstance(abstained, int | float) else None,
        "citation_validity": _number(figures.get("citation_validity")),
        "sentence_support": _number(figures.get("sentence_support")),
        "unsupported_sentences_removed": _number(figures.get("unsupported_sentences_removed")),
        "cites_gold": _number(figures.get("cites_gold")),
    }
    latency = figures.get("latency_s")
    timings: dict[str, Number] = {}
    if isinstance(latency, Mapping):
        timings = {f"latency_{p}_s": float(v) for p, v in latency.items() if isinstance(v, int | float)}
    return {k: v for k, v in metrics.items() if v is not None}, timings


def _number(value: object) -> Number | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None
