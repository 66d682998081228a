"""Shared by the benchmark scripts: run a measured step in its own process, record the machine, write JSON."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


_EPILOGUE = """
import json as _json, resource as _resource
_peaks = {
    "peak_rss_mib": round(_resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    "workers_peak_rss_mib": round(_resource.getrusage(_resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
}
print(_json.dumps({**_peaks, **globals().get("RESULT", {})}))
"""


def run_measured(code: str) -> dict[str, Any]:
    """Run ``code`` in a fresh Python process; return its wall time, its own peak RSS, its workers' largest peak
    RSS, and whatever the code left in a ``RESULT`` dict."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code + _EPILOGUE], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"measured step failed:\n{result.stderr[-2000:]}")
    return {"wall_seconds": round(seconds, 3), **json.loads(result.stdout.strip().splitlines()[-1])}


def write(name: str, data: dict[str, Any]) -> Path:
    """Write ``benchmarks/results/NAME.json`` and print it."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "machine": machine(), **data}
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(json.dumps(payload, indent=2))
    return path
