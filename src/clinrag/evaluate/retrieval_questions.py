"""Templated retrieval questions from the synthetic cohort's gold facts, with the facts that answer them.

Three kinds:

- ``single_patient``: one named patient, across all their notes ("Which drugs was Betty Henry sent home with?");
- ``single_note``: one named patient and one stay ("During Betty Henry's stay in March 2019, what procedure was
  done?"); only the note of that stay is relevant;
- ``multi_patient``: a fact shared by a few patients ("Which patients were discharged on amiodarone?"); only values
  held by 2–6 patients are asked about, so that every relevant chunk fits in the top 10.

Questions paraphrase the notes instead of copying them: none shares a run of six words with one of its gold chunks.
What each kind asks about and its phrasings: `clinrag.evaluate.retrieval_aspects`; the gold facts and the chunks
that state them: `clinrag.evaluate.retrieval_gold`.

Example:
    >>> shared_run("Which drugs was she sent home with?", "Discharged on aspirin 81 mg daily.") is None
    True
"""

from __future__ import annotations

import calendar
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final, TypeVar

from clinrag.evaluate.retrieval_aspects import PATIENT_ASPECTS, TREND_ASPECTS, Aspect, TrendAspect
from clinrag.evaluate.retrieval_gold import ChunkLookup, Cohort, GoldFact, K, Question, Stay

MIN_PATIENTS: Final = 2
MAX_PATIENTS: Final = 6
LOWERCASE_SHARE: Final = 0.25
COPY_RUN: Final = 6
"""A question never shares a run of this many words with one of its gold chunks (it paraphrases the note)."""
ATTEMPTS: Final = 6
AspectT = TypeVar("AspectT", Aspect, TrendAspect)


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
        >>> from pathlib import Path
        >>> from clinrag.ingest.chunkstore import ChunkStore
        >>> from clinrag.ingest.pipeline import ingest_mimic
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> from clinrag.settings import IngestSettings
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
    named = {subject: facts_of_subject[subject] for subject in subjects}
    questions = [
        *_single_patient(cohort, lookup, named, random.Random(f"{seed}:patient"), per_kind),
        *_single_note(cohort, lookup, named, random.Random(f"{seed}:note"), per_kind),
        *_multi_patient(cohort, lookup, random.Random(f"{seed}:trend"), per_kind, k),
    ]
    return questions


def _single_patient(
    cohort: Cohort, lookup: ChunkLookup, named: Mapping[int, list[GoldFact]], rng: random.Random, per_kind: int
) -> list[Question]:
    def candidates(aspect: Aspect) -> list[Question]:
        found: list[Question] = []
        for subject, facts in named.items():
            gold = tuple(fact for fact in facts if aspect.select(fact))
            relevant = lookup.relevant(gold)
            if not relevant:
                continue
            name, possessive = _name_forms(cohort.names[subject], rng)
            templates = aspect.patient_templates
            drafts = [rng.choice(templates).format(name=name, poss=possessive) for _ in range(ATTEMPTS)]
            text = _original(drafts, lookup.passages(relevant))
            if text is not None:
                found.append(Question("", "single_patient", aspect.name, text, gold, (subject,)))
        return found

    return _one_kind(PATIENT_ASPECTS, candidates, rng, per_kind)


def _single_note(
    cohort: Cohort, lookup: ChunkLookup, named: Mapping[int, list[GoldFact]], rng: random.Random, per_kind: int
) -> list[Question]:
    stays_of: dict[int, list[Stay]] = defaultdict(list)
    for stay in cohort.stays.values():
        stays_of[stay.subject_id].append(stay)

    def candidates(aspect: Aspect) -> list[Question]:
        found: list[Question] = []
        for subject, facts in named.items():
            stays = sorted(stays_of[subject], key=lambda s: (s.discharged or datetime.min, s.note_id))
            if len(stays) < 2:  # with one stay, a single-note question is a single-patient question
                continue
            for stay in stays:
                gold = tuple(f for f in facts if f.note_id == stay.note_id and aspect.select(f))
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
                    found.append(Question("", "single_note", aspect.name, text, gold, (subject,), stay.note_id))
        return found

    return _one_kind((a for a in PATIENT_ASPECTS if a.note_templates), candidates, rng, per_kind)


def _multi_patient(cohort: Cohort, lookup: ChunkLookup, rng: random.Random, per_kind: int, k: int) -> list[Question]:
    def candidates(aspect: TrendAspect) -> list[Question]:
        by_value: dict[str, list[GoldFact]] = defaultdict(list)
        for fact in cohort.facts:
            if aspect.select(fact):
                by_value[fact.value].append(fact)
        found: list[Question] = []
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
                found.append(Question("", "multi_patient", aspect.name, text, gold))
        return found

    return _one_kind(TREND_ASPECTS, candidates, rng, per_kind)


def _one_kind(
    aspects: Iterable[AspectT], candidates: Callable[[AspectT], list[Question]], rng: random.Random, per_kind: int
) -> list[Question]:
    """Each aspect's ``candidates``, shuffled by ``rng`` as soon as they are drawn, then up to ``per_kind`` of them
    taken in turn across the aspects (by name) and numbered."""
    groups: dict[str, list[Question]] = {}
    for aspect in aspects:
        drawn = candidates(aspect)
        rng.shuffle(drawn)
        groups[aspect.name] = drawn
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
