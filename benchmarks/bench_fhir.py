"""Figure: FHIR R4 ingestion rate (resources/s) and peak memory on a Bulk Data export of the synthetic cohort, against
MIMIC-IV ingestion of the same patients in the same run (the baseline); also what the specification check (R4B
models of fhir.resources) costs, and an idempotent re-run.

Each step runs in its own process (peak RSS is the step's own): synthesis, the export, MIMIC ingestion, FHIR
ingestion with and without the check, and the FHIR re-run. Population tables are not built here.

    python benchmarks/bench_fhir.py [--patients 10000]
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

EXPORT = """
import time, pathlib
from clinrag.ingest.fhir.export import write_export
started = time.perf_counter()
counts = write_export(pathlib.Path({root!r}), pathlib.Path({fhir!r}))
RESULT = {{"seconds": round(time.perf_counter() - started, 2), "resources": sum(counts.values()), "by_type": counts}}
"""

INGEST = """
import time, pathlib
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.fhir.reader import FhirReader
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
root = pathlib.Path({root!r})
reader = FhirReader(root, validate={validate}) if {fhir} else None
started = time.perf_counter()
with ChunkStore.open(pathlib.Path({store!r})) as store:
    summary = ingest_mimic(root, store, IngestSettings(), reader=reader)
    total = store.count()
seconds = time.perf_counter() - started
resources = sum(reader.resources.values()) if reader is not None else None
RESULT = {{"seconds": round(seconds, 2), "notes": summary.notes, "chunks_in_store": total,
          "chunks_written": summary.chunks_written, "stage_seconds": {{k: round(v, 2) for k, v in summary.seconds.items()}},
          "skipped": sum(summary.report.skipped.values()),
          "resources": resources, "resources_per_second": round(resources / seconds) if resources else None,
          "notes_per_second": round(summary.notes / summary.seconds["notes"])}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        synth = run_measured(GENERATE.format(out=tmp, patients=args.patients))
        root, fhir = f"{tmp}/full", f"{tmp}/fhir"
        export = run_measured(EXPORT.format(root=root, fhir=fhir))
        mimic = run_measured(INGEST.format(root=root, store=f"{tmp}/mimic.sqlite", fhir=False, validate=True))
        checked = run_measured(INGEST.format(root=fhir, store=f"{tmp}/fhir.sqlite", fhir=True, validate=True))
        again = run_measured(INGEST.format(root=fhir, store=f"{tmp}/fhir.sqlite", fhir=True, validate=True))
        unchecked = run_measured(
            INGEST.format(root=fhir, store=f"{tmp}/fhir-unchecked.sqlite", fhir=True, validate=False)
        )
    write(
        "fhir",
        {
            "patients": args.patients,
            "synthesis": synth,
            "export_written": export,
            "mimic_ingest_baseline": mimic,
            "fhir_ingest": checked,
            "fhir_idempotent_rerun": again,
            "fhir_ingest_without_spec_check": unchecked,
            "fhir_vs_mimic_time_ratio": round(checked["seconds"] / mimic["seconds"], 2),
            "fhir_vs_mimic_peak_rss_ratio": round(checked["peak_rss_mib"] / mimic["peak_rss_mib"], 2),
            "spec_check_share_of_fhir_time": round(1 - unchecked["seconds"] / checked["seconds"], 2),
        },
    )


if __name__ == "__main__":
    main()
