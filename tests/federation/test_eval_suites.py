"""The evaluation suites over the demo cohort (issue 21) — retrieval, answers, safety, discharge, population — each
in a small version on the federation tests' demo (40 patients, three hospitals: `demo_out`), run twice: equal
numbers (determinism), and the figures each suite exists to report are there and plausible."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.evaluate.suite_checks import SETTINGS, twice

from clinrag.evaluate.discharge import Config
from clinrag.evaluate.suites import SuiteContext
from clinrag.evaluate.suites.answers import AnswersSuite
from clinrag.evaluate.suites.discharge import DischargeSuite
from clinrag.evaluate.suites.population import PopulationSuite
from clinrag.evaluate.suites.retrieval import RetrievalSuite
from clinrag.evaluate.suites.safety import SafetySuite


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suites' cache, shared by this module's tests."""
    return tmp_path_factory.mktemp("eval-work")


def test_retrieval(demo_out: Path, work: Path) -> None:
    context = SuiteContext(demo_out, work, SETTINGS, seed=1)
    result = twice(RetrievalSuite(per_kind=4, modes=("hybrid", "bm25"), prefixes=(True,), resolutions=(True,)), context)
    for kind in ("single_patient", "single_note", "multi_patient", "all"):
        for mode in ("hybrid", "bm25"):
            assert 0.0 <= result.metric(f"{mode} prefix=on resolve=on/{kind}/recall_at_10") <= 1.0
    assert result.metric("hybrid prefix=on resolve=on/wrong_patient_rate") == 0.0
    assert result.metric("targets_checked") == 5
    assert result.metric("questions") == 12
    assert {p.name for p in result.plots} == {"recall-at-10", "ndcg-latency"}
    assert result.timings["hybrid prefix=on resolve=on/latency_p50_ms"] > 0


def test_answers_and_safety_with_the_extractive_answerer(demo_out: Path, work: Path) -> None:
    context = SuiteContext(demo_out, work, SETTINGS, seed=0)
    answers = twice(AnswersSuite(per_kind=3), context)
    assert answers.metric("extractive/answerable/questions") == 3
    assert answers.metric("extractive/answerable/citation_validity") == 1.0
    assert 0.0 <= answers.metric("extractive/answerable/answer_rate") <= 1.0
    safety = twice(SafetySuite(per_kind=3, cases=4), context)
    assert safety.metric("extractive/negative/abstained") == 1.0
    assert safety.metric("extractive/unseen_patient/abstained") == 1.0
    assert safety.metric("extractive/adversarial/cases") == 4
    assert {"note", "question", "other_patients"} <= {
        name.split("/")[2]
        for name in safety.metrics
        if name.startswith("extractive/adversarial/") and name.count("/") == 3
    }
    assert safety.tables[1].name == "adversarial cases"
    assert len(safety.tables[1].rows) == 4


def test_discharge(demo_out: Path, work: Path, tmp_path: Path) -> None:
    context = SuiteContext(demo_out, work, SETTINGS, seed=0, out=tmp_path)
    suite = DischargeSuite(every=2, grid=(Config("none"), Config("text", 15), Config("ehr", 15)), orgs=("C",))
    result = twice(suite, context)
    accuracies = [name for name in result.metrics if name.endswith("/accuracy")]
    assert accuracies
    assert {name.split("/test/")[0] for name in accuracies if "/test/" in name} <= {
        "extractive/none",
        "extractive/text/k15/auto-merging",
        "extractive/ehr/k15/uniform/auto-merging",
    }
    assert (tmp_path / "discharge" / "discharge.json").is_file()
    assert (tmp_path / "discharge" / "questions.jsonl").read_text().count("\n") == result.metric("questions")


def test_population(demo_out: Path, work: Path) -> None:
    context = SuiteContext(demo_out, work, SETTINGS)
    result = twice(PopulationSuite(questions=5, users=("A.phys", "B.nurse")), context)
    assert result.metric("asked") == 5 * (2 + 3)  # two users and three nodes alone
    assert result.metric("exactness") == 1.0
    assert result.tables[0].column("asker") == ["A.phys", "B.nurse", "node A", "node B", "node C"]
