"""Independent truth for population questions: the generated CSVs and gold facts, counted in plain Python.

A question's truth is a small declarative spec (``population_questions.jsonl``), never the query the planner made:
a cohort (``dx``/``px`` ICD prefixes, ``drug`` names, ``service``, ``dept``, ``admission_type``, ``insurance``,
``sex``, ``age``/``year`` ranges, ``text``: a truth of `clinrag.population.text_gold` derived from gold facts), a
measure (``count``, ``share``, ``top``), the unit, the grouping and the hospitals named. Nothing here imports the
counting code (``population.count``, ``sql``, ``suppress``, ``merge``); departments come from each hospital's TOML
and ``hosp/services.csv``, and what a demo user may see from `ACCESS`, written by hand from the demo's Cedar
policies: the departments each user may search, psychiatry (service or department) at A for clinicians only, and
sensitive facts (mental health, substance use, reproductive: ICD F1-F9, O, Z3A, R45851; substance-use drugs; heavy
alcohol use and illicit drug use in notes) for clinicians only.

Example:
    >>> spec = TruthSpec.model_validate({"cohort": [{"dx": ["I10"]}], "unit": "patient"})
    >>> spec.measure, spec.cohort[0].dx
    ('count', ('I10',))
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from clinrag.population.text_gold import truth_of

ALL_A: Final = frozenset({"admissions", "medicine", "psychiatry", "surgery", "orthopaedics"})
ALL_B: Final = frozenset({"admissions", "medicine", "cardiothoracic"})
ALL_C: Final = frozenset({"admissions", "neurology"})
ACCESS: Final[Mapping[str, Mapping[str, frozenset[str]]]] = {
    "A.phys.neur": {"A": ALL_A, "B": ALL_B, "C": ALL_C},
    "A.phys": {"A": ALL_A, "B": ALL_B},
    "A.nurse": {"A": ALL_A, "B": ALL_B},
    "A.tech.rad": {"A": frozenset({"orthopaedics"})},
    "A.admin": {"A": frozenset({"admissions"})},
    "B.phys": {"A": ALL_A, "B": ALL_B},
    "B.nurse": {"A": frozenset({"admissions"}), "B": ALL_B},
    "C.research": {"C": ALL_C},
}
"""Departments each demo user may count at each hospital (a hospital not listed: denied), from the Cedar policies."""
CLINICIANS: Final = frozenset({"A.phys.neur", "A.phys", "A.nurse", "B.phys", "B.nurse"})
EVERYONE: Final = "everyone"
"""The asker of a one-node run (``clinrag ask --node``): every department, every document."""
MIN_CELL: Final = 5
EXCLUSIVE: Final = frozenset({"insurance", "admission_type", "dept"})
_SENSITIVE_DX: Final = re.compile(r"^(?:F[1-9]|O|Z3A|R45851|B20|Z21)")
_SENSITIVE_DRUGS: Final = ("naltrexone", "disulfiram", "acamprosate", "buprenorphine", "methadone")
_SENSITIVE_TEXT: Final = frozenset({"alcohol_heavy", "drug_use"})


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Criterion(_Spec):
    """One criterion of a truth spec: exactly one field set."""

    dx: tuple[str, ...] = ()
    px: tuple[str, ...] = ()
    drug: tuple[str, ...] = ()
    service: tuple[str, ...] = ()
    dept: tuple[str, ...] = ()
    admission_type: tuple[str, ...] = ()
    insurance: tuple[str, ...] = ()
    sex: str = ""
    age: tuple[int | None, int | None] | None = None
    year: tuple[int | None, int | None] | None = None
    text: str = ""


class TruthSpec(_Spec):
    """How one query's truth is computed (one per alternative of a comparison)."""

    label: str = ""
    cohort: tuple[Criterion, ...] = ()
    measure: Literal["count", "share", "top"] = "count"
    of: str | None = None
    n: int = 5
    unit: Literal["patient", "admission"] = "patient"
    group_by: tuple[str, ...] = ()
    orgs: tuple[str, ...] = ()


@dataclass
class Stay:
    """One admission as the CSVs hold it."""

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
    complaints: set[str] = field(default_factory=set)


def _rows(path: Path) -> Iterator[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(handle)


def _complaint(text: str) -> str:
    return re.sub(r"[\s.;:,]+$", "", " ".join(text.split()).lower())[:120]


class Hospital:
    """One hospital folder of a generated cohort, read with the csv module."""

    def __init__(self, folder: Path, facts: list[dict[str, object]]) -> None:
        config = tomllib.loads((folder / "clinrag-source.toml").read_text(encoding="utf-8"))
        self.org: str = config["org"]
        departments = {k.upper(): v for k, v in config.get("departments", {}).items()}
        latest: dict[int, tuple[str, str]] = {}
        for row in _rows(folder / "hosp" / "services.csv"):
            hadm = int(row["hadm_id"])
            if hadm not in latest or latest[hadm][0] <= row["transfertime"]:
                latest[hadm] = (row["transfertime"], row["curr_service"])
        patients = {int(r["subject_id"]): r for r in _rows(folder / "hosp" / "patients.csv")}
        self.stays: dict[int, Stay] = {}
        for row in _rows(folder / "hosp" / "admissions.csv"):
            hadm, subject, year = int(row["hadm_id"]), int(row["subject_id"]), int(row["admittime"][:4])
            patient, service = patients[subject], latest[hadm][1]
            age = int(patient["anchor_age"]) + year - int(patient["anchor_year"])
            self.stays[hadm] = Stay(
                hadm, subject, service, departments[service], year, age, patient["gender"].upper(),
                row["admission_type"], row["insurance"],
            )  # fmt: skip
        for row in _rows(folder / "hosp" / "diagnoses_icd.csv"):
            self.stays[int(row["hadm_id"])].diagnoses.append((int(row["seq_num"]), row["icd_code"].strip().upper()))
        for row in _rows(folder / "hosp" / "procedures_icd.csv"):
            self.stays[int(row["hadm_id"])].procedures.add(row["icd_code"].strip().upper())
        for row in _rows(folder / "hosp" / "prescriptions.csv"):
            self.stays[int(row["hadm_id"])].drugs.add(" ".join(row["drug"].split()).lower())
        mine = [f for f in facts if f.get("org") == self.org]
        for fact in mine:
            if fact.get("kind") == "finding" and fact.get("value") == "chief complaint":
                self.stays[int(str(fact["hadm_id"]))].complaints.add(_complaint(str(fact["label"])))
        self.text = {name: {hadm for _, hadm in found} for name, found in truth_of(mine).items()}


def load_cohort(cohort: Path) -> dict[str, Hospital]:
    """Every hospital of a generated cohort folder (``hospitals/ORG`` and ``gold_facts.jsonl``)."""
    with (cohort / "gold_facts.jsonl").open(encoding="utf-8") as handle:
        facts = [json.loads(line) for line in handle if line.strip()]
    return {p.name: Hospital(p, facts) for p in sorted((cohort / "hospitals").iterdir()) if p.is_dir()}


@dataclass
class OrgTruth:
    """What one hospital should report: ``denied``, ``refused``, or the counts (unsuppressed)."""

    org: str
    status: Literal["ok", "refused", "denied"]
    total: int = 0
    denominator: int | None = None
    cells: dict[tuple[tuple[str, ...], str | None], int] = field(default_factory=dict)
    denominators: dict[tuple[str, ...], int] = field(default_factory=dict)


class _View:
    """What one user sees of one hospital."""

    def __init__(self, hospital: Hospital, depts: frozenset[str] | None, clinician: bool) -> None:
        self.hospital, self.depts, self.clinician = hospital, depts, clinician

    def psych_hidden(self, stay: Stay) -> bool:
        return (
            self.hospital.org == "A" and not self.clinician and (stay.service == "PSYCH" or stay.dept == "psychiatry")
        )

    def clinical(self, stay: Stay) -> bool:
        return (self.depts is None or stay.dept in self.depts) and not self.psych_hidden(stay)

    def admin(self, stay: Stay) -> bool:
        return (self.depts is None or "admissions" in self.depts) and not (
            self.hospital.org == "A" and not self.clinician and stay.service == "PSYCH"
        )

    def diagnoses(self, stay: Stay) -> list[tuple[int, str]]:
        if not self.clinical(stay):
            return []
        return [(s, c) for s, c in stay.diagnoses if self.clinician or not _SENSITIVE_DX.match(c)]

    def drugs(self, stay: Stay) -> set[str]:
        if not self.clinical(stay):
            return set()
        return {d for d in stay.drugs if self.clinician or not d.startswith(_SENSITIVE_DRUGS)}

    def holds(self, stay: Stay, c: Criterion) -> bool:
        if c.dx:
            return any(code.startswith(c.dx) for _, code in self.diagnoses(stay))
        if c.px:
            return self.clinical(stay) and any(code.startswith(c.px) for code in stay.procedures)
        if c.drug:
            return any(d == w or d.startswith(w + " ") for d in self.drugs(stay) for w in c.drug)
        if c.service or c.dept:
            return self.clinical(stay) and (stay.service in c.service or stay.dept in c.dept)
        if c.admission_type or c.insurance:
            return self.admin(stay) and (stay.admission_type in c.admission_type or stay.insurance in c.insurance)
        if c.sex:
            return stay.sex == c.sex
        if c.age is not None or c.year is not None:
            low, high = c.age if c.age is not None else c.year  # type: ignore[misc]
            value = stay.age if c.age is not None else stay.year
            return (low is None or value >= low) and (high is None or value <= high)
        if not self.clinical(stay) or (not self.clinician and c.text in _SENSITIVE_TEXT):
            return False
        found = self.hospital.text[c.text]
        if c.text == "alcohol_use" and not self.clinician:  # heavy use is substance use: sensitive
            found = found - self.hospital.text["alcohol_heavy"]
        return stay.hadm in found

    def items(self, stay: Stay, of: str) -> list[str]:
        admin, clinical = self.admin(stay), self.clinical(stay)
        found = {
            "diagnosis": lambda: [c for _, c in self.diagnoses(stay)],
            "complication": lambda: [c for s, c in self.diagnoses(stay) if s > 1],
            "procedure": lambda: sorted(stay.procedures) if clinical else [],
            "medication": lambda: sorted(self.drugs(stay)),
            "chief_complaint": lambda: sorted(stay.complaints) if clinical else [],
            "insurance": lambda: [stay.insurance] if admin else [],
            "admission_type": lambda: [stay.admission_type] if admin else [],
            "dept": lambda: [stay.dept] if clinical else [],
        }
        return found[of]()

    def group(self, stay: Stay, group_by: tuple[str, ...]) -> tuple[str, ...]:
        dept = stay.dept if self.clinical(stay) else "admissions"
        values = {"org": self.hospital.org, "dept": dept, "year": str(stay.year)}
        return tuple(values[g] for g in group_by)


def org_truth(hospital: Hospital, spec: TruthSpec, depts: frozenset[str] | None, clinician: bool) -> OrgTruth:
    """The counts ``hospital`` should report for ``spec`` to an asker who may see ``depts`` (None: all)."""
    view = _View(hospital, depts, clinician)

    def unit(stay: Stay) -> int:
        return stay.subject if spec.unit == "patient" else stay.hadm

    seen = [s for s in hospital.stays.values() if view.clinical(s) or view.admin(s)]
    cohort = [s for s in seen if all(view.holds(s, c) for c in spec.cohort)]
    cells: dict[tuple[tuple[str, ...], str | None], set[int]] = defaultdict(set)
    dens: dict[tuple[str, ...], set[int]] = defaultdict(set)
    for stay in cohort:
        items: list[str | None] = list(view.items(stay, spec.of)) if spec.of else [None]
        for item in items:
            cells[view.group(stay, spec.group_by), item].add(unit(stay))
    for stay in seen:
        dens[view.group(stay, spec.group_by)].add(unit(stay))
    truth = OrgTruth(
        org=hospital.org,
        status="ok",
        total=len({unit(s) for s in cohort}),
        denominator=len({unit(s) for s in seen}) if spec.measure == "share" else None,
        cells={k: len(v) for k, v in cells.items()},
        denominators={k: len(v) for k, v in dens.items()} if spec.measure == "share" and spec.group_by else {},
    )
    if _refused(truth, spec):
        truth.status = "refused"
    return truth


def shown(value: int, min_cell: int = MIN_CELL) -> tuple[int, int]:
    """A count as it may be shown, as a range: exact (v, v), or (1, min_cell - 1) for a small cell."""
    return (1, min_cell - 1) if 0 < value < min_cell else (value, value)


def shown_share(numerator: int, denominator: int, min_cell: int = MIN_CELL) -> tuple[tuple[int, int], tuple[int, int]]:
    """A share's numerator and denominator as they may be shown (a small complement widens the numerator)."""
    den = shown(denominator, min_cell)
    if den[0] != den[1]:
        return ((1, min_cell - 1) if numerator else (0, 0)), den
    num = shown(numerator, min_cell)
    if num[0] == num[1] and 0 < denominator - numerator < min_cell:
        num = (max(denominator - min_cell + 1, 0), denominator - 1)
    return num, den


def text(bounds: tuple[int, int | None], min_cell: int = MIN_CELL) -> str:
    """``12``, ``<5`` or ``≥13``, as the answer writes a count known within ``bounds``."""
    low, high = bounds
    if low == high:
        return str(low)
    return f"<{min_cell}" if high is not None and high < min_cell else f"≥{low}"


def _refused(truth: OrgTruth, spec: TruthSpec) -> bool:
    exclusive = (spec.of in EXCLUSIVE) if spec.measure == "top" else bool(spec.group_by)
    if not exclusive:
        return False
    if spec.measure == "share":
        total, den = shown_share(truth.total, truth.denominator or 0)
        pairs = [shown_share(truth.cells.get((g, None), 0), n) for g, n in truth.denominators.items()]
        rows, row_dens = [p[0] for p in pairs], [p[1] for p in pairs]
        return _difference(total, rows) or _difference(den, row_dens)
    return _difference(shown(truth.total), [shown(n) for n in truth.cells.values()])


def _difference(total: tuple[int, int], rows: list[tuple[int, int]]) -> bool:
    if total[0] != total[1] or all(low == high for low, high in rows):
        return False
    return total[0] - sum(low for low, high in rows if low == high) < MIN_CELL


def truths(hospitals: Mapping[str, Hospital], spec: TruthSpec, user: str) -> dict[str, OrgTruth]:
    """Every hospital's truth for ``user`` (a demo user's subject, or `EVERYONE`) over the hospitals asked."""
    asked = [org for org in sorted(hospitals) if not spec.orgs or org in spec.orgs]
    out: dict[str, OrgTruth] = {}
    for org in asked:
        if user == EVERYONE:
            out[org] = org_truth(hospitals[org], spec, None, True)
            continue
        depts = ACCESS[user].get(org, frozenset())
        if not depts:
            out[org] = OrgTruth(org=org, status="denied")
            continue
        out[org] = org_truth(hospitals[org], spec, depts, user in CLINICIANS)
    return out
