"""The demo's access matrix, asserted whole through the real HTTP path with real tokens from each hospital's
identity provider; no returned chunk is ever one the asker's policies deny; and sensitive passages (issue 15) are
withheld from a user who may read the note they are written in, counted apart from other refusals, and said so."""

from __future__ import annotations

import httpx
import pytest

from clinrag.access.demo import DEMO_TREES, DEMO_USERS, demo_user
from clinrag.app.ask_cli import answer_json
from clinrag.federation.protocol import RetrieveRequest, RetrieveResponse
from clinrag.federation.root import FederatedSearcher, FederationRoot
from clinrag.generate.answer import Answerer
from clinrag.retrieve.hybrid import Retrieval
from clinrag.retrieve.query import understand
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings
from clinrag.types import Chunk, SearchFilters

from ..shared.federation import EMBEDDER, ORGS, Federation

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


# --- sensitive sections (issue 15) ------------------------------------------------------------------------------


def _sensitive_orthopaedic_chunk(federation: Federation) -> Chunk:
    """A passage of an orthopaedic note at A labelled sensitive at ingestion (the cohort's seed holds some: a
    psychiatric diagnosis in a knee replacement's past medical history)."""
    chunks = federation.nodes["A"].tree.chunks.chunks(dept="orthopaedics", source_kind="note")
    found = next((chunk for chunk in chunks if chunk.sensitivity and chunk.patient_name), None)
    assert found is not None, "the demo cohort should hold a sensitive passage in an orthopaedic note"
    return found


def _question(chunk: Chunk) -> str:
    return f"What is in {chunk.patient_name}'s {(chunk.section or 'note').lower()}?"


def test_a_technician_reads_the_orthopaedic_note_but_not_its_sensitive_passages(federation: Federation) -> None:
    sensitive = _sensitive_orthopaedic_chunk(federation)
    question = _question(sensitive)
    seen: dict[str, list[Chunk]] = {}
    for subject in ("A.tech.rad", "A.phys"):
        reply = RetrieveResponse.model_validate(_ask(federation, "A", federation.token(subject), question, 20).json())
        seen[subject] = [hit.chunk for hit in reply.hits]
    # The technician reads the patient's orthopaedic note ...
    assert any(chunk.subject_id == sensitive.subject_id for chunk in seen["A.tech.rad"])
    assert {chunk.dept for chunk in seen["A.tech.rad"]} == {"orthopaedics"}
    # ... but none of its sensitive passages, which a physician asking the same question is given.
    assert not any(chunk.sensitivity for chunk in seen["A.tech.rad"])
    assert sensitive.chunk_id in {chunk.chunk_id for chunk in seen["A.phys"]}
    assert sensitive.chunk_id not in {chunk.chunk_id for chunk in seen["A.tech.rad"]}


def test_withheld_sensitive_passages_are_counted_apart_from_other_refusals(federation: Federation) -> None:
    node = federation.nodes["A"]
    sensitive = _sensitive_orthopaedic_chunk(federation)
    request = RetrieveRequest(query=_question(sensitive), k=20)
    technician = node.tree.search(demo_user("A.tech.rad"), request, node.engine)
    physician = node.tree.search(demo_user("A.phys"), request, node.engine)
    admin = node.tree.search(demo_user("A.admin"), request, node.engine)
    assert technician.withheld_sensitive >= 1
    assert technician.refused_documents >= technician.withheld_sensitive
    assert physician.withheld_sensitive == 0  # a physician is withheld nothing for its label
    # The administrator may not read orthopaedic notes at all: their refusals are not for sensitivity.
    assert admin.withheld_sensitive == 0
    # Every sensitive chunk of the leaf the technician was refused is one the same chunk without a label admits.
    chunks = list(node.tree.chunks.chunks(dept="orthopaedics", subject_id=sensitive.subject_id or -1))
    labelled = [chunk for chunk in chunks if chunk.sensitivity]
    bare = [chunk.model_copy(update={"sensitivity": ()}) for chunk in labelled]
    assert not any(node.tree.can_retrieve(node.engine, demo_user("A.tech.rad"), labelled))
    assert all(node.tree.can_retrieve(node.engine, demo_user("A.tech.rad"), bare))


class _Withheld:
    """A searcher that finds nothing and says the policies withheld two sensitive passages."""

    def __init__(self) -> None:
        self.searches = 0

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        self.searches += 1
        return Retrieval((), understand(question), None, filters or SearchFilters(), searched=("A",))

    def withheld_after(self, mark: int) -> int:
        return 2 if self.searches > mark else 0


def test_an_answer_says_how_many_sensitive_passages_were_withheld() -> None:
    answer = Answerer(_Withheld(), AnswerSettings()).answer("What is Roger Barron's psychiatric history?")
    assert answer.abstained
    assert answer.withheld_sensitive == 2
    assert answer.withheld_note == "2 sensitive passages were withheld by policy."
    assert '"withheld_note": "2 sensitive passages were withheld by policy."' in answer_json(answer)


def test_the_federated_answer_says_sensitive_passages_were_withheld(federation: Federation) -> None:
    sensitive = _sensitive_orthopaedic_chunk(federation)
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    try:
        for subject, withheld in (("A.tech.rad", True), ("A.phys", False)):
            searcher = FederatedSearcher(root, federation.token(subject))
            answer = Answerer(searcher, AnswerSettings()).answer(_question(sensitive))
            assert (answer.withheld_sensitive > 0) == withheld, subject
            assert searcher.last is not None
            assert (searcher.last.withheld_sensitive > 0) == withheld, subject
    finally:
        root.close()
