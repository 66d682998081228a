"""The federation root: fans a question out to every organisation in parallel, waits for each at most the timeout,
merges one global top-k, and says which organisations answered, were denied, timed out or failed.

A node that is down, slow, answers garbage, answers too much, or was built with another embedder costs a flag in
the result, never the result: the root answers within the timeout plus its own merge time.

Each node returns every candidate with its score in each retriever's list; the root merges each list across
organisations by its own score and fuses once, so with policies off and dense retrieval the federation returns
exactly what one index over all the chunks would.

Names: a name some organisation matched only near its patients (a surname alone, another given name, a swapped or
misspelt name), and that no organisation matched in full, or a full name that different patients share, makes the
result a question back — ``Retrieval.clarify`` lists the patients, across organisations, the asker may retrieve —
with no hits at all.

Sensitive passages: each node counts the candidates its document policy refused only because of their sensitivity
label (`RetrieveResponse.withheld_sensitive`); the root adds the counts of the organisations whose candidates it
merged (`FederatedRetrieval.withheld_sensitive`), so an answer can say that sensitive passages were withheld.

Library notes: a library node says how it read the question (`RetrieveResponse.notes`: words read as its own,
filters applied or dropped); the root keeps every organisation's notes, each once, in `Retrieval.notes`, so the
answer says them (`Answer.filter_notes`) as it does on one node.

Libraries: an organisation listed with ``kind = "library"`` holds literature and guidelines, no patients. It is asked
only the questions that ask the literature ("trials", "guidelines", "Smith et al."; `asked_about`), and the hospitals
only those about patients or naming no source — both when a question asks both (`retrieve.sources.sources_asked`); an
organisation not asked is not in the result. When some hospital resolves a patient the question names, a library's
candidates are kept only if the question asks the literature by name: the answer gives them a part of their own. A
search given ``families`` asks only the organisations holding those kinds of source, whatever the question says (the
literature part of a population question: `federation.source_searcher`).

Example:
    >>> root = FederationRoot(load_federation(Path("federation.toml")), RetrieveSettings(), "minilm")  # doctest: +SKIP
    >>> result = root.search("Who had a stroke?", token)  # doctest: +SKIP
    >>> [(org.org, org.status) for org in result.orgs]  # doctest: +SKIP
    [('A', 'answered'), ('B', 'answered'), ('C', 'denied')]
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import threading
import time
import tomllib
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

import aiohttp
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clinrag.errors import ConfigError
from clinrag.federation.protocol import API_VERSION, MAX_NOTES, NameMatch, RetrieveRequest, RetrieveResponse
from clinrag.index.embed import Vectors
from clinrag.index.store import Mode
from clinrag.retrieve.candidates import (
    Candidates,
    candidates_from_hits,
    decode_vector,
    encode_vector,
    merge_candidates,
    rank_candidates,
)
from clinrag.retrieve.hybrid import Retrieval, dense_text, merge_choices
from clinrag.retrieve.kind_meaning import KNOWN_KINDS, with_kind
from clinrag.retrieve.query import QueryUnderstanding, understand
from clinrag.retrieve.scope import SPECIALTY_VARIANTS, ScopeNames
from clinrag.retrieve.sources import SourceFamily, asks_literature, sources_asked
from clinrag.settings import FederationSettings, RetrieveSettings
from clinrag.types import PatientChoice, SearchFilters


class OrgEndpoint(BaseModel):
    """One organisation of the federation: its node and the identity provider its users sign in with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    org: str = Field(min_length=1)
    name: str = ""
    url: str = Field(min_length=1, description="Base URL of the organisation's node.")
    issuer: str = Field("", description="The organisation's OpenID Connect issuer (where its users sign in).")
    kind: Literal["records", "library"] = Field(
        "records", description="A hospital's records, or a library of literature and guidelines (no patients)."
    )

    @property
    def library(self) -> bool:
        """A library: asked only the questions that ask the literature (`retrieve.sources.sources_asked`)."""
        return self.kind == "library"

    @property
    def label(self) -> str:
        """``Hospital A`` or the org code."""
        return self.name or self.org


class _FederationFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    orgs: list[OrgEndpoint]


def hospitals(orgs: Sequence[OrgEndpoint]) -> list[OrgEndpoint]:
    """The organisations of ``orgs`` that hold patients' records (what population and similar-patient questions ask).

    Example:
        >>> [o.org for o in hospitals([OrgEndpoint(org="A", url="u"), OrgEndpoint(org="L", url="v", kind="library")])]
        ['A']
    """
    return [org for org in orgs if not org.library]


def asked_about(
    question: str, orgs: Sequence[OrgEndpoint], families: frozenset[SourceFamily] | None = None
) -> list[OrgEndpoint]:
    """The organisations of ``orgs`` that hold the kinds of source ``question`` asks: libraries only when it asks the
    literature, hospitals when it asks about patients or names no source; every organisation when
    none holds what it asks (a federation of one library is asked everything). ``families`` given: the organisations
    holding those kinds, whatever the question says, and none when no organisation holds them (the literature part
    of a population question, `literature_searcher`).

    Example:
        >>> orgs = [OrgEndpoint(org="A", url="u"), OrgEndpoint(org="L", url="v", kind="library")]
        >>> [o.org for o in asked_about("What do trials say about apixaban?", orgs)]
        ['L']
        >>> [o.org for o in asked_about("How many patients had a stroke?", orgs, frozenset({SourceFamily.LITERATURE}))]
        ['L']
    """
    if families is not None:
        return [org for org in orgs if family(org) in families]
    asked = sources_asked(question)
    return [org for org in orgs if family(org) in asked] or list(orgs)


def family(org: OrgEndpoint) -> SourceFamily:
    """The kind of source ``org`` holds: the literature for a library, the records for a hospital.

    Example:
        >>> str(family(OrgEndpoint(org="L", url="v", kind="library")))
        'literature'
    """
    return SourceFamily.LITERATURE if org.library else SourceFamily.RECORDS


def load_federation(path: Path) -> list[OrgEndpoint]:
    """The organisations listed in a federation file (``[[orgs]]`` with org, name, url, issuer and ``kind = "library"``
    for a library).

    Raises:
        ConfigError: naming the file when it is missing or malformed.
    """
    try:
        parsed = _FederationFile.model_validate(tomllib.loads(path.read_text()))
    except FileNotFoundError:
        raise ConfigError(f"{path}: federation file not found; 'make demo' writes the demo's") from None
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ConfigError(f"{path}: not a valid federation file ({exc})") from None
    if len({org.org for org in parsed.orgs}) != len(parsed.orgs):
        raise ConfigError(f"{path}: an organisation is listed twice")
    return parsed.orgs


class OrgStatus(StrEnum):
    """How one organisation took part in a search."""

    ANSWERED = "answered"
    DENIED = "denied"
    UNAUTHENTICATED = "unauthenticated"
    TIMEOUT = "timeout"
    UNREACHABLE = "unreachable"
    FAILED = "failed"
    INCOMPATIBLE = "incompatible"


@dataclass
class OrgResult:
    """One organisation's part: status, a short reason, its reply (when usable) and how long it took."""

    org: OrgEndpoint
    status: OrgStatus
    detail: str = ""
    response: RetrieveResponse | None = None
    seconds: float = 0.0

    @property
    def usable(self) -> bool:
        """The organisation answered with results the root can merge."""
        return self.response is not None and self.status in (OrgStatus.ANSWERED, OrgStatus.DENIED)


@dataclass
class FederatedRetrieval:
    """The global result and every organisation's part in it. ``withheld_sensitive`` adds up the candidates the
    organisations whose candidates were merged refused only for their sensitivity label (none when the asker is
    asked which patient a name means)."""

    retrieval: Retrieval
    orgs: list[OrgResult] = field(default_factory=list)
    withheld_sensitive: int = 0


@dataclass
class _Usable:
    """A usable reply with its candidates and query vector decoded."""

    reply: RetrieveResponse
    candidates: Candidates
    query_vector: Vectors | None
    library: bool = False


@dataclass
class _Arrived:
    """An organisation's result and, when its reply is usable, that reply decoded."""

    result: OrgResult
    usable: _Usable | None = None


class FederationRoot:
    """Fans searches out to ``orgs``; ``embedder_id`` is the embedder every node must have built its index with."""

    def __init__(
        self,
        orgs: Sequence[OrgEndpoint],
        settings: RetrieveSettings,
        embedder_id: str,
        federation: FederationSettings | None = None,
        embed: Callable[[str], Vectors] | None = None,
    ) -> None:
        self.orgs = list(orgs)
        self.embed = embed
        self.settings = settings
        self.embedder_id = embedder_id
        self.federation = federation or FederationSettings()
        # Kept-alive connections: one client per event loop (aiohttp sessions are bound to the loop they run on), so a
        # search does not pay for a new client, a TLS context and new TCP connections to every node.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aiohttp.ClientSession] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: weakref.finalize[..., FederationRoot] | None = None

    def search(
        self,
        question: str,
        token: str,
        filters: SearchFilters | None = None,
        k: int | None = None,
        fetch_k: int | None = None,
        mode: Mode | None = None,
        families: frozenset[SourceFamily] | None = None,
    ) -> FederatedRetrieval:
        """`asearch` for synchronous callers (the CLI, the answerer), from any thread.

        The question is embedded in the calling thread; the exchange runs on the root's own event loop (a daemon
        thread started on first use), whose connections to the nodes stay open between searches."""
        embedded = self._embedded(question, filters)
        started = time.perf_counter()
        future = asyncio.run_coroutine_threadsafe(
            self._search(question, token, filters, k, fetch_k, mode, embedded, started, families), self._io_loop()
        )
        return future.result()

    def _embedded(self, question: str, filters: SearchFilters | None) -> tuple[str, Vectors] | None:
        """The text the nodes will embed for ``question`` unless it names a patient (`dense_text`: a question about
        a set of patients is embedded as its topic), and its vector; None without an embedder."""
        if self.embed is None:
            return None
        named = filters is not None and bool(filters.subject_ids)
        text = dense_text(question, self.settings, patients_named=named)
        return text, self.embed(text)

    def close(self) -> None:
        """Close the kept-alive connections and stop the root's event loop (a later search starts them again).

        A root that is garbage collected, or still open when the interpreter exits, is closed the same way."""
        with self._lock:
            stop, self._stop, self._loop = self._stop, None, None
        if stop is not None:
            stop()

    async def aclose(self) -> None:
        """Close the connections of the running event loop (for callers of `asearch` in their own loop, before
        that loop ends; `close` releases the root's own loop)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _io_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="federation-root", daemon=True)
                thread.start()
                self._loop = loop
                # Not a method of self, so that it does not keep the root alive.
                self._stop = weakref.finalize(self, _stop_loop, loop, thread, self._clients)
            return self._loop

    def _client(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.closed:
            # Connections idle for less than uvicorn's keep-alive (5 s), so that a node never closes one the root
            # is about to reuse; sixteen per organisation, for searches that overlap.
            connector = aiohttp.TCPConnector(limit=max(len(self.orgs), 1) * 16, keepalive_timeout=2.0, ssl=_tls())
            # No client timeout: each organisation's exchange is bounded by `asyncio.wait_for` in `_ask`.
            client = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
            self._clients[loop] = client
        return client

    async def asearch(
        self,
        question: str,
        token: str,
        filters: SearchFilters | None = None,
        k: int | None = None,
        fetch_k: int | None = None,
        mode: Mode | None = None,
        families: frozenset[SourceFamily] | None = None,
    ) -> FederatedRetrieval:
        """Ask every organisation at once with the user's ``token``; merge what arrives in time. ``families``: ask
        only the organisations holding those kinds of source (`asked_about`)."""
        started = time.perf_counter()
        # Embedded once here, so that no node spends its CPU on it (a node embeds only a text without the name of a
        # patient it holds).
        return await self._search(
            question, token, filters, k, fetch_k, mode, self._embedded(question, filters), started, families
        )

    async def _search(
        self,
        question: str,
        token: str,
        filters: SearchFilters | None,
        k: int | None,
        fetch_k: int | None,
        mode: Mode | None,
        embedded: tuple[str, Vectors] | None,
        started: float,
        families: frozenset[SourceFamily] | None = None,
    ) -> FederatedRetrieval:
        k = k or self.settings.k
        fetch_k = max(fetch_k or self.settings.fetch_k, k)
        chosen: Mode = mode or self.settings.mode
        request = RetrieveRequest(
            query=question,
            k=k,
            fetch_k=fetch_k,
            mode=chosen,
            filters=filters or SearchFilters(),
            candidates=True,
            prune=True,
            query_vector=encode_vector(embedded[1]) if embedded is not None else None,
            query_vector_text=embedded[0] if embedded is not None and embedded[0] != question else None,
        )
        body = request.model_dump_json().encode()
        client = self._client()
        asked = asked_about(question, self.orgs, families)
        asks = [asyncio.ensure_future(self._ask(client, org, body, token)) for org in asked]
        await asyncio.sleep(0)  # the requests go out first; the question is understood while the nodes search
        understanding = understand(question, expand_abbreviations=self.settings.expand_abbreviations)
        arrived = list(await asyncio.gather(*asks))
        fanned_out = time.perf_counter() - started
        literature = asks_literature(question) or (families is not None and SourceFamily.LITERATURE in families)
        retrieval, withheld = self._merge(request, understanding, arrived, literature)
        retrieval.timings.update({"fan_out": fanned_out, "total": time.perf_counter() - started})
        return FederatedRetrieval(retrieval, [part.result for part in arrived], withheld)

    async def _ask(self, client: aiohttp.ClientSession, org: OrgEndpoint, body: bytes, token: str) -> _Arrived:
        """One organisation's result and, when usable, its candidates, rebuilt as soon as its reply arrives (while
        slower organisations are still searching)."""
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(self._exchange(client, org, body, token), self.federation.timeout)
        except TimeoutError:
            result = OrgResult(org, OrgStatus.TIMEOUT, f"no answer within {self.federation.timeout:g} s")
        except (aiohttp.ClientError, OSError) as exc:
            result = OrgResult(org, OrgStatus.UNREACHABLE, type(exc).__name__)
        result.seconds = time.perf_counter() - started
        reply = result.response
        if not result.usable or reply is None:
            return _Arrived(result)
        try:
            vectors = {cid: decode_vector(text) for cid, text in reply.vectors.items()}
            query_vector = decode_vector(reply.query_vector) if reply.query_vector else None
        except ValueError:  # not base64 of float32s: a reply that parsed but cannot be used
            return _Arrived(OrgResult(org, OrgStatus.FAILED, "malformed reply", seconds=result.seconds))
        found = candidates_from_hits(reply.candidates, vectors, reply.ranked_only)
        return _Arrived(result, _Usable(reply, found, query_vector, org.library))

    async def _exchange(self, client: aiohttp.ClientSession, org: OrgEndpoint, request: bytes, token: str) -> OrgResult:
        try:
            body = await post_to_node(client, org, "retrieve", request, token, self.federation.max_response_bytes)
        except ReplyError as exc:
            return OrgResult(org, OrgStatus.UNAUTHENTICATED if exc.unauthenticated else OrgStatus.FAILED, exc.reason)
        try:
            response = RetrieveResponse.model_validate_json(body)
        except ValueError:  # pydantic's ValidationError (bad JSON or a bad message) is a ValueError
            return OrgResult(org, OrgStatus.FAILED, "malformed reply")
        if response.embedder != self.embedder_id:
            detail = f"index built with {response.embedder}, not {self.embedder_id}"
            return OrgResult(org, OrgStatus.INCOMPATIBLE, detail)
        if response.node != org.org:
            return OrgResult(org, OrgStatus.FAILED, f"answered as {response.node!r}, expected {org.org!r}")
        if response.denied and not response.leaves_searched and not response.errors:
            # Refused at its root router, or at every department below it: nothing of it was searched.
            return OrgResult(org, OrgStatus.DENIED, "denied by policy", response)
        return OrgResult(org, OrgStatus.ANSWERED, "", response)

    def _merge(
        self,
        request: RetrieveRequest,
        understanding: QueryUnderstanding,
        arrived: list[_Arrived],
        literature_asked: bool = False,
    ) -> tuple[Retrieval, int]:
        """The global result, and how many sensitive passages the organisations it merged withheld;
        ``literature_asked``: the question asks the literature by name, so a library's part stays beside a named
        patient's records."""
        usable = [part.usable for part in arrived if part.usable is not None]
        results = [part.result for part in arrived]
        searched = tuple(result.org.org for result in results if result.status == OrgStatus.ANSWERED)
        denied = tuple(_denied(results))
        unreachable = tuple(
            f"{result.org.org} ({result.status.value}: {result.detail})" for result in results if not result.usable
        )
        clarify = unsettled([match for part in usable for match in part.reply.names])
        notes = tuple(dict.fromkeys(note for part in usable for note in part.reply.notes))[:MAX_NOTES]
        if clarify:  # the asker is asked which patient: nothing is retrieved
            asked = Retrieval(
                (),
                understanding,
                None,
                request.filters,
                timings={},
                searched=searched,
                denied=denied,
                unreachable=unreachable,
                clarify=clarify,
                notes=notes,
            )
            return asked, 0
        # A patient the question names, resolved at some organisation, is the only patient the answer may be about:
        # organisations that do not hold them searched without a patient filter, so their candidates are dropped;
        # and when some organisation read a person's name that none resolved, no candidate is about that person.
        # A library holds no patients: its citations stay only when the question asked the literature by name ("What
        # do the guidelines recommend for Ada Stone's atrial fibrillation?"), answered in a part of their own; a
        # question about a patient that asked neither ("what was ada stone given") keeps to her records.
        named = any(part.reply.named_patient for part in usable)
        recognised = any(part.reply.names_person for part in usable)
        if named or recognised:
            usable = [part for part in usable if part.reply.named_patient or (part.library and literature_asked)]
        understanding = _with_kind_read_by(understanding, [part.reply for part in usable])
        query_vector = next((part.query_vector for part in usable if part.query_vector is not None), None)
        merged = merge_candidates([part.candidates for part in usable], request.fetch_k)
        hits, dropped = rank_candidates(merged, request.mode, self.settings, request.k, query_vector)
        searching = [part.reply for part in usable if part.reply.searched]
        no_such_patient = not hits and (
            (recognised and not named) or (bool(searching) and all(reply.no_such_patient for reply in searching))
        )
        retrieval = Retrieval(
            tuple(hits),
            understanding,
            None,
            request.filters,
            no_such_patient=no_such_patient,
            below_threshold=dropped,
            timings={},
            searched=searched,
            denied=denied,
            unreachable=unreachable,
            notes=notes,
        )
        return retrieval, sum(part.reply.withheld_sensitive for part in usable)


def _stop_loop(
    loop: asyncio.AbstractEventLoop,
    thread: threading.Thread,
    clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aiohttp.ClientSession],
) -> None:
    """Close the session of the root's own loop, then stop the loop and its thread."""
    client = clients.pop(loop, None)
    if threading.current_thread() is thread:  # collected on its own loop: it cannot wait for itself
        loop.call_soon(loop.stop)
        return
    if client is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(client.close(), loop).result(timeout=5)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()


WITHHELD_REMEMBERED = 64
"""Searches of a `FederatedSearcher` whose withheld counts are remembered for `FederatedSearcher.withheld_after`."""

_READ_CHUNK = 64 * 1024
"""Bytes read from a reply at a time (the size limit is checked after each)."""


class ReplyError(Exception):
    """A node's reply that is not read: the node refused the sign-in (``unauthenticated``), answered another HTTP
    status than 200, or more than the size limit; the message says which."""

    def __init__(self, reason: str, unauthenticated: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unauthenticated = unauthenticated


async def post_to_node(
    client: aiohttp.ClientSession, org: OrgEndpoint, path: str, body: bytes, token: str, limit: int
) -> bytearray:
    """POST ``body`` (JSON) to ``/v1/PATH`` of ``org``'s node with the user's ``token``; the reply's body, read a
    piece at a time and never more than ``limit`` bytes of it.

    Raises:
        ReplyError: the sign-in refused (401), another status than 200, or a reply over ``limit`` bytes (announced
            or as it arrives).
        aiohttp.ClientError, OSError: the node could not be reached.
    """
    url = f"{org.url.rstrip('/')}/{API_VERSION}/{path}"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    async with client.post(url, data=body, headers=headers, allow_redirects=False) as reply:
        if reply.status == 401:
            raise ReplyError("the node did not accept the sign-in", unauthenticated=True)
        if reply.status != 200:
            raise ReplyError(f"HTTP {reply.status}")
        declared = reply.content_length
        if declared is not None and declared > limit:
            raise ReplyError(f"reply larger than {limit} bytes")
        received = bytearray()
        async for piece in reply.content.iter_chunked(_READ_CHUNK):
            received += piece
            if len(received) > limit:
                raise ReplyError(f"reply larger than {limit} bytes")
    return received


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (tens of ms), too slow for every search."""
    return ssl.create_default_context()


def unsettled(names: Sequence[NameMatch]) -> tuple[PatientChoice, ...]:
    """The patients to ask the asker to choose between, from every organisation's `NameMatch`es: those of a name
    matched only near (a surname alone, another given name, a swapped or misspelt name) that no organisation
    matched in full, and those of a full name that different patients share. Empty when every name is settled.

    Example:
        >>> tracie = PatientChoice(subject_id=1, name="Tracie Edwards", org="B")
        >>> [c.name for c in unsettled([NameMatch(start=4, end=21, full=False, choices=[tracie])])]
        ['Tracie Edwards']
        >>> alexandra = PatientChoice(subject_id=2, name="Alexandra Edwards", org="A")
        >>> unsettled([NameMatch(start=4, end=21, full=False, choices=[tracie]),
        ...            NameMatch(start=4, end=21, full=True, choices=[alexandra])])
        ()
    """
    full = [match for match in names if match.full]
    offered: list[PatientChoice] = []
    for match in names:
        if not match.full and not any(match.start < other.end and other.start < match.end for other in full):
            offered += match.choices
    spans: dict[tuple[int, int], list[PatientChoice]] = {}
    for match in full:
        spans.setdefault((match.start, match.end), []).extend(match.choices)
    for choices in spans.values():
        if len({choice.subject_id for choice in choices}) > 1:
            offered += choices
    return merge_choices(offered)


def _denied(results: Sequence[OrgResult]) -> list[str]:
    denied = []
    for result in results:
        if result.response is None:
            continue
        for denial in result.response.denied:
            denied.append(denial.path)
    return denied


class FederatedSearcher:
    """The root as an answerer's searcher, for one signed-in user (their token travels to every node).

    Example:
        >>> answerer = Answerer(FederatedSearcher(root, token), AnswerSettings())  # doctest: +SKIP
    """

    def __init__(self, root: FederationRoot, token: str, mode: Mode | None = None) -> None:
        self.root = root
        self.token = token
        self.mode = mode
        self.last: FederatedRetrieval | None = None
        self.searches = 0
        """Searches made so far (a mark for `withheld_after`)."""
        self._withheld: deque[tuple[int, int]] = deque(maxlen=WITHHELD_REMEMBERED)

    def withheld_after(self, mark: int) -> int:
        """The most sensitive passages any search after the ``mark``-th withheld (an answer may search more than
        once — its question, then a patient's sections — and the counts of one node's searches may overlap, so they
        are not added up: the answer says "at least" this many).

        Example:
            >>> searcher = FederatedSearcher(root, token)  # doctest: +SKIP
            >>> mark = searcher.searches; _ = searcher.retrieve("Any psychiatric history?")  # doctest: +SKIP
            >>> searcher.withheld_after(mark)  # doctest: +SKIP
            2
        """
        return max((count for number, count in self._withheld if number > mark), default=0)

    def scope_names(self) -> ScopeNames:
        """The federation's organisations (code → label, "Hospital A") and the specialties a question may name."""
        return ScopeNames(orgs={org.org: org.label for org in self.root.orgs}, depts=tuple(SPECIALTY_VARIANTS))

    def retrieve(
        self,
        question: str,
        filters: SearchFilters | None = None,
        k: int | None = None,
        families: frozenset[SourceFamily] | None = None,
    ) -> Retrieval:
        """The federated retrieval of ``question`` (``families``: only from the organisations holding those kinds of
        source); the organisations' statuses stay in `last`."""
        self.last = self.root.search(question, self.token, filters, k, mode=self.mode, families=families)
        self.searches += 1
        self._withheld.append((self.searches, self.last.withheld_sensitive))
        return self.last.retrieval


def _with_kind_read_by(understanding: QueryUnderstanding, replies: Sequence[RetrieveResponse]) -> QueryUnderstanding:
    """``understanding`` with the kind of fact the nodes read by meaning (they hold the embedder), when the phrasing
    rules read none here or found several the nodes settled among: the answer step then picks the lines of that
    kind."""
    read = next((reply for reply in replies if reply.kind_by_meaning in KNOWN_KINDS), None)
    if read is None or read.kind_by_meaning is None or read.kind_by_meaning == understanding.fact_kind:
        return understanding
    if understanding.fact_kind is not None and read.kind_by_meaning not in understanding.kind_candidates:
        return understanding
    return with_kind(understanding, read.kind_by_meaning, read.kind_similarity)
