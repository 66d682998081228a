"""Ranking maths as pure functions: reciprocal rank fusion, MMR, score normalisation, global merge, threshold.

Nothing here knows about chunks, stores or embedders: inputs are ids, scores and vectors, outputs are new lists.
Every function is deterministic. Ties are always broken explicitly (never by dictionary or input order where that
order could vary), and sums use :func:`math.fsum`, which is exactly rounded and therefore independent of the order
in which contributions arrive (so fusing the same rankings in another order gives bit-identical scores).

Example:
    >>> [doc for doc, _ in reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]])]
    ['a', 'b', 'c']
    >>> merge_top_k([[("x", 0.9), ("y", 0.2)], [("y", 0.5), ("z", 0.4)]], k=2)
    [('x', 0.9), ('y', 0.5)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.floating[Any]]
"""A float vector (1-D) or matrix (2-D, one row per candidate)."""

DEFAULT_RRF_K = 60
"""The RRF smoothing constant from Cormack, Clarke and Buettcher (2009), also qdrant-client's default."""


def _check_finite(values: Iterable[float], what: str) -> None:
    if not all(math.isfinite(value) for value in values):
        raise ValueError(f"{what} must be finite numbers")


def _check_weights(weights: Sequence[float] | None, count: int) -> list[float]:
    """The weights to use for ``count`` inputs: all ones by default; otherwise one finite, non-negative each."""
    if weights is None:
        return [1.0] * count
    if len(weights) != count:
        raise ValueError(f"expected {count} weights (one per input list), got {len(weights)}")
    _check_finite(weights, "weights")
    if any(weight < 0 for weight in weights):
        raise ValueError("weights must not be negative")
    return [float(weight) for weight in weights]


def _first_ranks(ranking: Sequence[str]) -> dict[str, int]:
    """1-based rank of each id at its first position in ``ranking`` (later duplicates are ignored)."""
    ranks: dict[str, int] = {}
    for position, doc_id in enumerate(ranking, start=1):
        ranks.setdefault(doc_id, position)
    return ranks


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]],
    weights: Sequence[float] | None = None,
    k: int = DEFAULT_RRF_K,
    limit: int | None = None,
) -> list[tuple[str, float]]:
    """Fuse ranked id lists by (weighted) reciprocal rank: ``score(d) = sum_i w_i / (k + rank_i(d))``.

    Ranks are 1-based; an id absent from a ranking gets nothing from it; an id repeated inside one ranking counts
    once, at its first position. The result covers every id of every ranking (cut to ``limit`` if given), best
    first; equal scores are ordered by the id's best single rank, then by id.

    Args:
        rankings: id lists, each best first.
        weights: one non-negative weight per ranking (default: all 1).
        k: the smoothing constant (non-negative); larger values flatten the rank differences.
        limit: keep at most this many results (``None``: all).

    Example:
        >>> fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]], k=60)
        >>> [(doc, round(score, 5)) for doc, score in fused]
        [('a', 0.03252), ('b', 0.03252), ('c', 0.01587)]
    """
    if k < 0:
        raise ValueError("k must not be negative")
    if limit is not None and limit < 0:
        raise ValueError("limit must not be negative")
    checked = _check_weights(weights, len(rankings))
    contributions: dict[str, list[float]] = {}
    best_rank: dict[str, int] = {}
    for weight, ranking in zip(checked, rankings, strict=True):
        for doc_id, rank in _first_ranks(ranking).items():
            contributions.setdefault(doc_id, []).append(weight / (k + rank))
            best_rank[doc_id] = min(rank, best_rank.get(doc_id, rank))
    scored = [(doc_id, math.fsum(parts)) for doc_id, parts in contributions.items()]
    scored.sort(key=lambda item: (-item[1], best_rank[item[0]], item[0]))
    return scored if limit is None else scored[:limit]


def _unit_rows(matrix: Vector) -> npt.NDArray[np.float64]:
    """``matrix`` (1-D or 2-D) as float64 with each row scaled to unit L2 norm; all-zero rows stay zero."""
    values = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(values, axis=-1, keepdims=True)
    unit: npt.NDArray[np.float64] = np.divide(values, norms, out=np.zeros_like(values), where=norms > 0)
    return unit


def mmr(
    query: Vector,
    candidates: Vector,
    relevance: Sequence[float] | None = None,
    lambda_: float = 0.5,
    k: int = 10,
) -> list[int]:
    """Maximal marginal relevance: pick ``k`` candidates that are relevant to the query but not to each other.

    Vectors are L2-normalised here, so similarity is the cosine (a dot product). The first pick is the most
    relevant candidate; each later pick maximises ``lambda_ * rel(d) - (1 - lambda_) * max_sim(d, selected)``.
    ``rel`` defaults to the cosine with ``query`` (which is then ignored if ``relevance`` is given). Ties go to the
    lower index, so ``lambda_=1`` returns the candidates in stable descending order of relevance.

    Args:
        query: the query vector, shape ``(dim,)``.
        candidates: one row per candidate, shape ``(n, dim)``.
        relevance: ``n`` precomputed relevance scores (e.g. fused scores), higher is better.
        lambda_: trade-off in ``[0, 1]``: 1 is pure relevance, 0 pure diversity (after the first pick).
        k: how many to pick; fewer are returned when there are fewer candidates.

    Returns:
        Candidate indices in selection order, all distinct, ``min(k, n)`` of them.

    Example:
        >>> vectors = np.array([[1.0, 0.0], [0.98, 0.2], [0.6, 0.8]])
        >>> mmr(np.array([1.0, 0.0]), vectors, lambda_=1.0, k=2), mmr(np.array([1.0, 0.0]), vectors, lambda_=0.3, k=2)
        ([0, 1], [0, 2])
    """
    if not 0.0 <= lambda_ <= 1.0:
        raise ValueError("lambda_ must be between 0 and 1")
    matrix = np.asarray(candidates, dtype=np.float64)
    if matrix.size and matrix.ndim != 2:
        raise ValueError("candidates must be a 2-D array with one row per candidate")
    count = matrix.shape[0] if matrix.size else 0
    if not np.isfinite(matrix).all():
        raise ValueError("candidate vectors must be finite numbers")
    if relevance is not None and len(relevance) != count:
        raise ValueError(f"expected {count} relevance scores (one per candidate), got {len(relevance)}")
    if count == 0 or k <= 0:
        return []
    rows = _unit_rows(matrix)
    if relevance is None:
        vector = np.asarray(query, dtype=np.float64)
        if vector.shape != (rows.shape[1],):
            raise ValueError(f"query must have shape ({rows.shape[1]},), got {vector.shape}")
        if not np.isfinite(vector).all():
            raise ValueError("query vector must be finite numbers")
        rel = rows @ _unit_rows(vector)
    else:
        _check_finite(relevance, "relevance scores")
        rel = np.asarray(relevance, dtype=np.float64)
    return _mmr_select(rows, rel, lambda_, min(k, count))


def _mmr_select(rows: npt.NDArray[np.float64], rel: npt.NDArray[np.float64], lambda_: float, k: int) -> list[int]:
    """The greedy MMR loop over unit ``rows`` with relevance ``rel``: ``k`` steps, each vectorised over rows."""
    available = np.ones(rows.shape[0], dtype=bool)
    max_sim = np.zeros(rows.shape[0], dtype=np.float64)
    diversity = 1.0 - lambda_
    selected: list[int] = []
    for step in range(k):
        objective = rel if step == 0 else lambda_ * rel - diversity * max_sim
        pick = int(np.argmax(np.where(available, objective, -np.inf)))
        selected.append(pick)
        available[pick] = False
        sims = rows @ rows[pick]
        max_sim = sims if step == 0 else np.maximum(max_sim, sims)
    return selected


def min_max_normalise(scores: Sequence[float]) -> list[float]:
    """Rescale scores linearly to ``[0, 1]`` (lowest to 0, highest to 1), keeping their order.

    When every score is equal (including a single score) they all become 1.0: nothing is worse than anything
    else, and a lone hit should not be zeroed out.

    Example:
        >>> min_max_normalise([2.0, 4.0, 3.0])
        [0.0, 1.0, 0.5]
    """
    _check_finite(scores, "scores")
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if low == high:
        return [1.0] * len(scores)
    span = high - low
    if math.isinf(span):  # e.g. -1e308 .. 1e308: rescale halves to stay finite
        return [min(1.0, max(0.0, (score / 2 - low / 2) / (high / 2 - low / 2))) for score in scores]
    return [min(1.0, max(0.0, (score - low) / span)) for score in scores]


def weighted_score_fusion(
    score_lists: Sequence[Mapping[str, float]], weights: Sequence[float]
) -> list[tuple[str, float]]:
    """Fuse scored result lists by a weighted sum of their min-max normalised scores.

    Each list is normalised on its own (see :func:`min_max_normalise`); an id absent from a list gets 0 from it.
    The result covers every id, best first; equal scores are ordered by id.

    Example:
        >>> weighted_score_fusion([{"a": 10.0, "b": 0.0}, {"b": 0.9, "c": 0.1}], weights=[1.0, 0.5])
        [('a', 1.0), ('b', 0.5), ('c', 0.0)]
    """
    checked = _check_weights(weights, len(score_lists))
    contributions: dict[str, list[float]] = {}
    for weight, scores in zip(checked, score_lists, strict=True):
        ids = list(scores)
        for doc_id, normalised in zip(ids, min_max_normalise([scores[doc_id] for doc_id in ids]), strict=True):
            contributions.setdefault(doc_id, []).append(weight * normalised)
    fused = [(doc_id, math.fsum(parts)) for doc_id, parts in contributions.items()]
    fused.sort(key=lambda item: (-item[1], item[0]))
    return fused


def merge_top_k(result_lists: Sequence[Sequence[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    """Merge scored result lists into one global top ``k``: each id once, at its best score, best first.

    Equal scores are ordered by id, so the result does not depend on the order of the lists (for instance on which
    federation node answered first).

    Example:
        >>> merge_top_k([[("a", 0.5), ("b", 0.4)], [("b", 0.7)]], k=5)
        [('b', 0.7), ('a', 0.5)]
    """
    if k < 0:
        raise ValueError("k must not be negative")
    best: dict[str, float] = {}
    for results in result_lists:
        _check_finite((score for _, score in results), "scores")
        for doc_id, score in results:
            if doc_id not in best or score > best[doc_id]:
                best[doc_id] = score
    merged = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    return merged[:k]


def apply_threshold(results: Sequence[tuple[str, float]], threshold: float | None) -> list[tuple[str, float]]:
    """Keep the results scoring at least ``threshold``, in their given order (``None`` keeps everything).

    Example:
        >>> apply_threshold([("a", 0.8), ("b", 0.3), ("c", 0.5)], 0.5)
        [('a', 0.8), ('c', 0.5)]
    """
    if threshold is None:
        return list(results)
    if math.isnan(threshold):
        raise ValueError("threshold must be a number")
    return [(doc_id, score) for doc_id, score in results if score >= threshold]
