"""Snapshot size of a node's leaf indexes (issue 16): before (every shard file archived at its full, preallocated
length, a tar of the shard inside a tar) and after (files without their trailing zeros, gzip), with the shard's
bytes on disk, the seconds each takes, and a restore of the new snapshot checked point for point.

Qdrant Edge preallocates its files: 32 MB write-ahead-log segments (two of them), 32 MB pages of dense vectors,
BM25 vectors and payloads, 2-4 MB pages per payload index. They are sparse on disk, so a leaf of a few thousand
chunks uses a few MB, but ``tarfile`` reads holes as zeros and archived them at full length.

    python benchmarks/bench_snapshot.py [--node data/demo/nodes/A] [--patients 300]

Without ``--node``, the demo federation is built for ``--patients`` patients in a temporary folder and hospital
A is measured (the demo's default size, where the issue's figure of 264 MB was taken).
"""

from __future__ import annotations

import argparse
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.demo.build import build_demo
from clinrag.index.edge import SHARD_DIR, EdgeStore
from clinrag.index.indexer import leaf_folders
from clinrag.settings import Settings
from common import write


def _on_disk(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def _apparent(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _old_snapshot(store: EdgeStore, target: Path) -> int:
    """The snapshot as written before issue 16: the shard folder tarred as is, inside a second tar."""
    inner = target.with_name("shard.tar")
    with tarfile.open(inner, "w") as archive:
        archive.add(store.folder / SHARD_DIR, arcname=".")
    with tarfile.open(target, "w") as archive:
        archive.add(inner, arcname="shard.tar")
    inner.unlink()
    return target.stat().st_size


def measure(node: Path, work: Path) -> dict[str, Any]:
    leaves: dict[str, Any] = {}
    for leaf, folder in leaf_folders(node / "index").items():
        store = EdgeStore.open(folder)
        try:
            started = time.perf_counter()
            old = _old_snapshot(store, work / f"{leaf}-old.tar")
            old_seconds = time.perf_counter() - started
            started = time.perf_counter()
            info = store.write_snapshot(work / f"{leaf}.tar.gz", leaf)
            new_seconds = time.perf_counter() - started
            ids = store.chunk_ids()
        finally:
            store.close()
        started = time.perf_counter()
        restored = EdgeStore.restore(info.path, work / "restored" / leaf)
        restore_seconds = time.perf_counter() - started
        try:
            same = restored.chunk_ids() == ids
        finally:
            restored.close()
        leaves[leaf] = {
            "chunks": info.chunks,
            "shard_on_disk_bytes": _on_disk(folder),
            "shard_apparent_bytes": _apparent(folder),
            "snapshot_before_bytes": old,
            "snapshot_before_seconds": round(old_seconds, 3),
            "snapshot_after_bytes": info.snapshot_bytes,
            "snapshot_after_seconds": round(new_seconds, 3),
            "restore_seconds": round(restore_seconds, 3),
            "restored_on_disk_bytes": _on_disk(work / "restored" / leaf),
            "restored_same_points": same,
        }
    return leaves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node", type=Path, help="A node folder with built indexes (default: build the demo).")
    parser.add_argument("--patients", type=int, default=300, help="Demo size when --node is not given.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        node = args.node
        if node is None:
            build_demo(Path(tmp) / "demo", patients=args.patients, seed=42, settings=Settings())
            node = Path(tmp) / "demo" / "nodes" / "A"
        work = Path(tmp) / "work"
        work.mkdir()
        leaves = measure(node, work)
    totals = {
        key: sum(leaf[key] for leaf in leaves.values())
        for key in ("chunks", "shard_on_disk_bytes", "snapshot_before_bytes", "snapshot_after_bytes")
    }
    write(
        "snapshot",
        {
            "node": str(args.node) if args.node else f"demo hospital A, {args.patients} patients, seed 42",
            "command": "python benchmarks/bench_snapshot.py"
            + (f" --node {args.node}" if args.node else f" --patients {args.patients}"),
            "leaves": leaves,
            "totals": totals,
        },
    )


if __name__ == "__main__":
    main()
