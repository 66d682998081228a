"""The web app over HTTP, without a browser: the sign-in flow against the real demo identity providers, the
session cookie, CSRF on every form, sign-out, private histories, the no-JavaScript path, streamed events, errors
without stack traces, and the consent page naming the attributes it shares."""

from __future__ import annotations

import doctest
import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from typer.testing import CliRunner

from clinrag.access.identity import TokenVerifier
from clinrag.app.chat_service import ChatService, trusted_issuers
from clinrag.app.cli import app as cli_app
from clinrag.app.web import launch, server, store, views
from clinrag.app.web.server import COOKIE, WebConfig, create_web_app
from clinrag.app.web.signin import Provider, SignIn
from clinrag.app.web.store import WebStore
from clinrag.demo import web_testing
from clinrag.demo.web_testing import csrf_token, sign_in_over_http
from clinrag.federation.root import FederationRoot
from clinrag.federation.serving import ThreadServer, free_port
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation

STROKE = "Who was treated for a stroke?"


@pytest.fixture(scope="module")
def web_url(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The web app with the extractive answerer over the demo federation."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings(), EMBEDDER)
    providers = [Provider(org.org, org.label, org.issuer) for org in federation.orgs]
    signin = SignIn(providers, "clinrag", "clinrag-demo", f"{url}/auth/callback")
    web_store = WebStore(tmp_path_factory.mktemp("web-http") / "web.sqlite3")
    with ThreadServer(create_web_app(service, web_store, signin, WebConfig(secret=b"s" * 32)), port=port) as running:
        assert running.url == url
        yield url


@contextmanager
def signed_in_client(web_url: str, subject: str) -> Iterator[httpx.Client]:
    """A client that signed ``subject`` in: sign-in page, hospital choice, consent page, callback."""
    with httpx.Client(base_url=web_url, timeout=60) as client:
        sign_in_over_http(client, subject)
        yield client


def csrf_of(client: httpx.Client) -> str:
    """The CSRF token on the signed-in user's chat page."""
    return csrf_token(client.get("/").text)


def test_the_consent_step_names_the_attributes_it_shares(web_url: str) -> None:
    with httpx.Client(base_url=web_url, timeout=30) as client:
        choose = client.post("/signin", data={"org": "A", "csrf": csrf_token(client.get("/signin").text)})
        consent = client.get(choose.headers["location"])
        assert consent.status_code == 200
        for claim in ("org", "role", "dept", "affiliations"):
            assert f"<dt>{claim}</dt>" in consent.text
        assert "C_neuro" in consent.text  # A.phys.neur's affiliation, shown before it is shared
        assert "cdn." not in consent.text  # nothing loaded from outside the hospital


def test_pages_need_a_sign_in(web_url: str) -> None:
    with httpx.Client(base_url=web_url) as client:
        assert client.get("/").headers["location"] == "/signin"
        assert client.get("/c/whatever").status_code == 303
        assert client.post("/ask", data={"question": "q"}).status_code == 303
        assert client.get("/turns/x/events").status_code == 401


def test_the_session_cookie_is_signed_httponly_and_samesite(web_url: str) -> None:
    with signed_in_client(web_url, "A.phys") as client:
        header = client.get("/signin").headers.get("set-cookie")  # signed in: no new cookie is needed
        assert header is None
        cookie = next(c for c in client.cookies.jar if c.name == COOKIE)
        assert cookie.has_nonstandard_attr("HttpOnly")
        assert cookie.get_nonstandard_attr("SameSite", "").lower() == "lax"
        assert "." in (cookie.value or "")
        forged = httpx.Client(base_url=web_url, cookies={COOKIE: (cookie.value or "") + "x"})
        assert forged.get("/").status_code == 303  # a tampered cookie is nobody's session
        forged.close()


def test_every_form_needs_its_csrf_token(web_url: str) -> None:
    with signed_in_client(web_url, "A.phys") as client:
        assert client.post("/ask", data={"question": STROKE}).status_code == 403
        assert client.post("/ask", data={"question": STROKE, "csrf": "wrong"}).status_code == 403
        assert client.post("/signout", data={}).status_code == 403
        assert client.post("/c/x/delete", data={}).status_code == 403
        with httpx.Client(base_url=web_url) as anonymous:
            anonymous.get("/signin")
            assert anonymous.post("/signin", data={"org": "A"}).status_code == 403


def test_a_forged_or_replayed_callback_is_refused(web_url: str) -> None:
    with httpx.Client(base_url=web_url, timeout=30) as client:
        client.get("/signin")
        wrong = client.get("/auth/callback", params={"state": "forged", "code": "abc"})
        assert wrong.headers["location"] == "/signin?error=expired"
        assert "expired" in client.get(wrong.headers["location"]).text


def test_without_javascript_a_question_is_answered_then_shown(web_url: str) -> None:
    with signed_in_client(web_url, "A.phys") as client:
        reply = client.post("/ask", data={"question": STROKE, "csrf": csrf_of(client), "sources": "5"})
        assert reply.status_code == 303
        page = client.get(reply.headers["location"].split("#")[0])
        assert page.status_code == 200
        assert 'class="cite"' in page.text
        assert 'class="source cited"' in page.text
        assert "Hospital C" in page.text


def test_the_event_stream_sends_status_then_the_answer(web_url: str) -> None:
    with signed_in_client(web_url, "B.phys") as client:
        created = client.post(
            "/ask",
            data={"question": STROKE, "csrf": csrf_of(client), "mode": "bm25"},
            headers={"Accept": "application/json"},
        ).json()
        assert set(created) == {"turn", "conversation", "title", "events"}
        with client.stream("GET", created["events"]) as events:
            assert events.headers["content-type"].startswith("text/event-stream")
            names = [line.split(": ", 1)[1] for line in events.iter_lines() if line.startswith("event: ")]
        assert names[0] == "status"
        assert names[-1] == "answer"
        again = client.get(created["events"]).text  # a reconnect gets the stored answer, not a second search
        assert again.startswith("event: answer")


def test_histories_are_private_and_sign_out_ends_the_session(web_url: str) -> None:
    with signed_in_client(web_url, "B.phys") as owner, signed_in_client(web_url, "B.nurse") as stranger:
        reply = owner.post("/ask", data={"question": "Who had a fall?", "csrf": csrf_of(owner)})
        conversation = reply.headers["location"].split("#")[0]
        assert owner.get(conversation).status_code == 200
        assert stranger.get(conversation).status_code == 404
        turn = re.search(r"#turn-(\w+)", reply.headers["location"]).group(1)  # type: ignore[union-attr]
        assert stranger.get(f"/turns/{turn}/events").status_code == 404
        stranger_csrf = csrf_of(stranger)
        assert stranger.post(f"{conversation}/delete", data={"csrf": stranger_csrf}).status_code == 303
        assert owner.get(conversation).status_code == 200  # someone else's delete deletes nothing
        old_cookie = owner.cookies.get(COOKIE)
        assert owner.post("/signout", data={"csrf": csrf_of(owner)}).headers["location"] == "/signin?bye=1"
        with httpx.Client(base_url=web_url, cookies={COOKIE: old_cookie or ""}) as replay:
            assert replay.get(conversation).status_code == 303  # the old cookie no longer signs anyone in


def test_pages_carry_security_headers_and_errors_hide_details(web_url: str) -> None:
    with signed_in_client(web_url, "A.admin") as client:
        page = client.get("/")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"
        missing = client.get("/c/does-not-exist")
        assert missing.status_code == 404
        assert "Traceback" not in missing.text
        too_long = client.post("/ask", data={"question": "x" * 5000, "csrf": csrf_of(client)})
        assert too_long.status_code == 400
        assert "4,000" in too_long.text


def test_the_web_command_documents_its_options() -> None:
    output = CliRunner().invoke(cli_app, ["web", "--help"], terminal_width=200).output
    for option in ("--federation", "--host", "--port", "--database", "--secret-file", "--config"):
        assert option in output


def test_the_module_examples_hold() -> None:
    outcomes = [doctest.testmod(module) for module in (launch, server, store, web_testing, views)]
    assert all(outcome.failed == 0 for outcome in outcomes)
    assert sum(outcome.attempted for outcome in outcomes) >= 8
