"""Frozen records shared by every layer: patients, admissions, coded rows, notes, chunks, hits and actors.

Records are immutable pydantic models. A `Chunk` is content-addressed: its id is a hash of the source it
came from and the exact text that gets indexed, so it doubles as citation key and de-duplication key.

Example:
    >>> chunk = Chunk.create(source_id="note:10001-DS-1", text="Aspirin 81 mg daily.", org="A", dept="medicine")
    >>> chunk.chunk_id == Chunk.create(source_id="note:10001-DS-1", text="Aspirin 81 mg daily.", org="A",
    ...                                dept="medicine").chunk_id
    True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Base of every shared record: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Patient(Record):
    """A row of MIMIC-IV ``hosp/patients``; ``name`` is the synthetic cohort's extra column (absent in MIMIC)."""

    subject_id: int
    gender: str
    anchor_age: int
    anchor_year: int
    anchor_year_group: str
    dod: date | None = None
    name: str | None = None


class Admission(Record):
    """A row of MIMIC-IV ``hosp/admissions`` (the columns clinrag uses)."""

    subject_id: int
    hadm_id: int
    admittime: datetime
    dischtime: datetime | None = None
    deathtime: datetime | None = None
    admission_type: str = ""
    admission_location: str | None = None
    discharge_location: str | None = None
    insurance: str | None = None
    language: str | None = None
    marital_status: str | None = None
    race: str | None = None
    hospital_expire_flag: int = 0


class Diagnosis(Record):
    """A coded diagnosis (``hosp/diagnoses_icd`` joined with ``d_icd_diagnoses`` for its title)."""

    subject_id: int
    hadm_id: int
    seq_num: int
    icd_code: str
    icd_version: int
    long_title: str | None = None


class Procedure(Record):
    """A coded procedure (``hosp/procedures_icd`` joined with ``d_icd_procedures``)."""

    subject_id: int
    hadm_id: int
    seq_num: int
    chartdate: date
    icd_code: str
    icd_version: int
    long_title: str | None = None


class Prescription(Record):
    """A row of ``hosp/prescriptions`` (the columns clinrag uses)."""

    subject_id: int
    hadm_id: int
    starttime: datetime | None = None
    stoptime: datetime | None = None
    drug_type: str = "MAIN"
    drug: str
    prod_strength: str | None = None
    dose_val_rx: str | None = None
    dose_unit_rx: str | None = None
    route: str | None = None


class Note(Record):
    """A row of MIMIC-IV-Note ``note/discharge``: one discharge summary."""

    note_id: str
    subject_id: int
    hadm_id: int | None
    note_type: str = "DS"
    note_seq: int = 0
    charttime: datetime | None = None
    storetime: datetime | None = None
    text: str


class SourceKind(StrEnum):
    """What a chunk was made from."""

    NOTE = "note"
    ROW = "row"
    ABSTRACT = "abstract"
    GUIDELINE = "guideline"
    CALCULATOR = "calculator"


class SectionGroup(StrEnum):
    """The three parts a discharge summary's sections fall into."""

    CLINICAL_PROFILE = "clinical_profile"
    IN_HOSPITAL_PROGRESS = "in_hospital_progress"
    DISCHARGE_PLAN = "discharge_plan"
    OTHER = "other"


def content_id(source_id: str, text: str) -> str:
    """The content address of ``text`` from ``source_id``: 32 hex characters of SHA-256.

    Example:
        >>> len(content_id("note:1", "text"))
        32
    """
    digest = hashlib.sha256(source_id.encode() + b"\x1f" + text.encode())
    return digest.hexdigest()[:32]


class Citation(Record):
    """Where a literature chunk comes from: the citation's metadata, kept in the chunk's payload so answers cite
    PMID, first author, year, journal and title, and searches can filter on them.

    Example:
        >>> Citation(pmid=31535829, title="Dapagliflozin in heart failure.", authors=("McMurray JJV", "Solomon SD"),
        ...          year=2019, journal_abbrev="N Engl J Med").short
        'McMurray JJV et al., N Engl J Med 2019, PMID 31535829'
    """

    pmid: int
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    month: int | None = None
    journal: str = ""
    journal_abbrev: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    doi: str = ""
    languages: tuple[str, ...] = ()
    publication_types: tuple[str, ...] = ()
    mesh: tuple[str, ...] = ()
    mesh_major: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    @property
    def first_author(self) -> str:
        """The first author as cited (``McMurray JJV``), or empty."""
        return self.authors[0] if self.authors else ""

    @property
    def url(self) -> str:
        """The citation's PubMed page (a link to show; nothing here fetches it)."""
        return f"https://pubmed.ncbi.nlm.nih.gov/{self.pmid}/"

    @property
    def short(self) -> str:
        """First author, journal, year and PMID in one line."""
        who = f"{self.first_author} et al." if len(self.authors) > 1 else self.first_author
        where = " ".join(part for part in (self.journal_abbrev or self.journal, str(self.year or "")) if part)
        return ", ".join(part for part in (who, where, f"PMID {self.pmid}") if part)


class Guideline(Record):
    """Where a guideline chunk comes from: the document's manifest (`clinrag.ingest.guidelines.manifest`), kept in
    the chunk's payload so answers cite publisher, title, date and URL.

    Example:
        >>> Guideline(title="Atrial fibrillation: management", publisher="Example Cardiology Society",
        ...           url="https://guidelines.example.org/af", date=date(2024, 3, 15), licence="CC BY 4.0").short
        'Example Cardiology Society, Atrial fibrillation: management, 2024-03-15, https://guidelines.example.org/af'
    """

    title: str
    publisher: str
    url: str
    date: date
    licence: str

    @property
    def short(self) -> str:
        """Publisher, title, date and URL in one line: how answers label the guideline's lines."""
        return f"{self.publisher}, {self.title}, {self.date.isoformat()}, {self.url}"


class Chunk(Record):
    """A passage ready for indexing, with its provenance.

    ``text`` is the passage itself; ``context`` is an optional prefix that is indexed with it (such as
    ``For patient with name of Betty Henry: ``). ``indexed_text`` is what embedders and BM25 see, and the
    ``chunk_id`` is the content address of ``source_id`` plus ``indexed_text``.
    """

    chunk_id: str
    source_id: str
    source_kind: SourceKind
    text: str
    context: str = ""
    position: int = 0
    org: str
    dept: str
    leaf: str = ""
    subject_id: int | None = None
    hadm_id: int | None = None
    note_id: str | None = None
    note_type: str | None = None
    table: str | None = None
    section: str | None = None
    section_group: SectionGroup | None = None
    service: str | None = None
    charttime: datetime | None = None
    admittime: datetime | None = None
    dischtime: datetime | None = None
    patient_name: str | None = None
    sensitivity: tuple[str, ...] = ()
    """Sensitive categories of the passage ("mental_health", "substance_use", "hiv", "reproductive", "genetic"),
    assigned at ingestion by ``clinrag.ingest.sensitivity``; not part of the chunk id."""
    sensitivity_rules: tuple[str, ...] = ()
    """The rules that assigned ``sensitivity``, e.g. ``term:alcohol`` or ``section:Past Medical History/Psych Hx``."""
    citation: Citation | None = None
    """For literature chunks (``source_kind`` ``abstract``): the citation they come from."""
    guideline: Guideline | None = None
    """For guideline chunks (``source_kind`` ``guideline``): the guideline they come from."""

    @property
    def indexed_text(self) -> str:
        """The text embedders and BM25 index: the context prefix followed by the passage."""
        return self.context + self.text

    @classmethod
    def create(cls, *, source_id: str, text: str, context: str = "", **fields: object) -> Chunk:
        """Build a chunk and compute its content-addressed id.

        Example:
            >>> Chunk.create(source_id="row:admissions:1", text="hadm_id: 1", org="A", dept="admissions",
            ...              source_kind=SourceKind.ROW).source_kind
            <SourceKind.ROW: 'row'>
        """
        fields.setdefault("source_kind", SourceKind.NOTE)
        chunk_id = content_id(source_id, context + text)
        return cls.model_validate(
            {"chunk_id": chunk_id, "source_id": source_id, "text": text, "context": context} | fields
        )


class Hit(Record):
    """A chunk returned by a retriever, with its score and rank (1-based) in that result list."""

    chunk: Chunk
    score: float
    rank: int
    scores: dict[str, float] = {}


class SearchFilters(Record):
    """Which chunks are eligible for a search. Every set field must match (AND); within a field, any value (OR).

    Dates filter on the chunk's ``date``: the note's chart time, else the admission time. ``start`` is inclusive,
    ``end`` exclusive.

    Example:
        >>> SearchFilters(subject_ids=(10000001,), sections=("Discharge Medications",)).is_empty
        False
    """

    subject_ids: tuple[int, ...] | None = None
    hadm_ids: tuple[int, ...] | None = None
    authors: tuple[str, ...] | None = None
    """Literature: citations with any of these authors, as cited (``Smith J``)."""
    journals: tuple[str, ...] | None = None
    """Literature: citations in any of these journals (full titles)."""
    publication_types: tuple[str, ...] | None = None
    """Literature: citations of any of these publication types (``Randomized Controlled Trial``)."""
    mesh: tuple[str, ...] | None = None
    """Literature: citations indexed with any of these MeSH descriptors."""
    orgs: tuple[str, ...] | None = None
    depts: tuple[str, ...] | None = None
    services: tuple[str, ...] | None = None
    sections: tuple[str, ...] | None = None
    section_groups: tuple[str, ...] | None = None
    note_types: tuple[str, ...] | None = None
    source_kinds: tuple[str, ...] | None = None
    start: datetime | None = None
    end: datetime | None = None

    @property
    def is_empty(self) -> bool:
        """True when no field restricts anything."""
        return all(value is None for value in self.model_dump().values())


def chunk_date(chunk: Chunk) -> datetime | None:
    """The date a chunk is filed under: the note's chart time, else its admission's discharge or admit time."""
    return chunk.charttime or chunk.dischtime or chunk.admittime


class Actor(Record):
    """Who is asking: the verified attributes of a signed-in user."""

    subject: str
    org: str
    role: str
    dept: str | None = None
    affiliations: tuple[str, ...] = ()


class Source(Record):
    """A retrieved chunk as given to an answer generator: its number ``[n]`` (1 = most relevant) and score."""

    number: int
    chunk: Chunk
    score: float


class AnswerSentence(Record):
    """One sentence of an answer, the sources it cites, and how well the best cited source supports it (0–1)."""

    text: str
    citations: tuple[int, ...]
    support: float
    supported: bool


class PatientChoice(Record):
    """A patient a question may mean, offered to the asker when a name does not settle who (a surname alone,
    another given name, a misspelt name, two patients with one name): only patients the asker may retrieve.

    Example:
        >>> PatientChoice(subject_id=10000255, name="Tracie Edwards", org="B", depts=("medicine",)).label()
        'Tracie Edwards (10000255, B)'
    """

    subject_id: int
    name: str
    org: str = ""
    depts: tuple[str, ...] = ()

    def label(self, orgs: Mapping[str, str] | None = None) -> str:
        """``Name (subject_id, organisation)``, the organisation by its label in ``orgs`` when given.

        Example:
            >>> PatientChoice(subject_id=1, name="Ada Stone", org="A").label({"A": "Hospital A"})
            'Ada Stone (1, Hospital A)'
        """
        where = (orgs or {}).get(self.org, self.org)
        return f"{self.name} ({self.subject_id}, {where})" if where else f"{self.name} ({self.subject_id})"


class Abstention(Record):
    """Why no answer was given, and where the system looked (organisations or leaves searched, denied, down).
    ``choices`` are the patients the question may mean, when the system asks which one."""

    reason: str
    searched: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()
    choices: tuple[PatientChoice, ...] = ()


class Answer(Record):
    """A grounded answer: verified sentences with citations, the sources cited and merely retrieved, a support
    score (share of sentences supported) and what verification removed. ``abstention`` is set when the system
    declined to answer; ``text`` then says so in plain words.

    Example:
        >>> declined = Abstention(reason="no evidence")
        >>> Answer(question="q", text="No.", generator="extractive", abstention=declined).abstained
        True
    """

    question: str
    text: str
    generator: str
    sentences: tuple[AnswerSentence, ...] = ()
    sources: tuple[Source, ...] = ()
    cited: tuple[int, ...] = ()
    support: float = 0.0
    valid_citations: int = 0
    invalid_citations: int = 0
    unsupported_sentences: int = 0
    quarantined_spans: int = 0
    abstention: Abstention | None = None
    fallback_from: str | None = None
    """The model whose draft was declined or unsupported, when the extractive answer replaced it."""
    withheld_sensitive: int = 0
    """Passages matching the question that the asker's policies withheld only because of their sensitivity label
    (psychiatric, substance-use, HIV, reproductive or genetic information)."""
    filter_notes: tuple[str, ...] = ()
    """How a library read the question: misspellings read as its own words, and each filter stated applied ("filter
    by author Smith: applied") or dropped because nothing here has it — said, never applied silently."""
    timings: dict[str, float] = {}

    @property
    def abstained(self) -> bool:
        """True when the system declined to answer."""
        return self.abstention is not None

    @property
    def withheld_note(self) -> str | None:
        """A sentence saying how many sensitive passages the policies withheld, or None when none were.

        Example:
            >>> Answer(question="q", text="t", generator="g", withheld_sensitive=2).withheld_note
            '2 sensitive passages were withheld by policy.'
        """
        return withheld_note(self.withheld_sensitive)


def withheld_note(count: int) -> str | None:
    """``N sensitive passage(s) was/were withheld by policy.``, or None for 0.

    Example:
        >>> withheld_note(1)
        '1 sensitive passage was withheld by policy.'
    """
    if count <= 0:
        return None
    return (
        f"{count} sensitive passage was withheld by policy."
        if count == 1
        else (f"{count} sensitive passages were withheld by policy.")
    )
