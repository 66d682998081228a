"""``clinrag ask --node`` routes a population question to counting: the text names the route and the count, and
``--json`` carries the route, the query, each organisation's aggregate and the merged total."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.population.tables import materialise, population_path

runner = CliRunner()
QUESTION = "Is Medicare or Medicaid more common at Hospital A?"


@pytest.fixture(scope="module")
def node(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ask-node")
    materialise(cohort / "hospitals" / "A", population_path(folder))
    return folder


def _patients_by_insurance(cohort: Path) -> dict[str, int]:
    with (cohort / "hospitals" / "A" / "hosp" / "admissions.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {
        insurance: len({r["subject_id"] for r in rows if r["insurance"] == insurance})
        for insurance in ("Medicare", "Medicaid")
    }


def test_json_carries_route_query_and_aggregates(node: Path, cohort: Path) -> None:
    result = runner.invoke(app, ["ask", QUESTION, "--node", str(node), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["route"]["route"] == "population"
    assert body["route"]["reason"]
    (found,) = body["population"]["results"]
    assert found["query"]["measure"] == {"kind": "top", "of": "insurance", "n": 2}
    truth = _patients_by_insurance(cohort)
    shown = {row["label"]: row["count"] for row in found["table"]}
    expected = {name: (str(n) if n >= 5 else "<5") for name, n in truth.items() if n}
    assert shown == expected
    (part,) = found["orgs"]
    assert part["org"] == "A"
    assert part["status"] == "ok"
    assert part["aggregate"]["total"] is not None
    assert found["merged"]["statuses"] == [{"org": "A", "status": "ok", "reason": ""}]
    assert body["text"] == body["population"]["text"]
    assert "[Q1]" in body["text"]


def test_text_output_shows_route_answer_and_table(node: Path) -> None:
    result = runner.invoke(app, ["ask", QUESTION, "--node", str(node)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "route: population" in result.output
    assert "most common insurances were Medicare" in result.output
    assert "organisations" in result.output
