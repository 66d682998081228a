"""The public signing keys of one OpenID Connect issuer, fetched over HTTP and cached.

The JWKS address comes from configuration or from the issuer's discovery document
(``{issuer}/.well-known/openid-configuration``, whose ``issuer`` must match exactly). Keys are cached for a TTL.
A token signed with a key id the cache does not know triggers one early refetch — at most once per
``min_refetch_interval`` seconds — so a rotated key is picked up without letting forged key ids hammer the
identity provider. When a scheduled refresh fails, the keys already held stay in use and the refresh is retried
after ``min_refetch_interval``. Thread-safe.

Example:
    >>> import httpx
    >>> keys = IssuerKeys("http://127.0.0.1:9401", None, httpx.Client(timeout=2.0))
    >>> [key.kid for key in keys.candidates("key-1", "RS256")]  # doctest: +SKIP
    ['key-1']
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import jwt

from clinrag.errors import AuthenticationError

log = logging.getLogger(__name__)

_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "ES256K": "secp256k1"}


@dataclass(frozen=True)
class SigningKey:
    """One public key of an issuer's JWKS: its JWK fields that matter and the key object PyJWT verifies with."""

    kid: str | None
    kty: str
    crv: str | None
    alg: str | None
    use: str | None
    key: Any

    @classmethod
    def from_jwk(cls, data: dict[str, Any]) -> SigningKey:
        """Parse one JWK; raises ValueError for a key that cannot verify signatures (symmetric, malformed, …)."""
        if data.get("kty") == "oct" or "d" in data:
            raise ValueError("symmetric or private keys are never trusted")
        try:
            parsed = jwt.PyJWK(data)
        except (jwt.PyJWKError, jwt.InvalidKeyError, TypeError, AttributeError) as error:
            raise ValueError(type(error).__name__) from None
        kid = data.get("kid")
        return cls(
            kid=kid if isinstance(kid, str) else None,
            kty=str(data["kty"]),
            crv=data.get("crv"),
            alg=data.get("alg"),
            use=data.get("use"),
            key=parsed.key,
        )

    def fits(self, alg: str) -> bool:
        """Whether this key may verify a signature made with ``alg``: matching key type and curve, the key's own
        ``alg`` (when it declares one) equal to ``alg``, and not a key published for encryption."""
        if self.use not in (None, "sig") or self.alg not in (None, alg):
            return False
        if _KEY_TYPES.get(alg[:2]) != self.kty:
            return False
        return self.kty != "EC" or self.crv == _CURVES.get(alg)


class IssuerKeys:
    """The cached signing keys of one issuer (``jwks_uri`` None: discover it)."""

    def __init__(
        self,
        issuer: str,
        jwks_uri: str | None,
        client: httpx.Client,
        *,
        ttl: float = 300.0,
        min_refetch_interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.issuer = issuer
        self._configured_uri = jwks_uri
        self._client = client
        self._ttl = ttl
        self._min_interval = min_refetch_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._jwks_uri = jwks_uri
        self._keys: list[SigningKey] | None = None
        self._expires = 0.0
        self._last_attempt: float | None = None

    def candidates(self, kid: str | None, alg: str) -> list[SigningKey]:
        """The keys that may have signed a token with header ``kid`` and ``alg`` (empty: no such key).

        Raises AuthenticationError when the keys cannot be fetched and none are held.
        """
        with self._lock:
            now = self._clock()
            if self._keys is None or now >= self._expires:
                self._refresh(now)
            found = self._match(kid, alg)
            if not found and kid is not None and self._may_fetch(now):
                log.info("unknown key id for issuer %s; refetching its keys", self.issuer)
                self._refresh(now)
                found = self._match(kid, alg)
            return found

    def _match(self, kid: str | None, alg: str) -> list[SigningKey]:
        keys = self._keys or []
        return [key for key in keys if (kid is None or key.kid == kid) and key.fits(alg)]

    def _may_fetch(self, now: float) -> bool:
        return self._last_attempt is None or now - self._last_attempt >= self._min_interval

    def _refresh(self, now: float) -> None:
        """Fetch the keys; on failure keep the old ones (retrying after the minimum interval) or raise if none."""
        if not self._may_fetch(now):
            if self._keys is None:
                raise AuthenticationError(f"cannot fetch signing keys of issuer {self.issuer} (retrying shortly)")
            return
        self._last_attempt = now
        try:
            keys = self._fetch()
        except AuthenticationError:
            if self._keys is None:
                raise
            log.warning("keeping the cached signing keys of issuer %s: refresh failed", self.issuer)
            self._expires = now + self._min_interval
            return
        self._keys = keys
        self._expires = now + self._ttl

    def _fetch(self) -> list[SigningKey]:
        try:
            if self._jwks_uri is None:
                self._jwks_uri = self._discover()
            document = self._get_json(self._jwks_uri)
            raw_keys = document.get("keys")
            if not isinstance(raw_keys, list):
                raise ValueError("the key set has no 'keys' list")
        except (httpx.HTTPError, ValueError) as error:
            self._jwks_uri = self._configured_uri
            reason = _reason(error)
            log.warning("cannot fetch signing keys of issuer %s: %s", self.issuer, reason)
            raise AuthenticationError(f"cannot fetch signing keys of issuer {self.issuer}: {reason}") from None
        keys = []
        for raw in raw_keys:
            try:
                keys.append(SigningKey.from_jwk(raw if isinstance(raw, dict) else {}))
            except ValueError:
                continue  # a key we cannot or must not use; the others may still verify
        log.info("fetched %d signing keys of issuer %s", len(keys), self.issuer)
        return keys

    def _discover(self) -> str:
        document = self._get_json(self.issuer.rstrip("/") + "/.well-known/openid-configuration")
        if document.get("issuer") != self.issuer:
            raise ValueError("discovery document names another issuer")
        uri = document.get("jwks_uri")
        if not isinstance(uri, str) or not uri:
            raise ValueError("discovery document has no jwks_uri")
        return uri

    def _get_json(self, url: str) -> dict[str, Any]:
        response = self._client.get(url, headers={"Accept": "application/json"})
        response.raise_for_status()
        document = response.json()
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        return document


def _reason(error: Exception) -> str:
    """A short, content-free reason a fetch failed."""
    if isinstance(error, httpx.HTTPStatusError):
        return f"HTTP {error.response.status_code}"
    if isinstance(error, httpx.HTTPError):
        return type(error).__name__
    if isinstance(error, json.JSONDecodeError):
        return "response is not JSON"
    return str(error)
