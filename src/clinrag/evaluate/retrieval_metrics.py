"""Ranking metrics with binary relevance and trec_eval's conventions: recall@k, reciprocal rank (MRR@k) and nDCG@k.

A ranking's repeated ids count once. These few lines are kept in-house rather than calling ir-measures at run time:
the evaluation suites score one question at a time in their loops, and ir-measures would bring a compiled
dependency (pytrec-eval) into the product for them. `tests/evaluate/test_retrieval_eval.py` checks that they agree
with ir-measures (``R@k``, ``RR@10``, ``nDCG@10``) on random rankings.

Example:
    >>> recall_at_k(["a", "x", "b"], {"a", "b", "c"}, k=2), reciprocal_rank(["x", "a"], {"a"}, k=10)
    (0.3333333333333333, 0.5)
    >>> round(ndcg_at_k(["x", "a"], {"a"}, k=10), 4)
    0.6309
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence, Set
from dataclasses import dataclass


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
