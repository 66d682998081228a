"""Figure: retrieval quality on the synthetic cohort's gold facts — recall@5, recall@10, MRR@10 and nDCG@10 per
question kind (single patient, single note, multi patient), the wrong-patient rate and latency, for every retrieval
mode (dense, bm25, hybrid, hybrid-mmr) × name prefix on/off × patient resolution on/off.

The cohort's ``full`` folder is ingested (notes only, org ALL, one node) twice, with and without the patient-name
prefix, and indexed with the bundled ONNX MiniLM embedder. The work folder is reused between runs: pass the same
``--out`` to skip generating, ingesting and indexing again.

    python benchmarks/bench_retrieval_quality.py [--patients 300] [--seed 42] [--out DIR] [--questions-per-kind 100]

Writes benchmarks/results/retrieval_quality.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from clinrag.evaluate.retrieval import evaluate_retrieval
from clinrag.evaluate.retrieval_report import check_targets
from clinrag.evaluate.retrieval_runner import MODES, all_configurations
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.synthetic.cohort import generate_cohort
from common import write


def _cohort(folder: Path, patients: int, seed: int) -> Path:
    """Generate the cohort unless ``folder`` already holds the same one."""
    manifest = folder / "cohort.json"
    if manifest.is_file():
        known = json.loads(manifest.read_text())
        if (known.get("patients"), known.get("seed")) == (patients, seed):
            return folder
    generate_cohort(folder, patients=patients, seed=seed, workers=2)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=300, help="cohort size")
    parser.add_argument("--seed", type=int, default=42, help="seed of the cohort and of the questions")
    parser.add_argument("--out", type=Path, default=None, help="work folder, reused between runs (default: temp)")
    parser.add_argument("--questions-per-kind", type=int, default=100, help="questions of each kind (at most)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated retrieval modes")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.add_argument("--compute", choices=("int8", "fp32"), default="int8", help="how the MiniLM computes")
    parser.add_argument("--results", default="retrieval_quality", help="name of the results file (without .json)")
    args = parser.parse_args()
    embedder = OnnxMiniLmEmbedder(threads=args.threads, compute=args.compute)
    modes = [mode for mode in MODES if mode in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        work = args.out or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        cohort = _cohort(work / "cohort", args.patients, args.seed)
        report = evaluate_retrieval(
            cohort,
            work,
            embedder,
            all_configurations(modes=modes),
            seed=args.seed,
            per_kind=args.questions_per_kind,
            on_progress=lambda message: print(f"[{time.perf_counter() - started:7.1f}s] {message}", flush=True),
        )
        with (work / "questions.jsonl").open("w") as handle:
            handle.writelines(json.dumps(question.to_json()) + "\n" for question in report.questions)
        payload = report.to_json()
        write(
            args.results,
            {
                "patients": args.patients,
                "seed": args.seed,
                "questions_per_kind": args.questions_per_kind,
                "embedder": embedder.id,
                "k": 10,
                "wall_seconds": round(time.perf_counter() - started, 1),
                **payload,
            },
        )
    print()
    print(report.markdown())
    print()
    for check in check_targets(report.results):
        print(f"{'MET ' if check.met else 'MISS'}  {check.target:34} {check.configuration:32} {check.value:.3f}")


if __name__ == "__main__":
    main()
