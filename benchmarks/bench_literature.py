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
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from clinrag.evaluate.literature import PUBLISHED, gold_records, literature_recall, question_of
from clinrag.index.embed import embedder_from
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.settings import Settings
from common import write


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
    gold = gold_records(records, args.questions)
    settings = Settings()
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    measured = literature_recall(node, gold, embedder, settings.retrieve, settings.index)
    for label, by_mode in measured.recall.items():
        for mode, value in by_mode.items():
            print(label, mode, value)
    result: dict[str, Any] = {
        "benchmark": "literature",
        "citations": args.citations,
        "questions": len(gold),
        "recall_at_10": measured.recall,
        "published": PUBLISHED,
        "ingest_seconds": round(ingest_seconds, 1),
        "index_build_seconds": round(index_seconds, 1),
        "node_disk_mib": round(disk_mib, 1),
        "query_ms": measured.latency_ms(),
        "example": {"plain": question_of(gold[0], False), "with filters": question_of(gold[0], True)},
    }
    write("literature", result)


if __name__ == "__main__":
    main()
