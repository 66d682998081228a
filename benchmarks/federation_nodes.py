"""The federation under test in ``bench_federation.py``: the three hospitals' identity providers and nodes in this
process (uvicorn in threads), the same nodes each its own ``clinrag node serve`` process, the variants the scenarios
need (policies off, simulated organisations), and the roots that search them."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

from clinrag.access.demo import demo_user
from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.access.policy import PolicyEngine
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.root import FederatedRetrieval, FederationRoot, OrgEndpoint
from clinrag.federation.serving import ThreadServer, free_port
from clinrag.index.sparse_copy import copy_tree
from clinrag.settings import FederationSettings, RetrieveSettings
from federation_cohort import EMBEDDER, ORGS

SEARCHER = "A.phys.neur"  # may search every router and leaf of the three hospitals


@dataclasses.dataclass
class Running:
    """Providers, nodes and servers of the federation in this process."""

    providers: dict[str, RunningProvider]
    nodes: dict[str, Node] = dataclasses.field(default_factory=dict)
    servers: list[ThreadServer] = dataclasses.field(default_factory=list)
    tokens: dict[str, str] = dataclasses.field(default_factory=dict)

    def serve(self, nodes: dict[str, Node]) -> list[OrgEndpoint]:
        """Serve ``nodes`` (by organisation name) and return them as the root's endpoints."""
        endpoints = []
        for org, node in nodes.items():
            server = ThreadServer(create_node_app(node)).start()
            self.servers.append(server)
            home = org if org in self.providers else node.tree.config.org
            endpoints.append(OrgEndpoint(org=org, url=server.url, issuer=self.providers[home].issuer))
        return endpoints

    def token(self, subject: str) -> str:
        """A demo user's ID token from their hospital's provider (signed in once, then kept)."""
        if subject not in self.tokens:
            self.tokens[subject] = sign_in(self.providers[demo_user(subject).org].issuer, subject).id_token
        return self.tokens[subject]

    def stop(self) -> None:
        """Stop every node server and identity provider."""
        for server in self.servers:
            server.stop()
        for provider in self.providers.values():
            provider.stop()


def start(out: Path, audit: Path) -> Running:
    """Start the three hospitals' identity providers and open their nodes (not yet served) from the federation files
    written under ``out``, trusting the running providers; audit logs go under ``audit``."""
    running = Running({org: start_provider(org) for org in ORGS})
    files = write_federation(out, DemoPorts())
    issuers = tuple(TrustedIssuer(running.providers[org].issuer, org) for org in ORGS)
    for org in ORGS:
        config = dataclasses.replace(
            load_node_config(files.nodes[org]), issuers=issuers, audit_log=audit / f"{org}.jsonl"
        )
        running.nodes[org] = Node.open(config, EMBEDDER, RetrieveSettings())
    return running


@dataclasses.dataclass
class NodeProcesses:
    """The three hospitals' nodes, each its own ``clinrag node serve`` process (same configs, policies and data as
    the in-process nodes, a copy of it; the identity providers stay in this process)."""

    processes: dict[str, subprocess.Popen[bytes]]
    endpoints: list[OrgEndpoint]
    logs: Path

    def cpu_seconds(self) -> dict[str, float]:
        """User + system CPU seconds each node process has used so far (from /proc)."""
        ticks = os.sysconf("SC_CLK_TCK")
        used = {}
        for org, process in self.processes.items():
            fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            used[org] = (int(fields[11]) + int(fields[12])) / ticks
        return used

    def stop(self) -> None:
        """Terminate the node processes (killed if one has not exited after 15 s)."""
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def start_processes(out: Path, running: Running, audit: Path) -> NodeProcesses:
    """Start each hospital's node as its own ``clinrag node serve`` process on a free port, over a copy of the
    hospitals' data under ``out/process-nodes``, trusting ``running``'s providers; wait until each is healthy."""
    files = write_federation(out, DemoPorts())
    # A copy of the hospitals' data: an embedded shard is opened by one process at a time, and the in-process nodes
    # hold the originals.
    copies = out / "process-nodes"
    if copies.exists():
        shutil.rmtree(copies)
    copy_tree(out / "nodes", copies)
    clinrag = Path(sys.executable).parent / "clinrag"
    logs = out / "process-logs"
    logs.mkdir(parents=True, exist_ok=True)
    processes: dict[str, subprocess.Popen[bytes]] = {}
    endpoints = []
    ports = DemoPorts()
    for org in ORGS:
        port = free_port()
        text = files.nodes[org].read_text()
        for other in ORGS:
            text = text.replace(f'"{ports.issuer(other)}"', f'"{running.providers[other].issuer}"')
        text = text.replace(f"port = {ports.node_port(org)}", f"port = {port}")
        text = text.replace(f'data = "../nodes/{org}"', f'data = "../process-nodes/{org}"')
        text = text.replace(f'audit_log = "../audit/{org}.jsonl"', f'audit_log = "{audit / f"{org}.process.jsonl"}"')
        config = files.nodes[org].with_name(f"{org}.process.toml")
        config.write_text(text)
        log = (logs / f"{org}.log").open("wb")
        processes[org] = subprocess.Popen(
            [str(clinrag), "node", "serve", "--config", str(config)], cwd=logs, stdout=log, stderr=subprocess.STDOUT
        )
        endpoints.append(OrgEndpoint(org=org, url=f"http://127.0.0.1:{port}", issuer=running.providers[org].issuer))
    nodes = NodeProcesses(processes, endpoints, logs)
    deadline = time.monotonic() + 120
    for endpoint in endpoints:
        while True:
            try:
                if httpx.get(f"{endpoint.url}/v1/health", timeout=1, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or processes[endpoint.org].poll() is not None:
                nodes.stop()
                raise RuntimeError(f"node {endpoint.org} did not start; see {logs / f'{endpoint.org}.log'}")
            time.sleep(0.2)
    return nodes


def open_nodes(running: Running, audit: Path) -> dict[str, Node]:
    """The same trees with policies off (every search and document permitted)."""
    return {
        org: Node(
            dataclasses.replace(node.config, audit_log=audit / f"{org}.open.jsonl"),
            node.tree,
            PolicyEngine.allow_all(),
            node.verifier,
            AuditLog(audit / f"{org}.open.jsonl"),
        )
        for org, node in running.nodes.items()
    }


def simulated_nodes(running: Running, count: int, audit: Path) -> dict[str, Node]:
    """``count`` organisations S00.. each serving one of the three hospitals' trees (round robin) under its own name,
    with that hospital's policies."""
    nodes = {}
    for index in range(count):
        base = running.nodes[ORGS[index % len(ORGS)]]
        org = f"S{index:02d}"
        config = dataclasses.replace(base.config, org=org, audit_log=audit / f"{org}.jsonl")
        nodes[org] = Node(config, base.tree, base.engine, base.verifier, AuditLog(config.audit_log))
    return nodes


def make_root(orgs: list[OrgEndpoint], timeout: float = 2.0) -> FederationRoot:
    """A root that embeds each question once (no cache across searches) and sends the vector to the nodes."""
    settings = FederationSettings(timeout=timeout)
    return FederationRoot(orgs, RetrieveSettings(), EMBEDDER.id, settings, embed=lambda text: EMBEDDER.embed([text])[0])


def timed_search(
    root: FederationRoot, question: str, token: str, mode: str = "hybrid"
) -> tuple[FederatedRetrieval, float]:
    """One federated search (k = 10) and its wall time in seconds."""
    started = time.perf_counter()
    result = root.search(question, token, k=10, mode=mode)  # type: ignore[arg-type]
    return result, time.perf_counter() - started
