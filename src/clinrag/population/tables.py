"""A node's structured data, materialised for counting: ``NODE_DIR/population.duckdb``.

Built from the MIMIC-IV folder the node was ingested from, with ingestion's own readers (bad rows are reported and
skipped the same way) and its own department rules (``SourceConfig.department_of`` over ``hosp/services``, else the
note's ``Service:`` line), so every fact sits in the department its chunk sits in. One DuckDB file rather than
Parquet files: the tables, the document classes and the metadata are replaced together by one atomic rename.

Tables: ``admissions`` (one row per stay: patient, service, department, year, age at admission, sex, admission
type, insurance), ``diagnoses`` and ``procedures`` (ICD code, version, title, sequence; from a FHIR export also the
SNOMED CT, CPT ... codes of a stay's Conditions and Procedures, prefixed by their system, ``SNOMED:195967001``, with
version 0), ``prescriptions`` (drug names lower-cased, trimmed, inner whitespace collapsed; from a FHIR export also
a stay's MedicationStatements and MedicationAdministrations), ``complaints`` (the normalised ``Chief Complaint`` of each
discharge note), ``icd`` (the node's ICD dictionary), ``classes`` and ``meta``. Every fact row carries the
``class_id`` of the documents it comes from (leaf, department, service, table, sensitivity labels), so counting
counts only what the asker's policies let them retrieve.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=10, seed=3, workers=1)
    >>> built = materialise(out / "hospitals" / "A", out / "node-A" / POPULATION_FILE)
    >>> built.org, built.rows["admissions"] > 0
    ('A', True)
"""

from __future__ import annotations

import csv
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import duckdb

from clinrag.errors import InputError
from clinrag.ingest.mimic import IngestReport
from clinrag.ingest.notes import note_service, parse_note
from clinrag.ingest.reader import MimicReader, SourceReader
from clinrag.ingest.sensitivity import Labeller
from clinrag.ingest.source import SourceConfig, load_source_config
from clinrag.ingest.tables import TITLED_TABLES, chunk_columns, row_text

POPULATION_FILE: Final = "population.duckdb"
SCHEMA_VERSION: Final = 1
MAX_COMPLAINT_CHARS: Final = 120

_SCHEMA: Final[dict[str, str]] = {
    "admissions": "hadm_id BIGINT, subject_id BIGINT, service VARCHAR, dept VARCHAR, year INTEGER, age INTEGER, "
    "sex VARCHAR, admission_type VARCHAR, insurance VARCHAR, clin_class INTEGER, adm_class INTEGER",
    "diagnoses": "hadm_id BIGINT, subject_id BIGINT, seq_num INTEGER, code VARCHAR, version INTEGER, "
    "title VARCHAR, class_id INTEGER",
    "procedures": "hadm_id BIGINT, subject_id BIGINT, seq_num INTEGER, code VARCHAR, version INTEGER, "
    "title VARCHAR, class_id INTEGER",
    "prescriptions": "hadm_id BIGINT, subject_id BIGINT, drug VARCHAR, class_id INTEGER",
    "complaints": "hadm_id BIGINT, subject_id BIGINT, complaint VARCHAR, class_id INTEGER",
    "icd": "kind VARCHAR, code VARCHAR, version INTEGER, title VARCHAR",
    "classes": "class_id INTEGER, leaf VARCHAR, dept VARCHAR, service VARCHAR, source_kind VARCHAR, "
    "source_table VARCHAR, sensitivity VARCHAR",
    "meta": "key VARCHAR, value VARCHAR",
}
_FACT_TABLES: Final = {"diagnoses_icd": "diagnoses", "procedures_icd": "procedures"}
_CODED_FHIR_TABLES: Final = {"conditions": "diagnoses", "procedures": "procedures"}
"""FHIR-only tables (`clinrag.ingest.fhir.schema`) whose coded rows join ``diagnoses`` and ``procedures``."""
_ICD_SYSTEMS: Final = {"ICD-10-CM": 10, "ICD-10": 10, "ICD-10-PCS": 10, "ICD-9-CM": 9}
OTHER_CODE_VERSION: Final = 0
"""The ``version`` of a code that is not ICD (SNOMED CT, CPT, ...): its ``code`` carries the system's prefix."""


class PopulationTablesMissingError(InputError):
    """A node folder has no population tables (ingested before nodes kept them, or never)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path.parent}: no population tables ({path.name}); build them with "
            f"'clinrag ingest SOURCE --store {path.parent / 'chunks.sqlite'}' (or 'clinrag demo' for the demo nodes)"
        )


@dataclass(frozen=True)
class DocumentClass:
    """The access-relevant attributes shared by a group of documents (Cedar ``Document`` attributes minus the
    patient): counting asks the node's policies once per class, not once per row."""

    class_id: int
    org: str
    leaf: str
    dept: str
    service: str
    source_kind: str
    table: str
    sensitivity: tuple[str, ...]


@dataclass
class Materialised:
    """What `materialise` wrote: the organisation, rows per table, and the read report."""

    org: str
    path: Path
    rows: dict[str, int] = field(default_factory=dict)
    report: IngestReport = field(default_factory=IngestReport)


def normalise_drug(name: str) -> str:
    """A drug name as counted: lower case, trimmed, inner whitespace collapsed.

    Example:
        >>> normalise_drug("  Sodium Chloride 0.9%   Flush ")
        'sodium chloride 0.9% flush'
    """
    return " ".join(name.split()).lower()


def fact_code(code: str, system: str | None) -> tuple[str, int]:
    """The ``(code, version)`` a FHIR row's code is counted under: an ICD code as MIMIC-IV writes it (no dot,
    upper case) with its ICD version; any other code prefixed by its system, version `OTHER_CODE_VERSION`.

    Example:
        >>> fact_code("I48.91", "ICD-10-CM"), fact_code("195967001", "SNOMED CT"), fact_code("3E0", None)
        (('I4891', 10), ('SNOMED:195967001', 0), ('CODE:3E0', 0))
    """
    version = _ICD_SYSTEMS.get(system or "")
    if version is not None:
        return code.replace(".", "").strip().upper(), version
    prefix = (system or "code").split()[0].upper()
    return f"{prefix}:{code.strip()}", OTHER_CODE_VERSION


def normalise_complaint(text: str) -> str:
    """A chief complaint as counted: one line, lower case, without trailing punctuation, at most 120 characters.

    Example:
        >>> normalise_complaint("Chest pain.\\n")
        'chest pain'
    """
    return re.sub(r"[\s.;:,]+$", "", " ".join(text.split()).lower())[:MAX_COMPLAINT_CHARS]


class _Classes:
    """Interns document classes, giving each distinct one an id."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str, str, str, str, str], int] = {}

    def of(self, leaf: str, dept: str, service: str | None, kind: str, table: str, labels: Iterable[str]) -> int:
        key = (leaf, dept, service or "", kind, table, ",".join(sorted(labels)))
        return self.ids.setdefault(key, len(self.ids))

    def rows(self) -> Iterator[tuple[object, ...]]:
        for key, class_id in self.ids.items():
            yield (class_id, *key)


class _Builder:
    """Reads one source (a MIMIC folder, or a FHIR export read as MIMIC rows) into rows for the population tables."""

    def __init__(self, reader: SourceReader, config: SourceConfig) -> None:
        self.reader, self.root, self.config = reader, reader.root, config
        self.report = IngestReport()
        self.labeller = Labeller.default()
        self.classes = _Classes()
        self.services: dict[int, str | None] = {}
        self.tables: dict[str, list[tuple[object, ...]]] = {name: [] for name in _SCHEMA}

    def service_of(self, hadm_id: int | None) -> str | None:
        return self.config.service_code(self.services.get(hadm_id)) if hadm_id is not None else None

    def row_class(self, service: str | None, table: str, text: str) -> int:
        dept = self.config.department_of(service)
        return self.classes.of(dept, dept, service, "row", table, self.labeller.label_text(text).categories)

    def read_services(self) -> list[tuple[int, int, str, datetime | None]]:
        """Services as ingestion derives them: ``hosp/services``, else each note's ``Service:`` line (last note
        wins); also each note's chief complaint."""
        self.services = dict(self.reader.services(self.report))
        from_notes: dict[int, str | None] = {}
        complaints: list[tuple[int, int, str, datetime | None]] = []
        columns = ("note_id", "subject_id", "hadm_id", "charttime", "text")
        for note in self.reader.rows("discharge", columns, self.report, required_file=False):
            hadm, text = note["hadm_id"], str(note["text"])
            if hadm is None:
                continue
            if hadm not in self.services:
                from_notes[hadm] = self.config.service_code(note_service(text))
            for section in parse_note(text).sections:
                if section.title == "Chief Complaint" and normalise_complaint(section.text):
                    complaints.append((hadm, note["subject_id"], section.text, None))
        self.services.update(from_notes)
        return complaints

    def complaints(self, found: list[tuple[int, int, str, datetime | None]]) -> None:
        for hadm, subject, text, _ in found:
            service = self.service_of(hadm)
            dept = self.config.department_of(service)
            labels = self.labeller.label_text(f"Chief Complaint: {text}", "Chief Complaint").categories
            class_id = self.classes.of(dept, dept, service, "note", "discharge", labels)
            self.tables["complaints"].append((hadm, subject, normalise_complaint(text), class_id))

    def admissions(self) -> None:
        patients = {p.subject_id: p for p in self.reader.patients(self.report)}
        leaf = self.config.admissions_department
        for row in self.reader.rows("admissions", chunk_columns("admissions"), self.report):
            hadm, subject, admitted = row["hadm_id"], row["subject_id"], row["admittime"]
            service = self.service_of(hadm)
            dept = self.config.department_of(service)
            patient = patients.get(subject)
            age = patient.anchor_age + admitted.year - patient.anchor_year if patient else None
            labels = self.labeller.label_text(row_text(row)).categories
            self.tables["admissions"].append(
                (
                    hadm,
                    subject,
                    service or "",
                    dept,
                    admitted.year,
                    age,
                    (patient.gender or "").upper() if patient else "",
                    row.get("admission_type") or "",
                    row.get("insurance") or "",
                    self.classes.of(dept, dept, service, "note", "discharge", ()),
                    self.classes.of(leaf, leaf, service, "row", "admissions", labels),
                )
            )

    def coded(self, table: str) -> None:
        titles = self.reader.titles(TITLED_TABLES[table], self.report)
        kind = "diagnosis" if table == "diagnoses_icd" else "procedure"
        self.tables["icd"].extend((kind, code, version, title) for (code, version), title in titles.items())
        for row in self.reader.rows(table, chunk_columns(table), self.report):
            title = titles.get((str(row["icd_code"]), int(row["icd_version"])))
            row["long_title"] = title
            service = self.service_of(row["hadm_id"])
            self.tables[_FACT_TABLES[table]].append(
                (
                    row["hadm_id"],
                    row["subject_id"],
                    row["seq_num"],
                    str(row["icd_code"]).strip().upper(),
                    row["icd_version"],
                    title or "",
                    self.row_class(service, table, row_text(row)),
                )
            )

    def prescriptions(self) -> None:
        for row in self.reader.rows("prescriptions", chunk_columns("prescriptions"), self.report):
            service = self.service_of(row["hadm_id"])
            class_id = self.row_class(service, "prescriptions", row_text(row))
            self.tables["prescriptions"].append(
                (row["hadm_id"], row["subject_id"], normalise_drug(str(row["drug"])), class_id)
            )

    def fhir_coded(self, table: str) -> None:
        """Rows of a FHIR-only table (``conditions``, ``procedures``: SNOMED CT, CPT, ... or ICD without what a MIMIC
        row needs) of a stay, into ``diagnoses`` / ``procedures`` with `fact_code`'s code; one an ICD row of the stay
        already has is not added again."""
        target = _CODED_FHIR_TABLES[table]
        seen: set[tuple[object, object, object]] = set()
        numbers: dict[object, int] = {}  # the last seq_num of each stay
        for stored in self.tables[target]:
            seen.add((stored[0], stored[3], stored[4]))
            numbers[stored[0]] = max(numbers.get(stored[0], 0), int(str(stored[2])))
        for row in self.reader.rows(table, chunk_columns(table), self.report):
            hadm, code = row.get("hadm_id"), row.get("code")
            if hadm is None or not code:  # counting and similarity are by stay: a row of no stay is not counted
                continue
            code, version = fact_code(str(code), row.get("code_system"))
            if (hadm, code, version) in seen:
                continue
            seen.add((hadm, code, version))
            numbers[hadm] = numbers.get(hadm, 0) + 1
            service = self.service_of(hadm)
            title = str(row.get("name") or "")
            class_id = self.row_class(service, table, row_text(row))
            self.tables[target].append((hadm, row["subject_id"], numbers[hadm], code, version, title, class_id))
            if version != OTHER_CODE_VERSION and title:  # an ICD code the question reader may then name
                kind = "diagnosis" if target == "diagnoses" else "procedure"
                self.tables["icd"].append((kind, code, version, title))

    def fhir_medications(self) -> None:
        """``medications`` rows of a stay (MedicationStatement, MedicationAdministration; RxNorm or any code), into
        ``prescriptions`` by drug name; one the stay's prescriptions already name is not added again."""
        seen = {(stored[0], stored[2]) for stored in self.tables["prescriptions"]}
        for row in self.reader.rows("medications", chunk_columns("medications"), self.report):
            hadm, drug = row.get("hadm_id"), normalise_drug(str(row.get("drug") or ""))
            if hadm is None or not drug or (hadm, drug) in seen:
                continue
            seen.add((hadm, drug))
            class_id = self.row_class(self.service_of(hadm), "medications", row_text(row))
            self.tables["prescriptions"].append((hadm, row["subject_id"], drug, class_id))

    def build(self) -> dict[str, list[tuple[object, ...]]]:
        complaints = self.read_services()
        self.admissions()
        self.complaints(complaints)
        for table in _FACT_TABLES:
            self.coded(table)
        self.prescriptions()
        extra = self.reader.extra_tables
        for table in _CODED_FHIR_TABLES:
            if table in extra:
                self.fhir_coded(table)
        if "medications" in extra:
            self.fhir_medications()
        self.tables["classes"] = list(self.classes.rows())
        self.tables["meta"] = [
            ("org", self.config.org),
            ("source", str(self.root)),
            ("schema_version", str(SCHEMA_VERSION)),
            ("admissions_department", self.config.admissions_department),
            ("built", datetime.now().isoformat(timespec="seconds")),
        ]
        return self.tables


def _load(connection: duckdb.DuckDBPyConnection, folder: Path, table: str, rows: list[tuple[object, ...]]) -> None:
    """Bulk-load rows through a CSV file (DuckDB's CSV reader is far faster than row-by-row inserts)."""
    path = folder / f"{table}.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    columns = ", ".join(f"'{name}': '{kind}'" for name, kind in _columns(table))
    connection.execute(f"CREATE TABLE {table} ({_SCHEMA[table]})")
    if rows:  # the SQL is built from this module's own schema constants only; the path is bound
        connection.execute(
            f"INSERT INTO {table} SELECT * FROM read_csv(?, header = false, columns = {{{columns}}}, nullstr = '')",
            [str(path)],
        )


def _columns(table: str) -> list[tuple[str, str]]:
    return [(name, kind) for name, kind in (part.strip().split(" ", 1) for part in _SCHEMA[table].split(","))]


def materialise(source: Path, target: Path, org: str | None = None, reader: SourceReader | None = None) -> Materialised:
    """Build ``target`` (``NODE_DIR/population.duckdb``) from the MIMIC folder ``source`` (or from what ``reader``
    reads there: a FHIR export); an existing file is replaced atomically, so re-running is safe and readers never
    see a half-built file."""
    config = load_source_config(source, org)
    builder = _Builder(reader or MimicReader(source), config)
    tables = builder.build()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".population-") as scratch:
        folder = Path(scratch)
        building = folder / POPULATION_FILE
        with duckdb.connect(str(building)) as connection:
            for table, rows in tables.items():
                _load(connection, folder, table, rows)
            connection.execute("CHECKPOINT")
        os.replace(building, target)
    counted = ("admissions", "diagnoses", "procedures", "prescriptions", "complaints")
    return Materialised(
        org=config.org, path=target, rows={name: len(tables[name]) for name in counted}, report=builder.report
    )


def population_path(node_dir: Path) -> Path:
    """The population tables of a node folder.

    Example:
        >>> population_path(Path("data/demo/nodes/A")).name
        'population.duckdb'
    """
    return node_dir / POPULATION_FILE


_OPEN: dict[Path, tuple[tuple[int, int], duckdb.DuckDBPyConnection]] = {}
_OPEN_LOCK = threading.Lock()


def connect(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only cursor on population tables; `PopulationTablesMissingError` (naming the folder and the command
    that builds them) when the file is not there. The file stays open between queries (opening it costs more than
    most counts) until it is rebuilt; each caller gets its own cursor, so threads do not share one."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise PopulationTablesMissingError(path) from None
    version = (stat.st_ino, stat.st_mtime_ns)
    with _OPEN_LOCK:
        cached = _OPEN.get(path)
        if cached is None or cached[0] != version:
            if cached is not None:
                cached[1].close()
            cached = (version, duckdb.connect(str(path), read_only=True))
            _OPEN[path] = cached
        return cached[1].cursor()


def meta(connection: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The ``meta`` table (``org``, ``source``, ``schema_version``, ``admissions_department``, ``built``)."""
    return {str(key): str(value) for key, value in connection.execute("SELECT key, value FROM meta").fetchall()}


def document_classes(connection: duckdb.DuckDBPyConnection) -> list[DocumentClass]:
    """Every document class of the node, for an access decision per class."""
    org = meta(connection)["org"]
    rows: list[Any] = connection.execute("SELECT * FROM classes ORDER BY class_id").fetchall()
    return [
        DocumentClass(
            class_id=int(r[0]),
            org=org,
            leaf=r[1],
            dept=r[2],
            service=r[3] or "",
            source_kind=r[4],
            table=r[5],
            sensitivity=tuple(s for s in (r[6] or "").split(",") if s),
        )
        for r in rows
    ]


MaySee = Callable[[DocumentClass], bool]
"""Whether the asker may retrieve documents of a class (the node's policies asked once per class)."""


def visible_classes(
    classes: Sequence[DocumentClass], allowed_depts: frozenset[str] | None, may_see: MaySee | None
) -> list[int]:
    """The class ids the asker may retrieve, for counting and similarity alike: ``allowed_depts`` (leaves; None:
    all) and, when given, ``may_see`` per class.

    Example:
        >>> c = DocumentClass(0, "A", "psych", "psych", "PSYCH", "row", "diagnoses_icd", ())
        >>> visible_classes([c], frozenset({"medicine"}), None), visible_classes([c], None, None)
        ([], [0])
    """
    return [
        c.class_id
        for c in classes
        if (allowed_depts is None or c.leaf in allowed_depts) and (may_see is None or may_see(c))
    ]
