"""Calibrating the retriever's relevance threshold from measured dense cosines.

RRF scores are rank-based, so the threshold applies to each hit's dense cosine with the question. It is chosen
as the largest value (on a 0.01 grid) that still keeps a given share (default 99 %) of the relevant hits the
retriever found; the report then says what that threshold removes: irrelevant hits among the top k, and hits of
off-topic questions, which should come back empty.

Example:
    >>> found = calibrate_threshold(relevant=[0.5, 0.6, 0.7], irrelevant=[0.1, 0.55], off_topic=[0.05], keep=1.0)
    >>> found.threshold, found.relevant_kept, found.irrelevant_dropped, found.off_topic_dropped
    (0.5, 1.0, 0.5, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

OFF_TOPIC_QUESTIONS: Final[tuple[str, ...]] = (
    "What is the capital of France?",
    "How do I reset my router password?",
    "Who won the football world cup in 2014?",
    "What is a good recipe for banana bread?",
    "How many moons does Jupiter have?",
    "Translate 'good morning' into Spanish.",
    "What time does the train to Boston leave?",
    "Explain the rules of chess.",
    "What is the stock price of a large software company?",
    "Write a poem about the ocean.",
    "How do I change a flat bicycle tyre?",
    "Which programming language is best for web development?",
    "What is the plot of Hamlet?",
    "How tall is Mount Everest?",
    "Recommend a holiday destination in Italy.",
    "What is the exchange rate between the euro and the dollar?",
    "How do plants perform photosynthesis?",
    "Who painted the Mona Lisa?",
    "What is the weather forecast for tomorrow?",
    "How do I file my income tax return?",
)
"""Questions a clinical record cannot answer at all; their hits should fall below the threshold."""

GRID: Final = 100  # thresholds are multiples of 1 / GRID


@dataclass(frozen=True)
class ThresholdCalibration:
    """A chosen threshold and what it keeps and drops, as shares of the hits measured."""

    threshold: float
    keep_target: float
    relevant_kept: float
    irrelevant_dropped: float
    off_topic_dropped: float
    relevant_hits: int
    irrelevant_hits: int
    off_topic_hits: int


def _share(values: Sequence[float], keep: bool, threshold: float) -> float:
    if not values:
        return 0.0
    return sum((value >= threshold) == keep for value in values) / len(values)


def calibrate_threshold(
    relevant: Sequence[float], irrelevant: Sequence[float], off_topic: Sequence[float], keep: float = 0.99
) -> ThresholdCalibration:
    """The largest grid threshold keeping at least ``keep`` of the ``relevant`` cosines (0 when there are none).

    Example:
        >>> calibrate_threshold([0.3] * 99 + [0.1], [], [], keep=0.99).threshold
        0.3
    """
    if not 0 < keep <= 1:
        raise ValueError(f"keep must be in (0, 1], got {keep}")
    threshold = 0.0
    if relevant:
        ordered = sorted(relevant)
        allowed_losses = math.floor(len(ordered) * (1 - keep) + 1e-9)
        threshold = math.floor(ordered[allowed_losses] * GRID) / GRID
    return ThresholdCalibration(
        threshold=threshold,
        keep_target=keep,
        relevant_kept=_share(relevant, True, threshold),
        irrelevant_dropped=_share(irrelevant, False, threshold),
        off_topic_dropped=_share(off_topic, False, threshold),
        relevant_hits=len(relevant),
        irrelevant_hits=len(irrelevant),
        off_topic_hits=len(off_topic),
    )
