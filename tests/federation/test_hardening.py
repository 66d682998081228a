"""A node's defences (issue 15), on a real uvicorn server with real ID tokens: the token is checked before the body is
read, bodies are capped as they arrive, questions and lists are bounded, refusals never echo what was sent, request
rates are limited per user and per client address, and every refusal is audited."""

from __future__ import annotations

import functools
import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from clinrag.federation import node as node_module
from clinrag.federation.audit import AuditEntry, AuditLog
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.serving import RateLimiter, ThreadServer
from clinrag.settings import FederationSettings

from ..shared.federation import Federation

STROKE = "Which patients had a stroke?"
CAP = 64 * 1024


class CountingApp:
    """ASGI wrapper that counts the request-body bytes the app takes from the server (``receive``)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.received = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counted() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                self.received += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@dataclass
class Served:
    url: str
    port: int
    app: CountingApp
    audit: AuditLog

    def refusals(self) -> list[AuditEntry]:
        return [entry for entry in self.audit.entries() if entry.status not in (0, 200)]


@contextmanager
def _serve(federation: Federation, tmp_path: Path, limits: FederationSettings) -> Iterator[Served]:
    base = federation.nodes["C"]
    audit = AuditLog(tmp_path / "audit.jsonl")
    node = Node(base.config, base.tree, base.engine, base.verifier, audit)
    app = CountingApp(create_node_app(node, close_on_shutdown=False, limits=limits))
    with ThreadServer(app) as server:
        yield Served(server.url, server.port, app, audit)


@pytest.fixture
def node(federation: Federation, tmp_path: Path) -> Iterator[Served]:
    """Node C's tree behind its own app and audit log, with the default limits."""
    with _serve(federation, tmp_path, FederationSettings()) as served:
        yield served


def _auth(federation: Federation, subject: str = "C.research") -> dict[str, str]:
    return {"Authorization": f"Bearer {federation.token(subject)}"}


def _response_head(sock: socket.socket) -> bytes:
    """Read until the end of the response (the server closes) or 10 s."""
    sock.settimeout(10)
    data = b""
    while True:
        try:
            piece = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not piece:
            break
        data += piece
        if b"\r\n\r\n" in data and data.endswith(b"}"):
            break
    return data


def test_five_megabytes_without_a_token_get_401_before_the_body_is_read(node: Served) -> None:
    size = 5_000_000
    body = b'{"query": "' + b"x" * (size - 13) + b'"}'
    head = (
        f"POST /v1/retrieve HTTP/1.1\r\nHost: 127.0.0.1:{node.port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", node.port)) as sock:
        sock.sendall(head + body[:16384])  # the client has sent 16 KB of its 5 MB when it waits for the answer
        reply = _response_head(sock)
    seconds = time.perf_counter() - started
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 401"), reply[:200]
    assert b"connection: close" in rest.lower()  # announced over the cap: the rest is never read
    assert b"xxxxxxxx" not in reply
    assert len(reply) < 1000
    assert node.app.received == 0  # the app never took a byte of the body
    assert seconds < 5
    [refusal] = node.refusals()
    assert (refusal.outcome, refusal.status, refusal.client) == ("unauthenticated", 401, "127.0.0.1")
    assert refusal.question_sha256 == ""


def test_a_small_body_without_a_token_is_refused_unparsed_and_the_connection_kept(node: Served) -> None:
    with httpx.Client() as client:
        for header in ({}, {"Authorization": "Bearer not.a.jwt"}):
            reply = client.post(f"{node.url}/v1/retrieve", content=b'{"query": "aspirin", "k": "sho', headers=header)
            assert reply.status_code == 401
            assert reply.headers["www-authenticate"] == "Bearer"
            assert "connection" not in reply.headers
    assert node.app.received == 0  # not even the malformed JSON was looked at
    assert [entry.outcome for entry in node.refusals()] == ["unauthenticated", "unauthenticated"]


def test_100_kilobytes_with_a_valid_token_get_413(federation: Federation, node: Served) -> None:
    question = "stroke " * (100_000 // 7)
    url = f"{node.url}/v1/retrieve"
    announced = httpx.post(url, json={"query": question}, headers=_auth(federation), timeout=30)
    assert announced.status_code == 413
    assert announced.headers["connection"] == "close"
    assert "stroke" not in announced.text
    assert node.app.received == 0  # refused on its Content-Length

    def chunks() -> Iterator[bytes]:  # no Content-Length (chunked): counted as it arrives
        yield b'{"query": "'
        for _ in range(256):
            yield b"stroke " * 585  # 4 KB, 1 MB in all
        yield b'"}'

    streamed = httpx.post(url, content=chunks(), headers=_auth(federation), timeout=30)
    assert streamed.status_code == 413
    assert CAP < node.app.received < 512 * 1024  # stopped soon after the cap, not at the end
    refusals = node.refusals()
    assert [(entry.outcome, entry.status, entry.subject) for entry in refusals] == [
        ("too_large", 413, "C.research"),
        ("too_large", 413, "C.research"),
    ]


def test_an_over_long_question_gets_422_naming_the_field_and_rule_not_the_value(
    federation: Federation, node: Served
) -> None:
    question = "Which patient named Zebedee Quartermaine had a stroke? " * 80  # 4,480 characters
    reply = httpx.post(f"{node.url}/v1/retrieve", json={"query": question}, headers=_auth(federation), timeout=30)
    assert reply.status_code == 422
    assert reply.json() == {
        "detail": [
            {"loc": ["body", "query"], "type": "string_too_long", "msg": "String should have at most 4000 characters"}
        ]
    }
    assert "Zebedee" not in reply.text
    [refusal] = node.refusals()
    assert (refusal.outcome, refusal.status, refusal.detail) == ("invalid", 422, "query: string_too_long")
    assert "Zebedee" not in node.audit.path.read_text()


@pytest.mark.parametrize(
    ("body", "where", "rule"),
    [
        ({"query": STROKE, "filters": {"depts": ["neurology"] * 1001}}, ["body", "filters"], "too_long"),
        ({"query": STROKE, "filters": {"orgs": ["Zebedee" * 40]}}, ["body", "filters"], "string_too_long"),
        ({"query": STROKE, "mode": "Zebedee-mode"}, ["body", "mode"], "literal_error"),
        ({"query": STROKE, "Zebedee": 1}, ["body", "Zebedee"], "extra_forbidden"),
        ({"query": STROKE, "k": "Zebedee"}, ["body", "k"], "int_parsing"),
        (
            {"query": STROKE, "filters": {"start": "Zebedee"}},
            ["body", "filters", "start"],
            "datetime_from_date_parsing",
        ),
    ],
)
def test_every_list_and_field_is_bounded_and_refusals_never_echo(
    federation: Federation, node: Served, body: dict[str, Any], where: list[str], rule: str
) -> None:
    reply = httpx.post(f"{node.url}/v1/retrieve", json=body, headers=_auth(federation), timeout=30)
    assert reply.status_code == 422
    [problem] = reply.json()["detail"]
    assert (problem["loc"], problem["type"]) == (where, rule)
    assert "Zebedee" not in problem["msg"]
    assert set(problem) == {"loc", "type", "msg"}  # no input, no ctx


def test_deeply_nested_json_gets_422_not_a_crash(federation: Federation, node: Served) -> None:
    depth = 20_000
    nested = '{"query": "stroke", "filters": {"orgs": ' + "[" * depth + "]" * depth + "}}"
    assert len(nested) < CAP
    reply = httpx.post(
        f"{node.url}/v1/retrieve",
        content=nested.encode(),
        headers=_auth(federation) | {"Content-Type": "application/json"},
        timeout=30,
    )
    assert reply.status_code == 422
    assert len(reply.content) < 1000
    assert httpx.get(f"{node.url}/v1/health").status_code == 200


def test_a_flood_beyond_the_rate_gets_429_with_retry_after(
    federation: Federation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The buckets' clock stands still, so the flood is one instant however slowly a loaded machine serves it (a
    # bucket refilling is test_a_rate_limiter_refills_and_forgets_full_buckets's).
    monkeypatch.setattr(node_module, "RateLimiter", functools.partial(RateLimiter, clock=lambda: 0.0))
    limits = FederationSettings(client_rate=0.5, client_burst=5, user_rate=0.5, user_burst=3)
    with _serve(federation, tmp_path, limits) as node, httpx.Client(timeout=30) as client:
        url = f"{node.url}/v1/retrieve"
        anonymous = [client.post(url, json={"query": STROKE}) for _ in range(8)]
        assert [reply.status_code for reply in anonymous] == [401] * 5 + [429] * 3
        assert [reply.headers["retry-after"] for reply in anonymous[5:]] == ["2"] * 3  # one request at 0.5 a second
        # The address is out of unverified requests; a user with a valid token is not.
        mine = [client.post(url, json={"query": STROKE, "k": 2}, headers=_auth(federation)) for _ in range(4)]
        assert [reply.status_code for reply in mine] == [200, 200, 200, 429]
        assert mine[-1].headers["retry-after"] == "2"
        other = client.post(url, json={"query": STROKE, "k": 2}, headers=_auth(federation, "A.phys.neur"))
        assert other.status_code == 200  # another user has their own bucket
    outcomes = [(entry.outcome, entry.status) for entry in node.audit.entries()]
    assert outcomes == [
        *[("unauthenticated", 401)] * 5,
        *[("rate_limited", 429)] * 3,
        *[("ok", 200)] * 3,
        ("rate_limited", 429),
        ("ok", 200),
    ]
    assert node.audit.verify() == len(outcomes)


def test_every_refusal_is_audited_with_ids_only(federation: Federation, node: Served) -> None:
    url = f"{node.url}/v1/retrieve"
    secret = "What did Zebedee Quartermaine's MRI show?"
    httpx.post(url, json={"query": secret})
    httpx.post(url, json={"query": secret}, headers={"Authorization": "Bearer a.b.c"})
    httpx.post(url, json={"query": secret * 2000}, headers=_auth(federation), timeout=30)
    httpx.post(url, json={"query": secret, "k": 0}, headers=_auth(federation), timeout=30)
    assert [(entry.outcome, entry.status) for entry in node.refusals()] == [
        ("unauthenticated", 401),
        ("unauthenticated", 401),
        ("too_large", 413),
        ("invalid", 422),
    ]
    text = node.audit.path.read_text()
    assert "Zebedee" not in text
    assert node.audit.verify() == 4
    refused = node.refusals()
    assert {entry.client for entry in refused} == {"127.0.0.1"}
    assert refused[-1].detail == "k: greater_than_equal"
    assert json.loads(text.splitlines()[0])["status"] == 401


def test_old_audit_lines_without_a_status_still_read(tmp_path: Path) -> None:
    line = (
        '{"time":"2026-01-01T00:00:00Z","node":"A","subject":"A.phys","org":"A","role":"physician",'
        '"outcome":"ok","question_sha256":"","mode":"","searched":[],"denied":[],"returned":[],"patients":[],'
        '"detail":"","previous":"' + "0" * 64 + '"}\n'
    )
    log = AuditLog(tmp_path / "old.jsonl")
    log.path.write_text(line)
    [entry] = log.entries()
    assert (entry.status, entry.client) == (0, "")
    assert log.verify() == 1


def test_a_rate_limiter_refills_and_forgets_full_buckets() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2.0, burst=2, max_keys=2, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.5]
    now[0] = 0.5
    assert limiter.take("a") == 0.0
    assert limiter.take("b") == 0.0
    now[0] = 10.0
    assert limiter.take("c") == 0.0  # a third key: the full buckets were forgotten
    assert limiter.take("a") == 0.0


def test_the_module_examples_hold() -> None:
    import doctest

    from clinrag.federation import audit, protocol, serving

    for module in (audit, protocol, serving):
        assert doctest.testmod(module).failed == 0, module.__name__
