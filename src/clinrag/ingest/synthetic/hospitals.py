"""The case-study federation: which hospital and department each admission of the cohort belongs to.

Hospital A has admissions, medicine, surgery, orthopaedics and psychiatry; Hospital B admissions, medicine and
cardiothoracic; Hospital C admissions and neurology. Medicine exists at A and B, so a medical stay goes to the
patient's home hospital; every neurology or neurosurgery stay goes to C, and its patients also have stays at A
or B. Structured admission rows live in each hospital's ``admissions`` department.

Example:
    >>> CASE_STUDY["B"].departments["CSURG"]
    'cardiothoracic'
"""

from __future__ import annotations

from dataclasses import dataclass, field

ADMISSIONS_DEPARTMENT = "admissions"


@dataclass(frozen=True)
class Hospital:
    """One organisation of the federation and its service-to-department map (MIMIC service codes)."""

    org: str
    name: str
    departments: dict[str, str] = field(default_factory=dict)

    @property
    def department_names(self) -> tuple[str, ...]:
        """The hospital's departments, admissions first, in a stable order."""
        names = dict.fromkeys([ADMISSIONS_DEPARTMENT, *self.departments.values()])
        return tuple(names)


CASE_STUDY: dict[str, Hospital] = {
    "A": Hospital(
        "A",
        "Hospital A",
        {
            "MED": "medicine",
            "SURG": "surgery",
            "GU": "surgery",
            "OBS": "surgery",
            "ORTHO": "orthopaedics",
            "PSYCH": "psychiatry",
        },
    ),
    "B": Hospital("B", "Hospital B", {"MED": "medicine", "CMED": "cardiothoracic", "CSURG": "cardiothoracic"}),
    "C": Hospital("C", "Hospital C", {"NMED": "neurology", "NSURG": "neurology"}),
}
"""The three hospitals of the case study, by organisation code."""

HOME_HOSPITALS = ("A", "B")
"""Hospitals that can be a patient's home for medical stays."""


def hospital_for(service: str, home: str) -> str:
    """The organisation that holds a stay of ``service`` for a patient whose home hospital is ``home``.

    Example:
        >>> hospital_for("MED", "B"), hospital_for("NSURG", "A"), hospital_for("ORTHO", "B")
        ('B', 'C', 'A')
    """
    if service in CASE_STUDY[home].departments:
        return home
    for org, hospital in CASE_STUDY.items():
        if service in hospital.departments:
            return org
    raise KeyError(f"no hospital of the case study has service {service!r}")
