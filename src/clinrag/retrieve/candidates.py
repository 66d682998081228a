"""Candidate lists and their ranking: the part of a search that leaves, routers and the federation root share.

A search gathers, per retriever, a ranked list of ``(chunk_id, score)``: ``dense`` (cosine), ``bm25``, and, when the
question names sections, the same two within those sections (``dense@section``, ``bm25@section``). Lists from
several leaves merge by each list's own score (`merge_candidates`), then `rank_candidates` fuses them once (RRF),
optionally diversifies (MMR), applies the relevance threshold on the dense cosine and cuts to ``k``. Because every
list is merged globally before fusion, a federated search ranks exactly like one index over the same chunks
(dense scores are comparable across leaves with one embedder; BM25 statistics are each leaf's own). A node sends
the chunks of only its `reachable` candidates; the others travel as scores alone (``ranked_only``), which keeps
every rank, and so the merged ranking, exact.

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
    """Ranked candidate lists by name, and every candidate found (chunk, cosine and, for MMR, its vector).

    ``ranked_only`` holds the dense cosine of candidates listed without their chunk: ones their node found unable to
    reach the top k (`reachable`), which count only for the others' ranks."""

    lists: dict[str, list[tuple[str, float]]]
    found: dict[str, StoreHit] = field(default_factory=dict)
    ranked_only: dict[str, float] = field(default_factory=dict)

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
    ranked_only: dict[str, float] = {}
    for part in parts:
        for chunk_id, hit in part.found.items():
            found.setdefault(chunk_id, hit)
        for chunk_id, cosine in part.ranked_only.items():
            ranked_only.setdefault(chunk_id, cosine)
    kept = {chunk_id for ranked in lists.values() for chunk_id, _ in ranked}
    return Candidates(
        lists,
        {chunk_id: hit for chunk_id, hit in found.items() if chunk_id in kept},
        {cid: cosine for cid, cosine in ranked_only.items() if cid in kept and cid not in found},
    )


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
    kept = [(cid, score) for cid, score in merged if threshold is None or _cosine(candidates, cid) >= threshold]
    # A candidate listed without its chunk never ranks this high when its node judged right (`reachable`); one
    # that does anyway (a node in error) is left out rather than shown without its text.
    shown = [(cid, score) for cid, score in kept[:k] if cid in found]
    hits = [
        Hit(chunk=found[cid].chunk, score=score, rank=rank, scores=_scores_of(cid, candidates))
        for rank, (cid, score) in enumerate(shown, start=1)
    ]
    return hits, len(merged) - len(kept)


def reachable(candidates: Candidates, mode: Mode, settings: RetrieveSettings, k: int) -> set[str]:
    """The candidates that can still be among the final ``k`` once these lists are merged with any other lists
    (`merge_candidates`) and ranked (`rank_candidates`); the others need only their ids and scores to keep everyone's
    ranks right.

    Merging keeps the order of this set's entries within each list, so a candidate that is below another one in
    every list it is in (and, the other being above the relevance threshold, will be kept) stays below it after
    any merge: a candidate with ``k`` such dominators can never reach the top ``k``. In ``hybrid-mmr`` any candidate
    may be chosen for its diversity, so all are reachable.

    Example:
        >>> from clinrag.types import Chunk
        >>> hit = StoreHit(Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine"), 0.0, 0.5)
        >>> lists = {"dense": [("a", 0.9), ("b", 0.8), ("c", 0.7)], "bm25": [("c", 5.0), ("a", 4.0)]}
        >>> found = {cid: hit for cid in "abc"}
        >>> sorted(reachable(Candidates(lists, found), "hybrid", RetrieveSettings(score_threshold=None), k=1))
        ['a', 'c']
    """
    everyone = set(candidates.found)
    if mode == "hybrid-mmr":
        return everyone
    names = [mode] if mode in ("dense", "bm25") else sorted(name for name, ranked in candidates.lists.items() if ranked)
    order = sorted({cid for name in names for cid, _ in candidates.lists.get(name, [])})
    threshold = settings.score_threshold
    kept = np.array([threshold is None or _cosine(candidates, cid) >= threshold for cid in order], dtype=bool)
    index = {cid: row for row, cid in enumerate(order)}
    # positions[row, list]: the candidate's place in that list (by score, then id: the order every merge keeps).
    positions = np.full((len(order), len(names)), np.inf)
    for column, name in enumerate(names):
        ranked = sorted(candidates.lists.get(name, []), key=lambda item: (-item[1], item[0]))
        for place, (cid, _) in enumerate(ranked):
            positions[index[cid], column] = place
    absent = np.isinf(positions)
    result: set[str] = set()
    for start in range(0, len(order), _DOMINANCE_BLOCK):
        block = slice(start, start + _DOMINANCE_BLOCK)
        # above[c, d]: d is above c in every list c is in (so d fuses higher wherever the lists are merged).
        above = np.all(absent[block, None, :] | (positions[None, :, :] < positions[block, None, :]), axis=2)
        dominators = (above & kept[None, :]).sum(axis=1)
        for offset in np.flatnonzero((dominators < k) & kept[block]):
            result.add(order[start + int(offset)])
    return result & everyone


_DOMINANCE_BLOCK = 256
"""Candidates compared at once when counting dominators (bounds the comparison matrix to 256 x n x lists)."""


def _cosine(candidates: Candidates, chunk_id: str) -> float:
    hit = candidates.found.get(chunk_id)
    return hit.dense_score if hit is not None else candidates.ranked_only.get(chunk_id, 0.0)


def _list_order(name: str) -> tuple[bool, bool, str]:
    """dense, bm25, dense@section, bm25@section: the order fusion has always summed them in."""
    return name.endswith(SECTION_SUFFIX), not name.startswith(DENSE_LIST), name


def _scores_of(chunk_id: str, candidates: Candidates) -> dict[str, float]:
    cosine = _cosine(candidates, chunk_id)
    scores = {COSINE: cosine, "dense": cosine}
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
    usable = [(cid, score) for cid, score in fused if cid in found and found[cid].vector is not None]
    if not usable:
        return fused[:k]
    vectors = np.vstack([found[cid].vector for cid, _ in usable])  # type: ignore[misc]
    relevance = min_max_normalise([score for _, score in usable])
    return [usable[index] for index in mmr(query, vectors, relevance, lambda_=lambda_, k=k)]


def candidate_hits(
    candidates: Candidates, bodies: set[str] | None = None
) -> tuple[list[Hit], dict[str, dict[str, float]]]:
    """The candidates for the wire: those in ``bodies`` (default all) as hits, each with its score in every list it
    is in and its cosine; the others by chunk id with those scores alone (``ranked_only``: candidates that cannot
    reach the top k, `reachable`, sent so that the others keep their ranks in a merge).

    A hit's ``rank`` and ``score`` are its position and score in the ``dense`` list (0 when absent).
    `candidates_from_hits` reads both back.

    Example:
        >>> from clinrag.types import Chunk
        >>> hit = StoreHit(Chunk.create(source_id="note:1", text="aspirin", org="A", dept="medicine"), 0.0, 0.5)
        >>> found = {cid: hit for cid in "ab"}
        >>> hits, ranked_only = candidate_hits(Candidates({"dense": [("a", 0.9), ("b", 0.8)]}, found), {"a"})
        >>> len(hits), ranked_only
        (1, {'b': {'dense': 0.8, 'cosine': 0.5}})
    """
    hits: list[Hit] = []
    ranked_only: dict[str, dict[str, float]] = {}
    for chunk_id, (scores, rank, score) in sorted(_places(candidates).items()):
        if bodies is None or chunk_id in bodies:
            hits.append(Hit(chunk=candidates.found[chunk_id].chunk, score=score, rank=rank, scores=scores))
        else:
            ranked_only[chunk_id] = scores
    return hits, ranked_only


def _places(candidates: Candidates) -> dict[str, tuple[dict[str, float], int, float]]:
    """Per candidate: its scores by list name (and cosine), its position and score in the dense list (0 if absent)."""
    positions: dict[str, dict[str, tuple[int, float]]] = {}
    for name, ranked in candidates.lists.items():
        for position, (chunk_id, score) in enumerate(ranked, start=1):
            positions.setdefault(chunk_id, {})[name] = (position, score)
    places = {}
    for chunk_id, listed in positions.items():
        scores = {name: score for name, (_, score) in listed.items()} | {COSINE: _cosine(candidates, chunk_id)}
        places[chunk_id] = (scores, *listed.get(DENSE_LIST, (0, 0.0)))
    return places


def candidates_from_hits(
    hits: Sequence[Hit],
    vectors: Mapping[str, Vectors] | None = None,
    ranked_only: Mapping[str, Mapping[str, float]] | None = None,
) -> Candidates:
    """Candidate lists rebuilt from `candidate_hits` output (ties ordered by chunk id, as in `merge_top_k`)."""
    lists: dict[str, list[tuple[str, float]]] = {}
    found: dict[str, StoreHit] = {}
    cosines: dict[str, float] = {}
    listed = [(hit.chunk.chunk_id, hit.scores) for hit in hits] + list((ranked_only or {}).items())
    for chunk_id, scores in listed:
        cosines[chunk_id] = scores.get(COSINE, 0.0)
        for name, score in scores.items():
            if name != COSINE:
                lists.setdefault(name, []).append((chunk_id, score))
    for hit in hits:
        cosine = cosines[hit.chunk.chunk_id]
        found[hit.chunk.chunk_id] = StoreHit(hit.chunk, cosine, cosine, (vectors or {}).get(hit.chunk.chunk_id))
    for ranked in lists.values():
        ranked.sort(key=lambda item: (-item[1], item[0]))
    return Candidates(lists, found, {cid: cosine for cid, cosine in cosines.items() if cid not in found})


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
