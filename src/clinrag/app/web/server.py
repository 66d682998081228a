"""The clinician's web app: sign in at your hospital, ask, watch the answer stream in, inspect every source.

Server-rendered pages (Jinja2, autoescaped), one stylesheet and one small script, no build step. Pages work without
JavaScript (a question is then answered before the page reloads); with it, the answer streams as server-sent
events: ``status``, ``draft`` pieces while a model writes, then ``answer`` (the verified answer and its evidence,
rendered) or ``failed``.

Security: sessions live server-side in SQLite; the cookie holds only a random id signed with the app's key
(HttpOnly, SameSite=Lax, Secure behind TLS). Signing in rotates the session; signing out deletes it. Every form and
every script request carries the session's CSRF token. A Content-Security-Policy allows only the app's own script
and stylesheet. Errors show a short message, never a stack trace or note text; conversations are only ever read
with their owner's id.

Example:
    >>> app = create_web_app(service, WebStore(Path("web.sqlite3")), sign_in, b"secret")  # doctest: +SKIP
    >>> uvicorn.run(app, host="127.0.0.1", port=8300)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Form, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.exceptions import HTTPException as StarletteHTTPException

from clinrag.app.chat_service import MAX_QUESTION_CHARS, Caller, ChatService, Draft, ServiceError
from clinrag.app.openai_models import ClinragExtension, extension
from clinrag.app.web.signin import SignIn
from clinrag.app.web.store import Session, Turn, WebStore
from clinrag.app.web.views import turn_view
from clinrag.calculators.registry import registry
from clinrag.errors import AuthenticationError, ClinragError
from clinrag.federation.root import FederatedSearcher
from clinrag.generate.calculation import filled_question
from clinrag.index.store import Mode
from clinrag.types import Actor, SearchFilters

log = logging.getLogger("clinrag.web")

HERE = Path(__file__).parent
COOKIE = "clinrag_session"
ANONYMOUS_SECONDS = 3600.0
MODES: tuple[Mode, ...] = ("hybrid", "hybrid-mmr", "dense", "bm25")
SOURCE_CHOICES = (3, 5, 8, 10, 15, 20)
NOTE_CHUNKS = 60
SIGNIN_ERRORS = {
    "denied": "The sign-in was cancelled at the identity provider.",
    "expired": "That sign-in link has expired or was already used; please sign in again.",
    "failed": "The identity provider did not confirm who you are; please try again.",
    "unreachable": "Your hospital's identity provider did not answer; please try again shortly.",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)


@dataclass
class WebConfig:
    """How the app signs cookies and how long sessions last."""

    secret: bytes
    secure_cookies: bool = False
    session_seconds: float = 8 * 3600.0


def sign(secret: bytes, value: str) -> str:
    """``value`` with its HMAC-SHA256 signature appended (``value.signature``).

    Example:
        >>> signed = sign(b"k", "abc")
        >>> unsign(b"k", signed), unsign(b"other", signed)
        ('abc', None)
    """
    digest = hmac.new(secret, value.encode(), hashlib.sha256).digest()
    return f"{value}.{base64.urlsafe_b64encode(digest).rstrip(b'=').decode()}"


def unsign(secret: bytes, signed: str) -> str | None:
    """The value of a signed string, or None when the signature does not match."""
    value, _, _ = signed.rpartition(".")
    return value if value and hmac.compare_digest(sign(secret, value), signed) else None


def sse_event(name: str, data: dict[str, Any]) -> bytes:
    """One named server-sent event with a JSON payload.

    Example:
        >>> sse_event("draft", {"text": "a"})
        b'event: draft\\ndata: {"text": "a"}\\n\\n'
    """
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class _Pages:
    """The Jinja2 templates."""

    def __init__(self) -> None:
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True), auto_reload=False
        )

    def render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context)

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.render(name, **context), status_code=status)


def create_web_app(
    service: ChatService,
    store: WebStore,
    signin: SignIn,
    config: WebConfig,
    close_on_shutdown: bool = True,
) -> FastAPI:
    """The web app over ``service``'s federation; ``signin`` knows each hospital's identity provider.

    Example:
        >>> app = create_web_app(service, store, signin, WebConfig(secret=b"k"))  # doctest: +SKIP
    """
    pages = _Pages()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if close_on_shutdown:
            service.verifier.close()
            store.close()

    app = FastAPI(title="clinrag", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if not request.url.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if request.headers.get("accept", "").startswith("application/json"):
            return JSONResponse({"error": str(error.detail)}, status_code=error.status_code)
        return pages.page("error.html", error.status_code, message=str(error.detail), user=None)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        log.error("%s unexpected %s", request.url.path, type(error).__name__)
        return pages.page("error.html", 500, message="Something went wrong; the server's log has the details.")

    # --- sessions ----------------------------------------------------------------------------------------------

    def current(request: Request) -> Session | None:
        signed = request.cookies.get(COOKIE)
        cookie_id = unsign(config.secret, signed) if signed else None
        return store.session(cookie_id) if cookie_id else None

    def set_cookie(response: Response, session: Session) -> None:
        response.set_cookie(
            COOKIE,
            sign(config.secret, session.cookie_id),
            max_age=max(1, int(session.expires - time.time())),
            httponly=True,
            samesite="lax",
            secure=config.secure_cookies,
            path="/",
        )

    def signed_in(request: Request) -> Session:
        session = current(request)
        if session is None or not session.signed_in:
            raise _SignInFirstError
        return session

    def check_csrf(session: Session | None, token: str | None) -> None:
        if session is None or not token or not secrets.compare_digest(session.csrf, token):
            raise StarletteHTTPException(403, "This form has expired; reload the page and try again.")

    def owner(session: Session) -> str:
        assert session.owner is not None
        return session.owner

    def caller(session: Session) -> Caller:
        actor = Actor(
            subject=session.subject or "",
            org=session.org or "",
            role=session.role or "",
            dept=session.dept,
            affiliations=session.affiliations,
        )
        return Caller(actor, session.token or "")

    def user_context(session: Session) -> dict[str, Any]:
        return {
            "user": session,
            "csrf": session.csrf,
            "conversations": store.conversations(owner(session)),
            "models": list(service.models),
            "modes": MODES,
            "source_choices": SOURCE_CHOICES,
            "default_sources": service.settings.sources,
            "organisations": [org.label for org in service.root.orgs],
            "max_question_chars": MAX_QUESTION_CHARS,
        }

    @app.exception_handler(_SignInFirstError)
    async def to_signin(request: Request, _: Exception) -> Response:
        if request.headers.get("accept", "").startswith("application/json") or request.url.path.endswith("/events"):
            return JSONResponse({"error": "sign in first"}, status_code=401)
        return RedirectResponse("/signin", status_code=303)

    # --- pages -------------------------------------------------------------------------------------------------

    @app.get("/healthz", include_in_schema=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        session = signed_in(request)
        return pages.page("chat.html", **user_context(session), conversation=None, turns=[])

    @app.get("/c/{conversation_id}", response_class=HTMLResponse)
    def conversation_page(request: Request, conversation_id: str) -> Response:
        session = signed_in(request)
        conversation = store.conversation(owner(session), conversation_id)
        if conversation is None:
            raise StarletteHTTPException(404, "No such conversation.")
        turns = [render_turn(turn) for turn in store.turns(owner(session), conversation_id)]
        return pages.page("chat.html", **user_context(session), conversation=conversation, turns=turns)

    @app.post("/c/{conversation_id}/delete")
    def delete_conversation(
        request: Request, conversation_id: str, csrf: Annotated[str | None, Form()] = None
    ) -> Response:
        session = signed_in(request)
        check_csrf(session, csrf)
        store.delete_conversation(owner(session), conversation_id)
        return RedirectResponse("/", status_code=303)

    # --- signing in and out ------------------------------------------------------------------------------------

    @app.get("/signin", response_class=HTMLResponse)
    def signin_page(request: Request, error: str | None = None, bye: int = 0) -> Response:
        session = current(request)
        if session is not None and session.signed_in:
            return RedirectResponse("/", status_code=303)
        fresh = session is None
        if session is None:
            session = store.new_session(ANONYMOUS_SECONDS)
        response = pages.page(
            "signin.html",
            providers=list(signin.providers.values()),
            csrf=session.csrf,
            error=SIGNIN_ERRORS.get(error or ""),
            signed_out=bool(bye),
            user=None,
        )
        if fresh:
            set_cookie(response, session)
        return response

    @app.post("/signin")
    async def begin_signin(
        request: Request, org: Annotated[str, Form()], csrf: Annotated[str | None, Form()] = None
    ) -> Response:
        session = current(request)
        check_csrf(session, csrf)
        assert session is not None
        try:
            started = await signin.begin(org)
        except AuthenticationError as error:
            log.warning("sign-in at %s could not start: %s", org, error)
            return RedirectResponse("/signin?error=unreachable", status_code=303)
        store.start_login(session.cookie_id, org, started.state, started.nonce, started.verifier)
        return RedirectResponse(started.url, status_code=303)

    @app.get("/auth/callback")
    async def callback(request: Request, state: str = "", code: str = "", error: str | None = None) -> Response:
        session = current(request)
        if (
            session is None
            or not session.login_state
            or not state
            or not secrets.compare_digest(session.login_state, state)
        ):
            return RedirectResponse("/signin?error=expired", status_code=303)
        store.start_login(session.cookie_id, "", "", "", "")  # a state is good for one try
        if error or not code:
            return RedirectResponse("/signin?error=denied", status_code=303)
        try:
            user = await signin.finish(
                session.login_org or "",
                code,
                session.login_nonce or "",
                session.login_verifier or "",
                session.login_started or 0.0,
                service.verifier,
            )
        except AuthenticationError as failure:
            log.warning("sign-in at %s failed: %s", session.login_org, failure)
            return RedirectResponse("/signin?error=failed", status_code=303)
        store.end_session(session.cookie_id)
        fresh = store.new_session(config.session_seconds, user)
        log.info("signed in subject=%s org=%s", user.subject, user.org)
        response = RedirectResponse("/", status_code=303)
        set_cookie(response, fresh)
        return response

    @app.post("/signout")
    def signout(request: Request, csrf: Annotated[str | None, Form()] = None) -> Response:
        session = current(request)
        check_csrf(session, csrf)
        assert session is not None
        store.end_session(session.cookie_id)
        response = RedirectResponse("/signin?bye=1", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=config.secure_cookies)
        return response

    # --- asking --------------------------------------------------------------------------------------------------

    def render_turn(turn: Turn) -> dict[str, Any]:
        view = None
        if turn.result is not None:
            evidence = ClinragExtension.model_validate(turn.result["clinrag"])
            view = turn_view(turn.id, turn.result["text"], evidence)
        return {"turn": turn, "view": view}

    def turn_html(turn: Turn, csrf: str) -> str:
        return pages.render("turn_result.html", item=render_turn(turn), csrf=csrf)

    async def run_turn(session: Session, turn: Turn) -> AsyncIterator[bytes]:
        """Answer a claimed turn, yielding its events, and store how it ended."""
        who = owner(session)
        options = turn.options
        try:
            job = service.prepare(
                turn.question,
                str(options.get("model")),
                caller(session),
                sources=int(options["sources"]),
                mode=options.get("mode"),
            )
            count = len(service.root.orgs)
            yield sse_event("status", {"text": f"Searching {count} organisation{'s' if count != 1 else ''}…"})
            async for event in service.events(job):
                if isinstance(event, Draft):
                    yield sse_event("draft", {"text": event.text})
                    continue
                evidence = extension(event.answer, event.organisations)
                result = {"text": event.answer.text, "clinrag": evidence.model_dump(mode="json")}
                store.finish_turn(who, turn.id, result, None)
        except (ServiceError, ClinragError) as failure:
            message = failure.message if isinstance(failure, ServiceError) else str(failure)
            log.error("turn %s failed: %s", turn.id, type(failure).__name__)
            store.finish_turn(who, turn.id, None, message)
        except Exception as failure:
            log.error("turn %s failed unexpectedly: %s", turn.id, type(failure).__name__)
            store.finish_turn(who, turn.id, None, "The answer could not be completed; the server's log has details.")
        finally:
            ended = store.turn(who, turn.id)
            if ended is not None and ended.status == "running":  # the client went away mid-answer
                store.finish_turn(who, turn.id, None, "The answer was interrupted before it finished.")
        ended = store.turn(who, turn.id)
        if ended is not None:
            yield sse_event("answer" if ended.status == "done" else "failed", {"html": turn_html(ended, session.csrf)})

    @app.post("/ask")
    async def ask(
        request: Request,
        question: Annotated[str, Form()] = "",
        conversation: Annotated[str, Form()] = "",
        sources: Annotated[int | None, Form()] = None,
        mode: Annotated[str, Form()] = "",
        model: Annotated[str, Form()] = "",
        calculator: Annotated[str, Form()] = "",
        csrf: Annotated[str | None, Form()] = None,
    ) -> Response:
        session = signed_in(request)
        check_csrf(session, csrf or request.headers.get("x-csrf-token"))
        wants_json = request.headers.get("accept", "").startswith("application/json")
        question = question.strip()
        if calculator:  # a calculation's form: the missing inputs a person gave, written into the question
            fills = {
                str(k).removeprefix("fill."): str(v) for k, v in (await request.form()).items() if k.startswith("fill.")
            }
            found_calc = registry().get(calculator)
            question = filled_question(question, found_calc, fills) if found_calc and question else question
        chosen_model = model if model in service.models else next(iter(service.models))
        chosen_mode = mode if mode in MODES else None
        chosen_sources = sources if sources is not None and 1 <= sources <= 50 else service.settings.sources
        problem = None
        if not question:
            problem = "Write a question first."
        elif len(question) > MAX_QUESTION_CHARS:
            problem = f"The question is longer than {MAX_QUESTION_CHARS:,} characters."
        if problem is not None:
            if wants_json:
                return JSONResponse({"error": problem}, status_code=400)
            raise StarletteHTTPException(400, problem)
        who = owner(session)
        found = store.conversation(who, conversation) if conversation else None
        if found is None:
            found = store.new_conversation(who, question)
        options = {"model": chosen_model, "mode": chosen_mode, "sources": chosen_sources}
        turn = store.add_turn(who, found.id, question, options)
        if wants_json:
            return JSONResponse(
                {"turn": turn.id, "conversation": found.id, "title": found.title, "events": f"/turns/{turn.id}/events"}
            )
        if store.claim_turn(who, turn.id):  # without JavaScript: answer now, then show the conversation
            async for _ in run_turn(session, turn):
                pass
        return RedirectResponse(f"/c/{found.id}#turn-{turn.id}", status_code=303)

    @app.get("/turns/{turn_id}/events")
    async def events(request: Request, turn_id: str) -> Response:
        session = signed_in(request)
        turn = store.turn(owner(session), turn_id)
        if turn is None:
            raise StarletteHTTPException(404, "No such question.")

        async def stream() -> AsyncIterator[bytes]:
            if store.claim_turn(owner(session), turn_id):
                async for event in run_turn(session, turn):
                    yield event
                return
            for _ in range(600):  # another request is answering it (a reconnect): wait for its end
                current_turn = store.turn(owner(session), turn_id)
                if current_turn is None:
                    return
                if current_turn.status in ("done", "failed"):
                    name = "answer" if current_turn.status == "done" else "failed"
                    yield sse_event(name, {"html": turn_html(current_turn, session.csrf)})
                    return
                yield b": still working\n\n"
                await asyncio.sleep(0.5)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    @app.get("/turns/{turn_id}/sources/{number}/note", response_class=HTMLResponse)
    async def full_note(request: Request, turn_id: str, number: int) -> Response:
        session = signed_in(request)
        turn = store.turn(owner(session), turn_id)
        if turn is None or turn.result is None:
            raise StarletteHTTPException(404, "No such question.")
        evidence = ClinragExtension.model_validate(turn.result["clinrag"])
        source = next((item for item in evidence.sources if item.number == number), None)
        if source is None or source.kind != "note" or not source.note_id:
            raise StarletteHTTPException(404, "That source is not part of a note.")
        filters = SearchFilters(
            subject_ids=(source.subject_id,) if source.subject_id is not None else None,
            hadm_ids=(source.hadm_id,) if source.hadm_id is not None else None,
            orgs=(source.org,),
            source_kinds=("note",),
        )
        searcher = FederatedSearcher(service.root, session.token or "", mode="dense")
        retrieval = await asyncio.to_thread(searcher.retrieve, source.text, filters, NOTE_CHUNKS)
        chunks = sorted(
            (hit.chunk for hit in retrieval.hits if hit.chunk.note_id == source.note_id), key=lambda c: c.position
        )
        if not chunks:
            raise StarletteHTTPException(403, "You may not open this note.")
        return pages.page("note.html", **user_context(session), source=source, chunks=chunks, turn=turn)

    return app


class _SignInFirstError(Exception):
    """A page that needs a signed-in user was asked for without one."""
