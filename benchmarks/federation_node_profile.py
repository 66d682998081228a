"""Step 1's profile of one node in ``bench_federation.py``: its request handling called directly (no HTTP) with
each stage of the tree walk timed, a what-if with spaCy's person tagger shared by the leaves, and the same node asked
alone over HTTP (what FastAPI, validation, JSON and loopback add)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any

import httpx
import numpy as np

import clinrag.federation.node as node_module
import clinrag.federation.tree as tree_module
import clinrag.retrieve.hybrid as hybrid_module
import clinrag.retrieve.patient_mentions as mentions_module
import clinrag.retrieve.patients as patients_module
from clinrag.access.demo import demo_user
from clinrag.federation.node import Node
from clinrag.federation.protocol import RetrieveRequest, RetrieveResponse
from federation_cohort import EMBEDDER
from federation_stats import ms


class _Stages:
    """Wall and CPU (the calling thread's) seconds per stage, summed over threads: the leaves of a node run
    concurrently, so summed wall times include waits for the GIL and the cores; CPU times do not."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function``, its calls counted and timed under ``name``."""

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
    """The benchmark's embedder with its calls timed as a stage."""

    def __init__(self, stages: _Stages) -> None:
        self.id = EMBEDDER.id
        self.dimension = EMBEDDER.dimension
        self.embed = stages.timed("embed (question, once per node)", EMBEDDER.embed)


@contextmanager
def _patched(target: Any, name: str, replacement: Any) -> Iterator[None]:
    """``target.name`` replaced by ``replacement`` for the block."""
    original = getattr(target, name)
    setattr(target, name, replacement)
    try:
        yield
    finally:
        setattr(target, name, original)


def _timing(stages: _Stages, stage: str, target: Any, name: str) -> AbstractContextManager[None]:
    """``target.name`` timed as ``stage`` for the block."""
    return _patched(target, name, stages.timed(stage, getattr(target, name)))


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
        _timing(stages, "plan_query (per leaf)", tree_module, "plan_query"),
        _timing(stages, "  understand (2 per leaf)", hybrid_module, "understand"),
        _timing(stages, "  patient name resolution (per leaf)", patients_module.PatientRegistry, "resolve"),
        _patched(mentions_module, "_person_tagger", lambda: tagger),
        _patched(node.tree, "embedder", _TimedEmbedder(stages)),
        _timing(stages, "gather: store queries + document checks", tree_module, "gather"),
        _timing(stages, "  store query", tree_module._LockedStore, "query"),
        _timing(stages, "  policy: document checks", engine, "can_retrieve"),
        _timing(stages, "policy: search gates", engine, "can_search"),
        _timing(stages, "router merge", tree_module, "_combine"),
        _timing(stages, "node rank", node_module, "rank_candidates"),
        _timing(stages, "candidate list", node_module, "candidate_hits"),
        _timing(stages, "audit append", node.audit, "record"),
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
        "node_retrieve_wall_ms": ms(walls),
        "stage_wall_ms_per_request_summed_over_threads": {
            name: round(seconds / count * 1000, 2) for name, seconds in stages.wall.items()
        },
        "stage_cpu_ms_per_request_summed_over_threads": {
            name: round(seconds / count * 1000, 2) for name, seconds in stages.cpu.items()
        },
        "stage_calls_per_request": {name: round(calls / count, 1) for name, calls in stages.calls.items()},
        "response_json_ms": ms(serialise),
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
    return {name: ms(values) for name, values in times.items()}


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
        "node_total_ms": ms(node_times[skip:]),
        "http_fastapi_json_overhead_ms": ms(overheads[skip:]),
        "root_side_parse_ms": ms(parse[skip:]),
    }
