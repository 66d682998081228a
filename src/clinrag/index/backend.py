"""Which store holds a leaf's index, chosen by ``IndexSettings.backend``: the one place that opens or creates one.

- ``edge`` (default): a Qdrant Edge shard in ``INDEX_ROOT/LEAF/`` (`EdgeStore`).
- ``server`` with ``qdrant_url``: a collection of that Qdrant server or cluster (`ServerStore`, with
  ``qdrant_api_key``), named ``NODE.LEAF`` after the node folder (the parent of ``INDEX_ROOT``) so that several
  nodes can share one server; a node's leaves are the collections carrying its prefix.
- ``server`` without ``qdrant_url``: qdrant-client's local mode on disk in ``INDEX_ROOT/LEAF/qdrant-local/`` (one
  collection named after the leaf). Same API as a server, so it rehearses the server path with no server; it
  scores by brute force and one process at a time may open it, so it suits tests and small nodes.
- any other name: the backend an installed package registers under the entry point group ``clinrag.stores``
  (`clinrag.plugins`), whose factory is called as ``factory(settings, index_root)`` and returns `LeafStores`.

Each backend is a `LeafStores` for one node's index folder (`leaf_stores`); the functions below are its four
operations for the backend the settings choose.

Example:
    >>> import tempfile, pathlib, numpy as np
    >>> from clinrag.settings import IndexSettings
    >>> from clinrag.index.store import IndexManifest
    >>> root = pathlib.Path(tempfile.mkdtemp()) / "A" / "index"
    >>> local = IndexSettings(backend="server")
    >>> store = create_leaf_store(root, "medicine", IndexManifest.new("test", 2, 5.0), local)
    >>> store.close()
    >>> leaf_names(root, local), leaf_names(root)  # the edge backend sees no shard there
    (['medicine'], [])
    >>> collection_name(root, "cardiology")
    'A.cardiology'
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import quote, unquote

from qdrant_client import QdrantClient

from clinrag.errors import ConfigError, StoreError
from clinrag.index.edge import MANIFEST_FILE, EdgeStore
from clinrag.index.server import MANIFEST_SUFFIX, ServerStore
from clinrag.index.store import IndexManifest, VectorStore
from clinrag.plugins import STORES, load_plugin
from clinrag.settings import IndexSettings

LOCAL_DIR = "qdrant-local"
SEPARATOR = "."


@runtime_checkable
class LeafStores(Protocol):
    """The leaf indexes of one node's index folder in one backend: what a store backend provides, built in
    (`EdgeLeaves`, `ServerLeaves`) or made by a plugin's factory."""

    def leaf_names(self) -> list[str]:
        """The leaves that have an index, sorted."""
        ...

    def open(self, leaf: str) -> VectorStore:
        """The existing index of ``leaf`` (`StoreError` when there is none)."""
        ...

    def create(self, leaf: str, manifest: IndexManifest) -> VectorStore:
        """A new, empty index of ``leaf`` (`StoreError` when one exists already)."""
        ...

    def drop(self) -> list[str]:
        """Delete every leaf index (before a full rebuild); returns the leaves dropped."""
        ...


def _escape(name: str) -> str:
    """``name`` with anything but letters, digits, ``_``, ``-`` and ``~`` percent-encoded (so ``.`` separates)."""
    return quote(name, safe="").replace(".", "%2E")


def collection_name(index_root: Path, leaf: str) -> str:
    """The server collection of ``leaf``: the node folder's name and the leaf's, escaped, joined by a dot.

    Example:
        >>> collection_name(Path("data/demo/nodes/B/index"), "trauma surgery")
        'B.trauma%20surgery'
    """
    return _escape(index_root.resolve().parent.name) + SEPARATOR + _escape(leaf)


class EdgeLeaves:
    """``edge``: one Qdrant Edge shard per leaf in ``index_root/LEAF/``."""

    def __init__(self, index_root: Path) -> None:
        self.index_root = index_root

    def leaf_names(self) -> list[str]:
        """The leaf folders holding a shard, sorted."""
        if not self.index_root.is_dir():
            return []
        return sorted(p.name for p in self.index_root.iterdir() if (p / MANIFEST_FILE).exists())

    def open(self, leaf: str) -> VectorStore:
        """The shard of ``leaf``."""
        return EdgeStore.open(self.index_root / leaf)

    def create(self, leaf: str, manifest: IndexManifest) -> VectorStore:
        """A new shard for ``leaf``."""
        return EdgeStore.create(self.index_root / leaf, manifest)

    def drop(self) -> list[str]:
        """Delete the whole ``index_root`` folder, once no running node holds a shard of it."""
        leaves = self.leaf_names()
        for leaf in leaves:  # never delete a shard that a running node holds (raises `ShardLockedError`)
            EdgeStore.open(self.index_root / leaf).close()
        shutil.rmtree(self.index_root, ignore_errors=True)
        return leaves


class ServerLeaves:
    """``server``: a collection per leaf on the Qdrant server of ``settings.qdrant_url``, or, without one, in
    qdrant-client's local mode in ``index_root/LEAF/qdrant-local/``."""

    def __init__(self, index_root: Path, settings: IndexSettings) -> None:
        self.index_root = index_root
        self.settings = settings

    def _client(self, leaf: str, create: bool) -> tuple[QdrantClient, str]:
        """A client and the collection name of ``leaf``: on the configured server, or in local mode on disk."""
        url = self.settings.qdrant_url
        if url is not None:
            return ServerStore.connect(url, self.settings.qdrant_api_key), collection_name(self.index_root, leaf)
        folder = self.index_root / leaf / LOCAL_DIR
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        elif not folder.is_dir():
            raise StoreError(f"{folder}: no index here; build one with 'clinrag index build'")
        return ServerStore.local(folder), leaf

    def leaf_names(self) -> list[str]:
        """The node's collections that have a manifest (remote), or the leaf folders in local mode, sorted."""
        url = self.settings.qdrant_url
        if url is None:
            if not self.index_root.is_dir():
                return []
            return sorted(p.name for p in self.index_root.iterdir() if (p / LOCAL_DIR).exists())
        client = ServerStore.connect(url, self.settings.qdrant_api_key)
        try:
            names = {c.name for c in client.get_collections().collections}
        finally:
            client.close()
        prefix = collection_name(self.index_root, "")
        return sorted(
            unquote(name[len(prefix) :])
            for name in names
            if name.startswith(prefix) and name + MANIFEST_SUFFIX in names
        )

    def open(self, leaf: str) -> VectorStore:
        """The collection of ``leaf``."""
        client, name = self._client(leaf, create=False)
        try:
            return ServerStore.open(client, name)
        except Exception:
            client.close()
            raise

    def create(self, leaf: str, manifest: IndexManifest) -> VectorStore:
        """A new collection for ``leaf``, with the configured shards and replicas."""
        client, name = self._client(leaf, create=True)
        shards, replicas = self.settings.qdrant_shards, self.settings.qdrant_replicas
        try:
            return ServerStore.create(client, name, manifest, shards, replicas)
        except Exception:
            client.close()
            raise

    def drop(self) -> list[str]:
        """On a server, the node's collections and their manifests (other nodes' stay); in local mode, the whole
        ``index_root`` folder."""
        leaves = self.leaf_names()
        url = self.settings.qdrant_url
        if url is None:
            shutil.rmtree(self.index_root, ignore_errors=True)
            return leaves
        client = ServerStore.connect(url, self.settings.qdrant_api_key)
        try:
            for leaf in leaves:
                name = collection_name(self.index_root, leaf)
                client.delete_collection(name)
                client.delete_collection(name + MANIFEST_SUFFIX)
        finally:
            client.close()
        return leaves


def leaf_stores(index_root: Path, settings: IndexSettings | None = None) -> LeafStores:
    """The leaf indexes of ``index_root`` in the backend ``settings`` choose: built in, or an installed plugin's.

    Raises:
        ConfigError: the plugin is not installed, fails to load (`clinrag.plugins.load_plugin`), or its factory
            made something other than `LeafStores`.

    Example:
        >>> type(leaf_stores(Path("nodes/A/index"))).__name__
        'EdgeLeaves'
    """
    chosen = settings if settings is not None else IndexSettings()
    if chosen.backend == "edge":
        return EdgeLeaves(index_root)
    if chosen.backend == "server":
        return ServerLeaves(index_root, chosen)
    made = load_plugin(STORES, chosen.backend)(chosen, index_root)
    if not isinstance(made, LeafStores):
        raise ConfigError(f"the store plugin {chosen.backend!r} made {type(made).__name__}, not LeafStores")
    return made


def leaf_names(index_root: Path, settings: IndexSettings | None = None) -> list[str]:
    """The leaves that have an index under ``index_root`` (or, for a remote server, on the server), sorted."""
    return leaf_stores(index_root, settings).leaf_names()


def open_leaf_store(index_root: Path, leaf: str, settings: IndexSettings | None = None) -> VectorStore:
    """The existing index of ``leaf`` in the chosen backend (`StoreError` when there is none)."""
    return leaf_stores(index_root, settings).open(leaf)


def create_leaf_store(
    index_root: Path, leaf: str, manifest: IndexManifest, settings: IndexSettings | None = None
) -> VectorStore:
    """A new, empty index of ``leaf`` in the chosen backend (`StoreError` when one exists already)."""
    return leaf_stores(index_root, settings).create(leaf, manifest)


def drop_indexes(index_root: Path, settings: IndexSettings | None = None) -> list[str]:
    """Delete every leaf index of the node (before a full rebuild); returns the leaves dropped.

    On disk (Edge shards, local mode) the whole ``index_root`` folder goes; on a server, the node's collections
    and their manifests (other nodes' collections stay).

    Example:
        >>> import tempfile, pathlib
        >>> from clinrag.index.store import IndexManifest
        >>> root = pathlib.Path(tempfile.mkdtemp()) / "A" / "index"
        >>> create_leaf_store(root, "medicine", IndexManifest.new("test", 2, 5.0)).close()
        >>> drop_indexes(root), leaf_names(root)
        (['medicine'], [])
    """
    return leaf_stores(index_root, settings).drop()
