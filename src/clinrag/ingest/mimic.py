"""Streaming reader of MIMIC-IV ``hosp/`` and ``note/`` tables (CSV or CSV.GZ), with per-row error reporting.

Files are read row by row (the real ``note/discharge.csv.gz`` is ~1.2 GB), keeping only the columns asked for.
A missing file or required column stops with an error naming it; a malformed row is reported with its file,
line and field, skipped, and the rest is read.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp()); (root / "hosp").mkdir()
    >>> _ = (root / "hosp" / "patients.csv").write_text("subject_id,gender,anchor_age\\n1,F,70\\nx,M,50\\n")
    >>> report = IngestReport()
    >>> [p.subject_id for p in read_patients(root, report)], report.skipped_total
    ([1], 1)
"""

from __future__ import annotations

import csv
import gzip
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any

from clinrag.errors import InputError, MissingColumnError, MissingFileError
from clinrag.ingest.mimic_schema import TABLES, Kind, Table
from clinrag.types import Admission, Note, Patient

csv.field_size_limit(2**31 - 1)  # discharge notes exceed csv's default 128 KiB field limit
MAX_PROBLEMS_KEPT = 200


@dataclass(frozen=True)
class Problem:
    """One skipped row: where it is and why (never its content)."""

    file: str
    line: int
    field: str | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.reason}" if self.field else f"{where}: {self.reason}"


@dataclass
class IngestReport:
    """Counts of what was read and skipped, and the first problems in detail."""

    read: Counter[str] = field(default_factory=Counter)
    skipped: Counter[tuple[str, str]] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    _lines: set[tuple[str, int]] = field(default_factory=set, repr=False)

    @property
    def skipped_total(self) -> int:
        """Rows skipped in all tables."""
        return sum(self.skipped.values())

    def skip(self, table: str, problem: Problem) -> None:
        """Record a skipped row, once however often its file is read (ingestion reads admissions twice)."""
        if (problem.file, problem.line) in self._lines:
            return
        self._lines.add((problem.file, problem.line))
        self.skipped[table, problem.reason.split(" (")[0]] += 1
        if len(self.problems) < MAX_PROBLEMS_KEPT:
            self.problems.append(problem)


class FieldError(ValueError):
    """A value that does not fit its column's kind."""

    def __init__(self, column: str, reason: str) -> None:
        self.column = column
        super().__init__(reason)


def table_path(root: Path, table: Table) -> Path | None:
    """The file of ``table`` under a MIMIC root (``hosp/x.csv.gz``, ``hosp/x.csv``, or flat), if any."""
    for folder in (root / table.module, root):
        for suffix in (".csv.gz", ".csv"):
            candidate = folder / f"{table.name}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def require_path(root: Path, table: Table) -> Path:
    """Like `table_path`, but a missing file is a `MissingFileError` naming the paths tried."""
    path = table_path(root, table)
    if path is None:
        tried = [str(root / table.module / f"{table.name}{s}") for s in (".csv.gz", ".csv")]
        raise MissingFileError(table.name, tried)
    return path


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return path.open(encoding="utf-8", errors="replace", newline="")


def read_rows(
    path: Path, table: Table, columns: Sequence[str], report: IngestReport
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line, {column: raw value}) for the wanted ``columns`` that the file has.

    Required columns of ``table`` that the header lacks raise `MissingColumnError`; rows whose field count is
    wrong are reported and skipped.
    """
    with _open(path) as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError(f"{path}: file is empty (no header row)") from None
        except csv.Error as exc:
            raise InputError(f"{path}:1: unreadable header ({exc})") from None
        positions = {name.strip(): index for index, name in enumerate(header)}
        for required in table.required:
            if required not in positions:
                raise MissingColumnError(str(path), required)
        wanted = [(name, positions[name]) for name in columns if name in positions]
        width = len(header)
        last_line = reader.line_num
        while True:
            try:
                record = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                report.skip(table.name, Problem(str(path), last_line + 1, None, f"malformed CSV ({exc})"))
                last_line = reader.line_num
                continue
            line, last_line = last_line + 1, reader.line_num
            if not record:
                continue
            if len(record) != width:
                report.skip(
                    table.name,
                    Problem(str(path), line, None, f"wrong number of fields (expected {width}, found {len(record)})"),
                )
                continue
            report.read[table.name] += 1
            yield line, {name: record[index] for name, index in wanted}


def _convert(kind: Kind, nullable: bool, column: str, raw: str) -> Any:
    value = raw.strip()
    if not value:
        if nullable or kind in (Kind.STR, Kind.TEXT):
            return None if nullable else ""
        raise FieldError(column, "empty value")
    try:
        if kind is Kind.INT:
            return int(float(value)) if "." in value else int(value)
        if kind is Kind.FLOAT:
            return float(value)
        if kind is Kind.DATETIME:
            return datetime.fromisoformat(value)
        if kind is Kind.DATE:
            return date.fromisoformat(value[:10])
    except ValueError:
        raise FieldError(column, f"not a valid {kind.value}") from None
    return raw if kind is Kind.TEXT else value


def read_typed(
    root: Path, name: str, columns: Sequence[str], report: IngestReport, required_file: bool = True
) -> Iterator[dict[str, Any]]:
    """Rows of table ``name`` with values converted to their kinds; bad values are reported and skipped."""
    table = TABLES[name]
    path = require_path(root, table) if required_file else table_path(root, table)
    if path is None:
        return
    kinds = {column: table.column(column) for column in columns}
    for line, raw in read_rows(path, table, columns, report):
        try:
            yield {
                column: _convert(kinds[column].kind, kinds[column].nullable, column, value)
                for column, value in raw.items()
            }
        except FieldError as exc:
            report.read[table.name] -= 1
            report.skip(table.name, Problem(str(path), line, exc.column, str(exc)))


def read_patients(root: Path, report: IngestReport) -> Iterator[Patient]:
    """Patients (with the synthetic ``name`` column when present)."""
    columns = ("subject_id", "gender", "anchor_age", "anchor_year", "anchor_year_group", "dod", "name")
    for row in read_typed(root, "patients", columns, report):
        yield Patient.model_construct(
            subject_id=row["subject_id"],
            gender=row.get("gender") or "",
            anchor_age=row.get("anchor_age") or 0,
            anchor_year=row.get("anchor_year") or 0,
            anchor_year_group=row.get("anchor_year_group") or "",
            dod=row.get("dod"),
            name=row.get("name") or None,
        )


def read_admissions(root: Path, report: IngestReport) -> Iterator[Admission]:
    """Admissions (every column clinrag keeps)."""
    columns = tuple(Admission.model_fields)
    for row in read_typed(root, "admissions", columns, report):
        yield Admission.model_construct(**{k: v for k, v in row.items() if v is not None})


def read_notes(root: Path, report: IngestReport) -> Iterator[Note]:
    """Discharge notes from ``note/discharge.csv[.gz]``."""
    columns = ("note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text")
    for row in read_typed(root, "discharge", columns, report):
        yield Note.model_construct(**{k: v for k, v in row.items() if v is not None})


def read_services(root: Path, report: IngestReport) -> dict[int, str]:
    """The last service of each admission from ``hosp/services`` (empty when the file is absent)."""
    latest: dict[int, tuple[datetime, str]] = {}
    columns = ("hadm_id", "transfertime", "curr_service")
    for row in read_typed(root, "services", columns, report, required_file=False):
        hadm, when, service = row["hadm_id"], row["transfertime"], row["curr_service"]
        assert isinstance(hadm, int)
        assert isinstance(when, datetime)
        assert isinstance(service, str)
        if hadm not in latest or latest[hadm][0] <= when:
            latest[hadm] = (when, service)
    return {hadm: service for hadm, (_, service) in latest.items()}


def read_titles(root: Path, name: str, report: IngestReport) -> dict[tuple[str, int], str]:
    """ICD code titles from ``d_icd_diagnoses`` or ``d_icd_procedures`` (empty when the file is absent)."""
    titles: dict[tuple[str, int], str] = {}
    for row in read_typed(root, name, ("icd_code", "icd_version", "long_title"), report, required_file=False):
        titles[str(row["icd_code"]), int(str(row["icd_version"]))] = str(row["long_title"])
    return titles
