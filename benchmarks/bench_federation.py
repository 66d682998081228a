"""Figures for the federation (issue 5), on the three-hospital demo federation stood up in this process (the real
identity providers, each hospital's node app served by uvicorn on 127.0.0.1, real signed tokens):

1. fan-out latency p50/p95 of ``FederationRoot.search`` over the three hospitals (policies on, user A.phys.neur, who
   may search every leaf) vs one centralised index over all their chunks (``Retriever.retrieve``), the same
   questions, hybrid, k = 10; ratio at p50 (target <= 1.3x) and where the time goes (each node's own timings, the
   HTTP exchange, the root's merge), plus a per-stage profile of one node's tree walk called directly;
2. ixn (|federated top-10 ∩ centralised top-10| / 10) with policies off (``PolicyEngine.allow_all``), dense, bm25 and
   hybrid;
3. fan-out latency with 20 simulated organisations on loopback (20 node apps, each serving one of the three
   hospitals' trees under its own organisation name);
4. throughput of 8 concurrent users (the 8 demo users, each with their own token) for 2 minutes: requests/s,
   p50/p95, errors (an exception, or any organisation that timed out, failed, was unreachable or refused the token);
5. end-to-end answer time (``Answerer(FederatedSearcher(root, token))``, extractive) with a fourth organisation that
   accepts connections and never answers, root timeout 2 s: must be <= timeout + 0.5 s, the org flagged TIMEOUT.

Steps 1 and 4 run twice: with every node in this process (uvicorn in threads, as the federation tests do: the
nodes, the root and the clients share one GIL), and with each node its own process (``clinrag node serve --config``,
as the product is deployed), the root and the clients in this process. Either way everything shares the machine's
cores; on a real deployment every node has its own machine. The centralised index reuses the vectors the hospitals'
indexes hold (same model, same chunk texts), so both sides rank identical vectors, and it embeds the question
itself as the root does (no cache across searches).

The cohort: ``data/demo`` is copied and reused when it holds a cohort of ``--patients`` and ``--seed``, otherwise
one is built into a temporary folder (``--work DIR`` keeps it for a rerun).

    python benchmarks/bench_federation.py [--patients 150] [--questions 40] [--throughput-seconds 120] [--work DIR]
                                          [--steps 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import qdrant_edge as qe

import clinrag.federation.node as node_module
import clinrag.federation.tree as tree_module
import clinrag.retrieve.hybrid as hybrid_module
import clinrag.retrieve.patient_mentions as mentions_module
import clinrag.retrieve.patients as patients_module
from clinrag.access.demo import DEMO_TREES, DEMO_USERS, demo_user
from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.access.policy import PolicyEngine
from clinrag.demo.build import build_demo
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.protocol import RetrieveRequest, RetrieveResponse
from clinrag.federation.root import FederatedRetrieval, FederatedSearcher, FederationRoot, OrgEndpoint, OrgStatus
from clinrag.federation.serving import ThreadServer, free_port
from clinrag.generate.answer import Answerer
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors
from clinrag.index.indexer import build_indexes, leaf_folders
from clinrag.index.store import DENSE, chunk_id_of
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import (
    AnswerSettings,
    FederationSettings,
    IngestSettings,
    RetrieveSettings,
    Settings,
    SynthSettings,
)
from common import write

ORGS = tuple(sorted(DEMO_TREES))
EMBEDDER = OnnxMiniLmEmbedder(threads=2)
DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"
SEARCHER = "A.phys.neur"  # may search every router and leaf of the three hospitals
BAD = {OrgStatus.TIMEOUT, OrgStatus.UNREACHABLE, OrgStatus.FAILED, OrgStatus.UNAUTHENTICATED, OrgStatus.INCOMPATIBLE}
GENERIC_QUESTIONS = (
    "hospital course",
    "Which patients were discharged on aspirin?",
    "weakness after a stroke",
    "chest pain with troponin elevation",
    "fall at home with hip pain",
    "alcohol withdrawal",
    "What was the chief complaint?",
    "discharge instructions after surgery",
    "shortness of breath and leg swelling",
    "urinary tract infection treated with antibiotics",
    "What medications was the patient discharged on?",
    "hip fracture after a fall",
    "CIWA lorazepam taper",
    "left sided weakness",
    "NSTEMI treated with a stent",
    "does the patient smoke",
    "postoperative delirium",
    "citalopram for depression",
    "wound care instructions",
    "pneumonia treated with ceftriaxone and azithromycin",
    "heart failure exacerbation with furosemide",
    "seizure on levetiracetam",
    "atrial fibrillation started on anticoagulation",
    "diabetes with insulin sliding scale",
    "acute kidney injury creatinine",
    "suicidal ideation psychiatric admission",
    "coronary artery bypass graft",
    "knee replacement physical therapy",
    "headache with vomiting",
    "sepsis in the intensive care unit",
    "follow up with cardiology",
    "COPD exacerbation with nebulizers",
)


def _load() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def _ms(values: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean in milliseconds of ``values`` (seconds)."""
    if not values:
        return {}
    array = np.asarray(values) * 1000
    return {
        "p50": round(float(np.percentile(array, 50)), 1),
        "p95": round(float(np.percentile(array, 95)), 1),
        "mean": round(float(array.mean()), 1),
        "n": len(values),
    }


# --- the data: the demo cohort per hospital, and one centralised index over the same chunks ---------------------


def _prepare(out: Path, patients: int, seed: int) -> tuple[Settings, dict[str, Any]]:
    """Build (or reuse) the demo cohort and the hospitals' indexes under ``out``."""
    settings = Settings(synth=SynthSettings(workers=2), ingest=IngestSettings(tables=("admissions",)))
    source = "built"
    demo_manifest = DEMO / "cohort" / "cohort.json"
    if not (out / "nodes").is_dir() and demo_manifest.is_file():
        described = json.loads(demo_manifest.read_text())
        if described.get("patients") == patients and described.get("seed") == seed:
            shutil.copytree(DEMO / "cohort", out / "cohort", dirs_exist_ok=True)
            shutil.copytree(DEMO / "nodes", out / "nodes", dirs_exist_ok=True)
            settings = Settings(synth=SynthSettings(workers=2))  # make demo ingests every default table
            source = f"copied from {DEMO}"
    elif (out / "nodes").is_dir():
        source = f"reused {out}"
    started = time.perf_counter()
    demo = build_demo(out, patients=patients, seed=seed, settings=settings)
    chunks = {org: sum(leaf.added + leaf.kept for leaf in demo.indexes[org].leaves.values()) for org in ORGS}
    info = {
        "patients": patients,
        "seed": seed,
        "tables": list(settings.ingest.tables),
        "source": source,
        "build_seconds": round(time.perf_counter() - started, 1),
        "chunks_per_org": chunks,
        "leaves_per_org": {org: sorted(demo.indexes[org].leaves) for org in ORGS},
    }
    return settings, info


class _Reusing:
    """An embedder that returns the vectors the hospitals' indexes already hold for a text (same model), and embeds
    only texts it has not seen."""

    def __init__(self, known: dict[str, Vectors]) -> None:
        self.known = known
        self.embedded = 0

    @property
    def id(self) -> str:
        return EMBEDDER.id

    @property
    def dimension(self) -> int:
        return EMBEDDER.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        missing = [text for text in texts if text not in self.known]
        if missing:
            self.embedded += len(missing)
            self.known.update(zip(missing, EMBEDDER.embed(missing), strict=True))
        return np.stack([self.known[text] for text in texts]) if texts else np.zeros((0, self.dimension), np.float32)


def _stored_vectors(out: Path) -> dict[str, Vectors]:
    """Indexed text -> stored dense vector, over every leaf of every hospital."""
    known: dict[str, Vectors] = {}
    for org in ORGS:
        with ChunkStore.open(out / "nodes" / org / "chunks.sqlite") as chunks:
            texts = {chunk.chunk_id: chunk.indexed_text for chunk in chunks.chunks()}
        for folder in leaf_folders(out / "nodes" / org / "index").values():
            store = EdgeStore.open(folder)
            try:
                offset: Any = None
                while True:
                    records, offset = store._shard.scroll(
                        qe.ScrollRequest(limit=1000, offset=offset, with_payload=False, with_vector=[DENSE])
                    )
                    for record in records:
                        vector = record.vector[DENSE] if isinstance(record.vector, dict) else record.vector
                        known[texts[chunk_id_of(record.id)]] = np.asarray(vector, dtype=np.float32)
                    if offset is None:
                        break
            finally:
                store.close()
    return known


def _centralised(out: Path, settings: Settings) -> tuple[Retriever, dict[str, Any]]:
    """One node holding every hospital's chunks (one leaf per department across hospitals)."""
    folder = out / "centralised"
    started = time.perf_counter()
    embedder = _Reusing(_stored_vectors(out))
    read = time.perf_counter()
    with ChunkStore.open(folder / "chunks.sqlite") as chunks:
        for org in ORGS:
            ingest_mimic(out / "cohort" / "hospitals" / org, chunks, settings.ingest, org)
        ingested = time.perf_counter()
        summary = build_indexes(chunks, folder / "index", embedder)
        count = chunks.count()
    info = {
        "chunks": count,
        "leaves": sorted(summary.leaves),
        "vectors_embedded_anew": embedder.embedded,
        "seconds": {
            "read_stored_vectors": round(read - started, 1),
            "ingest": round(ingested - read, 1),
            "index": round(time.perf_counter() - ingested, 1),
        },
    }
    return Retriever.open(folder, RetrieveSettings(), EMBEDDER), info


def _questions(central: Retriever, count: int) -> list[str]:
    assert central.chunks is not None
    names = sorted({name for _, name in central.chunks.patients() if name})
    step = max(len(names) // 8, 1)
    named = [
        template.format(name=name)
        for template, name in zip(
            ("What was {name} discharged on?", "Why was {name} admitted?", "Did {name} have chest pain?"),
            names[::step][:8],
            strict=False,
        )
    ]
    named += [f"What was {name} discharged on?" for name in names[::step][3:8]]
    return [*GENERIC_QUESTIONS[: max(count - len(named), 0)], *named][:count]


# --- the running federation -------------------------------------------------------------------------------------


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
        if subject not in self.tokens:
            self.tokens[subject] = sign_in(self.providers[demo_user(subject).org].issuer, subject).id_token
        return self.tokens[subject]

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        for provider in self.providers.values():
            provider.stop()


def _start(out: Path, audit: Path) -> Running:
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
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def _start_processes(out: Path, running: Running, audit: Path) -> NodeProcesses:
    files = write_federation(out, DemoPorts())
    # A copy of the hospitals' data: an embedded shard is opened by one process at a time, and the in-process nodes
    # hold the originals.
    copies = out / "process-nodes"
    if copies.exists():
        shutil.rmtree(copies)
    shutil.copytree(out / "nodes", copies)
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


def _open_nodes(running: Running, audit: Path) -> dict[str, Node]:
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


def _simulated_nodes(running: Running, count: int, audit: Path) -> dict[str, Node]:
    """``count`` organisations S00.. each serving one of the three hospitals' trees (round robin) under its own name,
    with that hospital's policies."""
    nodes = {}
    for index in range(count):
        base = running.nodes[ORGS[index % len(ORGS)]]
        org = f"S{index:02d}"
        config = dataclasses.replace(base.config, org=org, audit_log=audit / f"{org}.jsonl")
        nodes[org] = Node(config, base.tree, base.engine, base.verifier, AuditLog(config.audit_log))
    return nodes


def _root(orgs: list[OrgEndpoint], timeout: float = 2.0) -> FederationRoot:
    """A root that embeds each question once (no cache across searches) and sends the vector to the nodes."""
    settings = FederationSettings(timeout=timeout)
    return FederationRoot(orgs, RetrieveSettings(), EMBEDDER.id, settings, embed=lambda text: EMBEDDER.embed([text])[0])


# --- measurements ---------------------------------------------------------------------------------------------------


def _search(root: FederationRoot, question: str, token: str, mode: str = "hybrid") -> tuple[FederatedRetrieval, float]:
    started = time.perf_counter()
    result = root.search(question, token, k=10, mode=mode)  # type: ignore[arg-type]
    return result, time.perf_counter() - started


def _parts(result: FederatedRetrieval, wall: float) -> dict[str, float]:
    """Where one federated search's time went (seconds)."""
    timings = result.retrieval.timings
    answered = [org for org in result.orgs if org.response is not None]
    slowest = max(result.orgs, key=lambda org: org.seconds)
    node_total = slowest.response.timings.get("total", 0.0) if slowest.response is not None else 0.0
    node_search = slowest.response.timings.get("search", 0.0) if slowest.response is not None else 0.0
    overheads = [org.seconds - org.response.timings.get("total", 0.0) for org in answered if org.response is not None]
    return {
        "wall": wall,
        "root_total": timings["total"],
        "fan_out": timings["fan_out"],
        "merge": timings["total"] - timings["fan_out"],
        "slowest_org_round_trip": slowest.seconds,
        "slowest_org_node_total": node_total,
        "slowest_org_node_tree_search": node_search,
        "slowest_org_node_rank": node_total - node_search,
        "slowest_org_http_and_serialisation": slowest.seconds - node_total,
        "mean_org_http_and_serialisation": statistics.fmean(overheads) if overheads else 0.0,
        "root_request_building": timings["fan_out"] - slowest.seconds,
        "embedding_and_handover_to_the_roots_loop": wall - timings["total"],
    }


def fan_out_vs_centralised(
    roots: dict[str, FederationRoot],
    central: Retriever,
    token: str,
    questions: list[str],
    repeats: int,
    processes: NodeProcesses | None = None,
) -> dict[str, Any]:
    """Each question asked of every root (nodes in threads, nodes as processes) and of the centralised index, one
    after another, so that every variant sees the same machine load."""
    for question in questions[:5]:  # warm every path (connections, caches, spaCy)
        for root in roots.values():
            _search(root, question, token)
        central.retrieve(question, k=10, mode="hybrid")
    walls: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    parts: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in roots}
    node_totals: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in roots}
    central_parts: dict[str, list[float]] = defaultdict(list)
    statuses: Counter[str] = Counter()
    load = _load()
    node_cpu = processes.cpu_seconds() if processes is not None else {}
    for _ in range(repeats):
        for question in questions:
            for name, root in roots.items():
                used = time.process_time()
                found, wall = _search(root, question, token)
                cpu[name].append(time.process_time() - used)
                walls[name].append(wall)
                for part, value in _parts(found, wall).items():
                    parts[name][part].append(value)
                for org in found.orgs:
                    statuses[f"{name} {org.org.org}:{org.status.value}"] += 1
                    if org.response is not None:
                        node_totals[name][org.org.org].append(org.response.timings.get("total", 0.0))
            used, started = time.process_time(), time.perf_counter()
            retrieval = central.retrieve(question, k=10, mode="hybrid")
            walls["centralised"].append(time.perf_counter() - started)
            cpu["centralised"].append(time.process_time() - used)
            for part, value in retrieval.timings.items():
                central_parts[part].append(value)
    cen = _ms(walls["centralised"])
    result: dict[str, Any] = {
        "user": SEARCHER,
        "mode": "hybrid",
        "k": 10,
        "questions": len(questions),
        "repeats": repeats,
        "load_average_at_start": load,
        "load_average_at_end": _load(),
        "centralised_ms": cen,
        "centralised_process_cpu_ms_per_search": _ms(cpu["centralised"])["mean"],
        "centralised_breakdown_ms_p50": {part: _ms(values)["p50"] for part, values in central_parts.items()},
    }
    for name in roots:
        fed = _ms(walls[name])
        result[name] = {
            "federated_ms": fed,
            "ratio_p50": round(fed["p50"] / cen["p50"], 2),
            "ratio_p95": round(fed["p95"] / cen["p95"], 2),
            "meets_target_1_3x_at_p50": fed["p50"] / cen["p50"] <= 1.3,
            "this_process_cpu_ms_per_search": _ms(cpu[name])["mean"],
            "breakdown_ms_p50": {part: _ms(values)["p50"] for part, values in parts[name].items()},
            "breakdown_ms_mean": {part: _ms(values)["mean"] for part, values in parts[name].items()},
            "node_total_ms_per_org": {org: _ms(values) for org, values in node_totals[name].items()},
        }
    if processes is not None:
        searches = len(walls["nodes_as_processes"])
        by_node = {org: seconds - node_cpu[org] for org, seconds in processes.cpu_seconds().items()}
        result["nodes_as_processes"]["node_process_cpu_ms_per_search"] = {
            org: round(seconds / searches * 1000, 1) for org, seconds in by_node.items()
        }
        result["nodes_as_processes"]["all_processes_cpu_ms_per_search"] = round(
            result["nodes_as_processes"]["this_process_cpu_ms_per_search"] + sum(by_node.values()) / searches * 1000,
            1,
        )
    result["org_statuses"] = dict(statuses)
    return result


class _Stages:
    """Wall and CPU (the calling thread's) seconds per stage, summed over threads: the leaves of a node run
    concurrently, so summed wall times include waits for the GIL and the cores; CPU times do not."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                with self._lock:
                    self.wall[name] += time.perf_counter() - started
                    self.cpu[name] += time.thread_time() - cpu
                    self.calls[name] += 1

        return wrapper


class _TimedEmbedder:
    def __init__(self, stages: _Stages) -> None:
        self.id = EMBEDDER.id
        self.dimension = EMBEDDER.dimension
        self.embed = stages.timed("embed (question, once per node)", EMBEDDER.embed)


@contextmanager
def _patched(target: Any, name: str, replacement: Any) -> Iterator[None]:
    original = getattr(target, name)
    setattr(target, name, replacement)
    try:
        yield
    finally:
        setattr(target, name, original)


def node_profile(node: Node, actor_subject: str, questions: list[str]) -> dict[str, Any]:
    """One node's request handling called directly (no HTTP), its stages timed by wrapping the functions the tree
    calls. Stage times of leaves are summed over the leaves (they run concurrently, so they exceed the wall time)."""
    stages = _Stages()
    actor = demo_user(actor_subject)
    requests = [
        RetrieveRequest(query=q, k=10, fetch_k=50, mode="hybrid", candidates=True, prune=True) for q in questions
    ]
    walls, serialise, sizes = [], [], []
    engine = node.engine
    tagger = stages.timed("    spaCy person tagger", mentions_module._person_tagger())
    with (
        _patched(tree_module, "plan_query", stages.timed("plan_query (per leaf)", tree_module.plan_query)),
        _patched(hybrid_module, "understand", stages.timed("  understand (2 per leaf)", hybrid_module.understand)),
        _patched(
            patients_module.PatientRegistry,
            "resolve",
            stages.timed("  patient name resolution (per leaf)", patients_module.PatientRegistry.resolve),
        ),
        _patched(mentions_module, "_person_tagger", lambda: tagger),
        _patched(node.tree, "embedder", _TimedEmbedder(stages)),
        _patched(tree_module, "gather", stages.timed("gather: store queries + document checks", tree_module.gather)),
        _patched(tree_module._LockedStore, "query", stages.timed("  store query", tree_module._LockedStore.query)),
        _patched(engine, "can_retrieve", stages.timed("  policy: document checks", engine.can_retrieve)),
        _patched(engine, "can_search", stages.timed("policy: search gates", engine.can_search)),
        _patched(tree_module, "_combine", stages.timed("router merge", tree_module._combine)),
        _patched(node_module, "rank_candidates", stages.timed("node rank", node_module.rank_candidates)),
        _patched(node_module, "candidate_hits", stages.timed("candidate list", node_module.candidate_hits)),
        _patched(node.audit, "record", stages.timed("audit append", node.audit.record)),
    ):
        for request in requests:
            started = time.perf_counter()
            response = node.retrieve(actor, request)
            walls.append(time.perf_counter() - started)
            started = time.perf_counter()
            body = response.model_dump_json(exclude_defaults=True)  # as the node API sends it
            serialise.append(time.perf_counter() - started)
            sizes.append(len(body))
    count = len(requests)
    return {
        "node": node.config.org,
        "leaves": len(node.tree.leaves),
        "user": actor_subject,
        "requests": count,
        "node_retrieve_wall_ms": _ms(walls),
        "stage_wall_ms_per_request_summed_over_threads": {
            name: round(seconds / count * 1000, 2) for name, seconds in stages.wall.items()
        },
        "stage_cpu_ms_per_request_summed_over_threads": {
            name: round(seconds / count * 1000, 2) for name, seconds in stages.cpu.items()
        },
        "stage_calls_per_request": {name: round(calls / count, 1) for name, calls in stages.calls.items()},
        "response_json_ms": _ms(serialise),
        "response_bytes": {"p50": int(np.percentile(sizes, 50)), "max": max(sizes)},
    }


class _TagOnce:
    """What-if for the node: spaCy's person tagger run once per question, its result shared by the leaves."""

    def __init__(self) -> None:
        self.tagger = mentions_module._person_tagger()
        self.cache: dict[str, Any] = {}
        self.lock = threading.Lock()

    def __call__(self, text: str) -> Any:
        with self.lock:
            if text not in self.cache:
                self.cache[text] = self.tagger(text)
            return self.cache[text]


def node_what_if(node: Node, actor_subject: str, questions: list[str]) -> dict[str, Any]:
    """One node's request handling called directly, as it is and with spaCy's tagger shared, interleaved."""
    actor = demo_user(actor_subject)
    once = _TagOnce()
    variants: dict[str, list[tuple[Any, str, Any]]] = {
        "as_is": [],
        "spacy_once_per_question": [(mentions_module, "_person_tagger", lambda: once)],
    }
    times: dict[str, list[float]] = defaultdict(list)
    for question in questions:
        request = RetrieveRequest(query=question, k=10, fetch_k=50, mode="hybrid", candidates=True, prune=True)
        for name, patches in variants.items():
            once.cache.clear()
            with ExitStack() as stack:
                for target, attribute, replacement in patches:
                    stack.enter_context(_patched(target, attribute, replacement))
                started = time.perf_counter()
                node.retrieve(actor, request)
                times[name].append(time.perf_counter() - started)
    return {name: _ms(values) for name, values in times.items()}


def http_overhead(node: Node, url: str, token: str, questions: list[str]) -> dict[str, Any]:
    """One node asked alone over HTTP, one request at a time with a kept-alive client: round trip minus the node's
    own time (FastAPI, validation, JSON both ways, loopback), and the root's parsing of the reply."""
    overheads, parse, node_times = [], [], []
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(trust_env=False, timeout=30) as client:
        for question in [*questions[:3], *questions]:
            body = RetrieveRequest(query=question, k=10, fetch_k=50, mode="hybrid", candidates=True, prune=True)
            started = time.perf_counter()
            reply = client.post(f"{url}/v1/retrieve", json=body.model_dump(mode="json"), headers=headers)
            elapsed = time.perf_counter() - started
            started = time.perf_counter()
            response = RetrieveResponse.model_validate(json.loads(reply.content))
            parse.append(time.perf_counter() - started)
            overheads.append(elapsed - response.timings["total"])
            node_times.append(response.timings["total"])
    skip = 3
    return {
        "node": node.config.org,
        "node_total_ms": _ms(node_times[skip:]),
        "http_fastapi_json_overhead_ms": _ms(overheads[skip:]),
        "root_side_parse_ms": _ms(parse[skip:]),
    }


def ixn(open_root: FederationRoot, central: Retriever, token: str, questions: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {"policies": "off (PolicyEngine.allow_all)", "k": 10}
    timings: list[float] = []
    for mode in ("dense", "bm25", "hybrid"):
        values, exact_order, worst, short = [], 0, [], 0
        for question in questions:
            federated, wall = _search(open_root, question, token, mode)
            if mode == "hybrid":
                timings.append(wall)
            fed_ids = [hit.chunk.chunk_id for hit in federated.retrieval.hits]
            cen_ids = [hit.chunk.chunk_id for hit in central.retrieve(question, k=10, mode=mode).hits]  # type: ignore[arg-type]
            # |intersection| / 10; when a named patient has fewer than 10 chunks, / the longer list (1.0 if both empty)
            overlap = len(set(fed_ids) & set(cen_ids)) / max(len(fed_ids), len(cen_ids)) if cen_ids or fed_ids else 1.0
            short += max(len(fed_ids), len(cen_ids)) < 10
            values.append(overlap)
            exact_order += fed_ids == cen_ids
            worst.append((overlap, question))
        result[mode] = {
            "mean_ixn": round(statistics.fmean(values), 3),
            "min_ixn": min(values),
            "questions_with_ixn_1": sum(value == 1.0 for value in values),
            "identical_ranking": exact_order,
            "questions": len(values),
            "questions_with_fewer_than_10_hits": short,
            "lowest": [{"ixn": value, "question": question} for value, question in sorted(worst)[:5]],
        }
    result["federated_policies_off_hybrid_ms"] = _ms(timings)
    return result


def twenty_orgs(root: FederationRoot, token: str, questions: list[str]) -> dict[str, Any]:
    for question in questions[:3]:
        _search(root, question, token)
    walls, slowest_org, node_totals, fan_out = [], [], [], []
    statuses: Counter[str] = Counter()
    load = _load()
    used = time.process_time()
    for question in questions:
        result, wall = _search(root, question, token)
        walls.append(wall)
        fan_out.append(result.retrieval.timings["fan_out"])
        slowest_org.append(max(org.seconds for org in result.orgs))
        node_totals += [org.response.timings["total"] for org in result.orgs if org.response is not None]
        statuses.update(org.status.value for org in result.orgs)
    return {
        "orgs": len(root.orgs),
        "questions": len(questions),
        "load_average_at_start": load,
        "root_timeout_seconds": root.federation.timeout,
        "federated_ms": _ms(walls),
        "process_cpu_ms_per_search": round((time.process_time() - used) / len(questions) * 1000, 1),
        "fan_out_ms": _ms(fan_out),
        "slowest_org_round_trip_ms": _ms(slowest_org),
        "node_total_ms_each_org": _ms(node_totals),
        "org_statuses": dict(statuses),
        "slowest_org_over_2s": sum(value > 2.0 for value in slowest_org),
    }


def throughput(
    root: FederationRoot,
    running: Running,
    questions: list[str],
    seconds: float,
    processes: NodeProcesses | None = None,
) -> dict[str, Any]:
    users = [user.subject for user in DEMO_USERS]
    tokens = {subject: running.token(subject) for subject in users}
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    lock = threading.Lock()
    load = _load()
    deadline = time.monotonic() + seconds

    def work(offset: int, subject: str) -> None:
        done = offset
        while time.monotonic() < deadline:
            question = questions[done % len(questions)]
            done += 1
            started = time.perf_counter()
            try:
                result = root.search(question, tokens[subject], k=10, mode="hybrid")
            except Exception as exc:
                with lock:
                    errors[f"exception {type(exc).__name__}"] += 1
                continue
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                for org in result.orgs:
                    statuses[org.status.value] += 1
                    if org.status in BAD:
                        errors[f"{org.org.org} {org.status.value}"] += 1
                    if org.response is not None and org.response.errors:
                        errors[f"{org.org.org} leaf error"] += len(org.response.errors)

    node_cpu = processes.cpu_seconds() if processes is not None else {}
    started, used = time.perf_counter(), time.process_time()
    threads = [threading.Thread(target=work, args=(i * 5, subject)) for i, subject in enumerate(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, used = time.perf_counter() - started, time.process_time() - used
    nodes_used = sum(processes.cpu_seconds().values()) - sum(node_cpu.values()) if processes is not None else 0.0
    return {
        "users": users,
        "concurrent": len(users),
        "seconds": round(elapsed, 1),
        "load_average_at_start": load,
        "load_average_at_end": _load(),
        "requests": len(latencies),
        "requests_per_second": round(len(latencies) / elapsed, 2),
        "latency_ms": _ms(latencies),
        "process_cpu_ms_per_request": round(used / max(len(latencies), 1) * 1000, 1),
        "cores_this_process_got": round(used / elapsed, 2),
        "cores_the_node_processes_got": round(nodes_used / elapsed, 2),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "org_statuses": dict(statuses),
        "zero_errors": not errors,
    }


class _Hung:
    """A loopback server that accepts connections and never answers."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.port = self._socket.getsockname()[1]
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._held.append(connection)

    def stop(self) -> None:
        self._socket.close()
        for connection in self._held:
            connection.close()


def hung_org(orgs: list[OrgEndpoint], running: Running, questions: list[str]) -> dict[str, Any]:
    hung = _Hung()
    try:
        endpoints = [*orgs, OrgEndpoint(org="H", name="Hung hospital", url=f"http://127.0.0.1:{hung.port}")]
        root = _root(endpoints)
        searcher = FederatedSearcher(root, running.token(SEARCHER))
        answerer = Answerer(searcher, AnswerSettings())
        times, flagged, answered, abstained = [], 0, 0, 0
        for question in questions:
            started = time.perf_counter()
            answer = answerer.answer(question)
            times.append(time.perf_counter() - started)
            assert searcher.last is not None
            statuses = {org.org.org: org.status for org in searcher.last.orgs}
            flagged += statuses["H"] == OrgStatus.TIMEOUT
            answered += all(statuses[org] == OrgStatus.ANSWERED for org in ORGS)
            abstained += answer.abstained
        limit = root.federation.timeout + 0.5
        return {
            "root_timeout_seconds": root.federation.timeout,
            "questions": len(questions),
            "generator": "extractive",
            "answer_seconds": {
                "p50": round(float(np.percentile(times, 50)), 3),
                "max": round(max(times), 3),
                "min": round(min(times), 3),
            },
            "limit_seconds": limit,
            "within_limit": max(times) <= limit,
            "hung_org_flagged_timeout": flagged,
            "other_orgs_answered": answered,
            "abstentions": abstained,
        }
    finally:
        hung.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=150)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2, help="passes over the questions in step 1")
    parser.add_argument("--orgs", type=int, default=20, help="simulated organisations in step 3")
    parser.add_argument("--throughput-seconds", type=float, default=120)
    parser.add_argument("--work", type=Path, help="keep the cohort and indexes here (reused by the next run)")
    parser.add_argument(
        "--steps", default="1,2,3,4,5", help="steps to run; a subset writes results/federation-partial.json"
    )
    args = parser.parse_args()
    steps = {int(step) for step in args.steps.split(",")}
    began = time.perf_counter()
    results: dict[str, Any] = {"load_average_at_start": _load()}
    with tempfile.TemporaryDirectory() as temporary:
        out = args.work or Path(temporary)
        out.mkdir(parents=True, exist_ok=True)
        audit = Path(temporary) / "audit"
        settings, results["cohort"] = _prepare(out, args.patients, args.seed)
        if (out / "centralised").exists():
            shutil.rmtree(out / "centralised")
        central, results["centralised_index"] = _centralised(out, settings)
        questions = _questions(central, args.questions)
        results["question_list"] = questions
        running = _start(out, audit)
        processes: NodeProcesses | None = None
        try:
            token = running.token(SEARCHER)
            orgs = running.serve(running.nodes)
            root = _root(orgs)
            if steps & {1, 4}:
                processes = _start_processes(out, running, audit)
            roots = {"nodes_in_threads": root}
            if processes is not None:
                roots["nodes_as_processes"] = _root(processes.endpoints)
            if 1 in steps:
                print("1. fan-out vs centralised", flush=True)
                results["fan_out_3_orgs_vs_centralised"] = fan_out_vs_centralised(
                    roots, central, token, questions, args.repeats, processes
                )
                results["node_profile"] = node_profile(running.nodes["A"], SEARCHER, questions)
                results["node_profile"]["what_if_ms"] = node_what_if(running.nodes["A"], SEARCHER, questions)
                results["node_profile"]["http_alone"] = http_overhead(running.nodes["A"], orgs[0].url, token, questions)
            if 2 in steps:
                print("2. ixn", flush=True)
                open_root = _root(running.serve(_open_nodes(running, audit)))
                results["ixn_policies_off"] = ixn(open_root, central, token, questions)
            if 3 in steps:
                print(f"3. {args.orgs} organisations", flush=True)
                simulated = running.serve(_simulated_nodes(running, args.orgs, audit))
                results[f"fan_out_{args.orgs}_orgs"] = twenty_orgs(_root(simulated, timeout=30), token, questions)
                results[f"fan_out_{args.orgs}_orgs"]["with_default_2s_timeout"] = twenty_orgs(
                    _root(simulated), token, questions[:20]
                )
            if 4 in steps:
                results["throughput_8_users"] = {}
                for name, chosen in roots.items():
                    print(f"4. throughput, {name.replace('_', ' ')}", flush=True)
                    results["throughput_8_users"][name] = throughput(
                        chosen,
                        running,
                        questions,
                        args.throughput_seconds,
                        processes if name != "nodes_in_threads" else None,
                    )
            if 5 in steps:
                print("5. hung organisation", flush=True)
                results["hung_org"] = hung_org(orgs, running, questions[:8])
        finally:
            if processes is not None:
                processes.stop()
            running.stop()
            central.close()
    results["load_average_at_end"] = _load()
    results["benchmark_seconds"] = round(time.perf_counter() - began, 1)
    results["note"] = (
        "nodes_in_threads: 3 identity providers, every node app (uvicorn in threads), the root and the clients share "
        "one process and one GIL; nodes_as_processes: each node is its own 'clinrag node serve' process, the "
        "providers, the root and the clients stay in this process; both share the machine's 2 cores with each other "
        "and with whatever else runs (see the load averages). The root embeds each question once and sends the "
        "vector; a node embeds again only a text it changes (a named patient's question without the name), as the "
        "centralised index does. The centralised index has one leaf per department across hospitals and reuses the "
        "hospitals' stored vectors"
    )
    write("federation" if steps == {1, 2, 3, 4, 5} else "federation-partial", results)


if __name__ == "__main__":
    main()
