"""A population question that asks the literature too, through the OpenAI-compatible API (the chat service the web
app shares) with the official ``openai`` client against the real demo federation and its library: the content is
the counts' part with its Markdown table, then the literature's part, each under its label with one numbering of
citations; ``clinrag.route`` says ``both`` and why, ``clinrag.organisations`` lists the library the literature part
asked, and ``clinrag.sources`` holds only the library's passages. A population question naming no literature does
not reach the library."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import openai
import pytest

from clinrag.access.identity import TokenVerifier
from clinrag.app.chat_service import ChatService, trusted_issuers
from clinrag.app.openai_api import create_openai_app
from clinrag.app.population_tables import markdown_tables
from clinrag.demo.library import LIBRARY_ORG
from clinrag.federation.root import FederationRoot
from clinrag.federation.serving import ThreadServer
from clinrag.generate.population_answer import COUNTS_LABEL, PopulationAnswer
from clinrag.generate.source_parts import LABELS
from clinrag.retrieve.sources import LITERATURE_KINDS, SourceFamily
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation

BOTH = (
    "How many of our patients with atrial fibrillation are on apixaban, and what do the trials say about apixaban "
    "versus warfarin?"
)
COUNT_ONLY = "How many of our patients with atrial fibrillation are on apixaban?"


@dataclass
class Api:
    """The served API and how to reach it as a user."""

    url: str
    federation: Federation

    def ask(self, subject: str, question: str) -> Any:
        """A non-streamed completion for ``subject``."""
        client = openai.OpenAI(base_url=f"{self.url}/v1", api_key=self.federation.token(subject), max_retries=0)
        messages: Any = [{"role": "user", "content": question}]
        return client.chat.completions.create(model="clinrag-extractive", messages=messages, timeout=180)


@pytest.fixture(scope="module")
def api(federation: Federation) -> Iterator[Api]:
    """The API over the demo federation (hospitals and library) with the extractive answerer."""
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings(), EMBEDDER)
    with ThreadServer(create_openai_app(service)) as server:
        yield Api(server.url, federation)
    root.close()


def test_counts_and_literature_in_two_labelled_parts(api: Api) -> None:
    reply = api.ask("A.phys.neur", BOTH)
    extension = reply.clinrag
    assert extension["route"]["route"] == "both"
    assert "asks the literature too" in extension["route"]["reason"]
    population = PopulationAnswer.model_validate(extension["population"])
    assert population.text.startswith(f"{COUNTS_LABEL}\n")
    assert set(population.contributed) == {"Hospital A", "Hospital B", "Hospital C"}
    content = reply.choices[0].message.content
    literature = LABELS[SourceFamily.LITERATURE]
    assert content.startswith(f"{population.text}\n\n{markdown_tables(population)}\n\n{literature}\n")
    assert LABELS[SourceFamily.RECORDS] not in content.splitlines()
    assert not extension["abstained"]
    sources = extension["sources"]
    assert sources
    assert {source["org"] for source in sources} == {LIBRARY_ORG}
    assert {source["kind"] for source in sources} <= LITERATURE_KINDS
    numbers = {source["number"] for source in sources}
    literature_part = content.split(f"\n{literature}\n", 1)[1]
    cited = {n for sentence in extension["sentences"] for n in sentence["citations"]}
    assert cited
    assert cited <= numbers
    assert all(f"[{n}]" in literature_part for n in cited)
    assert [(o["org"], o["status"]) for o in extension["organisations"]] == [(LIBRARY_ORG, "answered")]


def test_a_population_question_naming_no_literature_reaches_no_library(api: Api) -> None:
    reply = api.ask("A.phys.neur", COUNT_ONLY)
    extension = reply.clinrag
    assert extension["route"]["route"] == "population"
    assert extension["organisations"] == []  # counted at the hospitals; nothing searched
    assert extension["sources"] == []
    content = reply.choices[0].message.content
    assert COUNTS_LABEL not in content
    assert LABELS[SourceFamily.LITERATURE] not in content
