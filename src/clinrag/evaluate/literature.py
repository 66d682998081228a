"""Literature retrieval: recall@10 of dense, BM25, hybrid and hybrid+MMR on questions whose gold is one
abstract, each asked plainly and again with the citation's journal, year and design stated (which the filters read).

The library is synthetic (`clinrag.ingest.synthetic.medline`), ingested as ``clinrag pubmed ingest`` does and
indexed. The questions, by a fixed procedure: every ``len // questions``-th citation becomes one question that
paraphrases its title without copying it ("Did TREATMENT reduce OUTCOME compared with COMPARATOR among patients with
CONDITION?"). The synthetic library repeats its topics (ten conditions, five treatments each), so a plain question
has several near-twins of its gold: what the filters add is telling the gold from its twins.

Example:
    >>> record = synthetic_records(1, seed=20)[0]
    >>> question_of(record, filtered=False).startswith("Did "), " published in " in question_of(record, True)
    (True, True)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from clinrag.index.embed import Embedder
from clinrag.index.indexer import build_indexes
from clinrag.index.store import Mode
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.literature import LITERATURE_DEPT, ingest_medline
from clinrag.ingest.medline import MedlineRecord
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import IndexSettings, RetrieveSettings

MODES: Final[tuple[Mode, ...]] = ("dense", "bm25", "hybrid", "hybrid-mmr")
PUBLISHED: Final = {
    "ordering (PubMed assistant, 2024 report)": "hybrid BM25+MMR 61% > BM25+similarity 58% > MMR 52% > similarity 48%",
}
DESIGN_WORDS: Final = {
    "Randomized Controlled Trial": "randomised trials",
    "Meta-Analysis": "meta-analyses",
    "Review": "systematic reviews",
    "Observational Study": "cohort studies",
}
LIBRARY_ORG: Final = "LIBRARY"
RECORD_SEED: Final = 20
"""The synthetic library's seed in the benchmark (the suite adds its run's seed)."""


def question_of(record: MedlineRecord, filtered: bool) -> str:
    """The paraphrased question about ``record`` (see the module docstring); ``filtered`` states its design,
    journal and year."""
    condition, treatment, outcome = record.keywords
    comparator = record.title.split(" versus ", 1)[1].split(" for ", 1)[0]
    text = f"Did {treatment} reduce {outcome} compared with {comparator} among patients with {condition}?"
    if not filtered:
        return text
    design = next(DESIGN_WORDS[t] for t in record.publication_types if t in DESIGN_WORDS)
    journal = record.journal_abbrev
    return f"{text[:-1]} — {design} published in {journal} in {record.year}?"


def gold_records(records: Sequence[MedlineRecord], questions: int) -> list[MedlineRecord]:
    """Every ``len // questions``-th record, at most ``questions`` of them.

    Example:
        >>> [r.pmid for r in gold_records(synthetic_records(10, seed=1), 3)] == [
        ...     r.pmid for r in synthetic_records(10, seed=1)[0:9:3]]
        True
    """
    step = max(len(records) // max(questions, 1), 1)
    return [records[i] for i in range(0, len(records), step)][:questions]


@dataclass(frozen=True)
class Library:
    """A synthetic library node: its folder, its records, and what building it cost (0 when it was reused)."""

    node: Path
    records: list[MedlineRecord]
    ingest_seconds: float
    index_seconds: float

    @property
    def disk_mib(self) -> float:
        """The node folder's size on disk."""
        return sum(p.stat().st_blocks * 512 for p in self.node.rglob("*") if p.is_file()) / 2**20


def build_library(
    folder: Path, citations: int, seed: int, embedder: Embedder, index: IndexSettings | None = None
) -> Library:
    """``citations`` synthetic citations (``seed``) written as MEDLINE XML, ingested into ``folder/node`` as
    ``clinrag pubmed ingest`` does (one chunk per abstract) and indexed; reused when already built the same way."""
    records = synthetic_records(citations, seed=seed)
    node = folder / "node"
    node.mkdir(parents=True, exist_ok=True)
    source = folder / "library.xml.gz"
    if not source.is_file():
        write_medline(source, records)
    started = time.perf_counter()
    with ChunkStore.open(node / "chunks.sqlite") as store:
        ingest_medline([source], store, LIBRARY_ORG, LITERATURE_DEPT)
        ingested = time.perf_counter()
        build_indexes(store, node / "index", embedder, index=index)
    return Library(node, records, ingested - started, time.perf_counter() - ingested)


@dataclass
class LiteratureRecall:
    """recall@10 per ``plain`` / ``with filters`` and mode, and every search's seconds."""

    recall: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)

    def latency_ms(self) -> dict[str, float]:
        """Search latency p50 and p95 over every question and mode."""
        ordered = sorted(self.seconds)
        if not ordered:
            return {"p50": 0.0, "p95": 0.0}
        return {
            "p50": round(1000 * statistics.median(ordered), 1),
            "p95": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        }


def recall_at_10(
    retriever: Retriever, gold: Sequence[MedlineRecord], questions: Sequence[str], mode: Mode, seconds: list[float]
) -> float:
    """Ask ``questions`` (one for each ``gold`` record, in order) in ``mode``: the share whose gold PMID is among
    the top 10, to 3 places (0.0 with no gold); each search's seconds go into ``seconds``."""
    hits = 0
    for record, question in zip(gold, questions, strict=True):
        started = time.perf_counter()
        results = retriever.retrieve(question, k=10, mode=mode).hits
        seconds.append(time.perf_counter() - started)
        hits += any(h.chunk.citation and h.chunk.citation.pmid == record.pmid for h in results)
    return round(hits / len(gold), 3) if gold else 0.0


def literature_recall(
    node: Path,
    gold: Sequence[MedlineRecord],
    embedder: Embedder,
    settings: RetrieveSettings,
    index: IndexSettings | None = None,
    modes: Sequence[Mode] = MODES,
    on_progress: Callable[[int], None] | None = None,
) -> LiteratureRecall:
    """Ask every gold record's question, plain and with filters, in every mode: a hit when the gold PMID is among
    the top 10."""
    found = LiteratureRecall()
    retriever = Retriever.open(node, settings, embedder, index=index)
    done = 0
    try:
        for filtered in (False, True):
            label = "with filters" if filtered else "plain"
            questions = [question_of(record, filtered) for record in gold]
            for mode in modes:
                found.recall.setdefault(label, {})[mode] = recall_at_10(retriever, gold, questions, mode, found.seconds)
                done += 1
                if on_progress is not None:
                    on_progress(done)
    finally:
        retriever.close()
    return found
