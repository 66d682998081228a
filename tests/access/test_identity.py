"""TokenVerifier against real signed tokens and a real OIDC discovery + JWKS server on 127.0.0.1."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import socket
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from clinrag.access import identity
from clinrag.access.identity import TokenVerifier, TrustedIssuer
from clinrag.access.jwks import IssuerKeys
from clinrag.errors import AuthenticationError, ConfigError
from clinrag.types import Actor

AUDIENCE = "clinrag-node"
PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


class IdentityProvider:
    """A minimal OIDC provider: discovery document, JWKS (switchable for key rotation), and a token minter."""

    def __init__(self, org: str) -> None:
        self.org = org
        self.keys: dict[str, PrivateKey] = {}
        self.published: list[str] = []
        self.requests: Counter[str] = Counter()
        self.fail_jwks = False
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider.requests[self.path] += 1
                if self.path == "/.well-known/openid-configuration":
                    self.reply(200, {"issuer": provider.issuer, "jwks_uri": provider.issuer + "/jwks"})
                elif self.path == "/jwks" and not provider.fail_jwks:
                    self.reply(200, {"keys": [provider.public_jwk(kid) for kid in provider.published]})
                else:
                    self.reply(500 if self.path == "/jwks" else 404, {"error": "nope"})

            def reply(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add_key(self, kid: str, kind: str = "RSA", *, publish: bool = True) -> PrivateKey:
        key = private_key(f"{self.org}:{kid}", kind)
        self.keys[kid] = key
        if publish:
            self.published.append(kid)
        return key

    def public_jwk(self, kid: str) -> dict[str, Any]:
        key = self.keys[kid]
        if isinstance(key, rsa.RSAPrivateKey):
            jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
        else:
            jwk = ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
        return {**jwk, "kid": kid, "use": "sig"}

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": f"{self.org}.phys",
            "aud": AUDIENCE,
            "iat": now,
            "nbf": now,
            "exp": now + 600,
            "org": self.org,
            "role": "physician",
            "dept": "medicine",
            "affiliations": ["C_neuro"],
        }
        claims.update(overrides)
        return {name: value for name, value in claims.items() if value is not None}

    def token(self, kid: str = "k1", alg: str | None = None, *, key: PrivateKey | None = None, **claims: Any) -> str:
        signer = key or self.keys[kid]
        alg = alg or ("RS256" if isinstance(signer, rsa.RSAPrivateKey) else "ES256")
        return jwt.encode(self.claims(**claims), signer, algorithm=alg, headers={"kid": kid})


@functools.cache
def private_key(name: str, kind: str = "RSA") -> PrivateKey:
    """A key pair generated once per test session for ``name`` (RSA generation is slow)."""
    if kind == "RSA":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def unsigned(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = part(json.dumps(header).encode()) + "." + part(json.dumps(claims).encode())
    return head + "." + part(signature)


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider("A")
    provider.add_key("k1")
    provider.add_key("ec1", "EC")
    yield provider
    provider.close()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The clock (seconds, set by the test) of the key caches of the verifiers the test makes: their ``jwks_ttl`` and
    ``min_refetch_interval`` are checked on it, not on how fast the machine runs (`IssuerKeys` takes a clock)."""
    now = [0.0]
    monkeypatch.setattr(identity, "IssuerKeys", functools.partial(IssuerKeys, clock=lambda: now[0]))
    return now


@pytest.fixture
def verifier(idp: IdentityProvider) -> Iterator[TokenVerifier]:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, org="A")], audience=AUDIENCE)
    yield verifier
    verifier.close()


def rejects(verifier: TokenVerifier, token: str, message: str) -> AuthenticationError:
    with pytest.raises(AuthenticationError) as caught:
        verifier.verify(token)
    assert message in str(caught.value)
    for secret in ("A.phys", "physician", "medicine", "C_neuro", AUDIENCE):
        assert secret not in str(caught.value)  # never echo the token's contents
    return caught.value


# --- valid tokens -----------------------------------------------------------------------------------------------


def test_valid_rsa_token_gives_the_actor(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    assert verifier.verify(idp.token("k1")) == Actor(
        subject="A.phys", org="A", role="physician", dept="medicine", affiliations=("C_neuro",)
    )


@pytest.mark.parametrize(("kid", "alg"), [("ec1", "ES256"), ("k1", "PS256"), ("k1", "RS384")])
def test_valid_ec_and_other_rsa_algorithms(idp: IdentityProvider, verifier: TokenVerifier, kid: str, alg: str) -> None:
    assert verifier.verify(idp.token(kid, alg)).subject == "A.phys"


def test_claim_shapes(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    actor = verifier.verify(idp.token(dept="", affiliations="C_neuro, A_cardio  B_x"))
    assert actor.dept is None
    assert actor.affiliations == ("C_neuro", "A_cardio", "B_x")
    assert verifier.verify(idp.token(dept=None, affiliations=None)) == Actor(
        subject="A.phys", org="A", role="physician"
    )
    assert verifier.verify(idp.token(aud=["other", AUDIENCE])).org == "A"
    rejects(verifier, idp.token(affiliations=7), "invalid claim 'affiliations'")


def test_token_without_kid_is_tried_against_fitting_keys(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    token = jwt.encode(idp.claims(), idp.keys["k1"], algorithm="RS256")
    assert verifier.verify(token).subject == "A.phys"


def test_leeway_tolerates_small_clock_skew(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    now = int(time.time())
    assert verifier.verify(idp.token(exp=now - 10)).subject == "A.phys"
    assert verifier.verify(idp.token(nbf=now + 10, iat=now + 10)).subject == "A.phys"


# --- rejected tokens --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["", "abc", "a.b.c", "x.y", "....", "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln"])
def test_missing_or_malformed(verifier: TokenVerifier, token: str) -> None:
    rejects(verifier, token, "malformed token")


def test_forged_signature(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    rejects(verifier, idp.token("k1", key=private_key("intruder")), "signature invalid")
    rejects(verifier, idp.token("ec1", key=private_key("intruder-ec", "EC")), "signature invalid")
    genuine = idp.token("k1")
    head, body, signature = genuine.split(".")
    tampered = json.loads(base64.urlsafe_b64decode(body + "=="))
    tampered["role"] = "admin"
    forged_body = base64.urlsafe_b64encode(json.dumps(tampered).encode()).rstrip(b"=").decode()
    rejects(verifier, f"{head}.{forged_body}.{signature}", "signature invalid")


def test_alg_none(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    for alg in ("none", "None", "NONE"):
        rejects(verifier, unsigned({"alg": alg, "kid": "k1"}, idp.claims()), "algorithm not allowed")


def test_hs256_with_the_public_key_as_secret(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    public_pem = (
        idp.keys["k1"]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    header = {"alg": "HS256", "kid": "k1", "typ": "JWT"}
    signing_input = unsigned(header, idp.claims()).rsplit(".", 1)[0]
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    rejects(verifier, unsigned(header, idp.claims(), mac), "algorithm not allowed")


def test_alg_not_fitting_the_key(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    # An ES256 header naming an RSA key id: no published key fits, so nothing is tried.
    header = {"alg": "ES256", "kid": "k1"}
    rejects(verifier, unsigned(header, idp.claims(), b"x" * 64), "unknown signing key")


def test_expired_and_not_yet_valid(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    now = int(time.time())
    rejects(verifier, idp.token(exp=now - 3600, iat=now - 7200, nbf=now - 7200), "token expired")
    rejects(verifier, idp.token(nbf=now + 3600), "token not yet valid")
    rejects(verifier, idp.token(iat=now + 3600), "token not yet valid")


def test_required_claims(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    rejects(verifier, idp.token(exp=None), "missing claim 'exp'")
    rejects(verifier, idp.token(aud=None), "missing claim 'aud'")
    for claim in ("sub", "org", "role"):
        rejects(verifier, idp.token("k1", **{claim: None}), f"missing claim '{claim}'")
    rejects(verifier, idp.token(role=""), "missing claim 'role'")


def test_wrong_audience(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    rejects(verifier, idp.token(aud="another-service"), "wrong audience")
    rejects(verifier, idp.token(aud=["x", "y"]), "wrong audience")


def test_untrusted_issuer(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    stranger = IdentityProvider("A")
    try:
        stranger.add_key("stranger")
        rejects(verifier, stranger.token("stranger"), "untrusted issuer")
        rejects(verifier, idp.token(iss=idp.issuer + "/"), "untrusted issuer")  # exact string match
        rejects(verifier, idp.token(iss=None), "untrusted issuer")
        assert stranger.requests["/jwks"] == 0
    finally:
        stranger.close()


def test_org_claim_must_be_the_issuers_organisation(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    error = rejects(verifier, idp.token(org="B"), "org claim does not match")
    assert idp.issuer in str(error)


def test_issuer_may_only_speak_for_its_own_org_among_several() -> None:
    a, b = IdentityProvider("A"), IdentityProvider("B")
    try:
        a.add_key("ka")
        b.add_key("kb")
        verifier = TokenVerifier([TrustedIssuer(a.issuer, "A"), TrustedIssuer(b.issuer, "B")], [AUDIENCE, "other"])
        assert verifier.verify(a.token("ka")).org == "A"
        assert verifier.verify(b.token("kb", sub="B.nurse")).org == "B"
        rejects(verifier, b.token("kb", org="A"), "org claim does not match")
        # B's key cannot sign for A's issuer, even with A's key id.
        rejects(verifier, a.token("ka", key=b.keys["kb"]), "signature invalid")
    finally:
        a.close()
        b.close()


# --- keys: discovery, caching, rotation, outages ----------------------------------------------------------------


def test_keys_are_discovered_once_and_cached(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    for _ in range(20):
        verifier.verify(idp.token("k1"))
        verifier.verify(idp.token("ec1"))
    assert idp.requests == Counter({"/.well-known/openid-configuration": 1, "/jwks": 1})


def test_configured_jwks_uri_skips_discovery(idp: IdentityProvider) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A", jwks_uri=idp.issuer + "/jwks")], AUDIENCE)
    verifier.verify(idp.token())
    assert idp.requests == Counter({"/jwks": 1})


def test_keys_are_refetched_after_their_ttl(idp: IdentityProvider, clock: list[float]) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, jwks_ttl=60.0, min_refetch_interval=0.0)
    verifier.verify(idp.token())
    clock[0] = 59.9
    verifier.verify(idp.token())
    assert idp.requests["/jwks"] == 1
    clock[0] = 60.0
    verifier.verify(idp.token())
    assert idp.requests["/jwks"] == 2


def test_key_rotation(idp: IdentityProvider) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, min_refetch_interval=0.0)
    old_token = idp.token("k1")
    assert verifier.verify(old_token).subject == "A.phys"
    idp.add_key("k2", publish=False)
    idp.published = ["k2"]  # the provider rotates: k2 replaces k1
    assert verifier.verify(idp.token("k2")).subject == "A.phys"  # unknown kid → one refetch → verifies
    assert idp.requests["/jwks"] == 2
    rejects(verifier, old_token, "unknown signing key")  # k1 is gone after the refetch


def test_unknown_kid_refetch_is_rate_limited(idp: IdentityProvider, clock: list[float]) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, min_refetch_interval=10.0)
    verifier.verify(idp.token("k1"))
    for tenth in range(10):
        clock[0] = tenth * 0.99
        rejects(verifier, idp.token("ghost", key=idp.keys["k1"]), "unknown signing key")
    assert idp.requests["/jwks"] == 1  # forged key ids do not hammer the provider
    idp.add_key("k2")
    clock[0] = 9.99
    rejects(verifier, idp.token("k2"), "unknown signing key")  # a real new key waits for the interval too
    clock[0] = 10.0
    assert verifier.verify(idp.token("k2")).subject == "A.phys"
    assert idp.requests["/jwks"] == 2


def test_unreachable_jwks(idp: IdentityProvider) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    dead = f"http://127.0.0.1:{closed_port}"
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A", jwks_uri=dead + "/jwks")], AUDIENCE, timeout=1.0)
    error = rejects(verifier, idp.token(), "cannot fetch signing keys of issuer")
    assert idp.issuer in str(error)
    undiscoverable = TokenVerifier([TrustedIssuer(dead, "A")], AUDIENCE, timeout=1.0)
    rejects(undiscoverable, idp.token(iss=dead), "cannot fetch signing keys of issuer")


def test_failing_jwks_server(idp: IdentityProvider) -> None:
    idp.fail_jwks = True
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, min_refetch_interval=0.0)
    rejects(verifier, idp.token(), "HTTP 500")
    idp.fail_jwks = False
    assert verifier.verify(idp.token()).subject == "A.phys"  # recovers once the provider does


def test_cached_keys_survive_a_provider_outage(idp: IdentityProvider, clock: list[float]) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, jwks_ttl=60.0, min_refetch_interval=0.0)
    verifier.verify(idp.token())
    idp.fail_jwks = True
    clock[0] = 60.0  # the keys are due for a refresh, which fails
    assert verifier.verify(idp.token()).subject == "A.phys"
    assert idp.requests["/jwks"] == 2


def test_concurrent_verification_fetches_keys_once(idp: IdentityProvider, verifier: TokenVerifier) -> None:
    tokens = [idp.token("k1", sub=f"A.user{i}") for i in range(40)]
    results: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.extend(verifier.verify(token).subject for token in tokens)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 8 * 40
    assert idp.requests["/jwks"] == 1


# --- configuration ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithms", [("RS256", "HS256"), ("none",), ("RS256", "XX999")])
def test_symmetric_or_unknown_algorithms_are_refused(algorithms: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError, match="not allowed"):
        TokenVerifier([TrustedIssuer("http://127.0.0.1:1", "A")], AUDIENCE, algorithms=algorithms)


def test_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="at least one"):
        TokenVerifier([], AUDIENCE)
    with pytest.raises(ConfigError, match="audience"):
        TokenVerifier([TrustedIssuer("http://127.0.0.1:1", "A")], [])
    twice = [TrustedIssuer("http://127.0.0.1:1", "A"), TrustedIssuer("http://127.0.0.1:1", "B")]
    with pytest.raises(ConfigError, match="twice"):
        TokenVerifier(twice, AUDIENCE)


def test_restricted_algorithm_list(idp: IdentityProvider) -> None:
    verifier = TokenVerifier([TrustedIssuer(idp.issuer, "A")], AUDIENCE, algorithms=("ES256",))
    assert verifier.verify(idp.token("ec1")).subject == "A.phys"
    rejects(verifier, idp.token("k1"), "algorithm not allowed")


# --- the demo identity provider ---------------------------------------------------------------------------------


def test_id_tokens_of_the_demo_identity_provider_verify() -> None:
    """oidc-provider-mock (each demo hospital's IdP): its ID token (audience = client id) carries our claims."""
    import authlib.deprecate  # type: ignore[import-untyped]  # noqa: F401  (installs authlib's own warning filter first, so ours below wins)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # authlib.jose's deprecation, raised on import
        from oidc_provider_mock import User, run_server_in_thread

    claims = {"org": "A", "role": "physician", "dept": "medicine", "affiliations": ["C_neuro"]}
    with run_server_in_thread(user_claims=[User(sub="A.phys", claims=claims)]) as server:
        issuer = f"http://localhost:{server.server_port}"  # the mock names itself after the Host it was called by
        redirect = "http://127.0.0.1/callback"
        with httpx.Client(base_url=issuer, timeout=5.0) as client:
            query = {"client_id": AUDIENCE, "redirect_uri": redirect, "response_type": "code", "scope": "openid"}
            authorized = client.post("/oauth2/authorize", params=query, data={"sub": "A.phys"})
            code = parse_qs(urlparse(authorized.headers["location"]).query)["code"][0]
            form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect}
            tokens = client.post("/oauth2/token", data=form, auth=(AUDIENCE, "any-secret")).json()
        verifier = TokenVerifier([TrustedIssuer(issuer, "A")], AUDIENCE)
        assert verifier.verify(tokens["id_token"]) == Actor(
            subject="A.phys", org="A", role="physician", dept="medicine", affiliations=("C_neuro",)
        )
        rejects(verifier, tokens["access_token"], "malformed token")  # the mock's access tokens are opaque
        verifier.close()
