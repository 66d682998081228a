"""Signing users in to the web app with OpenID Connect at their own hospital: the authorization-code flow with
PKCE (S256), ``state`` and ``nonce``, through authlib's OAuth 2 client.

``begin`` builds the address of the hospital's authorization page and the secrets to remember in the browser's
session; ``finish`` exchanges the code the provider sends back, verifies the ID token (signature against the
provider's JWKS, issuer, audience, expiry, nonce) and then lets the service's own verifier map its claims to a user
(the ``org`` claim must be the provider's organisation). The ID token is what the app sends to the nodes.

Example:
    >>> provider = Provider(org="A", name="Hospital A", issuer="http://127.0.0.1:9401")
    >>> flow = SignIn([provider], client_id="clinrag", client_secret="s", redirect_uri="http://127.0.0.1:8300/auth")
    >>> started = asyncio.run(flow.begin("A"))  # doctest: +SKIP
    >>> started.url.startswith("http://127.0.0.1:9401/oauth2/authorize?")  # doctest: +SKIP
    True
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.integrations.httpx_client import OAuthError as AuthlibOAuthError

from clinrag.access.identity import TokenVerifier
from clinrag.access.login import SCOPE, TRANSPORT_ERRORS, verify_id_token
from clinrag.app.web.store import SignedInUser
from clinrag.errors import AuthenticationError

LOGIN_SECONDS = 600.0
"""How long a begun sign-in may take before its state is refused."""


_UNREACHABLE: tuple[type[Exception], ...] = (*TRANSPORT_ERRORS, ValueError)
"""A provider that cannot be reached, or whose discovery document is not JSON."""

_REFUSED: tuple[type[Exception], ...] = (*_UNREACHABLE, AuthlibOAuthError)
"""A token exchange that failed: unreachable, garbled, or refused by the provider."""


@dataclass(frozen=True)
class Provider:
    """A hospital users can sign in at: its organisation code, display name and issuer URL."""

    org: str
    name: str
    issuer: str


@dataclass(frozen=True)
class Started:
    """A begun sign-in: where to send the browser and what to remember in its session."""

    url: str
    state: str
    nonce: str
    verifier: str


class SignIn:
    """The web app's OpenID Connect client for every hospital of the federation."""

    def __init__(
        self,
        providers: Sequence[Provider],
        client_id: str,
        client_secret: str,
        redirect_uri: str,
        timeout: float = 5.0,
    ) -> None:
        self.providers = {provider.org: provider for provider in providers}
        self.client_id = client_id
        self.client_secret = client_secret
        self.redirect_uri = redirect_uri
        self.timeout = timeout
        self._metadata: dict[str, dict[str, Any]] = {}

    def _client(self) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.client_secret,
            scope=SCOPE,
            redirect_uri=self.redirect_uri,
            code_challenge_method="S256",
            token_endpoint_auth_method="client_secret_basic",
            timeout=self.timeout,
        )

    async def _discover(self, client: AsyncOAuth2Client, provider: Provider) -> dict[str, Any]:
        """The provider's discovery document (fetched once), checked to name exactly its issuer."""
        if provider.org in self._metadata:
            return self._metadata[provider.org]
        url = f"{provider.issuer.rstrip('/')}/.well-known/openid-configuration"
        try:
            response = await client.request("GET", url, withhold_token=True)
            metadata = response.json() if response.status_code == 200 else None
        except _UNREACHABLE as error:
            raise AuthenticationError(
                f"{provider.name}'s identity provider is unreachable ({type(error).__name__})"
            ) from error
        if not isinstance(metadata, dict) or metadata.get("issuer") != provider.issuer.rstrip("/"):
            raise AuthenticationError(f"{provider.name}'s identity provider at {provider.issuer} is misconfigured")
        self._metadata[provider.org] = metadata
        return metadata

    def provider(self, org: str) -> Provider:
        """The provider of ``org``; AuthenticationError for an organisation the federation does not list."""
        if org not in self.providers:
            raise AuthenticationError(f"no identity provider for organisation {org!r}")
        return self.providers[org]

    async def begin(self, org: str) -> Started:
        """Start signing in at ``org``'s provider: the authorization URL with fresh state, nonce and PKCE."""
        provider = self.provider(org)
        state, nonce, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(64)
        async with self._client() as client:
            metadata = await self._discover(client, provider)
            url, _ = client.create_authorization_url(
                metadata["authorization_endpoint"], state=state, nonce=nonce, code_verifier=verifier
            )
        return Started(str(url), state, nonce, verifier)

    async def finish(
        self,
        org: str,
        code: str,
        nonce: str,
        verifier: str,
        started: float,
        token_verifier: TokenVerifier,
    ) -> SignedInUser:
        """Exchange ``code`` for tokens and return the verified user; AuthenticationError saying what failed."""
        provider = self.provider(org)
        if time.time() - started > LOGIN_SECONDS:
            raise AuthenticationError("the sign-in took too long; please sign in again")
        async with self._client() as client:
            metadata = await self._discover(client, provider)
            try:
                tokens = await client.fetch_token(
                    metadata["token_endpoint"], code=code, code_verifier=verifier, grant_type="authorization_code"
                )
                keys = (await client.request("GET", metadata["jwks_uri"], withhold_token=True)).json()
            except _REFUSED as error:
                raise AuthenticationError(
                    f"{provider.name}'s identity provider refused the sign-in ({type(error).__name__})"
                ) from error
        id_token = tokens.get("id_token")
        if not isinstance(id_token, str):
            raise AuthenticationError(f"{provider.name}'s identity provider returned no ID token")
        claims = verify_id_token(id_token, keys, provider.issuer.rstrip("/"), self.client_id, nonce)
        actor = await asyncio.to_thread(token_verifier.verify, id_token)
        if actor.org != provider.org:
            raise AuthenticationError(f"{provider.name}'s identity provider signed a user of another organisation")
        return SignedInUser(
            owner=f"{provider.issuer.rstrip('/')}|{actor.subject}",
            subject=actor.subject,
            org=actor.org,
            role=actor.role,
            dept=actor.dept,
            affiliations=actor.affiliations,
            name=str(claims.get("name") or actor.subject),
            token=id_token,
            expires=float(claims["exp"]),
        )
