"""Figure: synthetic cohort generation time and peak memory (issue 2 target: 10,000 patients in <= 60 s on 2 cores).

Baseline in the same run: the same cohort with one worker process.

    python benchmarks/bench_synth.py [--patients 10000]
"""

from __future__ import annotations

import argparse
import tempfile

from common import run_measured, write

STEP = """
import time, pathlib
from clinrag.ingest.synthetic.cohort import generate_cohort
started = time.perf_counter()
summary = generate_cohort(pathlib.Path({out!r}), patients={patients}, seed=42, workers={workers})
seconds = time.perf_counter() - started
RESULT = {{"generate_seconds": round(seconds, 2), "patients": {patients}, "workers": {workers},
          "admissions": summary.counts["full"]["admissions"], "notes": summary.counts["full"]["discharge"],
          "facts": summary.facts, "patients_per_second": round({patients} / seconds, 1)}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=10_000)
    args = parser.parse_args()
    runs = {}
    for workers in (2, 1):
        with tempfile.TemporaryDirectory() as out:
            runs[f"workers_{workers}"] = run_measured(STEP.format(out=out, patients=args.patients, workers=workers))
    two, one = runs["workers_2"], runs["workers_1"]
    write(
        "synth",
        {
            "target": "10,000 patients in <= 60 s on 2 cores",
            "runs": runs,
            "speedup_two_workers_vs_one": round(one["generate_seconds"] / two["generate_seconds"], 2),
            "meets_target": args.patients >= 10_000 and two["generate_seconds"] <= 60,
        },
    )


if __name__ == "__main__":
    main()
