"""What ``clinrag pubmed ingest`` and ``clinrag guidelines ingest`` share: the library node they write into, its
organisation, and how an ingest ends (its problems, then the command that indexes the node)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from clinrag.app.console import console, show_problems

LibraryNodeOption = Annotated[Path, typer.Option(help="The library node's folder (created if new).")]
LibraryOrgOption = Annotated[str, typer.Option(help="The library's organisation name.")]


def ingested_into(node: Path, problems: Sequence[str]) -> None:
    """After an ingest into ``node``: its ``problems`` (`show_problems`), then the ``clinrag index build`` to run."""
    show_problems(problems)
    console.print(f"[dim]next: clinrag index build {node}[/dim]", highlight=False)
