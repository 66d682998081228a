"""The demo hospitals' identity providers: real servers on 127.0.0.1, three in one process, and ``idp serve``."""

from __future__ import annotations

import base64
import hashlib
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest
from werkzeug.serving import make_server

from clinrag.access.demo import DEMO_USERS
from clinrag.access.login import sign_in
from clinrag.demo.idp import RunningProvider, demo_provider_app, start_provider
from clinrag.errors import ConfigError

pytestmark = [pytest.mark.timeout(60), pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")]

REDIRECT = "http://127.0.0.1/callback"


@pytest.fixture(scope="module")
def providers() -> Iterator[dict[str, RunningProvider]]:
    """Hospitals A, B and C, each with its own provider, all in this process."""
    with start_provider("A") as a, start_provider("B") as b, start_provider("C") as c:
        yield {"A": a, "B": b, "C": c}


def _keys(provider: RunningProvider) -> list[jwt.PyJWK]:
    return jwt.PyJWKSet.from_dict(httpx.get(f"{provider.issuer}/jwks").json()).keys


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _authorize(issuer: str, subject: str, **extra: str) -> httpx.Response:
    """POST the consent form by hand; ``extra`` overrides or (with value "") removes query parameters."""
    params = {
        "response_type": "code",
        "client_id": "clinrag",
        "redirect_uri": REDIRECT,
        "scope": "openid",
        "state": "s",
        "nonce": "n",
    }
    params = {key: value for key, value in (params | extra).items() if value}
    return httpx.post(f"{issuer}/oauth2/authorize", params=params, data={"sub": subject})


def _code(response: httpx.Response) -> str:
    assert response.status_code == 302, response.text
    return parse_qs(urlsplit(response.headers["location"]).query)["code"][0]


def _exchange(issuer: str, code: str, verifier: str | None) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    if verifier is not None:
        form["code_verifier"] = verifier
    return httpx.post(f"{issuer}/oauth2/token", data=form, auth=("clinrag", "any-secret"))


def test_three_providers_in_one_process_are_separate(providers: dict[str, RunningProvider]) -> None:
    issuers = {org: provider.issuer for org, provider in providers.items()}
    assert len(set(issuers.values())) == 3
    for org, provider in providers.items():
        assert httpx.get(f"{provider.issuer}/.well-known/openid-configuration").json()["issuer"] == issuers[org]
    kids = {org: [key.key_id for key in _keys(provider)] for org, provider in providers.items()}
    assert all(len(k) == 1 for k in kids.values())
    assert len({k[0] for k in kids.values()}) == 3

    for org, provider in providers.items():
        subject = next(user.subject for user in DEMO_USERS if user.org == org)
        token = sign_in(provider.issuer, subject).id_token
        assert "kid" not in jwt.get_unverified_header(token)
        for other, signer in providers.items():
            checks: dict[str, Any] = {"algorithms": ["RS256"], "audience": "clinrag", "issuer": provider.issuer}
            if other == org:
                assert jwt.decode(token, _keys(signer)[0].key, **checks)["org"] == org
            else:
                with pytest.raises(jwt.InvalidSignatureError):
                    jwt.decode(token, _keys(signer)[0].key, **checks)


def test_each_provider_lists_and_signs_in_only_its_own_users(providers: dict[str, RunningProvider]) -> None:
    _, challenge = _pkce()
    for org, provider in providers.items():
        page = httpx.get(
            f"{provider.issuer}/oauth2/authorize",
            params={
                "response_type": "code",
                "client_id": "clinrag",
                "redirect_uri": REDIRECT,
                "scope": "openid",
                "nonce": "n",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            },
        )
        assert page.status_code == 200
        for user in DEMO_USERS:
            assert (f'value="{user.subject}"' in page.text) == (user.org == org), (org, user.subject)
            refused = _authorize(provider.issuer, user.subject, code_challenge=challenge, code_challenge_method="S256")
            assert (refused.status_code == 403) == (user.org != org)


def test_claims_of_every_demo_user(providers: dict[str, RunningProvider]) -> None:
    for user in DEMO_USERS:
        issuer = providers[user.org].issuer
        claims = jwt.decode(sign_in(issuer, user.subject).id_token, options={"verify_signature": False})
        assert claims["org"] == user.org
        assert claims["role"] == user.role
        assert claims["dept"] == (user.dept or "")
        assert claims["affiliations"] == list(user.affiliations)
        assert claims["email"].endswith(f"@hospital-{user.org.lower()}.example")
        assert claims["exp"] - claims["iat"] == 8 * 3600


def test_pkce_is_enforced(providers: dict[str, RunningProvider]) -> None:
    issuer = providers["A"].issuer
    discovery = httpx.get(f"{issuer}/.well-known/openid-configuration")
    assert discovery.json()["code_challenge_methods_supported"] == ["S256"]
    assert int(discovery.headers["content-length"]) == len(discovery.content)

    verifier, challenge = _pkce()
    code = _code(_authorize(issuer, "A.phys", code_challenge=challenge, code_challenge_method="S256"))
    wrong = _exchange(issuer, code, _pkce()[0])
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
    # The failed attempt burned the code: the right verifier no longer gets a token for it.
    assert _exchange(issuer, code, verifier).json()["error"] == "invalid_grant"

    code = _code(_authorize(issuer, "A.phys", code_challenge=challenge, code_challenge_method="S256"))
    assert _exchange(issuer, code, None).json()["error"] == "invalid_request"
    code = _code(_authorize(issuer, "A.phys", code_challenge=challenge, code_challenge_method="S256"))
    good = _exchange(issuer, code, verifier)
    assert good.status_code == 200
    assert "id_token" in good.json()
    assert _exchange(issuer, code, verifier).json()["error"] == "invalid_grant"

    code = _code(_authorize(issuer, "A.phys", code_challenge=challenge, code_challenge_method="S256"))
    smuggled = httpx.post(
        f"{issuer}/oauth2/token",
        params={"grant_type": "authorization_code", "code": code},
        data={"grant_type": "refresh_token", "redirect_uri": REDIRECT},
        auth=("clinrag", "any-secret"),
    )
    assert smuggled.status_code == 400
    assert "id_token" not in smuggled.json()

    for changed in (
        {"code_challenge": ""},
        {"code_challenge": "short"},
        {"code_challenge_method": ""},
        {"code_challenge_method": "plain"},
    ):
        params = {"code_challenge": challenge, "code_challenge_method": "S256"} | changed
        refused = _authorize(issuer, "A.phys", **params)
        assert refused.status_code == 400
        assert "PKCE is required" in refused.text


def test_the_bare_mock_ignores_pkce() -> None:
    """Why the guard exists: oidc-provider-mock 0.3.4 alone hands out tokens for any code_verifier."""
    import oidc_provider_mock  # after clinrag.demo.idp imported it without its deprecation warning

    server = make_server("127.0.0.1", 0, oidc_provider_mock.app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        issuer = f"http://127.0.0.1:{server.port}"
        _, challenge = _pkce()
        code = _code(_authorize(issuer, "anyone", code_challenge=challenge, code_challenge_method="S256"))
        assert _exchange(issuer, code, _pkce()[0]).status_code == 200
    finally:
        server.shutdown()
        thread.join(2)


def test_nonce_is_required(providers: dict[str, RunningProvider]) -> None:
    _, challenge = _pkce()
    answer = _authorize(
        providers["B"].issuer, "B.phys", nonce="", code_challenge=challenge, code_challenge_method="S256"
    )
    assert parse_qs(urlsplit(answer.headers["location"]).query)["error"] == ["invalid_request"]


def test_claims_cannot_be_rewritten_over_http(providers: dict[str, RunningProvider]) -> None:
    issuer = providers["A"].issuer
    assert httpx.put(f"{issuer}/users/A.nurse", json={"org": "A", "role": "admin"}).status_code == 403
    assert httpx.put(f"{issuer}/users/mallory", json={"org": "A", "role": "admin"}).status_code == 403
    claims = jwt.decode(sign_in(issuer, "A.nurse").id_token, options={"verify_signature": False})
    assert claims["role"] == "nurse"


def test_requests_are_not_logged_to_stderr(
    providers: dict[str, RunningProvider], capfd: pytest.CaptureFixture[str]
) -> None:
    sign_in(providers["C"].issuer, "C.research")
    _, err = capfd.readouterr()
    assert "/oauth2/" not in err
    assert "openid-configuration" not in err


def test_provider_stops_and_frees_its_port() -> None:
    provider = start_provider("C")
    issuer = provider.issuer
    provider.stop()
    provider.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1)
    with start_provider("C", port=provider.port) as again:
        assert again.issuer == issuer


def test_port_in_use_and_unknown_hospital_are_config_errors(providers: dict[str, RunningProvider]) -> None:
    with pytest.raises(ConfigError, match=f"on 127.0.0.1:{providers['A'].port}"):
        start_provider("A", port=providers["A"].port)
    with pytest.raises(ConfigError, match="no demo hospital 'D'; known: A, B, C"):
        demo_provider_app("D")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_serve_command_answers_discovery_and_exits_cleanly() -> None:
    port = _free_port()
    command = [sys.executable, "-m", "clinrag.app.idp_cli", "serve", "--org", "B", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        metadata: dict[str, Any] = {}
        while not metadata and time.monotonic() < deadline and process.poll() is None:
            try:
                metadata = httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1).json()
            except httpx.HTTPError:
                time.sleep(0.1)
        assert metadata["issuer"] == issuer
        assert sign_in(issuer, "B.phys").subject == "B.phys"
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert f"issuer {issuer}" in out
    assert "B.phys" in out
    assert "B.nurse" in out
    assert "stopped" in out
    assert "Traceback" not in err
    assert "/oauth2/" not in err
