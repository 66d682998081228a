"""What every CLI command shares: the consoles, settings loading, the config option and progress bars."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from clinrag.settings import LoadedSettings, load_settings

console = Console()
errors = Console(stderr=True)

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Settings file (default: $CLINRAG_CONFIG, else ./clinrag.toml if present)."),
]


def settings_for(config: Path | None, overrides: dict[str, Any] | None = None) -> LoadedSettings:
    """Settings from the file, environment and these command-line ``overrides`` (None values are dropped)."""
    cleaned = {group: {k: v for k, v in values.items() if v is not None} for group, values in (overrides or {}).items()}
    return load_settings(config_file=config, overrides={g: v for g, v in cleaned.items() if v})


@contextmanager
def progress(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (only on a terminal); yields a function taking the count done so far."""
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda done: bar.update(task, completed=done)
