"""Independent truth for population counts: the generated CSVs read with the csv module, counted in plain Python.

Nothing here imports clinrag's counting code; departments come from the hospital's TOML and hosp/services.csv.
"""

from __future__ import annotations

import csv
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.population.query import (
    CodeCriterion,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    TextCriterion,
    ValueCriterion,
)

NOTE_NAMES = {"ORTHOPAEDICS": "ORTHO", "MEDICINE": "MED", "SURGERY": "SURG", "NEUROLOGY": "NMED"}


def _rows(folder: Path, name: str) -> Iterator[dict[str, str]]:
    with (folder / "hosp" / f"{name}.csv").open(newline="") as handle:
        yield from csv.DictReader(handle)


@dataclass
class Stay:
    hadm: int
    subject: int
    service: str
    dept: str
    year: int
    age: int
    sex: str
    admission_type: str
    insurance: str
    diagnoses: list[tuple[int, str]] = field(default_factory=list)
    procedures: set[str] = field(default_factory=set)
    drugs: set[str] = field(default_factory=set)


class Truth:
    """One hospital folder's stays, and counts over them for an asker who sees ``allowed`` departments."""

    def __init__(self, folder: Path) -> None:
        config = tomllib.loads((folder / "clinrag-source.toml").read_text())
        self.org = config["org"]
        departments = {k.upper(): v for k, v in config.get("departments", {}).items()}
        latest: dict[int, tuple[str, str]] = {}
        for row in _rows(folder, "services"):
            hadm = int(row["hadm_id"])
            if hadm not in latest or latest[hadm][0] <= row["transfertime"]:
                latest[hadm] = (row["transfertime"], row["curr_service"])
        patients = {int(r["subject_id"]): r for r in _rows(folder, "patients")}
        self.stays: dict[int, Stay] = {}
        for row in _rows(folder, "admissions"):
            hadm, subject = int(row["hadm_id"]), int(row["subject_id"])
            service = latest[hadm][1]
            year = int(row["admittime"][:4])
            patient = patients[subject]
            self.stays[hadm] = Stay(
                hadm,
                subject,
                service,
                departments[service],
                year,
                int(patient["anchor_age"]) + year - int(patient["anchor_year"]),
                patient["gender"],
                row["admission_type"],
                row["insurance"],
            )
        for row in _rows(folder, "diagnoses_icd"):
            self.stays[int(row["hadm_id"])].diagnoses.append((int(row["seq_num"]), row["icd_code"]))
        for row in _rows(folder, "procedures_icd"):
            self.stays[int(row["hadm_id"])].procedures.add(row["icd_code"])
        for row in _rows(folder, "prescriptions"):
            self.stays[int(row["hadm_id"])].drugs.add(" ".join(row["drug"].split()).lower())

    def _holds(self, stay: Stay, criterion: object, clinical: bool, admin: bool, text: dict[object, set[int]]) -> bool:
        if isinstance(criterion, CodeCriterion):
            codes = [c for _, c in stay.diagnoses] if criterion.kind == "diagnosis" else stay.procedures
            return clinical and any(code.startswith(p) for code in codes for p in criterion.prefixes)
        if isinstance(criterion, MedicationCriterion):
            wanted = [d.lower() for d in criterion.drugs]
            return clinical and any(d == w or d.startswith(w + " ") for d in stay.drugs for w in wanted)
        if isinstance(criterion, ValueCriterion):
            values = {v.upper() for v in criterion.values}
            if criterion.kind == "service":
                values = {NOTE_NAMES.get(v, v) for v in values}
            got = {
                "service": (clinical, stay.service),
                "dept": (clinical, stay.dept),
                "admission_type": (admin, stay.admission_type),
                "insurance": (admin, stay.insurance),
                "sex": (True, stay.sex),
            }[criterion.kind]
            return got[0] and got[1].upper() in values
        if isinstance(criterion, RangeCriterion):
            value = stay.age if criterion.kind == "age" else stay.year
            return (criterion.low is None or value >= criterion.low) and (
                criterion.high is None or value <= criterion.high
            )
        assert isinstance(criterion, TextCriterion)
        return clinical and stay.hadm in text[criterion]

    def seen(self, allowed: frozenset[str] | None) -> list[tuple[Stay, bool, bool]]:
        """(stay, clinical facts visible, administrative row visible) for every stay the asker sees."""
        out = []
        for stay in self.stays.values():
            clinical = allowed is None or stay.dept in allowed
            admin = allowed is None or "admissions" in allowed
            if clinical or admin:
                out.append((stay, clinical, admin))
        return out

    def answer(
        self, query: PopulationQuery, allowed: frozenset[str] | None, text: dict[object, set[int]] | None = None
    ) -> tuple[int, int, dict[tuple[tuple[str, ...], str | None], int]]:
        """(cohort size, denominator, {(group values, item): count}) in distinct units."""
        unit = (lambda s: s.subject) if query.unit == "patient" else (lambda s: s.hadm)
        seen = self.seen(allowed)
        cohort = [(s, c, a) for s, c, a in seen if all(self._holds(s, k, c, a, text or {}) for k in query.cohort)]

        def key(stay: Stay, clinical: bool) -> tuple[str, ...]:
            values = {"org": self.org, "dept": stay.dept if clinical else "admissions", "year": str(stay.year)}
            return tuple(values[g] for g in query.group_by)

        cells: dict[tuple[tuple[str, ...], str | None], set[int]] = defaultdict(set)
        for stay, clinical, admin in cohort:
            items: list[str | None] = [None]
            of = query.measure.of
            if of is not None:
                items = {
                    "diagnosis": [c for _, c in stay.diagnoses] if clinical else [],
                    "complication": [c for seq, c in stay.diagnoses if seq > 1] if clinical else [],
                    "procedure": sorted(stay.procedures) if clinical else [],
                    "medication": sorted(stay.drugs) if clinical else [],
                    "insurance": [stay.insurance] if admin else [],
                    "admission_type": [stay.admission_type] if admin else [],
                    "dept": [stay.dept] if clinical else [],
                }[of]
            for item in items:
                cells[key(stay, clinical), item].add(unit(stay))
        total = len({unit(s) for s, _, _ in cohort})
        denominator = len({unit(s) for s, _, _ in seen})
        return total, denominator, {k: len(v) for k, v in cells.items()}

    def denominators(self, query: PopulationQuery, allowed: frozenset[str] | None) -> Counter[tuple[str, ...]]:
        """Distinct units the asker sees per group (shares)."""
        unit = (lambda s: s.subject) if query.unit == "patient" else (lambda s: s.hadm)
        groups: dict[tuple[str, ...], set[int]] = defaultdict(set)
        for stay, clinical, _ in self.seen(allowed):
            values = {"org": self.org, "dept": stay.dept if clinical else "admissions", "year": str(stay.year)}
            groups[tuple(values[g] for g in query.group_by)].add(unit(stay))
        return Counter({k: len(v) for k, v in groups.items()})
