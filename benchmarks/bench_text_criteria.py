"""Text criteria of population questions (issue 17): precision and recall against the cohort's gold facts, and
latency per criterion on each node.

A cohort is generated with the case-study split; each hospital's folder is ingested into its own chunk store (notes
and the default tables, as a node holds them). Every phrase of `clinrag.population.text_gold.CRITERIA` is run on
the three nodes; the admissions (and patients) found are compared with the truth derived from gold facts. Latency is
per node and criterion, warm (spaCy's sentencizer loaded once per process, reported apart as the cold start).

    python benchmarks/bench_text_criteria.py [--patients 200] [--seed 11] [--repeat 20] [--large 10000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.population.phrases import matcher_for
from clinrag.population.query import TextCriterion
from clinrag.population.text import text_matches
from clinrag.population.text_gold import CRITERIA, truth_of
from clinrag.settings import IngestSettings
from common import write

ORGS = ("A", "B", "C")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _ratio(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 1.0


def measure(patients: int, seed: int, repeat: int, work: Path) -> dict[str, Any]:
    """Generate, ingest and measure one cohort."""
    cohort = work / f"cohort-{patients}-{seed}"
    started = time.perf_counter()
    generate_cohort(cohort, patients=patients, seed=seed, workers=2)
    nodes: dict[str, Path] = {}
    sizes: dict[str, int] = {}
    for org in ORGS:
        nodes[org] = work / f"node-{patients}-{seed}-{org}"
        with ChunkStore.open(nodes[org] / "chunks.sqlite") as store:
            ingest_mimic(cohort / "hospitals" / org, store, IngestSettings())
            sizes[org] = store.count(source_kind="note")
    prepared = time.perf_counter() - started
    with (cohort / "gold_facts.jsonl").open() as handle:
        truth = truth_of(json.loads(line) for line in handle)

    cold_started = time.perf_counter()
    text_matches(TextCriterion(phrase="reports heavy alcohol use"), nodes["A"])
    cold_ms = (time.perf_counter() - cold_started) * 1000

    criteria: dict[str, Any] = {}
    for phrase, key in CRITERIA.items():
        criterion = TextCriterion(phrase=phrase)
        found: set[tuple[int, int]] = set()
        latency: dict[str, dict[str, float]] = {}
        for org in ORGS:
            times = []
            for _ in range(repeat):
                begun = time.perf_counter()
                matches = text_matches(criterion, nodes[org])
                times.append((time.perf_counter() - begun) * 1000)
            found |= {(m.subject_id, m.hadm_id or 0) for m in matches}
            latency[org] = {"p50_ms": round(_percentile(times, 0.5), 1), "p95_ms": round(_percentile(times, 0.95), 1)}
        gold = truth[key]
        hits = len(found & gold)
        found_patients, gold_patients = {s for s, _ in found}, {s for s, _ in gold}
        patient_hits = len(found_patients & gold_patients)
        criteria[phrase] = {
            "truth": key,
            "read_as": matcher_for(phrase).interpretation.describe(),
            "admissions": {
                "truth": len(gold),
                "found": len(found),
                "precision": _ratio(hits, len(found)),
                "recall": _ratio(hits, len(gold)),
            },
            "patients": {
                "truth": len(gold_patients),
                "found": len(found_patients),
                "precision": _ratio(patient_hits, len(found_patients)),
                "recall": _ratio(patient_hits, len(gold_patients)),
            },
            "latency_per_node": latency,
        }
    return {
        "patients": patients,
        "seed": seed,
        "note_chunks_per_node": sizes,
        "prepare_seconds": round(prepared, 1),
        "cold_first_call_ms": round(cold_ms, 1),
        "repeat": repeat,
        "criteria": criteria,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--large", type=int, default=0, help="Also measure a cohort of this size (seed 23).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs = [measure(args.patients, args.seed, args.repeat, Path(scratch))]
        if args.large:
            runs.append(measure(args.large, 23, max(3, args.repeat // 4), Path(scratch)))
    write("text_criteria", {"runs": runs})


if __name__ == "__main__":
    main()
