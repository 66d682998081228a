"""The web app's sign-in with a hospital's identity provider that cannot be reached: a clear AuthenticationError
naming the hospital, never a server error (authlib's client raises httpx2's errors where httpx2 is installed)."""

from __future__ import annotations

import asyncio

import pytest

from clinrag.app.web.signin import Provider, SignIn
from clinrag.errors import AuthenticationError


def test_an_unreachable_provider_is_an_authentication_error() -> None:
    nowhere = Provider(org="A", name="Hospital A", issuer="http://127.0.0.1:9")  # port 9: nothing listens
    signin = SignIn([nowhere], "clinrag", "clinrag-demo", "http://127.0.0.1:8300/callback", timeout=2.0)
    with pytest.raises(AuthenticationError, match="Hospital A's identity provider is unreachable"):
        asyncio.run(signin.begin("A"))
