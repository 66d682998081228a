"""A node's tree at work: routers and leaves gate the search with the node's policies, leaves check every document,
routers merge their children's candidates, and the node ranks its own top-k.

Each leaf resolves patient names against its own registry (the patients it holds), so a name only another leaf
knows empties this leaf's search rather than matching someone else. Only a full name or an identifier selects a
patient; a leaf reports where the question names its patients (`NameMatch`), in full or only near their names,
listing only the patients the asker may retrieve there (some of their documents at that leaf pass the document
policy), so the names of others never leave the node.

Example:
    >>> tree = NodeTree.open(load_node_config(pathlib.Path("hospital_a.toml")), embedder)  # doctest: +SKIP
    >>> outcome = tree.search(actor, RetrieveRequest(query="Who had a stroke?"), engine)  # doctest: +SKIP
    >>> outcome.searched[:2]  # doctest: +SKIP
    ['A', 'A/admissions']
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from clinrag.access.policy import Decision, PolicyEngine, Verdict
from clinrag.errors import ClinragError, FederationError
from clinrag.federation.config import LeafSpec, NodeConfig, RouterSpec
from clinrag.federation.protocol import Denial, NameMatch, PathError, RetrieveRequest
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import Embedder, Vectors
from clinrag.index.server import ServerStore
from clinrag.index.store import StoreHit, StoreQuery, VectorStore
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.candidates import Candidates, decode_vector, merge_candidates
from clinrag.retrieve.hybrid import (
    CHUNKS_FILE,
    QueryPlan,
    TextAnalysis,
    TimedEmbedder,
    gather,
    list_names,
    patient_choices,
    plan_query,
)
from clinrag.retrieve.kind_meaning import KindReader
from clinrag.retrieve.patients import PatientRegistry
from clinrag.settings import RetrieveSettings
from clinrag.types import Actor, Chunk

log = logging.getLogger("clinrag.node")
REMEMBERED_GATES = 10_000
REMEMBERED_DOCUMENT_DECISIONS = 200_000
PATIENT_CHECK_BATCH = 64
"""Chunks of a named patient checked at a time when deciding whether the asker may retrieve any of them."""


class _LockedStore:
    """A store whose queries run one at a time (an embedded shard is not shared between threads).

    ``remote`` stores (a Qdrant server) spend a search waiting on the network, so a router asks them concurrently;
    an embedded shard works in this process, where threads would only take turns (the GIL) and cost their start."""

    def __init__(self, store: VectorStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        self.manifest = store.manifest
        self.remote = not isinstance(store, EdgeStore)

    def query(self, query: StoreQuery) -> list[StoreHit]:
        with self._lock:
            return self._store.query(query)

    def count(self) -> int:
        with self._lock:
            return self._store.count()

    def close(self) -> None:
        self._store.close()


@dataclass
class Leaf:
    """A leaf ready to search: its store and its own patient registry."""

    spec: LeafSpec
    store: _LockedStore
    registry: PatientRegistry


@dataclass
class TreeOutcome:
    """What a search of the tree found and where it looked."""

    candidates: Candidates
    searched: list[str] = field(default_factory=list)
    denied: list[Denial] = field(default_factory=list)
    errors: list[PathError] = field(default_factory=list)
    leaves_searched: int = 0
    leaves_without_patient: int = 0
    refused_documents: int = 0
    withheld_sensitive: int = 0
    """Distinct candidates the document policy refused only because of their sensitivity label (`Verdict`)."""
    query_vector: Vectors | None = None
    named_patient: bool = False
    """A leaf below resolved a patient the question names (then only such leaves' candidates count)."""
    names_person: bool = False
    """A leaf below read a person's name in the question, known or not (then leaves that read none do not count)."""
    names: list[NameMatch] = field(default_factory=list)
    """Where the question names patients of the leaves below, with those the asker may retrieve."""
    kind_by_meaning: tuple[str, float] | None = None
    """The kind of fact a leaf read from the question's embedding (no phrasing rule read one), and how alike."""
    notes: list[str] = field(default_factory=list)
    """How a library leaf read the question (`QueryPlan.notes`: spelling, filters applied or dropped), each once."""

    @property
    def no_such_patient(self) -> bool:
        """Every searched leaf said the question names a patient it does not hold."""
        return self.leaves_searched > 0 and self.leaves_without_patient == self.leaves_searched


class NodeTree:
    """The routers and leaves of one organisation, opened from its config."""

    def __init__(
        self,
        config: NodeConfig,
        leaves: dict[str, Leaf],
        chunks: ChunkStore,
        embedder: Embedder,
        settings: RetrieveSettings,
    ) -> None:
        self.config = config
        self.leaves = leaves
        self.chunks = chunks
        self.embedder = embedder
        self.settings = settings
        self._closed = False
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._gates: weakref.WeakKeyDictionary[PolicyEngine, dict[tuple[Actor, str], Decision]] = (
            weakref.WeakKeyDictionary()
        )
        self._gates_lock = threading.Lock()
        self._documents: weakref.WeakKeyDictionary[PolicyEngine, dict[Actor, dict[tuple[object, ...], Verdict]]] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def open(cls, config: NodeConfig, embedder: Embedder, settings: RetrieveSettings | None = None) -> NodeTree:
        """Open every leaf's store and registry; refuse a store built with another embedder.

        Raises:
            FederationError: a leaf's store is missing or was built with another embedder.
        """
        chunks = ChunkStore.open(config.data / CHUNKS_FILE)
        leaves: dict[str, Leaf] = {}
        try:
            for spec in config.tree.leaves():
                store = _open_store(spec)
                store.manifest.check(embedder.id, embedder.dimension, f"leaf {spec.path}")
                leaves[spec.path] = Leaf(spec, _LockedStore(store), PatientRegistry(chunks.patients(spec.dept)))
        except ClinragError as exc:
            for leaf in leaves.values():
                leaf.store.close()
            chunks.close()
            raise FederationError(f"node {config.org}: {exc}") from None
        return cls(config, leaves, chunks, embedder, settings or RetrieveSettings())

    def warm_up(self) -> None:
        """Load what the first question would otherwise wait for (the embedder, spaCy's person tagger), so that the
        first request after start answers within the root's timeout."""
        for leaf in list(self.leaves.values())[:1]:
            question = "Did Alex Example have chest pain?"
            plan_query(question, None, self.settings, leaf.registry, self.chunks, TimedEmbedder(self.embedder))
        # The plan above names a patient no leaf holds and so embeds nothing: the embedder's model is loaded here
        # (about half a second), not by the first question that names a patient the node holds.
        self.embedder.embed(["chest pain"])

    def close(self) -> None:
        """Release every store (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        for leaf in self.leaves.values():
            leaf.store.close()
        self.chunks.close()

    def counts(self) -> dict[str, int]:
        """Chunks per leaf path (for the manifest)."""
        return {path: leaf.store.count() for path, leaf in self.leaves.items()}

    def search(self, actor: Actor, request: RetrieveRequest, engine: PolicyEngine) -> TreeOutcome:
        """Search the tree for ``actor``: gates first, then leaves concurrently, documents checked one by one."""
        search = _Search(self, actor, request, engine)
        return search.visit(self.config.tree)

    @property
    def waits(self) -> bool:
        """Whether a search waits on the network (some leaf is a Qdrant server) rather than working in this process."""
        return any(leaf.store.remote for leaf in self.leaves.values())

    def remote(self, spec: LeafSpec | RouterSpec) -> bool:
        """Whether some leaf under ``spec`` is a remote store (then its siblings are searched concurrently)."""
        if isinstance(spec, LeafSpec):
            return self.leaves[spec.path].store.remote
        return any(self.remote(child) for child in spec.children)

    def pool(self) -> ThreadPoolExecutor:
        """The threads that search remote leaves concurrently (made on first use, kept for later requests)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix=f"node-{self.config.org}")
            return self._pool

    def can_retrieve(self, engine: PolicyEngine, actor: Actor, chunks: Sequence[Chunk]) -> list[bool]:
        """May ``actor`` retrieve each chunk? (`verdicts`, allowed or not.)"""
        return [verdict == Verdict.ALLOWED for verdict in self.verdicts(engine, actor, chunks)]

    def verdicts(self, engine: PolicyEngine, actor: Actor, chunks: Sequence[Chunk]) -> list[Verdict]:
        """May ``actor`` retrieve each chunk, and if not, was it only for its sensitivity label
        (`PolicyEngine.verdicts`)? Remembered per engine and user by `document_keys` (what a decision depends on), so
        a chunk met again, or one like it, costs no Cedar evaluation."""
        keys = engine.document_keys(chunks)
        with self._gates_lock:
            by_user = self._documents.setdefault(engine, {})
            known = by_user.setdefault(actor, {})
            verdicts = [known.get(key) for key in keys]
        unknown: dict[tuple[object, ...], Chunk] = {}
        for key, chunk, verdict in zip(keys, chunks, verdicts, strict=True):
            if verdict is None:
                unknown.setdefault(key, chunk)
        if not unknown:
            return [verdict for verdict in verdicts if verdict is not None]
        decided = dict(zip(unknown, engine.verdicts(actor, list(unknown.values())), strict=True))
        with self._gates_lock:
            if sum(map(len, by_user.values())) + len(decided) > REMEMBERED_DOCUMENT_DECISIONS:
                by_user.clear()
                known = by_user.setdefault(actor, {})
            known.update(decided)
        return [decided[key] if verdict is None else verdict for key, verdict in zip(keys, verdicts, strict=True)]

    def can_search(self, engine: PolicyEngine, actor: Actor, spec: LeafSpec | RouterSpec) -> Decision:
        """The search gate of ``spec`` for ``actor``, remembered per engine: a decision depends only on the user's
        verified attributes, the router or leaf, and the engine's policies (fixed once loaded)."""
        key = (actor, spec.path)
        with self._gates_lock:
            known = self._gates.setdefault(engine, {})
            decision = known.get(key)
        if decision is None:
            kind: Literal["router", "leaf"] = "leaf" if isinstance(spec, LeafSpec) else "router"
            dept = spec.dept if isinstance(spec, LeafSpec) else None
            decision = engine.can_search(actor, self.config.org, spec.path, kind, dept)
            with self._gates_lock:
                if len(known) >= REMEMBERED_GATES:
                    known.clear()
                known[key] = decision
        return decision


def _open_store(spec: LeafSpec) -> VectorStore:
    if spec.store is not None:
        if not spec.store.is_dir():
            raise FederationError(f"leaf {spec.path}: no index at {spec.store}; run 'clinrag index build'")
        return EdgeStore.open(spec.store)
    if spec.qdrant_url is None or spec.collection is None:
        raise FederationError(f"leaf {spec.path}: needs a store path, or a qdrant_url and a collection")
    return ServerStore.open(ServerStore.connect(spec.qdrant_url), spec.collection)


class _Search:
    """One request's walk through the tree."""

    def __init__(self, tree: NodeTree, actor: Actor, request: RetrieveRequest, engine: PolicyEngine) -> None:
        self.tree = tree
        self.actor = actor
        self.request = request
        self.engine = engine
        self.embed = TimedEmbedder(tree.embedder)
        given = _given_vector(request.query_vector, tree.embedder.dimension)
        if given is not None:
            self.embed.provide(request.query_vector_text or request.query, given)
        self.analysis = TextAnalysis()  # the question is understood once for all leaves
        self.fetch_k = max(request.fetch_k, request.k)
        self._permitted: dict[tuple[str, int], bool] = {}

    def visit(self, spec: LeafSpec | RouterSpec) -> TreeOutcome:
        decision = self.tree.can_search(self.engine, self.actor, spec)
        if not decision.allowed:
            return TreeOutcome(Candidates({}), denied=[Denial(path=spec.path, reasons=list(decision.reasons))])
        if isinstance(spec, LeafSpec):
            return self._leaf(spec)
        children = list(spec.children)
        if len(children) > 1 and self.tree.remote(spec):
            parts = list(self.tree.pool().map(self.visit, children))
        else:
            parts = [self.visit(child) for child in children]
        merged = _combine(parts, self.fetch_k)
        merged.searched.insert(0, spec.path)
        return merged

    def _leaf(self, spec: LeafSpec) -> TreeOutcome:
        leaf = self.tree.leaves[spec.path]
        settings = self.tree.settings
        try:
            plan = plan_query(
                self.request.query,
                self.request.filters,
                settings,
                leaf.registry,
                self.tree.chunks,
                self.embed,
                self.analysis,
                KindReader(self.tree.embedder) if settings.kind_by_meaning else None,
            )
            names = list_names(self.request.mode, plan, settings.section_weight)
            withheld: set[str] = set()
            found = gather([leaf.store], plan, names, self.fetch_k, admit=lambda chunks: self._count(chunks, withheld))
        except Exception as exc:  # one leaf failing costs that leaf, never the node's answer
            message = str(exc) if isinstance(exc, ClinragError) else f"search failed ({type(exc).__name__})"
            log.error("leaf=%s search failed: %s", spec.path, type(exc).__name__)
            failed = TreeOutcome(Candidates({}), searched=[spec.path])
            failed.errors.append(PathError(path=spec.path, message=message))
            return failed
        resolution = plan.resolution
        return TreeOutcome(
            found.candidates,
            searched=[spec.path],
            leaves_searched=1,
            leaves_without_patient=int(plan.no_such_patient),
            refused_documents=found.refused,
            withheld_sensitive=len(withheld),
            query_vector=plan.dense,
            named_patient=resolution is not None and bool(resolution.subject_ids),
            names_person=resolution is not None and resolution.names_patients,
            names=self._names(spec, leaf, plan),
            kind_by_meaning=_kind_by_meaning(plan),
            notes=list(plan.notes),
        )

    def _names(self, spec: LeafSpec, leaf: Leaf, plan: QueryPlan) -> list[NameMatch]:
        """Where the question names this leaf's patients, with the patients the asker may retrieve here; a name
        whose patients the asker may not retrieve is left out, so that their names never leave the node."""
        resolution = plan.resolution
        if resolution is None:
            return []
        found = []
        # Every mention of `resolution.mentions` settles who (a near one there is pinned to a patient named in full).
        for full, mentions in ((True, resolution.mentions), (False, resolution.near)):
            for mention in mentions:
                choices = patient_choices(
                    [mention], leaf.registry, self.tree.config.org, spec.dept, lambda s: self._may_retrieve(spec, s)
                )
                if choices:
                    found.append(NameMatch(start=mention.start, end=mention.end, full=full, choices=choices))
        return found

    def _may_retrieve(self, spec: LeafSpec, subject_id: int) -> bool:
        """Whether the asker may retrieve some of the patient's documents at this leaf (the document policy, the
        same check every hit passes), remembered for the request."""
        key = (spec.path, subject_id)
        known = self._permitted.get(key)
        if known is None:
            known = False
            batch: list[Chunk] = []
            for chunk in self.tree.chunks.chunks(dept=spec.dept, subject_id=subject_id):
                batch.append(chunk)
                if len(batch) == PATIENT_CHECK_BATCH:
                    known = any(self._admit(batch))
                    batch = []
                    if known:
                        break
            if batch and not known:
                known = any(self._admit(batch))
            self._permitted[key] = known
        return known

    def _admit(self, chunks: Sequence[Chunk]) -> list[bool]:
        return self.tree.can_retrieve(self.engine, self.actor, chunks)

    def _count(self, chunks: Sequence[Chunk], withheld: set[str]) -> list[bool]:
        """`_admit` for a leaf's candidates, adding those withheld only for their sensitivity label to ``withheld``
        (chunk ids: a chunk refused in several lists counts once)."""
        verdicts = self.tree.verdicts(self.engine, self.actor, chunks)
        withheld.update(c.chunk_id for c, v in zip(chunks, verdicts, strict=True) if v == Verdict.WITHHELD_SENSITIVE)
        return [verdict == Verdict.ALLOWED for verdict in verdicts]


def _given_vector(encoded: str | None, dimension: int) -> Vectors | None:
    """The caller's query vector, if it is a finite unit vector of the node's dimension (else the node embeds)."""
    if encoded is None:
        return None
    try:
        vector = decode_vector(encoded)
    except ValueError:
        return None
    if vector.shape != (dimension,) or not np.all(np.isfinite(vector)) or abs(float(vector @ vector) - 1.0) > 1e-3:
        return None
    return vector


def _kind_by_meaning(plan: QueryPlan) -> tuple[str, float] | None:
    found = plan.understanding
    if found.fact_kind is None or found.kind_similarity is None:
        return None
    return found.fact_kind, found.kind_similarity


def _combine(parts: Sequence[TreeOutcome], fetch_k: int) -> TreeOutcome:
    """Merge children's outcomes. When some child resolved a patient the question names, the others' candidates
    are dropped: their registries lack that patient (a name spaCy did not flag would otherwise let them answer
    about everyone). When some child read a person's name but none resolved it, every candidate is dropped: the
    children that read no name searched everyone ("Alexandra Edwards" is a surname at one leaf, nothing at another).
    """
    named = any(part.named_patient for part in parts)
    recognised = any(part.names_person for part in parts)
    kept = [part.candidates for part in parts if part.named_patient or not (named or recognised)]
    combined = TreeOutcome(merge_candidates(kept, fetch_k), named_patient=named, names_person=recognised)
    combined.kind_by_meaning = next(
        (part.kind_by_meaning for part in parts if part.kind_by_meaning and (part.named_patient or not named)), None
    )
    combined.notes = list(dict.fromkeys(note for part in parts for note in part.notes))
    for part in parts:
        combined.names += part.names
        combined.searched += part.searched
        combined.denied += part.denied
        combined.errors += part.errors
        combined.leaves_searched += part.leaves_searched
        combined.leaves_without_patient += part.leaves_without_patient
        combined.refused_documents += part.refused_documents
        combined.withheld_sensitive += part.withheld_sensitive
        if combined.query_vector is None:
            combined.query_vector = part.query_vector
    return combined
