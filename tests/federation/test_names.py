"""Issue 14, names, through the real federation (nodes over HTTP, real tokens, the demo policies): only a full name
or an identifier selects a patient; any other name asks back which patient, listing only the patients the asker
may retrieve, and retrieves nothing at all."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from clinrag.access.demo import demo_user
from clinrag.access.policy import PolicyEngine
from clinrag.federation.audit import AuditLog
from clinrag.federation.node import Node
from clinrag.federation.protocol import RetrieveRequest
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgStatus
from clinrag.generate.answer import Answerer
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.query import understand
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, ORGS, Federation

UNUSED_GIVEN = "Zebulon"  # no patient of the demo cohort has this given name


def _root(federation: Federation) -> FederationRoot:
    settings = FederationSettings(timeout=30, max_response_bytes=4_000_000)
    return FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, settings)


def _holders(federation: Federation) -> dict[int, tuple[str, set[str]]]:
    """Every patient of the federation: name and the organisations that hold their records."""
    found: dict[int, tuple[str, set[str]]] = {}
    for org in ORGS:
        with ChunkStore.open(federation.configs[org].data / "chunks.sqlite") as chunks:
            held = {sid for sid, _ in chunks.patients("admissions")} | {
                sid for dept in ("medicine", "neurology", "cardiology") for sid, _ in chunks.patients(dept)
            }
            for subject_id, name in chunks.patients():
                if subject_id in held and name:
                    found.setdefault(subject_id, (name, set()))[1].add(org)
    return found


def _patient(
    federation: Federation, orgs: set[str], avoid: frozenset[int] | set[int] = frozenset()
) -> tuple[int, str, str]:
    """A patient held by exactly ``orgs`` whose surname no other patient has: (subject_id, given, surname)."""
    holders = _holders(federation)
    surnames = Counter(name.split()[-1] for name, _ in holders.values())
    for subject_id, (name, held) in sorted(holders.items()):
        given, surname = name.split()[0], name.split()[-1]
        unique = surnames[surname] == 1 and len(name.split()) == 2 and len(surname) >= 5
        if held == orgs and unique and subject_id not in avoid:
            return subject_id, given, surname
    pytest.skip(f"no patient held by exactly {orgs} with a unique surname in this cohort")


def _ids(choices: object) -> set[int]:
    return {choice.subject_id for choice in choices}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "form",
    [
        "Did {other} {surname} experience anemia during the hospital stay?",  # another given name
        "What labs did Mr. {surname} have?",  # title and surname
        "Show {surname}'s labs",  # a possessive surname
        "Did patient {surname} have anemia?",
        "Did {surname} {given} have anemia?",  # swapped without a comma
        "Did {given} {typo1} have anemia?",  # one edit
        "Did {given} {typo2} have anemia?",  # two edits
    ],
)
def test_a_name_short_of_a_full_match_asks_back_and_retrieves_nothing(federation: Federation, form: str) -> None:
    subject_id, given, surname = _patient(federation, {"A"})
    typo1 = surname[0] + surname[2] + surname[1] + surname[3:]  # two letters swapped: one edit
    typo2 = surname[:-2] + "xy"
    question = form.format(other=UNUSED_GIVEN, surname=surname, given=given, typo1=typo1, typo2=typo2)
    result = _root(federation).search(question, federation.token("A.phys"), k=8)
    retrieval = result.retrieval
    assert retrieval.hits == (), question  # no hit of any patient, at any organisation
    assert not retrieval.no_such_patient
    assert [(c.subject_id, c.name, c.org) for c in retrieval.clarify] == [(subject_id, f"{given} {surname}", "A")]
    assert "admissions" in retrieval.clarify[0].depts


def test_the_answer_asks_which_patient_and_offers_the_choices(federation: Federation) -> None:
    subject_id, given, surname = _patient(federation, {"A"})
    searcher = FederatedSearcher(_root(federation), federation.token("A.phys"))
    answer = Answerer(searcher, AnswerSettings()).answer(f"Did {UNUSED_GIVEN} {surname} have anemia?")
    assert answer.abstained
    assert answer.abstention is not None
    assert answer.sources == ()
    assert answer.abstention.reason.startswith("Which patient do you mean?")
    assert f"{given} {surname} ({subject_id}, Hospital A)" in answer.abstention.reason
    assert _ids(answer.abstention.choices) == {subject_id}


@pytest.mark.parametrize(
    "form",
    [
        "Did {given} {surname} have anemia?",
        "did {given_lower} {surname_lower} have anemia",
        "Did {given_upper} {surname_upper} have anemia?",
        "{surname}, {given}: anemia?",
        "Was patient {subject_id} anemic?",
        "MRN {subject_id}: anemia?",
    ],
)
def test_a_full_name_or_an_identifier_selects_exactly_the_patient(federation: Federation, form: str) -> None:
    subject_id, given, surname = _patient(federation, {"A"})
    question = form.format(
        given=given,
        surname=surname,
        given_lower=given.lower(),
        surname_lower=surname.lower(),
        given_upper=given.upper(),
        surname_upper=surname.upper(),
        subject_id=subject_id,
    )
    retrieval = _root(federation).search(question, federation.token("A.phys"), k=8).retrieval
    assert retrieval.clarify == ()
    assert retrieval.hits
    assert {hit.chunk.subject_id for hit in retrieval.hits} == {subject_id}


def test_a_patient_at_a_denied_organisation_is_never_offered(federation: Federation) -> None:
    """A's patient: C.research is refused at A's router; A.phys is not."""
    subject_id, _, surname = _patient(federation, {"A"})
    question = f"What labs did Mr. {surname} have?"
    denied = _root(federation).search(question, federation.token("C.research"), k=8)
    assert {org.org.org: org.status for org in denied.orgs}["A"] == OrgStatus.DENIED
    assert denied.retrieval.clarify == ()  # nobody else by that surname: no such patient for this asker
    assert denied.retrieval.hits == ()
    assert denied.retrieval.no_such_patient
    allowed = _root(federation).search(question, federation.token("A.phys"), k=8).retrieval
    assert _ids(allowed.clarify) == {subject_id}
    assert allowed.hits == ()


def test_a_patient_in_denied_departments_is_never_offered(federation: Federation) -> None:
    """A.tech.rad may search A's orthopaedics only: a patient of A's other departments is not offered to them,
    though A answered."""
    with ChunkStore.open(federation.configs["A"].data / "chunks.sqlite") as chunks:
        orthopaedics = {sid for sid, _ in chunks.patients("orthopaedics")}
    subject_id, _, surname = _patient(federation, {"A"}, avoid=orthopaedics)
    question = f"What labs did Mr. {surname} have?"
    result = _root(federation).search(question, federation.token("A.tech.rad"), k=8)
    assert {org.org.org: org.status for org in result.orgs}["A"] == OrgStatus.ANSWERED
    assert "A/medicine" in result.retrieval.denied
    assert subject_id not in _ids(result.retrieval.clarify)
    assert result.retrieval.hits == ()


def test_a_patient_whose_documents_the_asker_may_not_retrieve_is_never_offered(federation: Federation) -> None:
    """The search gates let the user in everywhere at A; the document policy refuses one patient's records."""
    subject_id, _, surname = _patient(federation, {"A"})
    policies = (
        '@id("search") permit (principal, action == Action::"search", resource is Node);\n'
        '@id("retrieve") permit (principal, action == Action::"retrieve", resource is Document)\n'
        f"unless {{ resource.patient == {subject_id} }};\n"
    )
    base = federation.nodes["A"]
    audit = dataclasses.replace(federation.configs["A"]).audit_log.with_suffix(".names.jsonl")
    node = Node(base.config, base.tree, PolicyEngine.from_text(policies), base.verifier, AuditLog(audit))
    actor = demo_user("A.phys")
    request = RetrieveRequest(query=f"What labs did Mr. {surname} have?", candidates=True)
    refused = node.retrieve(actor, request)
    assert refused.names == []
    assert refused.names_person
    assert all(hit.chunk.subject_id != subject_id for hit in refused.candidates)
    permitted = Node(base.config, base.tree, PolicyEngine.allow_all(), base.verifier, AuditLog(audit))
    offered = permitted.retrieve(actor, request)
    assert {c.subject_id for name in offered.names for c in name.choices} == {subject_id}
    assert not any(name.full for name in offered.names)
    assert offered.candidates == []


def test_an_unrecognised_name_elsewhere_does_not_answer_about_everyone(federation: Federation) -> None:
    """B and C do not know the surname (spaCy may not flag the name either) and search everyone; only A reads a
    name, so their candidates are dropped: the root asks back with A's patient alone."""
    subject_id, _, surname = _patient(federation, {"A"})
    result = _root(federation).search(f"Did {UNUSED_GIVEN} {surname} have anemia?", federation.token("A.phys.neur"))
    assert result.retrieval.hits == ()
    assert _ids(result.retrieval.clarify) == {subject_id}


def test_denied_organisation_status_in_the_answer(federation: Federation, tmp_path: Path) -> None:
    """A hospital whose every department denied the user is 'denied', and not among those searched."""
    result = _root(federation).search("hospital course", federation.token("A.phys"), k=5)
    statuses = {org.org.org: org.status for org in result.orgs}
    assert statuses == {"A": OrgStatus.ANSWERED, "B": OrgStatus.ANSWERED, "C": OrgStatus.DENIED}
    assert "C" not in result.retrieval.searched
    assert {"C/admissions", "C/neurology"} <= set(result.retrieval.denied)


def test_the_kind_of_fact_a_node_reads_by_meaning_reaches_the_roots_answer(federation: Federation) -> None:
    """A wording no phrasing rule knows ("discharge reconciliation") is read by meaning at the node, which holds the
    embedder; the root adopts that kind, so the answer quotes the discharge medication list."""
    subject_id, given, surname = _patient(federation, {"A"})
    question = f"Which medications were on {given} {surname}'s discharge reconciliation?"
    retrieval = _root(federation).search(question, federation.token("A.phys"), k=8).retrieval
    assert retrieval.understanding.fact_kind == "discharge_medications"
    assert retrieval.understanding.kind_similarity is not None
    searcher = FederatedSearcher(_root(federation), federation.token("A.phys"))
    answer = Answerer(searcher, AnswerSettings()).answer(question)
    assert not answer.abstained
    assert {source.chunk.subject_id for source in answer.sources} == {subject_id}
    assert any(source.chunk.section == "Discharge Medications" for source in answer.sources)


def test_a_kind_the_node_settles_among_the_rules_cues_reaches_the_roots_answer(federation: Federation) -> None:
    """ "Do the carers at home know about X's allergies?" cues social history first and allergies second; the node
    settles on allergies by meaning, and the root's answer quotes the allergy list, not the social history."""
    subject_id, given, surname = _patient(federation, {"A"})
    question = f"Do the carers at home know about {given} {surname}'s allergies?"
    assert understand(question).fact_kind == "social"
    retrieval = _root(federation).search(question, federation.token("A.phys"), k=8).retrieval
    assert retrieval.understanding.fact_kind == "allergy"
    searcher = FederatedSearcher(_root(federation), federation.token("A.phys"))
    answer = Answerer(searcher, AnswerSettings()).answer(question)
    assert not answer.abstained
    assert {answer.sources[n - 1].chunk.section for n in answer.cited} == {"Allergies"}
    assert {answer.sources[n - 1].chunk.subject_id for n in answer.cited} == {subject_id}
