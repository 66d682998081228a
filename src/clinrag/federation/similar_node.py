"""A node's similar patients (``POST /v1/similar``): the asker's query patient's code sets ranked against
this node's patients, only those the asker may retrieve, audited.

The query patient comes as ``sets_of`` (a subject_id of this node: the asker's own hospital, whose visible sets
are read, returned and never in the result) or as ``sets`` (their code sets from the asker's hospital: hospitals
share no patient identifier, so another hospital ranks its own patients against the sets). Which rows count is
decided as for population questions (`population_node.reach`: the tree's gates, then `cedar_may_see` per document
class); a patient with no visible code is not ranked. Each request is one audit line (mode ``similar``): the
SHA-256 of the request, the departments searched and denied, and the patients returned as ids.

Example:
    >>> response = answer_similar(node, actor, SimilarRequest(sets_of=10000032))  # doctest: +SKIP
    >>> [m.subject_id for m in response.matches][:2], response.searched  # doctest: +SKIP
    ([10000084, 10000117], ['A/admissions'])
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import numpy as np

from clinrag.federation.audit import question_hash
from clinrag.federation.population_node import reach
from clinrag.federation.protocol import (
    KindSets,
    SharedCode,
    SimilarMatch,
    SimilarRequest,
    SimilarResponse,
)
from clinrag.population.count import cedar_may_see
from clinrag.population.similar import SharedItem, SimilarityError, Weights, jaccard_with, query_admission
from clinrag.population.similar_named import named_patient
from clinrag.population.similar_sets import KINDS, CodeSets, Kind, load_code_sets
from clinrag.population.tables import population_path
from clinrag.retrieve.patients import PatientRegistry
from clinrag.types import Actor

if TYPE_CHECKING:
    from clinrag.federation.node import AnswerOutcome, Node

log = logging.getLogger("clinrag.node")


def row_sets(sets: CodeSets, row: int) -> KindSets:
    """The item keys of one row, per kind."""
    found = {kind: [sets.items[kind][i] for i in sets.row_items(kind, row).tolist()] for kind in KINDS}
    return KindSets(**found)


def rank_against(
    sets: CodeSets,
    query: KindSets,
    *,
    k: int,
    weights: Weights,
    max_ratio: float | None,
    min_score: float,
    exclude_subject: int | None = None,
) -> list[SimilarMatch]:
    """The ``k`` rows of ``sets`` most similar to the item sets ``query`` (items unknown here count in the query's
    size only), best first, ties by the smaller id; ``exclude_subject``'s rows are never in it. Each kind's Jaccard
    index is `clinrag.population.similar.jaccard_with`, with the query given as items instead of a row."""
    if k <= 0:
        raise SimilarityError(f"k must be at least 1, not {k}")
    per_kind = {}
    query_cols: dict[Kind, np.ndarray] = {}
    score = np.zeros(len(sets.keys))
    for kind in KINDS:
        wanted = set(getattr(query, kind))
        column = {item: index for index, item in enumerate(sets.items[kind])}
        cols = np.array(sorted(column[item] for item in wanted if item in column), dtype=np.int64)
        query_cols[kind] = cols
        per_kind[kind] = jaccard_with(sets, kind, cols, float(len(wanted)), max_ratio)
        score += weights.of(kind) * per_kind[kind]
    keep = (score > 0) & (score >= min_score)
    if exclude_subject is not None:
        keep &= sets.subjects != exclude_subject
    candidates = np.flatnonzero(keep)
    order = candidates[np.lexsort((sets.keys[candidates], -score[candidates]))][:k]
    matches = []
    for i in order.tolist():
        shared: dict[str, list[SharedCode]] = {}
        for kind in KINDS:
            both = np.intersect1d(query_cols[kind], sets.row_items(kind, i), assume_unique=True)
            items = [SharedItem.of(sets.items[kind][c], sets.titles[kind][c]) for c in both.tolist()]
            shared[kind] = [SharedCode(code=s.code, title=s.title, version=s.version) for s in items]
        matches.append(
            SimilarMatch(
                subject_id=int(sets.subjects[i]),
                hadm_id=int(sets.keys[i]) if sets.unit == "admission" else None,
                score=float(score[i]),
                jaccard={kind: float(per_kind[kind][i]) for kind in KINDS},
                shared=shared,
            )
        )
    return matches


def _rank(node: Node, actor: Actor, request: SimilarRequest, depts: set[str]) -> SimilarResponse:
    weights = Weights(request.weights.dx, request.weights.med, request.weights.proc)
    sets = load_code_sets(
        population_path(node.config.data),
        unit=request.per,
        allowed_depts=frozenset(depts),
        may_see=cedar_may_see(node.engine, actor),
    )
    response = SimilarResponse(node=node.config.org)
    exclude = request.sets_of
    if exclude is None and request.named_in is not None:
        registry = PatientRegistry(dict(p for dept in sorted(depts) for p in node.tree.chunks.patients(dept)).items())
        named = named_patient(request.named_in, registry)
        exclude = response.query_subject = named.subject_id
        response.query_mention = named.text
    if exclude is not None:
        key = exclude if request.per == "patient" else query_admission(sets, exclude)
        row = sets.row_of(key)
        if row is None:
            raise SimilarityError(f"patient {exclude} has no codes you may see here")
        query = row_sets(sets, row)
        response.query_sets = query
    elif request.sets is not None:
        query = request.sets
    else:
        raise SimilarityError("give sets_of or named_in (a patient of this node) or sets (the query patient's codes)")
    response.matches = rank_against(
        sets,
        query,
        k=request.k,
        weights=weights,
        max_ratio=request.max_ratio or None,
        min_score=request.min_score,
        exclude_subject=exclude,
    )
    return response


def answer_similar(node: Node, actor: Actor, request: SimilarRequest) -> SimilarResponse:
    """Rank this node's patients for ``actor`` (see the module docstring) and audit it."""
    started = time.perf_counter()
    allowed = reach(node.tree, node.engine, actor)
    response = SimilarResponse(node=node.config.org)
    if allowed.depts:
        try:
            response = _rank(node, actor, request, allowed.depts)
            response.searched = list(allowed.paths)
        except Exception as exc:  # a failed ranking costs this node's part, never a server error
            response.errors.append(node.failure(exc, "similar", "ranking"))
    response.denied = allowed.denied
    response.timings["total"] = time.perf_counter() - started
    outcome: AnswerOutcome = "error" if response.errors else ("ok" if allowed.depts else "denied")
    node.answered(
        actor,
        outcome,
        "similar",
        response.searched,
        response.denied,
        question_sha256=question_hash(request.model_dump_json()),
        patients=dict.fromkeys(m.subject_id for m in response.matches),
        detail=f"similar {len(response.matches)} {request.per}s",
    )
    log.info(
        "similar node=%s subject=%s searched=%d denied=%d matches=%d",
        node.config.org,
        actor.subject,
        len(response.searched),
        len(response.denied),
        len(response.matches),
    )
    return response
