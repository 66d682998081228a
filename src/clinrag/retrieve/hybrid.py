"""The retriever of one node: understands the question, resolves named patients, searches every leaf index,
merges, applies the relevance threshold, and returns ranked hits with their provenance.

When a question names patients this node knows — in full or by identifier — only their chunks are eligible; when
it names people this node does not know, nothing is returned and the result says so ("no such patient here"),
rather than answering about someone else. A name that only comes near registry patients (a surname alone, another
given name, a swapped or misspelt name) or that several patients share selects no one: nothing is retrieved, and
the result lists the patients it may mean (``Retrieval.clarify``) so the asker can say which.

Example:
    >>> retriever = Retriever.open(pathlib.Path("data/demo/nodes/A"))  # doctest: +SKIP
    >>> retriever.retrieve("What was Betty Henry discharged on?").hits[0].chunk.section  # doctest: +SKIP
    'Discharge Medications'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from clinrag.errors import StoreError
from clinrag.index.backend import leaf_names, open_leaf_store
from clinrag.index.embed import Embedder, OnnxMiniLmEmbedder, Vectors
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.store import Mode, StoreHit, StoreQuery, VectorStore
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.candidates import (
    BM25_LIST,
    DENSE_LIST,
    SECTION_SUFFIX,
    Candidates,
    merge_candidates,
    rank_candidates,
)
from clinrag.retrieve.kind_meaning import KindReader
from clinrag.retrieve.literature_filters import (
    correct_library_spelling,
    library_dates,
    load_vocabulary,
    read_literature_filters,
    spelling_notes,
)
from clinrag.retrieve.patient_mentions import PatientMention, Resolution
from clinrag.retrieve.patients import PatientRegistry
from clinrag.retrieve.query import DateRange, QueryUnderstanding, asked_about, understand
from clinrag.retrieve.scope import ScopeNames
from clinrag.settings import IndexSettings, RetrieveSettings
from clinrag.types import Chunk, Hit, PatientChoice, SearchFilters


class Queryable(Protocol):
    """What gathering needs of a store: ranked hits for a query."""

    def query(self, query: StoreQuery) -> list[StoreHit]:
        """The store's hits for ``query``, best first."""
        ...


Admit = Callable[[Sequence[Chunk]], Sequence[bool]]
"""A document check: for each chunk, whether the asker may retrieve it (the leaf's "right to retrieve")."""

CHUNKS_FILE = "chunks.sqlite"
INDEX_DIR = "index"


@dataclass(frozen=True)
class Retrieval:
    """The outcome of one search: hits, how the question was understood, and why anything was left out.

    ``searched``, ``denied`` and ``unreachable`` name the organisations or tree nodes that were searched, that
    refused by policy, and that did not answer (a federation fills them; a local search names its leaves).

    ``clarify`` lists the patients a name of the question may mean when it does not settle who (a surname alone,
    another given name, a swapped or misspelt name, one name shared by several patients) — only patients the asker
    may retrieve; ``hits`` is then empty, whatever else the question names: the asker is asked which patient.
    """

    hits: tuple[Hit, ...]
    understanding: QueryUnderstanding
    resolution: Resolution | None
    filters: SearchFilters
    no_such_patient: bool = False
    below_threshold: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    searched: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()
    clarify: tuple[PatientChoice, ...] = ()
    notes: tuple[str, ...] = ()
    """Filters the question stated, each applied or dropped (a library's authors, journals, publication types)."""


@dataclass(frozen=True)
class QueryPlan:
    """A question made ready for one registry's stores: its filters (named patients, dates, admission), the text
    to rank by (mentions cut out), the text embedded for the dense query (a question about a set of patients
    without its opening frame, see `asked_about`), and the query vectors. ``no_such_patient`` means nothing here may
    be searched (the question names someone, and no one here in full or by identifier); a name that only comes
    near registry patients (``resolution.near``) selects no one, so alone it leaves nothing to search either."""

    understanding: QueryUnderstanding
    resolution: Resolution | None
    filters: SearchFilters
    no_such_patient: bool
    ranking_text: str = ""
    dense_text: str = ""
    dense: Vectors | None = None
    sparse: dict[int, float] | None = None
    notes: tuple[str, ...] = ()
    """What the question asked that was applied or dropped as a filter (a library's authors, journals, types)."""

    @property
    def section_filters(self) -> SearchFilters | None:
        """The filters narrowed to the sections the question asks about, unless it names none or the caller chose."""
        wanted = self.understanding.sections
        if not wanted or self.filters.sections is not None or self.filters.section_groups is not None:
            return None
        return self.filters.model_copy(update={"sections": wanted})


def patient_choices(
    mentions: Sequence[PatientMention],
    registry: PatientRegistry,
    org: str = "",
    dept: str = "",
    permitted: Callable[[int], bool] | None = None,
) -> tuple[PatientChoice, ...]:
    """The patients ``mentions`` may mean, in subject_id order, each once; with ``permitted``, only those it admits
    (the asker may retrieve some of their records here), so that no other patient's name is ever shown.

    Example:
        >>> registry = PatientRegistry([(1, "Tracie Edwards"), (2, "Mark Edwards")])
        >>> near = registry.resolve("Mr. Edwards's labs?", detect_persons=False).near
        >>> [choice.name for choice in patient_choices(near, registry, "B", "medicine", permitted=lambda sid: sid == 1)]
        ['Tracie Edwards']
    """
    ids = sorted({sid for mention in mentions for sid in mention.subject_ids})
    depts = (dept,) if dept else ()
    return tuple(
        PatientChoice(subject_id=sid, name=registry.name(sid), org=org, depts=depts)
        for sid in ids
        if permitted is None or permitted(sid)
    )


def merge_choices(choices: Iterable[PatientChoice]) -> tuple[PatientChoice, ...]:
    """One choice per patient and organisation, their departments joined, ordered by organisation and subject_id.

    Example:
        >>> a = PatientChoice(subject_id=1, name="Ada Stone", org="A", depts=("medicine",))
        >>> merge_choices([a, a.model_copy(update={"depts": ("admissions",)})])[0].depts
        ('admissions', 'medicine')
    """
    merged: dict[tuple[str, int], PatientChoice] = {}
    for choice in choices:
        key = (choice.org, choice.subject_id)
        known = merged.get(key)
        depts = tuple(sorted({*known.depts, *choice.depts})) if known is not None else choice.depts
        merged[key] = choice.model_copy(update={"depts": depts})
    return tuple(merged[key] for key in sorted(merged))


def _without_mentions(question: str, resolution: Resolution | None) -> str:
    """The question with the resolved patient mentions cut out (or the question itself if nothing is left)."""
    if resolution is None or not resolution.mentions:
        return question
    text = question
    for mention in sorted(resolution.mentions, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + " " + text[mention.end :]
    text = " ".join(text.replace(" 's ", " ").split())
    return text if text.strip(" ?.!") else question


def _intersect(given: tuple[int, ...] | None, named: frozenset[int]) -> tuple[int, ...]:
    if given is None:
        return tuple(sorted(named))
    return tuple(sorted(set(given) & named))


class TextAnalysis:
    """What a search derives from a text — `understand` and the BM25 query vector — remembered by text, for one
    question: the leaves of a node plan the same question, and would otherwise each analyse it again.

    Example:
        >>> analysis = TextAnalysis()
        >>> analysis.understand("SOB?", True) is analysis.understand("SOB?", True)
        True
    """

    def __init__(self) -> None:
        self._understood: dict[tuple[str, bool], QueryUnderstanding] = {}
        self._sparse: dict[str, dict[int, float]] = {}

    def understand(self, text: str, expand_abbreviations: bool) -> QueryUnderstanding:
        """`understand` of ``text`` (the same object each time it is asked for again)."""
        key = (text, expand_abbreviations)
        found = self._understood.get(key)
        if found is None:
            found = self._understood[key] = understand(text, expand_abbreviations=expand_abbreviations)
        return found

    def sparse(self, lexical_text: str) -> dict[int, float]:
        """The BM25 query vector of ``lexical_text`` (shared: callers must not change it)."""
        found = self._sparse.get(lexical_text)
        if found is None:
            found = self._sparse[lexical_text] = Bm25Encoder.encode_query(lexical_text)
        return found


def dense_text(
    ranking_text: str, settings: RetrieveSettings, patients_named: bool, analysis: TextAnalysis | None = None
) -> str:
    """The text a search embeds for its dense query: ``ranking_text`` itself when the search is about named
    patients (``patients_named``: a subject filter), else the topic of a question about a set of patients
    (`asked_about`, with the expansions BM25 gets) or the question unchanged.

    The federation root embeds this text for a question that names no patient, so that no node embeds it again.

    Example:
        >>> dense_text("Which patients had low magnesium?", RetrieveSettings(), patients_named=False)
        'low magnesium hypomagnesemia'
        >>> dense_text("Which patients had low magnesium?", RetrieveSettings(), patients_named=True)
        'Which patients had low magnesium?'
    """
    if patients_named:
        return ranking_text
    topic = asked_about(ranking_text)
    if topic == ranking_text:
        return ranking_text
    return (analysis or TextAnalysis()).understand(topic, settings.expand_abbreviations).lexical_text


def plan_query(
    question: str,
    filters: SearchFilters | None,
    settings: RetrieveSettings,
    registry: PatientRegistry | None,
    chunks: ChunkStore | None,
    embed: Callable[[str], Vectors],
    analysis: TextAnalysis | None = None,
    kinds: KindReader | None = None,
) -> QueryPlan:
    """Understand ``question`` against one patient registry: named patients become a subject filter (a name the
    registry lacks empties the search), years a date range, "last admission" that admission; then embed the text
    to rank by, and with ``kinds`` read from that vector the kind of fact asked when no phrasing rule found it.
    ``embed`` may cache: leaves of one node share the question's vectors when their texts agree; they share
    ``analysis`` too (what is derived from the texts)."""
    analysis = analysis or TextAnalysis()
    expand = settings.expand_abbreviations
    vocabulary = load_vocabulary(chunks.path.parent) if chunks is not None else None
    spelling: tuple[str, ...] = ()
    if vocabulary is not None and settings.library_spelling:  # a library: misspelt words read as its own
        question, corrected = correct_library_spelling(question, vocabulary)
        spelling = spelling_notes(question, corrected)
    understanding = analysis.understand(question, expand)
    scoped = filters or SearchFilters()
    resolution: Resolution | None = None
    nobody_here = False
    # a library holds no patients: the names its questions carry are authors, read as filters below
    if settings.resolve_patients and registry is not None and vocabulary is None:
        resolution = registry.resolve(question)
        if resolution.subject_ids:
            subjects = _intersect(scoped.subject_ids, resolution.subject_ids)
            scoped, nobody_here = scoped.model_copy(update={"subject_ids": subjects}), not subjects
        else:
            nobody_here = resolution.names_patients
    scoped = _admission_filters(understanding, scoped, chunks)
    notes: tuple[str, ...] = spelling
    if vocabulary is not None:  # a library: authors, journals, publication types and MeSH the question states
        literature = read_literature_filters(question, vocabulary)
        asked = understanding.date_range
        scoped, dated = library_dates(scoped, None if asked is None else (asked.start, asked.end), vocabulary)
        scoped, notes = scoped.model_copy(update=literature.filters), spelling + literature.notes + dated
    if nobody_here:
        return QueryPlan(understanding, resolution, scoped, no_such_patient=True)
    # Named patients are already a filter; their names would only pull in short chunks that repeat them.
    ranking_text = _without_mentions(question, resolution) if scoped.subject_ids else question
    # Without a named patient, "Which patients had X?" is about X: embed X (with the expansions BM25 gets, so that
    # "low magnesium" also reads "hypomagnesemia"), not the frame around it.
    embedded = dense_text(ranking_text, settings, bool(scoped.subject_ids), analysis)
    ranked = analysis.understand(ranking_text, expand)
    lexical = ranked.lexical_text
    dense = embed(embedded)
    if kinds is not None:  # a kind of fact no phrasing rule recognised, read from the vector the search uses
        understanding = kinds.read(understanding, dense, named=ranked.things | ranked.anchors)
    return QueryPlan(
        understanding,
        resolution,
        scoped,
        no_such_patient=False,
        ranking_text=ranking_text,
        dense_text=embedded,
        dense=dense,
        sparse=analysis.sparse(lexical),
        notes=notes,
    )


def _admission_filters(
    understanding: QueryUnderstanding, filters: SearchFilters, chunks: ChunkStore | None
) -> SearchFilters:
    update: dict[str, object] = {}
    asked = understanding.date_range
    if asked is not None and filters.start is None and filters.end is None:
        stays = _stays_within(asked, chunks, filters)
        if stays:  # "his admission in April 2020": the stay that began in April is asked, its May discharge note too
            update["hadm_ids"] = stays
        else:
            update |= {"start": asked.start, "end": asked.end}
    wants_one = understanding.latest_admission or understanding.first_admission
    if wants_one and chunks is not None and filters.subject_ids and len(filters.subject_ids) == 1:
        admissions = chunks.admissions(filters.subject_ids[0])
        if admissions:
            chosen = admissions[-1] if understanding.latest_admission else admissions[0]
            update["hadm_ids"] = (chosen,)
    return filters.model_copy(update=update) if update else filters


def _stays_within(asked: DateRange, chunks: ChunkStore | None, filters: SearchFilters) -> tuple[int, ...]:
    """The admissions of the one patient ``filters`` name that overlap the ``asked`` dates, when this leaf's chunks
    know them and no admission is chosen already (empty otherwise: the dates then filter the chunks)."""
    if chunks is None or filters.hadm_ids or not filters.subject_ids or len(filters.subject_ids) != 1:
        return ()
    return tuple(
        hadm
        for hadm, began, ended in chunks.admission_spans(filters.subject_ids[0])
        if began is not None
        and (asked.end is None or began < asked.end)
        and (asked.start is None or (ended or began) >= asked.start)
    )


def list_names(mode: Mode, plan: QueryPlan, section_weight: float = 1.0) -> list[str]:
    """The candidate lists a mode needs: its own retriever, or both, plus both within the asked-for sections
    (unless their fusion weight is 0)."""
    if mode in ("dense", "bm25"):
        return [mode]
    names = [DENSE_LIST, BM25_LIST]
    if plan.section_filters is not None and section_weight > 0:
        names += [DENSE_LIST + SECTION_SUFFIX, BM25_LIST + SECTION_SUFFIX]
    return names


@dataclass
class Gathered:
    """Candidates from some stores, and how many documents the document check refused."""

    candidates: Candidates
    refused: int = 0


def gather(
    stores: Sequence[Queryable],
    plan: QueryPlan,
    names: Sequence[str],
    fetch_k: int,
    admit: Admit | None = None,
) -> Gathered:
    """Each named list's top ``fetch_k`` from every store, merged across stores by the list's own score.

    With ``admit``, every candidate is checked and refused ones are dropped; a store is asked again for more
    (four times as many each round) until ``fetch_k`` admitted candidates are found or the store has no more, so
    a user allowed to see enough matching chunks always gets them, however many better ones they are refused.
    """
    if plan.no_such_patient:
        return Gathered(Candidates({name: [] for name in names}))
    parts: list[Candidates] = []
    refused = 0
    for store in stores:
        lists: dict[str, list[tuple[str, float]]] = {}
        found: dict[str, StoreHit] = {}
        verdicts: dict[str, bool] = {}  # a chunk in several of this store's lists is checked once
        for name in names:
            within = plan.section_filters if name.endswith(SECTION_SUFFIX) else plan.filters
            mode: Mode = "dense" if name.startswith(DENSE_LIST) else "bm25"
            hits, denied = _admitted(store, plan, mode, within, fetch_k, admit, verdicts)
            refused += denied
            lists[name] = [(hit.chunk.chunk_id, hit.score) for hit in hits]
            for hit in hits:
                found.setdefault(hit.chunk.chunk_id, hit)
        parts.append(Candidates(lists, found))
    return Gathered(merge_candidates(parts, fetch_k), refused)


def _admitted(
    store: Queryable,
    plan: QueryPlan,
    mode: Mode,
    within: SearchFilters | None,
    fetch_k: int,
    admit: Admit | None,
    verdicts: dict[str, bool],
) -> tuple[list[StoreHit], int]:
    limit = fetch_k
    while True:
        request = StoreQuery(mode=mode, dense=plan.dense, sparse=plan.sparse, filters=within, limit=limit)
        hits = store.query(request)
        if admit is None:
            return hits, 0
        unseen = [hit.chunk for hit in hits if hit.chunk.chunk_id not in verdicts]
        if unseen:
            verdicts.update(zip((c.chunk_id for c in unseen), admit(unseen), strict=True))
        allowed = [hit for hit in hits if verdicts[hit.chunk.chunk_id]]
        if len(allowed) >= fetch_k or len(hits) < limit:
            return allowed[:fetch_k], sum(not verdicts[hit.chunk.chunk_id] for hit in hits)
        limit *= 4


class TimedEmbedder:
    """Embeds one text at a time, caching by text and adding up the seconds spent (leaves of a node share one).

    Example:
        >>> embed = TimedEmbedder(OnnxMiniLmEmbedder())  # doctest: +SKIP
        >>> embed("chest pain").shape, embed.seconds > 0  # doctest: +SKIP
        ((384,), True)
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.seconds = 0.0
        self._cache: dict[str, Vectors] = {}
        self._lock = threading.Lock()

    def __call__(self, text: str) -> Vectors:
        # One lock: leaves searched in parallel wait for the first embedding instead of each making their own.
        with self._lock:
            if text not in self._cache:
                started = time.perf_counter()
                self._cache[text] = self.embedder.embed([text])[0]
                self.seconds += time.perf_counter() - started
            return self._cache[text]

    def provide(self, text: str, vector: Vectors) -> None:
        """Use ``vector`` as the embedding of ``text`` (computed elsewhere with the same model)."""
        with self._lock:
            self._cache[text] = vector


class Retriever:
    """Searches a node's leaf indexes. Build with `open` (a node folder) or directly from parts."""

    def __init__(
        self,
        stores: Mapping[str, VectorStore],
        embedder: Embedder,
        registry: PatientRegistry,
        settings: RetrieveSettings,
        chunks: ChunkStore | None = None,
    ) -> None:
        self.stores = dict(stores)
        self.embedder = embedder
        self.registry = registry
        self.settings = settings
        self.chunks = chunks
        for name, store in self.stores.items():
            store.manifest.check(embedder.id, embedder.dimension, f"leaf {name}")

    @classmethod
    def open(
        cls,
        node: Path,
        settings: RetrieveSettings | None = None,
        embedder: Embedder | None = None,
        index: IndexSettings | None = None,
    ) -> Retriever:
        """The retriever of a node folder holding ``chunks.sqlite`` and the leaf indexes of ``index/`` (Qdrant Edge
        shards by default; with ``index.backend = "server"``, collections of ``index.qdrant_url`` or, without a
        URL, qdrant-client local mode under ``index/LEAF/``)."""
        leaves = leaf_names(node / INDEX_DIR, index)
        if not leaves:
            raise StoreError(f"{node}: no index found under {node / INDEX_DIR}; run 'clinrag index build' first")
        stores: dict[str, VectorStore] = {}
        try:
            for leaf in leaves:
                stores[leaf] = open_leaf_store(node / INDEX_DIR, leaf, index)
        except Exception:
            for store in stores.values():
                store.close()
            raise
        chunks = ChunkStore.open(node / CHUNKS_FILE)
        try:
            return cls(
                stores,
                embedder or OnnxMiniLmEmbedder(),
                PatientRegistry(chunks.patients()),
                settings or RetrieveSettings(),
                chunks,
            )
        except Exception:  # another embedder's index, say: release what was opened
            for store in stores.values():
                store.close()
            chunks.close()
            raise

    def scope_names(self) -> ScopeNames:
        """The departments (leaves) this node searches, which a question may name ("in orthopaedics")."""
        return ScopeNames(depts=tuple(self.stores))

    def _choices(self, resolution: Resolution | None) -> tuple[PatientChoice, ...]:
        """The patients the question's unsettled names may mean (no policies here: every one), with their node
        and the leaves (departments) that hold them."""
        if resolution is None or not resolution.unsettled:
            return ()
        choices = patient_choices(resolution.unsettled, self.registry)
        if self.chunks is None:
            return choices
        org = next((row[0] for row in self.chunks.breakdown()), "")
        return tuple(
            choice.model_copy(
                update={
                    "org": org,
                    "depts": tuple(d for d in self.stores if self.chunks.count(subject_id=choice.subject_id, dept=d)),
                }
            )
            for choice in choices
        )

    def close(self) -> None:
        """Release the stores."""
        for store in self.stores.values():
            store.close()
        if self.chunks is not None:
            self.chunks.close()

    def retrieve(
        self,
        question: str,
        filters: SearchFilters | None = None,
        k: int | None = None,
        fetch_k: int | None = None,
        mode: Mode | None = None,
    ) -> Retrieval:
        """Search for ``question`` within ``filters``; see the module docstring."""
        settings = self.settings
        k = k or settings.k
        fetch_k = max(fetch_k or settings.fetch_k, k)
        chosen_mode = mode or settings.mode
        embed = TimedEmbedder(self.embedder)
        started = time.perf_counter()
        kinds = KindReader(self.embedder) if settings.kind_by_meaning else None
        plan = plan_query(question, filters, settings, self.registry, self.chunks, embed, kinds=kinds)
        timings = {"understand": time.perf_counter() - started - embed.seconds, "embed": embed.seconds}
        searched = tuple(self.stores)
        clarify = self._choices(plan.resolution)
        if clarify:
            return Retrieval(
                (),
                plan.understanding,
                plan.resolution,
                plan.filters,
                timings=timings,
                searched=searched,
                clarify=clarify,
            )
        if plan.no_such_patient:
            return Retrieval(
                (), plan.understanding, plan.resolution, plan.filters, True, timings=timings, searched=searched
            )
        started = time.perf_counter()
        names = list_names(chosen_mode, plan, settings.section_weight)
        found = gather(list(self.stores.values()), plan, names, fetch_k)
        hits, dropped = rank_candidates(found.candidates, chosen_mode, settings, k, plan.dense)
        timings["search"] = time.perf_counter() - started
        return Retrieval(
            tuple(hits),
            plan.understanding,
            plan.resolution,
            plan.filters,
            below_threshold=dropped,
            timings=timings,
            searched=searched,
            notes=plan.notes,
        )
