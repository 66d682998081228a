"""Serving the demo federation: three identity providers, three hospital nodes, the library's node and the web app on
127.0.0.1, until Ctrl-C,
SIGTERM or SIGHUP; each stops every server and returns normally (exit status 0), see ``serve_demo``. The app's
``clinrag demo`` passes in its console and the ``clinrag`` program every server runs (this layer does not import
the app).

Example:
    >>> from clinrag.app.cli import main  # doctest: +SKIP
    >>> from clinrag.app.console import console  # doctest: +SKIP
    >>> files = write_federation(Path("data/demo"), DemoPorts())  # doctest: +SKIP
    >>> serve_demo(files, DemoPorts(), Path("data/demo/logs"), cli=main, console=console)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from clinrag.access.demo import DEMO_USERS
from clinrag.demo.federation_files import DemoPorts, FederationFiles
from clinrag.demo.library import LIBRARY_ORG
from clinrag.demo.supervisor import STOP_GRACE_S, SignalReceived, Supervisor
from clinrag.errors import ClinragError


def start_federation(
    servers: Supervisor, files: FederationFiles, ports: DemoPorts, config: Path | None, web: Path | None = None
) -> None:
    """Start every hospital's identity provider and node, and the library's node, under ``servers`` (and the web
    app, keeping its state in the folder ``web``, when given) and wait until all answer."""
    settings = ["--settings", str(config)] if config is not None else []
    for org in files.nodes:
        issuer = ports.issuer(org)
        servers.start(
            f"idp-{org}",
            ["idp", "serve", "--org", org, "--port", str(ports.idp_port(org))],
            f"{issuer}/.well-known/openid-configuration",
        )
    nodes = dict(files.nodes)
    if files.library is not None:
        nodes[LIBRARY_ORG] = files.library
    for org, node_config in nodes.items():
        servers.start(
            f"node-{org}",
            ["node", "serve", "--config", str(node_config), *settings],
            f"{ports.node_url(org)}/v1/health",
        )
    if web is not None:
        servers.start(
            "web",
            [
                "web",
                "--federation",
                str(files.federation),
                "--port",
                str(ports.web),
                "--database",
                str(web / "web.sqlite3"),
                "--secret-file",
                str(web / "secret.key"),
                *settings,
            ],
            f"{ports.web_url}/healthz",
        )
    servers.wait_ready()


def serve_demo(
    files: FederationFiles,
    ports: DemoPorts,
    logs: Path,
    config: Path | None = None,
    *,
    cli: Callable[[], object],
    console: Console,
) -> None:
    """Start the federation, print where everything is, and keep it up until Ctrl-C (SIGINT), SIGTERM or SIGHUP.

    ``cli``: the ``clinrag`` program every server runs (``clinrag.app.cli.main``, see ``Supervisor``); ``console``:
    where to print.

    Any of the three — also during start-up, and SIGINT even when inherited as ignored (a job started with ``&``
    from a script) — stops every server (SIGTERM, a 15 s grace, then SIGKILL) and returns normally, so ``clinrag
    demo`` exits with status 0: a requested stop that completed is a success, as uvicorn and service managers
    (systemd counts 143 as a failure) expect. A server that stops on its own raises ``ClinragError`` (status 1).
    """
    with Supervisor(cli, logs) as servers:
        try:
            _serve(servers, files, ports, logs, config, console)
        except SignalReceived as received:
            console.print(f"{received.name} received: stopping {len(servers.children)} servers …", soft_wrap=True)
        except KeyboardInterrupt:  # signal handlers could not be installed (not the main thread)
            console.print(f"stopping {len(servers.children)} servers …")
    killed = (
        f" ({len(servers.killed)} killed after {STOP_GRACE_S:g} s: {', '.join(servers.killed)})"
        if servers.killed
        else ""
    )
    console.print(f"Stopped {len(servers.stopped)} servers{killed}.", soft_wrap=True)


def _serve(
    servers: Supervisor, files: FederationFiles, ports: DemoPorts, logs: Path, config: Path | None, console: Console
) -> None:
    console.print("starting identity providers, nodes and the web app …")
    start_federation(servers, files, ports, config, web=files.folder.parent / "web")
    table = Table(title="The demo federation on 127.0.0.1")
    for column in ("hospital", "node", "identity provider"):
        table.add_column(column)
    for org in files.nodes:
        table.add_row(org, ports.node_url(org), ports.issuer(org))
    if files.library is not None:
        table.add_row(f"{LIBRARY_ORG} (library)", ports.node_url(LIBRARY_ORG), "every hospital's")
    console.print(table)
    users = Table(title="Demo users (sign in at their hospital's identity provider)")
    for column in ("user", "org", "role", "dept", "affiliations"):
        users.add_column(column)
    for user in DEMO_USERS:
        users.add_row(user.subject, user.org, user.role, user.dept or "", ", ".join(user.affiliations))
    console.print(users)
    console.print(f"Web app: [bold]{ports.web_url}[/bold] — choose a hospital and sign in as one of its users.")
    console.print('Ask from another terminal: .venv/bin/clinrag ask "Who was treated for a stroke?" --as A.phys')
    if files.library is not None:
        console.print(
            'Ask the library: .venv/bin/clinrag ask "What do the guidelines recommend for anticoagulation in atrial '
            'fibrillation?" --as B.phys',
            soft_wrap=True,
        )
    console.print(f"Logs: {logs}; audit logs: {files.folder.parent / 'audit'}")
    console.print("Ready. Press Ctrl-C to stop (SIGTERM and SIGHUP also stop every server).", soft_wrap=True)
    while True:
        for child in servers.children:
            if child.process.poll() is not None:
                raise ClinragError(f"{child.name} stopped (exit {child.process.returncode}); see {child.log}")
        time.sleep(1.0)
