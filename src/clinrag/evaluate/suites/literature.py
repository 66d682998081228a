"""The ``literature`` suite: the literature-retrieval evaluation (`clinrag.evaluate.literature`) — recall@10 of
dense, BM25, hybrid and hybrid+MMR on one-abstract questions, plain and with filters stated — on a synthetic
library of ``citations`` citations (seed 20 + the run's seed), built once under the work folder. It needs no
cohort.

Example:
    >>> LiteratureSuite(citations=200, questions=10).name
    'literature'
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.evaluate.literature import MODES, PUBLISHED, RECORD_SEED, build_library, gold_records, literature_recall
from clinrag.evaluate.suites.base import Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars
from clinrag.index.store import Mode


@dataclass(frozen=True)
class LiteratureSuite:
    """``questions`` questions over a library of ``citations`` synthetic citations, in every mode of ``modes``."""

    citations: int = 3000
    questions: int = 150
    modes: tuple[Mode, ...] = MODES
    name: str = "literature"

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Build (or reuse) the library, ask, score."""
        seed = RECORD_SEED + context.seed
        progress.stage(f"literature: building a library of {self.citations} citations", None)
        folder = context.cache("literature", f"c{self.citations}-s{seed}")
        library = build_library(folder, self.citations, seed, context.embedder(), context.settings.index)
        gold = gold_records(library.records, self.questions)
        progress.stage("literature: questions", 2 * len(self.modes))
        measured = literature_recall(
            library.node,
            gold,
            context.embedder(),
            context.settings.retrieve,
            context.settings.index,
            self.modes,
            on_progress=progress,
        )
        result = SuiteResult(self.name)
        for label, by_mode in measured.recall.items():
            result.add_metrics(label.replace(" ", "_"), {f"{mode}/recall_at_10": v for mode, v in by_mode.items()})
        result.metrics["questions"] = len(gold)
        result.metrics["citations"] = self.citations
        result.timings = {
            "ingest_s": round(library.ingest_seconds, 2),
            "index_s": round(library.index_seconds, 2),
            "node_disk_mib": round(library.disk_mib, 1),
            **{f"query_{p}_ms": v for p, v in measured.latency_ms().items()},
        }
        labels = list(measured.recall)
        result.add_table(
            Table(
                "recall@10 per mode",
                ("mode", *labels),
                [(mode, *(measured.recall[label].get(mode) for label in labels)) for mode in self.modes],
                "A hit: the gold citation among the top 10. 'with filters': the question also states the design, "
                "journal and year.",
            )
        )
        result.add_plot(
            grouped_bars(
                "recall-by-mode",
                "Literature recall@10",
                list(self.modes),
                {label: [measured.recall[label].get(m) for m in self.modes] for label in labels},
                ylabel="recall@10",
            )
        )
        result.notes += [
            f"{len(gold)} questions over {self.citations} synthetic citations (seed {seed}); the library repeats its "
            "topics, so plain questions have near-twins of their gold.",
            *(f"Published {source}: {value}" for source, value in PUBLISHED.items()),
        ]
        result.details = {"recall_at_10": measured.recall, "published": PUBLISHED}
        return result


def register_suite(register: Register) -> None:
    """Register ``literature`` (quick: 200 citations, 12 questions)."""
    register(
        "literature",
        "recall@10 per retrieval mode on one-abstract literature questions, plain and with filters",
        LiteratureSuite,
        lambda: LiteratureSuite(citations=200, questions=12),
    )
