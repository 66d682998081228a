"""Headless OpenID Connect sign-in for the CLI and tests, and a small on-disk token cache.

``sign_in`` runs the authorization-code flow with PKCE (S256), ``state`` and ``nonce`` against an issuer's
discovery document, the way a browser would, but without one: it asks for the consent page, posts the page's
form choosing ``subject``, takes the code from the redirect (which it does not follow), exchanges it at the token
endpoint and checks the ID token (signature against the issuer's JWKS, issuer, audience, expiry, nonce, subject).
The OAuth 2 client is authlib's, as in the web app's sign-in (``clinrag.app.web.signin``): it builds the
authorization URL with the PKCE challenge, checks the redirect's ``state`` and exchanges the code; this module adds
discovery, the consent form and errors that name the issuer and the step that failed.

The consent form is the one of the demo hospitals' identity providers (``oidc-provider-mock``, see
``clinrag.demo.idp``): it signs in whoever is named, without a password. Real providers (Keycloak, Entra ID, Okta)
need a person at a browser: sign in through the web app, or pass an ID token with ``--token`` / ``CLINRAG_TOKEN``.

The ID token is what clinrag sends as its bearer token: every federation node verifies it itself.

Example:
    >>> tokens = sign_in("http://127.0.0.1:9401", "A.phys")  # doctest: +SKIP
    >>> tokens.subject, tokens.issuer  # doctest: +SKIP
    ('A.phys', 'http://127.0.0.1:9401')
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import ssl
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import certifi
import httpx
import jwt
from authlib.integrations.httpx_client import OAuth2Client, OAuthError
from authlib.oauth2.rfc6749 import MismatchingStateException, MissingCodeException
from authlib.oauth2.rfc6749.parameters import parse_authorization_code_response

from clinrag.errors import AuthenticationError

try:  # authlib's httpx client is built on httpx2 when that is installed, else on httpx: catch what it raises
    import httpx2 as transport
except ImportError:  # pragma: no cover - depends on the environment
    import httpx as transport  # type: ignore[no-redef]

TRANSPORT_ERRORS: tuple[type[Exception], ...] = tuple({httpx.HTTPError, transport.HTTPError})
"""What an authlib client raises when a provider cannot be reached or answers garbage: httpx's errors and, when
installed, httpx2's (authlib's client runs on httpx2 then; the web app's sign-in catches these too)."""

DEFAULT_CLIENT_ID = "clinrag"
DEFAULT_REDIRECT_URI = "http://127.0.0.1/callback"
DEMO_CLIENT_SECRET = "clinrag-demo"
"""Client secret sent to the token endpoint. The demo providers accept any secret (it guards nothing) but refuse
public clients."""
SCOPE = "openid profile email"
REFRESH_MARGIN = 60.0
"""A cached token set is reused until this many seconds before it expires."""

_HEADLESS_ONLY = (
    "headless sign-in works only with the demo identity providers; for other providers sign in through the web "
    "app or pass an ID token with --token or CLINRAG_TOKEN"
)


@dataclass(frozen=True)
class TokenSet:
    """What a sign-in returns: the ID token (the bearer token clinrag sends), the access token, when they expire
    (epoch seconds), and who issued them to whom.

    Example:
        >>> TokenSet("eyJ...", "opaque", 1_700_000_000.0, "http://127.0.0.1:9401", "A.phys").expired(at=1.0)
        False
    """

    id_token: str
    access_token: str
    expires_at: float
    issuer: str
    subject: str

    def expired(self, margin: float = 0.0, at: float | None = None) -> bool:
        """True when the tokens expire within ``margin`` seconds of ``at`` (default: now)."""
        return (time.time() if at is None else at) + margin >= self.expires_at


def sign_in(
    issuer: str,
    subject: str,
    client_id: str = DEFAULT_CLIENT_ID,
    redirect_uri: str = DEFAULT_REDIRECT_URI,
    timeout: float = 5.0,
    *,
    client_secret: str | None = DEMO_CLIENT_SECRET,
) -> TokenSet:
    """Sign ``subject`` in at the demo identity provider ``issuer`` and return the verified token set.

    ``issuer`` must be the exact issuer URL the provider announces (``http://127.0.0.1:9401``, not
    ``http://localhost:9401``: the demo providers name themselves after the host they were reached at).
    ``client_secret=None`` signs in as a public client (PKCE only), which the demo providers refuse.
    Every failure raises ``AuthenticationError`` saying which step failed; tokens never appear in messages.

    Example:
        >>> sign_in("http://127.0.0.1:9402", "B.nurse").subject  # doctest: +SKIP
        'B.nurse'
    """
    issuer = issuer.rstrip("/")
    state, nonce, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(64)
    with OAuth2Client(
        client_id=client_id,
        client_secret=client_secret,
        scope=SCOPE,
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="none" if client_secret is None else "client_secret_basic",
        timeout=timeout,
        follow_redirects=False,
        verify=_tls_context(),
    ) as client:
        metadata = _discover(client, issuer)
        authorize_url, _ = client.create_authorization_url(
            metadata["authorization_endpoint"], state=state, nonce=nonce, code_verifier=verifier
        )
        with _step(issuer, "authorization page"):
            page = client.request("GET", authorize_url, withhold_token=True)
        if page.status_code != 200:
            raise AuthenticationError(
                f"{issuer} refused the authorization request (HTTP {page.status_code}){_reason(page)}"
            )
        with _step(issuer, "consent form"):
            consent = client.request("POST", authorize_url, data={"sub": subject}, withhold_token=True)
        code = _code_from(consent, issuer, subject, redirect_uri, state)
        with _step(issuer, "token endpoint"):
            tokens = client.fetch_token(metadata["token_endpoint"], code=code, code_verifier=verifier)
        id_token, access_token = tokens.get("id_token"), tokens.get("access_token")
        if not isinstance(id_token, str) or not isinstance(access_token, str):
            raise AuthenticationError(f"{issuer} token endpoint returned no ID token or no access token")
        with _step(issuer, "JWKS"):
            keys = _json(client.request("GET", metadata["jwks_uri"], withhold_token=True), issuer, "JWKS")
    claims = verify_id_token(id_token, keys, issuer, client_id, nonce)
    if claims.get("sub") != subject:
        raise AuthenticationError(f"{issuer} issued an ID token for another subject than {subject!r}")
    return TokenSet(id_token, access_token, float(claims["exp"]), issuer, subject)


@cache
def _tls_context() -> ssl.SSLContext:
    """The TLS settings (certifi's roots), built once: building them per client takes a third of a sign-in."""
    return ssl.create_default_context(cafile=certifi.where())


@contextlib.contextmanager
def _step(issuer: str, step: str) -> Iterator[None]:
    """Turn what the HTTP client or authlib raise during ``step`` into an ``AuthenticationError`` naming both."""
    try:
        yield
    except transport.TimeoutException as exc:
        raise AuthenticationError(f"identity provider {issuer} timed out ({step}: {type(exc).__name__})") from exc
    except transport.HTTPStatusError as exc:  # authlib: a token endpoint answering 5xx or no JSON object
        raise AuthenticationError(
            f"{issuer} {step} answered HTTP {exc.response.status_code}{_reason(exc.response)}"
        ) from exc
    except TRANSPORT_ERRORS as exc:
        raise AuthenticationError(
            f"identity provider unreachable at {issuer} ({step}: {type(exc).__name__}: {exc})"
        ) from exc
    except OAuthError as exc:  # the token endpoint's OAuth error, e.g. invalid_client or invalid_grant
        detail = f": {exc.description}" if exc.description else ""
        raise AuthenticationError(f"{issuer} {step} refused the code ({exc.error}{detail})") from exc
    except ValueError as exc:  # authlib: a 2xx token response that is not a JSON object
        raise AuthenticationError(f"{issuer} {step} answered without a JSON object") from exc


def _discover(client: OAuth2Client, issuer: str) -> dict[str, Any]:
    """The issuer's discovery document, checked to name ``issuer`` and the endpoints sign-in needs."""
    with _step(issuer, "discovery"):
        response = client.request("GET", f"{issuer}/.well-known/openid-configuration", withhold_token=True)
    if response.status_code != 200:
        raise AuthenticationError(f"{issuer} is not an OpenID provider: discovery answered HTTP {response.status_code}")
    metadata = _json(response, issuer, "discovery")
    if metadata.get("issuer") != issuer:
        raise AuthenticationError(
            f"the provider at {issuer} calls itself {metadata.get('issuer')!r}; use exactly that issuer URL"
        )
    missing = [key for key in ("authorization_endpoint", "token_endpoint", "jwks_uri") if not metadata.get(key)]
    if missing:
        raise AuthenticationError(f"{issuer} discovery document lacks {', '.join(missing)}")
    return metadata


def _json(response: transport.Response, issuer: str, step: str) -> dict[str, Any]:
    """The response's JSON object, or an ``AuthenticationError`` saying the step answered something else."""
    try:
        value = response.json()
    except ValueError as exc:
        raise AuthenticationError(f"{issuer} {step} answered HTTP {response.status_code} without JSON") from exc
    if not isinstance(value, dict):
        raise AuthenticationError(f"{issuer} {step} answered a JSON {type(value).__name__}, not an object")
    return value


def _reason(response: transport.Response) -> str:
    """``: first line of the body`` for short plain-text error pages, else nothing (HTML stays out of messages)."""
    if not response.headers.get("content-type", "").startswith("text/plain"):
        return ""
    first = response.text.strip().splitlines()[:1]
    return f": {first[0][:200]}" if first else ""


def _code_from(response: transport.Response, issuer: str, subject: str, redirect_uri: str, state: str) -> str:
    """The authorization code from the consent form's redirect, after checking where it goes and its ``state``."""
    if response.status_code == 403:
        raise AuthenticationError(f"unknown user {subject!r} at {issuer}{_reason(response)}")
    location = response.headers.get("location")
    if not response.is_redirect or not location:
        raise AuthenticationError(
            f"{issuer} issued no authorization code for the consent form (HTTP {response.status_code}); "
            + _HEADLESS_ONLY
        )
    target, expected = urlsplit(location), urlsplit(redirect_uri)
    if (target.scheme, target.netloc, target.path) != (expected.scheme, expected.netloc, expected.path):
        raise AuthenticationError(f"{issuer} redirected somewhere else than {redirect_uri}; " + _HEADLESS_ONLY)
    query = {key: values[0] for key, values in parse_qs(target.query).items()}
    if "error" in query:
        description = f": {query['error_description'][:200]}" if query.get("error_description") else ""
        raise AuthenticationError(f"{issuer} refused the sign-in of {subject!r} ({query['error']}{description})")
    try:
        return str(parse_authorization_code_response(location, state=state)["code"])
    except MismatchingStateException:
        raise AuthenticationError(f"{issuer} answered with a state that does not match the request's") from None
    except MissingCodeException:
        raise AuthenticationError(f"{issuer} redirected without an authorization code") from None


def verify_id_token(id_token: str, jwks: dict[str, Any], issuer: str, client_id: str, nonce: str) -> dict[str, Any]:
    """The ID token's claims after checking signature (any matching JWKS key), issuer, audience, expiry, nonce.

    Raises:
        AuthenticationError: the token or key set is unreadable, or any check fails (the message says which).
    """
    try:
        header = jwt.get_unverified_header(id_token)
        keyset = jwt.PyJWKSet.from_dict(jwks)
    except (jwt.PyJWTError, ValueError) as exc:
        raise AuthenticationError(
            f"{issuer} returned an unreadable ID token or key set ({type(exc).__name__})"
        ) from exc
    kid = header.get("kid")
    # The demo providers sign without a ``kid`` header: then every key of the set is a candidate.
    candidates = [key for key in keyset.keys if kid is None or key.key_id == kid]
    if not candidates:
        raise AuthenticationError(f"{issuer} signed the ID token with a key its JWKS does not list")
    failure: jwt.PyJWTError | None = None
    for key in candidates:
        try:
            claims: dict[str, Any] = jwt.decode(
                id_token,
                key.key,
                algorithms=["RS256", "ES256", "PS256"],
                audience=client_id,
                issuer=issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
                leeway=5,
            )
        except jwt.InvalidSignatureError as exc:
            failure = exc
            continue
        except jwt.PyJWTError as exc:
            raise AuthenticationError(f"{issuer} returned an ID token that fails verification: {exc}") from exc
        if not isinstance(claims.get("nonce"), str) or not secrets.compare_digest(
            claims["nonce"].encode(), nonce.encode()
        ):
            raise AuthenticationError(f"{issuer} returned an ID token whose nonce does not match the request's")
        return claims
    raise AuthenticationError(f"{issuer} returned an ID token whose signature does not verify ({failure})")


class TokenCache:
    """Token sets on disk, one JSON file (mode 0600, in a 0700 folder) per issuer, subject and client.

    Example:
        >>> import tempfile
        >>> cache = TokenCache(Path(tempfile.mkdtemp()))
        >>> cache.put(TokenSet("id", "at", time.time() + 3600, "http://127.0.0.1:9401", "A.phys"))
        >>> cache.get("http://127.0.0.1:9401", "A.phys").access_token
        'at'
    """

    def __init__(self, folder: Path, margin: float = REFRESH_MARGIN) -> None:
        self.folder = folder
        self.margin = margin

    def path(self, issuer: str, subject: str, client_id: str = DEFAULT_CLIENT_ID) -> Path:
        """The file holding the token set of ``subject`` at ``issuer`` for ``client_id``."""
        key = "\x1f".join((issuer.rstrip("/"), subject, client_id)).encode()
        return self.folder / f"{hashlib.sha256(key).hexdigest()[:32]}.json"

    def get(self, issuer: str, subject: str, client_id: str = DEFAULT_CLIENT_ID) -> TokenSet | None:
        """The cached token set if it stays valid for ``margin`` more seconds; None if absent, stale, unreadable,
        or readable by anyone but the owner."""
        path = self.path(issuer, subject, client_id)
        try:
            if stat.S_IMODE(path.stat().st_mode) & 0o077:
                return None
            data = json.loads(path.read_text(encoding="utf-8"))
            tokens = TokenSet(**data)
        except (OSError, ValueError, TypeError):
            return None
        if tokens.issuer != issuer.rstrip("/") or tokens.subject != subject or tokens.expired(self.margin):
            return None
        return tokens

    def put(self, tokens: TokenSet, client_id: str = DEFAULT_CLIENT_ID) -> None:
        """Store ``tokens`` atomically, readable by the owner only."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.path(tokens.issuer, tokens.subject, client_id)
        descriptor, temporary = tempfile.mkstemp(dir=self.folder, prefix=".token-", suffix=".tmp")
        try:
            os.fchmod(descriptor, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(asdict(tokens), handle)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def remove(self, issuer: str, subject: str, client_id: str = DEFAULT_CLIENT_ID) -> None:
        """Forget the token set of ``subject`` at ``issuer`` (nothing happens if there is none)."""
        self.path(issuer, subject, client_id).unlink(missing_ok=True)


def get_token(
    issuer: str,
    subject: str,
    cache: TokenCache | None = None,
    *,
    client_id: str = DEFAULT_CLIENT_ID,
    timeout: float = 5.0,
) -> str:
    """An ID token for ``subject`` at ``issuer``: the cached one while it is valid for 60 s more, else a new
    sign-in (stored in ``cache``).

    Example:
        >>> cache = TokenCache(Path("~/.cache/clinrag/tokens").expanduser())
        >>> get_token("http://127.0.0.1:9401", "A.phys", cache)  # doctest: +SKIP
        'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9...'
    """
    if cache is not None and (cached := cache.get(issuer, subject, client_id)) is not None:
        return cached.id_token
    tokens = sign_in(issuer, subject, client_id=client_id, timeout=timeout)
    if cache is not None:
        cache.put(tokens, client_id)
    return tokens.id_token
