"""The discharge evaluation (``clinrag eval discharge``): multiple-choice discharge questions
(`discharge_questions`) answered with no retrieval, with the text-based report ranker and with the EHR-based ranker
(similar patients by codes), each read by the extractive reader or the local model; accuracy and F1 per task.

Each question is answered within its own hospital (the node of the demo folder holding the patient): the ranker
picks ``k`` other patients of that hospital, a retriever picks ``PASSAGES`` passages of their discharge summaries
(`discharge_corpus`), and a reader chooses options. The question's own patient is never ranked, so their discharge
plan never enters the context.

Readers:

- ``extractive`` (no model): an option's score is the mean of its best cosine similarity to the background's
  sentences and, with experience, the mean over the similar patients found in the passages of each one's best cosine
  similarity to the option (a soft vote: what most similar patients were discharged with scores high). A multi-select
  question takes every option scoring at least τ (at least one); a single-select one the best. τ is chosen per task
  and configuration on the ``dev`` split only; ``test`` is reported.
- ``local``: the llama.cpp model reads the background, the passages and the lettered options and answers with
  letters; unreadable replies count as wrong.

Metrics, as the paper: accuracy (all correct options chosen and no wrong one) and, for multi-select, the mean F1 of
the chosen against the correct options.

Example:
    >>> f1((0, 2), (0, 1, 2)), exact((0, 2), (0, 2))
    (0.8, True)
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Final, Literal, TypeVar

import numpy as np

from clinrag.evaluate.discharge_corpus import RETRIEVERS, HospitalCorpus, Passage, Retriever, Vectors
from clinrag.evaluate.discharge_questions import DischargeQuestion, Task
from clinrag.generate.llm import Generator
from clinrag.ingest.sentences import split_sentences
from clinrag.population.similar import Weights

log = logging.getLogger(__name__)

Ranker = Literal["none", "text", "ehr"]
Reader = Literal["extractive", "local"]
TASK_KIND: Final = {"diagnosis": "dx", "medication": "med", "instruction": "dx"}
"""The code kind a task is about, for the task-focused and complementary presets (instructions: diagnoses)."""
BACKGROUND_GROUPS: Final = {
    "diagnosis": frozenset({"clinical_profile"}),
    "medication": frozenset({"clinical_profile", "in_hospital_progress"}),
    "instruction": frozenset({"clinical_profile", "in_hospital_progress"}),
}
"""The note's section groups a task's background holds (as `discharge_questions` builds it)."""
PASSAGES: Final = 12
"""Passages of the similar patients' reports given to a reader."""
THRESHOLDS: Final = tuple(round(float(t), 3) for t in np.arange(0.20, 0.951, 0.025))
LETTERS: Final = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Config:
    """One way of answering: ranker, k and preset (EHR), retriever, reader."""

    ranker: Ranker
    k: int = 15
    preset: str = "uniform"
    retriever: Retriever = "auto-merging"
    reader: Reader = "extractive"

    @property
    def label(self) -> str:
        """A short name for tables.

        Example:
            >>> Config("ehr", 10, "complementary").label
            'extractive/ehr/k10/complementary/auto-merging'
        """
        if self.ranker == "none":
            return f"{self.reader}/none"
        preset = f"/{self.preset}" if self.ranker == "ehr" else ""
        return f"{self.reader}/{self.ranker}/k{self.k}{preset}/{self.retriever}"


def extractive_grid() -> list[Config]:
    """The configurations the extractive reader is measured in: no retrieval; text and EHR rankers at k = 5…25;
    the three presets at k = 15; the four retrievers at the default (EHR, uniform, k = 15).

    Example:
        >>> len(extractive_grid())
        16
    """
    grid = [Config("none")]
    grid += [Config("text", k) for k in (5, 10, 15, 20, 25)]
    grid += [Config("ehr", k) for k in (5, 10, 15, 20, 25)]
    grid += [Config("ehr", 15, preset) for preset in ("task-focused", "complementary")]
    grid += [Config("ehr", 15, retriever=r) for r in RETRIEVERS if r != "auto-merging"]
    return grid


def local_grid() -> list[Config]:
    """The local model's configurations: no retrieval, text and EHR rankers at the defaults."""
    return [Config("none", reader="local"), Config("text", reader="local"), Config("ehr", reader="local")]


def f1(chosen: Sequence[int], correct: Sequence[int]) -> float:
    """F1 of the chosen options against the correct ones."""
    hits = len(set(chosen) & set(correct))
    if not hits:
        return 0.0
    precision, recall = hits / len(set(chosen)), hits / len(set(correct))
    return 2 * precision * recall / (precision + recall)


def exact(chosen: Sequence[int], correct: Sequence[int]) -> bool:
    """All correct options chosen and no wrong one."""
    return set(chosen) == set(correct)


@dataclass(frozen=True)
class Outcome:
    """How one configuration answered one question."""

    qid: str
    task: Task
    split: str
    chosen: tuple[int, ...]
    correct: tuple[int, ...]
    patients: int
    seconds: float

    @property
    def exact(self) -> bool:
        """Answered exactly."""
        return exact(self.chosen, self.correct)

    @property
    def f1(self) -> float:
        """F1 of the choice."""
        return f1(self.chosen, self.correct)


def query_text(question: DischargeQuestion) -> str:
    """What rankers and retrievers search with: the question and its options."""
    return " ".join([question.question, *question.options])


class Experience:
    """The passages each configuration retrieves for a question (rankings computed once per question)."""

    def __init__(self, corpora: dict[str, HospitalCorpus]) -> None:
        self.corpora = corpora

    def passages(self, question: DischargeQuestion, config: Config) -> list[Passage]:
        """The passages ``config`` gives the reader of ``question`` (none without a ranker)."""
        if config.ranker == "none":
            return []
        corpus = self.corpora[question.org]
        if config.ranker == "text":
            query = "\n".join([question.background, question.question, *question.options])
            patients = corpus.rank_text(question.subject_id, query, config.k)
        else:
            kind = TASK_KIND[question.task]
            weights = Weights.preset(config.preset, task=kind)  # type: ignore[arg-type]
            patients = corpus.rank_ehr(question.subject_id, config.k, weights)
        return corpus.retrieve(config.retriever, query_text(question), patients, PASSAGES)


class ExtractiveReader:
    """Scores options by cosine similarity to the background and to the similar patients' passages."""

    def __init__(self, corpora: dict[str, HospitalCorpus]) -> None:
        self.corpora = corpora
        self._options: dict[str, Vectors] = {}
        self._background: dict[str, Vectors] = {}

    def _vectors(self, cache: dict[str, Vectors], key: str, corpus: HospitalCorpus, texts: list[str]) -> Vectors:
        if key not in cache:
            cache[key] = corpus.embed(texts) if texts else np.zeros((0, corpus.chunk_vectors.shape[1]), np.float32)
        return cache[key]

    def scores(self, question: DischargeQuestion, passages: Sequence[Passage]) -> list[float]:
        """Each option's score (see the module docstring)."""
        corpus = self.corpora[question.org]
        options = self._vectors(self._options, question.qid, corpus, list(question.options))
        held = corpus.note_sentences(question.note_id, BACKGROUND_GROUPS[question.task])
        if held:
            background = corpus.sentence_vectors[held]
        else:  # a note the corpus lacks: its background split here
            background = self._vectors(self._background, question.qid, corpus, split_sentences(question.background))
        parts = [(background @ options.T).max(axis=0) if len(background) else np.zeros(len(options))]
        by_patient: dict[int, list[int]] = {}
        for passage in passages:
            by_patient.setdefault(passage.subject_id, []).extend(passage.sentences)
        votes = [(corpus.sentence_vectors[found] @ options.T).max(axis=0) for found in by_patient.values() if found]
        if votes:
            parts.append(np.mean(votes, axis=0))
        return [float(v) for v in np.mean(parts, axis=0)]


def choose(scores: Sequence[float], multi: bool, threshold: float) -> tuple[int, ...]:
    """Options scoring at least ``threshold`` (at least the best one) for multi-select, else the best.

    Example:
        >>> choose([0.2, 0.9, 0.7], True, 0.6), choose([0.2, 0.9, 0.7], False, 0.6)
        ((1, 2), (1,))
    """
    best = int(np.argmax(scores))
    if not multi:
        return (best,)
    chosen = tuple(i for i, score in enumerate(scores) if score >= threshold)
    return chosen or (best,)


def tuned_threshold(scored: Sequence[tuple[list[float], DischargeQuestion]]) -> float:
    """The τ that answers the most ``dev`` questions exactly (ties: the higher mean F1, then the lower τ)."""

    def quality(threshold: float) -> tuple[int, float, float]:
        answers = [(choose(s, q.multi, threshold), q.correct) for s, q in scored if q.split == "dev"]
        return (
            sum(exact(c, r) for c, r in answers),
            sum(f1(c, r) for c, r in answers),
            -threshold,
        )

    return float(max(THRESHOLDS, key=quality))


_LETTER = re.compile(r"\b([A-J])\b")


def prompt(question: DischargeQuestion, passages: Sequence[Passage], budget: int = 3000) -> list[dict[str, str]]:
    """The messages the local model answers: background, experience, question and lettered options."""
    experience, used = [], 0
    for number, passage in enumerate(passages, start=1):
        text = " ".join(passage.text.split())[:600]
        if used + len(text) > budget:
            break
        experience.append(f"[{number}] {text}")
        used += len(text)
    how = "every correct letter, separated by commas" if question.multi else "the single best letter"
    lines = [
        f"Patient background:\n{question.background[:2500]}",
        *(["Discharge summaries of similar past patients:\n" + "\n".join(experience)] if experience else []),
        f"Question: {question.question}",
        "Options:\n" + "\n".join(f"{LETTERS[i]}. {option}" for i, option in enumerate(question.options)),
        f"Answer with {how}, and nothing else.",
    ]
    system = "You are a physician preparing a hospital discharge. Answer multiple-choice questions with letters only."
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(lines)}]


def letters(reply: str, options: int, multi: bool) -> tuple[int, ...]:
    """The options a reply names by letter (the first only for single-select).

    Example:
        >>> letters("A, C", 4, True), letters("Answer: B.", 4, False)
        ((0, 2), (1,))
    """
    found = [LETTERS.index(m) for m in _LETTER.findall(reply.upper()) if LETTERS.index(m) < options]
    unique = tuple(dict.fromkeys(found))
    return tuple(sorted(unique)) if multi else unique[:1]


@dataclass
class Run:
    """Every configuration's outcomes and, for the extractive reader, the τ chosen per task on ``dev``."""

    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    thresholds: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


Stage = Callable[[str, int], Callable[[int], None]]
"""Starts a stage of work (its name and size) and returns what to call with the count done."""


_Read = TypeVar("_Read")


def _quiet(_: str, __: int) -> Callable[[int], None]:
    return lambda _: None


def _read_all(
    questions: Sequence[DischargeQuestion],
    experience: Experience,
    config: Config,
    read: Callable[[DischargeQuestion, list[Passage]], _Read],
    stage: Stage,
) -> list[tuple[_Read, DischargeQuestion, int, float]]:
    """Each question's passages in ``config``, read by ``read``: what it made of them, the question, how many
    patients the passages come from, and the seconds the question took (passages and reading)."""
    read_all: list[tuple[_Read, DischargeQuestion, int, float]] = []
    advance = stage(config.label, len(questions))
    for done, question in enumerate(questions, start=1):
        began = time.perf_counter()
        passages = experience.passages(question, config)
        made = read(question, passages)
        patients = len({p.subject_id for p in passages})
        read_all.append((made, question, patients, time.perf_counter() - began))
        advance(done)
    return read_all


def run_extractive(
    questions: Sequence[DischargeQuestion], experience: Experience, configs: Iterable[Config], stage: Stage = _quiet
) -> Run:
    """Answer every question in every configuration with the extractive reader (τ tuned on ``dev``)."""
    reader = ExtractiveReader(experience.corpora)
    run = Run()
    for config in configs:
        started = time.perf_counter()
        scored = _read_all(questions, experience, config, reader.scores, stage)
        thresholds = {}
        for task in ("diagnosis", "medication", "instruction"):
            thresholds[task] = tuned_threshold([(s, q) for s, q, _, _ in scored if q.task == task])
        run.thresholds[config.label] = thresholds
        run.outcomes[config.label] = [
            Outcome(q.qid, q.task, q.split, choose(s, q.multi, thresholds[q.task]), q.correct, n, sec)
            for s, q, n, sec in scored
        ]
        run.seconds[config.label] = time.perf_counter() - started
        log.info("discharge %s: %.1f s", config.label, run.seconds[config.label])
    return run


def run_local(
    questions: Sequence[DischargeQuestion],
    experience: Experience,
    configs: Iterable[Config],
    generator: Generator,
    stage: Stage = _quiet,
) -> Run:
    """Answer every question in every configuration with the local model."""

    def answer(question: DischargeQuestion, passages: list[Passage]) -> tuple[int, ...]:
        reply = generator.complete(prompt(question, passages), max_tokens=24, temperature=0.0)
        return letters(reply, len(question.options), question.multi)

    run = Run()
    for config in configs:
        started = time.perf_counter()
        run.outcomes[config.label] = [
            Outcome(q.qid, q.task, q.split, chosen, q.correct, n, sec)
            for chosen, q, n, sec in _read_all(questions, experience, config, answer, stage)
        ]
        run.seconds[config.label] = time.perf_counter() - started
    return run


@dataclass(frozen=True)
class Row:
    """One configuration's figures on one split and task."""

    config: str
    split: str
    task: str
    questions: int
    accuracy: float
    f1: float | None
    mean_patients: float
    p50_ms: float


def rows(run: Run, splits: Sequence[str] = ("dev", "test")) -> list[Row]:
    """The table of a run: per configuration, split and task."""
    table = []
    for label, outcomes in run.outcomes.items():
        for split in splits:
            for task in ("diagnosis", "medication", "instruction"):
                chosen = [o for o in outcomes if o.split == split and o.task == task]
                if not chosen:
                    continue
                table.append(
                    Row(
                        label,
                        split,
                        task,
                        len(chosen),
                        round(sum(o.exact for o in chosen) / len(chosen), 4),
                        round(sum(o.f1 for o in chosen) / len(chosen), 4) if task != "instruction" else None,
                        round(sum(o.patients for o in chosen) / len(chosen), 2),
                        round(1000 * float(np.median([o.seconds for o in chosen])), 2),
                    )
                )
    return table


def as_dicts(table: Sequence[Row]) -> list[dict[str, object]]:
    """Rows for JSON."""
    return [asdict(row) for row in table]


def markdown(table: Sequence[Row], split: str = "test") -> str:
    """A Markdown table of one split: a row per configuration, accuracy (and F1) per task, as the paper lays out."""
    configs = list(dict.fromkeys(row.config for row in table if row.split == split))
    lines = [
        "| configuration | instruction acc | diagnosis acc | diagnosis F1 | medication acc | medication F1 | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for config in configs:
        cell = {row.task: row for row in table if row.config == config and row.split == split}
        n = sum(row.questions for row in cell.values())

        def acc(task: str, cells: dict[str, Row] = cell) -> str:
            return f"{100 * cells[task].accuracy:.1f}" if task in cells else ""

        def score(task: str, cells: dict[str, Row] = cell) -> str:
            value = cells[task].f1 if task in cells else None
            return f"{value:.3f}" if value is not None else ""

        lines.append(
            f"| {config} | {acc('instruction')} | {acc('diagnosis')} | {score('diagnosis')} | "
            f"{acc('medication')} | {score('medication')} | {n} |"
        )
    return "\n".join(lines)


PUBLISHED: Final = {
    "source": "ExpRAG (Ou et al. 2025), Table 2, GPT-3.5 on DischargeQA (1,280 questions, MIMIC-IV)",
    "rows": [
        {"ranker": "none (direct ask)", "instruction": 73.0, "diagnosis": 18.50, "diagnosis_f1": 0.498,
         "medication": 1.15, "medication_f1": 0.234},
        {"ranker": "text", "instruction": 78.8, "diagnosis": 15.60, "diagnosis_f1": 0.405,
         "medication": 0.68, "medication_f1": 0.317},
        {"ranker": "ehr", "instruction": 79.5, "diagnosis": 18.81, "diagnosis_f1": 0.504,
         "medication": 1.80, "medication_f1": 0.371},
    ],
}  # fmt: skip
"""The published figures the evaluation is compared with (accuracy in %, F1)."""


def local_sample(questions: Sequence[DischargeQuestion], per_task: int) -> list[DischargeQuestion]:
    """The first ``per_task`` ``test`` questions of each task (questions come sorted: a stable sample).

    Example:
        >>> local_sample([], 5)
        []
    """
    chosen: list[DischargeQuestion] = []
    for task in ("diagnosis", "medication", "instruction"):
        chosen += [q for q in questions if q.task == task and q.split == "test"][:per_task]
    return chosen


def report(
    extractive: Run | None, local: Run | None, questions: Sequence[DischargeQuestion], seconds: float
) -> dict[str, object]:
    """The JSON report: every configuration's rows, the thresholds chosen on ``dev``, counts and the published
    figures."""
    counts = {
        f"{task}/{split}": sum(1 for q in questions if q.task == task and q.split == split)
        for task in ("diagnosis", "medication", "instruction")
        for split in ("dev", "test")
    }
    body: dict[str, object] = {"questions": counts, "seconds": round(seconds, 1), "published": PUBLISHED}
    if extractive is not None:
        body["extractive"] = {
            "rows": as_dicts(rows(extractive)),
            "thresholds": extractive.thresholds,
            "seconds": {k: round(v, 1) for k, v in extractive.seconds.items()},
        }
    if local is not None:
        body["local"] = {
            "rows": as_dicts(rows(local, ("test",))),
            "seconds": {k: round(v, 1) for k, v in local.seconds.items()},
        }
    return body
