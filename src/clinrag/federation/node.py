"""An organisation's node: the HTTP API (FastAPI) in front of its tree.

``POST /v1/retrieve`` takes a bearer token that the node verifies itself (signature against the trusted issuers'
keys, issuer, audience, expiry), gates the tree with the node's Cedar policies, checks every document, and answers
with its top-k, what it searched, and what it denied by which policies. ``GET /v1/health`` and ``GET /v1/manifest``
(embedder, leaves and sizes — no patient data) need no token. Every retrieve request, allowed or not, is audited.

Example:
    >>> app = create_node_app(load_node_config(Path("hospital_a.toml")), Settings())  # doctest: +SKIP
    >>> uvicorn.run(app, host="127.0.0.1", port=8101)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import jwt
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from clinrag.access.identity import TokenVerifier
from clinrag.access.policy import PolicyEngine
from clinrag.errors import AuthenticationError
from clinrag.federation.audit import AuditEntry, AuditLog, question_hash
from clinrag.federation.config import NodeConfig
from clinrag.federation.protocol import (
    API_VERSION,
    Health,
    LeafInfo,
    Manifest,
    RetrieveRequest,
    RetrieveResponse,
)
from clinrag.federation.tree import NodeTree, TreeOutcome
from clinrag.index.embed import Embedder
from clinrag.retrieve.candidates import (
    candidate_hits,
    encode_vector,
    rank_candidates,
    reachable,
)
from clinrag.settings import RetrieveSettings
from clinrag.types import Actor, Chunk

log = logging.getLogger("clinrag.node")
VERIFIED_FOR = 60.0
"""Seconds a verified token's user is remembered (never past the token's expiry), so that a user's searches in
quick succession cost one signature check."""
REMEMBERED_TOKENS = 4096
bearer = HTTPBearer(auto_error=False, description="An OpenID Connect ID token from a trusted identity provider.")


class Node:
    """The parts a node's API uses: tree, policies, token verifier and audit log."""

    def __init__(
        self,
        config: NodeConfig,
        tree: NodeTree,
        engine: PolicyEngine,
        verifier: TokenVerifier,
        audit: AuditLog,
    ) -> None:
        self.config = config
        self.tree = tree
        self.engine = engine
        self.verifier = verifier
        self.audit = audit
        self._verified: dict[str, tuple[Actor, float]] = {}
        self._verified_lock = threading.Lock()

    @classmethod
    def open(
        cls, config: NodeConfig, embedder: Embedder, settings: RetrieveSettings, engine: PolicyEngine | None = None
    ) -> Node:
        """Load policies (validated: an invalid policy stops the node), open the tree and the audit log.

        ``engine`` replaces the node's policy files (for instance `PolicyEngine.allow_all` to measure the
        federation with policies off)."""
        policies = engine if engine is not None else PolicyEngine.load(config.policies)
        verifier = TokenVerifier(config.issuers, config.audience)
        tree = NodeTree.open(config, embedder, settings)
        tree.warm_up()
        return cls(config, tree, policies, verifier, AuditLog(config.audit_log))

    def authenticate(self, credentials: HTTPAuthorizationCredentials | None, request_question: str) -> Actor:
        """The verified user of a request; a failure is audited and becomes a 401 with no data."""
        try:
            if credentials is None or credentials.scheme.lower() != "bearer":
                raise AuthenticationError("missing bearer token")
            return self._verify(credentials.credentials)
        except AuthenticationError as exc:
            self.audit.record(
                AuditEntry(
                    node=self.config.org,
                    outcome="unauthenticated",
                    question_sha256=question_hash(request_question),
                    detail=str(exc),
                )
            )
            raise HTTPException(401, detail=str(exc), headers={"WWW-Authenticate": "Bearer"}) from None

    def remembered(self, credentials: HTTPAuthorizationCredentials | None) -> Actor | None:
        """The user of a bearer token verified less than `VERIFIED_FOR` seconds ago (and not expired since); None
        when the token has to be checked (`authenticate`)."""
        if credentials is None or credentials.scheme.lower() != "bearer":
            return None
        return self._remembered(credentials.credentials, time.time())

    def _remembered(self, token: str, now: float) -> Actor | None:
        with self._verified_lock:
            remembered = self._verified.get(token)
        return remembered[0] if remembered is not None and now < remembered[1] else None

    def _verify(self, token: str) -> Actor:
        """The token's verified user; remembered for `VERIFIED_FOR` seconds at most, and never past its expiry."""
        now = time.time()
        remembered = self._remembered(token, now)
        if remembered is not None:
            return remembered
        actor = self.verifier.verify(token)  # AuthenticationError: not remembered, checked again next time
        expiry = jwt.decode(token, options={"verify_signature": False}).get("exp")
        until = min(now + VERIFIED_FOR, float(expiry)) if isinstance(expiry, int | float) else now
        with self._verified_lock:
            if len(self._verified) >= REMEMBERED_TOKENS:
                self._verified = {key: value for key, value in self._verified.items() if now < value[1]}
                if len(self._verified) >= REMEMBERED_TOKENS:
                    self._verified.clear()
            self._verified[token] = (actor, until)
        return actor

    def retrieve(self, actor: Actor, request: RetrieveRequest) -> RetrieveResponse:
        """Search the tree for ``actor`` and audit what was searched, denied and returned."""
        started = time.perf_counter()
        outcome = self.tree.search(actor, request, self.engine)
        searched_at = time.perf_counter()
        response = RetrieveResponse(
            node=self.config.org,
            embedder=self.tree.embedder.id,
            searched=outcome.searched,
            denied=outcome.denied,
            errors=outcome.errors,
            no_such_patient=outcome.no_such_patient,
            named_patient=outcome.named_patient,
            names_person=outcome.names_person,
            names=outcome.names,
            leaves_searched=outcome.leaves_searched,
            refused_documents=outcome.refused_documents,
        )
        found = outcome.candidates
        if not request.candidates:
            response.hits, _ = rank_candidates(found, request.mode, self.tree.settings, request.k, outcome.query_vector)
        else:
            bodies = reachable(found, request.mode, self.tree.settings, request.k) if request.prune else None
            response.candidates, response.ranked_only = candidate_hits(found, bodies)
        if request.candidates and request.mode == "hybrid-mmr":
            response = _with_vectors(response, outcome)
        response.timings = {"search": searched_at - started, "total": time.perf_counter() - started}
        listed = [hit.chunk for hit in response.candidates or response.hits]
        listed += [found.found[chunk_id].chunk for chunk_id in response.ranked_only]
        self._audit(actor, request, response, listed)
        return response

    def _audit(self, actor: Actor, request: RetrieveRequest, response: RetrieveResponse, returned: list[Chunk]) -> None:
        """One audit line; ``returned`` is every chunk the reply names, with its text or (pruned) by id alone; the
        patients are theirs and those the reply offers as choices for a name (their names are disclosed too)."""
        gate_denied = not response.leaves_searched and bool(response.denied) and not response.errors
        offered = {choice.subject_id for name in response.names for choice in name.choices}
        self.audit.record(
            AuditEntry(
                node=self.config.org,
                subject=actor.subject,
                org=actor.org,
                role=actor.role,
                outcome="denied" if gate_denied else "ok",
                question_sha256=question_hash(request.query),
                mode=request.mode,
                searched=tuple(response.searched),
                denied=tuple(denial.path for denial in response.denied),
                returned=tuple(chunk.chunk_id for chunk in returned),
                patients=tuple(sorted({c.subject_id for c in returned if c.subject_id is not None} | offered)),
            )
        )
        log.info(
            "retrieve node=%s subject=%s searched=%d denied=%d returned=%d",
            self.config.org,
            actor.subject,
            len(response.searched),
            len(response.denied),
            len(returned),
        )

    def manifest(self) -> Manifest:
        """What this node serves (no patient data)."""
        return Manifest(
            node=self.config.org,
            name=self.config.name,
            embedder=self.tree.embedder.id,
            dimension=self.tree.embedder.dimension,
            leaves=[LeafInfo(path=path, chunks=count) for path, count in self.tree.counts().items()],
            issuers=[issuer.issuer for issuer in self.config.issuers],
            audience=self.config.audience,
        )


def _with_vectors(response: RetrieveResponse, outcome: TreeOutcome) -> RetrieveResponse:
    found = outcome.candidates.found
    vectors = {cid: encode_vector(hit.vector) for cid, hit in found.items() if hit.vector is not None}
    query = encode_vector(outcome.query_vector) if outcome.query_vector is not None else None
    return response.model_copy(update={"vectors": vectors, "query_vector": query})


def create_node_app(node: Node, close_on_shutdown: bool = True) -> FastAPI:
    """The FastAPI application of ``node`` (OpenAPI at ``/openapi.json``, docs at ``/docs``). The node's stores
    close when the application shuts down, unless ``close_on_shutdown`` is False (another app still uses them)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if close_on_shutdown:
            node.tree.close()

    app = FastAPI(
        title=f"clinrag node {node.config.org}",
        version=API_VERSION,
        description="Federated retrieval over one organisation's records, for verified users, under its policies.",
        lifespan=lifespan,
    )

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.error("node=%s unexpected %s", node.config.org, type(exc).__name__)
        return JSONResponse({"detail": "internal error; the node's log has the details"}, status_code=500)

    @app.get(f"/{API_VERSION}/health")
    def health() -> Health:
        """Liveness: the node is up."""
        return Health(node=node.config.org)

    @app.get(f"/{API_VERSION}/manifest")
    def manifest() -> Manifest:
        """Organisation, embedder, leaves and their sizes, trusted issuers. No patient data."""
        return node.manifest()

    @app.post(
        f"/{API_VERSION}/retrieve",
        response_model=RetrieveResponse,
        responses={401: {"description": "Missing, invalid, expired or untrusted token; no data."}},
    )
    async def retrieve(
        request: RetrieveRequest,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Response:
        """Search the node's tree for the token's user: gated by policy, every document checked."""

        def answer(actor: Actor | None) -> Response:
            actor = actor or node.authenticate(credentials, request.query)
            # Serialised once by pydantic (FastAPI would validate the response again and encode it in Python);
            # fields at their default value are left out, and a client's model restores them.
            body = node.retrieve(actor, request).model_dump_json(exclude_defaults=True)
            return Response(body, media_type="application/json")

        actor = node.remembered(credentials)
        if actor is not None and not node.tree.waits:
            # Work in this process only (embedded shards; the GIL lets one thread run anyway): answered right here,
            # without the two thread switches a worker thread costs, which count on a busy machine.
            return answer(actor)
        # A token to check (its issuer's keys may have to be fetched) or a Qdrant server to ask: a worker thread
        # waits, the event loop goes on serving other requests.
        return await run_in_threadpool(answer, actor)

    return app
