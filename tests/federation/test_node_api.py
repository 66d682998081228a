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
from clinrag.types import Actor

from .conftest import EMBEDDER, Federation


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
    app = create_node_app(federation.nodes["C"], close_on_shutdown=False)
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
