"""The web app in a real browser: Debian's Chromium, headless, driven by Playwright, against the app served on
loopback over the real demo federation, signing in through the real demo identity providers' consent pages.

Covers two users seeing different evidence for one question, a streamed answer from the local model, opening a
citation and the full note, an abstention, history kept across sign-out and sign-in (and private to its user),
and one hospital down. With ``CLINRAG_SCREENSHOTS=DIR`` the main screens are saved into DIR (docs/img for the
README)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from clinrag.access.identity import TokenVerifier
from clinrag.app.chat_service import ChatService, trusted_issuers
from clinrag.app.web.server import WebConfig, create_web_app
from clinrag.app.web.signin import Provider, SignIn
from clinrag.app.web.store import WebStore
from clinrag.demo.web_testing import CHROMIUM, CHROMIUM_FLAGS
from clinrag.federation.root import FederationRoot, OrgEndpoint
from clinrag.federation.serving import ThreadServer, free_port
from clinrag.settings import AnswerSettings, FederationSettings, PathSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, Federation

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs pip install 'clinrag[dev]'")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)")

STROKE = "Who was treated for a stroke?"
NOBODY = "What did Zoltan Kerekes's colonoscopy show?"
SHOTS = os.environ.get("CLINRAG_SCREENSHOTS")
TIMEOUT_MS = 120_000


@dataclass
class Web:
    """A served web app and its store."""

    url: str
    store: WebStore
    server: ThreadServer


def serve_web(tmp: Path, orgs: list[OrgEndpoint], models: dict[str, object]) -> Web:
    """The web app over ``orgs`` with ``models``, on a free loopback port."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = FederationRoot(orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    verifier = TokenVerifier(trusted_issuers(orgs), audience="clinrag")
    settings = AnswerSettings(max_tokens=160)  # keeps the local model's answers short on 2 cores
    service = ChatService(root, verifier, models, settings, EMBEDDER)  # type: ignore[arg-type]
    providers = [Provider(org.org, org.label, org.issuer) for org in orgs]
    signin = SignIn(providers, "clinrag", "clinrag-demo", f"{url}/auth/callback")
    store = WebStore(tmp / "web.sqlite3")
    app = create_web_app(service, store, signin, WebConfig(secret=b"k" * 32))
    server = ThreadServer(app, port=port).start()
    return Web(url, store, server)


@pytest.fixture(scope="module")
def local_model() -> Iterator[object]:
    """The demo GGUF model (real llama.cpp), for the streaming test."""
    pytest.importorskip("xllamacpp", reason="needs pip install 'clinrag[local-llm]'")
    from clinrag.generate.gguf import DEMO_MODEL, assemble
    from clinrag.generate.local import LlamaCppGenerator

    path = assemble(PathSettings().cache_dir, DEMO_MODEL)
    with LlamaCppGenerator(path, context_window=4096, threads=2, seed=0) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def web(federation: Federation, local_model: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The web app over the whole demo federation, with the extractive and the local answerer."""
    served = serve_web(
        tmp_path_factory.mktemp("web"),
        federation.orgs,
        {"clinrag-extractive": None, "clinrag-local": local_model},
    )
    yield served
    served.server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Debian Chromium."""
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh browser context (no cookies) and page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def shot(page: object, name: str) -> None:
    """Save a screenshot when CLINRAG_SCREENSHOTS names a folder."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)  # type: ignore[attr-defined]


def sign_in(page: object, web: Web, subject: str, screenshots: bool = False) -> None:
    """Sign ``subject`` in through the hospital's consent page, as a person would."""
    org = subject.split(".", maxsplit=1)[0]
    page.goto(web.url)  # type: ignore[attr-defined]
    if screenshots:
        shot(page, "signin")
    page.get_by_role("button", name=re.compile(f"Hospital {org}")).click()  # type: ignore[attr-defined]
    consent = page.get_by_role("button", name=f"Sign in as {subject}", exact=True)  # type: ignore[attr-defined]
    consent.wait_for()
    if screenshots:
        shot(page, "consent")
    consent.click()
    page.wait_for_url(re.compile(r"/$"))  # type: ignore[attr-defined]
    assert subject in page.get_by_test_id("who").inner_text()  # type: ignore[attr-defined]


def ask(page: object, question: str, model: str | None = None, sources: int | None = None) -> object:
    """Ask ``question`` and wait for the finished answer; returns the turn's locator."""
    if model is not None or sources is not None:
        page.locator("details.options summary").click()  # type: ignore[attr-defined]
    if model is not None:
        page.select_option("select[name=model]", model)  # type: ignore[attr-defined]
    if sources is not None:
        page.select_option("select[name=sources]", str(sources))  # type: ignore[attr-defined]
    page.fill("#question", question)  # type: ignore[attr-defined]
    page.click("#send")  # type: ignore[attr-defined]
    turn = page.locator("article.turn").last  # type: ignore[attr-defined]
    turn.locator(".result[data-status='done'], .result[data-status='failed']").wait_for()
    return turn


def evidence_of(turn: object) -> set[str]:
    """The organisations of every source the evidence panel lists."""
    headings = turn.locator("section.source h5").all_inner_texts()  # type: ignore[attr-defined]
    return {heading.split("]")[1].strip().split(" ")[0] for heading in headings}


def test_two_users_see_different_evidence_for_the_same_question(page: object, web: Web, browser: object) -> None:
    sign_in(page, web, "A.phys", screenshots=True)
    turn = ask(page, STROKE)
    assert turn.locator(".answer a.cite").count() >= 1  # type: ignore[attr-defined]
    a_orgs = evidence_of(turn)
    statuses = turn.locator("li.org").all_inner_texts()  # type: ignore[attr-defined]
    assert any("Hospital C" in status and "denied by Hospital C" in status for status in statuses)
    shot(page, "answer")

    other = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()  # type: ignore[attr-defined]
    other.set_default_timeout(TIMEOUT_MS)
    sign_in(other, web, "C.research")
    c_turn = ask(other, STROKE)
    c_orgs = evidence_of(c_turn)
    assert c_orgs == {"C"}, "C.research may only see Hospital C"
    assert "A" in a_orgs or "B" in a_orgs
    assert a_orgs != c_orgs
    other.context.close()


def test_the_local_model_streams_its_draft_before_the_checked_answer(page: object, web: Web) -> None:
    sign_in(page, web, "A.phys")
    page.evaluate(  # type: ignore[attr-defined]
        """() => { window.seenDrafts = 0; new MutationObserver(() => {
             if (document.querySelector('.pending[data-drafting=true]')) window.seenDrafts += 1;
           }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}); }"""
    )
    page.set_default_timeout(3 * TIMEOUT_MS)  # a 0.5B model on 2 shared cores: tens of seconds
    turn = ask(page, STROKE, model="clinrag-local", sources=3)
    assert page.evaluate("() => window.seenDrafts") >= 2  # type: ignore[attr-defined]
    result = turn.locator(".result")  # type: ignore[attr-defined]
    assert result.locator(".answer, .abstention").count() == 1
    assert result.locator(".pending").count() == 0, "the draft is replaced by the verified answer"


def test_opening_a_citation_shows_the_source_and_its_full_note(page: object, web: Web) -> None:
    sign_in(page, web, "A.phys")
    turn = ask(page, STROKE)
    link = turn.locator(".answer a.cite").first  # type: ignore[attr-defined]
    number = link.get_attribute("data-source")
    link.click()
    source = turn.locator(f"section.source[id$='-{number}']")  # type: ignore[attr-defined]
    assert "focus" in (source.get_attribute("class") or "")
    assert source.locator("mark").count() >= 1, "the supporting sentence is highlighted"
    assert re.search(r"Score\s*:?\s*[0-9.]+", source.inner_text())
    shot(page, "evidence")
    source.locator("a.open-note").click()
    page.wait_for_url(re.compile(r"/note$"))  # type: ignore[attr-defined]
    assert page.locator("section.note-part").count() >= 1  # type: ignore[attr-defined]
    assert page.locator("section.note-part.cited").count() == 1  # type: ignore[attr-defined]
    shot(page, "note")


def test_an_abstention_looks_different_and_says_why(page: object, web: Web) -> None:
    sign_in(page, web, "B.nurse")
    turn = ask(page, NOBODY)
    abstention = turn.locator(".abstention")  # type: ignore[attr-defined]
    assert abstention.count() == 1
    assert "Not enough information" in abstention.inner_text()
    assert abstention.locator(".reason").inner_text().strip()
    assert turn.locator(".answer").count() == 0  # type: ignore[attr-defined]
    shot(page, "abstention")


def test_history_survives_sign_out_and_stays_private(page: object, web: Web, browser: object) -> None:
    sign_in(page, web, "B.phys")
    question = "Which patients had atrial fibrillation?"
    ask(page, question)
    page.get_by_role("button", name="Sign out").click()  # type: ignore[attr-defined]
    page.wait_for_url(re.compile(r"/signin\?bye=1$"))  # type: ignore[attr-defined]
    page.goto(web.url + "/")  # type: ignore[attr-defined]
    assert page.url.endswith("/signin")  # type: ignore[attr-defined]
    sign_in(page, web, "B.phys")
    history = page.locator("#conversations a")  # type: ignore[attr-defined]
    assert question in history.all_inner_texts()
    history.filter(has_text=question).click()
    assert page.locator("article.turn .question").first.inner_text().endswith(question)  # type: ignore[attr-defined]
    conversation_url = page.url  # type: ignore[attr-defined]
    shot(page, "history")

    stranger = browser.new_context().new_page()  # type: ignore[attr-defined]
    stranger.set_default_timeout(TIMEOUT_MS)
    sign_in(stranger, web, "B.nurse")
    assert question not in stranger.locator("#conversations").inner_text()
    reply = stranger.goto(conversation_url)
    assert reply.status == 404
    stranger.context.close()

    page.once("dialog", lambda dialog: dialog.accept())  # type: ignore[attr-defined]
    page.locator("#conversations li.current button.delete").click()  # type: ignore[attr-defined]
    page.wait_for_url(re.compile(r"/$"))  # type: ignore[attr-defined]
    assert question not in page.locator("#conversations").inner_text()  # type: ignore[attr-defined]


def test_one_hospital_down_costs_a_flag_not_the_answer(
    page: object, federation: Federation, tmp_path_factory: pytest.TempPathFactory
) -> None:
    orgs = [
        org if org.org != "B" else org.model_copy(update={"url": f"http://127.0.0.1:{free_port()}"})
        for org in federation.orgs
    ]
    down = serve_web(tmp_path_factory.mktemp("web-down"), orgs, {"clinrag-extractive": None})
    try:
        sign_in(page, down, "A.phys")
        turn = ask(page, STROKE)
        status = turn.locator("li.org[data-status='unreachable']")  # type: ignore[attr-defined]
        assert status.count() == 1
        assert "Hospital B" in status.inner_text()
        assert turn.locator(".answer a.cite").count() >= 1  # type: ignore[attr-defined]
        shot(page, "hospital-down")
    finally:
        down.server.stop()
