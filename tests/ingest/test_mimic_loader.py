"""The MIMIC-IV loader on broken input: clear errors for missing files and columns, bad rows skipped."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from clinrag.errors import InputError, MissingColumnError, MissingFileError
from clinrag.ingest.mimic import IngestReport, read_admissions, read_notes, read_patients


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_missing_file_names_the_paths_tried(tmp_path: Path) -> None:
    with pytest.raises(MissingFileError) as caught:
        list(read_notes(tmp_path, IngestReport()))
    assert "note/discharge.csv.gz" in str(caught.value)
    assert "note/discharge.csv" in str(caught.value)


def test_missing_required_column_names_file_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "hosp/admissions.csv", "subject_id,admittime\n1,2020-01-01 00:00:00\n")
    with pytest.raises(MissingColumnError) as caught:
        list(read_admissions(tmp_path, IngestReport()))
    assert str(path) in str(caught.value)
    assert "'hadm_id'" in str(caught.value)


def test_empty_file_is_an_input_error(tmp_path: Path) -> None:
    _write(tmp_path, "hosp/patients.csv", "")
    with pytest.raises(InputError, match="empty"):
        list(read_patients(tmp_path, IngestReport()))


def test_malformed_rows_are_reported_with_line_and_field_and_skipped(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "hosp/admissions.csv",
        "subject_id,hadm_id,admittime,dischtime,admission_type\n"
        "1,11,2020-01-01 10:00:00,2020-01-03 10:00:00,URGENT\n"
        "2,abc,2020-01-01 10:00:00,,URGENT\n"
        "3,13,yesterday,,URGENT\n"
        "4,14,2020-02-01 10:00:00\n"
        "5,15,2020-02-01 10:00:00,2020-02-04 09:00:00,ELECTIVE\n",
    )
    report = IngestReport()
    admissions = list(read_admissions(tmp_path, report))
    assert [a.hadm_id for a in admissions] == [11, 15]
    assert report.read["admissions"] == 2
    assert report.skipped_total == 3
    described = [str(p) for p in report.problems]
    assert described[0] == f"{path}:3: hadm_id: not a valid int"
    assert described[1] == f"{path}:4: admittime: not a valid datetime"
    assert described[2].startswith(f"{path}:5: wrong number of fields")


def test_a_row_read_twice_is_skipped_once(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "hosp/admissions.csv",
        "subject_id,hadm_id,admittime,dischtime,admission_type\n"
        "1,11,2020-01-01 10:00:00,,URGENT\n"
        "3,13,yesterday,,URGENT\n",
    )
    report = IngestReport()
    for _ in range(2):  # ingestion reads admissions for dates, then as a table
        assert [a.hadm_id for a in read_admissions(tmp_path, report)] == [11]
    assert report.skipped_total == 1
    assert len(report.problems) == 1


def test_line_numbers_count_multiline_notes(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "note/discharge.csv",
        "note_id,subject_id,hadm_id,note_type,note_seq,charttime,storetime,text\n"
        '1-DS-1,1,11,DS,1,2020-01-03 00:00:00,,"line one\nline two\nline three"\n'
        '1-DS-2,one,12,DS,2,,,"text"\n',
    )
    report = IngestReport()
    notes = list(read_notes(tmp_path, report))
    assert [n.note_id for n in notes] == ["1-DS-1"]
    assert notes[0].text == "line one\nline two\nline three"
    assert str(report.problems[0]) == f"{path}:5: subject_id: not a valid int"


def test_problems_never_carry_note_text(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "note/discharge.csv",
        'note_id,subject_id,hadm_id,text\nX,notanumber,1,"Patient Jane Secret has HIV"\n',
    )
    report = IngestReport()
    list(read_notes(tmp_path, report))
    assert "Secret" not in " ".join(str(p) for p in report.problems)


def test_gzip_and_plain_files_read_the_same(tmp_path: Path, cohort: Path) -> None:
    source = cohort / "hospitals/A"
    plain = list(read_notes(source, IngestReport()))
    shutil.copytree(source, tmp_path / "A")
    csv_path = tmp_path / "A/note/discharge.csv"
    with csv_path.open("rb") as src, gzip.open(csv_path.with_suffix(".csv.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    csv_path.unlink()
    assert list(read_notes(tmp_path / "A", IngestReport())) == plain


def test_real_mimic_files_without_clinrag_columns_load(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "hosp/patients.csv",
        "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n10000032,F,52,2180,2014 - 2016,2180-09-09\n",
    )
    (patient,) = read_patients(tmp_path, IngestReport())
    assert patient.subject_id == 10000032
    assert patient.name is None
    assert patient.dod is not None
