"""What the ``trend`` suite measures, each computed locally with no model but the node's embedder: how far a
scenario's retrieval and answer stay from the baseline's (ixn, ROUGE-1/ROUGE-L, BLEU), how well they meet the gold
(recall@k, nDCG@10 — `clinrag.evaluate.retrieval_metrics`'s functions), and RAGAS-style faithfulness, answer
relevance and context relevance; plus the centralised node (every hospital's chunks in one index) and the access grid.

- **ixn**: |top-k of the scenario ∩ top-k of the baseline| / |top-k of the baseline| (chunk ids);
- **ROUGE-1 / ROUGE-L**: F-measures of `rouge-score` (Porter stemming) of the scenario's answer words against the
  baseline's; an abstention is the empty text (scores 0);
- **BLEU**: `sacrebleu`'s corpus BLEU (0–100) of the scenario's answers against the baseline's;
- **faithfulness**: `Answer.support`, the share of the draft's sentences supported by the sources they cite;
- **answer relevance**: cosine of the question's and the answer words' embeddings (RAGAS asks an LLM for the
  questions the answer would answer and averages their cosines with the question; here the answer stands in);
- **context relevance**: share of the sentences of the top-k passages whose cosine with the question is at least
  `CONTEXT_THRESHOLD` (RAGAS has an LLM pick the sentences needed to answer).

Example:
    >>> answer_words(Answer(question="q", text="Aspirin 81 mg [1].", generator="extractive"))
    'Aspirin 81 mg.'
    >>> round(ixn(["a", "b", "c"], ["b", "c", "d", "e"]), 2), ixn(["a"], [])
    (0.5, None)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import sacrebleu
from rouge_score import rouge_scorer

from clinrag.access.demo import DEMO_TREES, POLICY_ROOT
from clinrag.access.policy import PolicyEngine
from clinrag.index.embed import Embedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import Settings
from clinrag.types import Actor, Answer, Chunk

CONTEXT_THRESHOLD: Final = 0.35
"""Cosine (MiniLM) from which a context sentence counts as relevant to the question."""
_CITATION: Final = re.compile(r"\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_SENTENCE: Final = re.compile(r"(?<=[.!?])\s+|\n+")


def answer_words(answer: Answer) -> str:
    """The answer's sentences without their citation marks (numbering differs between scenarios), or the empty
    text for an abstention.

    Example:
        >>> answer_words(Answer(question="q", text="No.", generator="x", abstention={"reason": "none"}))
        ''
    """
    if answer.abstained:
        return ""
    texts = [s.text for s in answer.sentences] or [answer.text]
    return " ".join(_CITATION.sub("", text).strip() for text in texts).strip()


def ixn(ranked: Sequence[str], baseline: Sequence[str]) -> float | None:
    """Share of the baseline's retrieved ids the scenario also retrieved (None: the baseline retrieved nothing).

    Example:
        >>> ixn(["x", "y"], ["y", "z"])
        0.5
    """
    if not baseline:
        return None
    return len(set(ranked) & set(baseline)) / len(set(baseline))


class AnswerOverlap:
    """ROUGE-1 and ROUGE-L F-measures of answers against their baseline's (`rouge-score`, Porter stemming).

    Example:
        >>> AnswerOverlap().rouge("aspirin 81 mg daily", "aspirin 81 mg")["rouge1"]
        0.8571
    """

    def __init__(self) -> None:
        self._scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)

    def rouge(self, answer: str, baseline: str) -> dict[str, float]:
        """``rouge1`` and ``rougeL`` F-measures (0 when either text is empty), rounded to 4 places."""
        if not answer or not baseline:
            return {"rouge1": 0.0, "rougeL": 0.0}
        scores = self._scorer.score(baseline, answer)
        return {name: round(float(score.fmeasure), 4) for name, score in scores.items()}


def corpus_bleu(answers: Sequence[str], baselines: Sequence[str]) -> float:
    """`sacrebleu`'s corpus BLEU (0–100) of ``answers`` against one reference each.

    Example:
        >>> corpus_bleu(["the patient was discharged home"], ["the patient was discharged home"])
        100.0
    """
    if not answers:
        return 0.0
    return round(float(sacrebleu.corpus_bleu(list(answers), [list(baselines)]).score), 4)


def sentences(text: str) -> list[str]:
    """The sentences (and lines) of a passage with at least three words.

    Example:
        >>> sentences("Aspirin 81 mg daily. BP 120/80.\\nFollow up in clinic next week.")
        ['Aspirin 81 mg daily.', 'Follow up in clinic next week.']
    """
    return [part.strip() for part in _SENTENCE.split(text) if len(part.split()) >= 3]


class Relevance:
    """Answer and context relevance with an embedder (texts embedded once, normalised)."""

    def __init__(self, embedder: Embedder, threshold: float = CONTEXT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self._vectors: dict[str, np.ndarray] = {}

    def _embedded(self, texts: Iterable[str]) -> np.ndarray:
        wanted = list(texts)
        missing = list(dict.fromkeys(t for t in wanted if t not in self._vectors))
        if missing:
            vectors = np.asarray(self.embedder.embed(missing), dtype=np.float32)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            for text, vector in zip(missing, vectors / np.where(norms == 0, 1, norms), strict=True):
                self._vectors[text] = vector
        return np.stack([self._vectors[t] for t in wanted]) if wanted else np.zeros((0, 1), dtype=np.float32)

    def answer_relevance(self, question: str, answer: str) -> float | None:
        """Cosine of the question and the answer words (None for an abstention)."""
        if not answer:
            return None
        vectors = self._embedded([question, answer])
        return round(float(vectors[0] @ vectors[1]), 4)

    def context_relevance(self, question: str, passages: Sequence[str]) -> float | None:
        """Share of the passages' sentences whose cosine with the question reaches the threshold (None: no
        sentence)."""
        found = [s for passage in passages for s in sentences(passage)]
        if not found:
            return None
        vectors = self._embedded([question, *found])
        cosines = vectors[1:] @ vectors[0]
        return round(float((cosines >= self.threshold).mean()), 4)


def coverage(cited: Iterable[Chunk], patients: Iterable[int], orgs: Iterable[str]) -> tuple[float, float]:
    """Information integration: the shares of the gold ``patients`` and hospitals (``orgs``) that the cited
    chunks cover.

    Example:
        >>> chunk = Chunk.create(source_id="note:1", text="t", org="A", dept="d", subject_id=7)
        >>> coverage([chunk], [7, 8], ["A", "B"])
        (0.5, 0.5)
    """
    chunks = list(cited)
    wanted_patients, wanted_orgs = set(patients), set(orgs)
    got_patients = {c.subject_id for c in chunks} & wanted_patients
    got_orgs = {c.org for c in chunks} & wanted_orgs
    return (
        len(got_patients) / len(wanted_patients) if wanted_patients else 0.0,
        len(got_orgs) / len(wanted_orgs) if wanted_orgs else 0.0,
    )


# --- the centralised node and the access grid --------------------------------------------------------------------


@dataclass(frozen=True)
class CentralNode:
    """Every hospital's chunks in one store and one index (the baseline: centralised, no policies)."""

    folder: Path
    chunks: int


def central_key(settings: Settings, embedder: Embedder) -> str:
    """A folder name for a centralised node built with these ingest settings and embedder."""
    digest = hashlib.sha256(f"{settings.ingest.model_dump_json()}|{embedder.id}".encode()).hexdigest()
    return f"central-{digest[:12]}"


def prepare_central(hospitals: Path, folder: Path, settings: Settings, embedder: Embedder) -> CentralNode:
    """Ingest each of ``hospitals/ORG`` (as the demo does, so the chunk ids are the nodes') into one store under
    ``folder`` and index it; both steps are incremental, so a second call only checks."""
    with ChunkStore.open(folder / "chunks.sqlite") as store:
        for org in sorted(p.name for p in hospitals.iterdir() if p.is_dir()):
            ingest_mimic(hospitals / org, store, settings.ingest, org)
        build_indexes(store, folder / "index", embedder, index=settings.index)
        return CentralNode(folder, store.count())


def access_grid(nodes: Path, users: Sequence[Actor]) -> tuple[list[str], list[list[float]]]:
    """For each user and each hospital department (``A/medicine`` …): the share of that department's chunks the
    user may retrieve under the demo's Cedar policies (0 when searching the hospital or department is denied).

    Example:
        >>> columns, grid = access_grid(Path("data/demo/nodes"), DEMO_USERS)  # doctest: +SKIP
        >>> columns[:2], grid[0][:2]  # doctest: +SKIP
        (['A/admissions', 'A/medicine'], [1.0, 1.0])
    """
    columns: list[str] = []
    grid: list[list[float]] = [[] for _ in users]
    for org, leaves in sorted(DEMO_TREES.items()):
        store_path = nodes / org / "chunks.sqlite"
        if not store_path.is_file():
            continue
        engine = PolicyEngine.load(POLICY_ROOT / org)
        with ChunkStore.open(store_path) as store:
            by_leaf: dict[str, list[Chunk]] = {leaf: [] for leaf in leaves}
            for chunk in store.chunks():
                by_leaf.setdefault(chunk.leaf or chunk.dept, []).append(chunk)
        for leaf in leaves:
            columns.append(f"{org}/{leaf}")
            chunks = by_leaf[leaf]
            for row, actor in zip(grid, users, strict=True):
                searchable = (
                    engine.can_search(actor, org, org, "router").allowed
                    and engine.can_search(actor, org, f"{org}/{leaf}", "leaf", leaf).allowed
                )
                if not searchable or not chunks:
                    row.append(0.0)
                    continue
                allowed = sum(d.allowed for d in engine.can_retrieve(actor, chunks))
                row.append(round(allowed / len(chunks), 4))
    return columns, grid


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None, rounded to 4 places (None when there are none).

    Example:
        >>> mean([1.0, None, 0.0])
        0.5
    """
    found = [v for v in values if v is not None]
    return round(sum(found) / len(found), 4) if found else None


def shares(flags: Mapping[str, bool]) -> float | None:
    """The share of True values (None when empty).

    Example:
        >>> shares({"a": True, "b": False})
        0.5
    """
    return round(sum(flags.values()) / len(flags), 4) if flags else None
