"""Calculator questions asked of a library (issue 20): a guideline question that names a score or an equation
without giving its values is answered from the library's text; one that gives the values is computed; one that
names a patient is computed from the question alone (a library holds no patient's records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.generate.planner import Planner
from clinrag.population.vocabulary import Vocabulary

runner = CliRunner()


def _ask(library: Path, question: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.output)
    return answer


@pytest.mark.parametrize(
    ("question", "calculator", "line"),
    [
        (
            "Which score should be used to assess bleeding risk in atrial fibrillation?",
            "HAS-BLED",
            "3. Bleeding risk: Assess bleeding risk with the ORBIT score before starting anticoagulation.",
        ),
        ("How often should eGFR be monitored in G3b CKD?", "CKD-EPI", "G3b | 30 to 44 | 2 times"),
    ],
    ids=["bleeding-risk", "egfr-monitoring"],
)
def test_a_guideline_question_naming_a_calculator_is_answered_from_the_library(
    library: Path, question: str, calculator: str, line: str
) -> None:
    answer = _ask(library, question)
    assert answer["route"]["route"] == "records"
    assert calculator in answer["route"]["reason"]
    assert "gives none of its values: answered from the library's text" in answer["route"]["reason"]
    assert not answer.get("calculations")
    assert not answer["abstained"], answer["text"]
    assert line in answer["text"]
    assert all(source["chunk"]["source_kind"] == "guideline" for source in answer["sources"])


def test_a_calculator_question_with_all_its_values_is_computed_in_a_library(library: Path) -> None:
    answer = _ask(library, "What is the eGFR of a 60-year-old woman with creatinine 1.2 mg/dL?")
    assert answer["route"]["route"] == "calculator"
    (calculation,) = answer["calculations"]
    assert calculation["calculator"] == "ckd_epi_2021"
    assert calculation["value"] == 52.0
    assert {item["origin"] for item in calculation["inputs"]} == {"given"}
    assert answer["sources"] == []


def test_a_patient_named_to_a_library_gets_the_calculator_and_no_guideline_read_as_their_record(
    library: Path,
) -> None:
    answer = _ask(library, "What is the CHA2DS2-VASc score of Deanna Mahoney?")
    assert answer["route"]["route"] == "calculator"
    assert "whom a library does not hold: inputs from the question" in answer["route"]["reason"]
    (calculation,) = answer["calculations"]
    assert calculation["value"] is None
    assert "age" in calculation["missing"]
    assert answer["sources"] == []  # the guideline's "CHA2DS2-VASc score of 2" is nobody's value


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("Which score should be used to assess bleeding risk in atrial fibrillation?", "records"),
        ("How often should eGFR be monitored in G3b CKD?", "records"),
        ("What is the HAS-BLED score of a 70-year-old with labile INR?", "calculator"),
        ("What is the CKD-EPI eGFR of patient 10000032?", "calculator"),
        ("What is her CHA2DS2-VASc score?", "calculator"),
    ],
)
def test_the_planner_routes_a_library_question_to_a_calculator_only_with_values_or_a_patient(
    question: str, route: str
) -> None:
    library = Planner(Vocabulary.build(), detect_persons=False, library=True)
    plan = library.plan(question)
    assert plan.route == route
    assert plan.destinations in (("records",), ("calculator",))  # a library has no records of a patient to read
    records = Planner(Vocabulary.build(), detect_persons=False)
    assert records.plan(question).route == "calculator"  # a records node keeps the calculator route
