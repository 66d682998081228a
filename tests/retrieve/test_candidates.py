"""Candidate lists on the wire: a node sends the chunks of only the candidates that can reach the top k
(`reachable`), the rest as scores alone, and the merged ranking is exactly the one every chunk would give."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.index.store import Mode, StoreHit
from clinrag.retrieve import candidates as candidates_module
from clinrag.retrieve.candidates import (
    Candidates,
    candidate_hits,
    candidates_from_hits,
    merge_candidates,
    rank_candidates,
    reachable,
)
from clinrag.settings import RetrieveSettings
from clinrag.types import Chunk, Hit

LIST_NAMES = ("dense", "bm25", "dense@section", "bm25@section")
CHUNKS = [Chunk.create(source_id=f"note:{n}", text=f"passage {n}", org="A", dept="medicine") for n in range(60)]
# Few distinct values, so that equal scores (ties) and equal cosines are common.
SCORES = st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 2.5, 4.0])
COSINES = st.sampled_from([-0.2, 0.0, 0.05, 0.1, 0.3, 0.6])


def test_docstring_examples_run() -> None:
    assert doctest.testmod(candidates_module).failed == 0


@st.composite
def node_candidates(draw: st.DrawFn, chunks: list[Chunk]) -> Candidates:
    """One node's candidates: each list a random subset of its chunks with random scores, best first (by score,
    then id, as `merge_candidates` leaves them)."""
    names = draw(st.lists(st.sampled_from(LIST_NAMES), min_size=1, max_size=4, unique=True))
    lists: dict[str, list[tuple[str, float]]] = {}
    for name in names:
        members = draw(st.lists(st.sampled_from(chunks), max_size=len(chunks), unique_by=lambda c: c.chunk_id))
        ranked = [(chunk.chunk_id, draw(SCORES)) for chunk in members]
        lists[name] = sorted(ranked, key=lambda item: (-item[1], item[0]))
    listed = {cid for ranked in lists.values() for cid, _ in ranked}
    found = {c.chunk_id: StoreHit(c, 0.0, draw(COSINES)) for c in chunks if c.chunk_id in listed}
    return Candidates(lists, found)


@st.composite
def federations(draw: st.DrawFn) -> list[Candidates]:
    """Two to four nodes, each with its own chunks."""
    count = draw(st.integers(2, 4))
    size = len(CHUNKS) // count
    return [draw(node_candidates(CHUNKS[n * size : (n + 1) * size])) for n in range(count)]


def _over_the_wire(part: Candidates, bodies: set[str] | None) -> Candidates:
    hits, ranked_only = candidate_hits(part, bodies)
    return candidates_from_hits(hits, None, ranked_only)


def _ranking(hits: list[Hit]) -> list[tuple[str, float, int, dict[str, float]]]:
    return [(hit.chunk.chunk_id, hit.score, hit.rank, hit.scores) for hit in hits]


@settings(max_examples=400, deadline=None)
@given(
    parts=federations(),
    mode=st.sampled_from(["dense", "bm25", "hybrid"]),
    k=st.integers(1, 12),
    fetch_k=st.integers(1, 30),
    threshold=st.sampled_from([None, 0.0, 0.1, 0.3]),
    weights=st.tuples(*[st.sampled_from([0.0, 0.5, 1.0, 2.0])] * 3),
)
def test_pruned_candidates_rank_exactly_like_all_of_them(
    parts: list[Candidates],
    mode: Mode,
    k: int,
    fetch_k: int,
    threshold: float | None,
    weights: tuple[float, float, float],
) -> None:
    chosen = RetrieveSettings(
        score_threshold=threshold, dense_weight=weights[0], bm25_weight=weights[1], section_weight=weights[2]
    )
    whole = merge_candidates([_over_the_wire(part, None) for part in parts], fetch_k)
    pruned_parts = [_over_the_wire(part, reachable(part, mode, chosen, k)) for part in parts]
    pruned = merge_candidates(pruned_parts, fetch_k)
    expected, expected_dropped = rank_candidates(whole, mode, chosen, k)
    got, dropped = rank_candidates(pruned, mode, chosen, k)
    assert _ranking(got) == _ranking(expected)
    assert dropped == expected_dropped
    assert pruned.lists == whole.lists  # every rank is kept, with or without the chunk


@settings(max_examples=200, deadline=None)
@given(part=node_candidates(CHUNKS[:30]), k=st.integers(1, 12))
def test_at_most_k_candidates_are_reachable_from_one_list(part: Candidates, k: int) -> None:
    chosen = RetrieveSettings(score_threshold=None)
    for mode in ("dense", "bm25"):
        expected = {cid for cid, _ in part.lists.get(mode, [])[:k]}
        assert reachable(part, mode, chosen, k) == expected
    assert reachable(part, "hybrid-mmr", chosen, k) == set(part.found)  # MMR may pick any candidate


def test_a_candidate_below_the_threshold_is_never_sent_with_its_chunk() -> None:
    low, high = CHUNKS[0], CHUNKS[1]
    part = Candidates(
        {"dense": [(low.chunk_id, 0.9), (high.chunk_id, 0.8)]},
        {low.chunk_id: StoreHit(low, 0.9, 0.05), high.chunk_id: StoreHit(high, 0.8, 0.8)},
    )
    assert reachable(part, "dense", RetrieveSettings(score_threshold=0.1), k=5) == {high.chunk_id}


def test_a_chunkless_candidate_in_the_top_k_is_left_out_not_shown_without_text() -> None:
    """A node in error could list, without its chunk, a candidate that does rank in the top k."""
    first, second = CHUNKS[0], CHUNKS[1]
    part = Candidates(
        {"dense": [(first.chunk_id, 0.9), (second.chunk_id, 0.8)]},
        {second.chunk_id: StoreHit(second, 0.8, 0.8)},
        ranked_only={first.chunk_id: 0.9},
    )
    hits, dropped = rank_candidates(part, "dense", RetrieveSettings(score_threshold=None), k=2)
    assert [hit.chunk.chunk_id for hit in hits] == [second.chunk_id]
    assert hits[0].rank == 1
    assert dropped == 0


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_large_candidate_set_is_pruned_in_blocks(mode: Mode) -> None:
    """More candidates than one comparison block: the blocks together give the same answer as the lists say."""
    ids = [f"c{n:04d}" for n in range(600)]
    lists = {"dense": [(cid, 1.0 - n / 1000) for n, cid in enumerate(ids)]}
    lists["bm25"] = [(cid, 1.0 - n / 1000) for n, cid in enumerate(reversed(ids))]
    found = {cid: StoreHit(CHUNKS[0], 0.0, 0.5) for cid in ids}
    kept = reachable(Candidates(lists, found), mode, RetrieveSettings(score_threshold=None), k=10)
    if mode == "hybrid":
        assert kept == set(ids)  # in reverse orders no candidate is below another in both lists
    else:
        assert kept == {cid for cid, _ in lists[mode][:10]}


def test_mmr_over_candidates_some_without_chunks_ranks_the_others() -> None:
    """MMR needs every candidate's chunk and vector; a node in error that sends some without is not fatal."""
    first, second = CHUNKS[0], CHUNKS[1]
    vector = np.array([1.0, 0.0], dtype=np.float32)
    part = Candidates(
        {"dense": [(first.chunk_id, 0.9), (second.chunk_id, 0.8)]},
        {second.chunk_id: StoreHit(second, 0.8, 0.8, vector)},
        ranked_only={first.chunk_id: 0.9},
    )
    hits, _ = rank_candidates(part, "hybrid-mmr", RetrieveSettings(score_threshold=None), k=2, query=vector)
    assert [hit.chunk.chunk_id for hit in hits] == [second.chunk_id]
