"""How a CLI command, or a CLI program, ends on a `ClinragError`: the error on stderr, and the exit status the error
carries.

Example:
    >>> try:
    ...     with exit_on_error():
    ...         raise ClinragError("no such node")
    ... except typer.Exit as exit:
    ...     exit.exit_code
    1
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from clinrag.app.console import errors
from clinrag.errors import ClinragError


@contextmanager
def exit_on_error(*notes: str, highlight: bool = True) -> Iterator[None]:
    """Show a `ClinragError` raised inside as ``error: …`` on stderr, then each of ``notes`` dimmed, and exit
    with the error's status (`ClinragError.exit_code`); ``highlight``: rich's highlighting of the message."""
    try:
        yield
    except ClinragError as exc:
        errors.print(f"[red]error:[/red] {exc}", highlight=highlight)
        for note in notes:
            errors.print(f"[dim]{note}[/dim]", highlight=highlight)
        raise typer.Exit(exc.exit_code) from None


def run_program(app: typer.Typer) -> None:
    """Run ``app`` as a program (a console script's entry point): a `ClinragError` that escapes its commands becomes
    ``error: …`` on stderr and the exit status the error carries."""
    try:
        app()
    except ClinragError as exc:
        errors.print(f"[red]error:[/red] {exc}")
        sys.exit(exc.exit_code)
