"""Similar patients over the federation (issue 18): each hospital ranks its own patients against the query
patient's code sets, only those the asker may retrieve; the root merges by score; guarded and audited."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from clinrag.federation.audit import AuditLog
from clinrag.federation.protocol import SimilarResponse
from clinrag.federation.similar_root import FederatedSimilar, SimilarOutcome
from clinrag.population.similar_sets import load_code_sets
from clinrag.population.tables import population_path
from clinrag.settings import FederationSettings

from ..shared.federation import Federation


@pytest.fixture(scope="module")
def patient(federation: Federation) -> int:
    """A patient of hospital A with diagnoses."""
    sets = load_code_sets(population_path(federation.configs["A"].data))
    return int(sets.keys[sets.sizes["dx"] > 0][0])


def _find(federation: Federation, user: str, patient: int) -> SimilarOutcome:
    settings = FederationSettings(timeout=30)  # long enough for a healthy node on a loaded machine
    return FederatedSimilar(federation.orgs, federation.token(user), settings).find("A", patient, k=200)


def test_a_neurologist_gets_similar_patients_from_all_three_hospitals(federation: Federation, patient: int) -> None:
    outcome = _find(federation, "A.phys.neur", patient)
    assert {part.org: part.status for part in outcome.parts} == {"A": "ok", "B": "ok", "C": "ok"}
    assert {m.org for m in outcome.matches} == {"A", "B", "C"}
    assert ("A", patient) not in {(m.org, m.match.subject_id) for m in outcome.matches}
    keys = [(-m.match.score, m.org, m.match.subject_id) for m in outcome.matches]
    assert keys == sorted(keys)
    assert outcome.query_sets is not None
    assert outcome.query_sets.dx
    best = outcome.matches[0].match
    assert best.score > 0
    assert any(best.shared[kind] for kind in ("dx", "med", "proc"))


def test_a_physician_is_denied_hospital_c(federation: Federation, patient: int) -> None:
    outcome = _find(federation, "A.phys", patient)
    parts = {part.org: part for part in outcome.parts}
    assert parts["C"].status == "denied"
    assert parts["C"].denied
    assert parts["A"].status == "ok"
    assert "C" not in {m.org for m in outcome.matches}
    assert ("A", patient) not in {(m.org, m.match.subject_id) for m in outcome.matches}


def test_without_a_token_the_node_answers_401_unread_and_audits_each_request(
    federation: Federation, patient: int
) -> None:
    url = f"{federation.servers['A'].url}/v1/similar"
    refused = httpx.post(url, content=b"not json at all", headers={"Content-Type": "application/json"})
    assert refused.status_code == 401  # a body the node would refuse with 422 is never read
    token = federation.token("A.phys.neur")
    reply = httpx.post(url, json={"sets_of": patient, "k": 5}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert reply.status_code == 200
    answer = SimilarResponse.model_validate(reply.json())
    assert answer.query_sets is not None
    assert patient not in {m.subject_id for m in answer.matches}
    last = [e for e in AuditLog(federation.configs["A"].audit_log).entries() if e.mode == "similar"][-1]
    assert last.subject == "A.phys.neur"
    assert last.outcome == "ok"
    assert last.patients == tuple(m.subject_id for m in answer.matches)
    assert last.searched == tuple(answer.searched)


def test_the_cli_with_as_refuses_bad_input_with_status_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinrag.app.cli import app

    for args in (["Betty Henry", "--node", str(tmp_path)], ["1", "-k", "0"], ["1", "--weights", "0,0,0"]):
        result = CliRunner().invoke(app, ["similar", *args, "--as", "A.phys"])
        assert result.exit_code == 2, result.output
