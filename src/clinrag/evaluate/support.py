"""Calibrating the support threshold of citation checks on claims built from the cohort's gold facts.

A claim restates a gold fact in other words ("Betty Henry has essential (primary) hypertension", where the note
says "HTN"). Scored against the chunk that states it, it should be supported; against the same section of
another patient's note, it should not. The threshold that best separates the two (Youden's J on a 0.05 grid) is
the calibrated one.

Example:
    >>> best_threshold([0.9, 0.8, 0.7], [0.1, 0.2, 0.75]).threshold
    0.8
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from clinrag.evaluate.retrieval_gold import ChunkLookup, Cohort, GoldFact
from clinrag.generate.citations import verify
from clinrag.generate.prompts import provenance
from clinrag.index.embed import Embedder
from clinrag.types import Chunk

CLAIMS: Final[dict[str, str]] = {
    "diagnosis": "{name} has {label}.",
    "allergy": "{name} is allergic to {label}.",
    "medication": "{name} was prescribed {label}.",
    "procedure": "{name} underwent {label}.",
    "complication": "{name} developed {label} in hospital.",
}


@dataclass(frozen=True)
class SupportCalibration:
    """The chosen threshold and its true- and false-positive rates, with the rates at other thresholds."""

    threshold: float
    true_positive_rate: float
    false_positive_rate: float
    positives: int
    negatives: int
    at: dict[str, tuple[float, float]]


def _rates(positives: Sequence[float], negatives: Sequence[float], threshold: float) -> tuple[float, float]:
    tpr = sum(p >= threshold for p in positives) / len(positives) if positives else 0.0
    fpr = sum(n >= threshold for n in negatives) / len(negatives) if negatives else 0.0
    return round(tpr, 4), round(fpr, 4)


def best_threshold(positives: Sequence[float], negatives: Sequence[float]) -> SupportCalibration:
    """The grid threshold (0.05 steps) with the largest TPR − FPR; ties go to the higher threshold."""
    grid = [round(step * 0.05, 2) for step in range(1, 20)]
    scored = [(_rates(positives, negatives, t), t) for t in grid]
    (tpr, fpr), threshold = max(scored, key=lambda item: (round(item[0][0] - item[0][1], 4), item[1]))
    return SupportCalibration(
        threshold=threshold,
        true_positive_rate=tpr,
        false_positive_rate=fpr,
        positives=len(positives),
        negatives=len(negatives),
        at={f"{t:.2f}": rates for rates, t in scored},
    )


def claim_pairs(
    cohort: Cohort, chunks: Sequence[Chunk], seed: int = 0, limit: int = 300
) -> list[tuple[str, Chunk, Chunk]]:
    """(claim, chunk stating it, same-section chunk of another patient not stating it), sampled with ``seed``."""
    lookup = ChunkLookup(chunks)
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    by_section: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.section:
            by_section.setdefault(chunk.section, []).append(chunk)
    names = {chunk.subject_id: chunk.patient_name for chunk in chunks if chunk.patient_name}
    rng = random.Random(seed)
    facts: list[GoldFact] = [f for f in cohort.facts if f.kind in CLAIMS and f.label and f.subject_id in names]
    rng.shuffle(facts)
    pairs: list[tuple[str, Chunk, Chunk]] = []
    for fact in facts:
        stating = sorted(lookup.relevant([fact]))
        others = [
            c
            for c in by_section.get(fact.section, [])
            if c.subject_id != fact.subject_id and fact.label.lower() not in c.text.lower() and fact.text not in c.text
        ]
        if not stating or not others:
            continue
        claim = CLAIMS[fact.kind].format(name=names[fact.subject_id], label=fact.label)
        pairs.append((claim, by_id[stating[0]], rng.choice(others)))
        if len(pairs) >= limit:
            break
    return pairs


def support_of(claim: str, chunk: Chunk, embedder: Embedder | None) -> float:
    """The support the answer checker gives ``claim`` citing ``chunk``."""
    checked = verify(f"{claim} [1]", {1: chunk.text}, threshold=0.0, embedder=embedder, headers={1: provenance(chunk)})
    return checked.sentences[0].support if checked.sentences else 0.0


def calibrate_support(pairs: Sequence[tuple[str, Chunk, Chunk]], embedder: Embedder | None) -> SupportCalibration:
    """Score every pair both ways and pick the threshold."""
    positives = [support_of(claim, stating, embedder) for claim, stating, _ in pairs]
    negatives = [support_of(claim, other, embedder) for claim, _, other in pairs]
    return best_threshold(positives, negatives)
