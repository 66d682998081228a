"""The statistics of ``bench_federation.py``: latency percentiles in milliseconds and the machine's load average."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages, rounded to 2 decimals."""
    return [round(value, 2) for value in os.getloadavg()]


def ms(values: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean in milliseconds of ``values`` (seconds), and their count; empty when there are none."""
    if not values:
        return {}
    array = np.asarray(values) * 1000
    return {
        "p50": round(float(np.percentile(array, 50)), 1),
        "p95": round(float(np.percentile(array, 95)), 1),
        "mean": round(float(array.mean()), 1),
        "n": len(values),
    }
