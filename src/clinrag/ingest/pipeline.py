"""Ingestion of one organisation's MIMIC-IV folder into its chunk store.

Order: the patient registry, admissions (for dates), services, then discharge notes (scrub, section, chunk)
and the structured tables (one chunk per row). Each scope is swept at the end of its pass, so notes or rows that
vanished from the source are removed.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> from clinrag.settings import IngestSettings
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=10, seed=3, workers=1)
    >>> with ChunkStore.open(out / "chunks.sqlite") as store:
    ...     summary = ingest_mimic(out / "hospitals" / "A", store, IngestSettings())
    >>> summary.org, summary.outcomes["note"]["new"] > 0
    ('A', True)
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from clinrag.ingest.chunking import pack_text
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.mimic import IngestReport
from clinrag.ingest.notes import note_service, parse_note
from clinrag.ingest.reader import MimicReader, SourceReader
from clinrag.ingest.source import SourceConfig, load_source_config
from clinrag.ingest.tables import TITLED_TABLES, chunk_columns, row_source_id, row_text
from clinrag.settings import IngestSettings
from clinrag.types import Chunk, Note, Patient, SourceKind

ProgressCallback = Callable[[str, int], None]
"""Called with (stage, items done so far)."""


@dataclass
class IngestSummary:
    """What an ingestion did: outcomes per scope, problems, timings."""

    org: str
    source: str
    outcomes: dict[str, Counter[str]] = field(default_factory=dict)
    report: IngestReport = field(default_factory=IngestReport)
    seconds: dict[str, float] = field(default_factory=dict)
    notes: int = 0
    chunks_written: int = 0

    def outcome(self, scope: str, what: str) -> None:
        """Count one outcome ("new", "changed", "unchanged", "removed") in ``scope``."""
        self.outcomes.setdefault(scope, Counter())[what] += 1


@dataclass(frozen=True)
class _Admission:
    subject_id: int
    admittime: datetime | None
    dischtime: datetime | None


@dataclass(frozen=True)
class NoteWork:
    """One note to (re)chunk, with what its chunks carry besides its text; a picklable unit of work for an engine."""

    note: Note
    name: str | None
    admission: _Admission | None
    service: str | None
    digest: str


NoteChunker = Callable[[Iterator[NoteWork], SourceConfig, IngestSettings], Iterator[tuple[NoteWork, list[Chunk]]]]
"""Turns notes to chunk into (note, its chunks) pairs, in input order: `local_note_chunker` in this process, or
`clinrag.ingest.scale.chunking.ray_note_chunker` as a Ray Data pipeline. Every chunker calls `note_chunks`."""


def _digest(*parts: object) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        hasher.update(str(part).encode())
        hasher.update(b"\x1f")
    return hasher.hexdigest()


def note_chunks(
    note: Note,
    config: SourceConfig,
    settings: IngestSettings,
    name: str | None,
    admission: _Admission | None,
    service_code: str | None,
) -> list[Chunk]:
    """Scrub, section and chunk one discharge note into chunks with full provenance."""
    parsed = parse_note(note.text)
    service = service_code or config.service_code(parsed.service)
    dept = config.department_of(service)
    context = settings.name_prefix_template.format(name=name) if settings.name_prefix_notes and name else ""
    chunks: list[Chunk] = []
    source_id = f"note:{note.note_id}"
    for section in parsed.sections:
        heading = f"{section.title}: " if section.title != "Header" else ""
        budget = max(settings.chunk_max_chars - len(heading), settings.chunk_max_chars // 2)
        for body in pack_text(section.text, budget):
            chunks.append(
                Chunk.create(
                    source_id=source_id,
                    text=heading + body,
                    context=context,
                    source_kind=SourceKind.NOTE,
                    position=len(chunks),
                    org=config.org,
                    dept=dept,
                    leaf=dept,
                    subject_id=note.subject_id,
                    hadm_id=note.hadm_id,
                    note_id=note.note_id,
                    note_type=note.note_type,
                    section=section.title,
                    section_group=section.group,
                    service=service,
                    charttime=note.charttime,
                    admittime=admission.admittime if admission else None,
                    dischtime=admission.dischtime if admission else None,
                    patient_name=name,
                )
            )
    return chunks


def local_note_chunker(
    work: Iterator[NoteWork], config: SourceConfig, settings: IngestSettings
) -> Iterator[tuple[NoteWork, list[Chunk]]]:
    """The local engine: each note chunked in this process as it comes.

    Example:
        >>> from clinrag.ingest.source import SourceConfig
        >>> note = Note(note_id="1-DS-1", subject_id=1, hadm_id=None, note_type="DS", text="HPI: chest pain.")
        >>> work = NoteWork(note, "Ann Lee", None, None, "d")
        >>> pairs = local_note_chunker(iter([work]), SourceConfig(org="A"), IngestSettings())
        >>> [(w.note.note_id, len(c)) for w, c in pairs]
        [('1-DS-1', 1)]
    """
    for item in work:
        yield item, note_chunks(item.note, config, settings, item.name, item.admission, item.service)


class _Ingestion:
    """One pass over one MIMIC folder: the state its stages share."""

    def __init__(
        self,
        reader: SourceReader,
        store: ChunkStore,
        settings: IngestSettings,
        config: SourceConfig,
        progress: ProgressCallback,
        chunker: NoteChunker = local_note_chunker,
    ) -> None:
        self.reader, self.store, self.settings, self.config, self.progress = reader, store, settings, config, progress
        self.chunker = chunker
        root = reader.root
        self.summary = IngestSummary(org=config.org, source=str(root))
        self.fingerprint = settings.model_dump_json()
        self.run = store.begin_run(str(root))
        self.names: dict[int, str | None] = {}
        self.admissions: dict[int, _Admission] = {}
        self.services: dict[int, str | None] = {}

    def _prefix(self, name: str | None, enabled: bool) -> str:
        return self.settings.name_prefix_template.format(name=name) if enabled and name else ""

    def _tick(self, count: int, stage: str, every: int) -> None:
        if count % self.settings.batch_size == 0:
            self.store.commit()
        if count % every == 0:
            self.progress(stage, count)

    def _finish_scope(self, scope: str, label: str, stage: str, count: int) -> None:
        self.progress(stage, count)
        self.store.commit()
        for _ in range(self.store.sweep(self.run, scope)):
            self.summary.outcome(label, "removed")

    def registry(self) -> None:
        """Patients (names), admissions (dates) and services (departments)."""
        report = self.summary.report

        def patients() -> Iterator[Patient]:
            for patient in self.reader.patients(report):
                self.names[patient.subject_id] = patient.name
                yield patient

        self.store.put_patients(patients())
        read_before = report.read["admissions"]
        self.admissions = {
            a.hadm_id: _Admission(a.subject_id, a.admittime, a.dischtime) for a in self.reader.admissions(report)
        }
        if "admissions" in self.settings.tables:  # read again as a table: its rows are counted there, once
            report.read["admissions"] = read_before
        self.services = dict(self.reader.services(report))

    def notes(self) -> None:
        """Discharge notes: unchanged ones are only marked as seen, others are (re)chunked."""
        scope = f"{self.config.org}:note:discharge"
        note_services: dict[int, str | None] = {}
        count = 0

        def to_chunk() -> Iterator[NoteWork]:
            """The notes not stored as they are (the others are marked as seen); commits as the local engine."""
            nonlocal count
            for count, note in enumerate(self.reader.notes(self.summary.report), start=1):
                hadm = note.hadm_id
                name = self.names.get(note.subject_id)
                admission = self.admissions.get(hadm) if hadm is not None else None
                service = self.services.get(hadm) if hadm is not None else None
                digest = _digest(
                    self.fingerprint, self.config, name, admission, service, note.charttime, note.note_type, note.text
                )
                if self.store.is_current(self.run, f"note:{note.note_id}", digest):
                    self.summary.outcome("note", "unchanged")
                else:
                    yield NoteWork(note, name, admission, service, digest)
                if hadm is not None and hadm not in self.services:
                    note_services[hadm] = self.config.service_code(note_service(note.text))
                self._tick(count, "notes", 100)

        for work, chunks in self.chunker(to_chunk(), self.config, self.settings):
            source_id = f"note:{work.note.note_id}"
            self.summary.outcome("note", self.store.put_source(self.run, scope, source_id, work.digest, chunks))
            self.summary.chunks_written += len(chunks)
        self.summary.notes = count
        self.services.update(note_services)
        self._finish_scope(scope, "note", "notes", count)

    def table(self, table: str) -> None:
        """One structured table, one chunk per row."""
        report = self.summary.report
        titles = self.reader.titles(TITLED_TABLES[table], report) if table in TITLED_TABLES else {}
        scope = f"{self.config.org}:row:{table}"
        count = 0
        for count, row in enumerate(self.reader.rows(table, chunk_columns(table), report), start=1):
            if titles:
                row["long_title"] = titles.get((str(row["icd_code"]), int(row["icd_version"])))
            subject_id, hadm_id = row.get("subject_id"), row.get("hadm_id")
            name = self.names.get(subject_id) if subject_id is not None else None
            admission = self.admissions.get(hadm_id) if hadm_id is not None else None
            service = self.config.service_code(self.services.get(hadm_id)) if hadm_id is not None else None
            # a row of no stay (a FHIR allergy, coverage) sits with the admission rows: the patient's own department
            patient_level = table == "admissions" or hadm_id is None
            dept = self.config.admissions_department if patient_level else self.config.department_of(service)
            text = row_text(row)
            source_id = row_source_id(table, row)
            digest = _digest(self.fingerprint, self.config, name, dept, text)
            if self.store.is_current(self.run, source_id, digest):
                self.summary.outcome(table, "unchanged")
            else:
                chunk = Chunk.create(
                    source_id=source_id,
                    text=text,
                    context=self._prefix(name, self.settings.name_prefix_rows),
                    source_kind=SourceKind.ROW,
                    org=self.config.org,
                    dept=dept,
                    leaf=dept,
                    subject_id=subject_id,
                    hadm_id=hadm_id,
                    table=table,
                    service=service,
                    admittime=admission.admittime if admission else None,
                    dischtime=admission.dischtime if admission else None,
                    patient_name=name,
                )
                self.summary.outcome(table, self.store.put_source(self.run, scope, source_id, digest, [chunk]))
                self.summary.chunks_written += 1
            self._tick(count, table, 1000)
        self._finish_scope(scope, table, table, count)


def ingest_mimic(
    root: Path,
    store: ChunkStore,
    settings: IngestSettings,
    org: str | None = None,
    on_progress: ProgressCallback | None = None,
    reader: SourceReader | None = None,
    chunker: NoteChunker = local_note_chunker,
) -> IngestSummary:
    """Ingest the MIMIC-IV folder ``root`` (hosp/ and note/) into ``store``; see the module docstring. ``reader``
    reads another kind of source as MIMIC rows (`clinrag.ingest.formats.open_reader`: a FHIR export), whose own
    tables are chunked after MIMIC's; ``chunker`` chunks the notes (`local_note_chunker`, or a Ray pipeline)."""
    config = load_source_config(root, org)
    reader = reader or MimicReader(root)
    ingestion = _Ingestion(reader, store, settings, config, on_progress or (lambda stage, done: None), chunker)
    stages = [("registry", ingestion.registry), ("notes", ingestion.notes)]
    tables = [*settings.tables, *(t for t in reader.extra_tables if t not in settings.tables)]
    stages += [(table, partial(ingestion.table, table)) for table in tables]
    for stage, run_stage in stages:
        started = time.perf_counter()
        run_stage()
        ingestion.summary.seconds[stage] = time.perf_counter() - started
    store.finish_run(ingestion.run)
    return ingestion.summary
