"""Exactness of population questions (issue 17): every question of the evaluation set, asked in words by every demo
user (and at each node alone), routed, counted and answered; every count shown equals the truth computed
independently from the generated CSVs and gold facts, restricted to what that user may see."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinrag.access.demo import DEMO_USERS
from clinrag.evaluate.population import InProcessFederation, load_questions, run_nodes, run_users, summary
from clinrag.evaluate.population_truth import ACCESS, Hospital, load_cohort
from clinrag.federation.population_node import reach
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.population.tables import materialise, population_path
from clinrag.settings import IngestSettings

ISSUE_FIVE = (
    "For patients who report heavy alcohol consumption, what are the most common diagnoses?",
    "What complications follow coronary artery bypass?",
    "Is Medicare or Medicaid more common at Hospital A?",
    "For cardiology and cardiothoracic admissions, what was the most common procedure?",
    "Do orthopaedic patients come in more after a mechanical fall or for pain from an existing condition?",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo cohort (40 patients, seed 11) ingested per hospital as build_demo does (no vector index: counting
    reads the chunk store and the population tables only)."""
    out = tmp_path_factory.mktemp("questions")
    generate_cohort(out / "cohort", patients=40, seed=11, workers=2)
    for org in "ABC":
        with ChunkStore.open(out / "nodes" / org / "chunks.sqlite") as store:
            ingest_mimic(out / "cohort" / "hospitals" / org, store, IngestSettings(tables=("admissions",)), org)
        materialise(out / "cohort" / "hospitals" / org, population_path(out / "nodes" / org), org)
    return out


@pytest.fixture(scope="module")
def hospitals(demo: Path) -> dict[str, Hospital]:
    return load_cohort(demo / "cohort")


def test_the_set_holds_the_issues_questions_and_twenty_trend_style_ones() -> None:
    questions = load_questions()
    assert len(questions) >= 60
    assert len({q.id for q in questions}) == len(questions)
    assert [q.question for q in questions if q.set == "issue"] == list(ISSUE_FIVE)
    assert sum(q.set == "trend" for q in questions) == 15
    assert {q.kind for q in questions} == {"coded", "text"}


def test_the_access_the_truth_assumes_is_the_policies(demo: Path, tmp_path: Path) -> None:
    federation = InProcessFederation({org: demo / "nodes" / org for org in "ABC"}, tmp_path)
    try:
        for actor in DEMO_USERS:
            for org, node in federation.nodes.items():
                assert reach(node.tree, node.engine, actor).depts == set(ACCESS[actor.subject].get(org, ())), (
                    actor.subject,
                    org,
                )
    finally:
        federation.close()


def test_every_question_is_exact_for_every_user_and_node(
    demo: Path, hospitals: dict[str, Hospital], tmp_path: Path
) -> None:
    questions = load_questions()
    nodes = {org: demo / "nodes" / org for org in "ABC"}
    federation = InProcessFederation(nodes, tmp_path)
    try:
        grades = run_users(questions, federation, hospitals, DEMO_USERS)
    finally:
        federation.close()
    grades += run_nodes(questions, nodes, hospitals)
    result = summary(grades, questions)
    assert result["misses"] == []
    assert result["asked"] == len(questions) * (len(DEMO_USERS) + 3)
    checked = result["counts_checked"]
    assert isinstance(checked, int)
    assert checked > 20 * len(grades) // 10
