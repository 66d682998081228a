"""Population questions through the OpenAI-compatible API (issue 17), with the official ``openai`` client against the
real demo federation: the content is the answer in words with its table in Markdown, ``clinrag.route`` and
``clinrag.population`` carry the route and the population answer with the numbers ``clinrag ask --as`` gives, for
each user according to their access; a stream carries the same; record questions still go to retrieval."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import openai
import pytest

from clinrag.access.identity import TokenVerifier
from clinrag.app.chat_service import RECORDS_ONLY, ChatService, trusted_issuers
from clinrag.app.openai_api import create_openai_app
from clinrag.app.population_tables import markdown_tables
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederationRoot
from clinrag.federation.serving import ThreadServer
from clinrag.generate.planner import Planner
from clinrag.generate.population_answer import PopulationAnswer, RoutedAnswer
from clinrag.generate.routed import answer_routed
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings
from clinrag.types import Answer

from ..shared.federation import EMBEDDER, Federation

PER_HOSPITAL = "How many patients were admitted per hospital?"
DIAGNOSES = "What are the most common diagnoses?"
RECORDS = "Who was treated for a stroke?"
SETTINGS = FederationSettings(timeout=20)


@dataclass
class Api:
    """The served API and how to reach it as a user."""

    url: str
    federation: Federation

    def ask(self, subject: str, question: str, **options: Any) -> Any:
        """A non-streamed completion for ``subject``."""
        client = openai.OpenAI(base_url=f"{self.url}/v1", api_key=self.federation.token(subject), max_retries=0)
        messages: Any = [{"role": "user", "content": question}]
        return client.chat.completions.create(model="clinrag-extractive", messages=messages, timeout=120, **options)


@pytest.fixture(scope="module")
def api(federation: Federation) -> Iterator[Api]:
    """The API over the demo federation with the extractive answerer."""
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, SETTINGS)
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings(), EMBEDDER)
    with ThreadServer(create_openai_app(service)) as server:
        yield Api(server.url, federation)


def cli_answer(federation: Federation, subject: str, question: str) -> RoutedAnswer:
    """The answer `clinrag ask --as SUBJECT` gives: its planner, federated counter and `answer_routed` call."""
    counter = FederatedCounter(federation.orgs, federation.token(subject), SETTINGS)
    plan = Planner(counter.vocabulary()).plan(question)

    def records() -> Answer:
        raise AssertionError("a population question must not search records")

    return answer_routed(plan, counter, records)


def figures(population: PopulationAnswer) -> list[Any]:
    """What must agree between two answers: the text, each result's query, total and table, and who contributed,
    denied or could not be reached (not the seconds each hospital took)."""
    results = [
        (
            result.query,
            result.total,
            result.denominator,
            result.table,
            [(p.org, p.status, p.counted, p.denied) for p in result.orgs],
        )
        for result in population.results
    ]
    return [population.text, results, population.contributed, population.denied, population.unreachable]


@pytest.mark.parametrize(("subject", "contributed", "denied"), [("A.phys.neur", "ABC", ""), ("A.phys", "AB", "C")])
def test_population_numbers_equal_the_cli_for_each_user(api: Api, subject: str, contributed: str, denied: str) -> None:
    reply = api.ask(subject, PER_HOSPITAL)
    extension = reply.clinrag
    assert extension["route"]["route"] == "population"
    assert "number of patients by hospital" in extension["route"]["reason"]
    population = PopulationAnswer.model_validate(extension["population"])
    expected = cli_answer(api.federation, subject, PER_HOSPITAL)
    assert expected.population is not None
    assert figures(population) == figures(expected.population)
    assert population.contributed == tuple(f"Hospital {org}" for org in contributed)
    assert population.denied == tuple(f"Hospital {org}" for org in denied)
    (result,) = population.results
    assert {row.group["org"] for row in result.table} == set(contributed)  # a denied hospital is not counted
    assert result.total == str(sum(row.value for row in result.table))
    content = reply.choices[0].message.content
    assert content.startswith(expected.population.text)
    assert "| hospital | count |" in content
    for row in result.table:
        assert f"| Hospital {row.group['org']} | {row.count} |" in content
    assert extension["sources"] == []
    assert extension["abstained"] is False


def test_a_ranked_question_has_its_markdown_table_with_small_cells(api: Api) -> None:
    reply = api.ask("A.phys.neur", DIAGNOSES)
    population = PopulationAnswer.model_validate(reply.clinrag["population"])
    expected = cli_answer(api.federation, "A.phys.neur", DIAGNOSES)
    assert expected.population is not None
    assert figures(population) == figures(expected.population)
    content = reply.choices[0].message.content
    assert content == f"{population.text}\n\n{markdown_tables(population)}"
    assert "| diagnosis | count | Hospital A | Hospital B | Hospital C |" in content
    assert "<5 |" in content  # a small cell, never its value
    assert "≥" in content  # a sum with small parts: its lower bound


def test_a_stream_carries_the_same_answer_and_extension(api: Api) -> None:
    whole = api.ask("A.phys", PER_HOSPITAL)
    chunks = list(api.ask("A.phys", PER_HOSPITAL, stream=True))
    content = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert content == whole.choices[0].message.content
    assert not [chunk for chunk in chunks if "draft" in (getattr(chunk, "clinrag", None) or {})]  # one piece
    final = chunks[-1]
    assert final.choices[0].finish_reason == "stop"
    assert final.clinrag["route"] == whole.clinrag["route"]
    assert figures(PopulationAnswer.model_validate(final.clinrag["population"])) == figures(
        PopulationAnswer.model_validate(whole.clinrag["population"])
    )


def test_a_record_question_still_goes_to_retrieval(api: Api) -> None:
    reply = api.ask("A.phys", RECORDS)
    assert reply.clinrag["route"]["route"] == "records"
    assert reply.clinrag["population"] is None
    assert reply.clinrag["sources"]
    assert "|" not in reply.choices[0].message.content.splitlines()[0]


def test_a_question_restricted_to_patients_is_not_counted(api: Api) -> None:
    reply = api.ask("A.phys", PER_HOSPITAL, extra_body={"clinrag": {"patients": [1]}})
    assert reply.clinrag["route"] == {"route": "records", "reason": RECORDS_ONLY}
    assert reply.clinrag["population"] is None
