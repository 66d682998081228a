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

Everything runs in one process (as the federation tests do), so the nodes, the root and the clients share the
machine's cores and one GIL; on a real deployment every node has its own machine. The centralised index reuses the
vectors the hospitals' indexes hold (same model, same chunk texts), so both sides rank identical vectors.

The cohort: ``data/demo`` is copied and reused when it holds a cohort of ``--patients`` and ``--seed``, otherwise
one is built into a temporary folder (``--work DIR`` keeps it for a rerun).

    python benchmarks/bench_federation.py [--patients 150] [--questions 40] [--throughput-seconds 120] [--work DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import shutil
import socket
import ssl
import statistics
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
import clinrag.retrieve.patients as patients_module
from clinrag.access.demo import DEMO_TREES, DEMO_USERS, demo_user
from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.access.policy import PolicyEngine
from clinrag.app.demo import build_demo
from clinrag.app.federation_files import DemoPorts, write_federation
from clinrag.app.idp import RunningProvider, start_provider
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.protocol import RetrieveRequest, RetrieveResponse
from clinrag.federation.root import FederatedRetrieval, FederatedSearcher, FederationRoot, OrgEndpoint, OrgStatus
from clinrag.federation.serving import ThreadServer
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
        "client_setup_and_teardown": timings["fan_out"] - slowest.seconds,
        "asyncio_run_overhead": wall - timings["total"],
    }


class _ContextOnce(httpx.AsyncBaseTransport):
    """What-if for the root: its HTTP transport with an SSL context made once, not per search (``FederationRoot``
    makes a new ``httpx.AsyncClient`` per search, and httpx loads the CA bundle for each, even for http://).
    One search at a time: the inner transport lives for one search's event loop."""

    context = ssl.create_default_context()

    def __init__(self) -> None:
        self._inner: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._inner is None:
            self._inner = httpx.AsyncHTTPTransport(verify=self.context)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            await inner.aclose()


def fan_out_vs_centralised(
    root: FederationRoot, central: Retriever, token: str, questions: list[str], repeats: int
) -> dict[str, Any]:
    reusing = FederationRoot(
        root.orgs, root.settings, root.embedder_id, root.federation, transport=_ContextOnce(), embed=root.embed
    )
    for question in questions[:5]:  # warm every path (connections, caches, spaCy)
        _search(root, question, token)
        _search(reusing, question, token)
        central.retrieve(question, k=10, mode="hybrid")
    federated, centralised, context_once = [], [], []
    cpu: dict[str, list[float]] = defaultdict(list)
    parts: dict[str, list[float]] = defaultdict(list)
    node_totals: dict[str, list[float]] = defaultdict(list)
    central_parts: dict[str, list[float]] = defaultdict(list)
    statuses: Counter[str] = Counter()
    load = _load()
    for _ in range(repeats):
        for question in questions:
            used = time.process_time()
            result, wall = _search(root, question, token)
            cpu["federated"].append(time.process_time() - used)
            federated.append(wall)
            for name, value in _parts(result, wall).items():
                parts[name].append(value)
            for org in result.orgs:
                statuses[f"{org.org.org}:{org.status.value}"] += 1
                if org.response is not None:
                    node_totals[org.org.org].append(org.response.timings.get("total", 0.0))
            used = time.process_time()
            context_once.append(_search(reusing, question, token)[1])
            cpu["federated_ssl_context_once"].append(time.process_time() - used)
            used, started = time.process_time(), time.perf_counter()
            retrieval = central.retrieve(question, k=10, mode="hybrid")
            centralised.append(time.perf_counter() - started)
            cpu["centralised"].append(time.process_time() - used)
            for name, value in retrieval.timings.items():
                central_parts[name].append(value)
    fed, cen, once = _ms(federated), _ms(centralised), _ms(context_once)
    return {
        "user": SEARCHER,
        "mode": "hybrid",
        "k": 10,
        "questions": len(questions),
        "repeats": repeats,
        "load_average_at_start": load,
        "federated_ms": fed,
        "centralised_ms": cen,
        "ratio_p50": round(fed["p50"] / cen["p50"], 2),
        "ratio_p95": round(fed["p95"] / cen["p95"], 2),
        "meets_target_1_3x_at_p50": fed["p50"] / cen["p50"] <= 1.3,
        "what_if_root_ssl_context_made_once_ms": once,
        "what_if_ratio_p50": round(once["p50"] / cen["p50"], 2),
        "process_cpu_ms_per_search": {name: _ms(values)["mean"] for name, values in cpu.items()},
        "federated_breakdown_ms_p50": {name: _ms(values)["p50"] for name, values in parts.items()},
        "federated_breakdown_ms_mean": {name: _ms(values)["mean"] for name, values in parts.items()},
        "node_total_ms_per_org": {org: _ms(values) for org, values in node_totals.items()},
        "centralised_breakdown_ms_p50": {name: _ms(values)["p50"] for name, values in central_parts.items()},
        "org_statuses": dict(statuses),
    }


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
    requests = [RetrieveRequest(query=q, k=10, fetch_k=50, mode="hybrid", candidates=True) for q in questions]
    walls, serialise, sizes = [], [], []
    engine = node.engine
    tagger = stages.timed("    spaCy person tagger", patients_module._person_tagger())
    with (
        _patched(tree_module, "plan_query", stages.timed("plan_query (per leaf)", tree_module.plan_query)),
        _patched(hybrid_module, "understand", stages.timed("  understand (2 per leaf)", hybrid_module.understand)),
        _patched(
            patients_module.PatientRegistry,
            "resolve",
            stages.timed("  patient name resolution (per leaf)", patients_module.PatientRegistry.resolve),
        ),
        _patched(patients_module, "_person_tagger", lambda: tagger),
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
            body = response.model_dump_json()
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


class _Inline:
    """What-if for the node: a router's children searched one after another in the request's thread."""

    def __init__(self, max_workers: int | None = None, thread_name_prefix: str = "") -> None:
        pass

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, function: Callable[[Any], Any], items: Iterator[Any]) -> Iterator[Any]:
        return map(function, items)


class _TagOnce:
    """What-if for the node: spaCy's person tagger run once per question, its result shared by the leaves."""

    def __init__(self) -> None:
        self.tagger = patients_module._person_tagger()
        self.cache: dict[str, Any] = {}
        self.lock = threading.Lock()

    def __call__(self, text: str) -> Any:
        with self.lock:
            if text not in self.cache:
                self.cache[text] = self.tagger(text)
            return self.cache[text]


def node_what_if(node: Node, actor_subject: str, questions: list[str]) -> dict[str, Any]:
    """One node's request handling called directly, as it is and with two changes, interleaved per question."""
    actor = demo_user(actor_subject)
    once = _TagOnce()
    variants: dict[str, list[tuple[Any, str, Any]]] = {
        "as_is": [],
        "leaves_in_the_request_thread": [(tree_module, "ThreadPoolExecutor", _Inline)],
        "spacy_once_per_question": [(patients_module, "_person_tagger", lambda: once)],
    }
    variants["both"] = variants["leaves_in_the_request_thread"] + variants["spacy_once_per_question"]
    times: dict[str, list[float]] = defaultdict(list)
    for question in questions:
        request = RetrieveRequest(query=question, k=10, fetch_k=50, mode="hybrid", candidates=True)
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
            body = RetrieveRequest(query=question, k=10, fetch_k=50, mode="hybrid", candidates=True)
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


def throughput(root: FederationRoot, running: Running, questions: list[str], seconds: float) -> dict[str, Any]:
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

    started, used = time.perf_counter(), time.process_time()
    threads = [threading.Thread(target=work, args=(i * 5, subject)) for i, subject in enumerate(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed, used = time.perf_counter() - started, time.process_time() - used
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


def _client_setup_ms() -> float:
    """What creating and closing the root's httpx client costs (it makes one per search)."""

    async def once() -> None:
        async with httpx.AsyncClient(trust_env=False, limits=httpx.Limits(max_connections=6)):
            pass

    started = time.perf_counter()
    for _ in range(20):
        asyncio.run(once())
    return round((time.perf_counter() - started) / 20 * 1000, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=150)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2, help="passes over the questions in step 1")
    parser.add_argument("--orgs", type=int, default=20, help="simulated organisations in step 3")
    parser.add_argument("--throughput-seconds", type=float, default=120)
    parser.add_argument("--work", type=Path, help="keep the cohort and indexes here (reused by the next run)")
    args = parser.parse_args()
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
        try:
            token = running.token(SEARCHER)
            orgs = running.serve(running.nodes)
            root = _root(orgs)
            print("1. fan-out vs centralised", flush=True)
            results["fan_out_3_orgs_vs_centralised"] = fan_out_vs_centralised(
                root, central, token, questions, args.repeats
            )
            results["fan_out_3_orgs_vs_centralised"]["httpx_client_setup_ms"] = _client_setup_ms()
            results["node_profile"] = node_profile(running.nodes["A"], SEARCHER, questions)
            results["node_profile"]["what_if_ms"] = node_what_if(running.nodes["A"], SEARCHER, questions)
            results["node_profile"]["http_alone"] = http_overhead(running.nodes["A"], orgs[0].url, token, questions)
            print("2. ixn", flush=True)
            open_root = _root(running.serve(_open_nodes(running, audit)))
            results["ixn_policies_off"] = ixn(open_root, central, token, questions)
            print(f"3. {args.orgs} organisations", flush=True)
            simulated = running.serve(_simulated_nodes(running, args.orgs, audit))
            results[f"fan_out_{args.orgs}_orgs"] = twenty_orgs(_root(simulated, timeout=30), token, questions)
            results[f"fan_out_{args.orgs}_orgs"]["with_default_2s_timeout"] = twenty_orgs(
                _root(simulated), token, questions[:20]
            )
            print("4. throughput", flush=True)
            results["throughput_8_users"] = throughput(root, running, questions, args.throughput_seconds)
            print("5. hung organisation", flush=True)
            results["hung_org"] = hung_org(orgs, running, questions[:8])
        finally:
            running.stop()
            central.close()
    results["load_average_at_end"] = _load()
    results["benchmark_seconds"] = round(time.perf_counter() - began, 1)
    results["note"] = (
        "one process: 3 identity providers, every node app (uvicorn in threads), the root and the clients share "
        "the machine's cores and one GIL; latency includes each node embedding the question itself; the centralised "
        "index has one leaf per department across hospitals and reuses the hospitals' stored vectors"
    )
    write("federation", results)


if __name__ == "__main__":
    main()
