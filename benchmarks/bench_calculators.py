"""Calculation vignettes (issue 19): accuracy, calculator selection, input extraction per kind, missing inputs and
latency on four vignettes per calculator (`clinrag.evaluate.calc_vignettes`), beside the published MedCalc-Bench
figures of large language models computing by themselves.

Baseline in the same run: the *question-only* answer — the same vignettes with no record reading (the note is not
searched), which is what a calculator that reads only the question would do: it must ask for every input.

    python benchmarks/bench_calculators.py [--seed 0] [--seeds 3] [--name calculators]

Seeds 0-2 were read while the reading rules were fixed (results/calculators.json); seeds 10-12 were run once after
(results/calculators-unseen.json): new values and phrasing draws, the same templates.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from clinrag.evaluate.calc_vignettes import PUBLISHED, build_vignettes, question_only_accuracy, score
from common import write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=3, help="seeds run (seed, seed+1, ...): the spread is reported")
    parser.add_argument("--name", default="calculators", help="results/NAME.json")
    args = parser.parse_args()
    runs: dict[str, Any] = {}
    for seed in range(args.seed, args.seed + args.seeds):
        vignettes = build_vignettes(seed)
        scores = dataclasses.asdict(score(vignettes))
        scores["question_only_accuracy"] = question_only_accuracy(vignettes)
        runs[f"seed_{seed}"] = scores
        print(
            f"seed {seed}: {scores['vignettes']} vignettes, {scores['calculators']} calculators, value accuracy "
            f"{scores['value_accuracy']:.3f} (question-only {scores['question_only_accuracy']:.3f}), selection "
            f"{scores['selection_accuracy']:.3f}, missing detected {scores['missing_detected']:.3f}, p50/p95 "
            f"{scores['latency_ms']['p50']}/{scores['latency_ms']['p95']} ms"
        )
    write(
        args.name,
        {
            "benchmark": "calculators",
            "caveat": "vignettes written by the project's own templates: in-sample for the reading rules",
            "published": PUBLISHED,
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
