"""Step 3 of ``bench_federation.py``: fan-out latency with many simulated organisations on loopback (``--orgs`` node
apps, each serving one of the three hospitals' trees under its own organisation name)."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from clinrag.federation.root import FederationRoot
from federation_nodes import timed_search
from federation_stats import load_average, ms


def many_orgs(root: FederationRoot, token: str, questions: list[str]) -> dict[str, Any]:
    """Each question asked of ``root`` (after three warm-up searches): wall time, fan-out, the slowest organisation's
    round trip, each node's own time, this process's CPU per search and the organisations' statuses."""
    for question in questions[:3]:
        timed_search(root, question, token)
    walls, slowest_org, node_totals, fan_out = [], [], [], []
    statuses: Counter[str] = Counter()
    load = load_average()
    used = time.process_time()
    for question in questions:
        result, wall = timed_search(root, question, token)
        walls.append(wall)
        fan_out.append(result.retrieval.timings["fan_out"])
        slowest_org.append(max(org.seconds for org in result.orgs))
        node_totals += [org.response.timings["total"] for org in result.orgs if org.response is not None]
        statuses.update(org.status.value for org in result.orgs)
    return {
        "orgs": len(root.orgs),
        "questions": len(questions),
        "load_average_at_start": load,
        "root_timeout_seconds": root.federation.timeout,
        "federated_ms": ms(walls),
        "process_cpu_ms_per_search": round((time.process_time() - used) / len(questions) * 1000, 1),
        "fan_out_ms": ms(fan_out),
        "slowest_org_round_trip_ms": ms(slowest_org),
        "node_total_ms_each_org": ms(node_totals),
        "org_statuses": dict(statuses),
        "slowest_org_over_2s": sum(value > 2.0 for value in slowest_org),
    }
