"""Answer quality on a node built from the synthetic cohort: answerable questions (from the retrieval
benchmark), negative rejection (facts no record holds), noise robustness (only related-but-irrelevant hits) and
patients the node cannot see; figures per generator.

- citation validity: share of the draft's citations that point at a given source;
- sentence support: mean share of a draft's sentences supported by their cited sources (before removal);
- answer rate on answerable questions, and gold-source recall (a cited source holds a gold fact);
- negative rejection: share of unanswerable questions that abstain;
- latency p50/p95 per question.

Example:
    >>> questions = rejection_questions(["Ada Stone"], corpus_text="aspirin", seed=0)
    >>> questions[0].kind, "Ada Stone" in questions[0].text
    ('negative', True)
"""

from __future__ import annotations

import csv
import random
import re
import statistics
import time
from collections.abc import Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from clinrag.evaluate.retrieval_gold import ChunkLookup, Cohort
from clinrag.evaluate.retrieval_questions import build_questions
from clinrag.generate.answer import Answerer
from clinrag.index.embed import Embedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
from clinrag.types import Answer

ABSENT_TOPICS: Final[tuple[str, ...]] = (
    "colonoscopy",
    "bone marrow biopsy",
    "genetic testing",
    "chemotherapy",
    "hemodialysis",
    "cochlear implant",
    "cataract surgery",
    "liver transplant",
    "lumbar puncture",
    "tonsillectomy",
)
NEGATIVE_TEMPLATES: Final[tuple[str, ...]] = (
    "What did {name}'s {topic} show?",
    "When did {name} have {topic}?",
    "What were the results of {poss} {topic}?",
)
ABSENT_DRUGS: Final[tuple[str, ...]] = (
    "warfarin",
    "lithium",
    "methotrexate",
    "digoxin",
    "tacrolimus",
    "phenytoin",
    "clozapine",
    "amiodarone",
)
NOISE_TEMPLATES: Final[tuple[str, ...]] = (
    "What dose of {drug} was {name} discharged on?",
    "Why was {name} started on {drug}?",
)


@dataclass(frozen=True)
class AnswerQuestion:
    """A question for the answer benchmark; ``gold`` are chunk ids that answer it (empty: it should abstain)."""

    kind: str  # answerable, negative, noise, unseen_patient
    text: str
    gold: frozenset[str] = frozenset()


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def rejection_questions(
    names: Sequence[str], corpus_text: str, seed: int = 0, per_kind: int = 30
) -> list[AnswerQuestion]:
    """Questions about tests and drugs that no record of the node mentions (checked against ``corpus_text``)."""
    rng = random.Random(seed)
    lowered = corpus_text.lower()
    topics = [t for t in ABSENT_TOPICS if not re.search(rf"\b{re.escape(t)}\b", lowered)]
    drugs = [d for d in ABSENT_DRUGS if not re.search(rf"\b{re.escape(d)}\b", lowered)]
    questions: list[AnswerQuestion] = []
    for _ in range(per_kind if topics else 0):
        name = rng.choice(list(names))
        template = rng.choice(NEGATIVE_TEMPLATES)
        text = template.format(name=name, poss=_possessive(name), topic=rng.choice(topics))
        questions.append(AnswerQuestion("negative", text))
    for _ in range(per_kind if drugs else 0):
        name = rng.choice(list(names))
        text = rng.choice(NOISE_TEMPLATES).format(name=name, drug=rng.choice(drugs))
        questions.append(AnswerQuestion("noise", text))
    return questions


@dataclass(frozen=True)
class AnswerRun:
    """One question's answer and time."""

    question: AnswerQuestion
    answer: Answer
    seconds: float


def run_answers(answerer: Answerer, questions: Sequence[AnswerQuestion]) -> list[AnswerRun]:
    """Answer every question, timing each."""
    runs = []
    for question in questions:
        started = time.perf_counter()
        answer = answerer.answer(question.text)
        runs.append(AnswerRun(question, answer, time.perf_counter() - started))
    return runs


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else 0.0


def summarise(runs: Sequence[AnswerRun]) -> dict[str, object]:
    """The figures of a set of runs, per question kind and over all."""
    out: dict[str, object] = {}
    for kind in sorted({run.question.kind for run in runs}):
        chosen = [run for run in runs if run.question.kind == kind]
        answered = [run for run in chosen if not run.answer.abstained]
        valid = sum(run.answer.valid_citations for run in answered)
        invalid = sum(run.answer.invalid_citations for run in answered)
        figures: dict[str, object] = {
            "questions": len(chosen),
            "abstained": round(1 - len(answered) / len(chosen), 4),
            "citation_validity": round(valid / (valid + invalid), 4) if valid + invalid else None,
            "sentence_support": (
                round(statistics.fmean(run.answer.support for run in answered), 4) if answered else None
            ),
            "unsupported_sentences_removed": sum(run.answer.unsupported_sentences for run in answered),
            "latency_s": {
                "p50": round(statistics.median(run.seconds for run in chosen), 3),
                "p95": round(_percentile([run.seconds for run in chosen], 0.95), 3),
            },
        }
        gold = [run for run in chosen if run.question.gold]
        if gold:
            found = sum(
                bool({run.answer.sources[n - 1].chunk.chunk_id for n in run.answer.cited} & run.question.gold)
                for run in gold
            )
            figures["cites_gold"] = round(found / len(gold), 4)
        out[kind] = figures
    return out


# --- the answer benchmark's node and questions (``bench_answers.py`` and the ``answers``/``safety`` suites) -------


def prepare_answer_node(hospital: Path, node: Path, embedder: Embedder) -> Path:
    """Ingest the notes of one hospital of a synthetic cohort (``cohort/hospitals/ORG``; no tables) into
    ``node/chunks.sqlite`` and index them; both steps are incremental, so a second call only checks."""
    with ChunkStore.open(node / "chunks.sqlite") as store:
        ingest_mimic(hospital, store, IngestSettings(tables=()))
        build_indexes(store, node / "index", embedder)
    return node


def _names(folder: Path) -> list[str]:
    with (folder / "hosp/patients.csv").open(newline="") as handle:
        return [row["name"] for row in csv.DictReader(handle)]


def benchmark_questions(cohort: Path, node: Path, per_kind: int, org: str = "A", seed: int = 0) -> list[AnswerQuestion]:
    """The answer benchmark's questions at hospital ``org``'s ``node``: ``per_kind`` answerable single-patient
    questions with gold chunks (the retrieval benchmark's), ``per_kind`` negative and noise questions about patients
    of the hospital (`rejection_questions`), and ``per_kind`` questions about patients of other hospitals
    (``unseen_patient``). ``seed`` shifts the seeds of every draw (0: the benchmark's own)."""
    with ChunkStore.open(node / "chunks.sqlite") as store:
        chunks = list(store.chunks())
    lookup = ChunkLookup(chunks)
    here = set(_names(cohort / "hospitals" / org))
    everyone = _names(cohort / "full")
    built = build_questions(Cohort.load(cohort), lookup, seed=3 + seed, per_kind=per_kind * 3, k=10)
    answerable = [
        AnswerQuestion("answerable", q.text, lookup.relevant(q.gold))
        for q in built
        if q.kind == "single_patient" and lookup.relevant(q.gold)
    ][:per_kind]
    corpus = "\n".join(chunk.text for chunk in chunks)
    unique_here = sorted(n for n in here if everyone.count(n) == 1)
    rejection = rejection_questions(unique_here, corpus, seed=5 + seed, per_kind=per_kind)
    elsewhere = sorted(set(everyone) - here)
    rng = random.Random(9 + seed)
    unseen = [
        AnswerQuestion("unseen_patient", f"What was {name} discharged on?")
        for name in rng.sample(elsewhere, min(per_kind, len(elsewhere)))
    ]
    return answerable + rejection + unseen


def first_of_each_kind(
    questions: Sequence[AnswerQuestion], per_kind: int, kinds: Set[str] | None = None
) -> list[AnswerQuestion]:
    """The first ``per_kind`` questions of each kind (of ``kinds``, if given), in order.

    Example:
        >>> chosen = first_of_each_kind([AnswerQuestion("noise", "a"), AnswerQuestion("noise", "b")], 1)
        >>> [q.text for q in chosen]
        ['a']
    """
    taken: dict[str, int] = {}
    chosen = []
    for question in questions:
        if (kinds is None or question.kind in kinds) and taken.get(question.kind, 0) < per_kind:
            chosen.append(question)
            taken[question.kind] = taken.get(question.kind, 0) + 1
    return chosen
