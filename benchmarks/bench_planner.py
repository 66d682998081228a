"""Planner and population-question reader (issue 17): route accuracy (records / population / both) and query-essentials
accuracy on the labelled questions of ``evaluate/data/planner_questions.jsonl`` (dev: tuned on; test: held out),
and the time to plan one question, over the vocabulary of a generated cohort's three hospitals.

    python benchmarks/bench_planner.py [--patients 200] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.generate.planner import Plan, Planner
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.population.query import (
    CodeCriterion,
    Criterion,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    TextCriterion,
    ValueCriterion,
)
from clinrag.population.vocabulary import Vocabulary
from common import write

QUESTIONS = Path(__file__).parents[1] / "src/clinrag/evaluate/data/planner_questions.jsonl"
TODAY = "2024-06-01"


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    """The labelled questions."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def criterion_fits(expected: dict[str, Any], criterion: Criterion) -> bool:
    """Whether ``criterion`` is the one ``expected`` describes (see the data file's fields)."""
    kind = expected["kind"]
    if isinstance(criterion, CodeCriterion):
        return criterion.kind == kind and any(expected["covers"].startswith(p) for p in criterion.prefixes)
    if isinstance(criterion, MedicationCriterion):
        return kind == "medication" and expected["drug"] in criterion.drugs
    if isinstance(criterion, ValueCriterion):
        return criterion.kind == kind and set(expected["values"]) <= set(criterion.values)
    if isinstance(criterion, RangeCriterion):
        return criterion.kind == kind and (criterion.low, criterion.high) == (expected["low"], expected["high"])
    if isinstance(criterion, TextCriterion):
        return kind == "text" and expected["contains"].lower() in criterion.phrase.lower()
    return False


def cohort_fits(expected: list[dict[str, Any]], cohort: tuple[Criterion, ...]) -> bool:
    """Every expected criterion matched by a distinct criterion of ``cohort``, and nothing else."""
    if len(expected) != len(cohort):
        return False
    left = list(cohort)
    for want in expected:
        found = next((c for c in left if criterion_fits(want, c)), None)
        if found is None:
            return False
        left.remove(found)
    return True


def essentials_fit(expect: dict[str, Any], plan: Plan) -> bool:
    """Whether the plan's population queries have the expected measure, unit, grouping, organisations and cohort."""
    reading = plan.population
    queries: tuple[PopulationQuery, ...] = reading.queries
    alternatives = expect.get("alternatives")
    if not queries or len(queries) != (len(alternatives) if alternatives else 1):
        return False
    if set(reading.orgs) != set(expect["orgs"]):
        return False
    for i, query in enumerate(queries):
        measure = query.measure
        if (measure.kind, measure.of) != (expect["measure"], expect["of"]) or query.unit != expect["unit"]:
            return False
        if set(query.group_by) != set(expect["group_by"]):
            return False
        cohort = expect["criteria"] + (alternatives[i] if alternatives else [])
        if not cohort_fits(cohort, query.cohort):
            return False
    return True


def build_vocabulary(cohort: Path) -> Vocabulary:
    """The root's vocabulary: the union of the three hospitals'."""
    vocabulary = Vocabulary.build()
    for hospital in sorted((cohort / "hospitals").iterdir()):
        vocabulary = vocabulary.union(Vocabulary.from_cohort(hospital))
    return vocabulary


def evaluate(planner: Planner, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """Route and essentials accuracy per split, per-question latency, and the misses."""
    from datetime import date

    today = date.fromisoformat(TODAY)
    results: dict[str, Any] = {}
    misses: list[dict[str, Any]] = []
    latencies: list[float] = []
    for split in ("dev", "test"):
        rows = [row for row in questions if row["split"] == split]
        routed = essentials = with_essentials = 0
        for row in rows:
            started = time.perf_counter()
            plan = planner.plan(row["question"], today=today)
            latencies.append(time.perf_counter() - started)
            route_ok = plan.route == row["route"]
            routed += route_ok
            fit = None
            if "expect" in row:
                with_essentials += 1
                fit = route_ok and essentials_fit(row["expect"], plan)
                essentials += fit
            if not route_ok or fit is False:
                misses.append(
                    {
                        "id": row["id"],
                        "split": split,
                        "question": row["question"],
                        "expected": row["route"],
                        "route": plan.route,
                        "reason": plan.reason,
                    }
                )
        results[split] = {
            "questions": len(rows),
            "route_accuracy": round(routed / len(rows), 3),
            "with_query_essentials": with_essentials,
            "query_essentials_accuracy": round(essentials / with_essentials, 3) if with_essentials else None,
        }
    ordered = sorted(latencies)
    results["latency_ms"] = {
        "p50": round(statistics.median(ordered) * 1000, 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max": round(ordered[-1] * 1000, 2),
    }
    results["misses"] = misses
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=200)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    questions = load_questions()
    with tempfile.TemporaryDirectory() as scratch:
        cohort = Path(scratch) / "cohort"
        generate_cohort(cohort, patients=args.patients, seed=7, workers=1)
        started = time.perf_counter()
        vocabulary = build_vocabulary(cohort)
        loaded = time.perf_counter() - started
    planner = Planner(vocabulary)
    started = time.perf_counter()
    planner.plan("How many patients over 65 had a stroke? What was Deanna Mahoney given?")
    first = time.perf_counter() - started
    results = evaluate(planner, questions)
    if args.show_misses:
        for miss in results["misses"]:
            print(json.dumps(miss))
    write(
        "planner",
        {
            "questions": len(questions),
            "routes": {
                route: sum(row["route"] == route for row in questions) for route in ("records", "population", "both")
            },
            "llm": "none: transparent rules and the vocabulary",
            "vocabulary_load_seconds": round(loaded, 2),
            "first_plan_seconds": round(first, 2),
            **results,
        },
    )


if __name__ == "__main__":
    main()
