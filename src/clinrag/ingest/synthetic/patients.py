"""One synthetic patient: a life of admissions whose codes, prescriptions and discharge notes agree.

Every patient is generated from its own random stream, seeded by the cohort seed and the patient's index, so a
cohort is identical whatever the number of worker processes.

Example:
    >>> patient = generate_patient(seed=42, index=0, start_year=2012, end_year=2024)
    >>> patient.rows["patients"][0][0] == str(patient.subject_id)
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from clinrag.ingest.mimic_schema import DATE_FORMAT, DATETIME_FORMAT
from clinrag.ingest.synthetic.hospitals import HOME_HOSPITALS, hospital_for
from clinrag.ingest.synthetic.model import Comorbidity, Medication, Storyline
from clinrag.ingest.synthetic.notewriter import Fact
from clinrag.ingest.synthetic.people import (
    LANGUAGES,
    MARITAL,
    RACES,
    insurance_for,
    person_name,
    provider_id,
    weighted,
)
from clinrag.ingest.synthetic.render import Stay, render_discharge_summary
from clinrag.ingest.synthetic.storylines import COMORBIDITIES, STORYLINES, storyline_by_key

SUBJECT_ID_BASE = 10_000_000
HADM_ID_BASE = 20_000_000
ADMISSION_COUNTS = ((1, 0.5), (2, 0.25), (3, 0.13), (4, 0.07), (5, 0.03), (6, 0.02))
NEURO_SERVICES = frozenset({"NMED", "NSURG"})
FOLLOW_STORYLINE = 0.65


@dataclass
class PatientRecords:
    """Everything generated for one patient: MIMIC rows per table (as CSV fields), gold facts, routing."""

    subject_id: int
    name: str
    rows: dict[str, list[list[str]]] = field(default_factory=dict)
    facts: list[dict[str, object]] = field(default_factory=list)
    org_of_hadm: dict[int, str] = field(default_factory=dict)

    def add(self, table: str, row: list[str]) -> None:
        """Append a row to ``table``."""
        self.rows.setdefault(table, []).append(row)


def patient_rng(seed: int, index: int) -> random.Random:
    """The random stream of patient ``index`` in a cohort of ``seed``."""
    return random.Random(seed * 1_000_003 + index)


def _fmt(moment: datetime) -> str:
    return moment.strftime(DATETIME_FORMAT)


def _plan_storylines(rng: random.Random, first: Storyline, count: int, sex: str, age: int) -> list[Storyline]:
    plan = [first]
    for _ in range(count - 1):
        previous = plan[-1]
        follow = [storyline_by_key(key) for key in previous.next_storylines]
        follow = [s for s in follow if sex in s.sexes]
        if follow and rng.random() < FOLLOW_STORYLINE:
            plan.append(rng.choice(follow))
        else:
            plan.append(rng.choice([s for s in STORYLINES if sex in s.sexes and s.ages[1] >= age]))
    if all(s.service in NEURO_SERVICES for s in plan):
        # Patients seen in neurology (Hospital C) also have a stay at A or B, as the case study requires.
        others = [storyline_by_key(k) for s in plan for k in s.next_storylines]
        others = [s for s in others if s.service not in NEURO_SERVICES and sex in s.sexes]
        plan.append(rng.choice(others))
    return plan


_SAME_CONDITION = {"E10": "diabetes", "E11": "diabetes", "I48": "atrial fibrillation"}


def _category(code: str) -> str:
    return _SAME_CONDITION.get(code[:3], code[:3])


def _conflicts(comorbidity: Comorbidity, storyline: Storyline) -> bool:
    """Whether a chronic condition is the same condition the stay itself codes (T2DM in a DKA stay, say)."""
    stay_codes = [storyline.diagnosis.code, *(d.code for d in storyline.secondary)]
    stay_codes += [c.diagnosis.code for c in storyline.complications]
    return _category(comorbidity.diagnosis.code) in {_category(code) for code in stay_codes}


def _comorbidities(rng: random.Random, sex: str, age: int) -> list[Comorbidity]:
    scale = 0.5 if age < 45 else 1.0 if age < 70 else 1.3
    return [c for c in COMORBIDITIES if sex in c.sexes and age >= c.min_age and rng.random() < c.prevalence * scale]


def generate_patient(seed: int, index: int, start_year: int, end_year: int) -> PatientRecords:
    """Generate patient ``index`` of the cohort with ``seed``, admitted between ``start_year`` and ``end_year``."""
    rng = patient_rng(seed, index)
    subject_id = SUBJECT_ID_BASE + index
    count = rng.choices([n for n, _ in ADMISSION_COUNTS], [w for _, w in ADMISSION_COUNTS])[0]
    first = rng.choice(STORYLINES)
    sex = rng.choice(first.sexes)
    age = rng.randint(*first.ages)
    plan = _plan_storylines(rng, first, count, sex, age)
    name = person_name(rng, sex)
    records = PatientRecords(subject_id=subject_id, name=name)

    comorbidities = _comorbidities(rng, sex, age)
    home = HOME_HOSPITALS[0] if rng.random() < 0.6 else HOME_HOSPITALS[1]
    race, language, marital = weighted(rng, RACES), weighted(rng, LANGUAGES), weighted(rng, MARITAL)
    history: list[Stay] = []
    admits = _admission_dates(rng, plan, start_year, end_year)
    anchor_year = admits[0][0].year
    for number, (storyline, (admit, discharge)) in enumerate(zip(plan, admits, strict=True)):
        stay_age = age + (admit.year - anchor_year)
        hadm_id = HADM_ID_BASE + index * 10 + number
        stay = Stay(
            subject_id=subject_id,
            hadm_id=hadm_id,
            note_seq=number + 1,
            storyline=storyline,
            sex=sex,
            age=stay_age,
            admit=admit,
            discharge=discharge,
            comorbidities=tuple(c for c in comorbidities if not _conflicts(c, storyline)),
            history=tuple(history),
            wrap_width=rng.randint(62, 100),
            admission_location=rng.choice(storyline.admission_locations),
            discharge_location=rng.choice(storyline.discharge_locations),
        )
        org = hospital_for(storyline.service, home)
        records.org_of_hadm[hadm_id] = org
        _admission_rows(rng, records, stay, org, insurance_for(rng, stay_age), language, marital, race)
        history.append(stay)
    records.add(
        "patients",
        [
            str(subject_id),
            sex,
            str(age),
            str(anchor_year),
            _year_group(anchor_year),
            "",
            name,
        ],
    )
    return records


def _admission_dates(
    rng: random.Random, plan: list[Storyline], start_year: int, end_year: int
) -> list[tuple[datetime, datetime]]:
    """Admission and discharge times for the planned stays, all inside [start_year, end_year]."""
    stays = [timedelta(days=rng.randint(*s.length_of_stay), minutes=rng.randint(0, 600)) for s in plan]
    gaps = [timedelta(days=rng.randint(14, 540)) for _ in plan[1:]]
    first_day, last_day = datetime(start_year, 1, 1), datetime(end_year, 12, 31, 12)
    room = last_day - first_day - sum(stays, timedelta())
    if sum(gaps, timedelta()) > room * 0.9:
        gaps = [gap * (room * 0.9 / sum(gaps, timedelta())) for gap in gaps]
    slack = room - sum(gaps, timedelta())
    admit = first_day + timedelta(days=rng.randint(0, max(0, slack.days - 1)), minutes=rng.randint(0, 1439))
    dates = []
    for number, length in enumerate(stays):
        discharge = admit + max(length, timedelta(hours=20))
        dates.append((admit, discharge))
        if number < len(gaps):
            admit = discharge + gaps[number]
    return dates


def _year_group(year: int) -> str:
    start = year - (year - 2008) % 3
    return f"{start} - {start + 2}"


def _admission_rows(
    rng: random.Random,
    records: PatientRecords,
    stay: Stay,
    org: str,
    insurance: str,
    language: str,
    marital: str,
    race: str,
) -> None:
    storyline = stay.storyline
    subject, hadm = str(stay.subject_id), str(stay.hadm_id)
    admission_type = rng.choice(storyline.admission_types)
    location = stay.admission_location
    via_ed = location == "EMERGENCY ROOM"
    ed_in = stay.admit - timedelta(minutes=rng.randint(90, 600)) if via_ed else None
    records.add(
        "admissions",
        [
            subject,
            hadm,
            _fmt(stay.admit),
            _fmt(stay.discharge),
            "",
            admission_type,
            provider_id(rng),
            location,
            stay.discharge_location,
            insurance,
            language,
            marital,
            race,
            _fmt(ed_in) if ed_in else "",
            _fmt(stay.admit + timedelta(minutes=rng.randint(5, 60))) if ed_in else "",
            "0",
        ],
    )
    records.add("services", [subject, hadm, _fmt(stay.admit), "", storyline.service])

    note = render_discharge_summary(rng, stay)
    complications = note.complications
    diagnoses = [storyline.diagnosis.code, *(d.code for d in storyline.secondary)]
    diagnoses += [c.diagnosis.code for c in complications]
    diagnoses += [c.diagnosis.code for c in stay.comorbidities]
    for seq, code in enumerate(dict.fromkeys(diagnoses), start=1):
        records.add("diagnoses_icd", [subject, hadm, str(seq), code, "10"])
    for seq, procedure in enumerate(storyline.procedures, start=1):
        day = stay.admit + timedelta(days=min(seq, (stay.discharge - stay.admit).days))
        records.add("procedures_icd", [subject, hadm, str(seq), day.strftime(DATE_FORMAT), procedure.code, "10"])
    for medication in note.medications:
        records.add("prescriptions", _prescription_row(rng, stay, medication))

    storetime = stay.discharge + timedelta(hours=rng.randint(1, 30), minutes=rng.randint(0, 59))
    note_id = f"{subject}-DS-{stay.note_seq}"
    records.add(
        "discharge",
        [
            note_id,
            subject,
            hadm,
            "DS",
            str(stay.note_seq),
            _fmt(stay.discharge.replace(hour=0, minute=0, second=0)),
            _fmt(storetime),
            note.text,
        ],
    )
    for fact in note.facts:
        records.facts.append(_fact_record(fact, stay, note_id, org))


def _prescription_row(rng: random.Random, stay: Stay, medication: Medication) -> list[str]:
    start = stay.admit + timedelta(hours=rng.randint(1, 30))
    start = min(start, stay.discharge - timedelta(hours=1))
    per_day = _doses_per_day(medication.frequency)
    return [
        str(stay.subject_id),
        str(stay.hadm_id),
        str(rng.randint(1_000_000, 99_999_999)),
        f"{stay.subject_id}-{rng.randint(1, 999)}",
        str(rng.randint(1, 999)),
        provider_id(rng),
        _fmt(start),
        _fmt(stay.discharge),
        "MAIN",
        medication.drug,
        "",
        "",
        "",
        f"{medication.dose}{medication.unit} {medication.form.title()}",
        medication.form,
        medication.dose,
        medication.unit,
        "1",
        medication.form,
        per_day,
        medication.route,
    ]


def _doses_per_day(frequency: str) -> str:
    table = {"DAILY": "1", "QHS": "1", "BID": "2", "TID": "3", "QID": "4", "Q8H": "3", "Q6H": "4", "Q12H": "2"}
    head = frequency.split(":", maxsplit=1)[0].split(" ", maxsplit=1)[0].upper()
    return table.get(head, "")


def _fact_record(fact: Fact, stay: Stay, note_id: str, org: str) -> dict[str, object]:
    return {
        "note_id": note_id,
        "subject_id": stay.subject_id,
        "hadm_id": stay.hadm_id,
        "org": org,
        "storyline": stay.storyline.key,
        "section": fact.section,
        "kind": fact.kind,
        "value": fact.value,
        "label": fact.label,
        "start": fact.start,
        "end": fact.end,
        "noise": fact.noise,
        "history": fact.history,
    }
