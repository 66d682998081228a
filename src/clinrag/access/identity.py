"""Verify OpenID Connect bearer tokens (JWTs) from trusted issuers and turn their claims into an Actor.

Each hospital's identity provider is a trusted issuer that speaks for exactly one organisation: a token is accepted
only if its ``iss`` is configured, its signature verifies against that issuer's published keys, its algorithm is
an allowed asymmetric one, it is meant for this audience, it is within its validity window, and its ``org`` claim
names the issuer's own organisation — so no identity provider can mint users of another hospital, and the
federation's root never vouches for anyone's attributes.

Example:
    >>> verifier = TokenVerifier([TrustedIssuer("http://127.0.0.1:9401", org="A")], audience="clinrag")
    >>> verifier.verify(token).role  # doctest: +SKIP
    'physician'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import jwt

from clinrag.access.jwks import IssuerKeys, SigningKey
from clinrag.errors import AuthenticationError, ConfigError
from clinrag.types import Actor

log = logging.getLogger(__name__)

DEFAULT_ALGORITHMS = ("RS256", "ES256", "PS256", "RS384", "ES384")
_SUPPORTED = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"})
_SEPARATORS = re.compile(r"[\s,]+")

_CLAIM_ERRORS: tuple[tuple[type[jwt.PyJWTError], str], ...] = (
    (jwt.InvalidSignatureError, "signature invalid"),
    (jwt.ExpiredSignatureError, "token expired"),
    (jwt.ImmatureSignatureError, "token not yet valid"),
    (jwt.InvalidAudienceError, "wrong audience"),
    (jwt.InvalidIssuerError, "untrusted issuer"),
    (jwt.InvalidIssuedAtError, "invalid issued-at time"),
    (jwt.InvalidAlgorithmError, "algorithm not allowed"),
    (jwt.DecodeError, "malformed token"),
)


@dataclass(frozen=True)
class TrustedIssuer:
    """An identity provider this node trusts, and the one organisation it speaks for.

    Example:
        >>> TrustedIssuer("http://127.0.0.1:9401", org="A").jwks_uri is None  # discovered
        True
    """

    issuer: str
    org: str
    jwks_uri: str | None = None


class TokenVerifier:
    """Checks bearer tokens against trusted issuers; thread-safe (share one per process).

    ``leeway`` (seconds) tolerates clock skew on ``exp``/``nbf``/``iat``; keys are cached ``jwks_ttl`` seconds and
    refetched early on an unknown key id at most once per ``min_refetch_interval`` seconds per issuer; HTTP calls
    time out after ``timeout`` seconds. ``algorithms`` may hold only asymmetric signature algorithms.

    Example:
        >>> verifier = TokenVerifier([TrustedIssuer("http://127.0.0.1:9401", org="A")], audience="clinrag")
        >>> verifier.verify("not-a-token")
        Traceback (most recent call last):
        ...
        clinrag.errors.AuthenticationError: malformed token
    """

    def __init__(
        self,
        issuers: Sequence[TrustedIssuer],
        audience: str | Sequence[str],
        *,
        leeway: float = 30.0,
        jwks_ttl: float = 300.0,
        timeout: float = 2.0,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        min_refetch_interval: float = 10.0,
    ) -> None:
        bad = [alg for alg in algorithms if alg not in _SUPPORTED]
        if bad:
            raise ConfigError(f"token algorithms {bad} are not allowed; use asymmetric ones such as RS256 or ES256")
        if not issuers:
            raise ConfigError("at least one trusted token issuer is required")
        self._audience = [audience] if isinstance(audience, str) else list(audience)
        if not self._audience:
            raise ConfigError("a token audience is required")
        self._algorithms = tuple(algorithms)
        self._leeway = leeway
        self._client = httpx.Client(timeout=timeout, follow_redirects=False)
        self._issuers: dict[str, tuple[TrustedIssuer, IssuerKeys]] = {}
        for trusted in issuers:
            if trusted.issuer in self._issuers:
                raise ConfigError(f"token issuer {trusted.issuer} is configured twice")
            keys = IssuerKeys(
                trusted.issuer,
                trusted.jwks_uri,
                self._client,
                ttl=jwks_ttl,
                min_refetch_interval=min_refetch_interval,
            )
            self._issuers[trusted.issuer] = (trusted, keys)

    def close(self) -> None:
        """Close the HTTP connection pool used to fetch keys."""
        self._client.close()

    def verify(self, token: str) -> Actor:
        """The actor a valid token describes; AuthenticationError says which check failed otherwise.

        Example:
            >>> verifier = TokenVerifier([TrustedIssuer("http://127.0.0.1:9401", org="A")], audience="clinrag")
            >>> verifier.verify(token).subject  # doctest: +SKIP
            'A.phys'
        """
        if not isinstance(token, str) or token.count(".") != 2:
            raise AuthenticationError("malformed token")
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise AuthenticationError("malformed token") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self._algorithms:
            raise AuthenticationError("algorithm not allowed")
        issuer = unverified.get("iss")
        if not isinstance(issuer, str) or issuer not in self._issuers:
            raise AuthenticationError("untrusted issuer")
        trusted, keys = self._issuers[issuer]
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise AuthenticationError("malformed token")
        candidates = keys.candidates(kid, alg)
        if not candidates:
            raise AuthenticationError(f"unknown signing key for issuer {issuer}")
        claims = self._decode(token, alg, issuer, candidates)
        return _actor(claims, trusted)

    def _decode(self, token: str, alg: str, issuer: str, keys: list[SigningKey]) -> dict[str, Any]:
        """The verified claims: the signature must verify with one of ``keys``, then every claim check must pass."""
        for key in keys:
            try:
                return jwt.decode(
                    token,
                    key.key,
                    algorithms=[alg],
                    audience=self._audience,
                    issuer=issuer,
                    leeway=self._leeway,
                    options={"require": ["exp", "iss", "aud"], "verify_signature": True},
                )
            except jwt.InvalidSignatureError:
                continue
            except jwt.MissingRequiredClaimError as error:
                raise AuthenticationError(f"missing claim '{error.claim}'") from None
            except jwt.PyJWTError as error:
                raise AuthenticationError(_message(error)) from None
        raise AuthenticationError("signature invalid")


def _message(error: jwt.PyJWTError) -> str:
    """Which check a PyJWT error stands for (never the token's content)."""
    for kind, message in _CLAIM_ERRORS:
        if isinstance(error, kind):
            return message
    return "invalid token"


def _actor(claims: dict[str, Any], trusted: TrustedIssuer) -> Actor:
    """The Actor of verified claims, after the claims clinrag itself needs are checked."""
    for name in ("sub", "org", "role"):
        value = claims.get(name)
        if not isinstance(value, str) or not value.strip():
            raise AuthenticationError(f"missing claim '{name}'")
    if claims["org"] != trusted.org:
        raise AuthenticationError(f"org claim does not match the organisation of issuer {trusted.issuer}")
    dept = claims.get("dept")
    if dept is not None and not isinstance(dept, str):
        raise AuthenticationError("invalid claim 'dept'")
    return Actor(
        subject=claims["sub"],
        org=claims["org"],
        role=claims["role"],
        dept=dept or None,
        affiliations=_affiliations(claims.get("affiliations")),
    )


def _affiliations(value: object) -> tuple[str, ...]:
    """A list of strings, or one string separated by spaces or commas, as a tuple (order kept, duplicates off)."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = _SEPARATORS.split(value)
    elif isinstance(value, list) and all(isinstance(part, str) for part in value):
        parts = [part.strip() for part in value]
    else:
        raise AuthenticationError("invalid claim 'affiliations'")
    return tuple(dict.fromkeys(part for part in parts if part))
