"""Candidate lists and their ranking: the part of a search that leaves, routers and the federation root share.

A search gathers, per retriever, a ranked list of ``(chunk_id, score)``: ``dense`` (cosine), ``bm25``, and, when the
question names sections, the same two within those sections (``dense@section``, ``bm25@section``). Lists from
several leaves merge by each list's own score (`merge_candidates`), then `rank_candidates` fuses them once (RRF),
optionally diversifies (MMR), applies the relevance threshold on the dense cosine and cuts to ``k``. Because every
list is merged globally before fusion, a federated search ranks exactly like one index over the same chunks
(dense scores are comparable across leaves with one embedder; BM25 statistics are each leaf's own).

Example:
    >>> from clinrag.settings import RetrieveSettings
    >>> empty = Candidates({}, {})
    >>> rank_candidates(empty, "hybrid", RetrieveSettings(), k=5)
    ([], 0)
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from clinrag.index.embed import Vectors
from clinrag.index.store import Mode, StoreHit
from clinrag.retrieve.fusion import merge_top_k, min_max_normalise, mmr, reciprocal_rank_fusion
from clinrag.settings import RetrieveSettings
from clinrag.types import Hit

DENSE_LIST = "dense"
BM25_LIST = "bm25"
SECTION_SUFFIX = "@section"
COSINE = "cosine"
"""Key of a hit's dense cosine with the query in `Hit.scores` (the threshold applies to it)."""


@dataclass
class Candidates:
    """Ranked candidate lists by name, and every candidate found (chunk, cosine and, for MMR, its vector)."""

    lists: dict[str, list[tuple[str, float]]]
    found: dict[str, StoreHit] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.found)


def merge_candidates(parts: Sequence[Candidates], fetch_k: int) -> Candidates:
    """One set of candidates from many leaves: each list merged by its own score to ``fetch_k``.

    Example:
        >>> merge_candidates([Candidates({"dense": [("a", 0.9)]}), Candidates({"dense": [("b", 0.95)]})], 5).lists
        {'dense': [('b', 0.95), ('a', 0.9)]}
    """
    names = sorted({name for part in parts for name in part.lists})
    lists = {name: merge_top_k([part.lists.get(name, []) for part in parts], fetch_k) for name in names}
    found: dict[str, StoreHit] = {}
    for part in parts:
        for chunk_id, hit in part.found.items():
            found.setdefault(chunk_id, hit)
    kept = {chunk_id for ranked in lists.values() for chunk_id, _ in ranked}
    return Candidates(lists, {chunk_id: hit for chunk_id, hit in found.items() if chunk_id in kept})


def list_weight(name: str, settings: RetrieveSettings) -> float:
    """The fusion weight of a candidate list: the retriever's weight, times the section weight for section lists.

    Example:
        >>> list_weight("bm25@section", RetrieveSettings(bm25_weight=0.5, section_weight=2.0))
        1.0
    """
    base = settings.dense_weight if name.startswith(DENSE_LIST) else settings.bm25_weight
    return base * settings.section_weight if name.endswith(SECTION_SUFFIX) else base


def rank_candidates(
    candidates: Candidates,
    mode: Mode,
    settings: RetrieveSettings,
    k: int,
    query: Vectors | None = None,
) -> tuple[list[Hit], int]:
    """The final hits (rank 1 first) and how many fused candidates the relevance threshold dropped.

    ``dense`` and ``bm25`` modes rank by that list's score; ``hybrid`` fuses every list by weighted RRF;
    ``hybrid-mmr`` then diversifies with MMR around ``query`` (needs the candidates' vectors).
    """
    lists = candidates.lists
    found = candidates.found
    fetch_k = max((len(ranked) for ranked in lists.values()), default=0)
    if mode in ("dense", "bm25"):
        merged = list(lists.get(mode, []))
    else:
        names = sorted((name for name in lists if lists[name]), key=_list_order)
        rankings = [[chunk_id for chunk_id, _ in lists[name]] for name in names]
        weights = [list_weight(name, settings) for name in names]
        merged = reciprocal_rank_fusion(rankings, weights, k=settings.rrf_k, limit=max(fetch_k, k)) if names else []
        if mode == "hybrid-mmr" and query is not None:
            merged = _diversify(merged, found, query, settings.mmr_lambda, k)
    threshold = settings.score_threshold
    kept = [(cid, score) for cid, score in merged if threshold is None or found[cid].dense_score >= threshold]
    hits = [
        Hit(chunk=found[cid].chunk, score=score, rank=rank, scores=_scores_of(cid, candidates))
        for rank, (cid, score) in enumerate(kept[:k], start=1)
    ]
    return hits, len(merged) - len(kept)


def _list_order(name: str) -> tuple[bool, bool, str]:
    """dense, bm25, dense@section, bm25@section: the order fusion has always summed them in."""
    return name.endswith(SECTION_SUFFIX), not name.startswith(DENSE_LIST), name


def _scores_of(chunk_id: str, candidates: Candidates) -> dict[str, float]:
    scores = {COSINE: candidates.found[chunk_id].dense_score, "dense": candidates.found[chunk_id].dense_score}
    for name, ranked in candidates.lists.items():
        for cid, score in ranked:
            if cid == chunk_id:
                scores[name] = score
                break
    return scores


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


def candidate_hits(candidates: Candidates) -> list[Hit]:
    """The candidates as hits for the wire: each with its score in every list it is in and its cosine.

    ``rank`` and ``score`` are the hit's best position and score in the ``dense`` list (0 when absent).
    `candidates_from_hits` reads them back.
    """
    positions: dict[str, dict[str, tuple[int, float]]] = {}
    for name, ranked in candidates.lists.items():
        for position, (chunk_id, score) in enumerate(ranked, start=1):
            positions.setdefault(chunk_id, {})[name] = (position, score)
    hits = []
    for chunk_id, places in sorted(positions.items()):
        found = candidates.found[chunk_id]
        scores = {name: score for name, (_, score) in places.items()} | {COSINE: found.dense_score}
        rank, score = places.get(DENSE_LIST, (0, 0.0))
        hits.append(Hit(chunk=found.chunk, score=score, rank=rank, scores=scores))
    return hits


def candidates_from_hits(hits: Sequence[Hit], vectors: Mapping[str, Vectors] | None = None) -> Candidates:
    """Candidate lists rebuilt from `candidate_hits` output (ties ordered by chunk id, as in `merge_top_k`)."""
    lists: dict[str, list[tuple[str, float]]] = {}
    found: dict[str, StoreHit] = {}
    for hit in hits:
        chunk_id = hit.chunk.chunk_id
        cosine = hit.scores.get(COSINE, 0.0)
        found[chunk_id] = StoreHit(hit.chunk, cosine, cosine, (vectors or {}).get(chunk_id))
        for name, score in hit.scores.items():
            if name != COSINE:
                lists.setdefault(name, []).append((chunk_id, score))
    for ranked in lists.values():
        ranked.sort(key=lambda item: (-item[1], item[0]))
    return Candidates(lists, found)


def encode_vector(vector: Vectors) -> str:
    """A dense vector as base64 of little-endian float32, compact for the wire.

    Example:
        >>> decode_vector(encode_vector(np.array([0.5, -1.0], dtype=np.float32))).tolist()
        [0.5, -1.0]
    """
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()


def decode_vector(text: str) -> Vectors:
    """The vector `encode_vector` wrote."""
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)
