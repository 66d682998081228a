"""Step 1 of ``bench_federation.py``: fan-out latency of the federation over the three hospitals against one
centralised index over all their chunks, the same questions, hybrid, k = 10, and where a federated search's time
goes."""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from clinrag.federation.root import FederatedRetrieval, FederationRoot
from clinrag.retrieve.hybrid import Retriever
from federation_nodes import SEARCHER, NodeProcesses, timed_search
from federation_stats import load_average, ms


def breakdown(result: FederatedRetrieval, wall: float) -> dict[str, float]:
    """Where one federated search's time went (seconds)."""
    timings = result.retrieval.timings
    answered = [org for org in result.orgs if org.response is not None]
    slowest = max(result.orgs, key=lambda org: org.seconds)
    node_total = slowest.response.timings.get("total", 0.0) if slowest.response is not None else 0.0
    node_search = slowest.response.timings.get("search", 0.0) if slowest.response is not None else 0.0
    overheads = [org.seconds - org.response.timings.get("total", 0.0) for org in answered if org.response is not None]
    return {
        "wall": wall,
        "root_total": timings["total"],
        "fan_out": timings["fan_out"],
        "merge": timings["total"] - timings["fan_out"],
        "slowest_org_round_trip": slowest.seconds,
        "slowest_org_node_total": node_total,
        "slowest_org_node_tree_search": node_search,
        "slowest_org_node_rank": node_total - node_search,
        "slowest_org_http_and_serialisation": slowest.seconds - node_total,
        "mean_org_http_and_serialisation": statistics.fmean(overheads) if overheads else 0.0,
        "root_request_building": timings["fan_out"] - slowest.seconds,
        "embedding_and_handover_to_the_roots_loop": wall - timings["total"],
    }


def fan_out_vs_centralised(
    roots: dict[str, FederationRoot],
    central: Retriever,
    token: str,
    questions: list[str],
    repeats: int,
    processes: NodeProcesses | None = None,
) -> dict[str, Any]:
    """Each question asked of every root (nodes in threads, nodes as processes) and of the centralised index, one
    after another, so that every variant sees the same machine load."""
    for question in questions[:5]:  # warm every path (connections, caches, spaCy)
        for root in roots.values():
            timed_search(root, question, token)
        central.retrieve(question, k=10, mode="hybrid")
    walls: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    parts: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in roots}
    node_totals: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in roots}
    central_parts: dict[str, list[float]] = defaultdict(list)
    statuses: Counter[str] = Counter()
    load = load_average()
    node_cpu = processes.cpu_seconds() if processes is not None else {}
    for _ in range(repeats):
        for question in questions:
            for name, root in roots.items():
                used = time.process_time()
                found, wall = timed_search(root, question, token)
                cpu[name].append(time.process_time() - used)
                walls[name].append(wall)
                for part, value in breakdown(found, wall).items():
                    parts[name][part].append(value)
                for org in found.orgs:
                    statuses[f"{name} {org.org.org}:{org.status.value}"] += 1
                    if org.response is not None:
                        node_totals[name][org.org.org].append(org.response.timings.get("total", 0.0))
            used, started = time.process_time(), time.perf_counter()
            retrieval = central.retrieve(question, k=10, mode="hybrid")
            walls["centralised"].append(time.perf_counter() - started)
            cpu["centralised"].append(time.process_time() - used)
            for part, value in retrieval.timings.items():
                central_parts[part].append(value)
    cen = ms(walls["centralised"])
    result: dict[str, Any] = {
        "user": SEARCHER,
        "mode": "hybrid",
        "k": 10,
        "questions": len(questions),
        "repeats": repeats,
        "load_average_at_start": load,
        "load_average_at_end": load_average(),
        "centralised_ms": cen,
        "centralised_process_cpu_ms_per_search": ms(cpu["centralised"])["mean"],
        "centralised_breakdown_ms_p50": {part: ms(values)["p50"] for part, values in central_parts.items()},
    }
    for name in roots:
        fed = ms(walls[name])
        result[name] = {
            "federated_ms": fed,
            "ratio_p50": round(fed["p50"] / cen["p50"], 2),
            "ratio_p95": round(fed["p95"] / cen["p95"], 2),
            "meets_target_1_3x_at_p50": fed["p50"] / cen["p50"] <= 1.3,
            "this_process_cpu_ms_per_search": ms(cpu[name])["mean"],
            "breakdown_ms_p50": {part: ms(values)["p50"] for part, values in parts[name].items()},
            "breakdown_ms_mean": {part: ms(values)["mean"] for part, values in parts[name].items()},
            "node_total_ms_per_org": {org: ms(values) for org, values in node_totals[name].items()},
        }
    if processes is not None:
        searches = len(walls["nodes_as_processes"])
        by_node = {org: seconds - node_cpu[org] for org, seconds in processes.cpu_seconds().items()}
        result["nodes_as_processes"]["node_process_cpu_ms_per_search"] = {
            org: round(seconds / searches * 1000, 1) for org, seconds in by_node.items()
        }
        result["nodes_as_processes"]["all_processes_cpu_ms_per_search"] = round(
            result["nodes_as_processes"]["this_process_cpu_ms_per_search"] + sum(by_node.values()) / searches * 1000,
            1,
        )
    result["org_statuses"] = dict(statuses)
    return result
