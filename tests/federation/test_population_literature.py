"""Population questions that ask the literature too, on the real demo federation of the federation tests (three
hospitals with their providers, policies and audit logs, and the library node, on loopback): the counts come from
the hospitals, the evidence from the library only, in two labelled parts with one numbering — through the same
`answer_routed` call as ``clinrag ask --as``, through ``clinrag ask --token … --federation …`` itself, and
``clinrag ask --node`` on a hospital's folder (no library there: said). A population question that names no
literature never reaches the library."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.demo.library import LIBRARY_ORG
from clinrag.federation.audit import AuditLog
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederatedSearcher, FederationRoot
from clinrag.federation.source_searcher import literature_searcher
from clinrag.generate.answer import Answerer
from clinrag.generate.literature_part import literature_answer
from clinrag.generate.planner import Planner
from clinrag.generate.population_answer import COUNTS_LABEL, NO_LIBRARY, RoutedAnswer
from clinrag.generate.routed import answer_routed
from clinrag.generate.source_parts import LABELS
from clinrag.retrieve.sources import LITERATURE_KINDS, SourceFamily
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings
from clinrag.types import Answer

from ..shared.federation import EMBEDDER, Federation

AF = (
    "How many of our patients with atrial fibrillation are on apixaban, and what do the trials say about apixaban "
    "versus warfarin?"
)
FALLS = "How many patients came in after a fall, and what do the trials say about tranexamic acid for hip fracture?"
COUNT_ONLY = "How many of our patients with atrial fibrillation are on apixaban?"
SETTINGS = FederationSettings(timeout=30)
USER = "A.phys.neur"  # sees every department of the three hospitals
runner = CliRunner()


@pytest.fixture(scope="module")
def root(federation: Federation) -> Iterator[FederationRoot]:
    running = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, SETTINGS)
    yield running
    running.close()


def _no_records() -> Answer:
    raise AssertionError("a population question must not search the hospitals' records")


def _asked_as_the_cli(root: FederationRoot, federation: Federation, question: str) -> tuple[RoutedAnswer, list[str]]:
    """The answer of `clinrag ask --as USER` (its planner, counter and `answer_routed` call), and the organisations
    its searches reached."""
    token = federation.token(USER)
    counter = FederatedCounter(federation.orgs, token, SETTINGS)
    searcher = FederatedSearcher(root, token)
    answerer = Answerer(searcher, AnswerSettings(), None, EMBEDDER)
    plan = Planner(counter.vocabulary()).plan(question)
    answer = answer_routed(plan, counter, _no_records, literature=literature_answer(answerer, question))
    reached = [part.org.org for part in searcher.last.orgs] if searcher.last is not None else []
    return answer, reached


def _library_entries(federation: Federation) -> int:
    return sum(1 for _ in AuditLog(federation.configs[LIBRARY_ORG].audit_log).entries())


def _check_parts(answer: RoutedAnswer) -> None:
    """Two labelled parts, the counts first; the literature's sources numbered first, the counts' passages after."""
    assert answer.route is not None
    assert answer.route.route == "both", answer.route
    assert "asks the literature too" in answer.route.reason
    assert answer.population is not None
    lines = answer.text.splitlines()
    assert lines[0] == COUNTS_LABEL
    assert answer.text.startswith(answer.population.text)  # the API and the CLI put the tables after it
    split = lines.index(LABELS[SourceFamily.LITERATURE])
    assert "[Q1]" in "\n".join(lines[:split])
    assert "[Q1]" not in "\n".join(lines[split:])
    assert LABELS[SourceFamily.RECORDS] not in lines  # nothing retrieved from the records
    assert not answer.abstained, answer.text
    assert answer.sources
    assert {s.chunk.source_kind.value for s in answer.sources} <= LITERATURE_KINDS
    assert {s.chunk.org for s in answer.sources} == {LIBRARY_ORG}
    assert answer.cited
    assert max(answer.cited) <= len(answer.sources)
    for sentence in answer.sentences:
        assert all(1 <= n <= len(answer.sources) for n in sentence.citations)
    for note in answer.population.evidence:  # one numbering: the passages follow the literature's sources
        assert note.number > len(answer.sources)
        assert f"[{note.number}]" in "\n".join(lines[:split])
    assert set(answer.population.contributed) == {"Hospital A", "Hospital B", "Hospital C"}


@pytest.mark.parametrize("question", [AF, FALLS])
def test_counts_from_the_hospitals_and_evidence_from_the_library(
    root: FederationRoot, federation: Federation, question: str
) -> None:
    answer, reached = _asked_as_the_cli(root, federation, question)
    _check_parts(answer)
    assert reached == [LIBRARY_ORG]  # the literature part asked the library alone
    query = answer.population.results[0].query.describe() if answer.population else ""
    if question == AF:  # the literature's clause is no criterion: 'versus warfarin' counts nothing
        assert query == "number of patients with diagnosis atrial fibrillation (I48*) and medication apixaban"
    else:
        assert answer.population is not None
        assert answer.population.evidence  # example passages, numbered after the literature's sources
        assert query == 'number of admissions with notes say "fall"'


def test_a_population_question_naming_no_literature_never_asks_the_library(
    root: FederationRoot, federation: Federation
) -> None:
    before = _library_entries(federation)
    answer, reached = _asked_as_the_cli(root, federation, COUNT_ONLY)
    assert answer.route is not None
    assert answer.route.route == "population"
    assert reached == []  # no search at all
    assert COUNTS_LABEL not in answer.text
    assert LABELS[SourceFamily.LITERATURE] not in answer.text
    assert _library_entries(federation) == before  # the library's audit log: not asked
    _asked_as_the_cli(root, federation, AF)
    assert _library_entries(federation) > before  # asked, audited, when the question names the literature


def test_a_federation_without_a_library_says_so(federation: Federation) -> None:
    hospitals = [org for org in federation.orgs if not org.library]
    without = FederationRoot(hospitals, RetrieveSettings(), EMBEDDER.id, SETTINGS)
    try:
        searcher = FederatedSearcher(without, federation.token(USER))
        assert literature_searcher(searcher) is None
        assert literature_answer(Answerer(searcher, AnswerSettings()), AF) is None
        counter = FederatedCounter(hospitals, federation.token(USER), SETTINGS)
        answer = answer_routed(Planner(counter.vocabulary()).plan(AF), counter, _no_records, literature=None)
    finally:
        without.close()
    assert answer.route is not None
    assert answer.route.route == "population"
    assert answer.text.endswith(NO_LIBRARY)


def test_clinrag_ask_with_a_token_answers_both_parts(federation: Federation, tmp_path: Path) -> None:
    listed = "".join(
        f'[[orgs]]\norg = "{o.org}"\nname = "{o.name}"\nurl = "{o.url}"\nissuer = "{o.issuer}"\nkind = "{o.kind}"\n'
        for o in federation.orgs
    )
    (tmp_path / "federation.toml").write_text(listed)
    arguments = ["ask", AF, "--token", federation.token(USER), "--federation", str(tmp_path / "federation.toml")]
    result = runner.invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["route"]["route"] == "both"
    assert body["text"].startswith(COUNTS_LABEL + "\n")
    assert body["text"].startswith(body["population"]["text"])
    assert f"\n{LABELS[SourceFamily.LITERATURE]}\n" in body["text"]
    assert not body["abstained"]
    assert body["cited"]
    assert {source["chunk"]["source_kind"] for source in body["sources"]} <= LITERATURE_KINDS
    assert [(o["org"], o["status"]) for o in body["organisations"]] == [(LIBRARY_ORG, "answered")]
    shown = runner.invoke(app, arguments, terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "route: both" in shown.output
    assert shown.output.index(COUNTS_LABEL) < shown.output.index(LABELS[SourceFamily.LITERATURE])


def test_clinrag_ask_on_a_hospital_folder_counts_and_says_no_library_answers(federation: Federation) -> None:
    result = runner.invoke(app, ["ask", AF, "--node", str(federation.out / "nodes" / "A"), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["route"]["route"] == "population"
    assert body["text"].endswith(NO_LIBRARY)
    assert body["sources"] == []
