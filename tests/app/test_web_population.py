"""Population questions in the web app (issue 17), over HTTP against the real demo federation: the planner routes a
counting question to the population counter with the user's own token; the turn shows the route and its reason,
the query in words, the table with each hospital's count, the hospitals that contributed or denied, and a bar chart
in which small cells have no bar; the conversation keeps it; a record question still goes to retrieval."""

from __future__ import annotations

import doctest
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape

import httpx
import pytest
from markupsafe import escape

from clinrag.access.identity import TokenVerifier
from clinrag.app import chat_service, population_tables
from clinrag.app.chat_service import ChatService, trusted_issuers
from clinrag.app.web import population_view
from clinrag.app.web.server import WebConfig, create_web_app
from clinrag.app.web.signin import Provider, SignIn
from clinrag.app.web.store import WebStore
from clinrag.demo.web_testing import csrf_token, sign_in_over_http
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederationRoot
from clinrag.federation.serving import ThreadServer, free_port
from clinrag.generate.planner import Planner
from clinrag.generate.population_answer import RoutedAnswer
from clinrag.generate.routed import answer_routed
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings
from clinrag.types import Answer

from ..shared.federation import EMBEDDER, Federation

PER_HOSPITAL = "How many patients were admitted per hospital?"
DIAGNOSES = "What are the most common diagnoses?"
STROKE = "How many patients had a stroke?"
RECORDS = "Who was treated for a stroke?"
SETTINGS = FederationSettings(timeout=20)


@pytest.fixture(scope="module")
def web_url(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The web app with the extractive answerer over the demo federation."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, SETTINGS)
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings(), EMBEDDER)
    providers = [Provider(org.org, org.label, org.issuer) for org in federation.orgs]
    signin = SignIn(providers, "clinrag", "clinrag-demo", f"{url}/auth/callback")
    web_store = WebStore(tmp_path_factory.mktemp("web-population") / "web.sqlite3")
    with ThreadServer(create_web_app(service, web_store, signin, WebConfig(secret=b"p" * 32)), port=port):
        yield url


@contextmanager
def signed_in(web_url: str, subject: str) -> Iterator[httpx.Client]:
    """A client that signed ``subject`` in through their hospital's consent page."""
    with httpx.Client(base_url=web_url, timeout=120) as client:
        sign_in_over_http(client, subject)
        yield client


def ask_streamed(client: httpx.Client, question: str) -> tuple[dict[str, str], list[tuple[str, dict[str, str]]]]:
    """Ask as the page's script does; the created turn and the events of its stream."""
    csrf = csrf_token(client.get("/").text)
    created = client.post(
        "/ask", data={"question": question, "csrf": csrf}, headers={"accept": "application/json"}
    ).json()
    events: list[tuple[str, dict[str, str]]] = []
    name = ""
    with client.stream("GET", created["events"]) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                name = line.split(": ", 1)[1]
            elif line.startswith("data: "):
                events.append((name, json.loads(line.split(": ", 1)[1])))
    return created, events


def cli_answer(federation: Federation, subject: str, question: str) -> RoutedAnswer:
    """The answer `clinrag ask --as SUBJECT` gives (its planner, counter and `answer_routed` call)."""
    counter = FederatedCounter(federation.orgs, federation.token(subject), SETTINGS)
    plan = Planner(counter.vocabulary()).plan(question)

    def records() -> Answer:
        raise AssertionError("a population question must not search records")

    return answer_routed(plan, counter, records)


_ROW = re.compile(r"<tr(?: class=\"suppressed\")?>(.*?)</tr>", re.DOTALL)
_CELL = re.compile(r"<td[^>]*>(.*?)</td>")
_BAR = re.compile(r'<g class="bar (\w+)" data-count="([^"]*)">(.*?)</g>')


def table_cells(html: str) -> list[list[str]]:
    """The body rows of the turn's population tables, as shown."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [[unescape(cell) for cell in _CELL.findall(row)] for row in _ROW.findall(body)]


def bars(html: str) -> list[tuple[str, str, bool]]:
    """Each bar of the chart: its kind, its count as shown, and whether a bar is drawn."""
    return [(kind, unescape(count), "<rect" in inner) for kind, count, inner in _BAR.findall(html)]


def test_a_population_question_streams_its_route_table_and_chart(web_url: str, federation: Federation) -> None:
    expected = cli_answer(federation, "A.phys.neur", PER_HOSPITAL)
    assert expected.population is not None
    assert expected.route is not None
    (result,) = expected.population.results
    with signed_in(web_url, "A.phys.neur") as client:
        _, events = ask_streamed(client, PER_HOSPITAL)
    assert [name for name, _ in events] == ["status", "answer"]  # counted: the answer arrives in one piece
    html = events[-1][1]["html"]
    assert 'data-route="population"' in html
    assert "Counted across hospitals" in html
    assert str(escape(expected.route.reason)) in html
    assert result.description in html  # the query in words
    shown = {cells[0]: cells[1] for cells in table_cells(html)}
    assert shown == {f"Hospital {row.group['org']}": row.count for row in result.table}  # the CLI's numbers
    assert set(shown) == {"Hospital A", "Hospital B", "Hospital C"}
    assert all(drawn for _, _, drawn in bars(html))
    assert len(bars(html)) == 3
    assert f"total {result.total}" in html
    for org in "ABC":
        assert f'data-status="ok"><strong>Hospital {org}</strong>: counted' in html
    assert "Contributed: Hospital A, Hospital B, Hospital C" in html
    assert 'class="cite query" href="#pop-' in html  # [Q1] links to its table


def test_a_denied_hospital_is_said_and_not_counted_and_history_keeps_it(web_url: str, federation: Federation) -> None:
    expected = cli_answer(federation, "A.phys", PER_HOSPITAL)
    assert expected.population is not None
    (result,) = expected.population.results
    with signed_in(web_url, "A.phys") as client:
        csrf = csrf_token(client.get("/").text)
        reply = client.post("/ask", data={"question": PER_HOSPITAL, "csrf": csrf})  # without JavaScript
        assert reply.status_code == 303
        conversation = reply.headers["location"].split("#")[0]
        for html in (client.get(conversation).text, client.get(conversation).text):  # kept in the history
            rows = table_cells(html)
            assert {cells[0] for cells in rows} == {"Hospital A", "Hospital B"}  # C's patients are not counted
            assert {cells[0]: cells[1] for cells in rows} == {
                f"Hospital {row.group['org']}": row.count for row in result.table
            }
            assert f"total {result.total}" in html
            assert result.total == str(sum(int(cells[1]) for cells in rows))
            assert 'data-status="denied"><strong>Hospital C</strong>: denied by policy' in html
            assert "Denied: Hospital C" in html
            assert "· denied: Hospital C" in html


def test_small_cells_are_drawn_without_a_bar(web_url: str, federation: Federation) -> None:
    expected = cli_answer(federation, "A.phys.neur", DIAGNOSES)
    assert expected.population is not None
    (result,) = expected.population.results
    with signed_in(web_url, "A.phys.neur") as client:
        _, events = ask_streamed(client, DIAGNOSES)
        html = events[-1][1]["html"]
        rows = table_cells(html)
        assert [cells[:2] for cells in rows] == [[f"{row.label} ({row.item})", row.count] for row in result.table]
        assert [cells[2:] for cells in rows] == [[row.by_org.get(org, "") for org in "ABC"] for row in result.table]
        assert any("<5" in cells[2:] for cells in rows)  # a hospital's small cell, shown as such
        for kind, count, drawn in bars(html):
            assert drawn == (kind != "small")
            assert (kind == "bound") == count.startswith("≥")
        _, events = ask_streamed(client, STROKE)
        stroke = events[-1][1]["html"]
    assert table_cells(stroke)[0][:2] == ["total", "<5"]
    assert bars(stroke) == [("small", "<5", False)]  # no bar length tells the withheld count
    assert "<rect" not in stroke


def test_a_record_question_still_searches_records(web_url: str) -> None:
    with signed_in(web_url, "A.phys") as client:
        _, events = ask_streamed(client, RECORDS)
    html = events[-1][1]["html"]
    assert 'data-route="records"' in html
    assert "Searched records" in html
    assert 'class="source cited"' in html
    assert 'class="population"' not in html
    assert "<svg" not in html
    assert 'aria-label="Organisations"' in html


def test_the_module_examples_hold() -> None:
    outcomes = [doctest.testmod(module) for module in (population_view, population_tables, chat_service)]
    assert all(outcome.failed == 0 for outcome in outcomes)
    assert sum(outcome.attempted for outcome in outcomes) >= 10
