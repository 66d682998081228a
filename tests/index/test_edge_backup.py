"""Qdrant Edge shards: a shard another process holds is refused with a message that says so, snapshots are
proportional to the data (not to Qdrant's preallocated files), and restore can replace an index."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import StoreError
from clinrag.index.backend import drop_indexes
from clinrag.index.edge import SHARD_DIR, EdgeStore, ShardLockedError, snapshot_leaf
from clinrag.index.store import IndexManifest, StoreQuery
from clinrag.types import Chunk

DIM = 8

HOLDER = """
import sys, time
import qdrant_edge as qe
shard = qe.EdgeShard.load(sys.argv[1])
print("holding", flush=True)
sys.stdin.read()
shard.close()
"""


@contextmanager
def held(shard: Path) -> Iterator[None]:
    """A second Python process holding ``shard`` open, as a served node does, until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(shard)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def _leaf(folder: Path, size: int = 200) -> EdgeStore:
    store = EdgeStore.create(folder, IndexManifest.new("test-embedder", DIM, 8.0))
    rng = np.random.default_rng(0)
    chunks = [
        Chunk.create(source_id=f"note:{i}", text=f"aspirin dose {i}", org="A", dept="medicine") for i in range(size)
    ]
    vectors = rng.normal(size=(size, DIM)).astype(np.float32)
    store.upsert(
        chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), [{7: 1.0, i % 50: 0.5} for i in range(size)]
    )
    return store


def _top(store: EdgeStore) -> list[tuple[str, float]]:
    query = StoreQuery(dense=np.ones(DIM, dtype=np.float32) / np.sqrt(DIM), sparse={7: 1.0}, mode="hybrid", limit=10)
    found = [(hit.chunk.chunk_id, round(hit.score, 6)) for hit in store.query(query)]
    # equal RRF scores may come back in either order, and which of those tied with the last one make the top 10 too
    last = min(score for _, score in found)
    return sorted((hit for hit in found if hit[1] > last), key=lambda hit: (-hit[1], hit[0]))


def test_a_held_shard_names_the_node_and_what_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "nodes" / "A" / "index" / "medicine"
    _leaf(folder).close()
    with held(folder / SHARD_DIR):
        with pytest.raises(ShardLockedError) as raised:
            EdgeStore.open(folder)
        message = str(raised.value)
        assert str(tmp_path / "nodes" / "A") in message
        assert "running" in message
        assert "--as USER" in message
        assert "stop it" in message
        assert "WouldBlock" not in message
        with pytest.raises(ShardLockedError):  # a rebuild never deletes a shard a node holds
            drop_indexes(tmp_path / "nodes" / "A" / "index")
        assert (folder / SHARD_DIR).is_dir()
    EdgeStore.open(folder).close()  # released: opens again


def test_snapshot_is_proportional_to_the_data_and_restores_the_same_results(tmp_path: Path) -> None:
    store = _leaf(tmp_path / "index" / "medicine")
    before = _top(store)
    assert len(before) >= 5  # most of the top 10 are not tied with the last
    info = store.write_snapshot(tmp_path / "backup" / "medicine.tar.gz")
    store.close()
    on_disk = sum(p.stat().st_blocks * 512 for p in (tmp_path / "index" / "medicine").rglob("*") if p.is_file())
    assert info.shard_bytes > 10 * on_disk  # Qdrant preallocates (sparse) files ...
    assert info.snapshot_bytes < on_disk  # ... which the snapshot does not store
    assert info.chunks == 200
    assert snapshot_leaf(info.path) == "medicine"
    restored = EdgeStore.restore(info.path, tmp_path / "restored" / "medicine")
    assert restored.count() == 200
    assert _top(restored) == before
    restored.close()
    restored_on_disk = sum(p.stat().st_blocks * 512 for p in (tmp_path / "restored").rglob("*") if p.is_file())
    assert restored_on_disk < 2 * on_disk  # the zeros came back as holes, not as written blocks


def test_restore_replaces_only_when_asked_and_only_once_the_new_index_opens(tmp_path: Path) -> None:
    folder = tmp_path / "index" / "medicine"
    store = _leaf(folder, size=50)
    snapshot = store.write_snapshot(tmp_path / "small.tar.gz").path
    store.close()
    _leaf(tmp_path / "other", size=80).close()
    with pytest.raises(StoreError, match="--replace"):
        EdgeStore.restore(snapshot, tmp_path / "other")
    broken = tmp_path / "broken.tar.gz"
    with tarfile.open(broken, "w:gz") as archive:
        archive.add(tmp_path / "small.tar.gz", arcname="unrelated")
    with pytest.raises(StoreError, match="not a snapshot"):
        EdgeStore.restore(broken, tmp_path / "other", replace=True)
    kept = EdgeStore.open(tmp_path / "other")  # the failed restore left the old index in place
    assert kept.count() == 80
    with pytest.raises(ShardLockedError):  # and an index in use is never swapped out
        EdgeStore.restore(snapshot, tmp_path / "other", replace=True)
    kept.close()
    replaced = EdgeStore.restore(snapshot, tmp_path / "other", replace=True)
    assert replaced.count() == 50
    replaced.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    assert not (tmp_path / ".staging").exists()


def test_first_format_snapshots_still_restore(tmp_path: Path) -> None:
    store = _leaf(tmp_path / "leaf", size=30)
    store.close()
    old = tmp_path / "old.tar"
    inner = tmp_path / "shard.tar"
    with tarfile.open(inner, "w") as archive:
        archive.add(tmp_path / "leaf" / SHARD_DIR, arcname=".")
    with tarfile.open(old, "w") as archive:
        archive.add(inner, arcname="shard.tar")
        archive.add(tmp_path / "leaf" / "manifest.json", arcname="manifest.json")
    assert snapshot_leaf(old) is None
    restored = EdgeStore.restore(old, tmp_path / "restored")
    assert restored.count() == 30
    restored.close()
