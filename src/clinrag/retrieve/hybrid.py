"""The retriever of one node: understands the question, resolves named patients, searches every leaf index,
merges, applies the relevance threshold, and returns ranked hits with their provenance.

When a question names patients this node knows, only their chunks are eligible; when it names people this
node does not know, nothing is returned and the result says so ("no such patient here"), rather than answering
about someone else.

Example:
    >>> retriever = Retriever.open(pathlib.Path("data/demo/nodes/A"))  # doctest: +SKIP
    >>> retriever.retrieve("What was Betty Henry discharged on?").hits[0].chunk.section  # doctest: +SKIP
    'Discharge Medications'
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from clinrag.errors import StoreError
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import Embedder, OnnxMiniLmEmbedder, Vectors
from clinrag.index.indexer import leaf_folders
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.store import Mode, StoreHit, StoreQuery, VectorStore
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.fusion import merge_top_k, min_max_normalise, mmr, reciprocal_rank_fusion
from clinrag.retrieve.patients import PatientRegistry, Resolution
from clinrag.retrieve.query import QueryUnderstanding, understand
from clinrag.settings import RetrieveSettings
from clinrag.types import Hit, SearchFilters

CHUNKS_FILE = "chunks.sqlite"
INDEX_DIR = "index"


@dataclass(frozen=True)
class Retrieval:
    """The outcome of one search: hits, how the question was understood, and why anything was left out."""

    hits: tuple[Hit, ...]
    understanding: QueryUnderstanding
    resolution: Resolution | None
    filters: SearchFilters
    no_such_patient: bool = False
    below_threshold: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def _without_mentions(question: str, resolution: Resolution | None) -> str:
    """The question with the resolved patient mentions cut out (or the question itself if nothing is left)."""
    if resolution is None or not resolution.mentions:
        return question
    text = question
    for mention in sorted(resolution.mentions, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + " " + text[mention.end :]
    text = " ".join(text.replace(" 's ", " ").split())
    return text if text.strip(" ?.!") else question


def _diversify(
    fused: list[tuple[str, float]], found: Mapping[str, StoreHit], query: Vectors, lambda_: float, k: int
) -> list[tuple[str, float]]:
    """MMR over the fused candidates, with the fused scores (rescaled to [0, 1]) as relevance."""
    usable = [(cid, score) for cid, score in fused if found[cid].vector is not None]
    if not usable:
        return fused[:k]
    vectors = np.vstack([found[cid].vector for cid, _ in usable])  # type: ignore[misc]
    relevance = min_max_normalise([score for _, score in usable])
    return [usable[index] for index in mmr(query, vectors, relevance, lambda_=lambda_, k=k)]


def _section_focus(understanding: QueryUnderstanding, filters: SearchFilters) -> SearchFilters | None:
    """The filters narrowed to the sections the question asks about, unless it names none or the caller chose."""
    if not understanding.sections or filters.sections is not None or filters.section_groups is not None:
        return None
    return filters.model_copy(update={"sections": understanding.sections})


def _intersect(given: tuple[int, ...] | None, named: frozenset[int]) -> tuple[int, ...]:
    if given is None:
        return tuple(sorted(named))
    return tuple(sorted(set(given) & named))


class Retriever:
    """Searches a node's leaf indexes. Build with `open` (a node folder) or directly from parts."""

    def __init__(
        self,
        stores: Mapping[str, VectorStore],
        embedder: Embedder,
        registry: PatientRegistry,
        settings: RetrieveSettings,
        chunks: ChunkStore | None = None,
    ) -> None:
        self.stores = dict(stores)
        self.embedder = embedder
        self.registry = registry
        self.settings = settings
        self.chunks = chunks
        for name, store in self.stores.items():
            store.manifest.check(embedder.id, embedder.dimension, f"leaf {name}")

    @classmethod
    def open(cls, node: Path, settings: RetrieveSettings | None = None, embedder: Embedder | None = None) -> Retriever:
        """The retriever of a node folder holding ``chunks.sqlite`` and ``index/LEAF`` shards."""
        folders = leaf_folders(node / INDEX_DIR)
        if not folders:
            raise StoreError(f"{node}: no index found under {node / INDEX_DIR}; run 'clinrag index build' first")
        chunks = ChunkStore.open(node / CHUNKS_FILE)
        stores: dict[str, VectorStore] = {leaf: EdgeStore.open(folder) for leaf, folder in folders.items()}
        return cls(
            stores,
            embedder or OnnxMiniLmEmbedder(),
            PatientRegistry(chunks.patients()),
            settings or RetrieveSettings(),
            chunks,
        )

    def close(self) -> None:
        """Release the stores."""
        for store in self.stores.values():
            store.close()
        if self.chunks is not None:
            self.chunks.close()

    def _patient_filters(self, question: str, filters: SearchFilters) -> tuple[SearchFilters, Resolution | None, bool]:
        if not self.settings.resolve_patients:
            return filters, None, False
        resolution = self.registry.resolve(question)
        if resolution.subject_ids:
            subjects = _intersect(filters.subject_ids, resolution.subject_ids)
            return filters.model_copy(update={"subject_ids": subjects}), resolution, not subjects
        return filters, resolution, resolution.names_patients

    def _admission_filters(self, understanding: QueryUnderstanding, filters: SearchFilters) -> SearchFilters:
        update: dict[str, object] = {}
        if understanding.date_range is not None and filters.start is None and filters.end is None:
            update |= {"start": understanding.date_range.start, "end": understanding.date_range.end}
        wants_one = understanding.latest_admission or understanding.first_admission
        if wants_one and self.chunks is not None and filters.subject_ids and len(filters.subject_ids) == 1:
            admissions = self.chunks.admissions(filters.subject_ids[0])
            if admissions:
                chosen = admissions[-1] if understanding.latest_admission else admissions[0]
                update["hadm_ids"] = (chosen,)
        return filters.model_copy(update=update) if update else filters

    def retrieve(
        self,
        question: str,
        filters: SearchFilters | None = None,
        k: int | None = None,
        fetch_k: int | None = None,
        mode: Mode | None = None,
    ) -> Retrieval:
        """Search for ``question`` within ``filters``; see the module docstring."""
        settings = self.settings
        k = k or settings.k
        fetch_k = max(fetch_k or settings.fetch_k, k)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        understanding = understand(question, expand_abbreviations=settings.expand_abbreviations)
        scoped, resolution, nobody_here = self._patient_filters(question, filters or SearchFilters())
        scoped = self._admission_filters(understanding, scoped)
        timings["understand"] = time.perf_counter() - started
        if nobody_here:
            return Retrieval((), understanding, resolution, scoped, no_such_patient=True, timings=timings)

        started = time.perf_counter()
        # Named patients are already a filter; their names would only pull in short chunks that repeat them.
        ranking_text = _without_mentions(question, resolution) if scoped.subject_ids else question
        lexical = understand(ranking_text, expand_abbreviations=settings.expand_abbreviations).lexical_text
        dense = self.embedder.embed([ranking_text])[0]
        sparse = Bm25Encoder.encode_query(lexical)
        timings["embed"] = time.perf_counter() - started

        started = time.perf_counter()
        chosen_mode = mode or settings.mode
        found: dict[str, StoreHit] = {}

        def candidates(leaf_mode: Mode, within: SearchFilters = scoped) -> list[tuple[str, float]]:
            """One mode's candidates from every leaf, merged by that mode's own (comparable) score."""
            request = StoreQuery(mode=leaf_mode, dense=dense, sparse=sparse, filters=within, limit=fetch_k)
            lists = []
            for store in self.stores.values():
                hits = store.query(request)
                for hit in hits:
                    found.setdefault(hit.chunk.chunk_id, hit)
                lists.append([(hit.chunk.chunk_id, hit.score) for hit in hits])
            return merge_top_k(lists, fetch_k)

        if chosen_mode in ("dense", "bm25"):
            merged = candidates(chosen_mode)
        else:
            # RRF scores depend only on ranks within one list, so leaves are never fused separately and then
            # merged: each retriever's list is merged across leaves first, and fused once.
            rankings = [[cid for cid, _ in candidates("dense")], [cid for cid, _ in candidates("bm25")]]
            weights = [settings.dense_weight, settings.bm25_weight]
            focus = _section_focus(understanding, scoped) if settings.section_weight > 0 else None
            if focus is not None:
                rankings += [
                    [cid for cid, _ in candidates("dense", focus)],
                    [cid for cid, _ in candidates("bm25", focus)],
                ]
                weights += [
                    settings.section_weight * settings.dense_weight,
                    settings.section_weight * settings.bm25_weight,
                ]
            merged = reciprocal_rank_fusion(rankings, weights, k=settings.rrf_k, limit=fetch_k)
            if chosen_mode == "hybrid-mmr":
                merged = _diversify(merged, found, dense, settings.mmr_lambda, k)
        timings["search"] = time.perf_counter() - started

        threshold = settings.score_threshold
        kept = [(cid, score) for cid, score in merged if threshold is None or found[cid].dense_score >= threshold]
        ranked = tuple(
            Hit(chunk=found[cid].chunk, score=score, rank=rank, scores={"dense": found[cid].dense_score})
            for rank, (cid, score) in enumerate(kept[:k], start=1)
        )
        return Retrieval(
            ranked, understanding, resolution, scoped, below_threshold=len(merged) - len(kept), timings=timings
        )
