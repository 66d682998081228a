"""Step 4 of ``bench_federation.py``: throughput of the 8 demo users searching at once, each with their own token,
for a fixed time: requests/s, p50/p95, errors (an exception, or any organisation that timed out, failed, was
unreachable or refused the token) and the cores each side got."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from clinrag.access.demo import DEMO_USERS
from clinrag.federation.root import FederationRoot, OrgStatus
from federation_nodes import NodeProcesses, Running
from federation_stats import load_average, ms

BAD = {OrgStatus.TIMEOUT, OrgStatus.UNREACHABLE, OrgStatus.FAILED, OrgStatus.UNAUTHENTICATED, OrgStatus.INCOMPATIBLE}


def throughput(
    root: FederationRoot,
    running: Running,
    questions: list[str],
    seconds: float,
    processes: NodeProcesses | None = None,
) -> dict[str, Any]:
    """Every demo user in their own thread asking ``root`` the questions in turn (each from its own offset) for
    ``seconds``; ``processes`` (the node processes behind ``root``, if any) to count their CPU."""
    users = [user.subject for user in DEMO_USERS]
    tokens = {subject: running.token(subject) for subject in users}
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    lock = threading.Lock()
    load = load_average()
    deadline = time.monotonic() + seconds

    def work(offset: int, subject: str) -> None:
        done = offset
        while time.monotonic() < deadline:
            question = questions[done % len(questions)]
            done += 1
            started = time.perf_counter()
            try:
                result = root.search(question, tokens[subject], k=10, mode="hybrid")
            except Exception as exc:
                with lock:
                    errors[f"exception {type(exc).__name__}"] += 1
                continue
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                for org in result.orgs:
                    statuses[org.status.value] += 1
                    if org.status in BAD:
                        errors[f"{org.org.org} {org.status.value}"] += 1
                    if org.response is not None and org.response.errors:
                        errors[f"{org.org.org} leaf error"] += len(org.response.errors)

    node_cpu = processes.cpu_seconds() if processes is not None else {}
    started, used = time.perf_counter(), time.process_time()
    threads = [threading.Thread(target=work, args=(i * 5, subject)) for i, subject in enumerate(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, used = time.perf_counter() - started, time.process_time() - used
    nodes_used = sum(processes.cpu_seconds().values()) - sum(node_cpu.values()) if processes is not None else 0.0
    return {
        "users": users,
        "concurrent": len(users),
        "seconds": round(elapsed, 1),
        "load_average_at_start": load,
        "load_average_at_end": load_average(),
        "requests": len(latencies),
        "requests_per_second": round(len(latencies) / elapsed, 2),
        "latency_ms": ms(latencies),
        "process_cpu_ms_per_request": round(used / max(len(latencies), 1) * 1000, 1),
        "cores_this_process_got": round(used / elapsed, 2),
        "cores_the_node_processes_got": round(nodes_used / elapsed, 2),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "org_statuses": dict(statuses),
        "zero_errors": not errors,
    }
