"""Multiple-choice discharge questions built from a synthetic cohort, after DischargeQA of the ExpRAG paper.

Each admission with a discharge note can give three questions, each asked on a background that stops before the
discharge plan so the answer is never in it:

- ``diagnosis`` (multi-select): which diagnoses the discharge summary documents. Background: a demographics line and
  the note's clinical-profile sections. Correct: the note's Discharge Diagnosis (gold facts, one option per ICD code,
  worded as the code's title). Distractors: the patient's codes of other admissions, then other patients' discharge
  diagnoses of the same service, then of any service.
- ``medication`` (multi-select): which drugs are prescribed at discharge. Background: clinical profile and
  in-hospital progress. Correct: the Discharge Medications drug names. Distractors: home medications not continued,
  the patient's other prescriptions, then other patients' discharge drugs (same service first).
- ``instruction`` (single-select, 4 options): the best discharge instruction. Background as for medication. Correct:
  the patient-specific sentences of the note's Discharge Instructions (greeting and sign-off dropped). Distractors:
  the same text of three patients with another storyline and another principal diagnosis.

A distractor is never also right: it may not share an ICD code or category, a drug ingredient, or (nearly) the words
of a correct option. Every choice is made by a `random.Random` seeded from (seed, task, admission), so a cohort and a
seed always give byte-identical JSONL. The split is by patient (a SHA-256 of seed and subject id): every question of
a patient is in the same half. ``dev`` is for tuning prompts and retrieval; ``test`` is never used for tuning, only
for the reported numbers. Admissions that cannot give a question are counted by task and reason, never dropped
silently (`QuestionSet.skipped`, also logged).

Example:
    >>> QUESTION_TEXT["medication"]
    'Which medications should be prescribed to the patient at discharge?'
    >>> near_copy("Hyperlipidemia, unspecified", "hyperlipidemia"), sorted(ingredients("Aspirin EC"))
    (True, ['aspirin'])
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from clinrag.errors import InputError
from clinrag.ingest.mimic import IngestReport
from clinrag.ingest.notes import Section, parse_note
from clinrag.ingest.reader import MimicReader
from clinrag.ingest.synthetic.cohort import FULL
from clinrag.types import Admission, Note, Patient, SectionGroup

log = logging.getLogger(__name__)

Task = Literal["diagnosis", "medication", "instruction"]
Split = Literal["dev", "test"]
TASKS: Final[tuple[Task, ...]] = ("diagnosis", "medication", "instruction")
QUESTION_TEXT: Final[Mapping[Task, str]] = {
    "diagnosis": "Which diagnoses should be documented in the patient's discharge summary?",
    "medication": "Which medications should be prescribed to the patient at discharge?",
    "instruction": "What is the best discharge instruction for this patient?",
}
BACKGROUND_GROUPS: Final[Mapping[Task, tuple[SectionGroup, ...]]] = {
    "diagnosis": (SectionGroup.CLINICAL_PROFILE,),
    "medication": (SectionGroup.CLINICAL_PROFILE, SectionGroup.IN_HOSPITAL_PROGRESS),
    "instruction": (SectionGroup.CLINICAL_PROFILE, SectionGroup.IN_HOSPITAL_PROGRESS),
}
MIN_CORRECT: Final = 2
MAX_CORRECT: Final[Mapping[Task, int]] = {"diagnosis": 5, "medication": 6, "instruction": 1}
MIN_DISTRACTORS: Final = 3
MAX_DISTRACTORS: Final = 6
MAX_OPTIONS: Final = 10
INSTRUCTION_OPTIONS: Final = 4
MIN_INSTRUCTION_CHARS: Final = 60
NEAR_COPY_OVERLAP: Final = 0.5
"""Share of content words (Jaccard) from which two options say nearly the same thing."""
GOLD_FILE: Final = "gold_facts.jsonl"

_NON_WORD = re.compile(r"[^a-z0-9]+")
_PARENTHESES = re.compile(r"\(([^)]*)\)")
_BULLET = re.compile(r"^(?:[-*•–]|\d{1,3}[.)])\s+")
_BOILERPLATE = re.compile(
    r"^(?:dear\b|it was (?:a|our) (?:pleasure|privilege)|we wish you|thank you for|sincerely|best wishes"
    r"|your\b.*\bteam\W*$)",
    re.IGNORECASE,
)
# Words that carry no meaning of their own when comparing diagnosis titles or instructions.
_STOP_WORDS: Final = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "of", "on", "or",
    "other", "the", "this", "to", "was", "were", "with", "without", "you", "your",
    "unspecified", "specified", "initial", "encounter",
})  # fmt: skip
_RELEASE_WORDS: Final = frozenset({"immediate", "extended", "sustained", "delayed", "release"})


class DischargeQuestion(BaseModel):
    """One multiple-choice discharge question; ``correct`` holds sorted indices into ``options``.

    Example:
        >>> q = DischargeQuestion(qid="instruction-1", split="dev", task="instruction", org="A", subject_id=1,
        ...                       hadm_id=1, note_id="1-DS-1", background="Sex: F. Age: 67.",
        ...                       question=QUESTION_TEXT["instruction"], options=("a", "b", "c", "d"), correct=(2,))
        >>> q.multi, q.options[q.correct[0]]
        (False, 'c')
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    qid: str
    split: Split
    task: Task
    org: str
    subject_id: int
    hadm_id: int
    note_id: str
    background: str
    question: str
    options: tuple[str, ...]
    correct: tuple[int, ...]

    @property
    def multi(self) -> bool:
        """Whether more than one option may be right (diagnosis and medication)."""
        return self.task != "instruction"

    @model_validator(mode="after")
    def _consistent(self) -> DischargeQuestion:
        if len(set(self.options)) != len(self.options):
            raise ValueError(f"{self.qid}: options repeat")
        if not self.correct or list(self.correct) != sorted(set(self.correct)):
            raise ValueError(f"{self.qid}: correct must be non-empty, sorted and unique")
        if self.correct[0] < 0 or self.correct[-1] >= len(self.options):
            raise ValueError(f"{self.qid}: a correct index is out of range")
        if not self.multi and (len(self.correct) != 1 or len(self.options) != INSTRUCTION_OPTIONS):
            raise ValueError(f"{self.qid}: an instruction question has one correct of {INSTRUCTION_OPTIONS} options")
        return self


@dataclass(frozen=True)
class QuestionSet:
    """The questions built from a cohort and, per (task, reason), the admissions that gave none."""

    questions: tuple[DischargeQuestion, ...]
    skipped: Counter[tuple[Task, str]]

    def counts(self) -> Counter[tuple[Task, Split]]:
        """Questions per (task, split)."""
        return Counter((q.task, q.split) for q in self.questions)


# --- text helpers -------------------------------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Lower case, punctuation to spaces, single spaces.

    Example:
        >>> normalise("Hyperlipidemia, unspecified (HLD)")
        'hyperlipidemia unspecified hld'
    """
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def _content_words(text: str) -> frozenset[str]:
    return frozenset(word for word in normalise(text).split() if word not in _STOP_WORDS)


def near_copy(first: str, second: str) -> bool:
    """Whether two options say the same thing: equal or contained once normalised, or mostly the same words.

    Example:
        >>> near_copy("Type 2 diabetes mellitus without complications", "Type 2 diabetes mellitus with hyperglycemia")
        True
        >>> near_copy("Acute kidney failure, unspecified", "Chronic kidney disease, stage 3a")
        False
    """
    a, b = normalise(first), normalise(second)
    if not a or not b or a in b or b in a:
        return True
    words_a, words_b = _content_words(a), _content_words(b)
    union = words_a | words_b
    return bool(union) and len(words_a & words_b) / len(union) >= NEAR_COPY_OVERLAP


def ingredients(drug: str) -> frozenset[str]:
    """The first word of each component of a drug name (and of a brand in parentheses), normalised.

    Example:
        >>> sorted(ingredients("Sacubitril-Valsartan")), sorted(ingredients("MetFORMIN (Glucophage)"))
        (['sacubitril', 'valsartan'], ['glucophage', 'metformin'])
        >>> sorted(ingredients("OxyCODONE (Immediate Release)"))
        ['oxycodone']
    """
    words: set[str] = set()
    for inner in _PARENTHESES.findall(drug):
        first = _first_word(inner)
        if first and first not in _RELEASE_WORDS:
            words.add(first)
    for component in re.split(r"[-/+]", _PARENTHESES.sub(" ", drug)):
        first = _first_word(component)
        if first:
            words.add(first)
    return frozenset(words)


def _first_word(text: str) -> str | None:
    """The first normalised word that is not a number ("0.9% Sodium Chloride" → sodium)."""
    return next((w for w in normalise(text).split() if not w.isdigit()), None)


def specific_instruction(text: str) -> str:
    """The patient-specific sentences of a Discharge Instructions section, joined in one paragraph.

    Example:
        >>> specific_instruction("Dear Ms. ___,\\n\\nIt was a pleasure taking care of you.\\nDrink fluids\\n"
        ...                      "- Please take Senna (for constipation).\\nWe wish you the best!\\nYour ___ Care Team")
        'Drink fluids. Please take Senna (for constipation).'
    """
    kept = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw.strip()).strip()
        if not line or _BOILERPLATE.match(line):
            continue
        kept.append(line if line[-1] in ".!?" else line + ".")
    return " ".join(kept)


def split_of(subject_id: int, seed: int) -> Split:
    """The half a patient's questions are in, from a SHA-256 of seed and subject id (stable across runs).

    Example:
        >>> split_of(10000000, 0) == split_of(10000000, 0), split_of(10000000, 0) in ("dev", "test")
        (True, True)
    """
    digest = hashlib.sha256(f"discharge-questions:{seed}:{subject_id}".encode()).digest()
    return "test" if digest[0] % 2 else "dev"


def _head(title: str) -> str:
    """The words of an ICD title before its first qualifier, without stop words ("Obesity, unspecified" → obesity)."""
    words = normalise(_PARENTHESES.sub(" ", title.partition(",")[0])).split()
    return " ".join(w for w in words if w not in _STOP_WORDS)


def _category(code: str) -> str:
    """The ICD category (first three characters): codes sharing it are too close to tell apart."""
    return code[:3]


# --- what the builder reads of a cohort ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Stay:
    """One admission with its discharge note, as the builder needs it."""

    subject_id: int
    hadm_id: int
    note_id: str
    org: str
    service: str
    storyline: str
    demographics: str
    sections: tuple[Section, ...]
    diagnoses: Mapping[str, str]
    """Discharge Diagnosis: ICD code → title, in note order, one per code."""
    mentioned: frozenset[str]
    """Every ICD code any diagnosis fact of the note names (past history, hospital course …)."""
    medications: tuple[str, ...]
    home_medications: tuple[str, ...]
    instruction: str | None

    @property
    def principal(self) -> str:
        """The category of the first discharge diagnosis ('' without one)."""
        return _category(next(iter(self.diagnoses), ""))

    def background(self, task: Task) -> str:
        """Demographics and the note's sections of the task's groups, in note order, each under its title."""
        groups = BACKGROUND_GROUPS[task]
        parts = [self.demographics]
        parts.extend(f"{s.title}:\n{s.text}" for s in self.sections if s.group in groups)
        return "\n\n".join(parts)


@dataclass
class _Cohort:
    """The stays of a cohort, what each patient has on record, and option pools by service."""

    stays: list[_Stay] = field(default_factory=list)
    coded: dict[int, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))
    """subject_id → (ICD code, title) of every coded diagnosis of every admission."""
    prescribed: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    """subject_id → drug of every prescription."""
    skipped: Counter[tuple[Task, str]] = field(default_factory=Counter)

    def diagnosis_pool(self, service: str | None) -> list[tuple[str, str]]:
        """Every stay's discharge diagnoses (code, title), sorted, of one service or of all."""
        found = {c: t for s in self.stays if service in (None, s.service) for c, t in s.diagnoses.items()}
        return sorted(found.items())

    def medication_pool(self, service: str | None) -> list[str]:
        """Discharge drugs, sorted, of one service or all."""
        return sorted({m for s in self.stays if service in (None, s.service) for m in s.medications})


def _read_facts(path: Path) -> dict[str, list[dict[str, object]]]:
    facts: dict[str, list[dict[str, object]]] = defaultdict(list)
    if not path.is_file():
        return facts
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                facts[str(record["note_id"])].append(record)
    return facts


def _hospital_orgs(cohort: Path) -> dict[int, str]:
    """hadm_id → the hospital folder that holds the admission (when gold facts do not say)."""
    orgs: dict[int, str] = {}
    folder = cohort / "hospitals"
    if folder.is_dir():
        for hospital in sorted(p for p in folder.iterdir() if p.is_dir()):
            for admission in MimicReader(hospital).admissions(IngestReport()):
                orgs.setdefault(admission.hadm_id, hospital.name)
    return orgs


def _unique(values: Iterable[str], key: Callable[[str], object]) -> tuple[str, ...]:
    seen: set[object] = set()
    kept = []
    for value in values:
        if key(value) not in seen:
            seen.add(key(value))
            kept.append(value)
    return tuple(kept)


def _demographics(patient: Patient | None, admission: Admission) -> str:
    if patient is None:
        return "Sex: unknown. Age: unknown."
    # MIMIC shifts dates per patient: the age at admission is anchor_age plus the years since anchor_year.
    age = patient.anchor_age + (admission.admittime.year - patient.anchor_year if patient.anchor_year else 0)
    return f"Sex: {patient.gender or 'unknown'}. Age: {age}."


def _stay(
    note: Note, admission: Admission, patient: Patient | None, facts: list[dict[str, object]], org: str, service: str
) -> _Stay:
    parsed = parse_note(note.text)
    signal = [f for f in facts if not f.get("noise")]

    def values(kind: str, section: str) -> list[dict[str, object]]:
        return [f for f in signal if f.get("kind") == kind and f.get("section") == section]

    diagnoses: dict[str, str] = {}
    for fact in values("diagnosis", "Discharge Diagnosis"):
        diagnoses.setdefault(str(fact["value"]), str(fact["label"]))
    instructions = [s.text for s in parsed.sections if s.title == "Discharge Instructions"]
    return _Stay(
        subject_id=admission.subject_id,
        hadm_id=admission.hadm_id,
        note_id=note.note_id,
        org=org,
        service=service or parsed.service or "",
        storyline=str(facts[0]["storyline"]) if facts else "",
        demographics=_demographics(patient, admission),
        sections=parsed.sections,
        diagnoses=diagnoses,
        mentioned=frozenset(str(f["value"]) for f in signal if f.get("kind") == "diagnosis"),
        medications=_unique((str(f["value"]) for f in values("medication", "Discharge Medications")), normalise),
        home_medications=_unique(
            (str(f["value"]) for f in values("medication", "Medications on Admission")), normalise
        ),
        instruction=specific_instruction("\n".join(instructions)) if instructions else None,
    )


def _load(cohort: Path) -> _Cohort:
    """Read ``cohort/full`` (patients, admissions, notes, coded diagnoses, prescriptions) and the gold facts."""
    full, report, data = MimicReader(cohort / FULL), IngestReport(), _Cohort()
    patients = {p.subject_id: p for p in full.patients(report)}
    admissions = {a.hadm_id: a for a in full.admissions(report)}
    services = full.services(report)
    titles = full.titles("d_icd_diagnoses", report)
    for row in full.rows("diagnoses_icd", ("subject_id", "icd_code", "icd_version"), report):
        title = titles.get((str(row["icd_code"]), int(row["icd_version"])))
        if title:
            data.coded[int(row["subject_id"])].append((str(row["icd_code"]), title))
    columns = ("subject_id", "drug")
    for row in full.rows("prescriptions", columns, report, required_file=False):
        if row["drug"]:
            data.prescribed[int(row["subject_id"])].append(str(row["drug"]))
    notes: dict[int, Note] = {}
    for note in full.notes(report):
        if note.hadm_id is None or note.hadm_id not in admissions:
            _skip_all(data.skipped, "note_without_admission")
            continue
        kept = notes.get(note.hadm_id)
        if kept is not None:
            _skip_all(data.skipped, "extra_note")
            if (kept.note_seq, kept.note_id) > (note.note_seq, note.note_id):
                continue
        notes[note.hadm_id] = note
    facts = _read_facts(cohort / GOLD_FILE)
    orgs: dict[int, str] | None = None
    for hadm_id in sorted(admissions):
        admission, written = admissions[hadm_id], notes.get(hadm_id)
        if written is None:
            _skip_all(data.skipped, "no_note")
            continue
        note_facts = facts.get(written.note_id, [])
        org = str(note_facts[0]["org"]) if note_facts else None
        if org is None:
            orgs = _hospital_orgs(cohort) if orgs is None else orgs
            org = orgs.get(hadm_id)
        if org is None:
            _skip_all(data.skipped, "no_org")
            continue
        patient = patients.get(admission.subject_id)
        data.stays.append(_stay(written, admission, patient, note_facts, org, services.get(hadm_id, "")))
    if report.skipped_total:
        log.warning("discharge questions: %d malformed cohort rows skipped", report.skipped_total)
    return data


def _skip_all(skipped: Counter[tuple[Task, str]], reason: str) -> None:
    for task in TASKS:
        skipped[task, reason] += 1


# --- option drawing -----------------------------------------------------------------------------------------------


_Accept = Callable[[str, Sequence[str]], bool]
"""Whether a candidate may join the distractors already chosen."""


def _draw(rng: random.Random, tiers: Sequence[Sequence[str]], accept: _Accept, wanted: int) -> list[str]:
    """Up to ``wanted`` distractors, taken tier by tier (each tier in seeded random order) where ``accept`` allows."""
    chosen: list[str] = []
    for tier in tiers:
        candidates = list(tier)
        rng.shuffle(candidates)
        for candidate in candidates:
            if len(chosen) == wanted:
                return chosen
            if candidate not in chosen and accept(candidate, chosen):
                chosen.append(candidate)
    return chosen


def _multi_select(
    rng: random.Random, task: Task, correct: Sequence[str], draw: Callable[[int], list[str]]
) -> tuple[tuple[str, ...], tuple[int, ...]] | str:
    """Shuffled options and correct indices, or the reason none could be made."""
    if len(correct) < MIN_CORRECT:
        return "too_few_correct"
    shown = sorted(correct)
    if len(shown) > MAX_CORRECT[task]:
        shown = rng.sample(shown, MAX_CORRECT[task])
    wanted = rng.randint(MIN_DISTRACTORS, min(MAX_DISTRACTORS, MAX_OPTIONS - len(shown)))
    distractors = draw(wanted)
    if len(distractors) < MIN_DISTRACTORS:
        return "too_few_distractors"
    options = [(text, True) for text in shown] + [(text, False) for text in distractors]
    rng.shuffle(options)
    return tuple(t for t, _ in options), tuple(i for i, (_, right) in enumerate(options) if right)


class _Builder:
    """Builds each task's question for a stay of a loaded cohort."""

    def __init__(self, data: _Cohort, seed: int) -> None:
        self.data, self.seed = data, seed
        services = sorted({s.service for s in data.stays})
        self.diagnosis_pools = {service: data.diagnosis_pool(service) for service in services}
        self.all_diagnoses = data.diagnosis_pool(None)
        self.medication_pools = {service: data.medication_pool(service) for service in services}
        self.all_medications = data.medication_pool(None)
        # Instruction text → its stay (the first by hadm_id when two stays share a text).
        self.instructions: dict[str, _Stay] = {}
        for stay in data.stays:
            if stay.instruction and len(stay.instruction) >= MIN_INSTRUCTION_CHARS and stay.storyline:
                self.instructions.setdefault(stay.instruction, stay)

    def question(self, stay: _Stay, task: Task) -> DischargeQuestion | str:
        """The question of ``task`` for ``stay``, or the reason it cannot be built."""
        rng = random.Random(f"{self.seed}:{task}:{stay.hadm_id}")
        makers = {"diagnosis": self._diagnosis, "medication": self._medication, "instruction": self._instruction}
        built = makers[task](stay, rng)
        if isinstance(built, str):
            return built
        options, correct = built
        return DischargeQuestion(
            qid=f"{task}-{stay.hadm_id}",
            split=split_of(stay.subject_id, self.seed),
            task=task,
            org=stay.org,
            subject_id=stay.subject_id,
            hadm_id=stay.hadm_id,
            note_id=stay.note_id,
            background=stay.background(task),
            question=QUESTION_TEXT[task],
            options=options,
            correct=correct,
        )

    def _diagnosis(self, stay: _Stay, rng: random.Random) -> tuple[tuple[str, ...], tuple[int, ...]] | str:
        correct = list(_unique(stay.diagnoses.values(), normalise))
        # Codes the note names anywhere are excluded too: the background may support documenting them.
        blocked = {_category(code) for code in (*stay.diagnoses, *stay.mentioned)}
        own = [(c, t) for c, t in self.data.coded[stay.subject_id] if c not in stay.diagnoses]
        tiers = [own, self.diagnosis_pools.get(stay.service, []), self.all_diagnoses]
        code_of = {t: c for tier in reversed(tiers) for c, t in tier}
        background = f" {normalise(stay.background('diagnosis'))} "

        def accept(title: str, chosen: Sequence[str]) -> bool:
            if _category(code_of[title]) in blocked | {_category(code_of[t]) for t in chosen}:
                return False
            # A condition the background itself names ("... with dehydration") is not clearly wrong.
            if f" {_head(title)} " in background:
                return False
            return not any(near_copy(title, o) for o in (*correct, *chosen))

        titles = [sorted({t for _, t in tier}) for tier in tiers]
        return _multi_select(rng, "diagnosis", correct, lambda wanted: _draw(rng, titles, accept, wanted))

    def _medication(self, stay: _Stay, rng: random.Random) -> tuple[tuple[str, ...], tuple[int, ...]] | str:
        correct = list(stay.medications)
        taken = frozenset().union(*(ingredients(drug) for drug in correct))

        def accept(drug: str, chosen: Sequence[str]) -> bool:
            words = ingredients(drug)
            if not words or words & taken or any(words & ingredients(o) for o in chosen):
                return False
            return not any(near_copy(drug, o) for o in (*correct, *chosen))

        tiers = [
            sorted(set(stay.home_medications)),
            sorted(set(self.data.prescribed[stay.subject_id])),
            self.medication_pools.get(stay.service, []),
            self.all_medications,
        ]
        return _multi_select(rng, "medication", correct, lambda wanted: _draw(rng, tiers, accept, wanted))

    def _instruction(self, stay: _Stay, rng: random.Random) -> tuple[tuple[str, ...], tuple[int, ...]] | str:
        if stay.instruction is None:
            return "no_instructions"
        if len(stay.instruction) < MIN_INSTRUCTION_CHARS:
            return "too_short"
        if not stay.storyline:
            return "no_storyline"
        correct = stay.instruction

        def accept(text: str, chosen: Sequence[str]) -> bool:
            # Another storyline and another principal diagnosis than the patient's and than each other's.
            other, taken = self.instructions[text], [stay, *(self.instructions[t] for t in chosen)]
            if other.subject_id == stay.subject_id:
                return False
            if any(other.storyline == s.storyline or other.principal == s.principal for s in taken):
                return False
            return not any(near_copy(text, o) for o in (correct, *chosen))

        same_service = sorted(t for t, s in self.instructions.items() if s.service == stay.service)
        distractors = _draw(rng, [same_service, sorted(self.instructions)], accept, INSTRUCTION_OPTIONS - 1)
        if len(distractors) < INSTRUCTION_OPTIONS - 1:
            return "too_few_distractors"
        options = [correct, *distractors]
        rng.shuffle(options)
        return tuple(options), (options.index(correct),)


# --- public API ---------------------------------------------------------------------------------------------------


def build_question_set(cohort: Path, *, seed: int = 0, per_task: int | None = None) -> QuestionSet:
    """Every question the cohort at ``cohort`` gives (at most ``per_task`` per task), and the skips by reason.

    Example:
        >>> import tempfile
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = generate_cohort(folder, patients=12, seed=3, workers=1)
        >>> result = build_question_set(folder, per_task=2)
        >>> sorted(Counter(q.task for q in result.questions).values()), result.skipped["diagnosis", "no_note"]
        ([2, 2, 2], 0)
    """
    data = _load(cohort)
    builder, skipped = _Builder(data, seed), Counter(data.skipped)
    built: dict[Task, list[DischargeQuestion]] = {task: [] for task in TASKS}
    for stay in data.stays:
        for task in TASKS:
            question = builder.question(stay, task)
            if isinstance(question, str):
                skipped[task, question] += 1
            else:
                built[task].append(question)
    if per_task is not None:
        for task in TASKS:
            if len(built[task]) > per_task:
                skipped[task, "over_per_task"] += len(built[task]) - per_task
                built[task] = random.Random(f"{seed}:per_task:{task}").sample(built[task], per_task)
    questions = tuple(sorted((q for task in TASKS for q in built[task]), key=lambda q: (q.task, q.hadm_id)))
    log.info(
        "discharge questions: %s built; skipped %s",
        dict(sorted(Counter(q.task for q in questions).items())),
        {f"{task}/{reason}": n for (task, reason), n in sorted(skipped.items())},
    )
    return QuestionSet(questions=questions, skipped=skipped)


def build_questions(cohort: Path, *, seed: int = 0, per_task: int | None = None) -> list[DischargeQuestion]:
    """The discharge questions of a cohort written by ``clinrag synth`` (see `build_question_set` for the skips).

    Example:
        >>> import tempfile
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = generate_cohort(folder, patients=12, seed=3, workers=1)
        >>> len(build_questions(folder, per_task=1))
        3
    """
    return list(build_question_set(cohort, seed=seed, per_task=per_task).questions)


def write_questions(questions: Iterable[DischargeQuestion], path: Path) -> None:
    """Write one question per line as JSON (UTF-8, ``\\n`` line ends), in the order given.

    Example:
        >>> import tempfile
        >>> q = DischargeQuestion(qid="diagnosis-1", split="test", task="diagnosis", org="B", subject_id=1,
        ...                       hadm_id=1, note_id="1-DS-1", background="Sex: M. Age: 50.",
        ...                       question=QUESTION_TEXT["diagnosis"], options=("x", "y", "z"), correct=(0, 2))
        >>> path = Path(tempfile.mkdtemp()) / "questions.jsonl"
        >>> write_questions([q], path)
        >>> load_questions(path) == [q]
        True
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for question in questions:
            handle.write(question.model_dump_json() + "\n")


def load_questions(path: Path) -> list[DischargeQuestion]:
    """Read questions written by `write_questions`; a bad line is an `InputError` naming the file and line."""
    questions = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                questions.append(DischargeQuestion.model_validate_json(line))
            except ValidationError as exc:
                # pydantic's message may quote the line's text; name only the fields at fault.
                fields = sorted({".".join(str(p) for p in error["loc"]) or "line" for error in exc.errors()})
                raise InputError(f"{path}:{number}: not a discharge question ({', '.join(fields)})") from None
    return questions
