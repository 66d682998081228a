"""The vocabulary of a synthetic storyline: the clinical facts an admission is built from.

A *storyline* is one kind of hospital stay (say, hip fracture after a mechanical fall). It names the coded
diagnoses and procedures (real ICD-10-CM / ICD-10-PCS codes), the discharge medications, the findings, the
possible complications and several alternative phrasings for every sentence of the discharge summary. The
generator picks phrasings with a per-patient random stream, so that notes of one storyline differ in wording
while the facts stay consistent with the coded tables.

Template sentences may use these placeholders, filled by the generator:

- patient: ``{age}`` (years), ``{man}`` ("man"/"woman"), ``{Mr}`` ("Mr."/"Ms."), ``{he}``, ``{He}``, ``{his}``,
  ``{His}``, ``{him}``
- context: ``{history}`` (past medical history in a phrase), ``{complaint}`` (the chosen chief complaint),
  ``{los}`` (length of stay in days)
- facts (each becomes a gold fact located in the note): ``{diagnosis}`` (a phrase of the primary diagnosis),
  ``{procedure}`` (a phrase of the first procedure), ``{complication}`` (only inside ``Complication.course``)

Storylines are written as data (``storylines/*.yaml``, read by :mod:`clinrag.ingest.synthetic.storylines.loader`);
these classes are their schema. A file may name medications, diagnoses, procedures and complications once, in
its top-level ``medications``, ``diagnoses``, ``procedures`` and ``complications`` maps, and its storylines then
list them by name: a field typed ``Named...`` below takes either the thing itself or that name.

Example:
    >>> Diagnosis("S72001A", ("right femoral neck fracture",)).phrases[0]
    'right femoral neck fracture'
    >>> Storyline.__pydantic_fields__["sexes"].default
    'FM'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, ValidationInfo
from pydantic.dataclasses import dataclass


def _one_or_many(value: Any) -> Any:
    """A lone string is one phrasing: ``"chest pain"`` reads as ``("chest pain",)``."""
    return (value,) if isinstance(value, str) else value


Text = Annotated[tuple[str, ...], BeforeValidator(_one_or_many), Field(min_length=1)]
"""Alternative phrasings of one sentence or phrase; the generator picks one per note."""

PATIENT_PLACEHOLDERS = frozenset({"age", "man", "Mr", "he", "He", "his", "His", "him"})
CONTEXT_PLACEHOLDERS = frozenset({"history", "complaint", "los"})
FACT_PLACEHOLDERS = frozenset({"diagnosis", "procedure", "complication"})

_SCHEMA = ConfigDict(extra="forbid")
"""Every class below rejects a field it does not know, so a misspelt field name is reported, not ignored."""


def _named(catalog: str) -> Callable[[Any, ValidationInfo], Any]:
    """A validator that replaces a name by the entry of that name in the file's ``catalog`` (validation context)."""

    def resolve(value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value
        named: dict[str, Any] = (info.context or {}).get(catalog, {})
        if value not in named:
            known = ", ".join(sorted(named)) or "none"
            raise ValueError(f"no entry {value!r} in the file's {catalog} (it names: {known})")
        return named[value]

    return resolve


@dataclass(frozen=True, config=_SCHEMA)
class Diagnosis:
    """An ICD-10-CM diagnosis and the ways a discharge summary names it.

    ``code`` is written without the dot, as MIMIC-IV stores it (``S72001A``); ``phrases`` are plain-language
    names a clinician would write ("right femoral neck fracture", "R hip fx").
    """

    code: str
    phrases: Text


@dataclass(frozen=True, config=_SCHEMA)
class Procedure:
    """An ICD-10-PCS procedure (seven characters) and the ways a note names it."""

    code: str
    phrases: Text


@dataclass(frozen=True, config=_SCHEMA)
class Medication:
    """One prescription, written both to ``prescriptions.csv`` and to the note's medication lists.

    ``drug`` is the name as MIMIC-IV's ``prescriptions.drug`` has it ("Citalopram"); ``dose`` and ``unit`` are
    the strength of one dose ("20", "mg"); ``route`` is MIMIC's route ("PO", "IV", "SC", "PO/NG");
    ``frequency`` is the sig as the note prints it ("DAILY", "BID", "Q6H:PRN pain"). ``form`` is the
    dispensed form ("TAB", "CAP", "VIAL", "SYR", "INH", "PTCH"). ``purpose`` says in plain words what it is for,
    used in discharge instructions ("for your mood").
    """

    drug: str
    dose: str
    unit: str
    route: str
    frequency: str
    form: str = "TAB"
    purpose: str = ""


NamedDiagnosis = Annotated[Diagnosis, BeforeValidator(_named("diagnoses"))]
"""A diagnosis, or the name of one in the file's ``diagnoses``."""
NamedProcedure = Annotated[Procedure, BeforeValidator(_named("procedures"))]
"""A procedure, or the name of one in the file's ``procedures``."""
NamedMedication = Annotated[Medication, BeforeValidator(_named("medications"))]
"""A medication, or the name of one in the file's ``medications``."""


@dataclass(frozen=True, config=_SCHEMA)
class Finding:
    """A sentence of the Physical Exam or Pertinent Results section that states one finding.

    The whole chosen sentence is the gold fact. ``probability`` is the chance that a note includes it.
    ``noise`` marks findings unrelated to the admission's problem (incidental nodules, old scars).
    """

    section: Literal["Physical Exam", "Pertinent Results"]
    text: Text
    probability: float = 1.0
    noise: bool = False


@dataclass(frozen=True, config=_SCHEMA)
class Complication:
    """Something that may go wrong during the stay.

    When it happens (with ``probability``), its diagnosis is coded, each ``course`` alternative (which must
    contain ``{complication}``) adds a paragraph to the Brief Hospital Course, and ``medications`` join the
    discharge list.
    """

    diagnosis: NamedDiagnosis
    probability: float
    course: Text
    medications: tuple[NamedMedication, ...] = ()


NamedComplication = Annotated[Complication, BeforeValidator(_named("complications"))]
"""A complication, or the name of one in the file's ``complications``."""


@dataclass(frozen=True, config=_SCHEMA)
class SocialFact:
    """A social-history fact a storyline implies (alcohol use for withdrawal, smoking for COPD)."""

    text: Text


@dataclass(frozen=True, config=_SCHEMA)
class Storyline:
    """One kind of hospital stay, from admission to discharge.

    ``service`` is the MIMIC-IV ``services.curr_service`` code (MED, SURG, ORTHO, PSYCH, CMED, CSURG, NMED,
    NSURG, OBS, GU, ...); ``note_service`` is how the discharge summary header prints it ("ORTHOPAEDICS").
    ``next_storylines`` are keys of storylines that plausibly follow this one for the same patient on a later
    admission (a heart-failure patient readmitted, a stroke patient falling), so longitudinal patients progress.
    """

    key: str
    title: str
    service: str
    note_service: str
    ages: tuple[int, int]
    length_of_stay: tuple[int, int]
    admission_types: tuple[str, ...]
    admission_locations: tuple[str, ...]
    discharge_locations: tuple[str, ...]
    chief_complaints: Text
    diagnosis: NamedDiagnosis
    hpi: Text
    course: tuple[Text, ...]
    instructions: Text
    medications: tuple[NamedMedication, ...] = ()
    secondary: tuple[NamedDiagnosis, ...] = ()
    procedures: tuple[NamedProcedure, ...] = ()
    findings: tuple[Finding, ...] = ()
    complications: tuple[NamedComplication, ...] = ()
    social: tuple[SocialFact, ...] = ()
    sexes: str = "FM"
    next_storylines: tuple[str, ...] = ()
    followup: Text = field(default=("Please follow up with your primary care physician within 1-2 weeks.",))


@dataclass(frozen=True, config=_SCHEMA)
class Comorbidity:
    """A chronic condition a patient carries across admissions, with the home medications that treat it."""

    key: str
    diagnosis: NamedDiagnosis
    medications: tuple[NamedMedication, ...]
    prevalence: float
    min_age: int = 18
    sexes: str = "FM"
