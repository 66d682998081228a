"""``clinrag index``: build, update, back up and restore a node's leaf indexes."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import ConfigOption, console, progress, settings_for
from clinrag.app.scale_cli import EngineOption, RayAddressOption, WorkersOption, engine_session, scale_overrides
from clinrag.errors import ConfigError, StoreError
from clinrag.index.backend import drop_indexes, leaf_names
from clinrag.index.edge import EdgeStore, SnapshotInfo, snapshot_leaf
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
    engine: EngineOption = None,
    ray_address: RayAddressOption = None,
    workers: WorkersOption = None,
    config: ConfigOption = None,
) -> None:
    """Embed and index every chunk of the node, one shard per leaf; later runs only add and remove what changed.

    With --engine ray the embedder runs as a Ray Data actor pool (docs/scaling.md); the indexes are the same.

    Example: clinrag index build data/demo/nodes/A
    """
    settings = settings_for(config, scale_overrides(engine, ray_address, workers)).settings
    chunks_path = node / CHUNKS_FILE
    if not chunks_path.is_file():
        raise ConfigError(f"{chunks_path}: no chunk store; run 'clinrag ingest' for this node first")
    if rebuild:
        drop_indexes(node / INDEX_DIR, settings.index)  # server collections too, not only folders
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    started = time.perf_counter()
    with (
        engine_session(settings.scale),
        ChunkStore.open(chunks_path) as chunks,
        progress("indexing", chunks.count()) as advance,
    ):
        totals: dict[str, int] = {}

        def report(leaf: str, done: int) -> None:
            totals[leaf] = done
            advance(sum(totals.values()))

        if settings.scale.engine == "ray":
            from clinrag.index.scale.build import build_indexes_ray

            summary = build_indexes_ray(
                chunks, node / INDEX_DIR, settings.index, settings.scale, settings.paths.cache_dir, report
            )
        else:
            summary = build_indexes(chunks, node / INDEX_DIR, embedder, report, index=settings.index)
    table = Table(title=f"Indexes of {node} with {summary.embedder_id} ({time.perf_counter() - started:.1f} s)")
    for column in ("leaf", "added", "removed", "kept", "chunks/s"):
        table.add_column(column, justify="left" if column == "leaf" else "right")
    for leaf, outcome in summary.leaves.items():
        table.add_row(
            leaf, f"{outcome.added:,}", f"{outcome.removed:,}", f"{outcome.kept:,}", f"{outcome.chunks_per_second:,.0f}"
        )
    console.print(table)


SNAPSHOT_SUFFIX = ".tar.gz"
BACKUP_INFO = "backup.json"


def _edge_only(config: Path | None, what: str) -> None:
    """Refuse ``what`` unless ``index.backend`` is edge: any other store (server, or a store plugin's) is backed up
    with its own tools."""
    backend = settings_for(config).settings.index.backend
    if backend != "edge":
        raise ConfigError(
            f"{what} is for embedded (edge) indexes, and index.backend is {backend}; back up a Qdrant server with "
            "its snapshot API (POST /collections/NAME/snapshots), a store plugin's indexes with that plugin's tools"
        )


def _copy_chunks(source: Path, target: Path) -> None:
    """A consistent copy of a chunk store, even while a node reads it (SQLite's online backup)."""
    with (
        contextlib.closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src,
        contextlib.closing(sqlite3.connect(target)) as dst,
    ):
        src.backup(dst)


@index_app.command("snapshot")
def snapshot_command(
    node: NodeArgument,
    leaf: Annotated[
        list[str] | None, typer.Option(help="A leaf (department) to back up; repeatable. Default: every leaf.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Backup folder to write (default: backups/NODE-YYYYmmdd-HHMMSS); a file name ending in .tar.gz "
            "or .tar with one --leaf writes just that snapshot.",
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Back up a node's indexes (and its chunk store) while they stay usable.

    Writes one LEAF.tar.gz per leaf and a copy of chunks.sqlite (the node's chunks and patient registry) into
    the backup folder. The node must not be serving: stop it first (the index of a served node is locked).

    Examples:

      clinrag index snapshot data/demo/nodes/A                       # every leaf, into backups/A-<time>/

      clinrag index snapshot data/demo/nodes/A --out backups/A-monday

      clinrag index snapshot data/demo/nodes/A --leaf medicine --out backups/A-medicine.tar.gz
    """
    _edge_only(config, "snapshot")
    index_root = node / INDEX_DIR
    leaves = leaf or leaf_names(index_root)
    if not leaves:
        raise StoreError(f"{node}: no index found under {index_root}; run 'clinrag index build' first")
    missing = sorted(set(leaves) - set(leaf_names(index_root)))
    if missing:
        raise ConfigError(f"--leaf {missing[0]}: no such leaf in {node} (leaves: {', '.join(leaf_names(index_root))})")
    single = out is not None and out.name.endswith((".tar", ".tar.gz"))
    if single and len(leaves) != 1:
        raise ConfigError("--out: a file name (.tar.gz) holds one leaf; give one --leaf, or a folder for several")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = out if out is not None and not single else Path("backups") / f"{node.resolve().name}-{stamp}"
    written: list[SnapshotInfo] = []
    for name in leaves:
        store = EdgeStore.open(index_root / name)
        try:
            target = out if single and out is not None else folder / f"{name}{SNAPSHOT_SUFFIX}"
            written.append(store.write_snapshot(target, name))
        finally:
            store.close()
        line = written[-1]
        console.print(
            f"snapshot of {name} ({line.chunks:,} chunks, {line.snapshot_bytes / 1e6:,.1f} MB) written to {line.path}"
        )
    if not single:
        chunks = node / CHUNKS_FILE
        if chunks.is_file():
            _copy_chunks(chunks, folder / CHUNKS_FILE)
            console.print(f"chunk store copied to {folder / CHUNKS_FILE}")
        info = {"node": str(node), "created": stamp, "leaves": {w.leaf: w.chunks for w in written}}
        (folder / BACKUP_INFO).write_text(json.dumps(info, indent=2) + "\n")
        console.print(f"backup of {node} in {folder}; restore with: clinrag index restore {folder} NODE_FOLDER")


def _snapshots(source: Path) -> list[Path]:
    if source.is_dir():
        found = sorted(p for p in source.iterdir() if p.name.endswith((".tar.gz", ".tar")))
        if not found:
            raise StoreError(f"{source}: no snapshot files (LEAF.tar.gz) in this folder")
        return found
    if not source.is_file():
        raise StoreError(f"{source}: no such snapshot file or backup folder")
    return [source]


def _restore_chunks(source: Path, node: Path, replace: bool) -> None:
    target = node / CHUNKS_FILE
    if target.exists() and not replace:
        raise StoreError(f"{target}: a chunk store exists already; add --replace to replace it")
    node.mkdir(parents=True, exist_ok=True)
    partial = node / (CHUNKS_FILE + ".restoring")
    _copy_chunks(source, partial)
    if target.exists():  # fold the old store's write-ahead log in, so that no stale -wal file meets the new one
        with contextlib.closing(sqlite3.connect(target)) as old:
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial.replace(target)
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)


@index_app.command("restore")
def restore_command(
    snapshot: Annotated[
        Path, typer.Argument(help="A backup folder or one snapshot file written by 'clinrag index snapshot'.")
    ],
    node: NodeArgument,
    leaf: Annotated[
        str | None,
        typer.Option(help="The leaf to restore a snapshot file into (default: the leaf it was taken of)."),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace", help="Replace existing indexes (and chunk store); each old one stays until its new one opens."
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Restore a node's indexes (and chunk store) from a backup folder, or one leaf from a snapshot file.

    Existing indexes are kept unless --replace is given; a node that is serving must be stopped first.

    Examples:

      clinrag index restore backups/A-20260101-120000 data/demo/nodes/A --replace

      clinrag index restore backups/A-medicine.tar.gz data/demo/nodes/A --leaf medicine
    """
    _edge_only(config, "restore")
    files = _snapshots(snapshot)
    if leaf is not None and len(files) > 1:
        raise ConfigError("--leaf names the leaf of one snapshot file; a backup folder restores every leaf in it")
    targets = {path: leaf or snapshot_leaf(path) or path.name.split(".")[0] for path in files}
    chunks = snapshot / CHUNKS_FILE if snapshot.is_dir() and (snapshot / CHUNKS_FILE).is_file() else None
    if not replace:  # refuse before touching anything, rather than after restoring some leaves
        taken = [node / INDEX_DIR / name for name in targets.values() if (node / INDEX_DIR / name).exists()]
        taken += [node / CHUNKS_FILE] if chunks is not None and (node / CHUNKS_FILE).exists() else []
        if taken:
            raise StoreError(
                f"{taken[0]}: exists already; add --replace to replace what the backup holds (each old index "
                "stays until its restored one opens), or restore into another node folder"
            )
    for path, name in targets.items():
        store = EdgeStore.restore(path, node / INDEX_DIR / name, replace=replace)
        try:
            console.print(f"restored {name}: {store.count():,} chunks, embedder {store.manifest.embedder_id}")
        finally:
            store.close()
    if chunks is not None:
        _restore_chunks(chunks, node, replace)
        console.print(f"restored the chunk store {node / CHUNKS_FILE}")
