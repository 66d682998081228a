"""Renders one hospital stay as a MIMIC-IV-Note discharge summary, section by section.

The layout follows real MIMIC-IV discharge notes: a de-identified header (``Name: ___ Unit No: ___``), then
Service, Allergies, Chief Complaint, Major Surgical or Invasive Procedure, History of Present Illness, Past
Medical History, Social History, Family History, Physical Exam, Pertinent Results, Brief Hospital Course,
Medications on Admission, Discharge Medications, Discharge Disposition, Discharge Diagnosis, Discharge Condition,
Discharge Instructions and Followup Instructions.

Example:
    >>> import random
    >>> from datetime import datetime
    >>> from clinrag.ingest.synthetic.storylines import storyline_by_key
    >>> stay = Stay(1, 2, 1, storyline_by_key("hip_fracture"), "F", 80, datetime(2020, 1, 1),
    ...             datetime(2020, 1, 6), (), (), 80, "EMERGENCY ROOM", "REHAB")
    >>> "Brief Hospital Course:" in render_discharge_summary(random.Random(0), stay).text
    True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from clinrag.ingest.synthetic.icd import diagnosis_titles, procedure_titles
from clinrag.ingest.synthetic.model import Comorbidity, Complication, Diagnosis, Medication, Storyline
from clinrag.ingest.synthetic.notewriter import Fact, FactSlot, NoteBuilder, fill

ALLERGIES = (
    ("No Known Allergies / Adverse Drug Reactions", "NKDA", 0.55),
    ("Penicillins", "Penicillins", 0.15),
    ("Sulfa (Sulfonamide Antibiotics)", "Sulfa", 0.1),
    ("Codeine", "Codeine", 0.06),
    ("Iodine Containing Agents", "Iodine", 0.05),
    ("Lisinopril", "Lisinopril", 0.04),
    ("Morphine", "Morphine", 0.05),
)
TOBACCO = (
    ("Never smoker.", "never", 0.5),
    ("Former smoker, quit ___ years ago (20 pack-years).", "former", 0.3),
    ("Current smoker, about 1 pack per day.", "current", 0.2),
)
ALCOHOL = (
    ("Denies alcohol use.", "none", 0.45),
    ("Drinks 1-2 glasses of wine per week.", "social", 0.45),
    ("Reports 3-4 beers daily; denies history of withdrawal.", "heavy", 0.1),
)
LIVING = (
    ("Lives at home with {his} spouse.", "with spouse"),
    ("Lives alone; independent in ADLs.", "alone"),
    ("Lives with {his} daughter, who helps with medications.", "with family"),
)
FAMILY = (
    "Mother with hypertension; father died of MI in his ___.",
    "Non-contributory.",
    "Sister with breast cancer. No family history of early cardiac death.",
    "Father with type 2 diabetes and CAD.",
)
DISPOSITIONS = {
    "HOME": "Home",
    "HOME HEALTH CARE": "Home With Service",
    "AGAINST ADVICE": "Home",
}
CONDITION = (
    "Mental Status: Clear and coherent.\nLevel of Consciousness: Alert and interactive.\n"
    "Activity Status: Ambulatory - Independent.",
    "Mental Status: Clear and coherent.\nLevel of Consciousness: Alert and interactive.\n"
    "Activity Status: Ambulatory - requires assistance or aid (walker or cane).",
    "Mental Status: Confused - sometimes.\nLevel of Consciousness: Alert and interactive.\n"
    "Activity Status: Out of Bed with assistance to chair or wheelchair.",
)


@dataclass(frozen=True)
class Stay:
    """What the renderer needs to know about one admission."""

    subject_id: int
    hadm_id: int
    note_seq: int
    storyline: Storyline
    sex: str
    age: int
    admit: datetime
    discharge: datetime
    comorbidities: tuple[Comorbidity, ...]
    history: tuple[Stay, ...]
    wrap_width: int
    admission_location: str
    discharge_location: str


@dataclass(frozen=True)
class RenderedNote:
    """A discharge summary, the facts located in it, and what the coded tables must agree with."""

    text: str
    facts: list[Fact]
    medications: tuple[Medication, ...]
    complications: tuple[Complication, ...]


def _pronouns(sex: str, age: int) -> dict[str, str]:
    female = sex == "F"
    return {
        "age": str(age),
        "man": "woman" if female else "man",
        "Mr": "Ms." if female else "Mr.",
        "he": "she" if female else "he",
        "He": "She" if female else "He",
        "his": "her" if female else "his",
        "His": "Her" if female else "His",
        "him": "her" if female else "him",
    }


def _pick(rng: random.Random, options: tuple[tuple[str, str, float], ...]) -> tuple[str, str]:
    text, value, _ = rng.choices(options, [weight for *_, weight in options])[0]
    return text, value


def _history_phrase(rng: random.Random, stay: Stay) -> str:
    items = [rng.choice(c.diagnosis.phrases) for c in stay.comorbidities]
    items += [f"prior {rng.choice(s.storyline.diagnosis.phrases)}" for s in stay.history[-2:]]
    if not items:
        return "no significant past medical history"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _medication_line(medication: Medication) -> str:
    return f"{medication.drug} {medication.dose} {medication.unit} {medication.route} {medication.frequency}"


def _diagnosis_slot(rng: random.Random, diagnosis: Diagnosis, kind: str = "diagnosis") -> FactSlot:
    return FactSlot(rng.choice(diagnosis.phrases), kind, diagnosis.code, diagnosis_titles().get(diagnosis.code, ""))


def render_discharge_summary(rng: random.Random, stay: Stay) -> RenderedNote:
    """Write the discharge summary of ``stay``; facts carry offsets into the returned text."""
    storyline = stay.storyline
    person = random.Random(stay.subject_id)  # what stays the same across a patient's notes
    allergy_text, allergy = _pick(person, ALLERGIES)
    tobacco, alcohol, living = _pick(person, TOBACCO), _pick(person, ALCOHOL), person.choice(LIVING)
    values = _pronouns(stay.sex, stay.age)
    values["history"] = _history_phrase(rng, stay)
    values["complaint"] = fill(rng.choice(storyline.chief_complaints), values)
    values["los"] = str(max(1, (stay.discharge - stay.admit).days))
    complications = tuple(c for c in storyline.complications if rng.random() < c.probability)
    procedure_slot = (
        FactSlot(
            rng.choice(storyline.procedures[0].phrases),
            "procedure",
            storyline.procedures[0].code,
            procedure_titles().get(storyline.procedures[0].code, ""),
        )
        if storyline.procedures
        else None
    )

    note = NoteBuilder(wrap_width=stay.wrap_width)
    note.raw(" \nName:  ___                     Unit No:   ___\n \n")
    note.raw("Admission Date:  ___              Discharge Date:   ___\n \n")
    note.raw(f"Date of Birth:  ___             Sex:   {stay.sex}\n \n")
    note.raw(f"Service: {storyline.note_service}\n")
    note.section("Allergies")
    note.fact_line(allergy_text, kind="allergy", value=allergy)
    note.raw(" \nAttending: ___.\n")

    note.section("Chief Complaint")
    note.fact_line(values["complaint"], kind="finding", value="chief complaint")

    note.section("Major Surgical or Invasive Procedure")
    if storyline.procedures:
        for procedure in storyline.procedures:
            note.fact_line(
                rng.choice(procedure.phrases),
                kind="procedure",
                value=procedure.code,
                label=procedure_titles().get(procedure.code, ""),
            )
    else:
        note.raw("None\n")

    note.section("History of Present Illness")
    note.paragraph(rng.choice(storyline.hpi), values, {"diagnosis": _diagnosis_slot(rng, storyline.diagnosis)})

    note.section("Past Medical History")
    if not stay.comorbidities and not stay.history:
        note.raw("None.\n")
    for comorbidity in stay.comorbidities:
        slot = _diagnosis_slot(rng, comorbidity.diagnosis)
        note.fact_line(slot.text, kind="diagnosis", value=slot.value, label=slot.label, prefix="- ", history=True)
    for earlier in stay.history:
        slot = _diagnosis_slot(rng, earlier.storyline.diagnosis)
        note.fact_line(slot.text, kind="diagnosis", value=slot.value, label=slot.label, prefix="- ", history=True)

    note.section("Social History")
    note.raw("___\n")
    if storyline.social:
        lifestyle = random.Random(f"{stay.subject_id}:{storyline.key}")  # the same life story in every note
        for social in storyline.social:
            text = fill(lifestyle.choice(social.text), values)
            note.whole_fact_paragraph(text, kind="social", value=storyline.key)
    else:
        note.whole_fact_paragraph(f"Tobacco: {tobacco[0]}", kind="social", value=f"tobacco:{tobacco[1]}")
        note.whole_fact_paragraph(f"EtOH: {alcohol[0]}", kind="social", value=f"alcohol:{alcohol[1]}")
        note.whole_fact_paragraph(fill(living[0], values), kind="social", value=f"living:{living[1]}")

    note.section("Family History")
    note.raw(person.choice(FAMILY) + "\n")

    _physical_exam(rng, note, stay)
    _pertinent_results(rng, note, stay)

    note.section("Brief Hospital Course")
    slots = {"diagnosis": _diagnosis_slot(rng, storyline.diagnosis)}
    if procedure_slot is not None:
        slots["procedure"] = procedure_slot
    for paragraph in storyline.course:
        note.paragraph(rng.choice(paragraph), values, slots)
        note.raw("\n")
    for complication in complications:
        slot = _diagnosis_slot(rng, complication.diagnosis, kind="complication")
        note.paragraph(rng.choice(complication.course), values, {"complication": slot})
        note.raw("\n")
    if stay.comorbidities:
        note.raw("CHRONIC ISSUES:\n")
        for comorbidity in stay.comorbidities:
            slot = _diagnosis_slot(rng, comorbidity.diagnosis)
            drugs = ", ".join(m.drug for m in comorbidity.medications)
            plan = f"stable; continued home {drugs}." if drugs else "stable, no medications."
            note.paragraph("# {dx}: " + plan, values, {"dx": slot}, history=True)

    home = _unique(m for c in stay.comorbidities for m in c.medications)
    discharge = _unique([*home, *storyline.medications, *(m for c in complications for m in c.medications)])
    note.section("Medications on Admission")
    if home:
        note.raw("The Preadmission Medication list is accurate and complete.\n")
        for number, medication in enumerate(home, start=1):
            note.fact_line(
                _medication_line(medication),
                kind="medication",
                value=medication.drug,
                prefix=f"{number}. ",
                history=True,
            )
    else:
        note.raw("None.\n")
    note.section("Discharge Medications")
    for number, medication in enumerate(discharge, start=1):
        note.fact_line(_medication_line(medication), kind="medication", value=medication.drug, prefix=f"{number}. ")

    note.section("Discharge Disposition")
    note.raw(DISPOSITIONS.get(stay.discharge_location, "Extended Care") + "\n")
    if DISPOSITIONS.get(stay.discharge_location) is None:
        note.raw(" \nFacility:\n___\n")

    note.section("Discharge Diagnosis")
    note.raw("Primary:\n")
    slot = _diagnosis_slot(rng, storyline.diagnosis)
    note.fact_line(slot.text, kind="diagnosis", value=slot.value, label=slot.label)
    secondary = [
        *storyline.secondary,
        *(c.diagnosis for c in complications),
        *(c.diagnosis for c in stay.comorbidities),
    ]
    if secondary:
        note.raw("\nSecondary:\n")
        for diagnosis in secondary:
            slot = _diagnosis_slot(rng, diagnosis)
            note.fact_line(slot.text, kind="diagnosis", value=slot.value, label=slot.label)

    note.section("Discharge Condition")
    note.raw(rng.choice(CONDITION) + "\n")

    note.section("Discharge Instructions")
    note.paragraph("Dear {Mr} ___,\n\nIt was a pleasure taking care of you at ___.", values, wrap=False)
    note.raw("\n")
    note.paragraph(rng.choice(storyline.instructions), values)
    for medication in storyline.medications:
        if medication.purpose:
            note.paragraph(f"- Please take {medication.drug} ({medication.purpose}).", values)
    note.raw("\nWe wish you the best!\nYour ___ Care Team\n")

    note.section("Followup Instructions")
    note.raw("___\n")
    note.paragraph(rng.choice(storyline.followup), values)
    text, facts = note.finish()
    return RenderedNote(text=text, facts=facts, medications=tuple(discharge), complications=complications)


def _unique(medications: Iterable[Medication]) -> list[Medication]:
    """One entry per drug (by its first word); a later entry (a dose the stay changed) replaces an earlier one."""
    merged: dict[str, Medication] = {}
    for medication in medications:
        merged[medication.drug.split()[0].lower()] = medication
    return list(merged.values())


def _physical_exam(rng: random.Random, note: NoteBuilder, stay: Stay) -> None:
    note.section("Physical Exam")
    note.raw("ADMISSION PHYSICAL EXAM:\n")
    temp = round(rng.uniform(97.2, 101.2), 1)
    note.raw(
        f"VS: T {temp} BP {rng.randint(98, 168)}/{rng.randint(52, 96)} HR {rng.randint(58, 118)} "
        f"RR {rng.randint(12, 24)} O2 {rng.randint(90, 100)}% RA\n"
    )
    note.raw(
        rng.choice(
            (
                "GENERAL: NAD, lying comfortably in bed.",
                "GEN: Alert, oriented x3, no acute distress.",
                "General: uncomfortable-appearing, but in no respiratory distress.",
            )
        )
        + "\n"
    )
    note.raw(rng.choice(("HEENT: MMM, EOMI, sclera anicteric.", "HEENT: NCAT, PERRL, oropharynx clear.")) + "\n")
    note.raw(rng.choice(("CV: RRR, no m/r/g.", "CARDIAC: regular rate and rhythm, normal S1/S2.")) + "\n")
    _findings(rng, note, stay, "Physical Exam")
    note.raw("\nDISCHARGE PHYSICAL EXAM:\n")
    note.raw(
        f"VS: T {round(rng.uniform(97.4, 99.0), 1)} BP {rng.randint(100, 150)}/{rng.randint(55, 90)} "
        f"HR {rng.randint(60, 95)} RR {rng.randint(12, 20)} O2 {rng.randint(93, 100)}% RA\n"
    )
    note.raw("GEN: comfortable, conversant.\n")


def _pertinent_results(rng: random.Random, note: NoteBuilder, stay: Stay) -> None:
    note.section("Pertinent Results")
    note.raw("ADMISSION LABS:\n")
    note.raw(
        f"___ 07:{rng.randint(10, 59)}AM BLOOD WBC-{rng.uniform(4.0, 15.0):.1f} RBC-{rng.uniform(3.2, 5.1):.2f} "
        f"Hgb-{rng.uniform(9.0, 15.5):.1f} Hct-{rng.uniform(28, 46):.1f} Plt ___\n"
    )
    note.raw(
        f"___ 07:{rng.randint(10, 59)}AM BLOOD Glucose-{rng.randint(78, 240)} UreaN-{rng.randint(8, 45)} "
        f"Creat-{rng.uniform(0.6, 2.1):.1f} Na-{rng.randint(131, 145)} K-{rng.uniform(3.4, 5.2):.1f} "
        f"Cl-{rng.randint(96, 108)} HCO3-{rng.randint(20, 30)}\n"
    )
    note.raw("\nIMAGING / STUDIES:\n")
    _findings(rng, note, stay, "Pertinent Results")


def _findings(rng: random.Random, note: NoteBuilder, stay: Stay, section: str) -> None:
    for finding in stay.storyline.findings:
        if finding.section == section and rng.random() < finding.probability:
            note.whole_fact_paragraph(
                rng.choice(finding.text), kind="finding", value=stay.storyline.key, noise=finding.noise
            )
