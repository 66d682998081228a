"""Threshold calibration: the largest grid value keeping the asked share of relevant cosines."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.evaluate import threshold
from clinrag.evaluate.threshold import GRID, OFF_TOPIC_QUESTIONS, calibrate_threshold

cosines = st.lists(st.floats(min_value=-1, max_value=1, allow_nan=False), max_size=300)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(threshold)
    assert outcome.attempted > 0
    assert outcome.failed == 0


@settings(deadline=None)  # no per-example time limit: a loaded machine may pause any example
@given(cosines, cosines, st.sampled_from([0.9, 0.95, 0.99, 1.0]))
def test_the_threshold_keeps_at_least_the_target_share(relevant: list[float], off: list[float], keep: float) -> None:
    found = calibrate_threshold(relevant, [], off, keep=keep)
    if relevant:
        assert found.relevant_kept >= keep - 1e-9
        assert round(found.threshold * GRID, 6) == round(found.threshold * GRID)
        assert 0 <= found.off_topic_dropped <= 1


def test_a_clean_separation_drops_all_off_topic_hits() -> None:
    found = calibrate_threshold([0.4, 0.5, 0.8], [0.35, 0.2], [0.1, 0.15, 0.39], keep=1.0)
    assert found.threshold == 0.4
    assert found.off_topic_dropped == 1.0
    assert found.irrelevant_dropped == 1.0
    assert (found.relevant_hits, found.irrelevant_hits, found.off_topic_hits) == (3, 2, 3)


def test_nothing_relevant_means_no_threshold() -> None:
    assert calibrate_threshold([], [0.5], [0.2]).threshold == 0.0


def test_keep_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match="keep"):
        calibrate_threshold([0.5], [], [], keep=0)


def test_off_topic_questions_are_distinct_and_clinically_empty() -> None:
    assert len(set(OFF_TOPIC_QUESTIONS)) == len(OFF_TOPIC_QUESTIONS) >= 20
