"""A library asked over the federation (issue 20): the node's reply carries how the library read the question —
words read as its own, each filter applied or dropped — and the root's answer says them as one node's does: in
`clinrag ask --token … --json`, the OpenAI-compatible API's ``clinrag`` extension and the web app's turn.

A one-node federation of its own: a library node (synthetic citations and the test guidelines, two leaves) whose
Cedar policy lets every signed-in user search and retrieve it, served by uvicorn on 127.0.0.1 and trusting Hospital
A's identity provider (the real oidc-provider-mock); A.phys signs in there, and the node verifies the token."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import escape
from pydantic import ValidationError
from typer.testing import CliRunner

from clinrag.access.identity import TokenVerifier, TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.app.chat_service import ChatService
from clinrag.app.cli import app
from clinrag.app.openai_api import create_openai_app
from clinrag.app.openai_models import ClinragExtension
from clinrag.app.web.views import turn_view
from clinrag.demo.idp import RunningProvider, start_provider
from clinrag.federation.config import load_node_config
from clinrag.federation.node import Node, create_node_app
from clinrag.federation.protocol import MAX_NOTE_TEXT, MAX_NOTES, RetrieveRequest, RetrieveResponse, reply_notes
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgEndpoint
from clinrag.federation.serving import ThreadServer
from clinrag.generate.answer import Answerer
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings

from ..guidelines.documents import PUBLISHERS, guideline_folder
from ..shared.federation import EMBEDDER

runner = CliRunner()
TEMPLATES = Path(__file__).resolve().parents[2] / "src/clinrag/app/web/templates"
POLICY = """// The library: every signed-in user may search it and retrieve what it holds (no patient is in it).
@id("lib-search-every-user")
permit (principal, action == Action::"search", resource is Node)
when { resource.org == "LIB" };

@id("lib-retrieve-every-user")
permit (principal, action == Action::"retrieve", resource is Document)
when { resource.org == "LIB" };
"""
NODE = """[node]
org = "LIB"
name = "Library"
data = "node"
policies = "policies"
audit_log = "audit/LIB.jsonl"

[[issuers]]
issuer = "{issuer}"
org = "A"

[tree]
name = "LIB"
[[tree.children]]
name = "literature"
store = "index/literature"
[[tree.children]]
name = "guidelines"
store = "index/guidelines"
"""


@dataclass
class Library:
    """The served library node, its provider, A.phys's token, and a surname the library cites."""

    out: Path
    provider: RunningProvider
    server: ThreadServer
    token: str
    author: str
    local_notes: list[str]
    """What `clinrag ask --node` on the library's folder says, asked before the node held it."""

    @property
    def orgs(self) -> list[OrgEndpoint]:
        return [OrgEndpoint(org="LIB", name="Library", url=self.server.url, issuer=self.provider.issuer)]

    def question(self) -> str:
        """Misspelt, with an author the library cites, one it does not, and a publication type."""
        return _question(self.author)


def _question(author: str) -> str:
    return f"Did apixban lower major bleding in randomised trials by {author} et al. or by Zyxwvut et al.?"


def _invoke(*args: str, env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    out = tmp_path_factory.mktemp("library-federation")
    records = synthetic_records(40, seed=5)
    write_medline(out / "pubmed.xml.gz", records)
    node = out / "node"
    # the node's organisation, which its policy names: the default (LIBRARY) would have every document refused
    _invoke("pubmed", "ingest", str(out / "pubmed.xml.gz"), "--node", str(node), "--org", "LIB")
    allow = [option for publisher in PUBLISHERS for option in ("--allow", publisher)]
    _invoke("guidelines", "ingest", str(guideline_folder(out)), "--node", str(node), "--org", "LIB", *allow)
    _invoke("index", "build", str(node))
    author = records[0].authors[0].last
    local = json.loads(_invoke("ask", _question(author), "--node", str(node), "--json"))
    (out / "policies").mkdir()
    (out / "policies" / "library.cedar").write_text(POLICY)
    provider = start_provider("A")
    (out / "LIB.toml").write_text(NODE.format(issuer=provider.issuer))
    served = Node.open(load_node_config(out / "LIB.toml"), EMBEDDER, RetrieveSettings())
    server = ThreadServer(create_node_app(served)).start()
    token = sign_in(provider.issuer, "A.phys").id_token
    try:
        yield Library(out, provider, server, token, author, local["filter_notes"])
    finally:
        server.stop()
        provider.stop()


EXPECTED_NOTES = (
    "spelling: 'apixban' read as 'apixaban'",
    "spelling: 'bleding' read as 'bleeding'",
)
WHOLE = (
    'spelling: question read as "Did apixaban lower major bleeding in randomised trials by {} et al. or by Zyxwvut '
    'et al.?"'
)


def _check_notes(notes: list[str] | tuple[str, ...], library: Library) -> None:
    assert set(EXPECTED_NOTES) <= set(notes), notes
    assert WHOLE.format(library.author) in notes  # the corrected question, whole
    assert f"filter by author {library.author}: applied" in notes
    assert "filter by author Zyxwvut: no citation in this library, not applied" in notes
    assert any(note.startswith("filter by publication type randomized controlled trial") for note in notes)
    assert len(notes) == len(set(notes))  # each said once, though both leaves read the question


def test_the_nodes_reply_carries_the_librarys_notes(library: Library) -> None:
    request = RetrieveRequest(query=library.question(), k=5, candidates=True, prune=True)
    reply = httpx.post(
        f"{library.server.url}/v1/retrieve",
        content=request.model_dump_json(),
        headers={"Authorization": f"Bearer {library.token}", "Content-Type": "application/json"},
        timeout=60,
    )
    assert reply.status_code == 200, reply.text
    response = RetrieveResponse.model_validate_json(reply.content)
    assert response.searched == ["LIB", "LIB/literature", "LIB/guidelines"]
    _check_notes(response.notes, library)


def test_the_federated_answer_says_the_notes_as_one_node_does(library: Library) -> None:
    root = FederationRoot(library.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
    try:
        answer = Answerer(FederatedSearcher(root, library.token), AnswerSettings(), None, EMBEDDER).answer(
            library.question()
        )
    finally:
        root.close()
    _check_notes(answer.filter_notes, library)
    assert answer.filter_notes == tuple(library.local_notes)


def test_clinrag_ask_over_the_federation_prints_the_notes_in_json(library: Library) -> None:
    federation = library.out / "federation.toml"
    org = library.orgs[0]
    federation.write_text(f'[[orgs]]\norg = "LIB"\nname = "Library"\nurl = "{org.url}"\nissuer = "{org.issuer}"\n')
    body = json.loads(
        _invoke(
            *("ask", library.question(), "--token", library.token, "--federation", str(federation), "--json"),
            env={"CLINRAG_FEDERATION__TIMEOUT": "30"},  # long enough for a healthy node on a loaded machine
        )
    )
    _check_notes(body["filter_notes"], library)
    assert [part["status"] for part in body["organisations"]] == ["answered"]


def test_the_api_extension_and_the_web_turn_show_the_notes(library: Library) -> None:
    root = FederationRoot(library.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
    verifier = TokenVerifier((TrustedIssuer(library.provider.issuer, "A"),), audience="clinrag")  # A's users
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings())
    with ThreadServer(create_openai_app(service)) as server:
        reply = httpx.post(
            f"{server.url}/v1/chat/completions",
            json={"model": "clinrag-extractive", "messages": [{"role": "user", "content": library.question()}]},
            headers={"Authorization": f"Bearer {library.token}"},
            timeout=120,
        )
    assert reply.status_code == 200, reply.text
    completion: dict[str, Any] = reply.json()
    _check_notes(completion["clinrag"]["filter_notes"], library)
    evidence = ClinragExtension.model_validate(completion["clinrag"])
    view = turn_view("t1", completion["choices"][0]["message"]["content"], evidence)
    assert view.filter_notes == tuple(completion["clinrag"]["filter_notes"])
    pages = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True))
    html = pages.get_template("turn_result.html").render(
        item={"turn": SimpleNamespace(id="t1", status="done"), "view": view}, csrf="x"
    )
    assert "filter by author Zyxwvut: no citation in this library, not applied" in html
    assert "spelling: &#39;apixban&#39; read as &#39;apixaban&#39;" in html
    assert "spelling: question read as &#34;Did apixaban lower major bleeding in randomised trials" in html


def test_reply_notes_keep_only_the_librarys_forms_bounded() -> None:
    record_text = "Ada Stone was discharged on apixaban 5 mg twice daily."
    long_filter = "filter by journal " + ", ".join(f"Journal {n}" for n in range(100)) + ": applied"
    notes = reply_notes([record_text, long_filter, *(f"filter by author A{n}: applied" for n in range(40))])
    assert record_text not in notes
    assert len(notes) == MAX_NOTES
    assert len(notes[0]) == MAX_NOTE_TEXT
    assert notes[0].endswith("…")
    with pytest.raises(ValidationError, match="at most 20 items"):
        RetrieveResponse(node="LIB", embedder="e", notes=["filter by x"] * (MAX_NOTES + 1))


# --- citations with their links on every face ------------------------------------------------------------------------

BOTH = "What do the guidelines and studies say about anticoagulation in atrial fibrillation?"
PUBMED = re.compile(r"https://pubmed\.ncbi\.nlm\.nih\.gov/(\d+)/")


def _federation_file(library: Library) -> Path:
    federation = library.out / "federation.toml"
    org = library.orgs[0]
    federation.write_text(f'[[orgs]]\norg = "LIB"\nname = "Library"\nurl = "{org.url}"\nissuer = "{org.issuer}"\n')
    return federation


def test_clinrag_ask_names_and_links_each_citation_and_guideline(library: Library) -> None:
    args = ("ask", BOTH, "--token", library.token, "--federation", str(_federation_file(library)), "--k", "10")
    env = {"CLINRAG_FEDERATION__TIMEOUT": "30", "COLUMNS": "400"}
    body = json.loads(_invoke(*args, "--json", env=env))
    kinds = {source["chunk"]["source_kind"] for source in body["sources"]}
    assert kinds == {"abstract", "guideline"}, body["text"]
    for source in body["sources"]:
        chunk = source["chunk"]
        if chunk["citation"] is not None:
            citation = chunk["citation"]
            url = f"https://pubmed.ncbi.nlm.nih.gov/{citation['pmid']}/"
            assert source["link"] == citation["url"] == url
            assert source["reference"].startswith(citation["authors"][0])
            assert source["reference"].endswith(f" · {citation['title']} · PMID {citation['pmid']}")
            assert f"{citation['journal_abbrev'] or citation['journal']} {citation['year']}" in source["reference"]
        else:
            guideline = chunk["guideline"]
            assert source["link"] == guideline["url"]
            assert source["reference"] == f"{guideline['publisher']} · {guideline['title']} · {guideline['date']}"
    table = _invoke(*args, env=env)  # the sources table: each reference and its link
    for source in body["sources"]:
        assert source["link"] in table
        assert source["reference"].split(" · ")[0] in table


def test_the_api_and_the_evidence_panel_link_each_citation_and_guideline(library: Library) -> None:
    root = FederationRoot(library.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=30))
    verifier = TokenVerifier((TrustedIssuer(library.provider.issuer, "A"),), audience="clinrag")
    service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings())
    with ThreadServer(create_openai_app(service)) as server:
        reply = httpx.post(
            f"{server.url}/v1/chat/completions",
            json={
                "model": "clinrag-extractive",
                "messages": [{"role": "user", "content": BOTH}],
                "clinrag": {"sources": 10},
            },
            headers={"Authorization": f"Bearer {library.token}"},
            timeout=120,
        )
    assert reply.status_code == 200, reply.text
    sources = reply.json()["clinrag"]["sources"]
    assert {source["kind"] for source in sources} == {"abstract", "guideline"}
    for source in sources:
        if source["kind"] == "abstract":
            assert source["citation"]["pmid"]
            assert source["guideline"] is None
            assert source["link"] == f"https://pubmed.ncbi.nlm.nih.gov/{source['citation']['pmid']}/"
            assert source["reference"].endswith(f"PMID {source['citation']['pmid']}")
        else:
            assert source["guideline"]["publisher"] in PUBLISHERS
            assert source["citation"] is None
            assert source["link"] == source["guideline"]["url"]
    evidence = ClinragExtension.model_validate(reply.json()["clinrag"])
    view = turn_view("t1", reply.json()["choices"][0]["message"]["content"], evidence)
    pages = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True))
    html = pages.get_template("turn_result.html").render(
        item={"turn": SimpleNamespace(id="t1", status="done"), "view": view}, csrf="x"
    )
    for info in evidence.sources:
        assert info.link is not None
        assert info.reference is not None
        anchor = f'<a href="{info.link}" target="_blank" rel="noopener noreferrer">{escape(info.reference)}</a>'
        assert anchor in html, info.reference
    assert len(set(PUBMED.findall(html))) == sum(1 for info in evidence.sources if info.citation is not None)
