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

Each question goes where the planner sends it, as in ``clinrag ask --as``: a population question ("How many
patients…", "most common diagnoses among…") is counted at every node with the caller's token; its content is the
answer in words with its tables in Markdown, and ``clinrag.route`` / ``clinrag.population`` carry the route and the
population answer (queries, tables, each organisation's part). It arrives in one piece (no draft). A question about
patients similar to a named one ("What were patients like Betty Henry discharged with?") is answered from the similar
patients' records: its content is the answer, then the similar patients in a Markdown table (hospital, patient,
score, shared diagnoses, medications and procedures, cited or not) and the hospitals that took no part in the
ranking; ``clinrag.experience`` carries them (`ExperiencePart`), in a stream's final chunk too.

Errors have OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``: 401 for a missing or invalid
token, 400 for a malformed request, 404 for an unknown model, 413 for a body over ``federation.api_max_body_bytes``,
429 (with ``Retry-After``) over a user's request rate or, for requests with no valid token, the client address's
(``federation.user_rate`` / ``client_rate``), 500 with a generic message otherwise — never a stack trace, never
note text, and never a value the request sent. The token is verified before the body is read: an unauthenticated
request gets its 401 with its body unread.

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

import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any

import typer
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from clinrag.app.chat_service import Caller, ChatService, Draft, Job, ServiceError, service_from_settings
from clinrag.app.console import ConfigOption, FederationOption, console, server_logging, settings_for
from clinrag.app.openai_models import (
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionRequest,
    Choice,
    ChunkChoice,
    ClinragExtension,
    ClinragOptions,
    Delta,
    DraftPiece,
    ErrorBody,
    ErrorDetail,
    ModelCard,
    ModelList,
    extension,
    last_user_message,
)
from clinrag.app.population_tables import message_content
from clinrag.errors import AuthenticationError, ClinragError
from clinrag.federation.protocol import field_problems
from clinrag.federation.serving import (
    BodyTooLargeError,
    RateLimiter,
    declared_length,
    read_capped,
    retry_after,
)
from clinrag.settings import FederationSettings

log = logging.getLogger("clinrag.openai_api")

DEFAULT_PORT = 8200
INTERNAL_ERROR = "internal error; the server's log has the details"
_BEARER = HTTPBearer(
    auto_error=False,
    description="An OpenID Connect ID token from one of the federation's identity providers (the OpenAI API key).",
)


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

    def __init__(
        self,
        status: int,
        message: str,
        kind: str = "invalid_request_error",
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.headers = dict(headers or {})


def error_body(message: str, kind: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """``{"error": {...}}`` in OpenAI's shape.

    Example:
        >>> error_body("token expired", "invalid_request_error", "invalid_api_key")["error"]["code"]
        'invalid_api_key'
    """
    return ErrorBody(error=ErrorDetail(message=message, type=kind, param=param, code=code)).model_dump()


def error_response(error: ApiError) -> JSONResponse:
    """The JSON response of ``error`` (401s also carry ``WWW-Authenticate: Bearer``)."""
    headers = error.headers | ({"WWW-Authenticate": "Bearer"} if error.status == 401 else {})
    return JSONResponse(error_body(error.message, error.kind, error.code), status_code=error.status, headers=headers)


def validation_message(errors: Sequence[Any]) -> str:
    """Where a request is malformed and why, naming fields but never echoing their values (`field_problems`).

    Example:
        >>> validation_message([{"loc": ("body", "messages"), "msg": "Field required", "input": "secret"}])
        'invalid request: messages: Field required'
        >>> validation_message([{"loc": ("model",), "type": "value_error", "msg": "Value error, bad 'secret'"}])
        'invalid request: model: invalid value (value_error)'
    """
    described = []
    for problem in field_problems(list(errors)[:5]):
        location = ".".join(str(part) for part in problem.loc if part != "body") or "body"
        described.append(f"{location}: {problem.msg}")
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
            except ServiceError as error:
                return error_response(ApiError(error.status, error.message, code=error.code))
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


def model_list(service: ChatService) -> ModelList:
    """``GET /v1/models``: the models the operator configured, the default first."""
    return ModelList(data=[ModelCard(id=model, created=service.created) for model in service.models])


def authenticate(service: ChatService, credentials: HTTPAuthorizationCredentials | None) -> Caller:
    """The verified caller of a request (blocking: may fetch an issuer's keys); ApiError 401 otherwise."""
    try:
        if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
            raise AuthenticationError("missing bearer token: send the ID token as the API key")
        return service.authenticate(credentials.credentials)
    except AuthenticationError as error:
        log.info("unauthenticated request: %s", error)
        raise ApiError(401, str(error), code="invalid_api_key") from None


class Limits:
    """The API's request limits: a body cap and token buckets per verified user and per client address (requests
    with no valid token)."""

    def __init__(self, settings: FederationSettings) -> None:
        self.max_body = settings.api_max_body_bytes
        self.users = RateLimiter(settings.user_rate, settings.user_burst)
        self.clients = RateLimiter(settings.client_rate, settings.client_burst)

    async def caller(
        self, service: ChatService, request: Request, credentials: HTTPAuthorizationCredentials | None
    ) -> Caller:
        """The verified caller, within their rate; 401 (or 429 for a client address over its rate) otherwise. The
        body is not read here: a refused request's body never is (one announced over the cap closes the
        connection)."""
        client = request.client.host if request.client else "unknown"
        unread = declared_length(request.headers)
        close = (
            {"Connection": "close"} if request.method == "POST" and (unread is None or unread > self.max_body) else {}
        )
        try:
            who = await run_in_threadpool(authenticate, service, credentials)
        except ApiError as error:
            wait = self.clients.take(client)
            if wait:
                log.info("rate limited client=%s (no valid token)", client)
                raise self._too_many(wait, close) from None
            error.headers.update(close)
            raise
        wait = self.users.take(f"{who.actor.org}/{who.actor.subject}")
        if wait:
            log.info("rate limited user=%s/%s", who.actor.org, who.actor.subject)
            raise self._too_many(wait, close)
        return who

    async def body(self, request: Request) -> ChatCompletionRequest:
        """The request's body, read up to the cap (413 beyond), validated (400 naming fields, never values)."""
        try:
            raw = await read_capped(request, self.max_body)
        except BodyTooLargeError as error:
            raise ApiError(413, str(error), code="request_too_large", headers={"Connection": "close"}) from None
        try:
            return ChatCompletionRequest.model_validate_json(raw)
        except ValidationError as error:
            raise ApiError(400, validation_message(error.errors()), code="invalid_request") from None

    @staticmethod
    def _too_many(wait: float, headers: Mapping[str, str]) -> ApiError:
        return ApiError(
            429,
            "too many requests; retry later",
            "rate_limit_error",
            "rate_limit_exceeded",
            headers={"Retry-After": retry_after(wait), **headers},
        )


def prepare(service: ChatService, request: ChatCompletionRequest, caller: Caller) -> Job:
    """The job of a valid chat completion request; ApiError 404 for an unknown model, 400 for a bad question."""
    options = request.clinrag or ClinragOptions()
    question = last_user_message(request.messages)
    if not question and request.model in service.models:
        raise ApiError(400, "no user message with text: the last user message is the question", code="no_question")
    return service.prepare(
        question,
        request.model,
        caller,
        sources=options.sources,
        mode=options.mode,
        patients=options.patients,
        max_tokens=request.max_completion_tokens or request.max_tokens,
        temperature=request.temperature,
    )


async def complete(service: ChatService, job: Job) -> ChatCompletion:
    """A non-streamed completion of ``job``."""
    answer = await service.complete(job)
    return ChatCompletion(
        id=job.id,
        created=job.created,
        model=job.model,
        choices=[Choice(message=AssistantMessage(content=message_content(answer)))],
        clinrag=extension(answer, job.organisations()),
    )


async def stream(service: ChatService, job: Job) -> AsyncIterator[bytes]:
    """The answer as server-sent events: the role, draft pieces (``clinrag.draft``) as the model writes them,
    the verified answer line by line as ``content``, the final chunk with the extension, ``[DONE]``.

    A failure after the stream began ends it with an ``{"error": …}`` event (the openai client raises it as an
    APIError); a client that goes away stops the generator at its next token.
    """

    def chunk(delta: Delta, extra: ClinragExtension | DraftPiece | None = None, done: bool = False) -> bytes:
        choice = ChunkChoice(delta=delta, finish_reason="stop" if done else None)
        body = ChatCompletionChunk(id=job.id, created=job.created, model=job.model, choices=[choice], clinrag=extra)
        return sse(body.model_dump(mode="json", exclude={"clinrag"} if extra is None else set()))

    yield chunk(Delta(role="assistant", content=""))
    try:
        async for event in service.events(job):
            if isinstance(event, Draft):
                yield chunk(Delta(), DraftPiece(draft=event.text))
                continue
            for piece in content_pieces(message_content(event.answer)):
                yield chunk(Delta(content=piece))
            yield chunk(Delta(), extension(event.answer, event.organisations), done=True)
    except ClinragError as error:
        log.error("stream %s: %s", type(error).__name__, error)
        yield sse(error_body(str(error), "server_error", type(error).__name__))
    except Exception as error:
        log.error("stream unexpected %s", type(error).__name__)
        yield sse(error_body(INTERNAL_ERROR, "server_error", "internal_error"))
    yield sse("[DONE]")


def openai_router(service: ChatService, limits: FederationSettings | None = None) -> APIRouter:
    """``/v1/models``, ``/v1/models/{model}`` and ``/v1/chat/completions`` for ``service``; include it in any
    FastAPI app (its errors keep OpenAI's shape there too). ``limits``: the body cap and request rates (default:
    the settings the service's root was built with). The chat request's schema is published under
    ``#/components/schemas``: an app including the router adds it with `publish_request_schema`.

    Example:
        >>> app = FastAPI()  # doctest: +SKIP
        >>> app.include_router(openai_router(service))  # doctest: +SKIP
    """
    router = APIRouter(route_class=OpenAIRoute, tags=["OpenAI-compatible"])
    errors: dict[int | str, dict[str, Any]] = {
        401: {"model": ErrorBody, "description": "Missing, invalid, expired or untrusted token; no data."},
        400: {"model": ErrorBody, "description": "Malformed request; the message names the field."},
        429: {"model": ErrorBody, "description": "Over the request rate; Retry-After says when to try again."},
    }
    guard = Limits(limits or service.root.federation)

    async def caller(
        request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]
    ) -> Caller:
        return await guard.caller(service, request, credentials)  # the token is checked in a worker thread

    # ``Depends(caller)`` goes in defaults: annotations are strings here, and a closure's name cannot be resolved
    # from them. The body is no parameter: it is read only once the caller is verified (a bad token is a 401 with
    # the body unread) and within the cap.
    signed_in: Caller = Depends(caller)

    @router.get("/v1/models", responses=errors)
    def list_models(_: Caller = signed_in) -> ModelList:
        """The models this server offers: one per configured generator."""
        return model_list(service)

    @router.get("/v1/models/{model}", responses=errors | {404: {"model": ErrorBody}})
    def get_model(model: str, _: Caller = signed_in) -> ModelCard:
        """One offered model."""
        for card in model_list(service).data:
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
            413: {"model": ErrorBody, "description": "Body over federation.api_max_body_bytes."},
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChatCompletionRequest"}}},
            }
        },
    )
    async def chat_completions(http: Request, who: Caller = signed_in) -> JSONResponse | StreamingResponse:
        """Answer the last user message from the records the caller may see, citing [n] after every sentence.
        The body is a `ChatCompletionRequest`."""
        request = await guard.body(http)
        job = prepare(service, request, who)
        if request.stream:
            headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
            return StreamingResponse(stream(service, job), media_type="text/event-stream", headers=headers)
        completion = await complete(service, job)
        return JSONResponse(completion.model_dump(mode="json"))

    return router


def publish_request_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (an OpenAPI document) with `ChatCompletionRequest` and the models it uses in its components."""
    published = schema.setdefault("components", {}).setdefault("schemas", {})
    body = ChatCompletionRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in {**body.pop("$defs", {}), "ChatCompletionRequest": body}.items():
        published.setdefault(name, definition)
    return schema


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

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = publish_request_schema(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = "not_found" if error.status_code == 404 else None
        return error_response(ApiError(error.status_code, str(error.detail), code=code))

    return app


api_app = typer.Typer(help="Serve clinrag as an OpenAI-compatible model over the federation.", no_args_is_help=True)


@api_app.command("serve")
def serve_command(
    federation: FederationOption = None,
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
    server_logging()
    console.print(f"OpenAI-compatible API on http://{host}:{port}/v1 — models: {', '.join(service.models)}")
    uvicorn.run(create_openai_app(service), host=host, port=port, log_level="warning")
