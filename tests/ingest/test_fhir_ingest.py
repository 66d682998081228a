"""FHIR R4 ingestion (issue 22): the synthetic cohort as a Bulk Data export gives the same patients, notes, codes and
population tables as its MIMIC-IV folder; hand-written FHIR in the specification's style (Bundles with urn:uuid
references, contained resources, partial dates, several names) is read; bad input is reported and the rest kept;
re-running adds nothing and an interrupted run is finished by the next."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.errors import InputError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.fhir.export import write_export
from clinrag.ingest.fhir.reader import FhirReader
from clinrag.ingest.fhir.schema import FHIR_TABLES
from clinrag.ingest.formats import open_reader, source_format
from clinrag.ingest.pipeline import IngestSummary, ingest_mimic
from clinrag.population.tables import materialise
from clinrag.settings import IngestSettings
from clinrag.types import Chunk

FIXTURES = Path(__file__).parents[1] / "fixtures" / "fhir"


def _ingest(source: Path, store_path: Path, settings: IngestSettings | None = None) -> IngestSummary:
    with ChunkStore.open(store_path) as store:
        return ingest_mimic(source, store, settings or IngestSettings(), reader=open_reader(source))


def _chunks(store_path: Path) -> dict[str, Chunk]:
    with ChunkStore.open(store_path) as store:
        return {chunk.chunk_id: chunk for chunk in store.chunks()}


@pytest.fixture(scope="module")
def exports(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Hospitals A and C of the session cohort as Bulk Data exports (C gzipped)."""
    out = tmp_path_factory.mktemp("fhir")
    write_export(cohort / "hospitals/A", out / "A")
    write_export(cohort / "hospitals/C", out / "C", compress=True)
    return out


@pytest.mark.parametrize("org", ["A", "C"])
def test_same_patients_notes_and_codes_from_both_formats(cohort: Path, exports: Path, tmp_path: Path, org: str) -> None:
    assert source_format(exports / org) == "fhir"
    mimic = _ingest(cohort / "hospitals" / org, tmp_path / "mimic.sqlite")
    fhir = _ingest(exports / org, tmp_path / "fhir.sqlite")
    assert not fhir.report.skipped
    assert not fhir.report.problems
    from_mimic, from_fhir = _chunks(tmp_path / "mimic.sqlite"), _chunks(tmp_path / "fhir.sqlite")
    # every MIMIC chunk (notes and rows: same ids, so same text, provenance and department) comes back from FHIR, and
    # nothing else: each Coverage is carried by the admissions' insurance, as MIMIC keeps it
    assert set(from_mimic) == set(from_fhir)
    assert {c.model_dump_json() for c in from_mimic.values()} == {c.model_dump_json() for c in from_fhir.values()}
    assert mimic.notes == fhir.notes > 0
    with ChunkStore.open(tmp_path / "mimic.sqlite") as a, ChunkStore.open(tmp_path / "fhir.sqlite") as b:
        assert list(a.patients()) == list(b.patients())


def _population(path: Path) -> dict[str, list[tuple[object, ...]]]:
    tables = ("admissions", "diagnoses", "procedures", "prescriptions", "complaints", "classes")
    with duckdb.connect(str(path), read_only=True) as connection:
        return {t: sorted(connection.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}


def test_population_tables_are_the_same_from_both_formats(cohort: Path, exports: Path, tmp_path: Path) -> None:
    mimic = materialise(cohort / "hospitals/A", tmp_path / "mimic.duckdb")
    fhir = materialise(exports / "A", tmp_path / "fhir.duckdb", reader=FhirReader(exports / "A"))
    assert mimic.rows == fhir.rows
    assert _population(tmp_path / "mimic.duckdb") == _population(tmp_path / "fhir.duckdb")


def test_reingesting_an_export_adds_nothing(exports: Path, tmp_path: Path) -> None:
    first = _ingest(exports / "C", tmp_path / "s.sqlite")
    again = _ingest(exports / "C", tmp_path / "s.sqlite")
    assert sum(first.outcomes["note"].values()) == again.outcomes["note"]["unchanged"] > 0
    assert all(set(counts) == {"unchanged"} for counts in again.outcomes.values())


def test_interrupted_ingestion_resumes_to_the_same_chunks(exports: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    _ingest(exports / "A", whole)

    class KilledError(Exception):
        pass

    def kill(stage: str, done: int) -> None:
        if stage == "diagnoses_icd":
            raise KilledError

    broken = tmp_path / "broken.sqlite"
    with pytest.raises(KilledError), ChunkStore.open(broken) as store:
        ingest_mimic(
            exports / "A", store, IngestSettings(batch_size=7), on_progress=kill, reader=FhirReader(exports / "A")
        )
    assert 0 < len(_chunks(broken)) < len(_chunks(whole))
    _ingest(exports / "A", broken)
    assert set(_chunks(broken)) == set(_chunks(whole))


def test_a_bundle_written_to_the_specification(tmp_path: Path) -> None:
    reader = FhirReader(FIXTURES / "bundle")
    with ChunkStore.open(tmp_path / "s.sqlite") as store:
        summary = ingest_mimic(FIXTURES / "bundle", store, IngestSettings(), reader=reader)
    assert summary.report.skipped == {
        ("Patient", "unknown extension (ignored)"): 1,
        ("DocumentReference", "unknown extension (ignored)"): 1,  # a note in a Bundle is counted once
        ("Basic", "resource type not read by clinrag"): 1,
    }
    assert reader.resources["DocumentReference"] == reader.resources["Composition"] == 1
    assert not summary.report.problems  # urn:uuid references and the contained Medication all resolve
    chunks = list(_chunks(tmp_path / "s.sqlite").values())
    with ChunkStore.open(tmp_path / "s.sqlite") as store:
        ((subject, name),) = list(store.patients())
    assert name == "Grace Adaeze Lindqvist"  # the official name, not the maiden name or the nickname
    by_table = {c.table or c.note_id: c for c in chunks}
    stay = by_table["admissions"]
    assert "admittime: 2023-02-11 08:30:00" in stay.text  # wall-clock time of the +01:00 dateTime
    assert "race: Asian" in stay.text
    assert "insurance: Private insurance" in stay.text
    assert "payor: Northern Mutual" in by_table["coverage"].text  # the payor no admission row carries
    assert (
        "icd_code: I4891\nicd_version: 10\nlong_title: Unspecified atrial fibrillation"
        in by_table["diagnoses_icd"].text
    )
    assert by_table["diagnoses_icd"].dept == "cardiology"  # serviceType 394579002 mapped by clinrag-source.toml
    assert "code: 195967001\ncode_system: SNOMED CT" in by_table["conditions"].text
    assert "onset: 1970-01-01" in by_table["conditions"].text  # a partial date
    prescription = by_table["prescriptions"].text
    assert "drug: Apixaban" in prescription
    assert "form_rx: TAB" in prescription
    assert "rxnorm: 1364445" in prescription
    assert "doses_per_24_hrs: 2.0" in prescription
    given = next(c for c in chunks if c.table == "medications" and "MedicationAdministration" in c.text).text
    assert "drug: Metoprolol tartrate 25 mg tablet" in given
    assert "code: 866924\ncode_system: RxNorm" in given
    assert "starttime: 2023-02-11 10:15:00" in given
    assert "dose: 25 mg" in given
    assert "route: PO" in given
    assert "result: Systolic 142 mmHg; Diastolic 88 mmHg" in next(
        c.text for c in chunks if c.table == "observations" and "85354-9" in c.text
    )
    creatinine = next(c.text for c in chunks if c.table == "observations" and "2160-0" in c.text)
    assert "result: Creatinine 1.4 mg/dL" in creatinine  # read as a note's lab line is
    assert "reference_range: 0.5-1.1 mg/dL" in creatinine
    assert "results: Creatinine [Mass/volume] in Serum or Plasma" in by_table["diagnostic_reports"].text
    assert "reaction: Hives (moderate)" in by_table["allergies"].text
    assert by_table["allergies"].dept == "admissions"  # a patient's row of no stay
    notes = {c.note_id for c in chunks if c.note_id}
    assert notes == {"ds-2023-1", "Composition-clinic-letter-1", "DiagnosticReport-echo-1"}
    sections = {c.section for c in chunks if c.note_id == "ds-2023-1"}
    assert {"Chief Complaint", "History of Present Illness", "Discharge Medications"} <= sections  # from HTML
    assert all(c.subject_id == subject for c in chunks)


def test_an_export_with_bad_input_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    source = tmp_path / "export"
    shutil.copytree(FIXTURES / "export", source)
    summary = _ingest(source, tmp_path / "s.sqlite")
    shown = [str(p) for p in summary.report.problems]
    condition = str(source / "Condition.ndjson")
    assert f"{condition}:2: Condition/c2: breaks the FHIR R4 specification (subject: missing); skipped" in shown
    assert f"{condition}:4: half-written line at the end of the file (the lines before it are kept)" in shown
    assert f"{condition}:3: Condition/c3: reference to missing Encounter/e9; kept without its stay" in shown
    assert any("DocumentReference/n3: attachment url outside the export (not fetched)" in p for p in shown)
    coverage, report = source / "Coverage.ndjson", source / "DiagnosticReport.ndjson"
    assert f"{coverage}:1: Coverage/cov9: reference to missing Patient/p404; skipped" in shown
    assert f"{report}:1: DiagnosticReport/r1: reference to missing Observation/o404; result not named" in shown
    chunks = list(_chunks(tmp_path / "s.sqlite").values())
    assert {c.note_id for c in chunks if c.note_id} == {"n1", "n2"}  # a file inside the export and a Binary
    assert {c.dept for c in chunks if c.note_id == "n1"} == {"orthopaedics"}
    assert any("deathtime: 2024-06-01 09:00:00" in c.text for c in chunks if c.table == "admissions")
    assert "S72001A" in next(c.text for c in chunks if c.table == "diagnoses_icd")
    assert all("pneumonia" not in p and "hip" not in p for p in shown)  # problems name ids, never note text


def test_gzipped_ndjson_cut_short_keeps_what_was_written(tmp_path: Path) -> None:
    source = tmp_path / "export"
    shutil.copytree(FIXTURES / "export", source)
    data = (source / "Patient.ndjson").read_bytes()
    (source / "Patient.ndjson").unlink()
    packed = gzip.compress(data)
    (source / "Patient.ndjson.gz").write_bytes(packed[: len(packed) - 12])  # the trailer and some data missing
    report = FhirReader(source).patients
    from clinrag.ingest.mimic import IngestReport

    found = IngestReport()
    names = [p.name for p in report(found)]
    assert names  # what was decompressed before the cut is kept
    assert any("compressed file ends early" in str(p) for p in found.problems)


def test_a_folder_that_is_neither_says_what_was_looked_for(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not clinical data")
    with pytest.raises(InputError, match=r"neither a MIMIC-IV folder nor a FHIR export; looked for hosp/patients"):
        source_format(tmp_path)
    result = CliRunner().invoke(app, ["ingest", str(tmp_path), "--org", "X", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code != 0
    assert "manifest.json or *.ndjson" in str(result.exception) + result.output


def test_synth_format_fhir_then_ingest(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cohort"
    result = runner.invoke(
        app,
        ["synth", "--patients", "10", "--seed", "3", "--workers", "1", "--out", str(out), "--format", "fhir", "--gzip"],
    )
    assert result.exit_code == 0, result.output
    assert (out / "fhir/B/manifest.json").is_file()
    assert (out / "fhir/full/Patient.ndjson.gz").is_file()
    store = tmp_path / "node/chunks.sqlite"
    result = runner.invoke(app, ["ingest", str(out / "fhir/B"), "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "node/population.duckdb").is_file()
    with ChunkStore.open(store) as chunks:
        assert chunks.count(source_kind="note") > 0


def test_fhir_tables_are_chunked_after_mimic_ones() -> None:
    assert FhirReader(FIXTURES / "bundle").extra_tables == tuple(FHIR_TABLES)
