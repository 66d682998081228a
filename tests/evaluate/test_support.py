"""Support-threshold calibration on claims built from the gold facts."""

from __future__ import annotations

import doctest
from pathlib import Path

from clinrag.evaluate import support
from clinrag.evaluate.retrieval_gold import Cohort
from clinrag.evaluate.support import best_threshold, calibrate_support, claim_pairs
from clinrag.ingest.chunkstore import ChunkStore


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(support)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_a_perfect_separation_is_found() -> None:
    found = best_threshold([0.8, 0.9], [0.1, 0.3])
    assert (found.true_positive_rate, found.false_positive_rate) == (1.0, 0.0)
    assert 0.3 < found.threshold <= 0.8


def test_claims_are_supported_by_their_chunk_more_than_by_another_patients(cohort: Path, node_c: Path) -> None:
    with ChunkStore.open(node_c / "chunks.sqlite") as store:
        chunks = list(store.chunks(source_kind="note"))
    pairs = claim_pairs(Cohort.load(cohort), chunks, seed=1, limit=60)
    assert len(pairs) >= 20
    for claim, stating, other in pairs:
        assert stating.subject_id != other.subject_id
        assert stating.section == other.section
        assert claim.endswith(".")
    found = calibrate_support(pairs, embedder=None)
    assert found.true_positive_rate - found.false_positive_rate >= 0.5
