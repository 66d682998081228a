"""`FhirReader`: a FHIR R4 export read as MIMIC-shaped records (see `clinrag.ingest.reader.SourceReader`).

The export is read in two passes. The first reads every resource except notes (whose files can be large) and keeps
what MIMIC-IV would: Patients, Encounters (stays), Coverage, coded Conditions and Procedures, medications,
Observations, AllergyIntolerances and DiagnosticReports; once everything is read, references are resolved (a
Condition may come before its Encounter) and each resource becomes a MIMIC-IV row or a FHIR-table row. The second pass,
``notes``, streams DocumentReference and Composition files and is run by each reader of notes.

Never fatal, always counted: resource types clinrag does not read and unknown extensions (``report.skipped``). Reported
with file, line, type and id, then skipped: a resource that breaks the specification (checked against the R4B models
of ``fhir.resources``), a resource without an id or with an id already read, a resource whose patient is missing, a
note without readable text. Reported and kept: a reference to a missing Encounter or Medication (the row loses its
stay or drug), an ED encounter part of a missing stay.

Example:
    >>> import tempfile, pathlib, json
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "Patient.ndjson").write_text(json.dumps({"resourceType": "Patient", "id": "7", "gender": "male",
    ...     "name": [{"family": "Stone", "given": ["Adam"]}]}) + "\\n" + json.dumps({"resourceType": "Basic",
    ...     "id": "b"}) + "\\n")
    >>> report = IngestReport()
    >>> [(p.subject_id, p.name, p.gender) for p in FhirReader(root).patients(report)], dict(report.skipped)
    ([(7, 'Adam Stone', 'M')], {('Basic', 'resource type not read by clinrag'): 1})
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from clinrag.ingest.fhir.clinical import allergy_fact, condition_fact, observation_fact, procedure_fact, report_fact
from clinrag.ingest.fhir.documents import Attachments, NoteRecord, composition_note, document_note, report_note
from clinrag.ingest.fhir.encounters import EncounterRecord, encounter_record
from clinrag.ingest.fhir.facts import Fact
from clinrag.ingest.fhir.files import ExportFile, Located, find_files, read_file
from clinrag.ingest.fhir.medications import (
    PRODUCT_STRENGTH,
    MedicationInfo,
    apply_medication,
    medication_fact,
    medication_info,
)
from clinrag.ingest.fhir.people import RACE_EXTENSION, CoverageRecord, PatientRecord, coverage_record, patient_record
from clinrag.ingest.fhir.references import Origin
from clinrag.ingest.fhir.schema import FHIR_TABLES
from clinrag.ingest.fhir.validate import READ_TYPES, spec_error
from clinrag.ingest.mimic import IngestReport, Problem
from clinrag.ingest.mimic_schema import TABLES
from clinrag.types import Admission, Note, Patient

DOCUMENT_TYPES = frozenset({"DocumentReference", "Composition"})
KNOWN_EXTENSIONS = frozenset(
    {
        RACE_EXTENSION,
        "http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity",
        "http://hl7.org/fhir/us/core/StructureDefinition/us-core-birthsex",
        PRODUCT_STRENGTH,
    }
)
"""Extensions clinrag reads or knows to carry nothing it needs; every other one is counted as unknown and ignored."""
_FACTS = {
    "Condition": condition_fact,
    "Procedure": procedure_fact,
    "AllergyIntolerance": allergy_fact,
    "Observation": observation_fact,
    "DiagnosticReport": report_fact,
    "MedicationRequest": medication_fact,
    "MedicationStatement": medication_fact,
    "MedicationAdministration": medication_fact,
}
_MIMIC_ORDER = {
    "diagnoses_icd": ("subject_id", "hadm_id", "seq_num"),
    "procedures_icd": ("subject_id", "hadm_id", "seq_num"),
    "prescriptions": ("subject_id", "hadm_id"),
}


def unknown_extensions(value: object) -> int:
    """How many extensions in ``value`` (at any depth) have a URL clinrag does not know.

    Example:
        >>> unknown_extensions({"extension": [{"url": "http://x/y"}], "name": [{"extension": [{"url": "z"}]}]})
        2
    """
    count = 0
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("extension", "modifierExtension") and isinstance(item, list):
                count += sum(1 for e in item if not isinstance(e, dict) or e.get("url") not in KNOWN_EXTENSIONS)
            elif isinstance(item, dict | list):
                count += unknown_extensions(item)
    elif isinstance(value, list):
        count += sum(unknown_extensions(item) for item in value if isinstance(item, dict | list))
    return count


@dataclass
class _Export:
    """The first pass's result: MIMIC-shaped rows, resolved."""

    patients: list[Patient] = field(default_factory=list)
    admissions: list[dict[str, Any]] = field(default_factory=list)
    services: dict[int, str] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    titles: dict[str, dict[tuple[str, int], str]] = field(default_factory=lambda: defaultdict(dict))
    subjects: dict[str, int] = field(default_factory=dict)
    stays: dict[str, int] = field(default_factory=dict)
    document_files: list[ExportFile] = field(default_factory=list)
    documents: list[Located] = field(default_factory=list)
    reports: list[Located] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)


class FhirReader:
    """A FHIR R4 Bulk Data export or folder of Bundles, read as MIMIC-IV rows; see the module docstring.

    ``validate`` checks every resource against the specification (R4B models); turned off, malformed resources are
    still read as far as they can be (a benchmark measures what the check costs).
    """

    extra_tables: tuple[str, ...] = tuple(FHIR_TABLES)

    def __init__(self, root: Path, validate: bool = True) -> None:
        self.root = root
        self.validate = validate
        self.resources: Counter[str] = Counter()
        """Resources read, by type (notes counted once per notes pass)."""
        self._export: _Export | None = None
        self._patients: dict[str, tuple[PatientRecord, Origin]] = {}
        self._encounters: dict[str, tuple[EncounterRecord, Origin]] = {}
        self._coverage: list[tuple[CoverageRecord, Origin]] = []
        self._medications: dict[str, MedicationInfo] = {}
        self._facts: list[Fact] = []
        self._seen: set[str] = set()
        self.attachments = Attachments(root)

    # -- first pass ---------------------------------------------------------------------------------------------

    def _admit(self, located: Located, report: IngestReport, seen: set[str]) -> str | None:
        """The resource's type when it is to be read; counts, checks and reports it otherwise."""
        resource = located.resource
        kind = str(resource["resourceType"])
        if kind not in READ_TYPES:
            report.skipped[kind, "resource type not read by clinrag"] += 1
            return None
        self.resources[kind] += 1
        unknown = unknown_extensions(resource)
        if unknown:
            report.skipped[kind, "unknown extension (ignored)"] += unknown
        if not isinstance(resource.get("id"), str) or not resource["id"]:
            report.skip(kind, located.problem("resource has no id; skipped"))
            return None
        if self.validate:
            error = spec_error(resource)
            if error is not None:
                report.skip(kind, located.problem(f"breaks the FHIR R4 specification ({error}); skipped"))
                return None
        if located.key in seen:
            report.skip(kind, located.problem("another resource has this type and id; the first is kept"))
            return None
        seen.add(located.key)
        return kind

    def _take(self, located: Located, report: IngestReport, export: _Export) -> None:
        if located.resource["resourceType"] in DOCUMENT_TYPES:  # a note in a Bundle: counted and checked once, by
            export.documents.append(located)  # the notes pass, as a note of an NDJSON file is
            return
        kind = self._admit(located, report, self._seen)
        if kind is None:
            return
        resource, key = located.resource, located.key
        origin = Origin(located.file, located.line, key)
        if located.full_url:
            export.aliases[located.full_url] = key
        if kind == "Patient":
            self._patients[key] = (patient_record(resource), origin)
        elif kind == "Encounter":
            self._encounters[key] = (encounter_record(resource), origin)
        elif kind == "Coverage":
            self._coverage.append((coverage_record(resource), origin))
        elif kind == "Medication":
            self._medications[key] = medication_info(resource)
        elif kind == "Binary":
            self.attachments.binaries[key] = {"contentType": resource.get("contentType"), "data": resource.get("data")}
        else:
            self._facts.append(_FACTS[kind](origin, resource))
            if kind == "DiagnosticReport" and "presentedForm" in resource:
                export.reports.append(located)

    def _load(self, report: IngestReport) -> _Export:
        if self._export is not None:
            return self._export
        export = _Export()
        for file in find_files(self.root, report):
            if file.kind == "ndjson" and file.resource_type in DOCUMENT_TYPES:
                export.document_files.append(file)
                continue
            for located in read_file(file, report):
                self._take(located, report, export)
        _Resolver(self, export, report).resolve()
        self._patients, self._encounters, self._coverage, self._facts = {}, {}, [], []
        self._medications = {}
        self._export = export
        return export

    # -- SourceReader -------------------------------------------------------------------------------------------

    def patients(self, report: IngestReport) -> Iterator[Patient]:
        """See `clinrag.ingest.reader.SourceReader.patients`."""
        for patient in self._load(report).patients:
            report.read["patients"] += 1
            yield patient

    def admissions(self, report: IngestReport) -> Iterator[Admission]:
        """See `clinrag.ingest.reader.SourceReader.admissions`."""
        columns = tuple(Admission.model_fields)
        for row in self.rows("admissions", columns, report):
            yield Admission.model_construct(**{k: v for k, v in row.items() if v is not None})

    def services(self, report: IngestReport) -> dict[int, str]:
        """See `clinrag.ingest.reader.SourceReader.services`."""
        return dict(self._load(report).services)

    def titles(self, name: str, report: IngestReport) -> dict[tuple[str, int], str]:
        """ICD titles from the codings' displays (an export carries no ICD dictionary)."""
        return dict(self._load(report).titles.get(name, {}))

    def rows(
        self, table: str, columns: Sequence[str], report: IngestReport, required_file: bool = True
    ) -> Iterator[dict[str, Any]]:
        """See `clinrag.ingest.reader.SourceReader.rows`; a coded row may carry more than ``columns`` (its RxNorm
        code), as a row chunk shows every value it has."""
        export = self._load(report)
        if table == "discharge":
            for note in self.notes(report):
                yield {column: getattr(note, column, None) for column in columns}
            return
        source = export.admissions if table == "admissions" else export.rows.get(table, [])
        known = {c.name for c in (TABLES[table].all_columns if table in TABLES else FHIR_TABLES[table].columns)}
        for row in source:
            report.read[table] += 1
            shown = {column: row.get(column) for column in columns}
            shown.update((k, v) for k, v in row.items() if k not in known)
            yield shown

    def notes(self, report: IngestReport) -> Iterator[Note]:
        """Notes of DocumentReferences, Compositions and DiagnosticReports' presented forms, streamed."""
        export = self._load(report)
        seen: set[str] = set()
        note_ids: set[str] = set()
        for record in self._note_records(export, report, seen):
            note = self._note(record, export, report, note_ids)
            if note is not None:
                report.read["discharge"] += 1
                yield note

    def _note_records(self, export: _Export, report: IngestReport, seen: set[str]) -> Iterator[NoteRecord]:
        def located() -> Iterator[Located]:
            for file in export.document_files:
                yield from read_file(file, report)
            yield from export.documents

        for item in located():
            kind = self._admit(item, report, seen)
            if kind is None:
                continue
            origin = Origin(item.file, item.line, item.key)
            if kind == "DocumentReference":
                yield document_note(origin, item.resource, self.attachments)
            elif kind == "Composition":
                yield composition_note(origin, item.resource)
            else:  # another resource type in a notes file: read in the first pass only
                report.skip(kind, item.problem("found in a notes file; only notes are read from it"))
        for item in export.reports:
            record = report_note(Origin(item.file, item.line, item.key), item.resource, self.attachments)
            if record is not None:
                yield record

    def _note(self, record: NoteRecord, export: _Export, report: IngestReport, note_ids: set[str]) -> Note | None:
        if record.text is None:
            report.skip("discharge", record.origin.problem(f"{record.problem}; note skipped"))
            return None
        subject_ref = export.aliases.get(record.subject_ref or "", record.subject_ref)
        subject = export.subjects.get(subject_ref or "")
        if subject is None:
            report.skip("discharge", record.origin.problem(f"reference to missing {subject_ref or 'subject'}; skipped"))
            return None
        if record.note_id in note_ids:
            report.skip("discharge", record.origin.problem(f"note id {record.note_id} read already; skipped"))
            return None
        note_ids.add(record.note_id)
        hadm = None
        if record.encounter_ref:
            encounter = export.aliases.get(record.encounter_ref, record.encounter_ref)
            hadm = export.stays.get(encounter)
            if hadm is None:
                _warn(report, record.origin.problem(f"reference to missing {encounter}; kept without its stay"))
        return Note.model_construct(
            note_id=record.note_id,
            subject_id=subject,
            hadm_id=hadm,
            note_type=record.note_type,
            note_seq=0,
            charttime=record.charttime,
            storetime=None,
            text=record.text,
        )


def _warn(report: IngestReport, problem: Problem) -> None:
    """Report a problem of a resource that is kept (not counted as skipped)."""
    if problem not in report.problems and len(report.problems) < 200:
        report.problems.append(problem)


class _Resolver:
    """Joins what the first pass read: references resolved, stays numbered, coded rows sequenced."""

    def __init__(self, reader: FhirReader, export: _Export, report: IngestReport) -> None:
        self.reader, self.export, self.report = reader, export, report

    def key(self, reference: str | None) -> str | None:
        return self.export.aliases.get(reference, reference) if reference else None

    def resolve(self) -> None:
        export = self.export
        for key, (record, _) in self.reader._patients.items():
            export.subjects[key] = record.subject_id
        stays = self._stays()
        first_year: dict[int, int] = {}
        for stay, _, subject in stays:
            if stay.start is not None:
                first_year[subject] = min(first_year.get(subject, stay.start.year), stay.start.year)
        self._admissions(stays)
        for record, _ in self.reader._patients.values():
            anchor = first_year.get(record.subject_id) or (record.birth.year if record.birth else 0)
            age = anchor - record.birth.year if record.birth else 0
            export.patients.append(
                Patient.model_construct(
                    subject_id=record.subject_id,
                    gender=record.gender,
                    anchor_age=age,
                    anchor_year=anchor,
                    anchor_year_group=str(anchor),
                    dod=record.dod,
                    name=record.name,
                )
            )
        self._facts()

    def _stays(self) -> list[tuple[EncounterRecord, Origin, int]]:
        """Admissions: encounters with a patient and a start; ED encounters part of a stay lend it their times."""
        encounters = self.reader._encounters
        stays: list[tuple[EncounterRecord, Origin, int]] = []
        for key, (record, origin) in encounters.items():
            if record.emergency and record.part_of:
                parent = encounters.get(self.key(record.part_of) or "")
                if parent is not None:
                    parent[0].ed_start, parent[0].ed_end = record.start, record.end
                    continue
                _warn(self.report, origin.problem(f"part of missing {record.part_of}; read as a stay of its own"))
            subject = self.export.subjects.get(self.key(record.subject_ref) or "")
            if subject is None:
                self.report.skip("admissions", origin.problem(f"reference to missing {record.subject_ref}; skipped"))
                continue
            if record.start is None:
                self.report.skip("admissions", origin.problem("encounter has no period.start; skipped"))
                continue
            self.export.stays[key] = record.hadm_id
            stays.append((record, origin, subject))
        return stays

    def _admissions(self, stays: list[tuple[EncounterRecord, Origin, int]]) -> None:
        """Admission rows, each with the insurance of the coverage in force at its admission (MIMIC keeps insurance
        on the admission); then `_coverage_rows`."""
        coverage: dict[int, list[CoverageRecord]] = defaultdict(list)
        for item, origin in self.reader._coverage:
            subject = self.export.subjects.get(self.key(item.subject_ref) or "")
            if subject is None:
                self.report.skip("coverage", origin.problem(f"reference to missing {item.subject_ref}; skipped"))
                continue
            coverage[subject].append(item)
        carried: set[str] = set()
        people = {record.subject_id: record for record, _ in self.reader._patients.values()}
        for stay, _, subject in stays:
            assert stay.start is not None
            person = people[subject]
            covering = [c for c in coverage.get(subject, []) if c.covers(stay.start)]
            covering.sort(key=lambda c: c.start or datetime.min)
            if covering:
                carried.add(covering[-1].resource_id)
            if stay.service:
                self.export.services[stay.hadm_id] = stay.service
            self.export.admissions.append(
                {
                    "subject_id": subject,
                    "hadm_id": stay.hadm_id,
                    "admittime": stay.start,
                    "dischtime": stay.end,
                    "deathtime": stay.end if stay.expired else None,
                    "admission_type": stay.admission_type,
                    "admit_provider_id": None,
                    "admission_location": stay.admission_location,
                    "discharge_location": stay.discharge_location,
                    "insurance": covering[-1].insurance if covering else None,
                    "language": person.language,
                    "marital_status": person.marital_status,
                    "race": person.race,
                    "edregtime": stay.ed_start,
                    "edouttime": stay.ed_end,
                    "hospital_expire_flag": 1 if stay.expired else 0,
                }
            )
        self._coverage_rows(coverage, carried)

    def _coverage_rows(self, coverage: dict[int, list[CoverageRecord]], carried: set[str]) -> None:
        """``coverage`` rows for what the admission rows do not carry: a coverage in force at none of the patient's
        admissions, or one naming a payor besides its insurance. A coverage an admission row carries whole adds no
        row: as in MIMIC, the insurance is read on the admission (and an extra chunk in the admissions leaf would
        change its BM25 statistics, so a FHIR export would not answer as its MIMIC folder does)."""
        for subject, items in coverage.items():
            for item in items:
                if item.resource_id in carried and item.payor in (None, item.insurance):
                    continue
                self.export.rows["coverage"].append(
                    {
                        "resource_id": item.resource_id,
                        "subject_id": subject,
                        "status": item.status,
                        "insurance": item.insurance,
                        "payor": item.payor,
                        "start": item.start,
                        "end": item.end,
                    }
                )

    def _facts(self) -> None:
        export, report = self.export, self.report
        names = {
            f"Observation/{fact.row['resource_id']}": fact.row.get("name")
            for fact in self.reader._facts
            if fact.table == "observations"
        }
        ranks = {
            export.stays[key]: {self.key(ref) or ref: rank for ref, rank in record.ranks.items()}
            for key, (record, _) in self.reader._encounters.items()
            if key in export.stays
        }
        coded: dict[tuple[str, int], list[tuple[Fact, int]]] = defaultdict(list)
        for fact in self.reader._facts:
            subject_ref = self.key(fact.subject_ref)
            subject = export.subjects.get(subject_ref or "")
            if subject is None:
                report.skip(
                    fact.table, fact.origin.problem(f"reference to missing {subject_ref or 'subject'}; skipped")
                )
                continue
            hadm = None
            if fact.encounter_ref:
                hadm = export.stays.get(self.key(fact.encounter_ref) or "")
                if hadm is None:
                    _warn(
                        report, fact.origin.problem(f"reference to missing {fact.encounter_ref}; kept without its stay")
                    )
            if fact.medication_ref:
                info = self.reader._medications.get(self.key(fact.medication_ref) or "")
                if info is None:
                    _warn(report, fact.origin.problem(f"reference to missing {fact.medication_ref}; drug unknown"))
                else:
                    apply_medication(fact, info)
            if fact.result_refs:
                missing = [ref for ref in fact.result_refs if (self.key(ref) or "") not in names]
                for ref in missing:
                    _warn(report, fact.origin.problem(f"reference to missing {ref}; result not named"))
                shown = [names.get(self.key(ref) or "") or ref for ref in fact.result_refs]
                fact.row["results"] = "; ".join(s for s in shown if s)
            if fact.mimic_table and fact.mimic_row is not None and hadm is not None:
                coded[fact.mimic_table, hadm].append((fact, subject))
                continue
            row = {"resource_id": fact.row["resource_id"], "subject_id": subject}
            if any(c.name == "hadm_id" for c in FHIR_TABLES[fact.table].columns):
                row["hadm_id"] = hadm
            row.update((k, v) for k, v in fact.row.items() if k != "resource_id")
            export.rows[fact.table].append(row)
        for (table, hadm), facts in coded.items():
            self._sequence(table, hadm, facts, ranks.get(hadm, {}))

    def _sequence(self, table: str, hadm: int, facts: list[tuple[Fact, int]], ranks: dict[str, int]) -> None:
        """MIMIC rows of one stay, numbered: diagnoses by the Encounter's ranks (unranked ones after, in the order
        read), procedures by date (then the order read); prescriptions keep their pharmacy id."""
        if table == "procedures_icd":
            facts = sorted(facts, key=lambda item: item[0].when or datetime.min)
        used: set[int] = set()
        numbered: list[tuple[int, Fact, int]] = []
        if table == "diagnoses_icd":
            for fact, subject in facts:
                rank = ranks.get(fact.origin.key)
                if rank is not None and rank not in used:
                    used.add(rank)
                    numbered.append((rank, fact, subject))
        ranked = {id(fact) for _, fact, _ in numbered}
        following = max(used, default=0)
        for fact, subject in facts:
            if id(fact) not in ranked:
                following += 1
                numbered.append((following, fact, subject))
        numbered.sort(key=lambda item: item[0])
        titles = self.export.titles["d_icd_diagnoses" if table == "diagnoses_icd" else "d_icd_procedures"]
        for seq, fact, subject in numbered:
            assert fact.mimic_row is not None
            row: dict[str, Any] = {"subject_id": subject, "hadm_id": hadm}
            if table != "prescriptions":
                row["seq_num"] = seq
                if fact.title:
                    titles.setdefault((fact.mimic_row["icd_code"], fact.mimic_row["icd_version"]), fact.title)
            row.update(fact.mimic_row)
            self.export.rows[table].append(row)
