"""Similar patients (issue 18): ranking one patient against 100,000, vectorised vs a pairwise Python loop.

The 100,000 patients' code sets are drawn at random rather than generated as a cohort: generating and materialising
a 100k-patient synthetic cohort takes far too long for this measurement, and only the sets matter to the ranking.
Set sizes are drawn from log-normal distributions roughly like MIMIC-IV's per-patient counts (diagnoses median 14,
drugs median 25, procedures: none for 30 % of patients, else median 3), items from Zipf-like popularity over
15,000 diagnosis codes, 3,000 drug names and 8,000 procedure codes (duplicates drawn for one patient collapse, so
the sets are a little smaller; the means are reported).

Timed: `rank_similar` (default weights 1/3 each, the 10x size rule, top 15 with their shared items) for ``--queries``
random patients, warm; and the same ranking as a straightforward loop over Python sets (Jaccard per kind with the
size rule, weighted sum, ``heapq.nlargest``) for ``--loop-queries`` of them over all patients — or, with
``--loop-sample N``, over N patients scaled up to the whole population. Both rankings are checked to agree.

    python benchmarks/bench_similar.py [--patients 100000] [--queries 50] [--loop-queries 5] [--seed 18]
"""

from __future__ import annotations

import argparse
import heapq
import os
import statistics
import time
from typing import Any

import numpy as np

from clinrag.population.similar import MAX_RATIO, Weights, rank_similar
from clinrag.population.similar_sets import KINDS, CodeSets, Kind, matrix_from_pairs
from common import write

VOCAB: dict[Kind, int] = {"dx": 15_000, "med": 3_000, "proc": 8_000}
MEDIAN: dict[Kind, float] = {"dx": 14, "med": 25, "proc": 3}
SIGMA: dict[Kind, float] = {"dx": 0.8, "med": 0.9, "proc": 0.7}
CAP: dict[Kind, int] = {"dx": 150, "med": 300, "proc": 40}
NO_PROCEDURES = 0.3
ZIPF = 1.1
TARGET_MS = 100.0


def draw_sets(patients: int, seed: int) -> CodeSets:
    """Random code sets for ``patients`` patients (see the module docstring)."""
    rng = np.random.default_rng(seed)
    matrices, sizes, items = {}, {}, {}
    for kind in KINDS:
        counts = np.minimum(np.rint(rng.lognormal(np.log(MEDIAN[kind]), SIGMA[kind], patients)), CAP[kind])
        counts = np.maximum(counts, 1).astype(np.int64)
        if kind == "proc":
            counts[rng.random(patients) < NO_PROCEDURES] = 0
        popularity = 1.0 / np.arange(1, VOCAB[kind] + 1) ** ZIPF
        rows = np.repeat(np.arange(patients, dtype=np.int64), counts)
        cols = rng.choice(VOCAB[kind], size=len(rows), p=popularity / popularity.sum()).astype(np.int64)
        matrices[kind] = matrix_from_pairs(rows, cols, (patients, VOCAB[kind]))
        sizes[kind] = np.diff(matrices[kind].indptr).astype(np.int64)
        items[kind] = tuple(str(i) for i in range(VOCAB[kind]))
    keys = np.arange(patients, dtype=np.int64)
    return CodeSets("patient", keys, keys.copy(), matrices, sizes, items, {k: ("",) * VOCAB[k] for k in KINDS})


def python_sets(sets: CodeSets) -> list[tuple[frozenset[int], ...]]:
    """Every patient's three sets as Python frozensets (built once, not timed)."""
    per_kind = [[frozenset(sets.row_items(kind, row).tolist()) for row in range(len(sets.keys))] for kind in KINDS]
    return list(zip(*per_kind, strict=True))


def loop_rank(patients: list[tuple[frozenset[int], ...]], query: int, weights: Weights, k: int, upto: int) -> Any:
    """The pairwise loop over the first ``upto`` patients: per kind Jaccard with the size rule, weighted sum."""
    lambdas = [weights.of(kind) for kind in KINDS]
    mine = patients[query]
    scored = []
    for other in range(upto):
        if other == query:
            continue
        score = 0.0
        for a, b, weight in zip(mine, patients[other], lambdas, strict=True):
            inter = len(a & b)
            union = len(a) + len(b) - inter
            small, big = min(len(a), len(b)), max(len(a), len(b))
            if union and not (big > MAX_RATIO * small and inter < small):
                score += weight * inter / union
        if score > 0:
            scored.append((score, -other))
    return heapq.nlargest(k, scored)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--loop-queries", type=int, default=5)
    parser.add_argument("--loop-sample", type=int, default=0, help="time the loop over this many patients, scaled")
    parser.add_argument("--k", type=int, default=15)
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()

    load = os.getloadavg()[0]
    started = time.perf_counter()
    sets = draw_sets(args.patients, args.seed)
    build_seconds = time.perf_counter() - started
    rng = np.random.default_rng(args.seed + 1)
    queries = rng.choice(args.patients, size=args.queries, replace=False).tolist()
    weights = Weights()
    rank_similar(sets, queries[0], k=args.k, weights=weights)  # warm
    vector_ms, ranked = [], {}
    for query in queries:
        t0 = time.perf_counter()
        ranked[query] = rank_similar(sets, query, k=args.k, weights=weights)
        vector_ms.append((time.perf_counter() - t0) * 1000)

    patients = python_sets(sets)
    upto = args.loop_sample or args.patients
    loop_ms, agree = [], True
    for query in queries[: args.loop_queries]:
        t0 = time.perf_counter()
        top = loop_rank(patients, query, weights, args.k, upto)
        loop_ms.append((time.perf_counter() - t0) * 1000 * args.patients / upto)
        if upto == args.patients:
            got = [(m.subject_id, m.score) for m in ranked[query]]
            agree &= [-o for _, o in top] == [s for s, _ in got] and np.allclose(
                [s for s, _ in top], [s for _, s in got]
            )

    p50 = statistics.median(vector_ms)
    p95 = float(np.percentile(vector_ms, 95))
    loop_p50 = statistics.median(loop_ms)
    write(
        "similar",
        {
            "patients": args.patients,
            "load_average_1min_at_start": round(load, 2),
            "data": "random code sets (a 100k-patient cohort generation is too slow); see bench_similar.py",
            "mean_set_sizes": {kind: round(float(sets.sizes[kind].mean()), 1) for kind in KINDS},
            "vocabulary": VOCAB,
            "nonzeros": int(sum(sets.matrices[kind].nnz for kind in KINDS)),
            "build_matrices_seconds": round(build_seconds, 2),
            "k": args.k,
            "weights": "1/3 each, 10x size rule",
            "vectorised_ms": {
                "queries": len(vector_ms),
                "p50": round(p50, 2),
                "p95": round(p95, 2),
                "max": round(max(vector_ms), 2),
            },
            "target_ms": TARGET_MS,
            "meets_target": p95 <= TARGET_MS,
            "python_loop_ms": {
                "queries": len(loop_ms),
                "patients_looped": upto,
                "scaled_to_all": upto != args.patients,
                "p50": round(loop_p50, 1),
            },
            "speedup_p50": round(loop_p50 / p50, 1),
            "same_top_k": bool(agree) if upto == args.patients else None,
        },
    )


if __name__ == "__main__":
    main()
