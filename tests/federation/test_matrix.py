"""The demo's access matrix, asserted whole through the real HTTP path with real tokens from each hospital's
identity provider; and no returned chunk is ever one the asker's policies deny."""

from __future__ import annotations

import httpx
import pytest

from clinrag.access.demo import DEMO_TREES, DEMO_USERS, demo_user
from clinrag.federation.protocol import RetrieveResponse

from .conftest import ORGS, Federation

# ✓ allowed, × denied; per hospital: router, then its leaves in DEMO_TREES order (the table).
MATRIX = {
    "A.phys.neur": "✓✓✓✓✓✓ ✓✓✓✓ ✓✓✓",
    "A.phys": "✓✓✓✓✓✓ ✓✓✓✓ ✓××",
    "A.nurse": "✓✓✓✓✓✓ ✓✓✓✓ ✓××",
    "A.tech.rad": "✓××××✓ ✓××× ✓××",
    "A.admin": "✓✓×××× ✓××× ✓××",
    "B.phys": "✓✓✓✓✓✓ ✓✓✓✓ ×××",
    "B.nurse": "✓✓×××× ✓✓✓✓ ×××",
    "C.research": "×××××× ×××× ✓✓✓",
}


def _ask(federation: Federation, org: str, token: str, query: str = "hospital course", k: int = 5) -> httpx.Response:
    return httpx.post(
        f"{federation.servers[org].url}/v1/retrieve",
        json={"query": query, "k": k},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _row(federation: Federation, subject: str) -> str:
    cells = []
    for org in ORGS:
        reply = _ask(federation, org, federation.token(subject))
        assert reply.status_code == 200, reply.text
        searched = set(RetrieveResponse.model_validate(reply.json()).searched)
        paths = [org, *(f"{org}/{leaf}" for leaf in DEMO_TREES[org])]
        cells.append("".join("✓" if path in searched else "×" for path in paths))
    return " ".join(cells)


def test_the_whole_access_matrix_holds_over_http(federation: Federation) -> None:
    assert {user.subject for user in DEMO_USERS} == set(MATRIX)
    found = {subject: _row(federation, subject) for subject in MATRIX}
    assert found == MATRIX


def test_denials_name_the_place_and_the_policy(federation: Federation) -> None:
    reply = RetrieveResponse.model_validate(_ask(federation, "C", federation.token("A.phys")).json())
    assert reply.searched == ["C"]
    assert {denial.path for denial in reply.denied} == {"C/admissions", "C/neurology"}
    assert all(denial.reasons for denial in reply.denied)  # a policy id, or default-deny
    gate = RetrieveResponse.model_validate(_ask(federation, "A", federation.token("C.research")).json())
    assert gate.searched == []
    assert [denial.path for denial in gate.denied] == ["A"]
    assert gate.hits == []


@pytest.mark.parametrize("subject", sorted(MATRIX))
def test_no_returned_chunk_is_one_the_policies_deny(federation: Federation, subject: str) -> None:
    actor = demo_user(subject)
    for org in ORGS:
        for query in ("hospital course", "discharge medications", "What was the chief complaint?"):
            reply = RetrieveResponse.model_validate(_ask(federation, org, federation.token(subject), query, 20).json())
            chunks = [hit.chunk for hit in reply.hits]
            decisions = federation.nodes[org].engine.can_retrieve(actor, chunks)
            assert all(decision.allowed for decision in decisions)
            allowed_leaves = set(reply.searched)
            assert all(f"{org}/{chunk.dept}" in allowed_leaves for chunk in chunks)
