"""Building the web app from settings, and the ``clinrag web`` command.

Example:
    >>> settings = Settings()  # doctest: +SKIP
    >>> service = service_from_settings(settings)  # doctest: +SKIP
    >>> app = web_app_from_settings(settings, service, "http://127.0.0.1:8300")  # doctest: +SKIP
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated

import typer
from fastapi import FastAPI

from clinrag.app.chat_service import ChatService, service_from_settings
from clinrag.app.console import ConfigOption, FederationOption, console, server_logging, settings_for
from clinrag.app.web.server import WebConfig, create_web_app
from clinrag.app.web.signin import Provider, SignIn
from clinrag.app.web.store import WebStore
from clinrag.errors import ConfigError
from clinrag.settings import Settings

SECRET_BYTES = 32


def load_secret(path: Path) -> bytes:
    """The key that signs session cookies: read from ``path``, or created there (mode 0600) on first use.

    Example:
        >>> import tempfile
        >>> key_file = Path(tempfile.mkdtemp()) / "secret.key"
        >>> load_secret(key_file) == load_secret(key_file), len(load_secret(key_file))
        (True, 64)
    """
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = secrets.token_hex(SECRET_BYTES)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(text + "\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the web app's secret key ({type(error).__name__})") from error
    if len(text) < 32:
        raise ConfigError(f"{path}: the web app's secret key is shorter than 32 characters")
    return text.encode("ascii")


def web_app_from_settings(settings: Settings, service: ChatService, public_url: str) -> FastAPI:
    """The web app for ``service``'s federation, its users signing in at the federation's identity providers."""
    providers = [Provider(org.org, org.label, org.issuer) for org in service.root.orgs if org.issuer]
    if not providers:
        raise ConfigError("no organisation of the federation lists an identity provider: nobody could sign in")
    signin = SignIn(
        providers,
        client_id=settings.federation.client_id,
        client_secret=settings.web.client_secret,
        redirect_uri=f"{public_url.rstrip('/')}/auth/callback",
    )
    config = WebConfig(
        secret=load_secret(settings.web.secret_file),
        secure_cookies=settings.web.secure_cookies,
        session_seconds=settings.web.session_hours * 3600,
    )
    return create_web_app(service, WebStore(settings.web.database), signin, config)


def web_command(
    federation: FederationOption = None,
    host: Annotated[str | None, typer.Option(help="Interface to listen on (default: web.host).")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on (default: web.port, 8300).")] = None,
    database: Annotated[
        Path | None, typer.Option(help="SQLite file of sessions and histories (default: web.database).")
    ] = None,
    secret_file: Annotated[
        Path | None, typer.Option(help="Cookie-signing key file, created if missing (default: web.secret_file).")
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Serve the web app: sign in at your hospital, ask, watch the answer stream, inspect every source.

    Users choose their hospital, sign in at its identity provider (OpenID Connect with PKCE) and ask the whole
    federation; each node answers only with what its policies let them see. Conversations are kept per user in
    SQLite. `make demo` starts it with the demo federation on http://127.0.0.1:8300.

    Example: clinrag web --federation data/demo/federation/federation.toml --port 8300
    """
    import uvicorn

    loaded = settings_for(config).settings
    updates = {
        key: value
        for key, value in {"host": host, "port": port, "database": database, "secret_file": secret_file}.items()
        if value is not None
    }
    settings = loaded.model_copy(update={"web": loaded.web.model_copy(update=updates)})
    web = settings.web
    service = service_from_settings(settings, federation)
    public_url = web.public_url or f"http://{web.host}:{web.port}"
    app = web_app_from_settings(settings, service, public_url)
    server_logging()
    console.print(f"clinrag web app on {public_url} — answerers: {', '.join(service.models)}")
    uvicorn.run(app, host=web.host, port=web.port, log_level="warning")
