"""The hand-written free-form questions of the held-out benchmark: written by a person reading the notes of the
200-patient, seed-11 cohort's hospital A, the way clinicians type questions, never used for tuning. Stored in
``data/freeform_questions.jsonl``: the question, the patient's name (or null), the intent, the strings an answer
must hold (``need`` of them), the strings it must not, and whether it must abstain.

Example:
    >>> rows = [json.loads(line) for line in FREEFORM.read_text().splitlines() if line.strip()]
    >>> len(rows) >= 50
    True
    >>> second = [json.loads(line) for line in FREEFORM_2.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in second) >= 40, sum(bool(row.get("abstain")) for row in second) >= 10
    (True, True)
    >>> third = [json.loads(line) for line in FREEFORM_3.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in third) >= 40, sum(bool(row.get("abstain")) for row in third) >= 10
    (True, True)
    >>> fourth = [json.loads(line) for line in FREEFORM_4.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in fourth) >= 40, sum(bool(row.get("abstain")) for row in fourth) >= 10
    (True, True)
    >>> fifth = [json.loads(line) for line in FREEFORM_5.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in fifth) >= 40, sum(bool(row.get("abstain")) for row in fifth) >= 10
    (True, True)
    >>> sixth = [json.loads(line) for line in FREEFORM_6.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in sixth) >= 40, sum(bool(row.get("abstain")) for row in sixth) >= 10
    (True, True)
    >>> seventh = [json.loads(line) for line in FREEFORM_7.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in seventh) >= 40, sum(bool(row.get("abstain")) for row in seventh) >= 10
    (True, True)
    >>> eighth = [json.loads(line) for line in FREEFORM_8.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in eighth) >= 40, sum(bool(row.get("abstain")) for row in eighth) >= 10
    (True, True)
    >>> ninth = [json.loads(line) for line in FREEFORM_9.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in ninth) >= 40, sum(bool(row.get("abstain")) for row in ninth) >= 10
    (True, True)
    >>> tenth = [json.loads(line) for line in FREEFORM_10.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in tenth) >= 40, sum(bool(row.get("abstain")) for row in tenth) >= 10
    (True, True)
    >>> eleventh = [json.loads(line) for line in FREEFORM_11.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in eleventh) >= 40, sum(bool(row.get("abstain")) for row in eleventh) >= 10
    (True, True)
    >>> twelfth = [json.loads(line) for line in FREEFORM_12.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in twelfth) >= 40, sum(bool(row.get("abstain")) for row in twelfth) >= 10
    (True, True)
    >>> newest = [json.loads(line) for line in FREEFORM_13.read_text().splitlines() if line.strip()]
    >>> sum(not row.get("abstain") for row in newest) >= 40, sum(bool(row.get("abstain")) for row in newest) >= 10
    (True, True)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from clinrag.evaluate.heldout import CohortView, HeldoutQuestion

FREEFORM: Final = Path(__file__).with_name("data") / "freeform_questions.jsonl"
FREEFORM_2: Final = Path(__file__).with_name("data") / "freeform_questions_2.jsonl"
"""A second blind set, written after the fixes the first set's failures led to and run once (split ``freeform2``)."""
FREEFORM_3: Final = Path(__file__).with_name("data") / "freeform_questions_3.jsonl"
"""A third blind set (split ``freeform3``), about patients neither earlier set asks about, written by someone who had
not read the question-reading code and committed before its first run."""
FREEFORM_4: Final = Path(__file__).with_name("data") / "freeform_questions_4.jsonl"
"""A fourth blind set (split ``freeform4``), about patients no earlier set asks about where the cohort allows, written
by someone who had not read the question-reading code and committed before its first run."""
FREEFORM_5: Final = Path(__file__).with_name("data") / "freeform_questions_5.jsonl"
"""A fifth blind set (split ``freeform5``), about patients no earlier set asks about, in voices of its own
(a pharmacist's medicines reconciliation, an ED triage nurse in a hurry, an insurer's case manager, a medical student
presenting on rounds, English as a second language, dictation through voice recognition with its mis-hearings),
written by someone who had not read the question-reading code and committed before its first run."""
FREEFORM_6: Final = Path(__file__).with_name("data") / "freeform_questions_6.jsonl"
"""A sixth blind set (split ``freeform6``), about the hospital-A patients the earlier sets asked least about, in voices
of its own (a junior doctor on call at night, a GP reading the discharge letter, a relative or patient advocate, a
physiotherapist, a dietitian, a ward clerk, dictation through voice recognition with its mis-hearings, search-box
fragments), written by someone who had not read the question-reading code and committed before its first run."""
FREEFORM_7: Final = Path(__file__).with_name("data") / "freeform_questions_7.jsonl"
"""A seventh blind set (split ``freeform7``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (a pharmacist, an occupational therapist, a discharge coordinator, a chaplain, an interpreter
relaying a family's question, patients asking about themselves, a night nurse's handover, a coroner's officer, texts
with typos), written by someone who had not read the question-reading code and committed before its first run."""
FREEFORM_8: Final = Path(__file__).with_name("data") / "freeform_questions_8.jsonl"
"""An eighth blind set (split ``freeform8``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (a speech and language therapist, a care-home manager, a paramedic crew at re-presentation, a
clinical coder, a medical secretary typing a letter, a GP trainee, a student nurse, abrupt one-line texts, run-on
sentences without punctuation), written by someone who had not read the question-reading code and committed before
its first run."""
FREEFORM_9: Final = Path(__file__).with_name("data") / "freeform_questions_9.jsonl"
"""A ninth blind set (split ``freeform9``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (a radiographer, a midwife, a podiatrist, a pain team nurse, a bed manager, a hospice nurse, an
A&E consultant at re-attendance, terse lower-case questions with no verbs, long questions with several asides),
written by someone who had not read the question-reading code and committed before its first run."""
FREEFORM_10: Final = Path(__file__).with_name("data") / "freeform_questions_10.jsonl"
"""A tenth blind set (split ``freeform10``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (a dental surgeon, a prison healthcare nurse, an NHS 111 health adviser, a district nurse, a stoma
nurse, an anaesthetist at pre-op assessment, an optometrist, a community mental-health nurse, a locum registrar at
night handover, several pinned to one stay of a patient with several admissions), written by someone who had not read
the question-reading code and committed before its first run."""
FREEFORM_11: Final = Path(__file__).with_name("data") / "freeform_questions_11.jsonl"
"""An eleventh blind set (split ``freeform11``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (an infection prevention and control nurse, a cardiac rehabilitation nurse, a practice nurse at an
annual review, a tissue viability nurse, a diabetes specialist nurse, a heart failure nurse, a learning disability
liaison nurse, a physician associate, a medical examiner, a hospital volunteer, a housing support officer, a
teenage grandchild, several pinned to one stay of a patient with several admissions), written by someone who had not
read the question-reading code and committed before its first run."""
FREEFORM_12: Final = Path(__file__).with_name("data") / "freeform_questions_12.jsonl"
"""A twelfth blind set (split ``freeform12``), about the hospital-A patients the earlier sets asked least about, in
voices of its own (a renal dialysis nurse, a falls clinic nurse, an endoscopy unit nurse, an audiologist, a blood
transfusion practitioner, a respiratory physiologist, a sonographer, a phlebotomist, a rheumatology specialist nurse,
a clinical psychologist, a welfare rights adviser, a neighbour, a spouse, several pinned to one stay of a patient
with several admissions), written by someone who had not read the question-reading code and committed before its
first run."""
# freeform13 … freeform48: the thirteenth to forty-eighth blind sets, about the hospital-A patients the earlier sets
# asked least about, in voices of their own, several questions pinned to one stay of a patient with several
# admissions, written by someone who had not read the question-reading code and committed before their first run.
FREEFORM_13: Final = Path(__file__).with_name("data") / "freeform_questions_13.jsonl"
FREEFORM_14: Final = Path(__file__).with_name("data") / "freeform_questions_14.jsonl"
FREEFORM_15: Final = Path(__file__).with_name("data") / "freeform_questions_15.jsonl"
FREEFORM_16: Final = Path(__file__).with_name("data") / "freeform_questions_16.jsonl"
FREEFORM_17: Final = Path(__file__).with_name("data") / "freeform_questions_17.jsonl"
FREEFORM_18: Final = Path(__file__).with_name("data") / "freeform_questions_18.jsonl"
FREEFORM_19: Final = Path(__file__).with_name("data") / "freeform_questions_19.jsonl"
FREEFORM_20: Final = Path(__file__).with_name("data") / "freeform_questions_20.jsonl"
FREEFORM_21: Final = Path(__file__).with_name("data") / "freeform_questions_21.jsonl"
FREEFORM_22: Final = Path(__file__).with_name("data") / "freeform_questions_22.jsonl"
FREEFORM_23: Final = Path(__file__).with_name("data") / "freeform_questions_23.jsonl"
FREEFORM_24: Final = Path(__file__).with_name("data") / "freeform_questions_24.jsonl"
FREEFORM_25: Final = Path(__file__).with_name("data") / "freeform_questions_25.jsonl"
FREEFORM_26: Final = Path(__file__).with_name("data") / "freeform_questions_26.jsonl"
FREEFORM_27: Final = Path(__file__).with_name("data") / "freeform_questions_27.jsonl"
FREEFORM_28: Final = Path(__file__).with_name("data") / "freeform_questions_28.jsonl"
FREEFORM_29: Final = Path(__file__).with_name("data") / "freeform_questions_29.jsonl"
FREEFORM_30: Final = Path(__file__).with_name("data") / "freeform_questions_30.jsonl"
FREEFORM_31: Final = Path(__file__).with_name("data") / "freeform_questions_31.jsonl"
FREEFORM_32: Final = Path(__file__).with_name("data") / "freeform_questions_32.jsonl"
FREEFORM_33: Final = Path(__file__).with_name("data") / "freeform_questions_33.jsonl"
FREEFORM_34: Final = Path(__file__).with_name("data") / "freeform_questions_34.jsonl"
FREEFORM_35: Final = Path(__file__).with_name("data") / "freeform_questions_35.jsonl"
FREEFORM_36: Final = Path(__file__).with_name("data") / "freeform_questions_36.jsonl"
FREEFORM_37: Final = Path(__file__).with_name("data") / "freeform_questions_37.jsonl"
FREEFORM_38: Final = Path(__file__).with_name("data") / "freeform_questions_38.jsonl"
FREEFORM_39: Final = Path(__file__).with_name("data") / "freeform_questions_39.jsonl"
FREEFORM_40: Final = Path(__file__).with_name("data") / "freeform_questions_40.jsonl"
FREEFORM_41: Final = Path(__file__).with_name("data") / "freeform_questions_41.jsonl"
FREEFORM_42: Final = Path(__file__).with_name("data") / "freeform_questions_42.jsonl"
FREEFORM_43: Final = Path(__file__).with_name("data") / "freeform_questions_43.jsonl"
FREEFORM_44: Final = Path(__file__).with_name("data") / "freeform_questions_44.jsonl"
FREEFORM_45: Final = Path(__file__).with_name("data") / "freeform_questions_45.jsonl"
FREEFORM_46: Final = Path(__file__).with_name("data") / "freeform_questions_46.jsonl"
FREEFORM_47: Final = Path(__file__).with_name("data") / "freeform_questions_47.jsonl"
FREEFORM_48: Final = Path(__file__).with_name("data") / "freeform_questions_48.jsonl"
FREEFORM_SETS: Final[dict[str, Path]] = {
    "freeform": FREEFORM,
    "freeform2": FREEFORM_2,
    "freeform3": FREEFORM_3,
    "freeform4": FREEFORM_4,
    "freeform5": FREEFORM_5,
    "freeform6": FREEFORM_6,
    "freeform7": FREEFORM_7,
    "freeform8": FREEFORM_8,
    "freeform9": FREEFORM_9,
    "freeform10": FREEFORM_10,
    "freeform11": FREEFORM_11,
    "freeform12": FREEFORM_12,
    "freeform13": FREEFORM_13,
    "freeform14": FREEFORM_14,
    "freeform15": FREEFORM_15,
    "freeform16": FREEFORM_16,
    "freeform17": FREEFORM_17,
    "freeform18": FREEFORM_18,
    "freeform19": FREEFORM_19,
    "freeform20": FREEFORM_20,
    "freeform21": FREEFORM_21,
    "freeform22": FREEFORM_22,
    "freeform23": FREEFORM_23,
    "freeform24": FREEFORM_24,
    "freeform25": FREEFORM_25,
    "freeform26": FREEFORM_26,
    "freeform27": FREEFORM_27,
    "freeform28": FREEFORM_28,
    "freeform29": FREEFORM_29,
    "freeform30": FREEFORM_30,
    "freeform31": FREEFORM_31,
    "freeform32": FREEFORM_32,
    "freeform33": FREEFORM_33,
    "freeform34": FREEFORM_34,
    "freeform35": FREEFORM_35,
    "freeform36": FREEFORM_36,
    "freeform37": FREEFORM_37,
    "freeform38": FREEFORM_38,
    "freeform39": FREEFORM_39,
    "freeform40": FREEFORM_40,
    "freeform41": FREEFORM_41,
    "freeform42": FREEFORM_42,
    "freeform43": FREEFORM_43,
    "freeform44": FREEFORM_44,
    "freeform45": FREEFORM_45,
    "freeform46": FREEFORM_46,
    "freeform47": FREEFORM_47,
    "freeform48": FREEFORM_48,
}  # fmt: skip
"""Every free-form set by its split's name, oldest first: the benchmark and the tests enumerate this."""


def freeform_questions(view: CohortView, path: Path = FREEFORM, split: str = "freeform") -> list[HeldoutQuestion]:
    """The free-form questions whose patient ``view`` holds (all of them on the seed-11, 200-patient cohort), in
    the split ``split``."""
    by_name = {name: subject_id for subject_id, name in view.names.items()}
    found: list[HeldoutQuestion] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        patient = row.get("patient")
        if patient is not None and patient not in by_name:
            continue
        found.append(
            HeldoutQuestion(
                text=row["text"],
                intent=row["intent"],
                family=split,
                split=split,
                subject_id=by_name[patient] if patient is not None else None,
                expected=tuple(row.get("expected", ())),
                need=int(row.get("need", 1)),
                forbidden=tuple(row.get("forbidden", ())),
                ordered=bool(row.get("ordered", False)),
                abstain=bool(row.get("abstain", False)),
            )
        )
    return found
