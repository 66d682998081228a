"""What the federation remembers between requests, and that remembering never changes an answer: verified tokens
(never past their expiry), policy decisions (equal to Cedar's every time), and the root's open connections."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

import jwt
import numpy as np
import pytest

from clinrag.access.demo import DEMO_USERS, demo_user
from clinrag.errors import AuthenticationError
from clinrag.federation.audit import AuditLog
from clinrag.federation.node import Node
from clinrag.federation.protocol import RetrieveRequest
from clinrag.federation.root import FederatedRetrieval, FederationRoot, OrgStatus
from clinrag.index.embed import Vectors
from clinrag.retrieve.candidates import encode_vector
from clinrag.retrieve.hybrid import dense_text
from clinrag.settings import FederationSettings, RetrieveSettings
from clinrag.types import Actor

from ..shared.federation import EMBEDDER, Federation


class _CountingVerifier:
    """Accepts tokens until ``revoked``; counts how often it is asked."""

    def __init__(self) -> None:
        self.calls = 0
        self.revoked = False

    def verify(self, token: str) -> Actor:
        self.calls += 1
        if self.revoked:
            raise AuthenticationError("token expired")
        return Actor(subject="u", org="A", role="physician")


def _token(expires_in: float) -> str:
    return jwt.encode({"sub": "u", "exp": int(time.time() + expires_in)}, "test-secret-" * 4, algorithm="HS256")


def _node(federation: Federation, verifier: _CountingVerifier, tmp_path: Path) -> Node:
    base = federation.nodes["A"]
    return Node(base.config, base.tree, base.engine, verifier, AuditLog(tmp_path / "audit.jsonl"))  # type: ignore[arg-type]


def test_a_verified_token_is_remembered_for_a_while(federation: Federation, tmp_path: Path) -> None:
    verifier = _CountingVerifier()
    node = _node(federation, verifier, tmp_path)
    token = _token(3600)
    for _ in range(5):
        assert node._verify(token).subject == "u"
    assert verifier.calls == 1


def test_a_remembered_token_is_checked_again_once_it_expires(federation: Federation, tmp_path: Path) -> None:
    verifier = _CountingVerifier()
    node = _node(federation, verifier, tmp_path)
    token = _token(1.0)
    node._verify(token)
    time.sleep(2.1)  # past the token's exp (whole seconds)
    verifier.revoked = True
    with pytest.raises(AuthenticationError):
        node._verify(token)
    assert verifier.calls == 2


def test_a_refused_token_is_never_remembered(federation: Federation, tmp_path: Path) -> None:
    verifier = _CountingVerifier()
    verifier.revoked = True
    node = _node(federation, verifier, tmp_path)
    token = _token(3600)
    for _ in range(3):
        with pytest.raises(AuthenticationError):
            node._verify(token)
    assert verifier.calls == 3


def test_remembered_document_decisions_equal_cedars(federation: Federation) -> None:
    for org, node in federation.nodes.items():
        chunks = list(node.tree.chunks.chunks())[::5][:400]
        for user in DEMO_USERS:
            expected = [decision.allowed for decision in node.engine.can_retrieve(user, chunks)]
            assert node.tree.can_retrieve(node.engine, user, chunks) == expected, (org, user.subject)
            assert node.tree.can_retrieve(node.engine, user, chunks[::-1]) == expected[::-1], (org, user.subject)


def test_remembered_search_gates_equal_cedars(federation: Federation) -> None:
    for node in federation.nodes.values():
        specs = [node.config.tree, *node.config.tree.children]
        for user, spec in itertools.product(DEMO_USERS, specs):
            for _ in range(2):
                remembered = node.tree.can_search(node.engine, user, spec)
                kind = "router" if spec is node.config.tree else "leaf"
                dept = getattr(spec, "dept", None) if kind == "leaf" else None
                assert remembered == node.engine.can_search(user, node.config.org, spec.path, kind, dept)


def test_the_root_reuses_its_connections_and_can_be_closed(federation: Federation) -> None:
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    token = federation.token("A.phys")
    first = root.search("hospital course", token, k=5)
    second = root.search("hospital course", token, k=5)
    assert [hit.chunk.chunk_id for hit in first.retrieval.hits] == [hit.chunk.chunk_id for hit in second.retrieval.hits]
    assert len(root._clients) == 1
    root.close()
    again = root.search("hospital course", token, k=5)
    assert [hit.chunk.chunk_id for hit in again.retrieval.hits] == [hit.chunk.chunk_id for hit in first.retrieval.hits]

    async def in_own_loop() -> FederatedRetrieval:
        """asearch in a caller's own event loop (as the web app can) gets that loop's client, closed by aclose."""
        try:
            return await root.asearch("hospital course", token, k=5)
        finally:
            await root.aclose()

    from_loop = asyncio.run(in_own_loop())
    assert len(root._clients) == 1  # the root's own loop's, not the closed loop's
    assert {org.status for org in from_loop.orgs} <= {OrgStatus.ANSWERED, OrgStatus.DENIED}
    assert [hit.chunk.chunk_id for hit in from_loop.retrieval.hits] == [h.chunk.chunk_id for h in first.retrieval.hits]
    root.close()


class _RecordingEmbedder:
    """The demo embedder, recording what it is asked to embed."""

    def __init__(self) -> None:
        self.id = EMBEDDER.id
        self.dimension = EMBEDDER.dimension
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> Vectors:
        self.texts += texts
        return EMBEDDER.embed(texts)


def test_a_question_about_a_set_of_patients_is_embedded_by_the_root_alone(
    federation: Federation, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Which patients were discharged on aspirin?"
    node, actor = federation.nodes["A"], demo_user("A.phys")
    own = node.retrieve(actor, RetrieveRequest(query=question, k=5, mode="dense"))
    # The root embeds the question's topic, which is what the node embeds for it, and says so.
    root_side = _RecordingEmbedder()
    root = FederationRoot(
        federation.orgs,
        RetrieveSettings(),
        EMBEDDER.id,
        FederationSettings(timeout=20),
        embed=lambda text: root_side.embed([text])[0],
    )
    topic = dense_text(question, RetrieveSettings(), patients_named=False)
    assert topic != question
    node_side = _RecordingEmbedder()
    monkeypatch.setattr(node.tree, "embedder", node_side)
    federated = root.search(question, federation.token("A.phys"), k=5, mode="dense")
    root.close()
    assert root_side.texts == [topic]
    assert node_side.texts == []
    assert {org.status for org in federated.orgs} <= {OrgStatus.ANSWERED, OrgStatus.DENIED}
    vector = encode_vector(np.asarray(root_side.embed([topic])[0]))
    given = node.retrieve(
        actor, RetrieveRequest(query=question, k=5, mode="dense", query_vector=vector, query_vector_text=topic)
    )
    assert node_side.texts == []
    assert [hit.chunk.chunk_id for hit in given.hits] == [hit.chunk.chunk_id for hit in own.hits]
    assert [hit.score for hit in given.hits] == [hit.score for hit in own.hits]
