"""The demo hospitals' identity providers: one ``oidc-provider-mock`` OpenID Connect provider per hospital.

Each provider knows only its own hospital's demo users (``clinrag.access.demo.DEMO_USERS``) and puts their
attributes into the ID tokens it signs (RS256, audience = the client id): ``org``, ``role``, ``dept`` ("" when
none), ``affiliations`` (a list), ``name`` and ``email``. Its consent page lists those users as one-click buttons;
there are no passwords. The issuer is ``http://HOST:PORT`` exactly as the client reached it, so clients and nodes
must use ``http://127.0.0.1:PORT`` (not ``localhost``).

Around the mock sits a guard that makes it behave like a hospital's provider rather than a test double:
PKCE with S256 is required and checked at the token endpoint (the mock ignores ``code_challenge``), unknown users
are refused (the mock would create them on the fly) and claims cannot be rewritten over HTTP (``PUT /users/...``).

Run one from the shell with ``clinrag idp serve --org A`` (or ``python -m clinrag.app.idp_cli serve --org A``).

Example:
    >>> with start_provider("B") as provider:  # doctest: +SKIP
    ...     provider.issuer
    'http://127.0.0.1:40123'
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import importlib
import io
import json
import logging
import re
import socket
import threading
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import httpx
from werkzeug.debug import DebuggedApplication
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from clinrag.access.demo import DEMO_USERS
from clinrag.errors import ConfigError
from clinrag.types import Actor

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

_log = logging.getLogger(__name__)

DEMO_IDP_PORTS: dict[str, int] = {"A": 9401, "B": 9402, "C": 9403}
"""The port each demo hospital's identity provider listens on by default."""

_AUTHORIZE = "/oauth2/authorize"
_TOKEN = "/oauth2/token"
_DISCOVERY = "/.well-known/openid-configuration"
_PKCE_VALUE = re.compile(r"[A-Za-z0-9._~-]{43,128}")
_CODE_LIFETIME = 600.0
_MAX_FORM_BYTES = 65_536


def demo_claims(actor: Actor) -> dict[str, object]:
    """The claims a demo provider puts into ``actor``'s ID token (besides ``sub``, ``iss``, ``aud``, ...).

    Example:
        >>> from clinrag.access.demo import demo_user
        >>> demo_claims(demo_user("A.admin"))["dept"], demo_claims(demo_user("A.admin"))["email"]
        ('', 'a.admin@hospital-a.example')
    """
    place = f"{actor.role}, {actor.dept}" if actor.dept else actor.role
    return {
        "org": actor.org,
        "role": actor.role,
        "dept": actor.dept or "",
        "affiliations": list(actor.affiliations),
        "name": f"{actor.subject} ({place}, hospital {actor.org})",
        "email": f"{actor.subject.lower()}@hospital-{actor.org.lower()}.example",
    }


def org_users(org: str) -> tuple[Actor, ...]:
    """Hospital ``org``'s demo users; ``ConfigError`` names the known hospitals otherwise.

    Example:
        >>> [user.subject for user in org_users("C")]
        ['C.research']
    """
    users = tuple(user for user in DEMO_USERS if user.org == org)
    if not users:
        known = sorted({user.org for user in DEMO_USERS})
        raise ConfigError(f"no demo hospital {org!r}; known: {', '.join(known)}")
    return users


def demo_provider_app(org: str, token_max_age: timedelta = timedelta(hours=8)) -> WSGIApplication:
    """A WSGI app: hospital ``org``'s OpenID provider with its demo users, tokens valid for ``token_max_age``.

    Example:
        >>> app = demo_provider_app("A")
        >>> callable(app)
        True
    """
    users = org_users(org)
    mock = _mock_module()
    flask_app = mock.app(
        user_claims=[mock.User(sub=user.subject, claims=demo_claims(user)) for user in users],
        access_token_max_age=token_max_age,
        require_nonce=True,
    )
    # The mock turns on Flask's debug mode and werkzeug's traceback pages; a hospital's provider shows neither.
    flask_app.debug = False
    if isinstance(flask_app.wsgi_app, DebuggedApplication):
        flask_app.wsgi_app = flask_app.wsgi_app.app
    return _ProviderGuard(flask_app, org, frozenset(user.subject for user in users))


def _mock_module() -> Any:
    """``oidc_provider_mock``, imported without its authlib deprecation warning."""
    with warnings.catch_warnings():
        importlib.import_module("authlib.deprecate")  # installs an "always" filter; ours must go in front of it
        warnings.simplefilter("ignore", DeprecationWarning)
        import oidc_provider_mock

    return oidc_provider_mock


@dataclass
class _ProviderGuard:
    """WSGI middleware around the mock: PKCE (S256) required and verified, only known users, fixed claims."""

    app: WSGIApplication
    org: str
    subjects: frozenset[str]
    _challenges: dict[str, tuple[str, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if path == _AUTHORIZE:
            return self._authorize(environ, start_response, method)
        if path == _TOKEN and method == "POST":
            return self._token(environ, start_response)
        if path == _DISCOVERY and method == "GET":
            return self._discovery(environ, start_response)
        if path.startswith("/users/") and method not in ("GET", "HEAD"):
            return _plain(start_response, "403 Forbidden", f"the users of hospital {self.org} cannot be changed")
        return self.app(environ, start_response)

    def _authorize(self, environ: WSGIEnvironment, start_response: StartResponse, method: str) -> Iterable[bytes]:
        query = parse_qs(environ.get("QUERY_STRING", ""))
        challenge = query.get("code_challenge", [""])
        if (
            len(challenge) != 1
            or query.get("code_challenge_method") != ["S256"]
            or not _PKCE_VALUE.fullmatch(challenge[0])
        ):
            return _plain(
                start_response,
                "400 Bad Request",
                "PKCE is required: send one code_challenge (43-128 characters) with code_challenge_method=S256",
            )
        if method != "POST":
            status, headers, body = _captured(self.app, environ)
            if status.startswith("200"):  # the mock accepted the request: show clinrag's consent step instead
                return self._consent_page(query, start_response)
            start_response(status, headers)
            return [body]
        form = _read_form(environ)
        if form is None:
            return _plain(start_response, "415 Unsupported Media Type", "send the consent form form-urlencoded")
        strangers = [subject for subject in form.get("sub", []) if subject not in self.subjects]
        if strangers and form.get("action") != ["deny"]:
            subject, known = strangers[0], ", ".join(sorted(self.subjects))
            return _plain(
                start_response, "403 Forbidden", f"unknown user {subject!r} at hospital {self.org}; known: {known}"
            )

        def remember_code(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if status[:3] in ("302", "303"):
                location = next((value for name, value in headers if name.lower() == "location"), "")
                for code in parse_qs(urlsplit(location).query).get("code", [])[:1]:
                    self._remember(code, challenge[0])
            return start_response(status, headers, exc_info)

        return self.app(environ, remember_code)

    def _consent_page(self, query: dict[str, list[str]], start_response: StartResponse) -> Iterable[bytes]:
        """The consent step: who the client is, where the browser goes next, and for each user the exact
        attributes the ID token will share. No outside stylesheet (the mock's own page loads one from a CDN)."""
        client = html.escape(query.get("client_id", ["?"])[0])
        target = html.escape(query.get("redirect_uri", ["?"])[0])
        users = "".join(
            f'<li><button type="submit" name="sub" value="{html.escape(user.subject)}">Sign in as '
            f"<strong>{html.escape(user.subject)}</strong></button><dl>"
            + "".join(
                f"<dt>{html.escape(name)}</dt><dd>{html.escape(_claim_text(value))}</dd>"
                for name, value in demo_claims(user).items()
            )
            + "</dl></li>"
            for user in DEMO_USERS
            if user.subject in self.subjects
        )
        shared = ", ".join(_SHARED_CLAIMS)
        page = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>Hospital {html.escape(self.org)} sign-in</title>'
            f"<style>{_CONSENT_STYLE}</style></head><body><main>"
            f"<h1>Hospital {html.escape(self.org)} identity provider</h1>"
            f"<p><strong>{client}</strong> asks to know who you are. If you agree, it receives an ID token with "
            f"these attributes: <strong>{shared}</strong>. You will then return to <code>{target}</code>.</p>"
            f'<h2>Demo users (no password)</h2><form method="post"><ul class="users">{users}</ul></form>'
            '<form method="post"><button type="submit" name="action" value="deny" class="deny">Deny</button></form>'
            "</main></body></html>"
        ).encode()
        headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(page)))]
        start_response("200 OK", [*headers, ("Cache-Control", "no-store"), ("X-Frame-Options", "DENY")])
        return [page]

    def _remember(self, code: str, challenge: str) -> None:
        now = time.monotonic()
        with self._lock:
            for stale in [key for key, (_, made) in self._challenges.items() if now - made > _CODE_LIFETIME]:
                del self._challenges[stale]
            self._challenges[code] = (challenge, now)

    def _token(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        form = _read_form(environ)
        if form is None:
            return _oauth_error(start_response, "invalid_request", "send the token request form-urlencoded")
        # authlib reads parameters from the query string and the form alike: check both, and only single values.
        values = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        for name, given in form.items():
            values.setdefault(name, []).extend(given)
        if values.get("grant_type") == ["refresh_token"]:
            return self.app(environ, start_response)
        single = {name: given[0] for name, given in values.items() if len(given) == 1}
        if single.get("grant_type") != "authorization_code" or "code" not in single:
            return _oauth_error(start_response, "invalid_request", "send one grant_type and one code")
        with self._lock:
            # A code is checked once: a failed attempt burns it here, whatever the mock still remembers.
            entry = self._challenges.pop(single["code"], None)
        if entry is None or time.monotonic() - entry[1] > _CODE_LIFETIME:
            return _oauth_error(start_response, "invalid_grant", "unknown, used or expired authorization code")
        verifier = single.get("code_verifier", "")
        if not _PKCE_VALUE.fullmatch(verifier):
            return _oauth_error(start_response, "invalid_request", "missing or malformed code_verifier")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=")
        if not hmac.compare_digest(digest, entry[0].encode("ascii")):
            return _oauth_error(start_response, "invalid_grant", "code_verifier does not match code_challenge")
        return self.app(environ, start_response)

    def _discovery(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        status, headers, body = _captured(self.app, environ)
        if status.startswith("200"):
            metadata = json.loads(body)
            metadata["code_challenge_methods_supported"] = ["S256"]
            body = json.dumps(metadata, indent=2).encode()
        headers = [(name, value) for name, value in headers if name.lower() != "content-length"]
        start_response(status, [*headers, ("Content-Length", str(len(body)))])
        return [body]


_SHARED_CLAIMS = ("sub", "name", "email", "org", "role", "dept", "affiliations")
_CONSENT_STYLE = (
    "body{font-family:system-ui,sans-serif;background:#f4f6f8;color:#1b1f24;margin:0}"
    "main{max-width:40rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border:1px solid #d5dae1;"
    "border-radius:12px}.users{list-style:none;padding:0}.users li{border:1px solid #d5dae1;border-radius:8px;"
    "padding:.6rem .8rem;margin:.5rem 0}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 .8rem;"
    "font-size:.85rem;color:#4a5563;margin:.4rem 0 0}dt{font-weight:600}dd{margin:0}"
    "button{font:inherit;border:1px solid #0b5cad;background:#0b5cad;color:#fff;border-radius:6px;"
    "padding:.35rem .8rem;cursor:pointer}.deny{background:#fff;color:#a11d2b;border-color:#a11d2b}"
    ":focus-visible{outline:3px solid #f5a623;outline-offset:2px}"
)


def _captured(app: WSGIApplication, environ: WSGIEnvironment) -> tuple[str, list[tuple[str, str]], bytes]:
    """Run ``app`` on ``environ`` and return its status, headers and whole body instead of sending them."""
    captured: list[tuple[str, list[tuple[str, str]]]] = []

    def keep(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        captured.append((status, headers))
        return lambda data: None

    chunks = app(environ, keep)
    try:
        body = b"".join(chunks)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    status, headers = captured[-1]
    return status, headers, body


def _claim_text(value: object) -> str:
    """A claim's value as the consent page shows it (lists joined; empty as a dash)."""
    text = ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)
    return text or "—"


def _read_form(environ: WSGIEnvironment) -> dict[str, list[str]] | None:
    """The request's url-encoded form (the body is put back for the app); None if the body is of another kind."""
    try:
        length = min(int(environ.get("CONTENT_LENGTH") or 0), _MAX_FORM_BYTES)
    except ValueError:
        return None
    body = environ["wsgi.input"].read(length) if length > 0 else b""
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    content_type = environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if body and content_type != "application/x-www-form-urlencoded":
        return None
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)


def _plain(start_response: StartResponse, status: str, message: str) -> list[bytes]:
    body = (message + "\n").encode()
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]


def _oauth_error(start_response: StartResponse, error: str, description: str) -> list[bytes]:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Cache-Control", "no-store")]
    start_response("400 Bad Request", headers)
    return [body]


class _QuietRequestHandler(WSGIRequestHandler):
    """Sends werkzeug's per-request lines to ``logging`` at DEBUG (path only: no codes or states) instead of stderr."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        _log.debug("%s %s -> %s", self.command, urlsplit(self.path).path, code)

    def log_error(self, format: str, *args: Any) -> None:
        _log.warning("identity provider: " + format, *args)

    def log_message(self, format: str, *args: Any) -> None:
        _log.debug(format, *args)


class RunningProvider:
    """A demo identity provider serving in a daemon thread; ``stop()`` (or leaving the ``with`` block) ends it.

    Example:
        >>> with start_provider("A") as provider:  # doctest: +SKIP
        ...     provider.port > 0
        True
    """

    def __init__(self, org: str, server: BaseWSGIServer, thread: threading.Thread, issuer: str) -> None:
        self.org = org
        self.issuer = issuer
        self.port: int = server.port
        self._server = server
        self._thread = thread
        self._stopped = False

    def stop(self) -> None:
        """Stop serving and close the socket; calling it again does nothing."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> RunningProvider:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningProvider(org={self.org!r}, issuer={self.issuer!r})"


def start_provider(
    org: str,
    port: int = 0,
    host: str = "127.0.0.1",
    *,
    token_max_age: timedelta = timedelta(hours=8),
    timeout: float = 5.0,
) -> RunningProvider:
    """Serve hospital ``org``'s identity provider on ``host:port`` (0: a free port) in a daemon thread.

    Returns once the provider answers its discovery document. The issuer is ``http://HOST:PORT`` (``127.0.0.1``
    when listening on all interfaces). A port in use raises ``ConfigError``.

    Example:
        >>> provider = start_provider("C", port=9403)  # doctest: +SKIP
        >>> provider.issuer  # doctest: +SKIP
        'http://127.0.0.1:9403'
        >>> provider.stop()  # doctest: +SKIP
    """
    app = demo_provider_app(org, token_max_age)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
        # werkzeug would print to stderr and sys.exit(1) on a bind error; a bound socket avoids that.
        server = make_server(host, port, app, threaded=True, request_handler=_QuietRequestHandler, fd=listener.fileno())
    except OSError as exc:
        raise ConfigError(f"cannot serve hospital {org}'s identity provider on {host}:{port}: {exc.strerror}") from exc
    finally:
        listener.close()
    shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    issuer = f"http://{f'[{shown}]' if ':' in shown else shown}:{server.port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.name = f"clinrag-idp-{org}"
    thread.start()
    provider = RunningProvider(org, server, thread, issuer)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(issuer + _DISCOVERY, timeout=1.0).status_code == httpx.codes.OK:
                return provider
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            provider.stop()
            raise ConfigError(f"hospital {org}'s identity provider did not answer at {issuer} within {timeout:g} s")
        time.sleep(0.02)
