"""Ranking maths: hand-computed examples, brute-force references and hypothesis properties."""

from __future__ import annotations

import doctest
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from clinrag.retrieve import fusion
from clinrag.retrieve.fusion import (
    apply_threshold,
    merge_top_k,
    min_max_normalise,
    mmr,
    reciprocal_rank_fusion,
    weighted_score_fusion,
)

IDS = st.sampled_from(list("abcdefghij"))
RANKING = st.lists(IDS, max_size=12)
RANKINGS = st.lists(RANKING, min_size=1, max_size=5)
WEIGHT = st.floats(min_value=0.01, max_value=10.0, allow_nan=False, allow_infinity=False)
RRF_K = st.integers(min_value=0, max_value=200)
SCORE = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0]),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
)
RESULTS = st.lists(st.tuples(IDS, SCORE), max_size=10)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(fusion, extraglobs={"np": np})
    assert outcome.attempted > 0
    assert outcome.failed == 0


# --- reciprocal rank fusion: hand-computed examples ---------------------------------------------------------------


def test_rrf_of_two_rankings_by_hand() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    # a and b tie exactly (fsum is order independent) and share best rank 1, so the id decides.
    assert fused["a"] == fused["b"]
    assert [doc for doc, _ in reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]])] == ["a", "b", "c"]


def test_rrf_weights_change_the_winner() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "a"]], weights=[1.0, 2.0], k=60)
    assert [doc for doc, _ in fused] == ["b", "a"]
    assert fused[0][1] == pytest.approx(1 / 62 + 2 / 61)
    assert fused[1][1] == pytest.approx(1 / 61 + 2 / 62)


def test_rrf_small_k_sharpens_rank_differences() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"]], k=0))
    assert fused == {"a": 1.0, "b": 0.5, "c": pytest.approx(1 / 3)}


def test_rrf_ties_broken_by_best_single_rank_then_id() -> None:
    # y and z tie exactly (1/61 + 1/62 each) and share best rank 1, so the id decides; x is behind.
    assert [doc for doc, _ in reciprocal_rank_fusion([["z", "y"], ["y", "z"], ["x"]], k=60)] == ["y", "z", "x"]
    # With k=0, q (rank 1 once) and p (rank 2 twice) both score 1.0; q's best rank wins although "p" < "q".
    tie = reciprocal_rank_fusion([["q"], ["s", "p"], ["t", "p"]], k=0)
    assert tie == [("q", 1.0), ("s", 1.0), ("t", 1.0), ("p", 1.0)]


def test_rrf_duplicates_in_one_ranking_count_once_at_first_position() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "a", "a"]], k=60))
    assert fused == {"a": pytest.approx(1 / 61), "b": pytest.approx(1 / 62)}


def test_rrf_limit_and_empty_inputs() -> None:
    assert reciprocal_rank_fusion([["a", "b", "c"]], limit=2) == reciprocal_rank_fusion([["a", "b", "c"]])[:2]
    assert reciprocal_rank_fusion([["a"]], limit=0) == []
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion([[], []]) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": [1.0]}, "expected 2 weights"),
        ({"weights": [1.0, -1.0]}, "negative"),
        ({"weights": [1.0, math.nan]}, "finite"),
        ({"k": -1}, "k must not be negative"),
        ({"limit": -1}, "limit must not be negative"),
    ],
)
def test_rrf_rejects_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        reciprocal_rank_fusion([["a"], ["b"]], **kwargs)


# --- reciprocal rank fusion: properties ---------------------------------------------------------------------------


def _rrf_reference(rankings: Sequence[Sequence[str]], weights: Sequence[float], k: int) -> dict[str, float]:
    scores: dict[str, float] = {}
    for weight, ranking in zip(weights, rankings, strict=True):
        seen: set[str] = set()
        for index, doc in enumerate(ranking):
            if doc not in seen:
                seen.add(doc)
                scores[doc] = scores.get(doc, 0.0) + weight / (k + index + 1)
    return scores


@settings(max_examples=300, deadline=None)
@given(data=st.data(), rankings=RANKINGS, k=RRF_K)
def test_rrf_matches_brute_force_and_scores_are_bounded(data: st.DataObject, rankings: list[list[str]], k: int) -> None:
    weights = data.draw(st.lists(WEIGHT, min_size=len(rankings), max_size=len(rankings)))
    fused = reciprocal_rank_fusion(rankings, weights=weights, k=k)
    reference = _rrf_reference(rankings, weights, k)
    assert {doc for doc, _ in fused} == set(reference)
    upper = sum(weights) / (k + 1)
    for doc, score in fused:
        assert score == pytest.approx(reference[doc], rel=1e-12)
        assert 0 < score <= upper * (1 + 1e-12)
    assert [score for _, score in fused] == sorted((score for _, score in fused), reverse=True)


@settings(max_examples=200, deadline=None)
@given(rankings=RANKINGS, k=RRF_K)
def test_rrf_output_ids_are_exactly_the_union_without_repeats(rankings: list[list[str]], k: int) -> None:
    ids = [doc for doc, _ in reciprocal_rank_fusion(rankings, k=k)]
    assert len(ids) == len(set(ids))
    assert set(ids) == {doc for ranking in rankings for doc in ranking}


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rankings=RANKINGS, k=RRF_K)
def test_rrf_id_first_everywhere_is_fused_first(data: st.DataObject, rankings: list[list[str]], k: int) -> None:
    weights = data.draw(st.lists(WEIGHT, min_size=len(rankings), max_size=len(rankings)))
    leading = [["TOP", *ranking] for ranking in rankings]
    fused = reciprocal_rank_fusion(leading, weights=weights, k=k)
    assert fused[0][0] == "TOP"
    assert all(score < fused[0][1] for _, score in fused[1:])


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rankings=RANKINGS, k=RRF_K, weight=WEIGHT)
def test_rrf_invariant_to_ranking_order_with_equal_weights(
    data: st.DataObject, rankings: list[list[str]], k: int, weight: float
) -> None:
    order = data.draw(st.permutations(range(len(rankings))))
    shuffled = [rankings[i] for i in order]
    equal = [weight] * len(rankings)
    assert reciprocal_rank_fusion(shuffled, weights=equal, k=k) == reciprocal_rank_fusion(rankings, weights=equal, k=k)
    assert reciprocal_rank_fusion(shuffled, k=k) == reciprocal_rank_fusion(rankings, k=k)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rankings=RANKINGS, k=RRF_K)
def test_rrf_invariant_to_ranking_order_when_weights_move_along(
    data: st.DataObject, rankings: list[list[str]], k: int
) -> None:
    weights = data.draw(st.lists(WEIGHT, min_size=len(rankings), max_size=len(rankings)))
    order = data.draw(st.permutations(range(len(rankings))))
    fused = reciprocal_rank_fusion([rankings[i] for i in order], weights=[weights[i] for i in order], k=k)
    assert fused == reciprocal_rank_fusion(rankings, weights=weights, k=k)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rankings=RANKINGS, k=RRF_K, extra_weight=WEIGHT)
def test_rrf_adding_an_empty_ranking_changes_nothing(
    data: st.DataObject, rankings: list[list[str]], k: int, extra_weight: float
) -> None:
    weights = data.draw(st.lists(WEIGHT, min_size=len(rankings), max_size=len(rankings)))
    at = data.draw(st.integers(min_value=0, max_value=len(rankings)))
    more = [*rankings[:at], [], *rankings[at:]]
    more_weights = [*weights[:at], extra_weight, *weights[at:]]
    assert reciprocal_rank_fusion(more, weights=more_weights, k=k) == reciprocal_rank_fusion(
        rankings, weights=weights, k=k
    )


@settings(max_examples=100, deadline=None)
@given(rankings=RANKINGS, limit=st.integers(min_value=0, max_value=15))
def test_rrf_limit_is_a_prefix(rankings: list[list[str]], limit: int) -> None:
    assert reciprocal_rank_fusion(rankings, limit=limit) == reciprocal_rank_fusion(rankings)[:limit]


# --- MMR ----------------------------------------------------------------------------------------------------------


def _unit(vector: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


def test_mmr_prefers_a_diverse_second_pick_over_a_near_duplicate() -> None:
    query = np.array([1.0, 0.0])
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    assert mmr(query, vectors, lambda_=0.4, k=3) == [0, 2, 1]
    assert mmr(query, vectors, lambda_=1.0, k=3) == [0, 1, 2]


def test_mmr_by_hand_with_given_relevance() -> None:
    # Candidates 0 and 1 are identical; 2 is orthogonal to both. Relevance 0.9, 0.8, 0.3.
    vectors = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])
    # Step 2 with lambda 0.7: cand 1 -> 0.7*0.8 - 0.3*1 = 0.26; cand 2 -> 0.7*0.3 - 0 = 0.21 -> 1 wins.
    assert mmr(np.zeros(2), vectors, relevance=[0.9, 0.8, 0.3], lambda_=0.7, k=2) == [0, 1]
    # With lambda 0.5: cand 1 -> 0.4 - 0.5 = -0.1; cand 2 -> 0.15 -> 2 wins.
    assert mmr(np.zeros(2), vectors, relevance=[0.9, 0.8, 0.3], lambda_=0.5, k=2) == [0, 2]


def test_mmr_edge_cases() -> None:
    query = np.array([1.0, 0.0])
    assert mmr(query, np.empty((0, 2)), k=5) == []
    assert mmr(query, np.array([]), k=5) == []
    assert mmr(query, np.array([[0.0, 1.0], [1.0, 0.0]]), k=10) == [1, 0]
    assert mmr(query, np.array([[0.0, 1.0], [1.0, 0.0]]), k=0) == []
    assert mmr(query, np.zeros((3, 2)), k=3) == [0, 1, 2]  # zero vectors: all irrelevant, order by index
    assert mmr(query, np.ones((4, 2), dtype=np.float32), k=4) == [0, 1, 2, 3]  # all duplicates


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((np.array([1.0, 0.0]), np.array([[1.0, 0.0]])), {"lambda_": 1.5}, "lambda_"),
        ((np.array([1.0, 0.0]), np.array([1.0, 0.0])), {}, "2-D"),
        ((np.array([1.0, 0.0, 0.0]), np.array([[1.0, 0.0]])), {}, "query must have shape"),
        ((np.array([1.0, 0.0]), np.array([[1.0, 0.0]])), {"relevance": [0.1, 0.2]}, "expected 1 relevance"),
        ((np.array([1.0, 0.0]), np.array([[1.0, 0.0]])), {"relevance": [math.inf]}, "finite"),
        ((np.array([1.0, 0.0]), np.array([[math.nan, 0.0]])), {}, "candidate vectors must be finite"),
        ((np.array([math.inf, 0.0]), np.array([[1.0, 0.0]])), {}, "query vector must be finite"),
    ],
)
def test_mmr_rejects_bad_arguments(args: tuple[Any, ...], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mmr(*args, **kwargs)


@st.composite
def _mmr_inputs(draw: st.DrawFn) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A query and candidates with small integer coordinates, so duplicates and exact ties are common."""
    dim = draw(st.integers(min_value=1, max_value=4))
    count = draw(st.integers(min_value=0, max_value=12))
    coordinates = st.integers(min_value=-2, max_value=2).map(float)
    query = draw(hnp.arrays(np.float64, (dim,), elements=coordinates))
    candidates = draw(hnp.arrays(np.float64, (count, dim), elements=coordinates))
    return query, candidates


LAMBDA = st.floats(min_value=0.0, max_value=1.0)
MMR_K = st.integers(min_value=0, max_value=15)


@settings(max_examples=300, deadline=None)
@given(inputs=_mmr_inputs(), lambda_=LAMBDA, k=MMR_K)
def test_mmr_distinct_indices_and_min_k_n_of_them(
    inputs: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], lambda_: float, k: int
) -> None:
    query, candidates = inputs
    picked = mmr(query, candidates, lambda_=lambda_, k=k)
    assert len(picked) == min(k, len(candidates))
    assert len(set(picked)) == len(picked)
    assert all(isinstance(index, int) and 0 <= index < len(candidates) for index in picked)


@settings(max_examples=300, deadline=None)
@given(inputs=_mmr_inputs(), lambda_=LAMBDA, k=st.integers(min_value=1, max_value=15))
def test_mmr_first_pick_is_the_most_relevant(
    inputs: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], lambda_: float, k: int
) -> None:
    query, candidates = inputs
    if len(candidates) == 0:
        return
    cosines = [float(_unit(row) @ _unit(query)) for row in candidates]
    first = mmr(query, candidates, lambda_=lambda_, k=k)[0]
    assert cosines[first] >= max(cosines) - 1e-9


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    inputs=_mmr_inputs(),
    lambda_=LAMBDA,
    k=st.integers(min_value=1, max_value=15),
)
def test_mmr_first_pick_is_the_most_relevant_given_relevance(
    data: st.DataObject, inputs: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], lambda_: float, k: int
) -> None:
    query, candidates = inputs
    relevance = data.draw(st.lists(SCORE, min_size=len(candidates), max_size=len(candidates)))
    picked = mmr(query, candidates, relevance=relevance, lambda_=lambda_, k=k)
    if relevance:
        assert picked[0] == int(np.argmax(relevance))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), inputs=_mmr_inputs(), k=MMR_K)
def test_mmr_with_lambda_one_is_the_stable_relevance_order(
    data: st.DataObject, inputs: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], k: int
) -> None:
    query, candidates = inputs
    relevance = data.draw(st.lists(SCORE, min_size=len(candidates), max_size=len(candidates)))
    expected = np.argsort(-np.asarray(relevance, dtype=np.float64), kind="stable")[:k].tolist()
    assert mmr(query, candidates, relevance=relevance, lambda_=1.0, k=k) == expected


@settings(max_examples=100, deadline=None)
@given(inputs=_mmr_inputs(), lambda_=LAMBDA, k=MMR_K)
def test_mmr_is_deterministic_and_prefix_consistent(
    inputs: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], lambda_: float, k: int
) -> None:
    query, candidates = inputs
    picked = mmr(query, candidates, lambda_=lambda_, k=k)
    assert picked == mmr(query.copy(), candidates.copy(), lambda_=lambda_, k=k)
    assert mmr(query, candidates, lambda_=lambda_, k=max(0, k - 1)) == picked[: max(0, k - 1)]


# --- min-max and weighted score fusion ----------------------------------------------------------------------------


def test_min_max_normalise_by_hand() -> None:
    assert min_max_normalise([]) == []
    assert min_max_normalise([3.0]) == [1.0]
    assert min_max_normalise([2.0, 2.0]) == [1.0, 1.0]
    assert min_max_normalise([-1.0, 0.0, 3.0]) == [0.0, 0.25, 1.0]
    assert min_max_normalise([-1e308, 1e308, 0.0]) == [0.0, 1.0, 0.5]
    with pytest.raises(ValueError, match="finite"):
        min_max_normalise([1.0, math.nan])


@settings(max_examples=300, deadline=None)
@given(scores=st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=20))
def test_min_max_normalise_properties(scores: list[float]) -> None:
    normalised = min_max_normalise(scores)
    assert len(normalised) == len(scores)
    assert all(0.0 <= value <= 1.0 for value in normalised)
    if scores and min(scores) < max(scores):
        assert normalised[scores.index(min(scores))] == 0.0
        assert normalised[scores.index(max(scores))] == 1.0
    for (a, na), (b, nb) in zip(
        sorted(zip(scores, normalised, strict=True)), sorted(zip(scores, normalised, strict=True))[1:], strict=False
    ):
        assert a <= b
        assert na <= nb  # order preserved (ties may merge)


def test_weighted_score_fusion_by_hand() -> None:
    fused = weighted_score_fusion([{"a": 10.0, "b": 5.0, "c": 0.0}, {"b": 0.9, "d": 0.1}], weights=[1.0, 2.0])
    # list 1 -> a 1.0, b 0.5, c 0.0; list 2 -> b 1.0, d 0.0; b = 0.5 + 2 = 2.5.
    assert fused == [("b", 2.5), ("a", 1.0), ("c", 0.0), ("d", 0.0)]
    assert weighted_score_fusion([], weights=[]) == []
    with pytest.raises(ValueError, match="expected 1 weights"):
        weighted_score_fusion([{"a": 1.0}], weights=[])


SCORE_MAP = st.dictionaries(IDS, SCORE, max_size=8)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), score_lists=st.lists(SCORE_MAP, max_size=4))
def test_weighted_score_fusion_matches_brute_force(data: st.DataObject, score_lists: list[dict[str, float]]) -> None:
    weights = data.draw(st.lists(WEIGHT, min_size=len(score_lists), max_size=len(score_lists)))
    fused = weighted_score_fusion(score_lists, weights)
    reference: dict[str, float] = {}
    for weight, scores in zip(weights, score_lists, strict=True):
        low, high = (min(scores.values()), max(scores.values())) if scores else (0.0, 0.0)
        for doc, score in scores.items():
            normalised = 1.0 if low == high else (score - low) / (high - low)
            reference[doc] = reference.get(doc, 0.0) + weight * normalised
    assert fused == sorted(fused, key=lambda item: (-item[1], item[0]))
    assert set(dict(fused)) == set(reference)
    for doc, score in fused:
        assert score == pytest.approx(reference[doc], rel=1e-9, abs=1e-12)


# --- global merge and threshold -----------------------------------------------------------------------------------


def _merge_reference(result_lists: Sequence[Sequence[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    concatenated = [item for results in result_lists for item in results]
    best = {doc: max(score for other, score in concatenated if other == doc) for doc, _ in concatenated}
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]


def test_merge_top_k_by_hand() -> None:
    leaf_a = [("n1", 0.9), ("n2", 0.7), ("n3", 0.1)]
    leaf_b = [("n2", 0.8), ("n4", 0.7)]
    assert merge_top_k([leaf_a, leaf_b], k=3) == [("n1", 0.9), ("n2", 0.8), ("n4", 0.7)]
    assert merge_top_k([leaf_a, leaf_b], k=0) == []
    assert merge_top_k([], k=3) == []
    with pytest.raises(ValueError, match="k must not be negative"):
        merge_top_k([leaf_a], k=-1)
    with pytest.raises(ValueError, match="finite"):
        merge_top_k([[("x", math.nan)]], k=1)


@settings(max_examples=300, deadline=None)
@given(result_lists=st.lists(RESULTS, max_size=5), k=st.integers(min_value=0, max_value=12))
def test_merge_top_k_equals_brute_force(result_lists: list[list[tuple[str, float]]], k: int) -> None:
    merged = merge_top_k(result_lists, k)
    assert merged == _merge_reference(result_lists, k)
    assert len(merged) <= k
    assert len({doc for doc, _ in merged}) == len(merged)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), result_lists=st.lists(RESULTS, max_size=5), k=st.integers(min_value=0, max_value=12))
def test_merge_top_k_does_not_depend_on_list_order(
    data: st.DataObject, result_lists: list[list[tuple[str, float]]], k: int
) -> None:
    order = data.draw(st.permutations(range(len(result_lists))))
    assert merge_top_k([result_lists[i] for i in order], k) == merge_top_k(result_lists, k)


def test_apply_threshold_by_hand() -> None:
    results = [("a", 0.8), ("b", 0.3), ("c", 0.5)]
    assert apply_threshold(results, 0.5) == [("a", 0.8), ("c", 0.5)]
    assert apply_threshold(results, None) == results
    assert apply_threshold(results, 0.9) == []
    with pytest.raises(ValueError, match="threshold"):
        apply_threshold(results, math.nan)


@settings(max_examples=300, deadline=None)
@given(results=RESULTS, threshold=st.one_of(st.none(), SCORE))
def test_apply_threshold_keeps_exactly_the_items_at_or_above(
    results: list[tuple[str, float]], threshold: float | None
) -> None:
    kept = apply_threshold(results, threshold)
    if threshold is None:
        assert kept == results
    else:
        assert kept == [item for item in results if item[1] >= threshold]
        assert all(score >= threshold for _, score in kept)
        assert len(results) - len(kept) == sum(score < threshold for _, score in results)
