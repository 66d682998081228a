"""One node, no federation: a question is planned, counted over the node's population tables and answered; the
count equals an independent count from the generated CSVs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from clinrag.generate.planner import Planner
from clinrag.generate.routed import answer_routed
from clinrag.population.node import LocalCounter, node_terms
from clinrag.population.query import CodeCriterion
from clinrag.population.tables import materialise, population_path
from clinrag.types import Answer


@pytest.fixture(scope="module")
def node_a(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("node-a")
    materialise(cohort / "hospitals" / "A", population_path(folder))
    return folder


def _patients_with(cohort: Path, prefixes: tuple[str, ...]) -> set[int]:
    with (cohort / "hospitals" / "A" / "hosp" / "diagnoses_icd.csv").open(newline="") as handle:
        return {
            int(row["subject_id"])
            for row in csv.DictReader(handle)
            if row["icd_version"] == "10" and row["icd_code"].startswith(prefixes)
        }


def _no_records() -> Answer:
    raise AssertionError("a population question must not go to records")


@pytest.mark.parametrize("question", ["How many patients had hypertension?", "How many patients had heart failure?"])
def test_a_coded_question_counts_exactly(node_a: Path, cohort: Path, question: str) -> None:
    counter = LocalCounter(node_a, min_cell=1)
    plan = Planner(counter.vocabulary(), detect_persons=False).plan(question)
    assert plan.route == "population"
    query = plan.population.queries[0]
    (criterion,) = query.cohort
    assert isinstance(criterion, CodeCriterion)
    truth = len(_patients_with(cohort, criterion.prefixes))
    answer = answer_routed(plan, counter, _no_records)
    assert answer.population is not None
    assert answer.route is not None
    assert answer.route.route == "population"
    (result,) = answer.population.results
    assert result.merged.total is not None
    assert result.merged.total.value == truth
    assert result.total == str(truth)
    assert f"{truth} patient" in answer.text or (truth == 0 and "No patients" in answer.text)
    assert "[Q1]" in answer.text
    assert "Counted at A" in answer.text


def test_small_counts_read_as_suppressed(node_a: Path, cohort: Path) -> None:
    counter = LocalCounter(node_a, min_cell=10_000)
    plan = Planner(counter.vocabulary(), detect_persons=False).plan("How many patients had hypertension?")
    answer = answer_routed(plan, counter, _no_records)
    assert answer.population is not None
    assert answer.population.results[0].total == "<10000"
    assert answer.population.results[0].table[0].suppressed


def test_a_question_without_a_query_goes_to_records_and_says_so(node_a: Path) -> None:
    counter = LocalCounter(node_a, min_cell=5)
    plan = Planner(counter.vocabulary(), detect_persons=False).plan("What was the discharge plan?")
    answer = answer_routed(plan, counter, lambda: Answer(question=plan.question, text="records", generator="x"))
    assert answer.route is not None
    assert answer.route.route == "records"
    assert answer.route.reason
    assert answer.population is None
    assert answer.text == "records"


def test_node_terms_name_what_the_node_records(node_a: Path) -> None:
    everything = node_terms(node_a)
    recorded = node_terms(node_a, dictionary=False)
    assert everything.org == "A"
    assert len(recorded.diagnoses) < len(everything.diagnoses)
    assert recorded.drugs
    assert recorded.insurances
    assert node_terms(node_a, depts=()).drugs == ()
