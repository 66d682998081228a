"""``clinrag index``: build, update, back up and restore a node's leaf indexes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import ConfigOption, console, progress, settings_for
from clinrag.errors import ConfigError
from clinrag.index.backend import drop_indexes, open_leaf_store
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import embedder_from
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.hybrid import CHUNKS_FILE, INDEX_DIR

index_app = typer.Typer(
    help="Build and maintain the vector + BM25 indexes of a node (one per leaf).", no_args_is_help=True
)

NodeArgument = Annotated[Path, typer.Argument(help="Node folder holding chunks.sqlite (from 'clinrag ingest').")]


@index_app.command("build")
def build_command(
    node: NodeArgument,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Delete the existing indexes and build anew.")] = False,
    config: ConfigOption = None,
) -> None:
    """Embed and index every chunk of the node, one shard per leaf; later runs only add and remove what changed.

    Example: clinrag index build data/demo/nodes/A
    """
    settings = settings_for(config).settings
    chunks_path = node / CHUNKS_FILE
    if not chunks_path.is_file():
        raise ConfigError(f"{chunks_path}: no chunk store; run 'clinrag ingest' for this node first")
    if rebuild:
        drop_indexes(node / INDEX_DIR, settings.index)  # server collections too, not only folders
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    started = time.perf_counter()
    with ChunkStore.open(chunks_path) as chunks, progress("indexing", chunks.count()) as advance:
        totals: dict[str, int] = {}

        def report(leaf: str, done: int) -> None:
            totals[leaf] = done
            advance(sum(totals.values()))

        summary = build_indexes(chunks, node / INDEX_DIR, embedder, report, index=settings.index)
    table = Table(title=f"Indexes of {node} with {summary.embedder_id} ({time.perf_counter() - started:.1f} s)")
    for column in ("leaf", "added", "removed", "kept", "chunks/s"):
        table.add_column(column, justify="left" if column == "leaf" else "right")
    for leaf, outcome in summary.leaves.items():
        table.add_row(
            leaf, f"{outcome.added:,}", f"{outcome.removed:,}", f"{outcome.kept:,}", f"{outcome.chunks_per_second:,.0f}"
        )
    console.print(table)


@index_app.command("snapshot")
def snapshot_command(
    node: NodeArgument,
    leaf: Annotated[str, typer.Option(help="The leaf (department) to back up.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot file to write (.tar).")],
    config: ConfigOption = None,
) -> None:
    """Back up one leaf's index to a single file (the index stays usable).

    Example: clinrag index snapshot data/demo/nodes/A --leaf medicine --out backups/A-medicine.tar
    """
    store = open_leaf_store(node / INDEX_DIR, leaf, settings_for(config).settings.index)
    try:
        path = store.snapshot(out)
        console.print(f"snapshot of {leaf} ({store.count():,} chunks) written to {path}")
    finally:
        store.close()


@index_app.command("restore")
def restore_command(
    snapshot: Annotated[Path, typer.Argument(help="A snapshot file written by 'clinrag index snapshot'.")],
    node: NodeArgument,
    leaf: Annotated[str, typer.Option(help="The leaf (department) to restore into; its index folder must not exist.")],
    config: ConfigOption = None,
) -> None:
    """Restore one leaf's index from a snapshot file.

    Example: clinrag index restore backups/A-medicine.tar data/demo/nodes/A --leaf medicine
    """
    if settings_for(config).settings.index.backend == "server":
        raise ConfigError("restore is for embedded (edge) indexes; restore a Qdrant server with its snapshot API")
    store = EdgeStore.restore(snapshot, node / INDEX_DIR / leaf)
    try:
        console.print(f"restored {leaf}: {store.count():,} chunks, embedder {store.manifest.embedder_id}")
    finally:
        store.close()
