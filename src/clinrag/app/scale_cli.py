"""The ``--engine`` options of `clinrag ingest` and `clinrag index build`: local (default) or a Ray pipeline.

Ray is imported only when ``--engine ray`` is chosen; without the ``scale`` extra that choice stops with a line
naming ``pip install 'clinrag[scale]'``.

Example:
    >>> overrides = scale_overrides("ray", "auto", 4)
    >>> overrides
    {'scale': {'engine': 'ray', 'ray_address': 'auto', 'workers': 4}}
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Any

import typer

from clinrag.ingest.pipeline import NoteChunker, local_note_chunker
from clinrag.settings import ScaleSettings

EngineOption = Annotated[
    str | None,
    typer.Option(
        "--engine",
        # "\\[" keeps Rich (rich_markup_mode) from reading "[scale]" as a style tag and dropping it
        help="local (this process) or ray (a Ray Data pipeline; pip install 'clinrag\\[scale]'); see docs/scaling.md.",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address", help="Ray cluster to join ('auto', 'ray://HOST:10001'); default: Ray on this machine."
    ),
]
WorkersOption = Annotated[int | None, typer.Option("--workers", help="Ray workers (embedder actors, chunking tasks).")]


def scale_overrides(engine: str | None, ray_address: str | None, workers: int | None) -> dict[str, dict[str, Any]]:
    """The settings overrides of the engine options (None: not given)."""
    if engine is not None and engine not in ("local", "ray"):
        raise typer.BadParameter(f"--engine must be local or ray, not {engine!r}")
    return {"scale": {"engine": engine, "ray_address": ray_address, "workers": workers}}


def engine_session(scale: ScaleSettings) -> AbstractContextManager[object]:
    """Ray started or joined for the command's duration (engine ray), else nothing."""
    if scale.engine != "ray":
        return nullcontext()
    from clinrag.ingest.scale.engine import ray_session

    return ray_session(scale)


def note_chunker(scale: ScaleSettings) -> NoteChunker:
    """The note chunker of the chosen engine."""
    if scale.engine != "ray":
        return local_note_chunker
    from clinrag.ingest.scale.chunking import ray_note_chunker

    return ray_note_chunker(scale)
