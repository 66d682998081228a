"""The demo federation started in this process for measurement: each hospital's identity provider (the real
oidc-provider-mock), each node's FastAPI app served by uvicorn on 127.0.0.1 (the hospitals' and the library's),
with the demo's Cedar policies — and, beside them, the same nodes with policies off, served on ports of their own.

Nothing of the demo folder is written: the node configs (`write_federation`) and the audit logs go to a scratch
folder that links to the demo's ``nodes/``. Ports are free ones, not the demo's, so a running ``clinrag demo`` is
left alone. ``clinrag eval trend`` measures through it; the federation tests build the same thing from fixtures.

Example:
    >>> with start_demo_federation(Path("data/demo"), embedder, RetrieveSettings()) as running:  # doctest: +SKIP
    ...     root = FederationRoot(running.orgs(policies=True), RetrieveSettings(), embedder.id)
    ...     root.search("hospital course", running.token("A.phys"), k=5).retrieval.searched
    ('A', 'B', 'C')
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.access.demo import DEMO_TREES, demo_user
from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.access.policy import PolicyEngine
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.demo.library import LIBRARY_NAME, LIBRARY_ORG
from clinrag.errors import ClinragError
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import NodeConfig, load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.root import OrgEndpoint
from clinrag.federation.serving import ThreadServer
from clinrag.index.embed import Embedder
from clinrag.ingest.synthetic.hospitals import CASE_STUDY
from clinrag.settings import RetrieveSettings


@dataclass
class LocalFederation:
    """A running demo federation: its providers, nodes and servers with policies (``servers``) and without
    (``open_servers``), and the demo users' ID tokens (each user signs in once)."""

    demo: Path
    providers: dict[str, RunningProvider]
    configs: dict[str, NodeConfig]
    nodes: dict[str, Node] = field(default_factory=dict)
    servers: dict[str, ThreadServer] = field(default_factory=dict)
    open_servers: dict[str, ThreadServer] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    def orgs(self, policies: bool = True) -> list[OrgEndpoint]:
        """The organisations as the root sees them: the hospitals, then the library when the demo has one;
        ``policies`` False: the nodes with every search and document permitted."""
        servers = self.servers if policies else self.open_servers
        found = [
            OrgEndpoint(org=org, name=CASE_STUDY[org].name, url=servers[org].url, issuer=self.providers[org].issuer)
            for org in sorted(DEMO_TREES)
        ]
        if LIBRARY_ORG in servers:
            found.append(OrgEndpoint(org=LIBRARY_ORG, name=LIBRARY_NAME, url=servers[LIBRARY_ORG].url, kind="library"))
        return found

    def token(self, subject: str) -> str:
        """An ID token of the demo user ``subject``, signed by their hospital's provider."""
        if subject not in self.tokens:
            self.tokens[subject] = sign_in(self.providers[demo_user(subject).org].issuer, subject).id_token
        return self.tokens[subject]


def _served(nodes: dict[str, Node], owns_stores: bool, stack: ExitStack) -> dict[str, ThreadServer]:
    servers: dict[str, ThreadServer] = {}
    for org, node in nodes.items():
        servers[org] = ThreadServer(create_node_app(node, owns_stores)).start()
        stack.callback(servers[org].stop)
    return servers


@contextmanager
def start_demo_federation(
    demo: Path, embedder: Embedder, settings: RetrieveSettings, orgs: Sequence[str] | None = None
) -> Iterator[LocalFederation]:
    """Start the federation of the demo folder ``demo`` (``clinrag demo --no-serve``) in this process; every server
    and provider stops when the ``with`` block ends. ``orgs`` limits the nodes (default: the hospitals and the
    library, when built). `ClinragError` when the demo has no nodes.

    Example:
        >>> with start_demo_federation(Path("data/demo"), embedder, RetrieveSettings()) as running:  # doctest: +SKIP
        ...     [org.org for org in running.orgs()]
        ['A', 'B', 'C', 'LIB']
    """
    if not any((demo / "nodes" / org / "chunks.sqlite").is_file() for org in DEMO_TREES):
        raise ClinragError(f"{demo}: no demo nodes here; build them with 'clinrag demo --no-serve'")
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="clinrag-federation-")))
        (scratch / "nodes").symlink_to((demo / "nodes").resolve(), target_is_directory=True)
        files = write_federation(scratch, DemoPorts())
        wanted = set(orgs) if orgs is not None else {*DEMO_TREES, LIBRARY_ORG}
        providers: dict[str, RunningProvider] = {}
        for org in sorted(DEMO_TREES):
            providers[org] = start_provider(org)
            stack.callback(providers[org].stop)
        issuers = tuple(TrustedIssuer(providers[org].issuer, org) for org in sorted(DEMO_TREES))
        paths = {org: path for org, path in files.nodes.items() if org in wanted}
        if files.library is not None and LIBRARY_ORG in wanted:
            paths[LIBRARY_ORG] = files.library
        configs = {org: dataclasses.replace(load_node_config(path), issuers=issuers) for org, path in paths.items()}
        running = LocalFederation(demo, providers, configs)
        for org, config in configs.items():
            running.nodes[org] = Node.open(config, embedder, settings)
            stack.callback(running.nodes[org].tree.close)
        running.servers = _served(running.nodes, False, stack)
        open_nodes = {
            org: Node(
                config,
                node.tree,
                PolicyEngine.allow_all(),
                node.verifier,
                AuditLog(config.audit_log.with_suffix(".open.jsonl")),
            )
            for (org, config), node in zip(configs.items(), running.nodes.values(), strict=True)
        }
        running.open_servers = _served(open_nodes, False, stack)
        yield running
