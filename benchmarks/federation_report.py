"""The JSON of ``bench_federation.py``: the closing figures and the note, written to
``benchmarks/results/federation.json`` after every step, ``federation-partial.json`` after a subset."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from common import write
from federation_stats import load_average

ALL_STEPS = frozenset({1, 2, 3, 4, 5})
NOTE = (
    "nodes_in_threads: 3 identity providers, every node app (uvicorn in threads), the root and the clients share "
    "one process and one GIL; nodes_as_processes: each node is its own 'clinrag node serve' process, the "
    "providers, the root and the clients stay in this process; both share the machine's 2 cores with each other "
    "and with whatever else runs (see the load averages). The root embeds each question once and sends the "
    "vector; a node embeds again only a text it changes (a named patient's question without the name), as the "
    "centralised index does. The centralised index has one leaf per department across hospitals and reuses the "
    "hospitals' stored vectors"
)


def result_name(steps: set[int]) -> str:
    """The results file's name (without ``.json``) for a run of ``steps``."""
    return "federation" if steps == ALL_STEPS else "federation-partial"


def write_results(results: dict[str, Any], steps: set[int], began: float) -> Path:
    """Add the load average at the end, the benchmark's seconds since ``began`` (``time.perf_counter``) and the note
    to ``results``, and write them (see ``common.write``)."""
    results["load_average_at_end"] = load_average()
    results["benchmark_seconds"] = round(time.perf_counter() - began, 1)
    results["note"] = NOTE
    return write(result_name(steps), results)
