"""Ingestion into the chunk store: metadata, limits, idempotence, updates, deletions and crash-resume."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
from clinrag.types import SectionGroup, SourceKind


def _ingest(source: Path, store_path: Path, settings: IngestSettings | None = None) -> dict[str, dict[str, int]]:
    with ChunkStore.open(store_path) as store:
        summary = ingest_mimic(source, store, settings or IngestSettings())
    return {scope: dict(counter) for scope, counter in summary.outcomes.items()}


def _rewrite_notes(folder: Path, change: dict[str, str | None]) -> None:
    """Replace (or with None, delete) the text of notes by note_id."""
    path = folder / "note/discharge.csv"
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
        fields = list(rows[0])
    kept = []
    for row in rows:
        if row["note_id"] in change:
            if change[row["note_id"]] is None:
                continue
            row["text"] = str(change[row["note_id"]])
        kept.append(row)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)


@pytest.fixture
def hospital_a(cohort: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "A"
    shutil.copytree(cohort / "hospitals/A", folder)
    return folder


def test_chunks_carry_provenance_and_respect_the_limit(hospital_a: Path, tmp_path: Path) -> None:
    settings = IngestSettings(chunk_max_chars=400)
    _ingest(hospital_a, tmp_path / "s.sqlite", settings)
    with ChunkStore.open(tmp_path / "s.sqlite") as store:
        chunks = list(store.chunks())
        names = dict(store.patients())
    notes = [c for c in chunks if c.source_kind is SourceKind.NOTE]
    rows = [c for c in chunks if c.source_kind is SourceKind.ROW]
    assert notes
    assert rows
    assert all(len(c.text) <= 400 for c in chunks if c.source_kind is SourceKind.NOTE)
    assert {c.org for c in chunks} == {"A"}
    assert {c.dept for c in notes} <= {"medicine", "surgery", "orthopaedics", "psychiatry"}
    assert {c.dept for c in rows if c.table == "admissions"} == {"admissions"}
    for chunk in notes:
        assert chunk.subject_id is not None
        assert chunk.note_id is not None
        assert chunk.hadm_id is not None
        assert chunk.admittime is not None
        assert chunk.dischtime is not None
        assert chunk.admittime < chunk.dischtime
        assert chunk.patient_name == names[chunk.subject_id]
        assert chunk.context == f"For patient with name of {chunk.patient_name}: "
        assert chunk.text.startswith(f"{chunk.section}: ")
        assert chunk.section_group is not None
    assert {c.section_group for c in notes} >= {
        SectionGroup.CLINICAL_PROFILE,
        SectionGroup.IN_HOSPITAL_PROGRESS,
        SectionGroup.DISCHARGE_PLAN,
    }
    diagnosis_rows = [c for c in rows if c.table == "diagnoses_icd"]
    assert all("long_title: " in c.text for c in diagnosis_rows)


def test_name_prefix_can_be_switched_off(hospital_a: Path, tmp_path: Path) -> None:
    _ingest(hospital_a, tmp_path / "s.sqlite", IngestSettings(name_prefix_notes=False, tables=()))
    with ChunkStore.open(tmp_path / "s.sqlite") as store:
        assert {c.context for c in store.chunks()} == {""}


def test_reingesting_adds_nothing(hospital_a: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = _ingest(hospital_a, store)
    with ChunkStore.open(store) as opened:
        before = opened.chunk_ids()
    second = _ingest(hospital_a, store)
    with ChunkStore.open(store) as opened:
        assert opened.chunk_ids() == before
    assert first["note"]["new"] == second["note"]["unchanged"]
    assert set(second["note"]) == {"unchanged"}
    assert all(set(outcomes) == {"unchanged"} for outcomes in second.values())


def test_changed_note_is_replaced_and_vanished_note_removed(hospital_a: Path, tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    _ingest(hospital_a, store_path)
    with (hospital_a / "note/discharge.csv").open(newline="") as handle:
        note_ids = [row["note_id"] for row in csv.DictReader(handle)]
    changed, removed = note_ids[0], note_ids[1]
    _rewrite_notes(hospital_a, {changed: "Brief Hospital Course:\nAn entirely new course.\n", removed: None})
    outcomes = _ingest(hospital_a, store_path)
    assert outcomes["note"]["changed"] == 1
    assert outcomes["note"]["removed"] == 1
    with ChunkStore.open(store_path) as store:
        texts = {c.note_id: c.text for c in store.chunks(source_kind="note")}
        assert removed not in texts
        assert texts[changed] == "Brief Hospital Course: An entirely new course."


def test_interrupted_ingestion_resumes_to_the_same_chunks(hospital_a: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference.sqlite"
    _ingest(hospital_a, reference)
    with ChunkStore.open(reference) as store:
        expected = store.chunk_ids()

    crashed = tmp_path / "crashed.sqlite"
    env = {**os.environ, "CLINRAG_INGEST__BATCH_SIZE": "5"}
    command = [
        sys.executable,
        "-c",
        "from clinrag.app.cli import main; main()",
        "ingest",
        str(hospital_a),
        "--store",
        str(crashed),
    ]
    log = tmp_path / "ingest.log"
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log.open("w"))
    deadline = time.monotonic() + 300  # its tenth source is stored after ~14 s, ~30 s on a loaded machine
    killed_midway = False
    while time.monotonic() < deadline and process.poll() is None:
        if crashed.exists():
            try:
                with sqlite3.connect(crashed) as db:
                    stored = db.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
            if stored >= 10:
                process.send_signal(signal.SIGKILL)
                killed_midway = True
                break
        time.sleep(0.005)
    process.wait(timeout=30)
    assert killed_midway, f"ingestion ended (exit {process.returncode}) before the kill: {log.read_text()[-500:]}"
    with ChunkStore.open(crashed) as store:
        partial = store.chunk_ids()
    assert partial
    assert partial < expected

    _ingest(hospital_a, crashed)
    with ChunkStore.open(crashed) as store:
        assert store.chunk_ids() == expected
        assert store.count() == len(expected)


def test_a_bad_admissions_row_is_counted_and_reported_once(hospital_a: Path, tmp_path: Path) -> None:
    path = hospital_a / "hosp/admissions.csv"
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[2].split(",")
    fields[2] = "not-a-date"  # admittime of the second admission: read by the registry and by the table stage
    lines[2] = ",".join(fields)
    path.write_text("".join(lines))
    rows = len(lines) - 1
    with ChunkStore.open(tmp_path / "s.sqlite") as store:
        summary = ingest_mimic(hospital_a, store, IngestSettings())
    report = summary.report
    assert sum(n for (table, _), n in report.skipped.items() if table == "admissions") == 1
    assert [str(p) for p in report.problems] == [f"{path}:3: admittime: not a valid datetime"]
    assert report.read["admissions"] == rows - 1
    assert sum(summary.outcomes["admissions"].values()) == rows - 1
