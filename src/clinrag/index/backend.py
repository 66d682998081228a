"""Which store holds a leaf's index, chosen by ``IndexSettings.backend``: the one place that opens or creates one.

- ``edge`` (default): a Qdrant Edge shard in ``INDEX_ROOT/LEAF/`` (`EdgeStore`).
- ``server`` with ``qdrant_url``: a collection of that Qdrant server or cluster (`ServerStore`, with
  ``qdrant_api_key``), named ``NODE.LEAF`` after the node folder (the parent of ``INDEX_ROOT``) so that several
  nodes can share one server; a node's leaves are the collections carrying its prefix.
- ``server`` without ``qdrant_url``: qdrant-client's local mode on disk in ``INDEX_ROOT/LEAF/qdrant-local/`` (one
  collection named after the leaf). Same API as a server, so it rehearses the server path with no server; it
  scores by brute force and one process at a time may open it, so it suits tests and small nodes.

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
from urllib.parse import quote, unquote

from qdrant_client import QdrantClient

from clinrag.errors import StoreError
from clinrag.index.edge import MANIFEST_FILE, EdgeStore
from clinrag.index.server import MANIFEST_SUFFIX, ServerStore
from clinrag.index.store import IndexManifest, VectorStore
from clinrag.settings import IndexSettings

LOCAL_DIR = "qdrant-local"
SEPARATOR = "."


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


def _settings(settings: IndexSettings | None) -> IndexSettings:
    return settings if settings is not None else IndexSettings()


def _server_client(index_root: Path, leaf: str, settings: IndexSettings, create: bool) -> tuple[QdrantClient, str]:
    """A client and the collection name of ``leaf``: on the configured server, or in local mode on disk."""
    if settings.qdrant_url is not None:
        client = ServerStore.connect(settings.qdrant_url, settings.qdrant_api_key)
        return client, collection_name(index_root, leaf)
    folder = index_root / leaf / LOCAL_DIR
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    elif not folder.is_dir():
        raise StoreError(f"{folder}: no index here; build one with 'clinrag index build'")
    return ServerStore.local(folder), leaf


def leaf_names(index_root: Path, settings: IndexSettings | None = None) -> list[str]:
    """The leaves that have an index under ``index_root`` (or, for a remote server, on the server), sorted."""
    chosen = _settings(settings)
    if chosen.backend == "server" and chosen.qdrant_url is not None:
        client = ServerStore.connect(chosen.qdrant_url, chosen.qdrant_api_key)
        try:
            names = {c.name for c in client.get_collections().collections}
        finally:
            client.close()
        prefix = collection_name(index_root, "")
        return sorted(
            unquote(name[len(prefix) :])
            for name in names
            if name.startswith(prefix) and name + MANIFEST_SUFFIX in names
        )
    if not index_root.is_dir():
        return []
    marker = LOCAL_DIR if chosen.backend == "server" else MANIFEST_FILE
    return sorted(p.name for p in index_root.iterdir() if (p / marker).exists())


def open_leaf_store(index_root: Path, leaf: str, settings: IndexSettings | None = None) -> VectorStore:
    """The existing index of ``leaf`` in the chosen backend (`StoreError` when there is none)."""
    chosen = _settings(settings)
    if chosen.backend == "edge":
        return EdgeStore.open(index_root / leaf)
    client, name = _server_client(index_root, leaf, chosen, create=False)
    try:
        return ServerStore.open(client, name)
    except Exception:
        client.close()
        raise


def create_leaf_store(
    index_root: Path, leaf: str, manifest: IndexManifest, settings: IndexSettings | None = None
) -> VectorStore:
    """A new, empty index of ``leaf`` in the chosen backend (`StoreError` when one exists already)."""
    chosen = _settings(settings)
    if chosen.backend == "edge":
        return EdgeStore.create(index_root / leaf, manifest)
    client, name = _server_client(index_root, leaf, chosen, create=True)
    try:
        return ServerStore.create(client, name, manifest, chosen.qdrant_shards, chosen.qdrant_replicas)
    except Exception:
        client.close()
        raise


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
    chosen = _settings(settings)
    leaves = leaf_names(index_root, chosen)
    if chosen.backend == "server" and chosen.qdrant_url is not None:
        client = ServerStore.connect(chosen.qdrant_url, chosen.qdrant_api_key)
        try:
            for leaf in leaves:
                name = collection_name(index_root, leaf)
                client.delete_collection(name)
                client.delete_collection(name + MANIFEST_SUFFIX)
        finally:
            client.close()
    else:
        if chosen.backend == "edge":
            for leaf in leaves:  # never delete a shard that a running node holds (raises `ShardLockedError`)
                EdgeStore.open(index_root / leaf).close()
        shutil.rmtree(index_root, ignore_errors=True)
    return leaves
