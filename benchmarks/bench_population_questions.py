"""Exactness and latency of population questions (issue 17) on the demo federation.

The demo is built as ``clinrag demo`` builds it (default: 300 patients, seed 42; reused when already built in
``--out``). Every question of ``clinrag/evaluate/data/population_questions.jsonl`` is asked in words by every demo
user over the three hospitals, in-process through each node's own population endpoint logic (Cedar gates, document
classes, chunk checks; no HTTP), and by each node alone; each answer's every count is checked against the truth
computed from the CSVs and gold facts (`clinrag.evaluate.population`). A question's latency is planning, counting at
the three nodes one after the other (a root asks them concurrently: an upper bound) and the answer in words, warm
(the first asking of each question is not timed), reported for coded and text criteria separately.

    python benchmarks/bench_population_questions.py [--out data/demo] [--patients 300] [--seed 42] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.access.demo import DEMO_USERS
from clinrag.demo.build import build_demo
from clinrag.evaluate.population import InProcessFederation, ask, load_questions, run_nodes, run_users, summary
from clinrag.evaluate.population_truth import load_cohort
from clinrag.generate.planner import Planner
from clinrag.settings import Settings
from common import write


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _latency(seconds: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(_percentile(seconds, 0.5) * 1000, 1),
        "p95_ms": round(_percentile(seconds, 0.95) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("data/demo"))
    parser.add_argument("--patients", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    build_demo(args.out, args.patients, args.seed, Settings())
    built = time.perf_counter() - started
    questions = load_questions()
    hospitals = load_cohort(args.out / "cohort")
    nodes = {org: args.out / "nodes" / org for org in sorted(hospitals)}
    with tempfile.TemporaryDirectory() as audit:
        federation = InProcessFederation(nodes, Path(audit))
        try:
            grades = run_users(questions, federation, hospitals, DEMO_USERS)
            actor = next(u for u in DEMO_USERS if u.subject == "A.phys.neur")  # sees all three hospitals
            counter = federation.counter(actor)
            planner = Planner(counter.vocabulary(), detect_persons=False)
            timed: dict[str, list[float]] = {"coded": [], "text": []}
            per_question: dict[str, dict[str, Any]] = {}
            for question in questions:
                runs = [ask(question, actor.subject, planner, counter, hospitals).seconds for _ in range(args.repeat)]
                timed[question.kind] += runs
                per_question[question.id] = {"kind": question.kind, **_latency(runs)}
        finally:
            federation.close()
    grades += run_nodes(questions, nodes, hospitals)
    result = summary(grades, questions)
    write(
        "population_questions",
        {
            "patients": args.patients,
            "seed": args.seed,
            "build_seconds": round(built, 1),
            "latency_user": actor.subject,
            "repeat": args.repeat,
            **result,
            "latency": {kind: _latency(seconds) for kind, seconds in timed.items()},
            "latency_per_question": per_question,
        },
    )


if __name__ == "__main__":
    main()
