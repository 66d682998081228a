"""What the discharge evaluation retrieves from: one hospital's discharge summaries, their vectors and code
sets; the two report rankers and the four experience retrievers of the ExpRAG paper.

- `HospitalCorpus.open(node)`: every discharge-summary chunk of a node folder (``chunks.sqlite``), split into
  sentences; chunk and sentence vectors from the node's embedder, cached as ``.npy`` files keyed by the chunk ids
  and the embedder; each patient's report vector (the normalised mean of their chunks); the code sets of the
  node's population tables.
- Rankers (which other patients' reports to draw on): ``text`` (the question, options and background embedded
  together against every report vector, as the paper's text-based ranker) and ``ehr`` (weighted Jaccard over
  diagnoses, medications and procedures, `population.similar.rank_similar`). The question's own patient is never
  ranked.
- Retrievers (which passages of those reports): ``bm25`` (Okapi BM25 over the chunks, rank-bm25 with the node's
  clinical tokens), ``dense`` (cosine over the chunk vectors), ``sentence-window`` (the best sentences, each with its
  neighbour on either side within its chunk) and ``auto-merging`` (the best chunks; two or more of one section are
  replaced by the whole section, in order).

Example:
    >>> corpus = HospitalCorpus.open(Path("data/demo/nodes/A"), embedder, Path("/tmp/cache"))  # doctest: +SKIP
    >>> patients = corpus.rank_ehr(10000000, k=15, weights=Weights())  # doctest: +SKIP
    >>> [p.text[:40] for p in corpus.retrieve("auto-merging", "discharge medications", patients, n=6)]  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from rank_bm25 import BM25Okapi

from clinrag.index.embed import Embedder
from clinrag.index.lexical import tokenize
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.sentences import split_sentences
from clinrag.population.similar import Weights, rank_similar
from clinrag.population.similar_sets import CodeSets, load_code_sets
from clinrag.population.tables import population_path
from clinrag.retrieve.hybrid import CHUNKS_FILE
from clinrag.types import Chunk

log = logging.getLogger(__name__)

Retriever = Literal["bm25", "dense", "sentence-window", "auto-merging"]
RETRIEVERS: Final[tuple[Retriever, ...]] = ("auto-merging", "sentence-window", "bm25", "dense")
Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Passage:
    """A retrieved passage: whose report it is from, where, and its text."""

    subject_id: int
    note_id: str
    section: str
    text: str
    sentences: tuple[int, ...] = ()
    """The corpus sentences the passage holds (indices into `HospitalCorpus.sentence_vectors`)."""


@dataclass
class HospitalCorpus:
    """One hospital's discharge summaries, ready to rank and retrieve from (see the module docstring)."""

    org: str
    chunks: list[Chunk]
    chunk_vectors: Vectors
    sentences: list[str]
    sentence_chunk: npt.NDArray[np.int64]
    sentence_vectors: Vectors
    report_subjects: npt.NDArray[np.int64]
    report_vectors: Vectors
    code_sets: CodeSets
    embedder: Embedder

    def __post_init__(self) -> None:
        self._of_subject: dict[int, list[int]] = defaultdict(list)
        self._of_section: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index, chunk in enumerate(self.chunks):
            self._of_subject[chunk.subject_id or 0].append(index)
            self._of_section[(chunk.note_id or "", chunk.section or "")].append(index)
        self._sentences_of: dict[int, list[int]] = defaultdict(list)
        for sentence, chunk_index in enumerate(self.sentence_chunk.tolist()):
            self._sentences_of[chunk_index].append(sentence)
        self._of_note: dict[str, list[int]] = defaultdict(list)
        for index, chunk in enumerate(self.chunks):
            self._of_note[chunk.note_id or ""].append(index)
        self._queries: dict[str, Vectors] = {}
        self._text_rankings: dict[tuple[int, str], list[int]] = {}

    @classmethod
    def open(cls, node: Path, embedder: Embedder, cache: Path) -> HospitalCorpus:
        """The corpus of a node folder; vectors come from ``cache`` when they were computed for the same chunks."""
        with ChunkStore.open(node / CHUNKS_FILE) as store:
            chunks = [c for c in store.chunks(source_kind="note") if c.note_type == "DS" and c.subject_id is not None]
        code_sets = load_code_sets(population_path(node))
        key = hashlib.sha256("\n".join([embedder.id, *(c.chunk_id for c in chunks)]).encode()).hexdigest()[:16]
        cache.mkdir(parents=True, exist_ok=True)
        sentences: list[str] = []
        owner: list[int] = []
        for index, chunk in enumerate(chunks):
            for sentence in split_sentences(chunk.text):
                sentences.append(sentence)
                owner.append(index)
        chunk_vectors = _cached(cache / f"{code_sets.org}-{key}-chunks.npy", embedder, [c.text for c in chunks])
        sentence_vectors = _cached(cache / f"{code_sets.org}-{key}-sentences.npy", embedder, sentences)
        subjects = np.array([c.subject_id for c in chunks], dtype=np.int64)
        report_subjects = np.unique(subjects)
        sums = np.zeros((len(report_subjects), chunk_vectors.shape[1]), dtype=np.float32)
        np.add.at(sums, np.searchsorted(report_subjects, subjects), chunk_vectors)
        report_vectors = _normalised(sums)
        return cls(
            code_sets.org,
            chunks,
            chunk_vectors,
            sentences,
            np.array(owner, dtype=np.int64),
            sentence_vectors,
            report_subjects,
            report_vectors,
            code_sets,
            embedder,
        )

    def note_sentences(self, note_id: str, groups: frozenset[str]) -> list[int]:
        """The sentences of a note's sections in ``groups`` (section groups such as ``clinical_profile``), in order:
        a question's background, already split and embedded."""
        return [
            s
            for i in self._of_note.get(note_id, ())
            if (group := self.chunks[i].section_group) is not None and group.value in groups
            for s in self._sentences_of.get(i, ())
        ]

    def embed(self, texts: list[str]) -> Vectors:
        """Normalised vectors of ``texts``."""
        return _normalised(np.asarray(self.embedder.embed(texts), dtype=np.float32))

    def query_vector(self, query: str) -> Vectors:
        """The normalised vector of one query (remembered: every configuration asks with the same queries)."""
        if query not in self._queries:
            self._queries[query] = self.embed([query])[0]
        return self._queries[query]

    def rank_text(self, subject_id: int, query: str, k: int) -> list[int]:
        """The ``k`` patients whose report vectors are nearest ``query``'s, never ``subject_id``."""
        key = (subject_id, query)
        if key not in self._text_rankings:
            scores = self.report_vectors @ self.query_vector(query)
            order = [int(self.report_subjects[i]) for i in np.argsort(-scores, kind="stable")]
            self._text_rankings[key] = [s for s in order if s != subject_id]
        return self._text_rankings[key][:k]

    def rank_ehr(self, subject_id: int, k: int, weights: Weights) -> list[int]:
        """The ``k`` patients most similar to ``subject_id`` by their codes (none when the patient has no codes)."""
        if self.code_sets.row_of(subject_id) is None:
            return []
        return [m.subject_id for m in rank_similar(self.code_sets, subject_id, k=k, weights=weights)]

    def retrieve(self, retriever: Retriever, query: str, subjects: list[int], n: int) -> list[Passage]:
        """The ``n`` passages of ``subjects``' reports that bear most on ``query`` (see the module docstring)."""
        pool = sorted(i for subject in set(subjects) for i in self._of_subject.get(subject, ()))
        if not pool:
            return []
        if retriever == "sentence-window":
            return self._sentence_window(query, pool, n)
        if retriever == "bm25":
            bm25 = BM25Okapi([tokenize(self.chunks[i].indexed_text) or ["_"] for i in pool])
            scores = np.asarray(bm25.get_scores(tokenize(query)), dtype=np.float64)
        else:
            scores = (self.chunk_vectors[pool] @ self.query_vector(query)).astype(np.float64)
        best = [pool[i] for i in np.argsort(-scores, kind="stable")[:n]]
        if retriever == "auto-merging":
            return self._merged(best)
        return [self._passage(i) for i in best]

    def _passage(self, index: int, text: str | None = None, sentences: tuple[int, ...] | None = None) -> Passage:
        chunk = self.chunks[index]
        held = tuple(self._sentences_of.get(index, ())) if sentences is None else sentences
        return Passage(chunk.subject_id or 0, chunk.note_id or "", chunk.section or "", text or chunk.text, held)

    def _sentence_window(self, query: str, pool: list[int], n: int) -> list[Passage]:
        members = np.array([s for chunk in pool for s in self._sentences_of.get(chunk, ())], dtype=np.int64)
        if not len(members):
            return []
        scores = self.sentence_vectors[members] @ self.query_vector(query)
        passages = []
        for position in np.argsort(-scores, kind="stable")[:n]:
            sentence = int(members[position])
            chunk = int(self.sentence_chunk[sentence])
            window = [s for s in (sentence - 1, sentence, sentence + 1) if 0 <= s < len(self.sentences)]
            window = [s for s in window if int(self.sentence_chunk[s]) == chunk]
            passages.append(self._passage(chunk, " ".join(self.sentences[s] for s in window), tuple(window)))
        return passages

    def _merged(self, best: list[int]) -> list[Passage]:
        """Retrieved chunks, with a section's chunks merged into the whole section when two or more were found."""
        parents: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index in best:
            chunk = self.chunks[index]
            parents[(chunk.note_id or "", chunk.section or "")].append(index)
        passages: list[Passage] = []
        done: set[tuple[str, str]] = set()
        for index in best:
            chunk = self.chunks[index]
            parent = (chunk.note_id or "", chunk.section or "")
            if len(parents[parent]) < 2:
                passages.append(self._passage(index))
            elif parent not in done:
                done.add(parent)
                members = self._of_section[parent]
                held = tuple(s for i in members for s in self._sentences_of.get(i, ()))
                passages.append(self._passage(index, "\n".join(self.chunks[i].text for i in members), held))
        return passages


def _normalised(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _cached(path: Path, embedder: Embedder, texts: list[str]) -> Vectors:
    if path.exists():
        stored: Vectors = np.asarray(np.load(path), dtype=np.float32)
        if stored.shape[0] == len(texts):
            return stored
    log.info("embedding %d texts for %s", len(texts), path.name)
    empty = np.zeros((0, 1), np.float32)
    vectors = _normalised(np.asarray(embedder.embed(texts), dtype=np.float32)) if texts else empty
    np.save(path, vectors)
    return vectors
