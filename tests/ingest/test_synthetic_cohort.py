"""The synthetic cohort: determinism, MIMIC-IV schema, clinical coherence, gold facts and the hospital split."""

from __future__ import annotations

import csv
import filecmp
import hashlib
import itertools
import json
from collections import defaultdict
from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest

from clinrag.ingest.mimic_schema import DATE_FORMAT, DATETIME_FORMAT, TABLES, Kind
from clinrag.ingest.notes import parse_note
from clinrag.ingest.source import NOTE_SERVICES
from clinrag.ingest.synthetic.cohort import GENERATED_TABLES, generate_cohort
from clinrag.ingest.synthetic.hospitals import CASE_STUDY
from clinrag.ingest.synthetic.people import _names
from clinrag.ingest.synthetic.storylines import STORYLINES

FOLDERS = ("full", "hospitals/A", "hospitals/B", "hospitals/C")


def _rows(folder: Path, table: str) -> list[dict[str, str]]:
    with (folder / TABLES[table].path).open(newline="") as handle:
        return list(csv.DictReader(handle))


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_same_seed_gives_identical_files_whatever_the_workers(tmp_path: Path) -> None:
    generate_cohort(tmp_path / "one", patients=150, seed=11, workers=1)
    generate_cohort(tmp_path / "two", patients=150, seed=11, workers=2)
    first, second = _tree_digest(tmp_path / "one"), _tree_digest(tmp_path / "two")
    assert first == second
    assert len(first) > 30


def test_another_seed_gives_another_cohort(tmp_path: Path, cohort: Path) -> None:
    generate_cohort(tmp_path / "other", patients=80, seed=6, workers=1)
    assert not filecmp.cmp(
        tmp_path / "other/full/note/discharge.csv", cohort / "full/note/discharge.csv", shallow=False
    )


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("table", [*GENERATED_TABLES, "d_icd_diagnoses", "d_icd_procedures"])
def test_columns_and_values_follow_mimic_iv(cohort: Path, folder: str, table: str) -> None:
    schema = TABLES[table]
    path = cohort / folder / schema.path
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        assert tuple(header) == tuple(column.name for column in schema.all_columns)
        for record in reader:
            assert len(record) == len(header)
            for column, value in zip(schema.all_columns, record, strict=True):
                if value == "":
                    assert column.nullable or column.kind in (Kind.STR, Kind.TEXT), f"{table}.{column.name} empty"
                    continue
                if column.kind is Kind.INT:
                    int(value)
                elif column.kind is Kind.FLOAT:
                    float(value)
                elif column.kind is Kind.DATETIME:
                    datetime.strptime(value, DATETIME_FORMAT)
                elif column.kind is Kind.DATE:
                    datetime.strptime(value, DATE_FORMAT)


def test_pandas_reads_mimic_dtypes(cohort: Path) -> None:
    expected = {
        "patients": {"subject_id": "int64", "anchor_age": "int64", "anchor_year": "int64"},
        "admissions": {"subject_id": "int64", "hadm_id": "int64", "hospital_expire_flag": "int64"},
        "diagnoses_icd": {"subject_id": "int64", "hadm_id": "int64", "seq_num": "int64", "icd_version": "int64"},
        "procedures_icd": {"hadm_id": "int64", "seq_num": "int64", "icd_version": "int64"},
        "prescriptions": {"hadm_id": "int64", "pharmacy_id": "int64", "doses_per_24_hrs": "float64"},
        "discharge": {"subject_id": "int64", "hadm_id": "int64", "note_seq": "int64"},
    }
    for table, dtypes in expected.items():
        frame = pd.read_csv(cohort / "full" / TABLES[table].path)
        for column, dtype in dtypes.items():
            assert str(frame[column].dtype) == dtype, (table, column)
    admissions = pd.read_csv(cohort / "full/hosp/admissions.csv", parse_dates=["admittime", "dischtime"])
    assert (admissions["dischtime"] > admissions["admittime"]).all()


def test_sizes_and_identifiers(cohort: Path) -> None:
    patients = _rows(cohort / "full", "patients")
    admissions = _rows(cohort / "full", "admissions")
    notes = _rows(cohort / "full", "discharge")
    assert len(patients) == 80
    assert len({p["subject_id"] for p in patients}) == 80
    assert len({a["hadm_id"] for a in admissions}) == len(admissions)
    assert {n["hadm_id"] for n in notes} == {a["hadm_id"] for a in admissions}
    for note in notes:
        assert note["note_id"] == f"{note['subject_id']}-DS-{note['note_seq']}"


def test_names_are_gender_consistent_full_names(cohort: Path) -> None:
    names = _names()
    for patient in _rows(cohort / "full", "patients"):
        first, last = patient["name"].split(" ")
        assert first in (names["female"] if patient["gender"] == "F" else names["male"])
        assert last in names["surname"]


def test_longitudinal_patients_progress(cohort: Path, gold_facts: list[dict[str, object]]) -> None:
    admissions = _rows(cohort / "full", "admissions")
    per_patient: dict[str, list[dict[str, str]]] = defaultdict(list)
    for admission in admissions:
        per_patient[admission["subject_id"]].append(admission)
    assert max(len(stays) for stays in per_patient.values()) >= 3
    for stays in per_patient.values():
        ordered = sorted(stays, key=lambda a: a["admittime"])
        for earlier, later in itertools.pairwise(ordered):
            assert later["admittime"] > earlier["dischtime"]
    history = [f for f in gold_facts if f["history"] and f["section"] == "Past Medical History"]
    assert history, "later notes mention earlier problems in the past medical history"


def test_codes_prescriptions_and_notes_agree(cohort: Path, gold_facts: list[dict[str, object]]) -> None:
    full = cohort / "full"
    diagnoses: dict[str, set[str]] = defaultdict(set)
    for row in _rows(full, "diagnoses_icd"):
        diagnoses[row["hadm_id"]].add(row["icd_code"])
    procedures: dict[str, set[str]] = defaultdict(set)
    for row in _rows(full, "procedures_icd"):
        procedures[row["hadm_id"]].add(row["icd_code"])
    drugs: dict[str, set[str]] = defaultdict(set)
    for row in _rows(full, "prescriptions"):
        drugs[row["hadm_id"]].add(row["drug"])
    known_dx = {row["icd_code"] for row in _rows(full, "d_icd_diagnoses")}
    known_px = {row["icd_code"] for row in _rows(full, "d_icd_procedures")}
    assert set().union(*diagnoses.values()) <= known_dx
    assert set().union(*procedures.values()) <= known_px
    checked = 0
    for fact in gold_facts:
        hadm = str(fact["hadm_id"])
        if fact["kind"] in ("diagnosis", "complication") and not fact["history"]:
            assert fact["value"] in diagnoses[hadm], fact
            checked += 1
        elif fact["kind"] == "procedure":
            assert fact["value"] in procedures[hadm], fact
            checked += 1
        elif fact["kind"] == "medication" and fact["section"] == "Discharge Medications":
            assert fact["value"] in drugs[hadm], fact
            checked += 1
    assert checked > 500


def test_note_headers_agree_with_tables(cohort: Path) -> None:
    full = cohort / "full"
    gender = {p["subject_id"]: p["gender"] for p in _rows(full, "patients")}
    service = {s["hadm_id"]: s["curr_service"] for s in _rows(full, "services")}
    for note in _rows(full, "discharge"):
        parsed = parse_note(note["text"])
        assert f"Sex:   {gender[note['subject_id']]}" in note["text"]
        assert parsed.service is not None
        coded = service[note["hadm_id"]]
        # Cardiology stays are written up by a "MEDICINE" service in many real notes.
        assert NOTE_SERVICES.get(parsed.service, parsed.service) == coded or (
            coded == "CMED" and parsed.service == "MEDICINE"
        )


def test_gold_facts_point_at_text_that_says_them(cohort: Path, gold_facts: list[dict[str, object]]) -> None:
    notes = {n["note_id"]: n["text"] for n in _rows(cohort / "full", "discharge")}
    kinds = {str(f["kind"]) for f in gold_facts}
    assert {"diagnosis", "medication", "procedure", "complication", "finding", "social", "allergy"} <= kinds
    for fact in gold_facts:
        text = notes[str(fact["note_id"])]
        start, end = int(str(fact["start"])), int(str(fact["end"]))
        stated = " ".join(text[start:end].split())
        assert stated, fact
        if fact["kind"] in ("medication", "finding", "social", "allergy"):
            assert stated == " ".join(str(fact["label"]).split())
        heading = text.rfind(f"\n{fact['section']}:", 0, start)
        assert heading != -1, fact
        later_headings = [t for t in _section_titles() if text.find(f"\n{t}:", heading + 1, start) != -1]
        assert not later_headings, (fact, later_headings)


def _section_titles() -> tuple[str, ...]:
    return (
        "Chief Complaint",
        "History of Present Illness",
        "Past Medical History",
        "Social History",
        "Family History",
        "Physical Exam",
        "Pertinent Results",
        "Brief Hospital Course",
        "Medications on Admission",
        "Discharge Medications",
        "Discharge Diagnosis",
        "Discharge Instructions",
    )


def test_every_note_states_its_diagnosis_and_medications(cohort: Path, gold_facts: list[dict[str, object]]) -> None:
    by_note: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for fact in gold_facts:
        by_note[str(fact["note_id"])].add((str(fact["kind"]), str(fact["section"])))
    notes = _rows(cohort / "full", "discharge")
    for note in notes:
        facts = by_note[note["note_id"]]
        assert ("diagnosis", "Discharge Diagnosis") in facts
        assert ("diagnosis", "Brief Hospital Course") in facts
        assert ("medication", "Discharge Medications") in facts


def test_notes_of_one_storyline_vary(cohort: Path, gold_facts: list[dict[str, object]]) -> None:
    storyline_of = {str(f["note_id"]): str(f["storyline"]) for f in gold_facts}
    notes = _rows(cohort / "full", "discharge")
    assert len({note["text"] for note in notes}) == len(notes), "no two notes are copies"
    hpis: dict[str, list[str]] = defaultdict(list)
    for note in notes:
        hpi = next(s for s in parse_note(note["text"]).sections if s.title == "History of Present Illness")
        hpis[storyline_of[note["note_id"]]].append(hpi.text)
    frequent = {key: texts for key, texts in hpis.items() if len(texts) >= 3}
    assert frequent
    for key, texts in frequent.items():
        assert len(set(texts)) >= 2, f"every {key} note has the same history of present illness"


def test_hospital_split_follows_the_case_study(cohort: Path) -> None:
    full_admissions = {a["hadm_id"] for a in _rows(cohort / "full", "admissions")}
    seen: dict[str, str] = {}
    patients_at: dict[str, set[str]] = {}
    for org, hospital in CASE_STUDY.items():
        folder = cohort / "hospitals" / org
        manifest = (folder / "clinrag-source.toml").read_text()
        assert f'org = "{org}"' in manifest
        services = {s["hadm_id"]: s["curr_service"] for s in _rows(folder, "services")}
        assert set(services.values()) <= set(hospital.departments)
        for admission in _rows(folder, "admissions"):
            assert admission["hadm_id"] not in seen, "an admission belongs to one hospital"
            seen[admission["hadm_id"]] = org
        patients_at[org] = {p["subject_id"] for p in _rows(folder, "patients")}
        note_subjects = {n["subject_id"] for n in _rows(folder, "discharge")}
        assert note_subjects <= patients_at[org]
    assert set(seen) == full_admissions
    assert patients_at["C"], "the cohort has neurology patients"
    assert patients_at["C"] <= patients_at["A"] | patients_at["B"]


def test_storylines_cover_the_specialties() -> None:
    services = {s.service for s in STORYLINES}
    assert {"MED", "CMED", "CSURG", "SURG", "ORTHO", "PSYCH", "NMED", "NSURG", "OBS", "GU"} <= services
    assert len(STORYLINES) >= 30


def test_manifest_counts_what_was_written(cohort: Path) -> None:
    manifest = json.loads((cohort / "cohort.json").read_text())
    assert manifest["seed"] == 5
    assert manifest["counts"]["full"]["admissions"] == len(_rows(cohort / "full", "admissions"))
    assert manifest["facts"] == sum(1 for _ in (cohort / "gold_facts.jsonl").open())


def test_dates_fall_in_the_requested_years(cohort: Path) -> None:
    for admission in _rows(cohort / "full", "admissions"):
        admitted = datetime.strptime(admission["admittime"], DATETIME_FORMAT).date()
        assert date(2012, 1, 1) <= admitted
