"""An organisation's node: the HTTP API (FastAPI) in front of its tree.

``POST /v1/retrieve`` takes a bearer token that the node verifies itself (signature against the trusted issuers'
keys, issuer, audience, expiry), gates the tree with the node's Cedar policies, checks every document, and answers
with its top-k, what it searched, and what it denied by which policies. ``GET /v1/health`` and ``GET /v1/manifest``
(embedder, leaves and sizes — no patient data) need no token. Every retrieve request, allowed or not, is audited.

A retrieve request is checked in this order, and refused at the first check it fails, before anything after it is
done: the token (401, the body unread), the request rate of the verified user — or of the client's address when no
token verified (429 with ``Retry-After``) —, the body's size as announced and as it arrives (413, the rest unread),
then the body itself (422 naming the field and the rule, never the value sent). Limits: ``federation.*`` settings.

Example:
    >>> app = create_node_app(load_node_config(Path("hospital_a.toml")), Settings())  # doctest: +SKIP
    >>> uvicorn.run(app, host="127.0.0.1", port=8101)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, Literal, TypeVar

import jwt
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPBearer
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool

from clinrag.access.identity import TokenVerifier
from clinrag.access.policy import PolicyEngine
from clinrag.errors import AuthenticationError, ClinragError
from clinrag.federation.audit import AuditEntry, AuditLog, question_hash
from clinrag.federation.config import NodeConfig
from clinrag.federation.population_node import answer_population, answer_vocabulary
from clinrag.federation.protocol import (
    API_VERSION,
    Denial,
    Health,
    InvalidRequest,
    LeafInfo,
    Manifest,
    PathError,
    PopulationRequest,
    PopulationResponse,
    Problem,
    RetrieveRequest,
    RetrieveResponse,
    SimilarRequest,
    SimilarResponse,
    VocabularyRequest,
    VocabularyResponse,
    field_problems,
    reply_notes,
    retrieve_request_schema,
)
from clinrag.federation.serving import BodyTooLargeError, RateLimiter, bearer_token, read_capped, retry_after
from clinrag.federation.similar_node import answer_similar
from clinrag.federation.tree import NodeTree, TreeOutcome
from clinrag.index.embed import Embedder
from clinrag.retrieve.candidates import (
    candidate_hits,
    encode_vector,
    rank_candidates,
    reachable,
)
from clinrag.settings import AggregateSettings, FederationSettings, RetrieveSettings
from clinrag.types import Actor, Chunk

log = logging.getLogger("clinrag.node")
VERIFIED_FOR = 60.0
"""Seconds a verified token's user is remembered (never past the token's expiry), so that a user's searches in
quick succession cost one signature check."""
REMEMBERED_TOKENS = 4096
bearer = HTTPBearer(auto_error=False, description="An OpenID Connect ID token from a trusted identity provider.")
RefusalOutcome = Literal["unauthenticated", "too_large", "invalid", "rate_limited"]
AnswerOutcome = Literal["ok", "denied", "error"]
_Body = TypeVar("_Body", bound=BaseModel)
_Endpoint = TypeVar("_Endpoint", bound=Callable[..., Any])


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
        self.min_cell = AggregateSettings().min_cell
        """Smallest count a population answer shows (``aggregates.min_cell``; `create_node_app` sets it)."""
        self._verified: dict[str, tuple[Actor, float]] = {}
        self._verified_lock = threading.Lock()

    @classmethod
    def open(
        cls, config: NodeConfig, embedder: Embedder, settings: RetrieveSettings, engine: PolicyEngine | None = None
    ) -> Node:
        """Load policies (validated: an invalid policy stops the node), open the tree and the audit log; the token
        verifier waits ``config.key_fetch_timeout`` seconds at most for an issuer's keys.

        ``engine`` replaces the node's policy files (for instance `PolicyEngine.allow_all` to measure the
        federation with policies off)."""
        policies = engine if engine is not None else PolicyEngine.load(config.policies)
        verifier = TokenVerifier(config.issuers, config.audience, timeout=config.key_fetch_timeout)
        tree = NodeTree.open(config, embedder, settings)
        tree.warm_up()
        return cls(config, tree, policies, verifier, AuditLog(config.audit_log))

    def authenticate(self, token: str | None) -> Actor:
        """The verified user of a bearer token (blocking: the issuer's keys may have to be fetched).

        Raises:
            AuthenticationError: no token, or the failed check ("token expired", "wrong audience", …).
        """
        if token is None:
            raise AuthenticationError("missing bearer token")
        return self._verify(token)

    def remembered(self, token: str | None) -> Actor | None:
        """The user of a bearer token verified less than `VERIFIED_FOR` seconds ago (and not expired since); None
        when the token has to be checked (`authenticate`)."""
        if token is None:
            return None
        return self._remembered(token, time.time())

    def refused(self, status: int, outcome: RefusalOutcome, detail: str, actor: Actor | None, client: str) -> None:
        """Audit a refused request: who (the verified user, else the client's address), the status and why — ids
        and the rule broken, never what the request sent."""
        self.audit.record(
            AuditEntry(
                node=self.config.org,
                subject=actor.subject if actor else "",
                org=actor.org if actor else "",
                role=actor.role if actor else "",
                outcome=outcome,
                status=status,
                client=client,
                detail=detail,
            ),
            sync=False,
        )

    def answered(
        self,
        actor: Actor,
        outcome: AnswerOutcome,
        mode: str,
        searched: Iterable[str],
        denied: Iterable[Denial],
        *,
        question_sha256: str = "",
        returned: Iterable[str] = (),
        patients: Iterable[int] = (),
        detail: str = "",
    ) -> None:
        """Audit a request answered (200) to ``actor``: the leaves searched and denied, and what the reply names —
        hashes and ids, never text."""
        self.audit.record(
            AuditEntry(
                node=self.config.org,
                subject=actor.subject,
                org=actor.org,
                role=actor.role,
                outcome=outcome,
                status=200,
                question_sha256=question_sha256,
                mode=mode,
                searched=tuple(searched),
                denied=tuple(denial.path for denial in denied),
                returned=tuple(returned),
                patients=tuple(patients),
                detail=detail,
            )
        )

    def failure(self, exc: Exception, mode: str, work: str) -> PathError:
        """The error a request's part answers with when its ``work`` (count, ranking) raised ``exc``: a
        `ClinragError`'s message; anything else logged and named by its type alone — a failure costs this node's
        part, never a server error."""
        if isinstance(exc, ClinragError):
            return PathError(path=self.config.org, message=str(exc))
        log.error("%s node=%s failed: %s", mode, self.config.org, type(exc).__name__)
        return PathError(path=self.config.org, message=f"{work} failed ({type(exc).__name__})")

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
            kind_by_meaning=outcome.kind_by_meaning[0] if outcome.kind_by_meaning else None,
            kind_similarity=outcome.kind_by_meaning[1] if outcome.kind_by_meaning else None,
            leaves_searched=outcome.leaves_searched,
            refused_documents=outcome.refused_documents,
            withheld_sensitive=outcome.withheld_sensitive,
            notes=reply_notes(outcome.notes),
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
        self.answered(
            actor,
            "denied" if gate_denied else "ok",
            request.mode,
            response.searched,
            response.denied,
            question_sha256=question_hash(request.query),
            returned=(chunk.chunk_id for chunk in returned),
            patients=sorted({c.subject_id for c in returned if c.subject_id is not None} | offered),
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


def create_node_app(
    node: Node,
    close_on_shutdown: bool = True,
    limits: FederationSettings | None = None,
    aggregates: AggregateSettings | None = None,
) -> FastAPI:
    """The FastAPI application of ``node`` (OpenAPI at ``/openapi.json``, docs at ``/docs``). The node's stores
    close when the application shuts down, unless ``close_on_shutdown`` is False (another app still uses them).
    ``limits``: body size and request rates (``federation.*`` settings; default: their defaults); ``aggregates``:
    the smallest count a population answer shows (``aggregates.min_cell``; default: the setting's default)."""
    limits = limits or FederationSettings()
    if aggregates is not None:
        node.min_cell = aggregates.min_cell

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
    guard = _Guard(node, limits)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.error("node=%s unexpected %s", node.config.org, type(exc).__name__)
        return JSONResponse({"detail": "internal error; the node's log has the details"}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = InvalidRequest(detail=field_problems(exc.errors()))
        return JSONResponse(problems.model_dump(), status_code=422)

    @app.get(f"/{API_VERSION}/health")
    def health() -> Health:
        """Liveness: the node is up."""
        return Health(node=node.config.org)

    @app.get(f"/{API_VERSION}/manifest")
    def manifest() -> Manifest:
        """Organisation, embedder, leaves and their sizes, trusted issuers. No patient data."""
        return node.manifest()

    refusals: dict[int | str, dict[str, Any]] = {
        401: {"model": Problem, "description": "Missing, invalid, expired or untrusted token; no data."},
        413: {"model": Problem, "description": f"Body over federation.max_body_bytes ({limits.max_body_bytes})."},
        422: {"model": InvalidRequest, "description": "Invalid body: the fields and rules, never the values."},
        429: {"model": Problem, "description": "Over the request rate (of the user, or of an unverified client)."},
    }

    def guarded(name: str, body: type[BaseModel], reply: type[BaseModel]) -> Callable[[_Endpoint], _Endpoint]:
        """``POST /v1/NAME``: its ``body`` read by the guard (not by FastAPI), its ``reply`` and refusals published."""
        extra = _body_of(body.__name__)
        return app.post(f"/{API_VERSION}/{name}", response_model=reply, openapi_extra=extra, responses=refusals)

    @guarded("retrieve", RetrieveRequest, RetrieveResponse)
    async def retrieve(request: Request) -> Response:
        """Search the node's tree for the token's user: gated by policy, every document checked. The token is
        verified before the body is read; the body is `RetrieveRequest` (JSON, at most federation.max_body_bytes).
        """
        return await guard.retrieve(request)

    @guarded("population", PopulationRequest, PopulationResponse)
    async def population(request: Request) -> Response:
        """Count a population query for the token's user over the departments and documents the node's policies
        let them retrieve; only the aggregate comes back (small cells suppressed). Guarded like /v1/retrieve."""
        return await guard.serve(
            request, PopulationRequest, lambda actor, asked: answer_population(node, actor, asked, node.min_cell)
        )

    @guarded("vocabulary", VocabularyRequest, VocabularyResponse)
    async def vocabulary(request: Request) -> Response:
        """What a population question may name here (codes recorded, drugs, services, admission types, insurances),
        limited to the departments the token's user may see. Guarded like /v1/retrieve."""
        return await guard.serve(request, VocabularyRequest, lambda actor, _: answer_vocabulary(node, actor))

    @guarded("similar", SimilarRequest, SimilarResponse)
    async def similar(request: Request) -> Response:
        """The patients here most similar to a query patient by their codes (weighted Jaccard), only those the
        token's user may retrieve; ``sets_of`` also returns the query patient's sets. Guarded like /v1/retrieve."""
        return await guard.serve(request, SimilarRequest, lambda actor, asked: answer_similar(node, actor, asked))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            published = schema.setdefault("components", {}).setdefault("schemas", {})
            body = retrieve_request_schema()
            bodies = {**body.pop("$defs", {}), "RetrieveRequest": body}
            for model in (PopulationRequest, VocabularyRequest, SimilarRequest):
                schema_of = model.model_json_schema(ref_template="#/components/schemas/{model}")
                bodies = {**bodies, **schema_of.pop("$defs", {}), model.__name__: schema_of}
            for name, definition in bodies.items():
                # a model both read and answered (Measure, PopulationQuery) is published by FastAPI too, written
                # slightly differently (no null defaults, float bounds): the request's own schema wins, and only
                # two different models of one name (other fields) are an error
                known = published.get(name, definition)
                if set(known.get("properties", {})) != set(definition.get("properties", {})):
                    raise RuntimeError(f"two schemas named {name} in the node's OpenAPI")
                published[name] = definition
            schemes = schema["components"].setdefault("securitySchemes", {})
            schemes["HTTPBearer"] = bearer.model.model_dump(mode="json", by_alias=True, exclude_none=True)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _body_of(schema: str) -> dict[str, Any]:
    """The OpenAPI of a guarded endpoint's body (read by the guard, not by FastAPI) and its bearer token."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
        },
        "security": [{"HTTPBearer": []}],
    }


class _Guard:
    """The checks in front of ``POST /v1/retrieve`` and the population endpoints, in order: token, rate, body size,
    body; each refusal audited."""

    def __init__(self, node: Node, limits: FederationSettings) -> None:
        self.node = node
        self.max_body = limits.max_body_bytes
        self.users = RateLimiter(limits.user_rate, limits.user_burst)
        self.clients = RateLimiter(limits.client_rate, limits.client_burst)

    async def retrieve(self, request: Request) -> Response:
        """``POST /v1/retrieve``: a remembered user's search over embedded shards is answered on the event loop."""
        return await self.serve(request, RetrieveRequest, self.node.retrieve, inline=not self.node.tree.waits)

    async def serve(
        self,
        request: Request,
        model: type[_Body],
        work: Callable[[Actor, _Body], BaseModel],
        inline: bool = False,
    ) -> Response:
        """Check ``request`` (token, rate, size, ``model``) and answer with ``work``'s reply; ``inline``: a
        remembered user's work may run on the event loop (in-process and short), else in a worker thread."""
        node = self.node
        client = request.client.host if request.client else "unknown"
        token = bearer_token(request.headers)
        actor = node.remembered(token)
        checked = actor is None
        if actor is None:
            if token is None:
                return self._unauthenticated(request, client, "missing bearer token")
            try:
                # A token seen for the first time: its issuer's keys may have to be fetched, so a worker thread waits
                # while the event loop goes on serving other requests.
                actor = await run_in_threadpool(node.authenticate, token)
            except AuthenticationError as exc:
                return self._unauthenticated(request, client, str(exc))
        wait = self.users.take(f"{actor.org}/{actor.subject}")
        if wait:
            return self._refuse(request, 429, "rate_limited", "too many requests", actor, client, wait)
        try:
            body = await read_capped(request, self.max_body)
        except BodyTooLargeError as exc:
            return self._refuse(request, 413, "too_large", str(exc), actor, client)
        try:
            asked = model.model_validate_json(body)
        except ValidationError as exc:
            problems = field_problems(exc.errors(), prefix=("body",))
            where = "; ".join(".".join(map(str, problem.loc[1:])) + ": " + problem.type for problem in problems)
            node.refused(422, "invalid", where, actor, client)
            return JSONResponse(InvalidRequest(detail=problems).model_dump(), status_code=422)

        def answer() -> Response:
            # Serialised once by pydantic (FastAPI would validate the response again and encode it in Python);
            # fields at their default value are left out, and a client's model restores them.
            body = work(actor, asked).model_dump_json(exclude_defaults=True)
            return Response(body, media_type="application/json")

        if not checked and inline:
            # Work in this process only (embedded shards; the GIL lets one thread run anyway): answered right here,
            # without the two thread switches a worker thread costs, which count on a busy machine.
            return answer()
        # A user just verified, or a Qdrant server to ask: a worker thread waits, the event loop goes on.
        return await run_in_threadpool(answer)

    def _unauthenticated(self, request: Request, client: str, reason: str) -> Response:
        """401 — or 429 when the client's address sends more requests with no verified token than its rate."""
        wait = self.clients.take(client)
        if wait:
            return self._refuse(
                request, 429, "rate_limited", "too many requests without a valid token", None, client, wait
            )
        return self._refuse(request, 401, "unauthenticated", reason, None, client)

    def _refuse(
        self,
        request: Request,
        status: int,
        outcome: RefusalOutcome,
        detail: str,
        actor: Actor | None,
        client: str,
        wait: float = 0.0,
    ) -> Response:
        """The refusal, audited; the body is never read now. A body announced over the cap closes the connection
        (nothing more of it is read); a smaller one the server drops unparsed and keeps the connection."""
        self.node.refused(status, outcome, detail, actor, client)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
        if wait:
            headers["Retry-After"] = retry_after(wait)
        announced = request.headers.get("content-length", "")
        if not announced.isdigit() or int(announced) > self.max_body:
            headers["Connection"] = "close"
        return JSONResponse(Problem(detail=detail).model_dump(), status_code=status, headers=headers)
