"""The held-out answer benchmark: questions built from the synthetic cohort's gold facts, phrased by families of
wordings (:mod:`clinrag.evaluate.heldout_questions`) split into a dev and a test half, graded automatically.

Every question is about one patient of one hospital (or must abstain), and knows what a correct answer contains:

- ``expected``: gold strings from the note (the exact text a gold fact's offsets point at, or the follow-up lines,
  or the admission dates), of which ``need`` must appear in the answer;
- ``ordered``: the expected strings must appear in that order (an admissions summary);
- ``forbidden``: strings that would contradict the record ("uncomplicated" for a patient with a complication).

Grades (exactly one per question): ``correct``; ``incomplete`` (the right patient, not the gold); ``wrong_abstain``;
``wrong_patient`` (a cited source is another patient's: the worst error, counted first); ``contradicts`` (the
answer negates a recorded fact); and for questions that must abstain ``correct_abstain`` or ``answered_wrongly``.

Example:
    >>> question = HeldoutQuestion("Is Ada Stone allergic to anything?", "allergy", "direct", "dev", 7, ("Codeine",))
    >>> grade(question, Answer(question=question.text, text="Ada Stone (7): Allergies: Codeine [1]",
    ...                        generator="extractive"))
    'correct'
"""

from __future__ import annotations

import csv
import json
import math
import random
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from clinrag.evaluate.answers import rejection_questions
from clinrag.evaluate.heldout_questions import FAMILIES, split_of
from clinrag.evaluate.heldout_wordings import load_blind_split
from clinrag.types import Answer

CONTRADICTING_COMPLICATION: Final = ("uncomplicated", "without complication", "no complication")
_NEGATION_BEFORE: Final = r"(?:\bno|\bnot|\bdenies|\bdenied|\bwithout|\bnegative for|\bruled out)\s+(?:\w+\s+){0,3}"
SOCIAL_PREFIX: Final = {"smoking": "tobacco:", "alcohol": "alcohol:", "living": "living:"}


@dataclass(frozen=True)
class HeldoutQuestion:
    """One benchmark question and what its answer must (not) contain; ``subject_id`` None: nobody may be named."""

    text: str
    intent: str
    family: str
    split: str
    subject_id: int | None
    expected: tuple[str, ...] = ()
    need: int = 1
    forbidden: tuple[str, ...] = ()
    ordered: bool = False
    abstain: bool = False


@dataclass(frozen=True)
class CohortView:
    """What the benchmark reads of one hospital of a synthetic cohort."""

    names: dict[int, str]
    notes: dict[str, tuple[int, int, str]]
    """note id → (subject_id, hadm_id, text)."""
    admitted: dict[int, str]
    """hadm_id → admission date (YYYY-MM-DD)."""
    facts: list[dict[str, object]]
    others: list[str] = field(default_factory=list)
    """Names of patients of the other hospitals only."""

    @classmethod
    def load(cls, cohort: Path, org: str = "A") -> CohortView:
        """The hospital ``org`` of the cohort at ``cohort`` (as written by ``clinrag synth``)."""
        folder = cohort / "hospitals" / org
        names = {int(r["subject_id"]): r["name"] for r in _rows(folder / "hosp/patients.csv")}
        notes = {
            r["note_id"]: (int(r["subject_id"]), int(r["hadm_id"]), r["text"])
            for r in _rows(folder / "note/discharge.csv")
        }
        admitted = {int(r["hadm_id"]): r["admittime"][:10] for r in _rows(folder / "hosp/admissions.csv")}
        with (cohort / "gold_facts.jsonl").open() as handle:
            facts = [fact for line in handle if (fact := json.loads(line))["note_id"] in notes]
        others = sorted(
            {
                r["name"]
                for hospital in (cohort / "hospitals").iterdir()
                if hospital.name != org
                for r in _rows(hospital / "hosp/patients.csv")
            }
            - set(names.values())
        )
        return cls(names, notes, admitted, facts, others)

    def surface(self, fact: dict[str, object]) -> str:
        """The text of the note a gold fact's offsets point at."""
        note = self.notes[str(fact["note_id"])][2]
        return " ".join(note[int(str(fact["start"])) : int(str(fact["end"]))].split())


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def _followup_lines(note: str) -> tuple[str, ...]:
    found = re.search(r"Followup Instructions:\s*\n(.*?)(?:\n\s*\n[A-Z][^\n]*:\s*\n|\Z)", note, re.DOTALL)
    if found is None:
        return ()
    lines = (" ".join(line.split()) for line in found.group(1).splitlines())
    return tuple(line for line in lines if line and line.strip("_ ") and len(line) > 10)


def _gold(view: CohortView, intent: str, subject_id: int) -> tuple[tuple[str, ...], int, bool] | None:
    """What an answer about ``subject_id`` must contain for ``intent``: (expected, need, ordered), or None."""
    notes = [(note_id, hadm) for note_id, (sid, hadm, _) in view.notes.items() if sid == subject_id]
    if intent == "admissions":
        dates = sorted(view.admitted[hadm] for _, hadm in notes if hadm in view.admitted)
        return (tuple(dates), len(dates), True) if len(dates) >= 2 else None
    if len(notes) != 1:
        return None  # one stay: which admission a single-fact question is about is never in doubt
    note_id = notes[0][0]
    facts = [f for f in view.facts if f["note_id"] == note_id and not f.get("noise")]

    def of(kind: str, section: str, prefix: str = "") -> list[dict[str, object]]:
        chosen = [f for f in facts if f["kind"] == kind and f["section"] == section]
        chosen = [f for f in chosen if str(f["value"]).startswith(prefix)]
        return sorted(chosen, key=lambda f: int(str(f["start"])))

    lists = {
        "allergy": (of("allergy", "Allergies"), False),
        "diagnosis": (of("diagnosis", "Discharge Diagnosis")[:1], False),
        "procedure": (of("procedure", "Major Surgical or Invasive Procedure"), False),
        "discharge_medications": (of("medication", "Discharge Medications"), True),
        "admission_medications": (of("medication", "Medications on Admission"), True),
        "complication": (of("complication", "Brief Hospital Course"), False),
        "presentation": (of("finding", "Chief Complaint"), False),
    }
    if intent in SOCIAL_PREFIX:
        found = of("social", "Social History", SOCIAL_PREFIX[intent])
        return (tuple(view.surface(f) for f in found), 1, False) if found else None
    if intent == "followup":
        lines = _followup_lines(view.notes[note_id][2])
        return (lines, 1, False) if lines else None
    chosen, half = lists[intent]
    if not chosen:
        return None
    expected = tuple(dict.fromkeys(view.surface(f) for f in chosen))
    return expected, (math.ceil(len(expected) / 2) if half else 1), False


def build_questions(view: CohortView, seed: int = 11, per_template: int = 2) -> list[HeldoutQuestion]:
    """The templated questions of every intent and family, ``per_template`` patients each, and the questions that
    must abstain (facts no record holds, drugs the patient never had, patients of other hospitals, real surnames
    with an invented first name)."""
    rng = random.Random(seed)
    questions: list[HeldoutQuestion] = []
    for intent, families in FAMILIES.items():
        eligible = [(sid, gold) for sid in sorted(view.names) if (gold := _gold(view, intent, sid)) is not None]
        for family, templates in families.items():
            split = split_of(intent, family)
            for template in templates:
                for sid, (expected, need, ordered) in rng.sample(eligible, min(per_template, len(eligible))):
                    name = view.names[sid]
                    text = template.format(name=name, poss=_possessive(name))
                    forbidden = CONTRADICTING_COMPLICATION if intent == "complication" else ()
                    questions.append(
                        HeldoutQuestion(text, intent, family, split, sid, expected, need, forbidden, ordered)
                    )
    questions += _must_abstain(view, rng)
    return questions


_INVENTED_FIRST_NAMES: Final = ("Alexandra", "Bartholomew", "Cordelia", "Desmond", "Evangeline", "Fitzgerald")


def _must_abstain(view: CohortView, rng: random.Random) -> list[HeldoutQuestion]:
    names = sorted(view.names.values())
    corpus = " ".join(text for _, _, text in view.notes.values())
    found: list[HeldoutQuestion] = []
    for index, question in enumerate(rejection_questions(names, corpus, seed=rng.randrange(1000), per_kind=20)):
        found.append(HeldoutQuestion(question.text, question.kind, "rejection", _half(index), None, abstain=True))
    for index, name in enumerate(rng.sample(view.others, min(20, len(view.others)))):
        text = rng.choice(("Is {name} allergic to anything?", "What was {poss} primary discharge diagnosis?"))
        found.append(
            HeldoutQuestion(
                text.format(name=name, poss=_possessive(name)), "unseen", "unseen", _half(index), None, abstain=True
            )
        )
    taken = {name.split()[0] for name in names}
    for index, name in enumerate(rng.sample(names, 20)):
        first = next(f for f in rng.sample(_INVENTED_FIRST_NAMES, len(_INVENTED_FIRST_NAMES)) if f not in taken)
        invented = f"{first} {name.split()[-1]}"
        text = rng.choice(("Did {name} have anemia during the stay?", "What medications was {name} discharged on?"))
        found.append(
            HeldoutQuestion(text.format(name=invented), "wrong_name", "wrong_name", _half(index), None, abstain=True)
        )
    return found


TEST2: Final = "test2"
"""The second blind test split (:mod:`clinrag.evaluate.heldout_questions_2`; ``data/heldout/test2.toml``)."""
TEST3: Final = "test3"
"""The third blind test split (:mod:`clinrag.evaluate.heldout_questions_3`; ``data/heldout/test3.toml``)."""
TEST4: Final = "test4"
"""The fourth blind test split (:mod:`clinrag.evaluate.heldout_questions_4`; ``data/heldout/test4.toml``)."""
TEST5: Final = "test5"
"""The fifth blind test split (:mod:`clinrag.evaluate.heldout_questions_5`; ``data/heldout/test5.toml``)."""
TEST6: Final = "test6"
"""The sixth blind test split (``data/heldout/test6.toml``: a pharmacist's medicines reconciliation, an ED triage nurse
in a hurry, English as a second language), written without reading the question-reading code and committed before
its first run."""
TEST7: Final = "test7"
"""The seventh blind test split (``data/heldout/test7.toml``: a junior doctor on call at night paged about a patient
they do not know, a GP reading the discharge letter and asking the hospital, a relative or patient advocate writing
formally), written without reading the question-reading code and committed before its first run."""
TEST8: Final = "test8"
"""The eighth blind test split (``data/heldout/test8.toml``: a records officer writing formally for a coroner's
inquest, a complaint or a solicitor, a medical student texting in shorthand, a research nurse screening for a clinical
study), written without reading the question-reading code and committed before its first run."""
TEST9: Final = "test9"
"""The ninth blind test split (``data/heldout/test9.toml``: a hospital-at-home or virtual-ward nurse phoning in from
the patient's house, an insurance or occupational-health assessor writing formally, a patient's adult child writing an
anxious, rambling email in lay words), written without reading the question-reading code and committed before its
first run."""
TEST10: Final = "test10"
"""The tenth blind test split (``data/heldout/test10.toml``: an out-of-hours GP covering a weekend, clipped and
clinical, a social worker or safeguarding lead writing a referral, the patient themself writing in the first person
with spelling slips), written without reading the question-reading code and committed before its first run."""
TEST11: Final = "test11"
"""The eleventh blind test split (``data/heldout/test11.toml``: a dental surgeon checking the medical history before
an extraction, a prison healthcare nurse receiving a prisoner back from a hospital escort, an NHS 111 health adviser
reading from a call script), written without reading the question-reading code and committed before its first run."""
TEST12: Final = "test12"
"""The twelfth blind test split (``data/heldout/test12.toml``: an infection prevention and control nurse working through
the day's alerts, a cardiac rehabilitation nurse assessing a new referral, a practice nurse doing a long-term-condition
annual review), written without reading the question-reading code and committed before its first run."""
TEST13: Final = "test13"
"""The thirteenth blind test split (``data/heldout/test13.toml``: a renal dialysis unit nurse taking on a patient for a
dialysis slot, a falls prevention clinic nurse after a fall, an endoscopy unit nurse at the pre-procedure check),
written without reading the question-reading code and committed before its first run."""


@dataclass(frozen=True)
class BlindSplit:
    """The wordings of one blind split: answerable families per intent and must-abstain templates."""

    name: str
    families: dict[str, dict[str, tuple[str, ...]]]
    absent_topics: tuple[str, ...]
    negative_templates: tuple[str, ...]
    absent_drugs: tuple[str, ...]
    noise_templates: tuple[str, ...]
    unseen_templates: tuple[str, ...]
    wrong_name_templates: tuple[str, ...]
    invented_first_names: tuple[str, ...]

    @classmethod
    def load(cls, name: str) -> BlindSplit:
        """The blind split ``name`` as its data file ``data/heldout/<name>.toml`` holds it."""
        wordings = load_blind_split(name)
        return cls(
            name,
            wordings.families,
            wordings.absent_topics,
            wordings.negative_templates,
            wordings.absent_drugs,
            wordings.noise_templates,
            wordings.unseen_templates,
            wordings.wrong_name_templates,
            wordings.invented_first_names,
        )


SPLIT_2: Final = BlindSplit.load(TEST2)
SPLIT_3: Final = BlindSplit.load(TEST3)
SPLIT_4: Final = BlindSplit.load(TEST4)
SPLIT_5: Final = BlindSplit.load(TEST5)
SPLIT_6: Final = BlindSplit.load(TEST6)
SPLIT_7: Final = BlindSplit.load(TEST7)
SPLIT_8: Final = BlindSplit.load(TEST8)
SPLIT_9: Final = BlindSplit.load(TEST9)
SPLIT_10: Final = BlindSplit.load(TEST10)
SPLIT_11: Final = BlindSplit.load(TEST11)
SPLIT_12: Final = BlindSplit.load(TEST12)
SPLIT_13: Final = BlindSplit.load(TEST13)
# test14 … test49: the fourteenth to forty-ninth blind test splits (``data/heldout/test14.toml`` …), each in three
# new voices named in its data file's header, written without reading the question-reading code and committed before
# its first run.
SPLIT_14: Final = BlindSplit.load("test14")
SPLIT_15: Final = BlindSplit.load("test15")
SPLIT_16: Final = BlindSplit.load("test16")
SPLIT_17: Final = BlindSplit.load("test17")
SPLIT_18: Final = BlindSplit.load("test18")
SPLIT_19: Final = BlindSplit.load("test19")
SPLIT_20: Final = BlindSplit.load("test20")
SPLIT_21: Final = BlindSplit.load("test21")
SPLIT_22: Final = BlindSplit.load("test22")
SPLIT_23: Final = BlindSplit.load("test23")
SPLIT_24: Final = BlindSplit.load("test24")
SPLIT_25: Final = BlindSplit.load("test25")
SPLIT_26: Final = BlindSplit.load("test26")
SPLIT_27: Final = BlindSplit.load("test27")
SPLIT_28: Final = BlindSplit.load("test28")
SPLIT_29: Final = BlindSplit.load("test29")
SPLIT_30: Final = BlindSplit.load("test30")
SPLIT_31: Final = BlindSplit.load("test31")
SPLIT_32: Final = BlindSplit.load("test32")
SPLIT_33: Final = BlindSplit.load("test33")
SPLIT_34: Final = BlindSplit.load("test34")
SPLIT_35: Final = BlindSplit.load("test35")
SPLIT_36: Final = BlindSplit.load("test36")
SPLIT_37: Final = BlindSplit.load("test37")
SPLIT_38: Final = BlindSplit.load("test38")
SPLIT_39: Final = BlindSplit.load("test39")
SPLIT_40: Final = BlindSplit.load("test40")
SPLIT_41: Final = BlindSplit.load("test41")
SPLIT_42: Final = BlindSplit.load("test42")
SPLIT_43: Final = BlindSplit.load("test43")
SPLIT_44: Final = BlindSplit.load("test44")
SPLIT_45: Final = BlindSplit.load("test45")
SPLIT_46: Final = BlindSplit.load("test46")
SPLIT_47: Final = BlindSplit.load("test47")
SPLIT_48: Final = BlindSplit.load("test48")
SPLIT_49: Final = BlindSplit.load("test49")
BLIND_SPLITS: Final = (
    SPLIT_2, SPLIT_3, SPLIT_4, SPLIT_5, SPLIT_6, SPLIT_7, SPLIT_8, SPLIT_9, SPLIT_10, SPLIT_11, SPLIT_12, SPLIT_13,
    SPLIT_14, SPLIT_15, SPLIT_16, SPLIT_17, SPLIT_18, SPLIT_19, SPLIT_20, SPLIT_21, SPLIT_22, SPLIT_23, SPLIT_24,
    SPLIT_25, SPLIT_26, SPLIT_27, SPLIT_28, SPLIT_29, SPLIT_30, SPLIT_31, SPLIT_32, SPLIT_33, SPLIT_34, SPLIT_35,
    SPLIT_36, SPLIT_37, SPLIT_38, SPLIT_39, SPLIT_40, SPLIT_41, SPLIT_42, SPLIT_43, SPLIT_44, SPLIT_45,
    SPLIT_46, SPLIT_47, SPLIT_48, SPLIT_49,
)  # fmt: skip
"""Every blind templated split, oldest first: the benchmark and the tests enumerate this, not their own lists."""


class SplitBuilder(Protocol):
    """A blind split's question builder (``build_questions_2`` … ``build_questions_49``)."""

    def __call__(self, view: CohortView, seed: int = 11, per_template: int = 2) -> list[HeldoutQuestion]: ...


def _builder(split: BlindSplit) -> SplitBuilder:
    """The builder of the split ``split``: :func:`build_blind_split` of it, named ``build_questions_<n>``."""

    def build(view: CohortView, seed: int = 11, per_template: int = 2) -> list[HeldoutQuestion]:
        return build_blind_split(view, split, seed, per_template)

    build.__name__ = build.__qualname__ = f"build_questions_{split.name.removeprefix('test')}"
    build.__doc__ = f"The split ``{split.name}`` (:func:`build_blind_split` of its data file)."
    return build


build_questions_2: Final = _builder(SPLIT_2)
build_questions_3: Final = _builder(SPLIT_3)
build_questions_4: Final = _builder(SPLIT_4)
build_questions_5: Final = _builder(SPLIT_5)
build_questions_6: Final = _builder(SPLIT_6)
build_questions_7: Final = _builder(SPLIT_7)
build_questions_8: Final = _builder(SPLIT_8)
build_questions_9: Final = _builder(SPLIT_9)
build_questions_10: Final = _builder(SPLIT_10)
build_questions_11: Final = _builder(SPLIT_11)
build_questions_12: Final = _builder(SPLIT_12)
build_questions_13: Final = _builder(SPLIT_13)
build_questions_14: Final = _builder(SPLIT_14)
build_questions_15: Final = _builder(SPLIT_15)
build_questions_16: Final = _builder(SPLIT_16)
build_questions_17: Final = _builder(SPLIT_17)
build_questions_18: Final = _builder(SPLIT_18)
build_questions_19: Final = _builder(SPLIT_19)
build_questions_20: Final = _builder(SPLIT_20)
build_questions_21: Final = _builder(SPLIT_21)
build_questions_22: Final = _builder(SPLIT_22)
build_questions_23: Final = _builder(SPLIT_23)
build_questions_24: Final = _builder(SPLIT_24)
build_questions_25: Final = _builder(SPLIT_25)
build_questions_26: Final = _builder(SPLIT_26)
build_questions_27: Final = _builder(SPLIT_27)
build_questions_28: Final = _builder(SPLIT_28)
build_questions_29: Final = _builder(SPLIT_29)
build_questions_30: Final = _builder(SPLIT_30)
build_questions_31: Final = _builder(SPLIT_31)
build_questions_32: Final = _builder(SPLIT_32)
build_questions_33: Final = _builder(SPLIT_33)
build_questions_34: Final = _builder(SPLIT_34)
build_questions_35: Final = _builder(SPLIT_35)
build_questions_36: Final = _builder(SPLIT_36)
build_questions_37: Final = _builder(SPLIT_37)
build_questions_38: Final = _builder(SPLIT_38)
build_questions_39: Final = _builder(SPLIT_39)
build_questions_40: Final = _builder(SPLIT_40)
build_questions_41: Final = _builder(SPLIT_41)
build_questions_42: Final = _builder(SPLIT_42)
build_questions_43: Final = _builder(SPLIT_43)
build_questions_44: Final = _builder(SPLIT_44)
build_questions_45: Final = _builder(SPLIT_45)
build_questions_46: Final = _builder(SPLIT_46)
build_questions_47: Final = _builder(SPLIT_47)
build_questions_48: Final = _builder(SPLIT_48)
build_questions_49: Final = _builder(SPLIT_49)


def build_blind_split(
    view: CohortView, split: BlindSplit, seed: int = 11, per_template: int = 2
) -> list[HeldoutQuestion]:
    """A blind split: its phrasing families of every intent, ``per_template`` patients each, and must-abstain
    questions in its wordings (tests and drugs no note of the node mentions, patients of other hospitals, real
    surnames with invented first names). Its own random stream, so the other splits are unchanged."""
    rng = random.Random(f"{split.name}-{seed}")
    questions: list[HeldoutQuestion] = []
    for intent, families in split.families.items():
        eligible = [(sid, gold) for sid in sorted(view.names) if (gold := _gold(view, intent, sid)) is not None]
        for family, templates in families.items():
            for template in templates:
                for sid, (expected, need, ordered) in rng.sample(eligible, min(per_template, len(eligible))):
                    text = _fill(template, view.names[sid])
                    forbidden = CONTRADICTING_COMPLICATION if intent == "complication" else ()
                    questions.append(
                        HeldoutQuestion(text, intent, family, split.name, sid, expected, need, forbidden, ordered)
                    )
    return questions + _must_abstain_blind(view, split, rng)


def _fill(template: str, name: str) -> str:
    first, _, last = name.partition(" ")
    return template.format(name=name, poss=_possessive(name), listed=f"{last}, {first}", lower=name.lower())


def _must_abstain_blind(
    view: CohortView, split: BlindSplit, rng: random.Random, per_kind: int = 20
) -> list[HeldoutQuestion]:
    names = sorted(view.names.values())
    corpus = " ".join(text for _, _, text in view.notes.values()).lower()

    def absent(items: Iterable[str]) -> list[str]:
        return [item for item in items if not re.search(rf"\b{re.escape(item.lower())}\b", corpus)]

    topics, drugs = absent(split.absent_topics), absent(split.absent_drugs)
    found: list[HeldoutQuestion] = []
    for _ in range(per_kind if topics else 0):
        name = rng.choice(names)
        text = rng.choice(split.negative_templates).format(name=name, poss=_possessive(name), topic=rng.choice(topics))
        found.append(HeldoutQuestion(text, "negative", "rejection", split.name, None, abstain=True))
    for _ in range(per_kind if drugs else 0):
        text = rng.choice(split.noise_templates).format(name=rng.choice(names), drug=rng.choice(drugs))
        found.append(HeldoutQuestion(text, "noise", "rejection", split.name, None, abstain=True))
    for name in rng.sample(view.others, min(per_kind, len(view.others))):
        text = rng.choice(split.unseen_templates).format(name=name, poss=_possessive(name))
        found.append(HeldoutQuestion(text, "unseen", "unseen", split.name, None, abstain=True))
    taken = {name.split()[0] for name in names}
    invented = [first for first in split.invented_first_names if first not in taken]
    for name in rng.sample(names, min(per_kind, len(names))):
        wrong = f"{rng.choice(invented)} {name.split()[-1]}"
        text = rng.choice(split.wrong_name_templates).format(name=wrong, poss=_possessive(wrong))
        found.append(HeldoutQuestion(text, "wrong_name", "wrong_name", split.name, None, abstain=True))
    return found


def _half(index: int) -> str:
    return "dev" if index % 2 == 0 else "test"


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def grade(question: HeldoutQuestion, answer: Answer) -> str:
    """The grade of ``answer`` (see the module docstring)."""
    cited = {answer.sources[n - 1].chunk.subject_id for n in answer.cited if 0 < n <= len(answer.sources)}
    if question.abstain:
        if answer.abstained:
            return "correct_abstain"
        return "wrong_patient" if question.intent == "wrong_name" else "answered_wrongly"
    if answer.abstained:
        return "wrong_abstain"
    if cited - {question.subject_id, None}:
        return "wrong_patient"
    text = _normal(answer.text)
    if any(word in text for word in question.forbidden) or _negates(text, question.expected):
        return "contradicts"
    positions = [text.find(_normal(item)) for item in question.expected]
    if sum(position >= 0 for position in positions) < question.need:
        return "incomplete"
    if question.ordered and positions != sorted(positions):
        return "incomplete"
    return "correct"


def _negates(text: str, expected: Iterable[str]) -> bool:
    """Whether ``text`` negates one of the gold strings ("no known allergies" is not a negation of a gold string)."""
    return any(
        re.search(_NEGATION_BEFORE + re.escape(_normal(item)), text) is not None
        for item in expected
        if not _normal(item).startswith(("no ", "denies", "never", "not "))
    )


@dataclass(frozen=True)
class Graded:
    """One question's answer, grade and time."""

    question: HeldoutQuestion
    answer: Answer
    grade: str
    seconds: float


def summarise(graded: Sequence[Graded]) -> dict[str, object]:
    """Counts and rates of each grade, answered-and-correct, sentence support, rejection and latency, for one split
    of one generator; with per-intent and per-family answered-and-correct rates."""
    answerable = [g for g in graded if not g.question.abstain]
    rejecting = [g for g in graded if g.question.abstain]
    grades: dict[str, int] = defaultdict(int)
    for item in graded:
        grades[item.grade] += 1
    answered = [g for g in answerable if not g.answer.abstained]
    seconds = sorted(g.seconds for g in graded)
    return {
        "questions": len(graded),
        "answerable": len(answerable),
        "grades": dict(sorted(grades.items())),
        "answered_and_correct": _rate(answerable, "correct"),
        "wrong_patient": grades["wrong_patient"],
        "contradicts": grades["contradicts"],
        "sentence_support": round(statistics.fmean(g.answer.support for g in answered), 4) if answered else None,
        "rejection": {
            kind: _rate([g for g in rejecting if g.question.intent == kind], "correct_abstain")
            for kind in sorted({g.question.intent for g in rejecting})
        },
        "latency_s": {"p50": _percentile(seconds, 0.5), "p95": _percentile(seconds, 0.95)},
        "by_intent": {
            intent: _rate([g for g in answerable if g.question.intent == intent], "correct")
            for intent in sorted({g.question.intent for g in answerable})
        },
        "by_family": {
            family: _rate([g for g in answerable if g.question.family == family], "correct")
            for family in sorted({g.question.family for g in answerable})
        },
    }


def _rate(items: Sequence[Graded], wanted: str) -> float | None:
    return round(sum(item.grade == wanted for item in items) / len(items), 4) if items else None


def _percentile(ordered: Sequence[float], share: float) -> float:
    if not ordered:
        return 0.0
    return round(ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))], 3)
