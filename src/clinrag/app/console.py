"""What every CLI command shares: the consoles, settings loading, the options several commands take (config,
federation, node folder, JSON output), progress reports and the log lines of a command that serves.

On a terminal, tables fit its width and progress is a live bar. Piped or redirected, output is meant to be read
later or by a program: lines are not wrapped or cut (a wide width, unless ``COLUMNS`` says otherwise) and
progress is plain, flushed lines on stderr, at most one every few seconds per task.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from clinrag.settings import LoadedSettings, load_settings

PIPED_WIDTH = 1000  # wide enough that no table is cut and no line wrapped when the output is not a terminal
PLAIN_EVERY_SECONDS = 5.0


def _width(stream: Any) -> int | None:
    """None (the terminal's or ``COLUMNS``' width) on a terminal or with ``COLUMNS`` set, else `PIPED_WIDTH`."""
    if os.environ.get("COLUMNS") or os.environ.get("FORCE_COLOR"):
        return None
    isatty = getattr(stream, "isatty", None)
    return None if isatty is not None and isatty() else PIPED_WIDTH


console = Console(width=_width(sys.stdout))
errors = Console(stderr=True, width=_width(sys.stderr))

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Settings file (default: $CLINRAG_CONFIG, else ./clinrag.toml if present)."),
]
FederationOption = Annotated[Path | None, typer.Option(help="Federation file (default: the federation.file setting).")]
NodeOption = Annotated[Path, typer.Option(help="Node folder (chunks.sqlite and index/).")]
"""The one node that ``clinrag search`` and ``clinrag ask`` search (``--node``)."""
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def print_json(value: Any) -> None:
    """What ``--json`` prints: ``value`` as indented JSON on stdout, non-ASCII characters as they are."""
    typer.echo(json.dumps(value, indent=1, ensure_ascii=False))


def settings_for(config: Path | None, overrides: dict[str, Any] | None = None) -> LoadedSettings:
    """Settings from the file, environment and these command-line ``overrides`` (None values are dropped)."""
    cleaned = {group: {k: v for k, v in values.items() if v is not None} for group, values in (overrides or {}).items()}
    return load_settings(config_file=config, overrides={g: v for g, v in cleaned.items() if v})


def server_logging() -> None:
    """What a command that serves until Ctrl-C logs: INFO lines with their time and logger, but not httpx's line per
    request (a node's key fetches, the root's searches), which is noise."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)


class ProgressReport:
    """Called with the count done so far; `stage` starts a new step (a new bar, or a new line when piped).

    Example (not on a terminal: plain lines on stderr):
        >>> import io
        >>> out = Console(file=io.StringIO(), width=200)
        >>> report = ProgressReport(None, out, "indexing", 10)
        >>> report(3); report(4)  # the second update comes too soon after the first to be printed
        >>> report.stage("optimising"); report.finish()
        >>> print(out.file.getvalue().strip())
        indexing: 3/10
        indexing: 4/10
        optimising ...
    """

    def __init__(self, bar: Progress | None, out: Console, description: str, total: int | None) -> None:
        self._bar, self._out = bar, out
        self._description, self._total = description, total
        self._done = 0
        self._printed_at: float | None = None
        self._printed_done: int | None = None
        self._task: TaskID | None = bar.add_task(description, total=total) if bar is not None else None

    def __call__(self, done: int) -> None:
        self._done = done
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done)
            return
        now = time.monotonic()
        if self._printed_at is None or now - self._printed_at >= PLAIN_EVERY_SECONDS:
            self._line()
            self._printed_at = now

    def _line(self) -> None:
        of = f"/{self._total:,}" if self._total else ""
        self._out.print(f"{self._description}: {self._done:,}{of}", markup=False, highlight=False)
        self._printed_done = self._done

    def stage(self, description: str, total: int | None = None) -> None:
        """A new step: ``description`` with its own count (on a terminal, the bar is reused)."""
        self.finish()
        self._description, self._total, self._done = description, total, 0
        self._printed_at, self._printed_done = None, None
        if self._bar is not None and self._task is not None:
            self._bar.reset(self._task, total=total, description=description)
        else:
            self._out.print(f"{description} ...", markup=False, highlight=False)
            self._printed_at = time.monotonic()
            self._printed_done = 0

    def finish(self) -> None:
        """When piped, print the last count if it was not printed yet."""
        if self._bar is None and self._printed_at is not None and self._done != self._printed_done:
            self._line()


SHOWN_PROBLEMS = 20
"""How many skipped inputs an ingest command lists before it only counts the rest."""


def show_problems(problems: Sequence[str]) -> None:
    """List the first :data:`SHOWN_PROBLEMS` of ``problems`` (what an ingest skipped) on stderr, then how many more.

    Example:
        >>> show_problems(["a.xml, line 3, PMID 7: no title"])  # doctest: +SKIP
        skipped: a.xml, line 3, PMID 7: no title
    """
    for problem in problems[:SHOWN_PROBLEMS]:
        errors.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    if len(problems) > SHOWN_PROBLEMS:
        errors.print(f"… and {len(problems) - SHOWN_PROBLEMS} more problems", highlight=False)


@contextmanager
def progress(description: str, total: int | None) -> Iterator[ProgressReport]:
    """Progress on stderr: a live bar on a terminal, plain flushed lines otherwise; yields a `ProgressReport`."""
    if not errors.is_terminal:
        report = ProgressReport(None, errors, description, total)
        yield report
        report.finish()
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
    ) as bar:
        yield ProgressReport(bar, errors, description, total)
