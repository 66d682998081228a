"""Copying a node keeps Qdrant's preallocated files sparse and every byte the same."""

from __future__ import annotations

from pathlib import Path

from clinrag.index.sparse_copy import copy_tree


def _allocated(path: Path) -> int:
    return path.stat().st_blocks * 512


def test_a_copy_has_the_same_bytes_and_no_more_blocks(tmp_path: Path) -> None:
    source = tmp_path / "node" / "index" / "shard"
    source.mkdir(parents=True)
    data = source / "page_0.dat"
    with data.open("wb") as handle:  # 1 MB of data, 31 MB of hole, as Qdrant leaves a page
        handle.write(b"\x01" * (1 << 20))
        handle.truncate(32 << 20)
    (source / "manifest.json").write_text('{"chunks": 3}')
    (source / "empty").write_bytes(b"")
    copy_tree(tmp_path / "node", tmp_path / "copy")
    copied = tmp_path / "copy" / "index" / "shard"
    assert (copied / "page_0.dat").read_bytes() == data.read_bytes()
    assert (copied / "manifest.json").read_text() == '{"chunks": 3}'
    assert (copied / "empty").read_bytes() == b""
    assert _allocated(copied / "page_0.dat") <= _allocated(data) + (1 << 16)
    assert _allocated(copied / "page_0.dat") < 4 << 20


def test_trailing_data_after_a_hole_is_copied(tmp_path: Path) -> None:
    source = tmp_path / "a"
    source.mkdir()
    with (source / "wal").open("wb") as handle:
        handle.seek(5 << 20)
        handle.write(b"tail")
    copy_tree(source, tmp_path / "b")
    assert (tmp_path / "b" / "wal").read_bytes() == (source / "wal").read_bytes()
