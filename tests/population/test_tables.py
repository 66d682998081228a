"""Materialising a node's population tables: departments as ingestion assigns them, atomic re-runs, bad rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clinrag.population.lexicon import node_vocabulary
from clinrag.population.tables import connect, document_classes, materialise, normalise_drug


def test_departments_match_ingestion_and_reruns_replace(cohort: Path, tmp_path: Path) -> None:
    target = tmp_path / "A" / "population.duckdb"
    first = materialise(cohort / "hospitals" / "A", target)
    again = materialise(cohort / "hospitals" / "A", target)
    assert first.rows == again.rows
    assert first.org == "A"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".population-")]
    with connect(target) as connection:
        depts = {r[0] for r in connection.execute("SELECT DISTINCT dept FROM admissions").fetchall()}
        assert depts <= {"medicine", "surgery", "orthopaedics", "psychiatry"}
        leaves = {c.leaf for c in document_classes(connection)}
        assert "admissions" in leaves
        assert leaves - {"admissions"} == depts
        drugs = [r[0] for r in connection.execute("SELECT DISTINCT drug FROM prescriptions").fetchall()]
        assert all(d == normalise_drug(d) for d in drugs)


def test_services_fall_back_to_the_note_service_line(cohort: Path, tmp_path: Path) -> None:
    source = tmp_path / "C"
    shutil.copytree(cohort / "hospitals" / "C", source)
    (source / "hosp" / "services.csv").unlink()
    target = materialise(source, tmp_path / "node" / "population.duckdb").path
    with connect(target) as connection:
        assert {r[0] for r in connection.execute("SELECT DISTINCT dept FROM admissions").fetchall()} == {"neurology"}


def test_bad_rows_are_reported_and_skipped(cohort: Path, tmp_path: Path) -> None:
    source = tmp_path / "B"
    shutil.copytree(cohort / "hospitals" / "B", source)
    with (source / "hosp" / "diagnoses_icd.csv").open("a") as handle:
        handle.write("notanumber,1,1,I10,10\n")
    built = materialise(source, tmp_path / "node" / "population.duckdb")
    assert built.report.skipped_total == 1
    assert "diagnoses_icd.csv" in str(built.report.problems[0])


def test_vocabulary_is_limited_to_the_allowed_departments(cohort: Path, tmp_path: Path) -> None:
    target = materialise(cohort / "hospitals" / "A", tmp_path / "population.duckdb").path
    everything = node_vocabulary(target)
    admissions_only = node_vocabulary(target, frozenset({"admissions"}))
    assert everything.diagnoses
    assert everything.drugs
    assert everything.insurances
    assert not admissions_only.diagnoses
    assert not admissions_only.drugs
    assert admissions_only.insurances == everything.insurances
    with pytest.raises(Exception, match="population tables"):
        node_vocabulary(tmp_path / "missing" / "population.duckdb")
