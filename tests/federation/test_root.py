"""The root: parallel fan-out with real tokens, one global top-k, and flags — never failures — for organisations
that are denied, dead, slow, garbled, oversized or built with another embedder."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgEndpoint, OrgStatus
from clinrag.federation.serving import free_port
from clinrag.generate.answer import Answerer
from clinrag.population.query import PopulationQuery
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation


def _root(orgs: list[OrgEndpoint], timeout: float = 30.0) -> FederationRoot:
    settings = FederationSettings(timeout=timeout, max_response_bytes=2_000_000)
    return FederationRoot(orgs, RetrieveSettings(), EMBEDDER.id, settings)


def test_a_physician_gets_a_global_top_k_with_statuses(federation: Federation) -> None:
    result = _root(federation.orgs).search("hospital course", federation.token("A.phys"), k=8)
    statuses = {org.org.org: org.status for org in result.orgs}
    # C's router lets A.phys in, but every department below it refuses: C is denied, not answered.
    assert statuses == {"A": OrgStatus.ANSWERED, "B": OrgStatus.ANSWERED, "C": OrgStatus.DENIED}
    hits = result.retrieval.hits
    assert len(hits) == 8
    assert [hit.rank for hit in hits] == list(range(1, 9))
    assert {hit.chunk.org for hit in hits} <= {"A", "B"}  # C's leaves are denied to A.phys
    assert set(result.retrieval.denied) == {"C/admissions", "C/neurology"}
    assert len({hit.chunk.chunk_id for hit in hits}) == len(hits)


def test_a_researcher_is_denied_at_two_gates_and_answered_by_c(federation: Federation) -> None:
    result = _root(federation.orgs).search("weakness after a stroke", federation.token("C.research"), k=5)
    statuses = {org.org.org: org.status for org in result.orgs}
    assert statuses == {"A": OrgStatus.DENIED, "B": OrgStatus.DENIED, "C": OrgStatus.ANSWERED}
    assert all(hit.chunk.org == "C" for hit in result.retrieval.hits)
    assert result.retrieval.hits


def test_a_forged_or_missing_token_gets_nothing_anywhere(federation: Federation) -> None:
    forged = federation.token("A.phys")[:-8] + "AAAAAAAA"
    for token in (forged, "not-a-token"):
        result = _root(federation.orgs).search("hospital course", token)
        assert {org.status for org in result.orgs} == {OrgStatus.UNAUTHENTICATED}
        assert result.retrieval.hits == ()


class _Misbehaving(BaseHTTPRequestHandler):
    behaviour: Callable[[BaseHTTPRequestHandler], None]

    def do_POST(self) -> None:  # the root's only request
        type(self).behaviour(self)

    def log_message(self, *args: object) -> None:
        pass


def _send(handler: BaseHTTPRequestHandler, body: bytes, declared: int | None = None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(declared if declared is not None else len(body)))
    handler.end_headers()
    handler.wfile.write(body)


_RELEASED = threading.Event()
"""Set when the `misbehaving` servers stop: until then the hanging one never answers."""


def _hang(handler: BaseHTTPRequestHandler) -> None:
    _RELEASED.wait(300)


def _garbage(handler: BaseHTTPRequestHandler) -> None:
    _send(handler, b'{"node": "X", "hits": [ this is not json')


def _huge(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()  # no length: the root must stop reading at its limit
    try:
        for _ in range(100):
            handler.wfile.write(b" " * 100_000)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _other_embedder(handler: BaseHTTPRequestHandler) -> None:
    _send(handler, json.dumps({"node": "E", "embedder": "other-model:768", "hits": []}).encode())


def _bad_vectors(handler: BaseHTTPRequestHandler) -> None:
    """A well-formed reply from the right embedder whose vectors are not base64 of float32s."""
    reply = {"node": "V", "embedder": EMBEDDER.id, "searched": ["V"], "vectors": {"x": "abc"}, "query_vector": "%%"}
    _send(handler, json.dumps(reply).encode())


@pytest.fixture
def misbehaving() -> Iterator[dict[str, str]]:
    """Loopback servers that hang, garble, flood, answer with another embedder or with vectors that do not decode;
    and a port nobody serves."""
    servers = []
    urls = {}
    for name, behaviour in {"H": _hang, "G": _garbage, "F": _huge, "E": _other_embedder, "V": _bad_vectors}.items():
        handler = type(f"Handler{name}", (_Misbehaving,), {"behaviour": staticmethod(behaviour)})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        urls[name] = f"http://127.0.0.1:{server.server_address[1]}"
    urls["D"] = f"http://127.0.0.1:{free_port()}"
    _RELEASED.clear()
    yield urls
    _RELEASED.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def test_bad_nodes_cost_a_flag_never_the_answer(federation: Federation, misbehaving: dict[str, str]) -> None:
    orgs = [*federation.orgs, *(OrgEndpoint(org=name, url=url) for name, url in misbehaving.items())]
    # Long enough for a healthy node on a loaded machine; H never answers while the test runs.
    timeout = 5.0
    started = time.perf_counter()
    result = _root(orgs, timeout).search("hospital course", federation.token("B.phys"), k=5)
    elapsed = time.perf_counter() - started
    assert elapsed < timeout + 10, elapsed  # H was given up at the timeout, not waited for
    statuses = {org.org.org: org.status for org in result.orgs}
    assert statuses["H"] == OrgStatus.TIMEOUT
    assert statuses["G"] == OrgStatus.FAILED
    assert statuses["F"] == OrgStatus.FAILED
    assert statuses["E"] == OrgStatus.INCOMPATIBLE
    assert statuses["V"] == OrgStatus.FAILED
    assert statuses["D"] == OrgStatus.UNREACHABLE
    assert statuses["A"] == statuses["B"] == OrgStatus.ANSWERED
    assert len(result.retrieval.hits) == 5
    assert {hit.chunk.org for hit in result.retrieval.hits} <= {"A", "B"}
    assert {entry.split(" ")[0] for entry in result.retrieval.unreachable} == {"H", "G", "F", "E", "V", "D"}


def test_the_answerer_names_who_was_searched_denied_and_unreachable(
    federation: Federation, misbehaving: dict[str, str]
) -> None:
    orgs = [*federation.orgs, OrgEndpoint(org="D", url=misbehaving["D"])]
    searcher = FederatedSearcher(_root(orgs), federation.token("A.admin"))
    answer = Answerer(searcher, AnswerSettings()).answer("What did the colonoscopy of Zoltan Kerekes show?")
    assert answer.abstained
    assert answer.abstention is not None
    assert "A/medicine" in answer.abstention.denied
    assert any(entry.startswith("D ") for entry in answer.abstention.unreachable)
    assert "Denied by policy" in answer.text


def test_the_population_counter_reads_replies_as_the_root_does(
    federation: Federation, misbehaving: dict[str, str]
) -> None:
    """Both read a node's reply with `post_to_node`: garbled, oversized and refused replies are errors there."""
    settings = FederationSettings(timeout=30, max_response_bytes=2_000_000)
    orgs = [*federation.orgs[:1], *(OrgEndpoint(org=name, url=misbehaving[name]) for name in ("G", "F"))]
    query = PopulationQuery()
    parts = {part.org: part for part in FederatedCounter(orgs, federation.token("A.phys"), settings).count(query).parts}
    assert (parts["A"].status, parts["G"].reason, parts["F"].reason) == (
        "ok",
        "malformed reply",
        "reply larger than 2000000 bytes",
    )
    assert parts["G"].status == parts["F"].status == "error"
    forged = federation.token("A.phys")[:-8] + "AAAAAAAA"
    (refused,) = FederatedCounter(orgs[:1], forged, settings).count(query).parts
    assert (refused.status, refused.reason) == ("error", "the node did not accept the sign-in")
