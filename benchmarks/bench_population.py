"""Population counting at the nodes (issue 17): latency of coded-criteria queries and a plain-Python baseline.

A cohort is generated with the case-study split; each hospital folder is materialised (``population.duckdb``) as
ingestion does. A fixed set of coded-criteria queries (codes, drugs, values, ranges; count, share, top-N; grouped)
is counted on every node, warm, ``--repeat`` times; a question's latency is the sum over the three nodes (a root
asks them concurrently, so this is an upper bound). The baseline counts the same cohort by a straightforward loop
over the CSV rows (csv module), read once per question, as a script without the tables would.

    python benchmarks/bench_population.py [--patients 300] [--large 10000] [--seed 7] [--repeat 10]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.population.count import count
from clinrag.population.query import (
    CodeCriterion,
    Measure,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    ValueCriterion,
)
from clinrag.population.tables import materialise
from common import write

ORGS = ("A", "B", "C")
QUERIES = (
    PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=("I10",)),)),
    PopulationQuery(
        cohort=(CodeCriterion(kind="procedure", prefixes=("021",)),), measure=Measure(kind="top", of="diagnosis")
    ),
    PopulationQuery(cohort=(MedicationCriterion(drugs=("warfarin", "apixaban")),), unit="admission"),
    PopulationQuery(
        cohort=(ValueCriterion(kind="insurance", values=("Medicare", "Medicaid")),), measure=Measure(kind="share")
    ),
    PopulationQuery(measure=Measure(kind="top", of="insurance"), group_by=("org",)),
    PopulationQuery(cohort=(RangeCriterion(kind="age", low=65),), group_by=("year",), unit="admission"),
    PopulationQuery(
        cohort=(ValueCriterion(kind="dept", values=("cardiothoracic", "medicine")),),
        measure=Measure(kind="top", of="procedure"),
    ),
    PopulationQuery(
        cohort=(CodeCriterion(kind="diagnosis", prefixes=("E11", "E10")), RangeCriterion(kind="year", low=2019))
    ),
)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _baseline(folder: Path, query: PopulationQuery) -> int:
    """The cohort size by a loop over the CSV rows (coded criteria of the kinds in QUERIES)."""
    facts: dict[int, dict[str, Any]] = defaultdict(lambda: {"dx": set(), "px": set(), "rx": set()})
    with (folder / "hosp" / "admissions.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            facts[int(row["hadm_id"])].update(
                subject=row["subject_id"], ins=row["insurance"], year=int(row["admittime"][:4])
            )
    for name, key in (("diagnoses_icd", "dx"), ("procedures_icd", "px")):
        with (folder / "hosp" / f"{name}.csv").open(newline="") as handle:
            for row in csv.DictReader(handle):
                facts[int(row["hadm_id"])][key].add(row["icd_code"])
    with (folder / "hosp" / "prescriptions.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            facts[int(row["hadm_id"])]["rx"].add(row["drug"].strip().lower())
    units = set()
    for hadm, fact in facts.items():
        ok = True
        for c in query.cohort:
            if isinstance(c, CodeCriterion):
                ok &= any(
                    code.startswith(p) for code in fact["dx" if c.kind == "diagnosis" else "px"] for p in c.prefixes
                )
            elif isinstance(c, MedicationCriterion):
                ok &= any(d.startswith(w.lower()) for d in fact["rx"] for w in c.drugs)
            elif isinstance(c, ValueCriterion) and c.kind == "insurance":
                ok &= fact.get("ins") in c.values
            elif isinstance(c, RangeCriterion) and c.kind == "year":
                ok &= (c.low or 0) <= fact.get("year", 0) <= (c.high or 9999)
        if ok:
            units.add(fact.get("subject") if query.unit == "patient" else hadm)
    return len(units)


def _measure(out: Path, patients: int, seed: int, repeat: int) -> dict[str, Any]:
    started = time.perf_counter()
    generate_cohort(out, patients=patients, seed=seed, workers=2)
    generated = time.perf_counter() - started
    paths, built = {}, {}
    for org in ORGS:
        started = time.perf_counter()
        result = materialise(out / "hospitals" / org, out / "nodes" / org / "population.duckdb")
        built[org] = {"seconds": round(time.perf_counter() - started, 2), "rows": result.rows}
        paths[org] = result.path
    latencies: list[float] = []
    for _ in range(repeat):
        for query in QUERIES:
            started = time.perf_counter()
            for org in ORGS:
                count(query, paths[org], allowed_depts=None, text_matches={}, min_cell=5, org=org)
            latencies.append(time.perf_counter() - started)
    baseline: list[float] = []
    for query in QUERIES[:1] + QUERIES[2:4] + QUERIES[7:]:
        started = time.perf_counter()
        for org in ORGS:
            _baseline(out / "hospitals" / org, query)
        baseline.append(time.perf_counter() - started)
    engine_same = [latencies[i] for i in (0, 2, 3, 7)]
    return {
        "patients": patients,
        "generate_seconds": round(generated, 1),
        "materialise": built,
        "queries": len(QUERIES),
        "repeat": repeat,
        "p50_ms": round(_percentile(latencies, 0.5) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 0.95) * 1000, 1),
        "baseline_p50_ms": round(_percentile(baseline, 0.5) * 1000, 1),
        "baseline_over_engine": round(_percentile(baseline, 0.5) / _percentile(engine_same, 0.5), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=300, help="demo size (clinrag demo's default)")
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    results = {}
    for label, patients in (("demo", args.patients), ("large", args.large)):
        with tempfile.TemporaryDirectory() as scratch:
            results[label] = _measure(Path(scratch), patients, args.seed, args.repeat)
    write("population", {"target_p95_ms": 1000, **results})


if __name__ == "__main__":
    main()
