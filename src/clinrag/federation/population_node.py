"""A node's population answers (``POST /v1/population``, ``POST /v1/vocabulary``): counted under the same Cedar
policies as retrieval, audited, and only aggregates out.

The departments a user may count are the leaves the tree's search gates let them search (the root router and every
router above the leaf must allow them too, as for a search); a denied router or leaf is listed in the reply and
nothing under it counts. Within them, every document class is decided by the retrieve policy
(`count.cedar_may_see`: sensitivity labels, tables, services) and every note chunk a text criterion finds is checked
like a retrieved hit. Each request is one audit line: the SHA-256 of the query, the outcome, the departments counted
(``searched``) and denied; no patient id and no text.

Example:
    >>> response = answer_population(node, actor, PopulationRequest(query=query), min_cell=5)  # doctest: +SKIP
    >>> response.counted, [d.path for d in response.denied]  # doctest: +SKIP
    (['C/admissions'], ['C/neurology'])
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clinrag.access.policy import PolicyEngine
from clinrag.errors import ClinragError
from clinrag.federation.audit import question_hash
from clinrag.federation.config import LeafSpec, RouterSpec
from clinrag.federation.protocol import (
    Denial,
    PopulationRequest,
    PopulationResponse,
    VocabularyResponse,
)
from clinrag.federation.tree import NodeTree
from clinrag.population.count import cedar_may_see
from clinrag.population.node import count_at_node, node_terms
from clinrag.types import Actor, Chunk

if TYPE_CHECKING:
    from clinrag.federation.node import AnswerOutcome, Node

log = logging.getLogger("clinrag.node")


@dataclass
class Reach:
    """What the policies let a user count at a node: leaf paths and their departments, and the denials."""

    paths: list[str] = field(default_factory=list)
    depts: set[str] = field(default_factory=set)
    denied: list[Denial] = field(default_factory=list)


def reach(tree: NodeTree, engine: PolicyEngine, actor: Actor) -> Reach:
    """The leaves ``actor`` may search (every router above them allowing too), as the tree gates a search.

    Example:
        >>> reach(node.tree, node.engine, demo_user("A.phys")).depts  # doctest: +SKIP
        {'admissions'}
    """
    found = Reach()

    def visit(spec: LeafSpec | RouterSpec) -> None:
        decision = tree.can_search(engine, actor, spec)
        if not decision.allowed:
            found.denied.append(Denial(path=spec.path, reasons=list(decision.reasons)))
            return
        if isinstance(spec, LeafSpec):
            found.paths.append(spec.path)
            found.depts.add(spec.dept)
            return
        for child in spec.children:
            visit(child)

    visit(tree.config.tree)
    return found


def answer_population(node: Node, actor: Actor, request: PopulationRequest, min_cell: int) -> PopulationResponse:
    """Count ``request.query`` for ``actor`` at ``node`` and audit it (see the module docstring)."""
    started = time.perf_counter()
    allowed = reach(node.tree, node.engine, actor)
    response = PopulationResponse(node=node.config.org, denied=allowed.denied)
    if allowed.depts:

        def may_read(chunk: Chunk) -> bool:
            return node.tree.can_retrieve(node.engine, actor, [chunk])[0]

        try:
            counted = count_at_node(
                node.config.data,
                request.query,
                min_cell=min_cell,
                depts=allowed.depts,
                may_read=may_read,
                may_see=cedar_may_see(node.engine, actor),
            )
            response = response.model_copy(update={"aggregate": counted, "counted": allowed.paths})
        except Exception as exc:  # a failed count costs this node's part, never a server error
            response.errors.append(node.failure(exc, "population", "count"))
    response.timings["total"] = time.perf_counter() - started
    aggregate = response.aggregate
    outcome: AnswerOutcome = "ok" if allowed.depts else "denied"
    if response.errors:
        outcome = "error"
    status = aggregate.status if aggregate is not None else outcome
    node.answered(
        actor,
        outcome,
        "population",
        response.counted,
        response.denied,
        question_sha256=question_hash(request.query.model_dump_json()),
        detail=f"population {status}" + (f": {aggregate.reason}" if aggregate is not None and aggregate.reason else ""),
    )
    log.info(
        "population node=%s subject=%s counted=%d denied=%d status=%s",
        node.config.org,
        actor.subject,
        len(response.counted),
        len(response.denied),
        status,
    )
    return response


def answer_vocabulary(node: Node, actor: Actor) -> VocabularyResponse:
    """What a population question may name at ``node``, limited to what ``actor`` may see; audited."""
    allowed = reach(node.tree, node.engine, actor)
    terms = None
    if allowed.depts:
        try:
            terms = node_terms(
                node.config.data, allowed.depts, cedar_may_see(node.engine, actor), dictionary=False
            ).model_copy(update={"name": node.config.name})
        except ClinragError as exc:  # no population tables: nothing to name here
            log.warning("vocabulary node=%s: %s", node.config.org, type(exc).__name__)
    node.answered(actor, "ok" if allowed.depts else "denied", "vocabulary", allowed.paths, allowed.denied)
    return VocabularyResponse(node=node.config.org, terms=terms, denied=allowed.denied)
