"""Step 2 of ``bench_federation.py``: ixn, |federated top-10 ∩ centralised top-10| / 10, with policies off
(``PolicyEngine.allow_all``), for dense, bm25 and hybrid search."""

from __future__ import annotations

import statistics
from typing import Any

from clinrag.federation.root import FederationRoot
from clinrag.retrieve.hybrid import Retriever
from federation_nodes import timed_search
from federation_stats import ms


def ixn(open_root: FederationRoot, central: Retriever, token: str, questions: list[str]) -> dict[str, Any]:
    """Each question's federated top 10 (``open_root``, whose nodes have policies off) against the centralised
    index's, per mode: mean and min ixn, how many at 1.0, how many ranked identically, and the lowest five."""
    result: dict[str, Any] = {"policies": "off (PolicyEngine.allow_all)", "k": 10}
    timings: list[float] = []
    for mode in ("dense", "bm25", "hybrid"):
        values, exact_order, worst, short = [], 0, [], 0
        for question in questions:
            federated, wall = timed_search(open_root, question, token, mode)
            if mode == "hybrid":
                timings.append(wall)
            fed_ids = [hit.chunk.chunk_id for hit in federated.retrieval.hits]
            cen_ids = [hit.chunk.chunk_id for hit in central.retrieve(question, k=10, mode=mode).hits]
            # |intersection| / 10; when a named patient has fewer than 10 chunks, / the longer list (1.0 if both empty)
            overlap = len(set(fed_ids) & set(cen_ids)) / max(len(fed_ids), len(cen_ids)) if cen_ids or fed_ids else 1.0
            short += max(len(fed_ids), len(cen_ids)) < 10
            values.append(overlap)
            exact_order += fed_ids == cen_ids
            worst.append((overlap, question))
        result[mode] = {
            "mean_ixn": round(statistics.fmean(values), 3),
            "min_ixn": min(values),
            "questions_with_ixn_1": sum(value == 1.0 for value in values),
            "identical_ranking": exact_order,
            "questions": len(values),
            "questions_with_fewer_than_10_hits": short,
            "lowest": [{"ixn": value, "question": question} for value, question in sorted(worst)[:5]],
        }
    result["federated_policies_off_hybrid_ms"] = ms(timings)
    return result
