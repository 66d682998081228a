"""Which organisation a MIMIC-IV folder belongs to and how its services map to departments.

A folder may carry a ``clinrag-source.toml`` (the synthetic hospitals do); otherwise the organisation comes
from the command line and departments from MIMIC-IV's service codes.

Example:
    >>> config = SourceConfig(org="A")
    >>> config.department_of("ORTHO"), config.department_of("ORTHOPAEDICS"), config.department_of(None)
    ('orthopaedics', 'orthopaedics', 'other')
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.errors import ConfigError

SOURCE_FILE = "clinrag-source.toml"

DEFAULT_DEPARTMENTS: dict[str, str] = {
    "MED": "medicine",
    "CMED": "cardiology",
    "CSURG": "cardiothoracic",
    "SURG": "surgery",
    "VSURG": "vascular",
    "TSURG": "thoracic",
    "PSURG": "plastic",
    "TRAUM": "trauma",
    "ORTHO": "orthopaedics",
    "PSYCH": "psychiatry",
    "NMED": "neurology",
    "NSURG": "neurosurgery",
    "OBS": "obstetrics",
    "GYN": "gynecology",
    "GU": "urology",
    "OMED": "oncology",
    "ENT": "ent",
    "EYE": "ophthalmology",
    "DENT": "dental",
    "NB": "newborn",
    "NBB": "newborn",
}
"""MIMIC-IV ``services.curr_service`` codes and a department name for each."""

NOTE_SERVICES: dict[str, str] = {
    "MEDICINE": "MED",
    "CARDIOLOGY": "CMED",
    "CARDIOTHORACIC": "CSURG",
    "CARDIAC SURGERY": "CSURG",
    "SURGERY": "SURG",
    "GENERAL SURGERY": "SURG",
    "VASCULAR": "VSURG",
    "THORACIC SURGERY": "TSURG",
    "PLASTIC": "PSURG",
    "ORTHOPAEDICS": "ORTHO",
    "ORTHOPEDICS": "ORTHO",
    "PSYCHIATRY": "PSYCH",
    "NEUROLOGY": "NMED",
    "NEUROSURGERY": "NSURG",
    "OBSTETRICS/GYNECOLOGY": "OBS",
    "OBSTETRICS": "OBS",
    "GYNECOLOGY": "GYN",
    "UROLOGY": "GU",
    "OTOLARYNGOLOGY": "ENT",
    "OPHTHALMOLOGY": "EYE",
    "ONCOLOGY": "OMED",
}
"""How the ``Service:`` line of a discharge note names a service, mapped to the MIMIC-IV code."""


@dataclass(frozen=True)
class SourceConfig:
    """The organisation of a MIMIC folder and its service-code-to-department map."""

    org: str
    name: str = ""
    admissions_department: str = "admissions"
    departments: dict[str, str] = field(default_factory=dict)

    def service_code(self, service: str | None) -> str | None:
        """A MIMIC service code for a code or a note's Service line ("ORTHOPAEDICS" -> "ORTHO")."""
        if not service:
            return None
        upper = service.strip().upper()
        return NOTE_SERVICES.get(upper, upper)

    def department_of(self, service: str | None) -> str:
        """The department that holds stays of ``service`` (code or note name); 'other' when unknown."""
        code = self.service_code(service)
        if code is None:
            return "other"
        return self.departments.get(code) or DEFAULT_DEPARTMENTS.get(code) or code.lower()


def load_source_config(root: Path, org: str | None = None) -> SourceConfig:
    """Read ``root/clinrag-source.toml`` if present; ``org`` overrides its organisation.

    Without the file, ``org`` is required.
    """
    path = root / SOURCE_FILE
    data: dict[str, object] = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    chosen = org or data.get("org")
    if not isinstance(chosen, str) or not chosen:
        raise ConfigError(f"{root}: no organisation given; pass --org or add 'org = \"...\"' to {path}")
    departments = data.get("departments", {})
    if not isinstance(departments, dict):
        raise ConfigError(f'{path}: [departments] must be a table of SERVICE = "department"')
    return SourceConfig(
        org=chosen,
        name=str(data.get("name", chosen)),
        admissions_department=str(data.get("admissions_department", "admissions")),
        departments={str(k).upper(): str(v) for k, v in departments.items()},
    )
