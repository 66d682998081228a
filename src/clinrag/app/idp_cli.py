"""``clinrag idp``: serve one demo hospital's OpenID Connect identity provider (`clinrag.demo.idp`) until Ctrl-C.

Example: clinrag idp serve --org A --port 9401 (or ``python -m clinrag.app.idp_cli serve --org A``)
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import console
from clinrag.app.exits import run_program
from clinrag.demo.idp import DEMO_IDP_PORTS, org_users, start_provider

idp_app = typer.Typer(
    help="Run the demo hospitals' OpenID Connect identity providers (one per hospital, users without passwords).",
    no_args_is_help=True,
    add_completion=False,
)


@idp_app.callback()
def _group() -> None:
    """Keeps ``serve`` a sub-command when this app runs on its own (``python -m clinrag.app.idp_cli serve``)."""


@idp_app.command("serve")
def serve_command(
    org: Annotated[str, typer.Option("--org", help="Hospital whose users the provider signs in (A, B or C).")],
    port: Annotated[
        int | None, typer.Option(help="Port to listen on (default: 9401 for A, 9402 for B, 9403 for C; 0: any free).")
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
) -> None:
    """Serve one hospital's demo identity provider until Ctrl-C, and list the users it signs in.

    Clients must use the printed issuer URL exactly (the provider names itself after the host it is reached at).

    Example: clinrag idp serve --org A --port 9401
    """
    users = org_users(org)
    chosen = DEMO_IDP_PORTS.get(org, 0) if port is None else port
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, request_stop)
    try:
        with start_provider(org, chosen, host) as provider:
            console.print(f"Hospital {org} identity provider: issuer {provider.issuer}")
            table = Table(title=f"Users of hospital {org} (sign in on the consent page, no password)")
            for column in ("subject", "role", "dept", "affiliations"):
                table.add_column(column)
            for user in users:
                table.add_row(user.subject, user.role, user.dept or "-", ", ".join(user.affiliations) or "-")
            console.print(table)
            console.print("Serving until Ctrl-C.")
            try:
                while not stop.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    console.print(f"Hospital {org} identity provider stopped.")


def main() -> None:
    """Run ``idp_app`` as its own program (``python -m clinrag.app.idp_cli``): errors become one line and an exit
    code."""
    run_program(idp_app)


if __name__ == "__main__":
    main()
