"""Literature retrieval (issue 20): recall@10 of dense, BM25, hybrid and hybrid+MMR on questions whose gold is one
abstract, beside the published PubMed assistant's ordering, and what filters from the question add; plus the
library's ingest and index build time, disk and query latency.

The library: ``--citations`` synthetic citations (`clinrag.ingest.synthetic.medline`, seed 20) ingested with
``clinrag pubmed ingest`` and indexed with ``clinrag index build``. The questions, by a fixed procedure: every
``len // questions``-th citation becomes one question that paraphrases its title without copying it ("Did TREATMENT
reduce OUTCOME compared with COMPARATOR among patients with CONDITION?"); the same question is asked again with the
citation's journal and year and design stated ("… — randomised trials published in the Lancet in 2016"), which the
filters read. The synthetic library repeats its topics (ten conditions, five treatments each), so a plain question
has several near-twins of its gold: what the filters add is telling the gold from its twins.

    python benchmarks/bench_literature.py [--citations 3000] [--questions 150] [--work /tmp/clinrag-literature]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from clinrag.index.embed import embedder_from
from clinrag.ingest.medline import MedlineRecord
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import Settings
from common import write

MODES = ("dense", "bm25", "hybrid", "hybrid-mmr")
PUBLISHED = {
    "ordering (PubMed assistant, 2024 report)": "hybrid BM25+MMR 61% > BM25+similarity 58% > MMR 52% > similarity 48%",
}
DESIGN_WORDS = {
    "Randomized Controlled Trial": "randomised trials",
    "Meta-Analysis": "meta-analyses",
    "Review": "systematic reviews",
    "Observational Study": "cohort studies",
}


def question_of(record: MedlineRecord, filtered: bool) -> str:
    """The paraphrased question about ``record`` (see the module docstring)."""
    condition, treatment, outcome = record.keywords
    comparator = record.title.split(" versus ", 1)[1].split(" for ", 1)[0]
    text = f"Did {treatment} reduce {outcome} compared with {comparator} among patients with {condition}?"
    if not filtered:
        return text
    design = next(DESIGN_WORDS[t] for t in record.publication_types if t in DESIGN_WORDS)
    journal = record.journal_abbrev
    return f"{text[:-1]} — {design} published in {journal} in {record.year}?"


def _cli(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from clinrag.app.cli import main; main()", *args], check=True, capture_output=True
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--citations", type=int, default=3000)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-literature"))
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    records = synthetic_records(args.citations, seed=20)
    source = args.work / "library.xml.gz"
    write_medline(source, records)
    node = args.work / "node"
    ingest_seconds = _cli("pubmed", "ingest", str(source), "--node", str(node))
    index_seconds = _cli("index", "build", str(node))
    disk_mib = sum(p.stat().st_blocks * 512 for p in node.rglob("*") if p.is_file()) / 2**20
    step = max(len(records) // args.questions, 1)
    gold = [records[i] for i in range(0, len(records), step)][: args.questions]
    settings = Settings()
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    retriever = Retriever.open(node, settings.retrieve, embedder, index=settings.index)
    recall: dict[str, dict[str, float]] = {}
    latency: list[float] = []
    try:
        for filtered in (False, True):
            for mode in MODES:
                found = 0
                for record in gold:
                    started = time.perf_counter()
                    hits = retriever.retrieve(question_of(record, filtered), k=10, mode=mode).hits  # type: ignore[arg-type]
                    latency.append(time.perf_counter() - started)
                    found += any(h.chunk.citation and h.chunk.citation.pmid == record.pmid for h in hits)
                recall.setdefault("with filters" if filtered else "plain", {})[mode] = round(found / len(gold), 3)
                print("filters" if filtered else "plain", mode, recall["with filters" if filtered else "plain"][mode])
    finally:
        retriever.close()
    latency.sort()
    result: dict[str, Any] = {
        "benchmark": "literature",
        "citations": args.citations,
        "questions": len(gold),
        "recall_at_10": recall,
        "published": PUBLISHED,
        "ingest_seconds": round(ingest_seconds, 1),
        "index_build_seconds": round(index_seconds, 1),
        "node_disk_mib": round(disk_mib, 1),
        "query_ms": {
            "p50": round(1000 * statistics.median(latency), 1),
            "p95": round(1000 * latency[int(0.95 * (len(latency) - 1))], 1),
        },
        "example": {"plain": question_of(gold[0], False), "with filters": question_of(gold[0], True)},
    }
    write("literature", result)


if __name__ == "__main__":
    main()
