"""What the differential tests against medcalc-bench share: random cases compared exactly, except those a known
medcalc-bench error touches, which are counted by reason."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from clinrag.calculators.spec import Calculator

CASES = 200
Case = dict[str, Any]


def value(calculator: Calculator, inputs: Mapping[str, object]) -> float:
    """The calculator's value, failing the test on missing inputs."""
    result = calculator.run(inputs)
    assert result.value is not None, result.missing
    return result.value


def compare(
    calculator: Calculator,
    draw: Callable[[random.Random], Case],
    medcalc: Callable[[Case], float],
    known: Mapping[str, Callable[[Case], bool]],
    *,
    seed: int,
    at_least: int,
    tolerance: float = 0.0,
) -> dict[str, int]:
    """Compare ``CASES`` random cases exactly, except those a known medcalc error touches (counted by reason);
    at least ``at_least`` must be compared. Returns the counts."""
    rng = random.Random(seed)
    counts = {"compared": 0} | dict.fromkeys(known, 0)
    for _ in range(CASES):
        case = draw(rng)
        reasons = [reason for reason, touches in known.items() if touches(case)]
        if reasons:
            for reason in reasons:
                counts[reason] += 1
            continue
        ours, theirs = value(calculator, case), medcalc(case)
        assert math.isclose(ours, theirs, abs_tol=tolerance), (case, ours, theirs)
        counts["compared"] += 1
    assert counts["compared"] >= at_least, counts
    return counts
