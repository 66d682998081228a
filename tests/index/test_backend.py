"""Choosing a leaf's store from IndexSettings: Edge shard, qdrant-client local mode, or a Qdrant server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from clinrag.errors import StoreError
from clinrag.index.backend import (
    LOCAL_DIR,
    collection_name,
    create_leaf_store,
    drop_indexes,
    leaf_names,
    open_leaf_store,
)
from clinrag.index.edge import EdgeStore
from clinrag.index.server import ServerStore
from clinrag.index.store import IndexManifest
from clinrag.settings import IndexSettings

MANIFEST = IndexManifest.new("test-embedder", 4, 6.0)


@pytest.mark.parametrize("settings", [IndexSettings(), IndexSettings(backend="server")], ids=["edge", "local"])
def test_create_open_and_list_leaves(tmp_path: Path, settings: IndexSettings) -> None:
    root = tmp_path / "A" / "index"
    assert leaf_names(root, settings) == []
    with pytest.raises(StoreError):
        open_leaf_store(root, "medicine", settings)
    for leaf in ("surgery", "medicine"):
        create_leaf_store(root, leaf, MANIFEST, settings).close()
    assert leaf_names(root, settings) == ["medicine", "surgery"]
    store = open_leaf_store(root, "medicine", settings)
    assert store.manifest == MANIFEST
    assert isinstance(store, EdgeStore if settings.backend == "edge" else ServerStore)
    store.close()
    with pytest.raises(StoreError, match="exists already"):
        create_leaf_store(root, "medicine", MANIFEST, settings)
    if settings.backend == "server":
        assert (root / "medicine" / LOCAL_DIR).is_dir()
        assert leaf_names(root) == []  # the other backend's indexes are not this one's
    assert drop_indexes(root, settings) == ["medicine", "surgery"]
    assert leaf_names(root, settings) == []


def test_collection_names_are_per_node_and_reversible() -> None:
    assert collection_name(Path("nodes/A/index"), "medicine") == "A.medicine"
    assert collection_name(Path("nodes/St. Mary/index"), "a.b/c") == "St%2E%20Mary.a%2Eb%2Fc"


class _Shared:
    """Stands in for a Qdrant server: one in-memory client that every `connect` gets, recording the arguments."""

    def __init__(self) -> None:
        self.client = QdrantClient(location=":memory:")
        self.calls: list[tuple[str, str | None]] = []

    def connect(self, url: str, api_key: str | None = None) -> Any:
        self.calls.append((url, api_key))
        client = self.client
        client.close = lambda **_: None  # type: ignore[method-assign]  # the "server" outlives each store
        return client


def test_a_remote_server_gets_url_and_key_and_keeps_nodes_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _Shared()
    monkeypatch.setattr(ServerStore, "connect", staticmethod(server.connect))
    remote = IndexSettings(backend="server", qdrant_url="http://qdrant:6333", qdrant_api_key="secret")
    node_a, node_b = tmp_path / "A" / "index", tmp_path / "B" / "index"
    for root, leaf in ((node_a, "medicine"), (node_a, "trauma surgery"), (node_b, "medicine")):
        create_leaf_store(root, leaf, MANIFEST, remote).close()
    names = {c.name for c in server.client.get_collections().collections}
    assert {"A.medicine", "A.trauma%20surgery", "B.medicine"} <= names
    assert leaf_names(node_a, remote) == ["medicine", "trauma surgery"]
    assert leaf_names(node_b, remote) == ["medicine"]
    assert not node_a.exists()  # nothing on local disk
    store = open_leaf_store(node_a, "trauma surgery", remote)
    assert store.manifest == MANIFEST
    store.close()
    assert set(server.calls) == {("http://qdrant:6333", "secret")}
    with pytest.raises(StoreError, match="not found"):
        open_leaf_store(tmp_path / "C" / "index", "medicine", remote)
    assert drop_indexes(node_a, remote) == ["medicine", "trauma surgery"]
    assert leaf_names(node_a, remote) == []
    assert {c.name for c in server.client.get_collections().collections} == {"B.medicine", "B.medicine__manifest"}
