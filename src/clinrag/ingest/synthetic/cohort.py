"""Writes a synthetic cohort in the MIMIC-IV layout: the whole cohort, each case-study hospital, and gold facts.

Output under ``out``::

    full/hosp/*.csv, full/note/discharge.csv       every patient (the centralised reference)
    hospitals/{A,B,C}/hosp/*.csv, .../note/...     each hospital's share, with clinrag-source.toml
    gold_facts.jsonl                               which note and section states which fact, with offsets
    cohort.json                                    seed, sizes and counts

Patients are generated in blocks by worker processes and written in block order, so the files are identical for
a seed whatever the number of workers, and memory stays bounded by a few blocks.

Example:
    >>> import tempfile, pathlib
    >>> summary = generate_cohort(pathlib.Path(tempfile.mkdtemp()), patients=10, seed=1, workers=1)
    >>> summary.counts["full"]["patients"]
    10
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from clinrag.ingest.mimic_schema import TABLES, Table
from clinrag.ingest.synthetic.hospitals import ADMISSIONS_DEPARTMENT, CASE_STUDY, Hospital
from clinrag.ingest.synthetic.icd import diagnosis_titles, procedure_titles
from clinrag.ingest.synthetic.patients import generate_patient

GENERATED_TABLES = (
    "patients",
    "admissions",
    "services",
    "diagnoses_icd",
    "procedures_icd",
    "prescriptions",
    "discharge",
)
HADM_COLUMN = {name: TABLES[name].mimic_columns.index("hadm_id") for name in GENERATED_TABLES if name != "patients"}
FULL = "full"
SOURCE_FILE = "clinrag-source.toml"
BLOCK_SIZE = 100
GENERATOR_VERSION = 1

Block = tuple[int, int, int, int, int]
ProgressCallback = Callable[[int], None]


@dataclass
class CohortSummary:
    """What was written: rows per destination and table, facts, and where."""

    out: Path
    patients: int
    seed: int
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    facts: int = 0


@dataclass
class _BlockOutput:
    csv_text: dict[tuple[str, str], str]
    facts_text: str
    counts: dict[tuple[str, str], int]
    facts: int


def _destinations() -> tuple[str, ...]:
    return (FULL, *CASE_STUDY)


def _folder(out: Path, destination: str) -> Path:
    return out / FULL if destination == FULL else out / "hospitals" / destination


def _generate_block(block: Block) -> _BlockOutput:
    seed, start, stop, start_year, end_year = block
    buffers = {(d, t): io.StringIO() for d in _destinations() for t in GENERATED_TABLES}
    writers = {key: csv.writer(buffer, lineterminator="\n") for key, buffer in buffers.items()}
    counts = dict.fromkeys(buffers, 0)
    facts: list[str] = []
    for index in range(start, stop):
        patient = generate_patient(seed, index, start_year, end_year)
        orgs = sorted(set(patient.org_of_hadm.values()))
        for table, rows in patient.rows.items():
            for row in rows:
                if table == "patients":
                    targets = [FULL, *orgs]
                else:
                    targets = [FULL, patient.org_of_hadm[int(row[HADM_COLUMN[table]])]]
                for target in targets:
                    writers[target, table].writerow(row)
                    counts[target, table] += 1
        facts.extend(json.dumps(fact, separators=(",", ":")) + "\n" for fact in patient.facts)
    return _BlockOutput(
        csv_text={key: buffer.getvalue() for key, buffer in buffers.items()},
        facts_text="".join(facts),
        counts=counts,
        facts=len(facts),
    )


def _blocks(seed: int, patients: int, start_year: int, end_year: int) -> list[Block]:
    return [
        (seed, start, min(start + BLOCK_SIZE, patients), start_year, end_year)
        for start in range(0, patients, BLOCK_SIZE)
    ]


def _open(path: Path, compress: bool) -> IO[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    if compress:
        return gzip.open(path.with_suffix(".csv.gz"), "wt", compresslevel=1, newline="")
    return path.open("w", newline="")


def _header(table: Table) -> str:
    return ",".join(column.name for column in table.all_columns) + "\n"


def _write_dictionaries(folder: Path, compress: bool) -> None:
    for name, titles in (("d_icd_diagnoses", diagnosis_titles()), ("d_icd_procedures", procedure_titles())):
        with _open(folder / TABLES[name].path, compress) as handle:
            handle.write(_header(TABLES[name]))
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerows((code, "10", title) for code, title in titles.items())


def source_manifest(hospital: Hospital | None) -> str:
    """The ``clinrag-source.toml`` of a hospital folder (or of the whole cohort when ``hospital`` is None)."""
    if hospital is None:
        org, name = "ALL", "Whole synthetic cohort"
        departments = {code: dept for h in CASE_STUDY.values() for code, dept in h.departments.items()}
    else:
        org, name, departments = hospital.org, hospital.name, hospital.departments
    lines = [
        "# Which organisation this MIMIC-IV folder belongs to and how services map to departments.",
        f'org = "{org}"',
        f'name = "{name}"',
        f'admissions_department = "{ADMISSIONS_DEPARTMENT}"',
        "",
        "[departments]  # MIMIC-IV service code = department",
        *(f'{code} = "{dept}"' for code, dept in sorted(departments.items())),
    ]
    return "\n".join(lines) + "\n"


def _run_blocks(blocks: list[Block], workers: int) -> Iterator[_BlockOutput]:
    if workers <= 1 or len(blocks) <= 1:
        yield from map(_generate_block, blocks)
        return
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_generate_block, blocks)


def generate_cohort(
    out: Path,
    patients: int,
    seed: int = 42,
    workers: int = 0,
    start_year: int = 2012,
    end_year: int = 2024,
    compress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> CohortSummary:
    """Generate ``patients`` patients with ``seed`` into ``out`` (see the module docstring for the layout)."""
    workers = workers or os.cpu_count() or 1
    summary = CohortSummary(out=out, patients=patients, seed=seed)
    totals: dict[tuple[str, str], int] = {}
    with ExitStack() as stack:
        handles: dict[tuple[str, str], IO[str]] = {}
        for destination in _destinations():
            folder = _folder(out, destination)
            for table in GENERATED_TABLES:
                handle = stack.enter_context(_open(folder / TABLES[table].path, compress))
                handle.write(_header(TABLES[table]))
                handles[destination, table] = handle
            _write_dictionaries(folder, compress)
            hospital = None if destination == FULL else CASE_STUDY[destination]
            (folder / SOURCE_FILE).write_text(source_manifest(hospital))
        facts = stack.enter_context((out / "gold_facts.jsonl").open("w"))
        done = 0
        for block in _run_blocks(_blocks(seed, patients, start_year, end_year), workers):
            for key, text in block.csv_text.items():
                handles[key].write(text)
            for key, count in block.counts.items():
                totals[key] = totals.get(key, 0) + count
            facts.write(block.facts_text)
            summary.facts += block.facts
            done += BLOCK_SIZE
            if on_progress is not None:
                on_progress(min(done, patients))
    for (destination, table), count in totals.items():
        summary.counts.setdefault(destination, {})[table] = count
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "patients": patients,
        "years": [start_year, end_year],
        "counts": summary.counts,
        "facts": summary.facts,
    }
    (out / "cohort.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return summary
