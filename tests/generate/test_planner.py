"""The planner routes questions to records retrieval, a population query, or both (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinrag.generate.planner import Planner, Signal, records_detector
from clinrag.population.vocabulary import Vocabulary

DATA = Path(__file__).parents[2] / "src/clinrag/evaluate/data/planner_questions.jsonl"


@pytest.fixture(scope="module")
def planner() -> Planner:
    vocabulary = Vocabulary.build(
        drugs=["Apixaban"], insurances=["Medicare", "Medicaid"], organisations=[("A", "Hospital A")]
    )
    return Planner(vocabulary, detect_persons=False)


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("How many patients had a stroke?", "population"),
        ("Is Medicare or Medicaid more common at Hospital A?", "population"),
        ("What complications follow coronary artery bypass?", "population"),
        ("What was she discharged on?", "records"),
        ("What did patient 10000032 take at home?", "records"),
        ("Which patients had low magnesium?", "records"),
        ("What happens to patients with sepsis?", "both"),
        ("How many patients took zorblaxine?", "records"),
    ],
)
def test_routes(planner: Planner, question: str, route: str) -> None:
    assert planner.plan(question).route == route


def test_the_reason_says_what_was_understood(planner: Planner) -> None:
    plan = planner.plan("How many patients took apixaban?")
    assert "number of patients with medication Apixaban" in plan.reason
    assert "nearest" in planner.plan("How many patients took apixiban?").reason


def test_a_named_patient_stays_records() -> None:
    planner = Planner(Vocabulary.build())
    assert planner.plan("What was Deanna Mahoney discharged on?").route == "records"
    assert planner.plan("What happens to patients like Deanna Mahoney?").route == "experience"
    assert planner.plan("How does Deanna Mahoney's stay compare with other patients?").route != "experience"


def test_a_new_capability_slots_in_as_a_detector() -> None:
    def literature(context: object) -> list[Signal]:
        return [Signal("literature", "asks what trials found")] if "trials" in getattr(context, "question", "") else []

    planner = Planner(Vocabulary.build(), detect_persons=False, detectors=(records_detector, literature))
    plan = planner.plan("What did trials of apixaban in a 70 year old find?")
    assert plan.destinations == ("records", "literature")


def test_the_labelled_questions_are_well_formed() -> None:
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    assert len(rows) >= 150
    assert {row["split"] for row in rows} == {"dev", "test"}
    assert sum(row["split"] == "test" for row in rows) == len(rows) // 2
    assert len({row["question"] for row in rows}) == len(rows)
