"""A real three-hospital federation on loopback for the federation tests and the web and API tests (`tests/app`):
the demo cohort (small), each hospital's identity provider (the real oidc-provider-mock), and each node's FastAPI app
served by uvicorn, with the demo policies, and the demo library's node — plus the same nodes with policies off, for
comparison with one centralised index. Registered once for the whole suite by ``tests/conftest.py``
(``pytest_plugins``), so each session fixture is built once per test session."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from clinrag.access.demo import DEMO_TREES, demo_user
from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.access.policy import PolicyEngine
from clinrag.demo.build import build_demo
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.demo.library import LIBRARY_ORG
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import NodeConfig, load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.root import OrgEndpoint
from clinrag.federation.serving import ThreadServer
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.settings import IngestSettings, RetrieveSettings, Settings, SynthSettings

ORGS = tuple(sorted(DEMO_TREES))
SETTINGS = Settings(synth=SynthSettings(workers=2), ingest=IngestSettings(tables=("admissions",)))
EMBEDDER = OnnxMiniLmEmbedder(threads=2)


@dataclass
class Federation:
    """Running providers and nodes, and how to reach them."""

    out: Path
    providers: dict[str, RunningProvider]
    configs: dict[str, NodeConfig]
    nodes: dict[str, Node] = field(default_factory=dict)
    servers: dict[str, ThreadServer] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def orgs(self) -> list[OrgEndpoint]:
        """The federation's organisations, as the root sees them."""
        hospitals = [
            OrgEndpoint(org=org, name=f"Hospital {org}", url=self.servers[org].url, issuer=self.providers[org].issuer)
            for org in ORGS
        ]
        if LIBRARY_ORG not in self.servers:
            return hospitals
        library = OrgEndpoint(org=LIBRARY_ORG, name="Library", url=self.servers[LIBRARY_ORG].url, kind="library")
        return [*hospitals, library]

    def token(self, subject: str) -> str:
        """An ID token of a demo user, signed by their hospital's provider (signed in once per session)."""
        if subject not in self.tokens:
            self.tokens[subject] = sign_in(self.providers[demo_user(subject).org].issuer, subject).id_token
        return self.tokens[subject]


@pytest.fixture(scope="session")
def demo_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo cohort of 40 patients, ingested (notes and admission rows) and indexed per hospital, and the demo
    library."""
    out = tmp_path_factory.mktemp("federation")
    build_demo(out, patients=40, seed=11, settings=SETTINGS)
    return out


def _serve(nodes: dict[str, Node], owns_stores: bool = True) -> dict[str, ThreadServer]:
    return {org: ThreadServer(create_node_app(node, owns_stores)).start() for org, node in nodes.items()}


@pytest.fixture(scope="session")
def federation(demo_out: Path) -> Iterator[Federation]:
    """The demo federation with its policies, on loopback."""
    providers = {org: start_provider(org) for org in ORGS}
    files = write_federation(demo_out, DemoPorts())
    issuers = tuple(TrustedIssuer(providers[org].issuer, org) for org in ORGS)
    configs = {org: dataclasses.replace(load_node_config(files.nodes[org]), issuers=issuers) for org in ORGS}
    assert files.library is not None
    configs[LIBRARY_ORG] = dataclasses.replace(load_node_config(files.library), issuers=issuers)
    running = Federation(demo_out, providers, configs)
    running.nodes = {org: Node.open(config, EMBEDDER, RetrieveSettings()) for org, config in configs.items()}
    running.servers = _serve(running.nodes)
    yield running
    for server in running.servers.values():
        server.stop()
    for provider in providers.values():
        provider.stop()


@pytest.fixture(scope="session")
def open_federation(federation: Federation) -> Iterator[Federation]:
    """The same nodes with policies off (every search and document permitted), same providers."""
    configs = {
        org: dataclasses.replace(config, audit_log=config.audit_log.with_suffix(".open.jsonl"))
        for org, config in federation.configs.items()
    }
    running = Federation(federation.out, federation.providers, configs, tokens=federation.tokens)
    running.nodes = {
        org: Node(config, node.tree, PolicyEngine.allow_all(), node.verifier, AuditLog(config.audit_log))
        for (org, config), node in zip(configs.items(), federation.nodes.values(), strict=True)
    }
    running.servers = _serve(running.nodes, owns_stores=False)  # the trees belong to `federation`
    yield running
    for server in running.servers.values():
        server.stop()
