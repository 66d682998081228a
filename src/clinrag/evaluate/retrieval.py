"""Retrieval quality on the synthetic cohort, scored against its gold facts.

The generator records which note and section states every fact (diagnosis, medication, procedure, complication,
finding, allergy, social history), with character offsets. From those facts this module writes templated
questions of three kinds, each with its relevant chunks (qrels):

- ``single_patient``: one named patient, across all their notes ("Which drugs was Betty Henry sent home with?");
- ``single_note``: one named patient and one stay ("During Betty Henry's stay in March 2019, what procedure was
  done?"); only the note of that stay is relevant;
- ``multi_patient``: a fact shared by a few patients ("Which patients were discharged on amiodarone?"); only values
  held by 2–6 patients are asked about, so that every relevant chunk fits in the top 10.

A chunk is relevant to a question when it belongs to the fact's note, has the fact's section, and its text contains
the fact's text (whitespace-normalised). Questions paraphrase the notes instead of copying them: none shares a run of
six words with one of its gold chunks.

The judgments are as complete as the gold facts, no more: a chunk that mentions a fact the generator did not record
there (a discharge drug named again in the Discharge Instructions, a home drug in the Brief Hospital Course's chronic
issues) counts as not relevant, which lowers MRR and nDCG a little and can push a relevant chunk out of the top k.

The runner searches every question with a `Retriever` per configuration (mode × name prefix × patient
resolution) and scores recall@5, recall@10, MRR@10 and nDCG@10 per question kind, the share of returned hits that
belong to a patient the question did not name, and latency.

Example:
    >>> recall_at_k(["a", "x", "b"], {"a", "b", "c"}, k=2), reciprocal_rank(["x", "a"], {"a"}, k=10)
    (0.3333333333333333, 0.5)
    >>> round(ndcg_at_k(["x", "a"], {"a"}, k=10), 4)
    0.6309
"""

from __future__ import annotations

import calendar
import json
import math
import random
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from clinrag.evaluate.threshold import OFF_TOPIC_QUESTIONS, ThresholdCalibration, calibrate_threshold
from clinrag.index.embed import Embedder
from clinrag.index.indexer import build_indexes
from clinrag.index.store import Mode
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.mimic import IngestReport, read_admissions, read_notes, read_patients
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import FULL
from clinrag.ingest.synthetic.storylines import COMORBIDITIES, STORYLINES
from clinrag.settings import IngestSettings, RetrieveSettings
from clinrag.types import Chunk

if TYPE_CHECKING:
    from clinrag.retrieve.hybrid import Retriever

QuestionKind = Literal["single_patient", "single_note", "multi_patient"]
KINDS: Final[tuple[QuestionKind, ...]] = get_args(QuestionKind)
MODES: Final[tuple[Mode, ...]] = get_args(Mode)
K: Final = 10
MIN_PATIENTS: Final = 2
MAX_PATIENTS: Final = 6
LOWERCASE_SHARE: Final = 0.25
COPY_RUN: Final = 6
"""A question never shares a run of this many words with one of its gold chunks (it paraphrases the note)."""
MAX_VALUE_WORDS: Final = 5
ATTEMPTS: Final = 6
GOLD_FILE: Final = "gold_facts.jsonl"
CHUNKS_FILE: Final = "chunks.sqlite"  # the node layout `Retriever.open` reads
INDEX_DIR: Final = "index"

# --- the cohort and its gold facts --------------------------------------------------------------------------------


def normalise_space(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends.

    Example:
        >>> normalise_space(" CT A/P: no renal vein\\ninvolvement; ")
        'CT A/P: no renal vein involvement;'
    """
    return " ".join(text.split())


@dataclass(frozen=True)
class GoldFact:
    """One fact of ``gold_facts.jsonl`` with its text as the note writes it (whitespace-normalised)."""

    note_id: str
    subject_id: int
    section: str
    kind: str
    value: str
    label: str
    text: str
    history: bool = False
    noise: bool = False


@dataclass(frozen=True)
class Stay:
    """A discharge note and the admission it summarises."""

    note_id: str
    subject_id: int
    admitted: datetime | None
    discharged: datetime | None


@dataclass(frozen=True)
class Cohort:
    """What question writing needs from a synthetic cohort: names, stays and located facts.

    Example:
        >>> import tempfile
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = generate_cohort(folder, patients=10, seed=1, workers=1)
        >>> cohort = Cohort.load(folder)
        >>> len(cohort.names), all(fact.text for fact in cohort.facts)
        (10, True)
    """

    names: Mapping[int, str]
    stays: Mapping[str, Stay]
    facts: tuple[GoldFact, ...]

    @classmethod
    def load(cls, folder: Path) -> Cohort:
        """Read ``folder/full`` (patients, admissions, notes) and ``folder/gold_facts.jsonl``."""
        full, report = folder / FULL, IngestReport()
        names = {p.subject_id: p.name for p in read_patients(full, report) if p.name}
        admissions = {a.hadm_id: a for a in read_admissions(full, report)}
        raw: dict[str, list[dict[str, Any]]] = defaultdict(list)
        with (folder / GOLD_FILE).open() as handle:
            for line in handle:
                record = json.loads(line)
                raw[record["note_id"]].append(record)
        stays: dict[str, Stay] = {}
        facts: list[GoldFact] = []
        for note in read_notes(full, report):
            admission = admissions.get(note.hadm_id) if note.hadm_id is not None else None
            stays[note.note_id] = Stay(
                note_id=note.note_id,
                subject_id=note.subject_id,
                admitted=admission.admittime if admission else None,
                discharged=admission.dischtime if admission and admission.dischtime else note.charttime,
            )
            facts.extend(
                GoldFact(
                    note_id=note.note_id,
                    subject_id=note.subject_id,
                    section=str(r["section"]),
                    kind=str(r["kind"]),
                    value=str(r["value"]),
                    label=str(r.get("label", "")),
                    text=normalise_space(note.text[int(r["start"]) : int(r["end"])]),
                    history=bool(r.get("history", False)),
                    noise=bool(r.get("noise", False)),
                )
                for r in raw.get(note.note_id, ())
            )
        return cls(names=names, stays=stays, facts=tuple(facts))


class ChunkLookup:
    """Note chunks by (note id, section), to find the chunks that state a fact.

    Example:
        >>> chunk = Chunk.create(source_id="note:1", text="Allergies: Codeine", org="A", dept="d", note_id="1",
        ...                      section="Allergies")
        >>> fact = GoldFact("1", 7, "Allergies", "allergy", "Codeine", "Codeine", "Codeine")
        >>> ChunkLookup([chunk]).relevant([fact]) == {chunk.chunk_id}
        True
    """

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self._places: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        self.texts: dict[str, str] = {}
        for chunk in chunks:
            if chunk.note_id is None or chunk.section is None:
                continue
            self._places[chunk.note_id, chunk.section].append((chunk.chunk_id, normalise_space(chunk.text)))
            self.texts[chunk.chunk_id] = chunk.text

    def relevant(self, facts: Iterable[GoldFact]) -> frozenset[str]:
        """Ids of the chunks of each fact's note and section whose text contains the fact's text."""
        return frozenset(
            chunk_id
            for fact in facts
            for chunk_id, text in self._places.get((fact.note_id, fact.section), ())
            if fact.text in text
        )

    def passages(self, chunk_ids: Iterable[str]) -> list[str]:
        """The texts of ``chunk_ids``, in id order."""
        return [self.texts[chunk_id] for chunk_id in sorted(chunk_ids)]

    def qrels(self, questions: Iterable[Question]) -> dict[str, frozenset[str]]:
        """The relevant chunk ids of every question, by question id."""
        return {question.qid: self.relevant(question.gold) for question in questions}


# --- questions ----------------------------------------------------------------------------------------------------

Selector = Callable[[GoldFact], bool]


@dataclass(frozen=True)
class Question:
    """A benchmark question: its text, what it asks about, and the gold facts that answer it."""

    qid: str
    kind: QuestionKind
    aspect: str
    text: str
    gold: tuple[GoldFact, ...]
    named_subjects: tuple[int, ...] = ()
    note_id: str | None = None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary (gold as note/section/text triples)."""
        return {
            "qid": self.qid,
            "kind": self.kind,
            "aspect": self.aspect,
            "text": self.text,
            "named_subjects": list(self.named_subjects),
            "note_id": self.note_id,
            "gold": [{"note_id": f.note_id, "section": f.section, "text": f.text} for f in self.gold],
        }


@dataclass(frozen=True)
class Aspect:
    """What a single-patient or single-note question asks about: the facts that answer it and its phrasings.

    ``patient_templates`` use ``{name}`` and ``{poss}`` (possessive); ``note_templates`` use ``{stay}`` (such as
    "Betty Henry's stay in March 2019"). An aspect without note templates is a property of the patient, not of a
    stay (allergies, smoking).
    """

    name: str
    select: Selector
    patient_templates: tuple[str, ...]
    note_templates: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrendAspect:
    """What a multi-patient question asks about: facts grouped by value, a plain name for a value, phrasings."""

    name: str
    select: Selector
    describe: Callable[[GoldFact, random.Random], str]
    templates: tuple[str, ...]


def _in_section(section: str) -> Selector:
    return lambda fact: fact.section == section


def _of_kind(kind: str) -> Selector:
    return lambda fact: fact.kind == kind


def _social(prefix: str) -> Selector:
    return lambda fact: fact.kind == "social" and fact.value.startswith(prefix)


PATIENT_ASPECTS: Final[tuple[Aspect, ...]] = (
    Aspect(
        "discharge_medications",
        _in_section("Discharge Medications"),
        (
            "Which drugs was {name} sent home with?",
            "What medicines did {name} leave the hospital on?",
            "What is {poss} take-home prescription list?",
            "What should {name} keep taking once back home?",
        ),
        (
            "Which medicines were prescribed at the end of {stay}?",
            "What drugs did the patient go home with after {stay}?",
        ),
    ),
    Aspect(
        "discharge_diagnosis",
        _in_section("Discharge Diagnosis"),
        (
            "What was {name} diagnosed with?",
            "What were {poss} final diagnoses on leaving hospital?",
            "Which conditions was {name} found to have by the end of the admission?",
        ),
        ("What was the final diagnosis of {stay}?", "Which conditions were diagnosed by the end of {stay}?"),
    ),
    Aspect(
        "allergies",
        _of_kind("allergy"),
        (
            "Is {name} allergic to anything?",
            "Does {name} react badly to any medicines?",
            "Any drug intolerances for {name}?",
        ),
    ),
    Aspect(
        "procedures",
        _of_kind("procedure"),
        (
            "What operation did {name} have?",
            "Which procedures were performed on {name}?",
            "What did {name} have surgery for?",
            "Was {name} operated on, and what was done?",
        ),
        ("During {stay}, what procedure was done?", "What operation took place during {stay}?"),
    ),
    Aspect(
        "complications",
        _of_kind("complication"),
        (
            "Did anything go wrong during {poss} hospital stay?",
            "What complications did {name} develop in hospital?",
            "Were there any setbacks while {name} was an inpatient?",
        ),
        ("What complications arose during {stay}?", "Did anything go wrong during {stay}?"),
    ),
    Aspect(
        "smoking", _social("tobacco:"), ("Does {name} smoke?", "Is {name} a smoker?", "Has {name} ever used tobacco?")
    ),
    Aspect(
        "alcohol",
        _social("alcohol:"),
        ("Does {name} drink?", "How much alcohol does {name} consume?", "What are {poss} drinking habits?"),
    ),
    Aspect(
        "living",
        _social("living:"),
        ("Who does {name} live with?", "What is {poss} home situation?", "Does {name} live by themselves?"),
    ),
    Aspect(
        "findings",
        lambda fact: fact.kind == "finding" and fact.section == "Pertinent Results" and not fact.noise,
        (
            "What did {poss} tests and imaging show?",
            "What were the key results of {poss} workup?",
            "What did investigations reveal for {name}?",
        ),
        ("What did the tests show during {stay}?", "Which investigation results stood out in {stay}?"),
    ),
    Aspect(
        "presenting_complaint",
        _in_section("Chief Complaint"),
        (
            "Why did {name} come to hospital?",
            "What symptoms brought {name} in?",
            "What was {name} complaining of on arrival?",
        ),
        ("What was the reason for {stay}?", "What symptoms led to {stay}?"),
    ),
    Aspect(
        "home_medications",
        _in_section("Medications on Admission"),
        ("What was {name} taking before being admitted?", "Which regular medicines does {name} use at home?"),
        ("Which home medicines was the patient on at the start of {stay}?",),
    ),
    Aspect(
        "chronic_conditions",
        _in_section("Past Medical History"),
        ("What long-term health problems does {name} have?", "What is {poss} background medical history?"),
    ),
)


def _phrases() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    diagnoses: dict[str, tuple[str, ...]] = {}
    procedures: dict[str, tuple[str, ...]] = {}
    for storyline in STORYLINES:
        for diagnosis in (
            storyline.diagnosis,
            *storyline.secondary,
            *(complication.diagnosis for complication in storyline.complications),
        ):
            diagnoses.setdefault(diagnosis.code, diagnosis.phrases)
        for procedure in storyline.procedures:
            procedures.setdefault(procedure.code, procedure.phrases)
    for comorbidity in COMORBIDITIES:
        diagnoses.setdefault(comorbidity.diagnosis.code, comorbidity.diagnosis.phrases)
    return diagnoses, procedures


DIAGNOSIS_PHRASES, PROCEDURE_PHRASES = _phrases()


def plain_title(title: str) -> str:
    """An ICD title as a clinician would say it: no "unspecified", encounter or bracketed qualifiers.

    Example:
        >>> plain_title("Ileus, unspecified"), plain_title("Resection of Appendix, Percutaneous Endoscopic Approach")
        ('ileus', 'resection of appendix')
    """
    text = re.sub(r"\s*\[[^\]]*\]|\s*\([^)]*\)", "", title)
    text = re.sub(r"\b(?:unspecified|initial encounter)\b", "", text, flags=re.IGNORECASE)
    text = re.split(r",|\bwith\b|\bvia\b", text, maxsplit=1)[0]
    words = normalise_space(text).strip(" ,").split()
    return " ".join(word if word[1:2].isupper() else word.lower() for word in words)


def drug_name(fact: GoldFact, rng: random.Random) -> str:
    """A drug in plain lower case, without formulation notes or strengths.

    Example:
        >>> fact = GoldFact("1", 1, "Discharge Medications", "medication", "OxyCODONE (Immediate Release)", "", "")
        >>> drug_name(fact, random.Random(0))
        'oxycodone'
    """
    return normalise_space(re.sub(r"\([^)]*\)|\S*\d\S*", "", fact.value)).lower()


def _named(phrases: Mapping[str, tuple[str, ...]], with_title: bool = True) -> Callable[[GoldFact, random.Random], str]:
    """A describer that picks one of a code's clinical phrases or (``with_title``) its plain ICD title."""

    def describe(fact: GoldFact, rng: random.Random) -> str:
        titles: tuple[str, ...] = (plain_title(fact.label),) if with_title or fact.value not in phrases else ()
        options: list[str] = [option for option in dict.fromkeys((*phrases.get(fact.value, ()), *titles)) if option]
        short = [option for option in options if len(option.split()) <= MAX_VALUE_WORDS]
        chosen: str = rng.choice(short or sorted(options, key=len)[:1] or [fact.value])
        return chosen

    return describe


TREND_ASPECTS: Final[tuple[TrendAspect, ...]] = (
    TrendAspect(
        "discharge_medication",
        _in_section("Discharge Medications"),
        drug_name,
        (
            "Which patients were discharged on {value}?",
            "Who went home with a prescription for {value}?",
            "List everyone sent home taking {value}.",
        ),
    ),
    TrendAspect(
        "home_medication",
        _in_section("Medications on Admission"),
        drug_name,
        ("Which patients were already on {value} before admission?", "Who takes {value} at home?"),
    ),
    TrendAspect(
        "complication",
        _of_kind("complication"),
        _named(DIAGNOSIS_PHRASES),
        (
            "Who developed {value} while in hospital?",
            "Which patients had {value} as a complication?",
            "In which patients did {value} occur during the admission?",
        ),
    ),
    TrendAspect(
        "discharge_diagnosis",
        _in_section("Discharge Diagnosis"),
        _named(DIAGNOSIS_PHRASES),
        (
            "Which patients had {value}?",
            "Who was diagnosed with {value}?",
            "Find the patients with a discharge diagnosis of {value}.",
        ),
    ),
    TrendAspect(
        "procedure",
        _of_kind("procedure"),
        _named(PROCEDURE_PHRASES, with_title=False),  # ICD-10-PCS titles are not how clinicians speak
        ("Which patients underwent {value}?", "Who had {value} performed?"),
    ),
    TrendAspect(
        "chronic_condition",
        _in_section("Past Medical History"),
        _named(DIAGNOSIS_PHRASES),
        ("Which patients have a history of {value}?", "Whose past medical history includes {value}?"),
    ),
)


def _name_forms(name: str, rng: random.Random) -> tuple[str, str]:
    shown = name.lower() if rng.random() < LOWERCASE_SHARE else name
    return shown, f"{shown}'s"


def _month(moment: datetime) -> str:
    return f"{calendar.month_name[moment.month]} {moment.year}"


def _same_month(one: datetime | None, two: datetime | None) -> bool:
    return one is not None and two is not None and (one.year, one.month) == (two.year, two.month)


def stay_phrases(stay: Stay, others: Sequence[Stay], possessive: str) -> list[str]:
    """Unambiguous ways to name ``stay`` among the patient's ``others`` (all their stays, oldest first).

    Example:
        >>> march = Stay("n1", 1, datetime(2019, 3, 2), datetime(2019, 3, 9))
        >>> later = Stay("n2", 1, datetime(2020, 5, 30), datetime(2020, 6, 3))
        >>> for phrase in stay_phrases(march, [march, later], "Betty Henry's"):
        ...     print(phrase)
        Betty Henry's stay in March 2019
        Betty Henry's admission that ended in March 2019
        Betty Henry's first admission
    """
    phrases: list[str] = []
    rest = [other for other in others if other.note_id != stay.note_id]
    discharged = stay.discharged
    if discharged is not None and not any(
        _same_month(discharged, other.discharged) or _same_month(discharged, other.admitted) for other in rest
    ):
        if _same_month(stay.admitted, discharged):
            phrases.append(f"{possessive} stay in {_month(discharged)}")
        phrases.append(f"{possessive} admission that ended in {_month(discharged)}")
    if rest and stay.note_id == others[-1].note_id:
        phrases.append(f"{possessive} most recent admission")
    if rest and stay.note_id == others[0].note_id:
        phrases.append(f"{possessive} first admission")
    return phrases


def shared_run(text: str, passage: str, length: int = COPY_RUN) -> tuple[str, ...] | None:
    """The first run of ``length`` words (lower case, punctuation ignored) that ``text`` copies from ``passage``.

    Example:
        >>> shared_run("Was she discharged on aspirin 81 mg daily?", "Discharged on aspirin 81 mg daily.")
        ('discharged', 'on', 'aspirin', '81', 'mg', 'daily')
        >>> shared_run("Which drugs was she sent home with?", "Discharged on aspirin 81 mg daily.") is None
        True
    """
    words = re.findall(r"[a-z0-9]+", passage.lower())
    runs = {tuple(words[i : i + length]) for i in range(len(words) - length + 1)}
    asked = re.findall(r"[a-z0-9]+", text.lower())
    return next((run for i in range(len(asked) - length + 1) if (run := tuple(asked[i : i + length])) in runs), None)


def _original(drafts: Iterable[str], passages: Sequence[str]) -> str | None:
    """The first draft (capitalised) that copies no run of words from the gold ``passages``."""
    for draft in drafts:
        text = _capitalise(draft)
        if not any(shared_run(text, passage) for passage in passages):
            return text
    return None


def _round_robin(groups: Mapping[str, list[Question]], limit: int) -> list[Question]:
    chosen: list[Question] = []
    queues = [list(groups[name]) for name in sorted(groups)]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def build_questions(
    cohort: Cohort, lookup: ChunkLookup, seed: int = 0, per_kind: int = 100, k: int = K
) -> list[Question]:
    """Up to ``per_kind`` questions of each kind, the same for the same cohort and ``seed``.

    Questions whose facts no chunk of ``lookup`` states are skipped; multi-patient questions are only written for
    values that 2–6 patients hold and that at most ``k`` chunks state. Patients whose full name another patient
    shares are never named.

    Example:
        >>> import tempfile
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = generate_cohort(folder, patients=20, seed=2, workers=1)
        >>> with ChunkStore.open(folder / "chunks.sqlite") as store:
        ...     _ = ingest_mimic(folder / "full", store, IngestSettings(tables=()))
        ...     lookup = ChunkLookup(store.chunks())
        >>> questions = build_questions(Cohort.load(folder), lookup, seed=1, per_kind=5)
        >>> sorted({q.kind for q in questions}), all(lookup.relevant(q.gold) for q in questions)
        (['multi_patient', 'single_note', 'single_patient'], True)
    """
    facts_of_subject: dict[int, list[GoldFact]] = defaultdict(list)
    for fact in cohort.facts:
        facts_of_subject[fact.subject_id].append(fact)
    name_counts: dict[str, int] = defaultdict(int)
    for name in cohort.names.values():
        name_counts[name.lower()] += 1
    subjects = sorted(s for s, name in cohort.names.items() if name_counts[name.lower()] == 1 and s in facts_of_subject)
    questions = [
        *_single_patient(cohort, lookup, facts_of_subject, subjects, random.Random(f"{seed}:patient"), per_kind),
        *_single_note(cohort, lookup, facts_of_subject, subjects, random.Random(f"{seed}:note"), per_kind),
        *_multi_patient(cohort, lookup, random.Random(f"{seed}:trend"), per_kind, k),
    ]
    return questions


def _single_patient(
    cohort: Cohort,
    lookup: ChunkLookup,
    facts_of_subject: Mapping[int, list[GoldFact]],
    subjects: Sequence[int],
    rng: random.Random,
    per_kind: int,
) -> list[Question]:
    groups: dict[str, list[Question]] = {}
    for aspect in PATIENT_ASPECTS:
        candidates: list[Question] = []
        for subject in subjects:
            gold = tuple(fact for fact in facts_of_subject[subject] if aspect.select(fact))
            relevant = lookup.relevant(gold)
            if not relevant:
                continue
            name, possessive = _name_forms(cohort.names[subject], rng)
            templates = aspect.patient_templates
            drafts = [rng.choice(templates).format(name=name, poss=possessive) for _ in range(ATTEMPTS)]
            text = _original(drafts, lookup.passages(relevant))
            if text is not None:
                candidates.append(Question("", "single_patient", aspect.name, text, gold, (subject,)))
        rng.shuffle(candidates)
        groups[aspect.name] = candidates
    return [_numbered(q, i) for i, q in enumerate(_round_robin(groups, per_kind))]


def _single_note(
    cohort: Cohort,
    lookup: ChunkLookup,
    facts_of_subject: Mapping[int, list[GoldFact]],
    subjects: Sequence[int],
    rng: random.Random,
    per_kind: int,
) -> list[Question]:
    stays_of: dict[int, list[Stay]] = defaultdict(list)
    for stay in cohort.stays.values():
        stays_of[stay.subject_id].append(stay)
    groups: dict[str, list[Question]] = {}
    for aspect in (a for a in PATIENT_ASPECTS if a.note_templates):
        candidates: list[Question] = []
        for subject in subjects:
            stays = sorted(stays_of[subject], key=lambda s: (s.discharged or datetime.min, s.note_id))
            if len(stays) < 2:  # with one stay, a single-note question is a single-patient question
                continue
            for stay in stays:
                gold = tuple(f for f in facts_of_subject[subject] if f.note_id == stay.note_id and aspect.select(f))
                relevant = lookup.relevant(gold)
                if not relevant:
                    continue
                _, possessive = _name_forms(cohort.names[subject], rng)
                phrases = stay_phrases(stay, stays, possessive)
                if not phrases:
                    continue
                templates = aspect.note_templates
                drafts = [rng.choice(templates).format(stay=rng.choice(phrases)) for _ in range(ATTEMPTS)]
                text = _original(drafts, lookup.passages(relevant))
                if text is not None:
                    candidates.append(Question("", "single_note", aspect.name, text, gold, (subject,), stay.note_id))
        rng.shuffle(candidates)
        groups[aspect.name] = candidates
    return [_numbered(q, i) for i, q in enumerate(_round_robin(groups, per_kind))]


def _multi_patient(cohort: Cohort, lookup: ChunkLookup, rng: random.Random, per_kind: int, k: int) -> list[Question]:
    groups: dict[str, list[Question]] = {}
    for aspect in TREND_ASPECTS:
        by_value: dict[str, list[GoldFact]] = defaultdict(list)
        for fact in cohort.facts:
            if aspect.select(fact):
                by_value[fact.value].append(fact)
        candidates: list[Question] = []
        for value in sorted(by_value):
            gold = tuple(by_value[value])
            patients = {fact.subject_id for fact in gold}
            relevant = lookup.relevant(gold)
            if not MIN_PATIENTS <= len(patients) <= MAX_PATIENTS or not 0 < len(relevant) <= k:
                continue
            first, templates, describe = gold[0], aspect.templates, aspect.describe
            drafts = [rng.choice(templates).format(value=describe(first, rng)) for _ in range(ATTEMPTS)]
            text = _original(drafts, lookup.passages(relevant))
            if text is not None:
                candidates.append(Question("", "multi_patient", aspect.name, text, gold))
        rng.shuffle(candidates)
        groups[aspect.name] = candidates
    return [_numbered(q, i) for i, q in enumerate(_round_robin(groups, per_kind))]


def _numbered(question: Question, index: int) -> Question:
    return Question(
        f"{question.kind}-{index:03d}",
        question.kind,
        question.aspect,
        question.text,
        question.gold,
        question.named_subjects,
        question.note_id,
    )


# --- metrics (binary relevance, trec_eval conventions) ------------------------------------------------------------


def _top(ranked: Sequence[str], k: int) -> list[str]:
    return list(dict.fromkeys(ranked))[:k]


def recall_at_k(ranked: Sequence[str], relevant: Set[str], k: int) -> float:
    """Share of the relevant ids found in the first ``k`` of ``ranked`` (0 when nothing is relevant).

    Example:
        >>> recall_at_k(["a", "b", "c"], {"c", "d"}, k=3)
        0.5
    """
    if not relevant:
        return 0.0
    return len(set(_top(ranked, k)) & relevant) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: Set[str], k: int) -> float:
    """1 / the rank of the first relevant id within the first ``k``, else 0.

    Example:
        >>> reciprocal_rank(["a", "b", "c"], {"c"}, k=3), reciprocal_rank(["a", "b", "c"], {"c"}, k=2)
        (0.3333333333333333, 0.0)
    """
    for rank, chunk_id in enumerate(_top(ranked, k), start=1):
        if chunk_id in relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Set[str], k: int) -> float:
    """Normalised discounted cumulative gain at ``k`` with gain 1 per relevant id and a log2(rank + 1) discount.

    Example:
        >>> ndcg_at_k(["a", "b"], {"a", "b"}, k=10), round(ndcg_at_k(["x", "a"], {"a", "b"}, k=10), 4)
        (1.0, 0.3869)
    """
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, cid in enumerate(_top(ranked, k), start=1) if cid in relevant)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


# --- running configurations ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Configuration:
    """One retrieval setup: mode, whether note chunks carry the patient-name prefix, whether names are resolved."""

    mode: Mode
    name_prefix: bool
    resolve_patients: bool

    @property
    def label(self) -> str:
        """Short name, such as ``hybrid prefix=on resolve=off``."""
        return f"{self.mode} prefix={_on(self.name_prefix)} resolve={_on(self.resolve_patients)}"


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def all_configurations(
    modes: Sequence[Mode] = MODES,
    prefixes: Sequence[bool] = (True, False),
    resolutions: Sequence[bool] = (True, False),
) -> list[Configuration]:
    """Every combination, grouped by prefix (one index each), then resolution, then mode.

    Example:
        >>> len(all_configurations()), all_configurations(modes=("bm25",))[0].label
        (16, 'bm25 prefix=on resolve=on')
    """
    return [Configuration(m, p, r) for p in prefixes for r in resolutions for m in modes]


@dataclass(frozen=True)
class NodeBuild:
    """A prepared node folder (chunk store + index) and what preparing it cost."""

    folder: Path
    name_prefix: bool
    chunks: int
    ingest_seconds: float
    index_seconds: float


def prepare_node(cohort_full: Path, node: Path, name_prefix: bool, embedder: Embedder) -> NodeBuild:
    """Ingest the notes of ``cohort_full`` (no tables) into ``node/chunks.sqlite`` and index them under
    ``node/index``; both steps are incremental, so a second call with the same inputs only checks."""
    started = time.perf_counter()
    with ChunkStore.open(node / CHUNKS_FILE) as store:
        ingest_mimic(cohort_full, store, IngestSettings(name_prefix_notes=name_prefix, tables=()))
        ingested = time.perf_counter()
        build_indexes(store, node / INDEX_DIR, embedder)
        count = store.count()
    return NodeBuild(node, name_prefix, count, ingested - started, time.perf_counter() - ingested)


@dataclass(frozen=True)
class QuestionRun:
    """What one question returned: ranked chunk ids, their patients, and how long the search took."""

    qid: str
    ranked: tuple[str, ...]
    subjects: tuple[int | None, ...]
    seconds: float
    no_such_patient: bool = False
    dense_scores: tuple[float, ...] = ()


def run_questions(retriever: Retriever, questions: Sequence[Question], k: int = K) -> list[QuestionRun]:
    """Search every question with ``retriever`` and record its top ``k``."""
    runs: list[QuestionRun] = []
    for question in questions:
        started = time.perf_counter()
        retrieval = retriever.retrieve(question.text, k=k)
        seconds = time.perf_counter() - started
        runs.append(
            QuestionRun(
                question.qid,
                tuple(hit.chunk.chunk_id for hit in retrieval.hits),
                tuple(hit.chunk.subject_id for hit in retrieval.hits),
                seconds,
                retrieval.no_such_patient,
                tuple(hit.scores["dense"] for hit in retrieval.hits),
            )
        )
    return runs


@dataclass(frozen=True)
class Scores:
    """Mean metrics over a set of questions."""

    questions: int
    recall_at_5: float
    recall_at_10: float
    mrr_at_10: float
    ndcg_at_10: float

    @classmethod
    def of(cls, pairs: Sequence[tuple[Sequence[str], Set[str]]]) -> Scores:
        """Average the metrics over (ranked ids, relevant ids) pairs."""
        if not pairs:
            return cls(0, 0.0, 0.0, 0.0, 0.0)
        return cls(
            questions=len(pairs),
            recall_at_5=statistics.fmean(recall_at_k(r, g, 5) for r, g in pairs),
            recall_at_10=statistics.fmean(recall_at_k(r, g, 10) for r, g in pairs),
            mrr_at_10=statistics.fmean(reciprocal_rank(r, g, 10) for r, g in pairs),
            ndcg_at_10=statistics.fmean(ndcg_at_k(r, g, 10) for r, g in pairs),
        )


@dataclass(frozen=True)
class ConfigurationResult:
    """The scores of one configuration: per question kind, per ``kind/aspect`` and over ``all`` questions;
    wrong-patient hits; latency."""

    configuration: Configuration
    scores: dict[str, Scores]
    named_questions: int
    named_hits: int
    wrong_patient_hits: int
    wrong_patient_questions: int
    no_such_patient: int
    latency_ms: dict[str, float]

    @property
    def wrong_patient_rate(self) -> float:
        """Share of the hits returned for patient-named questions that belong to another patient."""
        return self.wrong_patient_hits / self.named_hits if self.named_hits else 0.0

    def to_json(self) -> dict[str, object]:
        """JSON-ready, with rounded figures."""
        return {
            "mode": self.configuration.mode,
            "name_prefix": self.configuration.name_prefix,
            "resolve_patients": self.configuration.resolve_patients,
            "scores": {
                kind: {name: round(value, 4) if isinstance(value, float) else value for name, value in vars(s).items()}
                for kind, s in self.scores.items()
            },
            "wrong_patient_rate": round(self.wrong_patient_rate, 4),
            "wrong_patient_hits": self.wrong_patient_hits,
            "named_hits": self.named_hits,
            "wrong_patient_questions": self.wrong_patient_questions,
            "named_questions": self.named_questions,
            "no_such_patient": self.no_such_patient,
            "latency_ms": {name: round(value, 2) for name, value in self.latency_ms.items()},
        }


def score_runs(
    configuration: Configuration,
    questions: Sequence[Question],
    runs: Sequence[QuestionRun],
    qrels: Mapping[str, Set[str]],
) -> ConfigurationResult:
    """Metrics per kind and per aspect, wrong-patient counts and latency percentiles of one configuration's runs."""
    by_id = {run.qid: run for run in runs}
    pairs: dict[str, list[tuple[Sequence[str], Set[str]]]] = {kind: [] for kind in (*KINDS, "all")}
    named = named_hits = wrong_hits = wrong_questions = 0
    for question in questions:
        run = by_id[question.qid]
        pair = (run.ranked, qrels[question.qid])
        pairs[question.kind].append(pair)
        pairs["all"].append(pair)
        pairs.setdefault(f"{question.kind}/{question.aspect}", []).append(pair)
        if question.named_subjects:
            wrong = sum(subject not in question.named_subjects for subject in run.subjects)
            named += 1
            named_hits += len(run.subjects)
            wrong_hits += wrong
            wrong_questions += wrong > 0
    milliseconds = sorted(run.seconds * 1000 for run in runs)
    return ConfigurationResult(
        configuration=configuration,
        scores={kind: Scores.of(found) for kind, found in pairs.items()},
        named_questions=named,
        named_hits=named_hits,
        wrong_patient_hits=wrong_hits,
        wrong_patient_questions=wrong_questions,
        no_such_patient=sum(run.no_such_patient for run in runs),
        latency_ms=_latency(milliseconds),
    )


def _latency(milliseconds: Sequence[float]) -> dict[str, float]:
    if not milliseconds:
        return {"mean": 0.0, "p50": 0.0, "p95": 0.0}
    return {
        "mean": statistics.fmean(milliseconds),
        "p50": milliseconds[len(milliseconds) // 2],
        "p95": milliseconds[min(len(milliseconds) - 1, math.ceil(0.95 * len(milliseconds)) - 1)],
    }


@dataclass(frozen=True)
class TargetCheck:
    """One target of issue 3 checked against one configuration."""

    target: str
    configuration: str
    value: float
    threshold: float
    met: bool


def check_targets(results: Sequence[ConfigurationResult]) -> list[TargetCheck]:
    """Single-patient recall@10 >= 0.95 with resolution on; multi-patient recall@10 >= 0.80 with hybrid modes;
    no hit of another patient for patient-named questions with resolution on."""
    checks: list[TargetCheck] = []
    for result in results:
        config, label = result.configuration, result.configuration.label
        if config.resolve_patients:
            value = result.scores["single_patient"].recall_at_10
            checks.append(TargetCheck("single_patient recall@10 >= 0.95", label, value, 0.95, value >= 0.95))
            hits = float(result.wrong_patient_hits)
            checks.append(TargetCheck("wrong-patient hits == 0", label, hits, 0.0, hits == 0))
        if config.mode.startswith("hybrid"):
            value = result.scores["multi_patient"].recall_at_10
            checks.append(TargetCheck("multi_patient recall@10 >= 0.80", label, value, 0.80, value >= 0.80))
    return checks


@dataclass
class RetrievalReport:
    """Everything a benchmark run produced: questions, node builds, results per configuration, target checks."""

    questions: list[Question]
    nodes: list[NodeBuild] = field(default_factory=list)
    results: list[ConfigurationResult] = field(default_factory=list)
    calibration: ThresholdCalibration | None = None

    def to_json(self) -> dict[str, object]:
        """The full table, question counts, a few sample questions per kind, target checks and the markdown."""
        counts: dict[str, dict[str, int]] = {}
        for question in self.questions:
            aspects = counts.setdefault(question.kind, {})
            aspects[question.aspect] = aspects.get(question.aspect, 0) + 1
        samples = {kind: [q.text for q in self.questions if q.kind == kind][:5] for kind in KINDS}
        return {
            "questions": {
                "total": len(self.questions),
                "per_kind": {kind: sum(counts.get(kind, {}).values()) for kind in KINDS},
                "per_aspect": counts,
                "samples": samples,
            },
            "nodes": [
                {
                    "name_prefix": node.name_prefix,
                    "chunks": node.chunks,
                    "ingest_seconds": round(node.ingest_seconds, 2),
                    "index_seconds": round(node.index_seconds, 2),
                }
                for node in self.nodes
            ],
            "results": [result.to_json() for result in self.results],
            "targets": [vars(check) for check in check_targets(self.results)],
            "threshold_calibration": (
                None
                if self.calibration is None
                else {name: round(v, 4) if isinstance(v, float) else v for name, v in vars(self.calibration).items()}
            ),
            "markdown": self.markdown(),
        }

    def markdown(self) -> str:
        """The results as a markdown table: one row per configuration, R@5 / R@10 / MRR / nDCG@10 per kind."""
        short = {"single_patient": "SP", "single_note": "SN", "multi_patient": "MP"}
        metrics = ("R@5", "R@10", "MRR", "nDCG")
        header = ["mode", "prefix", "resolve"]
        header += [f"{short[kind]} {metric}" for kind in KINDS for metric in metrics]
        header += ["wrong-patient rate", "wrong-patient Qs", "p50 ms", "p95 ms"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for result in self.results:
            config = result.configuration
            row = [config.mode, _on(config.name_prefix), _on(config.resolve_patients)]
            for kind in KINDS:
                s = result.scores[kind]
                row += [f"{value:.3f}" for value in (s.recall_at_5, s.recall_at_10, s.mrr_at_10, s.ndcg_at_10)]
            row += [
                f"{result.wrong_patient_rate:.3f}",
                f"{result.wrong_patient_questions}/{result.named_questions}",
                f"{result.latency_ms['p50']:.0f}",
                f"{result.latency_ms['p95']:.0f}",
            ]
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines)


ProgressCallback = Callable[[str], None]


def evaluate_retrieval(
    cohort_folder: Path,
    work: Path,
    embedder: Embedder,
    configurations: Sequence[Configuration] | None = None,
    questions: Sequence[Question] | None = None,
    seed: int = 0,
    per_kind: int = 100,
    k: int = K,
    on_progress: ProgressCallback | None = None,
) -> RetrievalReport:
    """Prepare one node per name-prefix setting under ``work`` (reused when already built), write the questions
    (unless given), and run and score every configuration.

    Example:
        >>> report = evaluate_retrieval(Path("cohort"), Path("work"), OnnxMiniLmEmbedder())  # doctest: +SKIP
        >>> print(report.markdown())  # doctest: +SKIP
    """
    from clinrag.retrieve.hybrid import Retriever  # the question builder works without the retriever stack

    say = on_progress or (lambda message: None)
    configurations = list(configurations or all_configurations())
    nodes: dict[bool, NodeBuild] = {}
    for prefix in dict.fromkeys(config.name_prefix for config in configurations):
        say(f"preparing node prefix={_on(prefix)}")
        nodes[prefix] = prepare_node(cohort_folder / FULL, work / f"prefix-{_on(prefix)}", prefix, embedder)
    lookups: dict[bool, ChunkLookup] = {}
    for prefix, node in nodes.items():
        with ChunkStore.open(node.folder / CHUNKS_FILE) as store:
            lookups[prefix] = ChunkLookup(store.chunks())
    if questions is None:
        questions = build_questions(Cohort.load(cohort_folder), next(iter(lookups.values())), seed, per_kind, k)
    report = RetrievalReport(list(questions), list(nodes.values()))
    for config in configurations:
        say(f"running {config.label} ({len(report.questions)} questions)")
        settings = RetrieveSettings(
            mode=config.mode, resolve_patients=config.resolve_patients, k=k, score_threshold=None
        )
        retriever = Retriever.open(nodes[config.name_prefix].folder, settings, embedder)
        try:
            runs = run_questions(retriever, report.questions, k)
            qrels = lookups[config.name_prefix].qrels(report.questions)
            if config == CALIBRATION_CONFIGURATION:
                say(f"calibrating the threshold on {config.label}")
                off_topic = [
                    hit.scores["dense"] for text in OFF_TOPIC_QUESTIONS for hit in retriever.retrieve(text, k=k).hits
                ]
                report.calibration = _calibrate(runs, qrels, off_topic)
        finally:
            retriever.close()
        report.results.append(score_runs(config, report.questions, runs, qrels))
    return report


CALIBRATION_CONFIGURATION: Final = Configuration("hybrid", name_prefix=True, resolve_patients=True)
"""The default setup, whose dense cosines calibrate the relevance threshold."""


def _calibrate(
    runs: Sequence[QuestionRun], qrels: Mapping[str, Set[str]], off_topic: Sequence[float]
) -> ThresholdCalibration:
    relevant: list[float] = []
    irrelevant: list[float] = []
    for run in runs:
        for chunk_id, cosine in zip(run.ranked, run.dense_scores, strict=True):
            (relevant if chunk_id in qrels[run.qid] else irrelevant).append(cosine)
    return calibrate_threshold(relevant, irrelevant, off_topic)
