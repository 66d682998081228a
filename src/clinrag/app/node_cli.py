"""``clinrag node`` (serve one organisation's node) and ``clinrag audit`` (query a node's audit log)."""

from __future__ import annotations

import signal
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import console, server_logging, settings_for
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.index.embed import embedder_from

node_app = typer.Typer(help="Run an organisation's node: its tree, policies and API.", no_args_is_help=True)

NodeConfigOption = Annotated[Path, typer.Option("--config", help="The node's config file (see docs/federation.md).")]
SettingsOption = Annotated[
    Path | None,
    typer.Option("--settings", help="clinrag settings file (default: $CLINRAG_CONFIG, else ./clinrag.toml)."),
]


@node_app.command("serve")
def serve_command(
    node_config: NodeConfigOption,
    port: Annotated[int | None, typer.Option(help="Port (default: the config's).")] = None,
    settings: SettingsOption = None,
) -> None:
    """Serve the node's API on its host and port until Ctrl-C, SIGTERM or SIGHUP (each a graceful stop).

    Policies are validated at start (an invalid policy stops the node with the file and policy at fault), every
    leaf's index is opened and checked against the embedder, and every request is audited.

    Example: clinrag node serve --config data/demo/federation/A.toml
    """
    import uvicorn

    loaded = settings_for(settings).settings
    node_settings = load_node_config(node_config)
    node = Node.open(node_settings, embedder_from(loaded.index, loaded.paths.cache_dir), loaded.retrieve)
    server_logging()
    chosen = node_settings.port if port is None else port
    console.print(f"node {node_settings.org} ({node_settings.name}) on http://{node_settings.host}:{chosen}")
    # uvicorn handles SIGINT (even if inherited as ignored) and SIGTERM; a hang-up takes the same graceful path,
    # unless it is ignored on purpose (nohup)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, hangup_as_terminate)
    app = create_node_app(node, limits=loaded.federation, aggregates=loaded.aggregates)  # caps, rates, min cell
    uvicorn.run(app, host=node_settings.host, port=chosen, log_level="warning")


def hangup_as_terminate(signum: int, frame: FrameType | None) -> None:
    """Signal handler: deliver SIGTERM to this process, so uvicorn's graceful SIGTERM path also serves SIGHUP."""
    signal.raise_signal(signal.SIGTERM)


@node_app.command("check")
def check_command(node_config: NodeConfigOption, settings: SettingsOption = None) -> None:
    """Check a node's config, policies and indexes without serving; print its manifest.

    Example: clinrag node check --config data/demo/federation/A.toml
    """
    loaded = settings_for(settings).settings
    node = Node.open(
        load_node_config(node_config), embedder_from(loaded.index, loaded.paths.cache_dir), loaded.retrieve
    )
    try:
        manifest = node.manifest()
    finally:
        node.tree.close()
    table = Table(title=f"node {manifest.node} ({manifest.name}): {manifest.embedder}")
    table.add_column("leaf")
    table.add_column("chunks", justify="right")
    for leaf in manifest.leaves:
        table.add_row(leaf.path, f"{leaf.chunks:,}")
    console.print(table)
    console.print("trusted issuers: " + ", ".join(manifest.issuers))


def audit_command(
    log: Annotated[Path, typer.Option("--log", help="The node's audit log (node.audit_log in its config).")],
    user: Annotated[str | None, typer.Option(help="Only requests by this user (token subject).")] = None,
    patient: Annotated[int | None, typer.Option(help="Only requests that returned this patient's records.")] = None,
    org: Annotated[str | None, typer.Option(help="Only requests by users of this organisation.")] = None,
    since: Annotated[datetime | None, typer.Option(help="From this time (UTC), inclusive.")] = None,
    until: Annotated[datetime | None, typer.Option(help="Before this time (UTC).")] = None,
    verify: Annotated[bool, typer.Option(help="Check the log's hash chain first.")] = True,
) -> None:
    """Who asked a node what, when, and what was searched, denied and returned (ids only, never text).

    Example: clinrag audit --log data/demo/audit/A.jsonl --user A.phys --since 2026-01-01
    """
    audit = AuditLog(log)
    if verify:
        console.print(f"[dim]hash chain intact: {audit.verify()} entries[/dim]")
    found = audit.query(user=user, patient=patient, since=since, until=until, org=org)
    table = Table(title=f"{log}: {len(found)} requests")
    for column in ("time", "user", "role", "outcome", "searched", "denied", "returned", "patients", "question"):
        table.add_column(column, overflow="fold")
    for entry in found:
        table.add_row(
            entry.time.isoformat(timespec="seconds"),
            f"{entry.subject} ({entry.org})" if entry.subject else "-",
            entry.role,
            entry.outcome + (f": {entry.detail}" if entry.detail else ""),
            str(len(entry.searched)),
            ", ".join(entry.denied),
            str(len(entry.returned)),
            ", ".join(map(str, entry.patients[:5])) + (" …" if len(entry.patients) > 5 else ""),
            entry.question_sha256[:12],
        )
    console.print(table)
