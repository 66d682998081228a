"""Headless sign-in against real demo identity providers on 127.0.0.1, and the on-disk token cache."""

from __future__ import annotations

import socket
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import jwt
import pytest
from werkzeug.serving import make_server

from clinrag.access.login import REFRESH_MARGIN, TokenCache, TokenSet, get_token, sign_in
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.errors import AuthenticationError

pytestmark = [pytest.mark.timeout(60), pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")]


@pytest.fixture(scope="module")
def provider_a() -> Iterator[RunningProvider]:
    with start_provider("A") as provider:
        yield provider


@pytest.fixture(scope="module")
def provider_b() -> Iterator[RunningProvider]:
    with start_provider("B") as provider:
        yield provider


def _verified_claims(provider: RunningProvider, id_token: str) -> dict[str, Any]:
    """The token's claims, verified against the provider's JWKS (its keys carry a kid, its tokens do not)."""
    keys = jwt.PyJWKClient(f"{provider.issuer}/jwks").get_signing_keys()
    assert len(keys) == 1
    claims: dict[str, Any] = jwt.decode(
        id_token, keys[0].key, algorithms=["RS256"], audience="clinrag", issuer=provider.issuer
    )
    return claims


def test_sign_in_as_a_physician_of_hospital_a(provider_a: RunningProvider) -> None:
    before = time.time()
    tokens = sign_in(provider_a.issuer, "A.phys")
    claims = _verified_claims(provider_a, tokens.id_token)
    assert (tokens.issuer, tokens.subject) == (provider_a.issuer, "A.phys")
    assert claims["iss"] == provider_a.issuer
    assert claims["aud"] == ["clinrag"]
    assert claims["sub"] == "A.phys"
    assert (claims["org"], claims["role"], claims["dept"], claims["affiliations"]) == ("A", "physician", "medicine", [])
    assert claims["email"] == "a.phys@hospital-a.example"
    assert "A.phys" in claims["name"]
    assert isinstance(claims["nonce"], str)
    assert tokens.expires_at == claims["exp"]
    assert before + 8 * 3600 - 5 <= tokens.expires_at <= time.time() + 8 * 3600 + 5
    assert tokens.access_token
    assert tokens.access_token != tokens.id_token


def test_sign_in_as_a_nurse_of_hospital_b(provider_b: RunningProvider) -> None:
    tokens = sign_in(provider_b.issuer + "/", "B.nurse", timeout=30.0)
    claims = _verified_claims(provider_b, tokens.id_token)
    assert tokens.issuer == provider_b.issuer
    assert (claims["sub"], claims["org"], claims["role"], claims["dept"]) == ("B.nurse", "B", "nurse", "medicine")
    userinfo = httpx.get(f"{provider_b.issuer}/userinfo", headers={"Authorization": f"Bearer {tokens.access_token}"})
    assert userinfo.json()["org"] == "B"


def test_each_sign_in_mints_new_tokens(provider_a: RunningProvider) -> None:
    first, second = sign_in(provider_a.issuer, "A.nurse"), sign_in(provider_a.issuer, "A.nurse")
    assert first.id_token != second.id_token
    assert (
        jwt.decode(first.id_token, options={"verify_signature": False})["nonce"]
        != jwt.decode(second.id_token, options={"verify_signature": False})["nonce"]
    )


@pytest.mark.parametrize(("subject", "org"), [("nobody", "A"), ("B.phys", "A"), ("A.phys", "B")])
def test_unknown_subject_is_refused(
    provider_a: RunningProvider, provider_b: RunningProvider, subject: str, org: str
) -> None:
    provider = provider_a if org == "A" else provider_b
    with pytest.raises(AuthenticationError, match=f"unknown user '{subject}' at {provider.issuer}"):
        sign_in(provider.issuer, subject)


def test_provider_down_fails_fast_with_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.perf_counter()
    with pytest.raises(AuthenticationError, match=rf"identity provider unreachable at http://127\.0\.0\.1:{port}"):
        sign_in(f"http://127.0.0.1:{port}", "A.phys", timeout=60.0)
    assert time.perf_counter() - started < 5.0  # refused at once, not after the 60 s timeout


def test_provider_that_never_answers_times_out() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        issuer = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.perf_counter()
        with pytest.raises(AuthenticationError, match="timed out"):
            sign_in(issuer, "A.phys", timeout=0.3)
        assert time.perf_counter() - started < 4.0  # the timeout given, not the default 5 s


def test_not_an_openid_provider(provider_a: RunningProvider) -> None:
    with pytest.raises(AuthenticationError, match="not an OpenID provider: discovery answered HTTP 404"):
        sign_in(f"{provider_a.issuer}/nowhere", "A.phys")


# A tampering proxy: a real server in front of a provider that forwards everything (with the caller's Host, so the
# provider names itself after the proxy) and changes one thing, the way a broken provider or an attacker would.


@contextmanager
def _proxy(backend: RunningProvider, tamper: str) -> Iterator[str]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path, query = environ["PATH_INFO"], environ.get("QUERY_STRING", "")
        if tamper == "nonce" and path == "/oauth2/authorize":
            query = urlencode([(k, "a-nonce-from-another-request" if k == "nonce" else v) for k, v in parse_qsl(query)])
        length = int(environ.get("CONTENT_LENGTH") or 0)
        headers = {"Host": environ["HTTP_HOST"] if tamper != "host" else urlsplit(backend.issuer).netloc}
        for name in ("CONTENT_TYPE", "HTTP_AUTHORIZATION"):
            if environ.get(name):
                headers[name.removeprefix("HTTP_").replace("_", "-").title()] = environ[name]
        answer = httpx.request(
            environ["REQUEST_METHOD"],
            f"{backend.issuer}{path}?{query}",
            content=environ["wsgi.input"].read(length) if length else b"",
            headers=headers,
        )
        status, body = f"{answer.status_code} {answer.reason_phrase}", answer.content
        if tamper == "consent-page" and path == "/oauth2/authorize":
            status, body = "200 OK", b"<html>Sign in with your password</html>"
        kept = [(k, v) for k, v in answer.headers.items() if k.lower() in ("content-type", "location", "cache-control")]
        for index, (name, value) in enumerate(kept):
            if tamper == "state" and name.lower() == "location":
                parts = urlsplit(value)
                changed = [(k, "forged" if k == "state" else v) for k, v in parse_qsl(parts.query)]
                kept[index] = (name, urlunsplit(parts._replace(query=urlencode(changed))))
        start_response(status, [*kept, ("Content-Length", str(len(body)))])
        return [body]

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        thread.join(2)


def test_honest_proxy_signs_in(provider_a: RunningProvider) -> None:
    with _proxy(provider_a, "none") as issuer:
        assert sign_in(issuer, "A.phys").issuer == issuer


def test_id_token_with_another_nonce_is_rejected(provider_a: RunningProvider) -> None:
    with _proxy(provider_a, "nonce") as issuer, pytest.raises(AuthenticationError, match="nonce does not match"):
        sign_in(issuer, "A.phys")


def test_redirect_with_another_state_is_rejected(provider_a: RunningProvider) -> None:
    with _proxy(provider_a, "state") as issuer, pytest.raises(AuthenticationError, match="state that does not match"):
        sign_in(issuer, "A.phys")


def test_issuer_must_match_discovery(provider_a: RunningProvider) -> None:
    with _proxy(provider_a, "host") as issuer, pytest.raises(AuthenticationError, match="use exactly that issuer"):
        sign_in(issuer, "A.phys")


def test_provider_with_a_real_login_page_points_to_the_alternatives(provider_a: RunningProvider) -> None:
    with _proxy(provider_a, "consent-page") as issuer, pytest.raises(AuthenticationError, match="CLINRAG_TOKEN"):
        sign_in(issuer, "A.phys")


def test_public_client_is_refused_by_the_demo_provider(provider_a: RunningProvider) -> None:
    with pytest.raises(AuthenticationError, match="invalid_client"):
        sign_in(provider_a.issuer, "A.phys", client_secret=None)


def test_other_client_id_becomes_the_audience(provider_a: RunningProvider) -> None:
    tokens = sign_in(provider_a.issuer, "A.admin", client_id="clinrag-web")
    claims = jwt.decode(tokens.id_token, options={"verify_signature": False})
    assert claims["aud"] == ["clinrag-web"]
    assert claims["dept"] == ""


# Token cache


def test_cache_reuses_the_token_and_keeps_it_private(provider_a: RunningProvider, tmp_path: Path) -> None:
    cache = TokenCache(tmp_path / "tokens")
    token = get_token(provider_a.issuer, "A.phys", cache)
    path = cache.path(provider_a.issuer, "A.phys")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert get_token(provider_a.issuer, "A.phys", cache) == token
    assert get_token(provider_a.issuer + "/", "A.phys", TokenCache(tmp_path / "tokens")) == token
    assert get_token(provider_a.issuer, "A.nurse", cache) != token
    assert len(list(path.parent.iterdir())) == 2


def test_cache_serves_while_the_provider_is_down(tmp_path: Path) -> None:
    cache = TokenCache(tmp_path)
    with start_provider("C") as provider:
        token = get_token(provider.issuer, "C.research", cache)
    assert get_token(provider.issuer, "C.research", cache) == token
    cache.remove(provider.issuer, "C.research")
    with pytest.raises(AuthenticationError, match="unreachable"):
        get_token(provider.issuer, "C.research", cache)


def test_tokens_expiring_within_a_minute_are_renewed(tmp_path: Path) -> None:
    cache = TokenCache(tmp_path)
    with start_provider("B", token_max_age=timedelta(seconds=REFRESH_MARGIN - 10)) as short_lived:
        first = get_token(short_lived.issuer, "B.phys", cache)
        second = get_token(short_lived.issuer, "B.phys", cache)
    assert first != second
    assert cache.get(short_lived.issuer, "B.phys") is None
    assert TokenCache(tmp_path, margin=0).get(short_lived.issuer, "B.phys") is not None


def test_cache_ignores_unreadable_foreign_or_shared_files(provider_a: RunningProvider, tmp_path: Path) -> None:
    cache = TokenCache(tmp_path)
    valid = TokenSet("id", "access", time.time() + 3600, provider_a.issuer, "A.phys")
    cache.put(valid)
    path = cache.path(provider_a.issuer, "A.phys")
    assert cache.get(provider_a.issuer, "A.phys") == valid
    path.chmod(0o644)
    assert cache.get(provider_a.issuer, "A.phys") is None
    path.chmod(0o600)
    cache.put(TokenSet("id", "access", time.time() + 3600, provider_a.issuer, "A.nurse"))
    path.write_bytes(cache.path(provider_a.issuer, "A.nurse").read_bytes())
    assert cache.get(provider_a.issuer, "A.phys") is None
    path.write_text("{not json")
    assert cache.get(provider_a.issuer, "A.phys") is None
    fresh = get_token(provider_a.issuer, "A.phys", cache)
    assert fresh != "id"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cache.get(provider_a.issuer, "A.phys", client_id="other") is None
