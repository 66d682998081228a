"""A node's configuration file: the organisation, where its data and policies are, whom it trusts, and its tree.

```toml
[node]
org = "A"
name = "Hospital A"
data = "../nodes/A"            # chunks.sqlite and index/ (paths are relative to this file)
policies = "policies/A"        # *.cedar files
audit_log = "../audit/A.jsonl"
port = 8101
key_fetch_timeout = 2.0        # seconds to wait for an issuer's signing keys (default 2)

[[issuers]]                    # identity providers whose tokens this node accepts, and the org each speaks for
issuer = "http://127.0.0.1:9401"
org = "A"

[tree]                         # the root router; children are routers (with children) or leaves (with a store)
name = "A"
[[tree.children]]
name = "medicine"
store = "index/medicine"       # an embedded Qdrant Edge shard under data/, or qdrant_url + collection
```

Example:
    >>> spec = parse_tree({"name": "A", "children": [{"name": "medicine", "store": "index/medicine"}]}, Path("."))
    >>> [leaf.path for leaf in spec.leaves()]
    ['A/medicine']
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clinrag.access.identity import TrustedIssuer
from clinrag.errors import ConfigError

KEY_FETCH_TIMEOUT = 2.0
"""Seconds a node waits for an issuer's discovery document or signing keys, unless its config says otherwise."""


@dataclass(frozen=True)
class LeafSpec:
    """A leaf: a department's store. ``dept`` scopes its patient registry (default: its name)."""

    name: str
    path: str
    dept: str
    store: Path | None = None
    qdrant_url: str | None = None
    collection: str | None = None


@dataclass(frozen=True)
class RouterSpec:
    """A router: forwards to its children concurrently and merges their results."""

    name: str
    path: str
    children: tuple[LeafSpec | RouterSpec, ...]

    def leaves(self) -> Iterator[LeafSpec]:
        """Every leaf below this router, depth first."""
        for child in self.children:
            if isinstance(child, LeafSpec):
                yield child
            else:
                yield from child.leaves()


@dataclass(frozen=True)
class NodeConfig:
    """Everything `clinrag node serve` needs, paths resolved against the config file's folder."""

    org: str
    name: str
    data: Path
    policies: Path
    audit_log: Path
    issuers: tuple[TrustedIssuer, ...]
    tree: RouterSpec
    audience: str = "clinrag"
    host: str = "127.0.0.1"
    port: int = 8100
    source: Path | None = None
    key_fetch_timeout: float = KEY_FETCH_TIMEOUT
    """Seconds the node's token verifier waits for an issuer's discovery document or keys (``[node]``)."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Node(_Section):
    org: str = Field(min_length=1)
    name: str = ""
    data: Path
    policies: Path
    audit_log: Path = Path("audit.jsonl")
    audience: str = "clinrag"
    host: str = "127.0.0.1"
    port: int = Field(8100, ge=0, le=65535)
    key_fetch_timeout: float = Field(KEY_FETCH_TIMEOUT, gt=0, le=120)


class _Issuer(_Section):
    issuer: str = Field(min_length=1)
    org: str = Field(min_length=1)
    jwks_uri: str | None = None


class _File(_Section):
    node: _Node
    issuers: list[_Issuer] = Field(default_factory=list)
    tree: dict[str, Any]


def load_node_config(path: Path) -> NodeConfig:
    """Read and check a node config file; errors name the file and the key.

    Raises:
        ConfigError: unreadable TOML, unknown or missing keys, a malformed tree.
    """
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: node config not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        parsed = _File.model_validate(raw)
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path}: {where}") from None
    base = path.parent
    node = parsed.node
    data = base / node.data
    try:
        tree = parse_tree(parsed.tree, data, parent="")
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if tree.name != node.org:
        raise ConfigError(f"{path}: tree.name must be the organisation ({node.org!r}), not {tree.name!r}")
    issuers = tuple(TrustedIssuer(i.issuer.rstrip("/"), i.org, i.jwks_uri) for i in parsed.issuers)
    if not issuers:
        raise ConfigError(f"{path}: no [[issuers]]: the node would accept nobody")
    return NodeConfig(
        org=node.org,
        name=node.name or f"Hospital {node.org}",
        data=data,
        policies=base / node.policies,
        audit_log=base / node.audit_log,
        issuers=issuers,
        tree=tree,
        audience=node.audience,
        host=node.host,
        port=node.port,
        source=path,
        key_fetch_timeout=node.key_fetch_timeout,
    )


def parse_tree(raw: Mapping[str, Any], data: Path, parent: str = "") -> RouterSpec:
    """The router described by ``raw`` (``name`` and ``children``), leaf stores resolved against ``data``."""
    if "children" not in raw:
        raise ConfigError("tree: the root must be a router (give it children)")
    spec = _parse_node(raw, data, parent, "tree")
    if not isinstance(spec, RouterSpec):
        raise ConfigError("tree: the root must be a router (give it children)")
    return spec


_LEAF_KEYS = {"name", "dept", "store", "qdrant_url", "collection"}


def _parse_node(raw: Mapping[str, Any], data: Path, parent: str, where: str) -> LeafSpec | RouterSpec:
    name = raw.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise ConfigError(f"{where}.name: a non-empty name without '/' is required")
    path = f"{parent}/{name}" if parent else name
    children = raw.get("children")
    if children is not None:
        unknown = set(raw) - {"name", "children"}
        if unknown:
            raise ConfigError(f"{where} ({path}): a router takes only name and children, not {sorted(unknown)}")
        if not isinstance(children, list) or not children:
            raise ConfigError(f"{where} ({path}): children must be a non-empty list")
        parsed = tuple(_parse_node(child, data, path, f"{where}.children[{i}]") for i, child in enumerate(children))
        names = [child.name for child in parsed]
        if len(set(names)) != len(names):
            raise ConfigError(f"{where} ({path}): children names must be unique")
        return RouterSpec(name, path, parsed)
    unknown = set(raw) - _LEAF_KEYS
    if unknown:
        raise ConfigError(f"{where} ({path}): unknown keys {sorted(unknown)}")
    store, url = raw.get("store"), raw.get("qdrant_url")
    if (store is None) == (url is None):
        raise ConfigError(f"{where} ({path}): a leaf needs exactly one of store (a path) or qdrant_url")
    if url is not None and not raw.get("collection"):
        raise ConfigError(f"{where} ({path}): qdrant_url needs a collection")
    return LeafSpec(
        name=name,
        path=path,
        dept=str(raw.get("dept", name)),
        store=data / store if store is not None else None,
        qdrant_url=url,
        collection=raw.get("collection"),
    )
