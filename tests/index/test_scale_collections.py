"""The collections `clinrag index build` creates on a Qdrant cluster (``index.backend = "server"`` with
``index.qdrant_url``): each leaf's collection and its manifest's take the configured shards and replicas.

No Qdrant server runs here (docs/scaling.md), and local mode ignores both settings, so a stand-in for
``QdrantClient`` records the arguments of the calls `ServerStore.create` makes; everything else is clinrag's own
code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clinrag.index.backend import ServerLeaves
from clinrag.index.server import MANIFEST_SUFFIX, ServerStore
from clinrag.index.store import IndexManifest
from clinrag.settings import IndexSettings


class RecordingClient:
    """Records ``create_collection`` calls; answers that no collection exists yet; accepts the rest."""

    def __init__(self) -> None:
        self.created: dict[str, dict[str, Any]] = {}

    def collection_exists(self, name: str) -> bool:
        return name in self.created

    def create_collection(self, name: str, **arguments: Any) -> bool:
        self.created[name] = arguments
        return True

    def create_payload_index(self, *args: Any, **kwargs: Any) -> None:
        pass

    def upsert(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_leaf_and_its_manifest_get_the_configured_shards_and_replicas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = RecordingClient()
    monkeypatch.setattr(ServerStore, "connect", staticmethod(lambda url, api_key=None: client))
    settings = IndexSettings(
        backend="server", qdrant_url="http://qdrant.invalid:6333", qdrant_shards=6, qdrant_replicas=2
    )
    ServerLeaves(tmp_path / "GENERAL" / "index", settings).create("medicine", IndexManifest.new("e", 384, 50.0))
    leaf, manifest = client.created["GENERAL.medicine"], client.created["GENERAL.medicine" + MANIFEST_SUFFIX]
    assert (leaf["shard_number"], leaf["replication_factor"]) == (6, 2)
    assert (manifest["shard_number"], manifest["replication_factor"]) == (1, 2)  # one point; as many copies
