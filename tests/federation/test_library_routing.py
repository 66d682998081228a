"""The demo library in the federation: asked only what asks the literature, never about patients; an answer that
cites records and the literature comes in two labelled parts with one numbering. On the demo federation of the
federation tests (three hospitals, their providers and policies, and the library node, all on loopback)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederatedSearcher, FederationRoot
from clinrag.generate.answer import Answerer
from clinrag.generate.planner import Planner
from clinrag.generate.source_parts import LABELS
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.sources import LITERATURE_KINDS, SourceFamily
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation


@pytest.fixture(scope="module")
def root(federation: Federation) -> Iterator[FederationRoot]:
    running = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
    yield running
    running.close()


def _asked(root: FederationRoot, question: str, token: str) -> dict[str, str]:
    return {part.org.org: part.status.value for part in root.search(question, token).orgs}


def test_a_literature_question_asks_only_the_library(root: FederationRoot, federation: Federation) -> None:
    question = "What do the guidelines recommend for anticoagulation in atrial fibrillation?"
    result = root.search(question, federation.token("B.nurse"))
    assert {part.org.org: part.status.value for part in result.orgs} == {"LIB": "answered"}
    assert result.retrieval.hits
    assert {hit.chunk.source_kind.value for hit in result.retrieval.hits} == {"guideline"}  # "guidelines": its filter


def test_a_records_question_never_reaches_the_library(root: FederationRoot, federation: Federation) -> None:
    asked = _asked(root, "Who was treated for a stroke?", federation.token("A.phys.neur"))
    assert asked == dict.fromkeys("ABC", "answered")


def test_a_question_naming_no_source_asks_the_hospitals(root: FederationRoot, federation: Federation) -> None:
    token = federation.token("A.phys.neur")
    assert set(_asked(root, "What is the edoxaban dose in atrial fibrillation?", token)) == {"A", "B", "C"}
    assert set(_asked(root, "What do the guidelines say about the edoxaban dose?", token)) == {"LIB"}
    both = "What do the guidelines recommend for our patients with atrial fibrillation?"
    assert set(_asked(root, both, token)) == {"A", "B", "C", "LIB"}


def test_population_and_similar_patients_never_ask_the_library(federation: Federation) -> None:
    counter = FederatedCounter(federation.orgs, federation.token("A.phys"))
    assert [endpoint.org for endpoint in counter.orgs] == ["A", "B", "C"]


def test_records_and_literature_in_one_answer(root: FederationRoot, federation: Federation) -> None:
    with ChunkStore.open(federation.out / "nodes" / "A" / "chunks.sqlite") as chunks:
        named = [(subject_id, name) for subject_id, name in chunks.patients() if name]
    answerer = Answerer(FederatedSearcher(root, federation.token("A.phys")), AnswerSettings(), None, EMBEDDER)
    mixed = 0
    for subject_id, name in named[:12]:
        answer = answerer.answer(f"What do the guidelines recommend for {name}'s anticoagulation?")
        assert not answer.abstained, (name, answer.abstention)
        cited = [answer.sources[n - 1].chunk for n in answer.cited]
        records = [chunk for chunk in cited if chunk.source_kind.value not in LITERATURE_KINDS]
        assert any(chunk.source_kind.value == "guideline" for chunk in cited)
        assert {chunk.subject_id for chunk in records} <= {subject_id}  # the records part: only the named patient
        if not records:
            assert LABELS[SourceFamily.LITERATURE] not in answer.text
            continue
        mixed += 1
        lines = answer.text.splitlines()
        assert lines[0] == LABELS[SourceFamily.RECORDS]
        split = lines.index(LABELS[SourceFamily.LITERATURE])
        first_literature = answer.sentences[split - 1]  # one label line before it
        assert all(
            answer.sources[n - 1].chunk.source_kind.value not in LITERATURE_KINDS
            for sentence in answer.sentences[: split - 1]
            for n in sentence.citations[:1]
        )
        assert answer.sources[first_literature.citations[0] - 1].chunk.source_kind.value in LITERATURE_KINDS
    assert mixed  # some of these patients' records say what they take, beside the guideline


EFFECT_QUESTIONS = (
    "Did ramipril lower end-stage kidney disease?",
    "Does apixaban lower stroke more than warfarin?",
    "Is finerenone better than ramipril for CKD?",
    "Apixaban versus warfarin for stroke in atrial fibrillation?",
)


def test_a_treatments_effect_in_general_asks_only_the_library(root: FederationRoot, federation: Federation) -> None:
    token = federation.token("A.phys")
    for question in EFFECT_QUESTIONS:
        assert _asked(root, question, token) == {"LIB": "answered"}, question
    answerer = Answerer(FederatedSearcher(root, token), AnswerSettings(), None, EMBEDDER)
    answer = answerer.answer("Does apixaban lower stroke more than warfarin?")
    assert not answer.abstained, answer.abstention
    assert {answer.sources[n - 1].chunk.source_kind.value for n in answer.cited} <= LITERATURE_KINDS
    # the planner sees no population question in it ("versus" is the trials' comparison, not a count)
    planner = Planner(FederatedCounter(federation.orgs, token).vocabulary())
    assert planner.plan(EFFECT_QUESTIONS[-1]).route == "records"


def test_an_effect_on_a_patient_or_a_count_stays_with_the_hospitals(
    root: FederationRoot, federation: Federation
) -> None:
    token = federation.token("A.phys.neur")
    with ChunkStore.open(federation.out / "nodes" / "A" / "chunks.sqlite") as chunks:
        name = next(name for _, name in chunks.patients() if name)
    for question in (
        f"Did apixaban lower {name}'s INR?",
        "Was she better on ramipril?",
        "How many patients on apixaban versus warfarin had a stroke?",
    ):
        assert set(_asked(root, question, token)) == {"A", "B", "C"}, question
