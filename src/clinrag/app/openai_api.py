"""clinrag as an OpenAI-compatible model: ``POST /v1/chat/completions`` (streamed or not) and ``GET /v1/models``
over the federation, so that any OpenAI client or chat UI can ask it questions.

The API key is the user's OpenID Connect ID token, the same bearer token every hospital node accepts. The API
verifies it itself (against the identity providers the federation file lists, each for its own organisation) and
forwards it unchanged to every node, which verifies it again and answers only with what its policies let that user
see. The last user message is the question; ``model`` chooses the generator (``clinrag-extractive`` always, and
``clinrag-local`` / ``clinrag-openai`` when the operator configured them).

Answers cite ``[n]`` after every sentence, and every response carries the structured evidence in a ``clinrag``
extension field (docs/openai_api.md): the numbered sources with their provenance and text, which were cited, the
support score, the abstention and its reason, and every organisation's status. A stream sends the draft as the
model writes it in ``clinrag.draft`` (unverified, for progress only), then the verified answer as ordinary
``content`` deltas, then a final chunk with ``finish_reason: "stop"`` and the ``clinrag`` field, then
``data: [DONE]``: the content a client shows is always the checked answer, never a sentence verification removed.

Errors have OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``: 401 for a missing or invalid
token, 400 for a malformed request, 404 for an unknown model, 500 with a generic message otherwise — never a stack
trace and never note text.

Example:
    >>> service = service_from_settings(Settings(), Path("data/demo/federation/federation.toml"))  # doctest: +SKIP
    >>> uvicorn.run(create_openai_app(service), host="127.0.0.1", port=8200)  # doctest: +SKIP
    >>> client = openai.OpenAI(base_url="http://127.0.0.1:8200/v1", api_key=id_token)  # doctest: +SKIP
    >>> reply = client.chat.completions.create(  # doctest: +SKIP
    ...     model="clinrag-extractive", messages=[{"role": "user", "content": "Who was treated for a stroke?"}]
    ... )
    >>> reply.choices[0].message.content, reply.clinrag["sources"][0]["org"]  # doctest: +SKIP
    ('Patient 10000032: ... [1]', 'A')
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from annotated_types import MaxLen
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from clinrag.access.identity import TokenVerifier, TrustedIssuer
from clinrag.app.console import ConfigOption, console, settings_for
from clinrag.errors import AuthenticationError, ClinragError, ConfigError
from clinrag.federation.protocol import RetrieveRequest
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgEndpoint, OrgResult, load_federation
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import Generator, generator_from
from clinrag.generate.prompts import provenance
from clinrag.index.embed import Embedder, embedder_from
from clinrag.index.store import Mode
from clinrag.settings import AnswerSettings, PathSettings, Settings
from clinrag.types import Actor, Answer, SearchFilters, Source, chunk_date

log = logging.getLogger("clinrag.openai_api")

MODEL_PREFIX = "clinrag-"
"""Every model id the API offers is ``clinrag-`` followed by the generator: extractive, local or openai."""
DEFAULT_PORT = 8200
MAX_QUESTION_CHARS = next(
    (item.max_length for item in RetrieveRequest.model_fields["query"].metadata if isinstance(item, MaxLen)), 4000
)
"""The longest question the nodes accept (their ``RetrieveRequest.query`` limit)."""
INTERNAL_ERROR = "internal error; the server's log has the details"
_BEARER = HTTPBearer(
    auto_error=False,
    description="An OpenID Connect ID token from one of the federation's identity providers (the OpenAI API key).",
)
_END = object()


# --- requests ---------------------------------------------------------------------------------------------------


class ContentPart(BaseModel):
    """One part of a message's content; only ``text`` parts are read (images and files are ignored)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    """One message of the conversation (``system``, ``developer``, ``user``, ``assistant``, ``tool``)."""

    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=64)
    content: str | list[ContentPart] | None = None


class ClinragOptions(BaseModel):
    """clinrag's own request options, sent as ``"clinrag": {...}`` (``extra_body`` in the openai client)."""

    model_config = ConfigDict(extra="forbid")

    sources: int | None = Field(None, ge=1, le=50, description="Retrieved chunks given to the generator (k).")
    mode: Mode | None = Field(None, description="Retrieval mode: dense, bm25, hybrid or hybrid-mmr.")
    patients: list[int] | None = Field(
        None, min_length=1, max_length=100, description="Only these patients (subject_id)."
    )


class ChatCompletionRequest(BaseModel):
    """The body of ``POST /v1/chat/completions``. Fields clinrag does not use (``top_p``, ``tools``, ``user`` …)
    are accepted and ignored, so that ordinary clients work unchanged."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200, description="A model id from GET /v1/models.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=1000)
    stream: bool = False
    max_tokens: int | None = Field(None, ge=1, description="Longest generated draft, in tokens (16 to 4096).")
    max_completion_tokens: int | None = Field(None, ge=1, description="Same as max_tokens (newer name).")
    temperature: float | None = Field(None, ge=0, le=2)
    n: int | None = Field(None, ge=1, le=1, description="Only one choice is ever returned.")
    clinrag: ClinragOptions | None = None


# --- responses and the extension field ---------------------------------------------------------------------------


class ErrorDetail(BaseModel):
    """OpenAI's error object."""

    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {...}}``."""

    error: ErrorDetail


class SourceInfo(BaseModel):
    """One numbered source ``[n]``: where it comes from, its score, whether the answer cites it, and its text."""

    number: int = Field(description="The n of [n] in the answer text; 1 is the most relevant.")
    cited: bool = Field(description="A supported sentence of the answer cites it.")
    score: float = Field(description="Its retrieval score (fused rank score; higher is more relevant).")
    org: str
    dept: str
    leaf: str
    kind: str = Field(description="note, row, abstract or calculator.")
    subject_id: int | None
    patient_name: str | None
    hadm_id: int | None
    note_id: str | None
    section: str | None
    date: str | None = Field(description="ISO date: the note's chart time, else the admission's dates.")
    chunk_id: str = Field(description="Content address of the chunk (stable citation key).")
    provenance: str = Field(description="One line: patient · org/dept · note · section · date.")
    text: str = Field(description="The chunk's text. Data from a record, never instructions.")


class SentenceInfo(BaseModel):
    """One sentence of the answer, the sources it cites and how well they support it."""

    text: str
    citations: list[int]
    support: float
    supported: bool


class AbstentionInfo(BaseModel):
    """Why clinrag declined to answer, and where it looked."""

    reason: str
    searched: list[str]
    denied: list[str]
    unreachable: list[str]


class OrganisationInfo(BaseModel):
    """How one organisation took part: answered, denied, unauthenticated, timeout, unreachable, failed, incompatible."""

    org: str
    name: str
    status: str
    detail: str
    seconds: float
    searched: list[str] = Field(description="Leaves of its tree that were searched.")
    denied: list[str] = Field(description="Routers or leaves its policies denied to the user.")


class ClinragExtension(BaseModel):
    """The ``clinrag`` field of a completion (and of a stream's final chunk): the evidence behind the answer."""

    generator: str = Field(description="extractive, or the generator's id.")
    abstained: bool
    abstention: AbstentionInfo | None
    support: float = Field(description="Share of the answer's sentences their cited sources support (0–1).")
    cited: list[int]
    sources: list[SourceInfo]
    sentences: list[SentenceInfo]
    organisations: list[OrganisationInfo]
    quarantined_spans: int = Field(description="Instruction-like spans set aside from the question and sources.")
    timings: dict[str, float]


class AssistantMessage(BaseModel):
    """The answer as an assistant message."""

    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    """The one choice of a completion."""

    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    """A non-streamed reply: OpenAI's ``chat.completion`` plus the ``clinrag`` extension."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    clinrag: ClinragExtension


class Delta(BaseModel):
    """What a stream chunk adds to the message."""

    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    """The one choice of a stream chunk."""

    index: int = 0
    delta: Delta
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


class DraftPiece(BaseModel):
    """The ``clinrag`` field of a progress chunk: a piece of the unverified draft."""

    draft: str


class ChatCompletionChunk(BaseModel):
    """One streamed ``chat.completion.chunk``; progress chunks and the final chunk carry a ``clinrag`` field."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    clinrag: ClinragExtension | DraftPiece | None = None


class ModelCard(BaseModel):
    """One entry of ``GET /v1/models``."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "clinrag"


class ModelList(BaseModel):
    """``GET /v1/models``."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


def source_info(source: Source, cited: bool) -> SourceInfo:
    """The extension's view of one numbered source.

    Example:
        >>> from clinrag.types import Chunk
        >>> chunk = Chunk.create(source_id="note:1-DS-1", text="Aspirin 81 mg daily.", org="A", dept="medicine",
        ...                      subject_id=1, note_id="1-DS-1", section="Discharge Medications")
        >>> info = source_info(Source(number=1, chunk=chunk, score=0.5), cited=True)
        >>> info.org, info.note_id, info.provenance
        ('A', '1-DS-1', 'patient 1 · A/medicine · note 1-DS-1 · Discharge Medications')
    """
    chunk = source.chunk
    when = chunk_date(chunk)
    return SourceInfo(
        number=source.number,
        cited=cited,
        score=round(source.score, 6),
        org=chunk.org,
        dept=chunk.dept,
        leaf=chunk.leaf,
        kind=chunk.source_kind.value,
        subject_id=chunk.subject_id,
        patient_name=chunk.patient_name,
        hadm_id=chunk.hadm_id,
        note_id=chunk.note_id,
        section=chunk.section,
        date=when.date().isoformat() if when is not None else None,
        chunk_id=chunk.chunk_id,
        provenance=provenance(chunk),
        text=chunk.text,
    )


def organisation_info(result: OrgResult) -> OrganisationInfo:
    """The extension's view of one organisation's part in the search."""
    reply = result.response
    return OrganisationInfo(
        org=result.org.org,
        name=result.org.label,
        status=result.status.value,
        detail=result.detail,
        seconds=round(result.seconds, 4),
        searched=list(reply.searched) if reply is not None else [],
        denied=[denial.path for denial in reply.denied] if reply is not None else [],
    )


def extension(answer: Answer, organisations: Sequence[OrgResult] = ()) -> ClinragExtension:
    """The ``clinrag`` extension field of ``answer``.

    Example:
        >>> from clinrag.types import Abstention
        >>> declined = Answer(question="q", text="Not enough information.", generator="extractive",
        ...                   abstention=Abstention(reason="nothing relevant", searched=("A",)))
        >>> field = extension(declined)
        >>> field.abstained, field.abstention.reason, field.abstention.searched
        (True, 'nothing relevant', ['A'])
    """
    cited = set(answer.cited)
    abstention = answer.abstention
    return ClinragExtension(
        generator=answer.generator,
        abstained=answer.abstained,
        abstention=None
        if abstention is None
        else AbstentionInfo(
            reason=abstention.reason,
            searched=list(abstention.searched),
            denied=list(abstention.denied),
            unreachable=list(abstention.unreachable),
        ),
        support=answer.support,
        cited=list(answer.cited),
        sources=[source_info(source, source.number in cited) for source in answer.sources],
        sentences=[
            SentenceInfo(text=s.text, citations=list(s.citations), support=round(s.support, 4), supported=s.supported)
            for s in answer.sentences
        ],
        organisations=[organisation_info(result) for result in organisations],
        quarantined_spans=answer.quarantined_spans,
        timings={name: round(seconds, 4) for name, seconds in answer.timings.items()},
    )


def last_user_message(messages: Iterable[ChatMessage]) -> str:
    """The question: the text of the last ``user`` message (text parts joined by blank lines; other parts ignored).

    Earlier turns, system prompts and assistant messages are not read: the question is answered on its own, from
    the records, under the same rules whatever a client's system prompt says.

    Example:
        >>> last_user_message([ChatMessage(role="system", content="Be brief."),
        ...                    ChatMessage(role="user", content="Who had a stroke?"),
        ...                    ChatMessage(role="assistant", content="Patient 1 [1]."),
        ...                    ChatMessage(role="user", content=[ContentPart(type="text", text=" And a fall? ")])])
        'And a fall?'
    """
    for message in reversed(list(messages)):
        if message.role != "user":
            continue
        if isinstance(message.content, str):
            return message.content.strip()
        parts = [part.text.strip() for part in message.content or () if part.type == "text" and part.text]
        return "\n\n".join(part for part in parts if part)
    return ""


def sse(payload: BaseModel | Mapping[str, Any] | str) -> bytes:
    """One server-sent event: ``data: JSON`` (or a literal such as ``[DONE]``) and a blank line.

    Example:
        >>> sse({"a": 1}), sse("[DONE]")
        (b'data: {"a":1}\\n\\n', b'data: [DONE]\\n\\n')
    """
    if isinstance(payload, str):
        text = payload
    elif isinstance(payload, BaseModel):
        text = payload.model_dump_json()
    else:
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def content_pieces(text: str) -> list[str]:
    """The verified answer in stream pieces, one sentence line each; joined they give ``text`` exactly.

    Example:
        >>> content_pieces("A had a stroke. [1]\\nB had a fall. [2]")
        ['A had a stroke. [1]\\n', 'B had a fall. [2]']
    """
    return text.splitlines(keepends=True) or ([text] if text else [])


# --- errors --------------------------------------------------------------------------------------------------------


class ApiError(Exception):
    """A failure to report in OpenAI's error shape with an HTTP status; the message is safe to show."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code


def error_body(message: str, kind: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """``{"error": {...}}`` in OpenAI's shape.

    Example:
        >>> error_body("token expired", "invalid_request_error", "invalid_api_key")["error"]["code"]
        'invalid_api_key'
    """
    return ErrorBody(error=ErrorDetail(message=message, type=kind, param=param, code=code)).model_dump()


def error_response(error: ApiError) -> JSONResponse:
    """The JSON response of ``error`` (401s also carry ``WWW-Authenticate: Bearer``)."""
    headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
    return JSONResponse(error_body(error.message, error.kind, error.code), status_code=error.status, headers=headers)


def validation_message(errors: Sequence[Any]) -> str:
    """Where a request is malformed and why, naming fields but never echoing their values.

    Example:
        >>> validation_message([{"loc": ("body", "messages"), "msg": "Field required", "input": "secret"}])
        'invalid request: messages: Field required'
    """
    described = []
    for error in list(errors)[:5]:
        location = ".".join(str(part) for part in error.get("loc", ()) if part != "body") or "body"
        described.append(f"{location}: {error.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(described)


class OpenAIRoute(APIRoute):
    """A route whose every failure, however raised, is answered in OpenAI's error shape (even when the router is
    included in another application with its own exception handlers)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The route's handler, guarded."""
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except ApiError as error:
                return error_response(error)
            except RequestValidationError as error:
                return error_response(ApiError(400, validation_message(error.errors()), code="invalid_request"))
            except StarletteHTTPException as error:
                return error_response(ApiError(error.status_code, str(error.detail), code=None))
            except ClinragError as error:  # messages of clinrag's errors name files and fields, never note text
                log.error("%s %s: %s", request.url.path, type(error).__name__, error)
                return error_response(ApiError(500, str(error), "server_error", type(error).__name__))
            except Exception as error:
                log.error("%s unexpected %s", request.url.path, type(error).__name__)
                return error_response(ApiError(500, INTERNAL_ERROR, "server_error", "internal_error"))

        return guarded


# --- the service ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caller:
    """A verified user and the token that travels on to the nodes."""

    actor: Actor
    token: str


@dataclass(frozen=True)
class Job:
    """One chat completion to produce: its ids, the question and the answerer set up for its caller."""

    id: str
    created: int
    model: str
    question: str
    filters: SearchFilters | None
    searcher: FederatedSearcher
    answerer: Answerer

    def organisations(self) -> list[OrgResult]:
        """Every organisation's part in the search (empty when no search was made)."""
        return self.searcher.last.orgs if self.searcher.last is not None else []


class _ClientGoneError(Exception):
    """Raised inside the answerer's token callback to stop generating for a client that went away."""


class ChatService:
    """Answers chat completions over a federation for verified users.

    ``models`` maps each offered model id to its generator (None: the extractive answerer); the first is listed
    first by ``GET /v1/models``. ``settings`` are the answer settings requests may narrow (sources, max tokens,
    temperature). The verifier must trust the same identity providers as the nodes.

    Example:
        >>> orgs = load_federation(Path("federation.toml"))  # doctest: +SKIP
        >>> root = FederationRoot(orgs, RetrieveSettings(), "minilm")  # doctest: +SKIP
        >>> verifier = TokenVerifier(trusted_issuers(root.orgs), audience="clinrag")  # doctest: +SKIP
        >>> service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings())  # doctest: +SKIP
    """

    def __init__(
        self,
        root: FederationRoot,
        verifier: TokenVerifier,
        models: Mapping[str, Generator | None],
        settings: AnswerSettings,
        embedder: Embedder | None = None,
    ) -> None:
        if not models:
            raise ConfigError("the OpenAI-compatible API needs at least one model")
        self.root = root
        self.verifier = verifier
        self.models = dict(models)
        self.settings = settings
        self.embedder = embedder
        self.created = int(time.time())

    def model_list(self) -> ModelList:
        """The models the operator configured."""
        return ModelList(data=[ModelCard(id=model, created=self.created) for model in self.models])

    def authenticate(self, credentials: HTTPAuthorizationCredentials | None) -> Caller:
        """The verified caller of a request (blocking: may fetch an issuer's keys); ApiError 401 otherwise."""
        try:
            if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
                raise AuthenticationError("missing bearer token: send the ID token as the API key")
            return Caller(self.verifier.verify(credentials.credentials), credentials.credentials)
        except AuthenticationError as error:
            log.info("unauthenticated request: %s", error)
            raise ApiError(401, str(error), code="invalid_api_key") from None

    def prepare(self, request: ChatCompletionRequest, caller: Caller) -> Job:
        """The job of a valid request; ApiError 404 for an unknown model, 400 for a missing or oversized question."""
        if request.model not in self.models:
            offered = ", ".join(self.models)
            raise ApiError(404, f"model '{request.model}' does not exist; offered: {offered}", code="model_not_found")
        question = last_user_message(request.messages)
        if not question:
            raise ApiError(400, "no user message with text: the last user message is the question", code="no_question")
        if len(question) > MAX_QUESTION_CHARS:
            message = f"the question is longer than {MAX_QUESTION_CHARS} characters"
            raise ApiError(400, message, code="question_too_long")
        options = request.clinrag or ClinragOptions()
        updates: dict[str, Any] = {}
        if options.sources is not None:
            updates["sources"] = options.sources
        tokens = request.max_completion_tokens or request.max_tokens
        if tokens is not None:
            updates["max_tokens"] = min(max(tokens, 16), 4096)
        if request.temperature is not None:
            updates["temperature"] = request.temperature
        settings = AnswerSettings.model_validate(self.settings.model_dump() | updates)
        searcher = FederatedSearcher(self.root, caller.token, mode=options.mode)
        answerer = Answerer(searcher, settings, self.models[request.model], self.embedder)
        filters = SearchFilters(subject_ids=tuple(options.patients)) if options.patients else None
        actor = caller.actor
        log.info("chat subject=%s org=%s model=%s stream=%s", actor.subject, actor.org, request.model, request.stream)
        return Job(
            f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), request.model, question, filters, searcher, answerer
        )

    async def complete(self, job: Job) -> ChatCompletion:
        """The whole answer (the blocking answerer runs in a worker thread)."""
        answer = await run_in_threadpool(job.answerer.answer, job.question, job.filters)
        return ChatCompletion(
            id=job.id,
            created=job.created,
            model=job.model,
            choices=[Choice(message=AssistantMessage(content=answer.text))],
            clinrag=extension(answer, job.organisations()),
        )

    async def stream(self, job: Job) -> AsyncIterator[bytes]:
        """The answer as server-sent events: the role, draft pieces (``clinrag.draft``) as the model writes them,
        the verified answer line by line as ``content``, the final chunk with the extension, ``[DONE]``.

        A failure after the stream began ends it with an ``{"error": …}`` event (the openai client raises it as an
        APIError); a client that goes away stops the generator at its next token.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stopped = threading.Event()

        def post(item: object) -> None:
            with contextlib.suppress(RuntimeError):  # the server's loop has closed: nobody is listening
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def on_token(piece: str) -> None:
            if stopped.is_set():
                raise _ClientGoneError
            post(piece)

        def work() -> Answer:
            try:
                return job.answerer.answer(job.question, job.filters, on_token=on_token)
            finally:
                post(_END)

        def chunk(delta: Delta, extra: ClinragExtension | DraftPiece | None = None, done: bool = False) -> bytes:
            choice = ChunkChoice(delta=delta, finish_reason="stop" if done else None)
            body = ChatCompletionChunk(id=job.id, created=job.created, model=job.model, choices=[choice], clinrag=extra)
            return sse(body.model_dump(mode="json", exclude={"clinrag"} if extra is None else set()))

        task = asyncio.ensure_future(run_in_threadpool(work))
        try:
            yield chunk(Delta(role="assistant", content=""))
            while (item := await queue.get()) is not _END:
                yield chunk(Delta(), DraftPiece(draft=str(item)))
            try:
                answer = await task
            except ClinragError as error:
                log.error("stream %s: %s", type(error).__name__, error)
                yield sse(error_body(str(error), "server_error", type(error).__name__))
                yield sse("[DONE]")
                return
            except Exception as error:
                log.error("stream unexpected %s", type(error).__name__)
                yield sse(error_body(INTERNAL_ERROR, "server_error", "internal_error"))
                yield sse("[DONE]")
                return
            for piece in content_pieces(answer.text):
                yield chunk(Delta(content=piece))
            yield chunk(Delta(), extension(answer, job.organisations()), done=True)
            yield sse("[DONE]")
        finally:
            stopped.set()
            if not task.done():
                task.add_done_callback(_forget)


def _forget(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a worker whose client went away, so that asyncio does not warn about it."""
    if not task.cancelled():
        task.exception()


def openai_router(service: ChatService) -> APIRouter:
    """``/v1/models``, ``/v1/models/{model}`` and ``/v1/chat/completions`` for ``service``; include it in any
    FastAPI app (its errors keep OpenAI's shape there too).

    Example:
        >>> app = FastAPI()  # doctest: +SKIP
        >>> app.include_router(openai_router(service))  # doctest: +SKIP
    """
    router = APIRouter(route_class=OpenAIRoute, tags=["OpenAI-compatible"])
    errors: dict[int | str, dict[str, Any]] = {
        401: {"model": ErrorBody, "description": "Missing, invalid, expired or untrusted token; no data."},
        400: {"model": ErrorBody, "description": "Malformed request; the message names the field."},
    }

    def caller(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]) -> Caller:
        return service.authenticate(credentials)  # a sync dependency: FastAPI runs it in a worker thread

    # ``Depends(caller)`` goes in defaults: annotations are strings here, and a closure's name cannot be resolved
    # from them. As a dependency it runs before the body is validated, so a bad token is a 401 whatever the body.
    signed_in: Caller = Depends(caller)

    @router.get("/v1/models", responses=errors)
    def list_models(_: Caller = signed_in) -> ModelList:
        """The models this server offers: one per configured generator."""
        return service.model_list()

    @router.get("/v1/models/{model}", responses=errors | {404: {"model": ErrorBody}})
    def get_model(model: str, _: Caller = signed_in) -> ModelCard:
        """One offered model."""
        for card in service.model_list().data:
            if card.id == model:
                return card
        raise ApiError(404, f"model '{model}' does not exist", code="model_not_found")

    @router.post(
        "/v1/chat/completions",
        response_model=None,
        responses=errors
        | {
            200: {
                "model": ChatCompletion,
                "description": "The answer (JSON), or with stream=true a text/event-stream of ChatCompletionChunk "
                "events ending with data: [DONE].",
            },
            404: {"model": ErrorBody, "description": "Unknown model."},
        },
    )
    async def chat_completions(
        request: ChatCompletionRequest, who: Caller = signed_in
    ) -> JSONResponse | StreamingResponse:
        """Answer the last user message from the records the caller may see, citing [n] after every sentence."""
        job = service.prepare(request, who)
        if request.stream:
            headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
            return StreamingResponse(service.stream(job), media_type="text/event-stream", headers=headers)
        completion = await service.complete(job)
        return JSONResponse(completion.model_dump(mode="json"))

    return router


def create_openai_app(service: ChatService) -> FastAPI:
    """A FastAPI application serving only the OpenAI-compatible API (OpenAPI at ``/openapi.json``).

    Example:
        >>> uvicorn.run(create_openai_app(service), host="127.0.0.1", port=8200)  # doctest: +SKIP
    """

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        service.verifier.close()

    app = FastAPI(
        title="clinrag OpenAI-compatible API",
        version="1",
        description="Chat completions answered from federated records the caller may see, with checked citations.",
        lifespan=lifespan,
    )
    app.include_router(openai_router(service))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = "not_found" if error.status_code == 404 else None
        return error_response(ApiError(error.status_code, str(error.detail), code=code))

    return app


# --- building it from settings, and the command ---------------------------------------------------------------------


def trusted_issuers(orgs: Sequence[OrgEndpoint]) -> list[TrustedIssuer]:
    """The identity providers of a federation's organisations, each trusted for its own organisation only.

    Example:
        >>> trusted_issuers([OrgEndpoint(org="A", url="http://127.0.0.1:8101", issuer="http://127.0.0.1:9401")])
        [TrustedIssuer(issuer='http://127.0.0.1:9401', org='A', jwks_uri=None)]
    """
    return [TrustedIssuer(org.issuer, org.org) for org in orgs if org.issuer]


def configured_models(answer: AnswerSettings, paths: PathSettings) -> dict[str, Generator | None]:
    """The models to offer: ``clinrag-extractive`` always; ``clinrag-local`` when the local generator is chosen or a
    GGUF file is set; ``clinrag-openai`` when an OpenAI-compatible endpoint is set. The settings' own generator
    comes first (the default of most chat UIs).

    Example:
        >>> list(configured_models(AnswerSettings(), PathSettings()))
        ['clinrag-extractive']
        >>> list(configured_models(AnswerSettings(generator="openai", openai_base_url="http://h/v1"), PathSettings()))
        ['clinrag-openai', 'clinrag-extractive']
    """
    chosen: list[Literal["extractive", "local", "openai"]] = ["extractive"]
    if answer.generator == "local" or answer.model_path is not None:
        chosen.append("local")
    if answer.generator == "openai" or answer.openai_base_url:
        chosen.append("openai")
    chosen.sort(key=lambda kind: kind != answer.generator)
    return {
        f"{MODEL_PREFIX}{kind}": generator_from(answer.model_copy(update={"generator": kind}), paths) for kind in chosen
    }


def service_from_settings(settings: Settings, federation_file: Path | None = None) -> ChatService:
    """The service for a federation file (default: ``federation.file``) and the settings' generators.

    Raises:
        ConfigError: the file is missing or malformed, or lists no identity provider.
    """
    path = federation_file or settings.federation.file
    orgs = load_federation(path)
    issuers = trusted_issuers(orgs)
    if not issuers:
        raise ConfigError(f"{path}: no organisation lists an identity provider (issuer); no token could be verified")
    embedder = embedder_from(settings.index)
    root = FederationRoot(orgs, settings.retrieve, embedder.id, settings.federation)
    verifier = TokenVerifier(issuers, settings.federation.audience)
    models = configured_models(settings.answer, settings.paths)
    return ChatService(root, verifier, models, settings.answer, embedder)


api_app = typer.Typer(help="Serve clinrag as an OpenAI-compatible model over the federation.", no_args_is_help=True)


@api_app.command("serve")
def serve_command(
    federation: Annotated[
        Path | None, typer.Option(help="Federation file (default: the federation.file setting).")
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
    config: ConfigOption = None,
) -> None:
    """Serve POST /v1/chat/completions and GET /v1/models until Ctrl-C; the API key is the user's ID token.

    Any OpenAI client or chat UI can then ask the federation: point its base URL at http://HOST:PORT/v1 and use
    an ID token from the user's hospital as the API key (docs/openai_api.md).

    Example: clinrag api serve --federation data/demo/federation/federation.toml --port 8200
    """
    import uvicorn

    loaded = settings_for(config).settings
    service = service_from_settings(loaded, federation)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    console.print(f"OpenAI-compatible API on http://{host}:{port}/v1 — models: {', '.join(service.models)}")
    uvicorn.run(create_openai_app(service), host=host, port=port, log_level="warning")
