"""Code systems clinrag reads from FHIR codings, with their names as rows show them, and ICD codes in MIMIC form.

ICD-10-CM and ICD-9-CM diagnoses and ICD-10-PCS procedures become MIMIC-IV coded rows (``icd_code`` without its
dot, ``icd_version`` 10 or 9); SNOMED CT, LOINC, RxNorm and other systems keep their code and name in rows of their
own resource's table.

Example:
    >>> icd_of([("http://hl7.org/fhir/sid/icd-10-cm", "S72.001A", "Fracture")], DIAGNOSIS)
    ('S72001A', 10, 'Fracture')
    >>> system_name("http://loinc.org")
    'LOINC'
"""

from __future__ import annotations

from typing import Final

ICD10CM: Final = "http://hl7.org/fhir/sid/icd-10-cm"
ICD9CM: Final = "http://hl7.org/fhir/sid/icd-9-cm"
ICD10PCS: Final = "http://www.cms.gov/Medicare/Coding/ICD10"
SNOMED: Final = "http://snomed.info/sct"
LOINC: Final = "http://loinc.org"
RXNORM: Final = "http://www.nlm.nih.gov/research/umls/rxnorm"
CPT: Final = "http://www.ama-assn.org/go/cpt"
MIMIC_CODES: Final = "http://mimic.mit.edu/fhir/mimic/CodeSystem/"

NAMES: Final[dict[str, str]] = {
    ICD10CM: "ICD-10-CM",
    ICD9CM: "ICD-9-CM",
    ICD10PCS: "ICD-10-PCS",
    SNOMED: "SNOMED CT",
    LOINC: "LOINC",
    RXNORM: "RxNorm",
    CPT: "CPT",
    "http://hl7.org/fhir/sid/ndc": "NDC",
    "http://unitsofmeasure.org": "UCUM",
}
"""Names of well-known systems, as row text shows them."""

DIAGNOSIS: Final = {ICD10CM: 10, ICD9CM: 9, "http://hl7.org/fhir/sid/icd-10": 10}
"""Diagnosis systems that make a MIMIC-IV ``diagnoses_icd`` row, with their ``icd_version``."""
PROCEDURE: Final = {ICD10PCS: 10, ICD9CM: 9, "http://hl7.org/fhir/sid/icd-9-cm/procedure": 9}
"""Procedure systems that make a MIMIC-IV ``procedures_icd`` row, with their ``icd_version``."""

Coding = tuple[str, str, str | None]


def _mimic_icd(system: str) -> int | None:
    """MIMIC-IV on FHIR's own ICD code systems (``.../mimic-diagnosis-icd10``) and their version."""
    if not system.startswith(MIMIC_CODES) or "icd" not in system:
        return None
    return 10 if system.endswith("10") else 9 if system.endswith("9") else None


def icd_of(found: list[Coding], systems: dict[str, int]) -> tuple[str, int, str | None] | None:
    """The first ICD coding among ``found`` in ``systems``: (code without dots, version, display)."""
    for system, code, display in found:
        version = systems.get(system) or _mimic_icd(system)
        if version:
            return code.replace(".", "").strip().upper(), version, display
    return None


def system_name(system: str) -> str:
    """A readable name for a code system URI (the URI itself when unknown)."""
    return NAMES.get(system, system)


def preferred(found: list[Coding], order: tuple[str, ...]) -> Coding | None:
    """The first coding of the systems in ``order`` (by that order), else the first coding, else None."""
    for wanted in order:
        for coding in found:
            if coding[0] == wanted:
                return coding
    return found[0] if found else None


def dotted_icd10cm(code: str) -> str:
    """An ICD-10-CM code with its dot after the category, as FHIR writes it.

    Example:
        >>> dotted_icd10cm("S72001A"), dotted_icd10cm("I10")
        ('S72.001A', 'I10')
    """
    return f"{code[:3]}.{code[3:]}" if len(code) > 3 and "." not in code else code
