"""The node's HTTP API: tokens checked by the node itself, audit of every request (ids only), manifest without
patient data, and no request — however malformed — crashes it (schemathesis over the published OpenAPI)."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import response_schema_conformance

from clinrag.federation.audit import AuditLog
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.protocol import RetrieveRequest, RetrieveResponse
from clinrag.federation.serving import ThreadServer
from clinrag.settings import FederationSettings
from clinrag.types import Actor

from ..shared.federation import EMBEDDER, Federation


def test_health_and_manifest_need_no_token_and_hold_no_patient_data(federation: Federation) -> None:
    base = federation.servers["B"].url
    assert httpx.get(f"{base}/v1/health").json() == {"status": "ok", "node": "B"}
    manifest = httpx.get(f"{base}/v1/manifest").json()
    assert manifest["node"] == "B"
    assert manifest["embedder"] == EMBEDDER.id
    assert {leaf["path"] for leaf in manifest["leaves"]} == {"B/admissions", "B/medicine", "B/cardiothoracic"}
    assert "For patient" not in str(manifest)


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer not.a.jwt", "Basic dXNlcjpwYXNz", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."],
)
def test_a_bad_or_missing_token_gets_401_and_no_data(federation: Federation, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    reply = httpx.post(f"{federation.servers['A'].url}/v1/retrieve", json={"query": "aspirin"}, headers=headers)
    assert reply.status_code in (401, 403)
    assert "hits" not in reply.json()


def test_a_token_for_another_audience_or_issuer_is_refused(federation: Federation) -> None:
    from clinrag.access.login import sign_in

    other_audience = sign_in(federation.providers["A"].issuer, "A.phys", client_id="another-app").id_token
    reply = httpx.post(
        f"{federation.servers['A'].url}/v1/retrieve",
        json={"query": "aspirin"},
        headers={"Authorization": f"Bearer {other_audience}"},
    )
    assert reply.status_code == 401
    assert "audience" in reply.json()["detail"]


def test_every_request_is_audited_with_ids_never_text(federation: Federation) -> None:
    question = "Which medications was the patient discharged on?"
    token = federation.token("B.nurse")
    reply = httpx.post(
        f"{federation.servers['A'].url}/v1/retrieve",
        json={"query": question, "k": 3},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ).json()
    httpx.post(f"{federation.servers['A'].url}/v1/retrieve", json={"query": question})  # no token
    log = AuditLog(federation.configs["A"].audit_log)
    assert log.verify() >= 2
    mine = log.query(user="B.nurse")
    assert mine
    last = mine[-1]
    assert last.org == "B"
    assert last.role == "nurse"
    assert "A/psychiatry" in last.denied
    assert set(last.returned) >= {hit["chunk"]["chunk_id"] for hit in reply["hits"]}
    assert any(entry.outcome == "unauthenticated" for entry in log.entries())
    text = log.path.read_text()
    assert question not in text
    assert "For patient" not in text
    patient = next(iter(last.patients), None)
    if patient is not None:
        assert last in log.query(patient=patient)


def test_a_pruned_reply_carries_chunks_only_for_candidates_that_can_reach_the_top_k(federation: Federation) -> None:
    url = f"{federation.servers['A'].url}/v1/retrieve"
    headers = {"Authorization": f"Bearer {federation.token('A.phys.neur')}"}
    asked = {"query": "Which patients had chest pain?", "k": 3, "fetch_k": 30, "candidates": True}
    whole = httpx.post(url, json=asked, headers=headers, timeout=30).json()
    pruned = httpx.post(url, json=asked | {"prune": True}, headers=headers, timeout=30).json()
    every = {hit["chunk"]["chunk_id"]: hit["scores"] for hit in whole["candidates"]}
    sent = {hit["chunk"]["chunk_id"]: hit["scores"] for hit in pruned["candidates"]}
    assert "hits" not in whole  # a client that merges candidates ranks them itself
    assert 3 <= len(sent) < len(every)
    assert sent | pruned["ranked_only"] == every  # each candidate once, with the same scores
    assert not set(sent) & set(pruned["ranked_only"])
    last = AuditLog(federation.configs["A"].audit_log).query(user="A.phys.neur")[-1]
    assert set(last.returned) == set(every)  # ids sent without their chunk are audited too


def test_a_known_users_search_is_answered_on_the_event_loop_a_new_token_on_a_worker_thread(
    federation: Federation, tmp_path: Path
) -> None:
    base = federation.nodes["C"]
    node = Node(base.config, base.tree, base.engine, base.verifier, AuditLog(tmp_path / "audit.jsonl"))
    threads: list[str] = []
    searched = node.retrieve

    def recording(actor: Actor, request: RetrieveRequest) -> RetrieveResponse:
        threads.append(threading.current_thread().name)
        return searched(actor, request)

    node.retrieve = recording  # type: ignore[method-assign]
    asked = {"query": "Which patients had a stroke?", "k": 3}
    with ThreadServer(create_node_app(node, close_on_shutdown=False)) as server:
        url = f"{server.url}/v1/retrieve"
        for subject in ("C.research", "C.research", "A.phys.neur", "C.research"):
            headers = {"Authorization": f"Bearer {federation.token(subject)}"}
            assert httpx.post(url, json=asked, headers=headers, timeout=30).status_code == 200
        refused = httpx.post(url, json=asked, headers={"Authorization": "Bearer a.b.c"}, timeout=30)
    assert refused.status_code == 401
    loop = f"uvicorn-{server.port}"
    # A token seen for the first time is checked on a worker thread (its issuer's keys may have to be fetched).
    assert [name == loop for name in threads] == [False, True, False, True]
    assert node.remembered(None) is None


def test_an_altered_audit_log_is_detected(federation: Federation, tmp_path: Path) -> None:
    source = federation.configs["A"].audit_log.read_text().splitlines()
    assert len(source) >= 2
    copy = AuditLog(tmp_path / "audit.jsonl")
    copy.path.write_text("\n".join([source[0].replace('"role":"', '"role":"x'), *source[1:]]) + "\n")
    with pytest.raises(Exception, match="altered"):
        copy.verify()


def test_nothing_a_client_sends_crashes_the_node(federation: Federation) -> None:
    """Schemathesis generates requests from the node's OpenAPI (valid and invalid bodies, a real token) and checks
    that none gets a server error, an undocumented status or content type, or acceptance of invalid data."""
    # The session's node C serves other tests too: this second app must not close its stores when it stops.
    # rates are tested elsewhere (test_hardening): here every generated request must reach its endpoint
    limits = FederationSettings(client_burst=100_000, user_burst=100_000)
    app = create_node_app(federation.nodes["C"], close_on_shutdown=False, limits=limits)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    headers = {"Authorization": f"Bearer {federation.token('C.research')}"}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {operation.label for operation in operations} >= {"POST /v1/retrieve", "GET /v1/manifest"}
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        def call(case: schemathesis.Case) -> None:
            # Record times are MIMIC's naive (de-identified, shifted) local times, which JSON Schema's RFC 3339
            # "date-time" format does not admit; every other check, server errors first, applies.
            case.call_and_validate(headers=headers, excluded_checks=[response_schema_conformance])

        call()


def _strings(value: object) -> list[str]:
    """Every string value (not key) in a generated body."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def test_fuzzed_bodies_unauthenticated_oversized_or_nested_are_refused_without_an_echo(
    federation: Federation, tmp_path: Path
) -> None:
    """Schemathesis generates bodies, valid and invalid, from the published OpenAPI; each is sent without a token
    (401), padded over the body cap with a valid token (413) and nested 5,000 lists deep (422), to a served node. No
    reply quotes a value the request sent; every refusal is audited."""
    import json

    from schemathesis.core import NOT_SET
    from schemathesis.generation import GenerationMode

    base = federation.nodes["C"]
    audit = AuditLog(tmp_path / "audit.jsonl")
    node = Node(base.config, base.tree, base.engine, base.verifier, audit)
    limits = FederationSettings(client_burst=100_000, user_burst=100_000)
    app = create_node_app(node, close_on_shutdown=False, limits=limits)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operation = schema["/v1/retrieve"]["POST"]
    published = json.dumps(app.openapi())
    token = {"Authorization": f"Bearer {federation.token('C.research')}", "Content-Type": "application/json"}
    sent = [0]
    with ThreadServer(app) as server, httpx.Client(timeout=30) as client:
        url = f"{server.url}/v1/retrieve"
        # what the node says whatever it is sent: a generated string that happens to be part of these ("missing ")
        # is not an echo
        fixed = " ".join(
            client.post(url, content=content, headers=headers).text
            for content, headers in ((b"", {}), (b" " * (limits.max_body_bytes + 1), token), (b"[]", token))
        )
        sent[0] += 3
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(mode))
            @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
            def call(case: schemathesis.Case) -> None:
                if case.body is NOT_SET:
                    body = b""
                elif isinstance(case.body, bytes):  # negative cases may be any bytes at all
                    body = case.body
                else:
                    body = json.dumps(case.body).encode()
                padded = body + b" " * (limits.max_body_bytes + 1 - len(body))
                nested = b'{"query": "q", "filters": {"orgs": ' + b"[" * 5000 + body + b"]" * 5000 + b"}}"
                secrets = [text for text in _strings(case.body) if len(text) >= 8 and text not in published + fixed]
                deep = 422 if len(nested) <= limits.max_body_bytes else 413
                for content, headers, status in ((body, {}, 401), (padded, token, 413), (nested, token, deep)):
                    reply = client.post(url, content=content, headers=headers)
                    sent[0] += 1
                    assert reply.status_code == status, (status, reply.text[:300])
                    assert len(reply.content) < 2000
                    assert not any(secret in reply.text for secret in secrets), (secrets, reply.text[:500])

            call()
    refused = [entry for entry in audit.entries() if entry.status in (401, 413, 422)]
    assert len(refused) == sent[0]
    assert audit.verify() == sent[0]
