"""Figure: ingestion throughput (parse + clean + section + chunk) of the cohort's discharge notes, in notes/s, and
peak memory. Also the full ingestion into the chunk store (notes and tables) and an idempotent re-run.

Baseline in the same run: note processing alone (no store), which bounds what the store costs.

    python benchmarks/bench_ingest.py [--patients 10000]
"""

from __future__ import annotations

import argparse
import tempfile

from common import run_measured, write

GENERATE = """
import pathlib
from clinrag.ingest.synthetic.cohort import generate_cohort
generate_cohort(pathlib.Path({out!r}), patients={patients}, seed=42, workers=2)
"""

PROCESS_ONLY = """
import time, pathlib
from clinrag.ingest.mimic import IngestReport, read_notes
from clinrag.ingest.pipeline import note_chunks
from clinrag.ingest.source import SourceConfig
from clinrag.settings import IngestSettings
settings, config = IngestSettings(), SourceConfig(org="ALL")
started = time.perf_counter()
notes = chunks = chars = 0
for note in read_notes(pathlib.Path({root!r}), IngestReport()):
    produced = note_chunks(note, config, settings, "Betty Henry", None, None)
    notes += 1
    chunks += len(produced)
    chars += len(note.text)
seconds = time.perf_counter() - started
RESULT = {{"notes": notes, "chunks": chunks, "seconds": round(seconds, 2), "notes_per_second": round(notes / seconds),
          "mb_per_second": round(chars / seconds / 1e6, 2)}}
"""

FULL = """
import time, pathlib
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
started = time.perf_counter()
with ChunkStore.open(pathlib.Path({store!r})) as store:
    summary = ingest_mimic(pathlib.Path({root!r}), store, IngestSettings())
    total = store.count()
seconds = time.perf_counter() - started
stages = {{k: round(v, 2) for k, v in summary.seconds.items()}}
RESULT = {{"seconds": round(seconds, 2), "notes": summary.notes, "chunks_in_store": total,
          "chunks_written": summary.chunks_written, "stage_seconds": stages,
          "notes_per_second": round(summary.notes / summary.seconds["notes"])}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_measured(GENERATE.format(out=tmp, patients=args.patients))
        root, store = f"{tmp}/full", f"{tmp}/chunks.sqlite"
        process_only = run_measured(PROCESS_ONLY.format(root=root))
        first = run_measured(FULL.format(root=root, store=store))
        again = run_measured(FULL.format(root=root, store=store))
    write(
        "ingest",
        {
            "patients": args.patients,
            "note_processing_only": process_only,
            "full_ingest_into_store": first,
            "idempotent_rerun": again,
            "store_overhead_ratio": round(first["stage_seconds"]["notes"] / process_only["seconds"], 2),
        },
    )


if __name__ == "__main__":
    main()
