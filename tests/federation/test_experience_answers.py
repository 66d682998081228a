"""Answers from experience (issue 18) at one node and over the federation: the patient named is settled in full or not
at all, the question is searched in the similar patients' records only, and every refusal is a clear message.

The faces (API, web app) are tested in ``test_experience_faces.py``; here the parts below them and ``clinrag ask``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.federation.similar_root import FederatedSimilar
from clinrag.generate.answer import Answerer
from clinrag.generate.experience import answer_experience, experience_query
from clinrag.generate.planner import Planner
from clinrag.generate.similar_finders import FederatedFinder, LocalFinder
from clinrag.index.sparse_copy import copy_tree
from clinrag.population.similar import SimilarityError
from clinrag.population.similar_named import named_patient
from clinrag.population.vocabulary import Vocabulary
from clinrag.retrieve.hybrid import Retriever
from clinrag.retrieve.patients import PatientRegistry
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..app.test_experience_faces import named
from ..shared.federation import EMBEDDER, Federation

__all__ = ["named"]

REGISTRY = PatientRegistry([(1, "Betty Henry"), (2, "Ada Stone"), (3, "Carl Henry"), (4, "Ada Stone")])


@pytest.fixture(scope="module")
def node_a(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of hospital A's node folder: the running federation holds the shards of the original."""
    copy = tmp_path_factory.mktemp("node-a") / "A"
    copy_tree(federation.out / "nodes" / "A", copy)
    return copy


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What were patients similar to Betty Henry discharged with?", "What were patients discharged with?"),
        ("What follow-up did patients like Betty Henry get?", "What follow-up did patients get?"),
        (
            "In similar patients to Betty Henry, what complications occurred?",
            "In patients, what complications occurred?",
        ),
        ("Which patients are similar to Betty Henry?", None),
        ("Find patients like Betty Henry", None),
        ("Show me similar patients to Betty Henry, please", None),
    ],
)
def test_the_question_searched_drops_the_name_and_the_similarity_words(question: str, expected: str | None) -> None:
    assert experience_query(question, "Betty Henry") == expected


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("What were patients like Deanna Mahoney discharged with?", "experience"),
        ("Which patients are similar to patient 10000032?", "experience"),
        ("Show me similar patients to MRN 10000032", "experience"),
        ("What happens to patients with sepsis?", "both"),  # no one named: a population question
        ("What was Deanna Mahoney discharged on?", "records"),
    ],
)
def test_the_planner_sends_similar_patient_questions_to_experience(question: str, route: str) -> None:
    assert Planner(Vocabulary.build()).plan(question).route == route


def test_only_a_full_name_or_an_identifier_settles_the_patient() -> None:
    assert named_patient("patients like Betty Henry", REGISTRY, detect_persons=False).subject_id == 1
    assert named_patient("patients like patient 3", REGISTRY, detect_persons=False).subject_id == 3
    with pytest.raises(SimilarityError, match=r"which patient do you mean by 'Henry'\? Betty Henry \(1\), Carl Henry"):
        named_patient("patients like Henry", REGISTRY, detect_persons=False)
    with pytest.raises(SimilarityError, match="which patient do you mean by 'Ada Stone'"):
        named_patient("patients like Ada Stone", REGISTRY, detect_persons=False)  # two patients share the name
    with pytest.raises(SimilarityError, match="one patient at a time"):
        named_patient("patients like Betty Henry and Carl Henry", REGISTRY, detect_persons=False)
    with pytest.raises(SimilarityError, match="name the patient"):
        named_patient("patients like her", REGISTRY, detect_persons=False)
    with pytest.raises(SimilarityError, match="no patient named 'Zoltan Kerekes'"):
        named_patient("patients like Zoltan Kerekes", REGISTRY)


def test_a_node_answers_from_the_similar_patients_records_only(node_a: Path, named: tuple[int, str]) -> None:
    subject_id, name = named
    node = node_a
    retriever = Retriever.open(node, RetrieveSettings(), EMBEDDER)
    try:
        answerer = Answerer(retriever, AnswerSettings(), None, EMBEDDER)
        answer, part = answer_experience(
            f"What were patients like {name} discharged with?", LocalFinder(node), answerer.answer
        )
    finally:
        retriever.close()
    assert (part.patient, part.subject_id, part.org) == (name, subject_id, "A")
    similar = {view.subject_id for view in part.patients}
    assert similar
    assert subject_id not in similar
    assert answer.sources
    assert {source.chunk.subject_id for source in answer.sources} <= similar
    assert not answer.abstained
    cited = {view.subject_id for view in part.cited_patients}
    assert answer.text.startswith(f"In {len(cited)} of the {len(part.patients)} patients most similar to {name}")


def test_clinrag_ask_at_a_node_routes_and_prints_the_similar_patients(node_a: Path, named: tuple[int, str]) -> None:
    subject_id, name = named
    node = str(node_a)
    listed = CliRunner().invoke(app, ["ask", f"Which patients are similar to {name}?", "--node", node, "--json"])
    assert listed.exit_code == 0, listed.output
    body = json.loads(listed.output)
    assert body["route"]["route"] == "experience"
    assert body["sources"] == []  # the list alone: nothing else was asked
    assert subject_id not in {view["subject_id"] for view in body["experience"]["patients"]}
    printed = CliRunner().invoke(app, ["ask", f"What were patients like {name} discharged with?", "--node", node])
    assert printed.exit_code == 0, printed.output
    assert "route: experience" in printed.output
    assert f"patients most similar to {name}" in printed.output
    unknown = CliRunner().invoke(app, ["ask", "What were patients like Zoltan Kerekes given?", "--node", node])
    assert unknown.exit_code == 0
    assert "Similar patients could not be looked for: no patient named 'Zoltan Kerekes'" in unknown.output


def test_the_home_hospital_settles_the_name_among_patients_the_user_may_see(
    federation: Federation, named: tuple[int, str]
) -> None:
    subject_id, name = named
    token = federation.token("A.phys")
    settings = FederationSettings(timeout=30)  # long enough for a healthy node on a loaded machine
    similar = FederatedSimilar(federation.orgs, token, settings)
    outcome = asyncio.run(similar.afind("A", None, named_in=f"patients like {name}"))
    assert (outcome.subject_id, outcome.mention) == (subject_id, name)
    assert outcome.matches
    assert subject_id not in {m.match.subject_id for m in outcome.matches if m.org == "A"}
    surname = name.split()[-1]
    found = FederatedFinder(federation.orgs, token, "A", settings).find(f"patients like Mr. {surname}", 5)
    assert found.error.startswith("which patient do you mean") or found.error.startswith("no patient")
    assert not found.matches
    at_b = FederatedFinder(federation.orgs, federation.token("B.phys"), "B", settings)
    other_hospital = at_b.find(f"patients like {name}", 5)
    assert other_hospital.error  # a patient of hospital A only is not settled at B
    assert not other_hospital.matches
