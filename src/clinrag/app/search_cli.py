"""``clinrag search``: the hits a question retrieves at one node, with scores and provenance."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import ConfigOption, NodeOption, console, settings_for
from clinrag.index.embed import embedder_from
from clinrag.retrieve.hybrid import Retrieval, Retriever
from clinrag.retrieve.query import DateRange
from clinrag.settings import RetrieveSettings
from clinrag.types import SearchFilters

MODES = ("dense", "bm25", "hybrid", "hybrid-mmr")


def _bounds(name: str) -> tuple[int | None, int | None]:
    """The ``ge`` and ``le`` bounds of a retrieve setting, so that an option states them as the setting does."""
    low = high = None
    for rule in RetrieveSettings.model_fields[name].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    return low, high


K_MIN, K_MAX = _bounds("k")


def _check_mode(value: str | None) -> str | None:
    if value is not None and value not in MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(MODES)}")
    return value


def _moment(value: datetime) -> str:
    return value.date().isoformat() if value.time() == datetime.min.time() else value.isoformat(" ", "minutes")


def describe_dates(dates: DateRange) -> str:
    """A date range in words (``start`` inclusive, ``end`` exclusive).

    Example:
        >>> describe_dates(DateRange(datetime(2020, 1, 1), None))
        'on or after 2020-01-01'
        >>> describe_dates(DateRange(datetime(2019, 1, 1), datetime(2020, 1, 1, 12, 30)))
        'from 2019-01-01 until before 2020-01-01 12:30'
    """
    if dates.start is not None and dates.end is not None:
        return f"from {_moment(dates.start)} until before {_moment(dates.end)}"
    if dates.start is not None:
        return f"on or after {_moment(dates.start)}"
    if dates.end is not None:
        return f"before {_moment(dates.end)}"
    return "any date"


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values else None


def search_command(
    question: Annotated[str, typer.Argument(help="The question, in plain words.")],
    node: NodeOption = Path("data/demo/nodes/A"),
    patient: Annotated[
        list[int] | None, typer.Option(help="Only this patient's chunks (subject_id); repeatable.")
    ] = None,
    dept: Annotated[list[str] | None, typer.Option(help="Only this department; repeatable.")] = None,
    service: Annotated[list[str] | None, typer.Option(help="Only this service code (MED, ORTHO, ...).")] = None,
    section: Annotated[list[str] | None, typer.Option(help="Only this note section ('Discharge Medications').")] = None,
    kind: Annotated[list[str] | None, typer.Option(help="Only this source kind: note or row.")] = None,
    since: Annotated[datetime | None, typer.Option(help="Only chunks dated on or after this date.")] = None,
    until: Annotated[datetime | None, typer.Option(help="Only chunks dated before this date.")] = None,
    mode: Annotated[str | None, typer.Option(help="dense, bm25, hybrid or hybrid-mmr.", callback=_check_mode)] = None,
    k: Annotated[int | None, typer.Option(help=f"Hits to show ({K_MIN} to {K_MAX}).", min=K_MIN, max=K_MAX)] = None,
    config: ConfigOption = None,
) -> None:
    """Search one node and print the hits with scores and provenance.

    Names in the question are resolved against the node's own patient registry; a named patient restricts the
    search to their chunks, and a name the node does not know returns nothing rather than someone else's notes.

    Example: clinrag search "What was Betty Henry discharged on?" --node data/demo/nodes/A --kind note
    """
    settings = settings_for(config, {"retrieve": {"mode": mode, "k": k}}).settings
    filters = SearchFilters(
        subject_ids=tuple(patient) if patient else None,
        depts=_tuple(dept),
        services=_tuple(service),
        sections=_tuple(section),
        source_kinds=_tuple(kind),
        start=since,
        end=until,
    )
    retriever = Retriever.open(
        node, settings.retrieve, embedder_from(settings.index, settings.paths.cache_dir), index=settings.index
    )
    try:
        result = retriever.retrieve(question, filters)
    finally:
        retriever.close()
    print_retrieval(result)


def print_retrieval(result: Retrieval) -> None:
    """A table of hits and a line on how the question was understood."""
    resolution = result.resolution
    if resolution is not None and resolution.mentions:
        named = ", ".join(f"{m.text} → {', '.join(map(str, m.subject_ids))}" for m in resolution.mentions)
        console.print(f"patients: {named}")
    if result.no_such_patient:
        unknown = ", ".join(resolution.unknown_persons) if resolution else ""
        console.print(f"[yellow]No patient here matches {unknown or 'the person named'}; nothing retrieved.[/yellow]")
        return
    if result.understanding.date_range is not None:
        console.print(f"dates: {describe_dates(result.understanding.date_range)}")
    table = Table(title=f"{len(result.hits)} hits")
    for column in ("#", "score", "cosine", "org/dept", "patient", "note / row", "section", "text"):
        table.add_column(column, overflow="fold")
    for hit in result.hits:
        chunk = hit.chunk
        table.add_row(
            str(hit.rank),
            f"{hit.score:.4f}",
            f"{hit.scores.get('dense', 0.0):.3f}",
            f"{chunk.org}/{chunk.dept}",
            f"{chunk.patient_name or ''} ({chunk.subject_id})",
            chunk.note_id or chunk.table or "",
            chunk.section or "",
            chunk.text[:160].replace("\n", " "),
        )
    console.print(table)
    spent = ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in result.timings.items())
    console.print(f"[dim]{spent}; {result.below_threshold} below the relevance threshold[/dim]")
