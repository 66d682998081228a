"""Calibrate the support threshold of citation checks (issue 4): claims restating the cohort's gold facts in
other words, scored against the chunk that states them (should pass) and against the same section of another
patient's note (should fail), with and without the embedder.

    python benchmarks/bench_support.py [--patients 120] [--pairs 300]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from clinrag.evaluate.retrieval_gold import Cohort
from clinrag.evaluate.support import calibrate_support, claim_pairs
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.settings import IngestSettings
from common import write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=120)
    parser.add_argument("--pairs", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        generate_cohort(work / "cohort", patients=args.patients, seed=11, workers=2)
        with ChunkStore.open(work / "chunks.sqlite") as store:
            ingest_mimic(work / "cohort/full", store, IngestSettings(tables=()), org="ALL")
            chunks = list(store.chunks())
        pairs = claim_pairs(Cohort.load(work / "cohort"), chunks, seed=3, limit=args.pairs)
        results = {}
        for label, embedder in (("lexical_only", None), ("lexical_and_embedding", OnnxMiniLmEmbedder(threads=2))):
            found = calibrate_support(pairs, embedder)
            results[label] = vars(found)
    write("support_threshold", {"pairs": len(pairs), "sample_claims": [p[0] for p in pairs[:5]], **results})


if __name__ == "__main__":
    main()
