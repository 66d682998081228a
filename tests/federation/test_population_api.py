"""Population questions over the demo federation: each node counts what the asker's policies let them retrieve,
only aggregates leave it, every request is audited, and the root merges what arrives (a node down is a status)."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import httpx

from clinrag.federation.audit import AuditLog
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import OrgEndpoint
from clinrag.generate.planner import Plan, Planner
from clinrag.generate.population_answer import RoutedAnswer
from clinrag.generate.routed import answer_routed
from clinrag.population.query import CodeCriterion, PopulationQuery
from clinrag.settings import FederationSettings
from clinrag.types import Answer

from ..shared.federation import ORGS, Federation

QUESTION = "How many patients had hypertension?"
SETTINGS = FederationSettings(timeout=30)
"""Long enough for a healthy node on a loaded machine (the default 2 s is not)."""


def _no_records() -> Answer:
    raise AssertionError("a population question must not go to records")


def _truth(cohort: Path, org: str, prefixes: tuple[str, ...], depts: set[str] | None) -> int:
    """Patients of ``org`` with a diagnosis under ``prefixes`` in a stay of ``depts`` (None: any), from the CSVs."""
    folder = cohort / "hospitals" / org
    config = tomllib.loads((folder / "clinrag-source.toml").read_text())
    departments = {k.upper(): v for k, v in config.get("departments", {}).items()}
    latest: dict[str, tuple[str, str]] = {}
    with (folder / "hosp" / "services.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["hadm_id"] not in latest or latest[row["hadm_id"]][0] <= row["transfertime"]:
                latest[row["hadm_id"]] = (row["transfertime"], row["curr_service"])
    with (folder / "hosp" / "diagnoses_icd.csv").open(newline="") as handle:
        return len(
            {
                row["subject_id"]
                for row in csv.DictReader(handle)
                if row["icd_version"] == "10"
                and row["icd_code"].startswith(prefixes)
                and (depts is None or departments[latest[row["hadm_id"]][1]] in depts)
            }
        )


def _ask(federation: Federation, subject: str, orgs: list[OrgEndpoint] | None = None) -> tuple[Plan, RoutedAnswer]:
    counter = FederatedCounter(orgs or federation.orgs, federation.token(subject), SETTINGS)
    plan = Planner(counter.vocabulary(), detect_persons=False).plan(QUESTION)
    assert plan.route == "population", plan.reason
    return plan, answer_routed(plan, counter, _no_records)


def test_a_coded_question_is_counted_at_every_hospital(federation: Federation) -> None:
    plan, answer = _ask(federation, "A.phys.neur")
    (criterion,) = plan.population.queries[0].cohort
    assert isinstance(criterion, CodeCriterion)
    assert answer.population is not None
    (result,) = answer.population.results
    assert [(p.org, p.status) for p in result.orgs] == [(org, "ok") for org in ORGS]
    cohort = federation.out / "cohort"
    for part in result.orgs:
        assert part.aggregate is not None
        assert part.aggregate.total is not None
        truth = _truth(cohort, part.org, criterion.prefixes, None)
        assert part.aggregate.total.estimate == truth or (part.aggregate.total.suppressed and 0 < truth < 5)
    assert "Counted at Hospital A, Hospital B, Hospital C" in answer.text


def test_a_denied_department_is_not_counted_and_is_said(federation: Federation) -> None:
    plan, answer = _ask(federation, "A.phys")
    (criterion,) = plan.population.queries[0].cohort
    assert isinstance(criterion, CodeCriterion)
    assert answer.population is not None
    parts = {p.org: p for p in answer.population.results[0].orgs}
    assert parts["C"].status == "denied"
    assert parts["C"].aggregate is None
    assert "C/neurology" in parts["C"].denied
    assert parts["A"].status == "ok"
    assert parts["B"].status == "ok"
    assert "C" not in answer.population.results[0].merged.contributed
    assert "Denied: Hospital C" in answer.text
    log = AuditLog(federation.configs["C"].audit_log)
    line = [e for e in log.entries() if e.mode == "population" and e.subject == "A.phys"][-1]
    assert line.outcome == "denied"
    assert "C/neurology" in line.denied
    assert line.question_sha256
    assert line.patients == ()
    assert line.returned == ()
    log.verify()


def test_the_count_equals_the_truth_for_what_the_asker_may_see(federation: Federation) -> None:
    query = PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=("I10",)),))
    counter = FederatedCounter(federation.orgs, federation.token("A.tech.rad"), SETTINGS)
    outcome = counter.count(query)
    parts = {p.org: p for p in outcome.parts}
    assert parts["A"].status == "ok"
    assert "A/orthopaedics" in parts["A"].counted
    assert "A/medicine" not in parts["A"].counted
    assert "A/medicine" in parts["A"].denied
    aggregate = parts["A"].aggregate
    assert aggregate is not None
    assert aggregate.total is not None
    depts = {path.split("/", 1)[1] for path in parts["A"].counted}
    truth = _truth(federation.out / "cohort", "A", ("I10",), depts)
    assert aggregate.total.estimate == truth or (aggregate.total.suppressed and 0 < truth < 5)


def test_without_a_token_the_body_is_never_read(federation: Federation) -> None:
    url = f"{federation.servers['B'].url}/v1/population"
    before = sum(1 for _ in AuditLog(federation.configs["B"].audit_log).entries())
    big = b"{" + b" " * 5_000_000 + b"}"
    reply = httpx.post(url, content=big, headers={"Content-Type": "application/json"}, timeout=30)
    assert reply.status_code == 401
    assert reply.json() == {"detail": "missing bearer token"}
    entries = list(AuditLog(federation.configs["B"].audit_log).entries())
    assert len(entries) == before + 1
    assert entries[-1].outcome == "unauthenticated"
    assert entries[-1].status == 401
    invalid = httpx.post(
        url,
        json={"query": {"measure": {"kind": "top"}}},
        headers={"Authorization": f"Bearer {federation.token('B.phys')}"},
    )
    assert invalid.status_code == 422
    assert "top" not in str(invalid.json()["detail"][0]["loc"])


def test_an_organisation_down_is_unreachable_and_the_answer_still_comes(federation: Federation) -> None:
    down = OrgEndpoint(org="D", name="Hospital D", url="http://127.0.0.1:9", issuer="")
    _, answer = _ask(federation, "A.phys.neur", [*federation.orgs, down])
    assert answer.population is not None
    parts = {p.org: p for p in answer.population.results[0].orgs}
    assert parts["D"].status == "unreachable"
    assert parts["A"].status == "ok"
    assert "Could not be reached: Hospital D" in answer.text
    assert answer.population.unreachable == ("Hospital D",)
