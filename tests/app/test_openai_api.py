"""The OpenAI-compatible API, driven by the official ``openai`` client against the app served on loopback, over the
real demo federation with real ID tokens: models, answers with checked citations and the ``clinrag`` extension,
streaming, abstentions, per-user evidence, and errors in OpenAI's shape."""

from __future__ import annotations

import doctest
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from typer.testing import CliRunner

from clinrag.access.identity import TokenVerifier
from clinrag.app import chat_service, openai_api, openai_models
from clinrag.app.chat_service import ChatService, service_from_settings, trusted_issuers
from clinrag.app.openai_api import api_app, create_openai_app
from clinrag.errors import ConfigError, GenerationError
from clinrag.federation.root import FederationRoot
from clinrag.federation.serving import RateLimiter, ThreadServer
from clinrag.settings import AnswerSettings, FederationSettings, RetrieveSettings, Settings

from ..shared.federation import EMBEDDER, Federation

STROKE = "Who was treated for a stroke?"
NOBODY = "What did Zoltan Kerekes's colonoscopy show?"
CITATION = re.compile(r"\[(\d+)\]")
SOURCE_BLOCK = re.compile(r'<source n="1"[^>]*>\n(.*?)\n</source>', re.DOTALL)


class ScriptedGenerator:
    """A stand-in model: it drafts the first sentence of source [1], cited, word by word; or fails after two words."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    @property
    def id(self) -> str:
        return "scripted-failing" if self.fail else "scripted"

    @property
    def context_window(self) -> int:
        return 4096

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 1

    def draft(self, messages: list[dict[str, str]]) -> str:
        found = SOURCE_BLOCK.search(messages[-1]["content"])
        first = re.split(r"(?<=\.)\s", found.group(1).strip())[0] if found else "Nothing"
        return f"{first.rstrip('.')}. [1]"

    def complete(self, messages: list[dict[str, str]], max_tokens: int, temperature: float = 0.0) -> str:
        return "".join(self.stream(messages, max_tokens, temperature))

    def stream(self, messages: list[dict[str, str]], max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        for index, word in enumerate(self.draft(messages).split(" ")):
            if self.fail and index == 2:
                raise GenerationError("the model failed mid-answer")
            yield word if index == 0 else " " + word


@dataclass
class Api:
    """The served API and how to reach it as a user."""

    url: str
    federation: Federation

    def client(self, subject: str | None = None, token: str | None = None) -> openai.OpenAI:
        key = token if token is not None else self.federation.token(subject or "A.phys")
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key=key, max_retries=0, timeout=120)


@pytest.fixture(scope="module")
def api(federation: Federation) -> Iterator[Api]:
    """The API over the demo federation with the extractive model and two scripted ones, on a loopback port."""
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    models = {
        "clinrag-extractive": None,
        "clinrag-scripted": ScriptedGenerator(),
        "clinrag-failing": ScriptedGenerator(fail=True),
    }
    service = ChatService(root, verifier, models, AnswerSettings())
    with ThreadServer(create_openai_app(service)) as server:
        yield Api(server.url, federation)


def _ask(api: Api, subject: str, question: str, model: str = "clinrag-extractive") -> Any:
    messages: Any = [{"role": "user", "content": question}]
    return api.client(subject).chat.completions.create(model=model, messages=messages)


@pytest.fixture(scope="module")
def stroke(api: Api) -> dict[str, Any]:
    """The non-streamed answers of A.phys and C.research to the stroke question."""
    return {subject: _ask(api, subject, STROKE) for subject in ("A.phys", "C.research")}


def test_models_lists_one_model_per_configured_generator(api: Api) -> None:
    client = api.client("A.phys")
    assert [model.id for model in client.models.list()] == ["clinrag-extractive", "clinrag-scripted", "clinrag-failing"]
    assert client.models.retrieve("clinrag-extractive").owned_by == "clinrag"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-4o")


def test_an_answer_cites_sources_listed_in_the_extension(stroke: dict[str, Any]) -> None:
    completion = stroke["A.phys"]
    assert completion.object == "chat.completion"
    assert completion.model == "clinrag-extractive"
    assert completion.choices[0].finish_reason == "stop"
    text = completion.choices[0].message.content
    extension = completion.clinrag
    assert not extension["abstained"]
    assert extension["abstention"] is None
    numbers = {source["number"] for source in extension["sources"]}
    cited_in_text = {int(n) for n in CITATION.findall(text)}
    assert cited_in_text, text
    assert cited_in_text <= numbers
    assert set(extension["cited"]) <= cited_in_text
    for source in extension["sources"]:
        assert source["cited"] == (source["number"] in extension["cited"])
        assert {"org", "dept", "subject_id", "note_id", "section", "date", "score", "text"} <= source.keys()
        assert source["text"]
    for line in text.splitlines():  # every sentence ends with its citations
        assert CITATION.search(line), line
    assert 0 < extension["support"] <= 1
    assert {org["org"]: org["status"] for org in extension["organisations"]} == {
        "A": "answered",
        "B": "answered",
        "C": "denied",  # C's router lets its partner's physician in, but every department of C refuses them
    }


def test_a_stream_joins_to_the_answer_and_ends_with_the_extension(api: Api, stroke: dict[str, Any]) -> None:
    messages: Any = [{"role": "user", "content": STROKE}]
    stream = api.client("A.phys").chat.completions.create(model="clinrag-extractive", messages=messages, stream=True)
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    content = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    final = chunks[-1]
    assert final.choices[0].finish_reason == "stop"
    assert all(chunk.choices[0].finish_reason is None for chunk in chunks[:-1])
    expected = stroke["A.phys"]
    assert content == expected.choices[0].message.content
    assert final.clinrag["sources"] == expected.clinrag["sources"]
    assert final.clinrag["cited"] == expected.clinrag["cited"]
    drafts = [chunk.clinrag["draft"] for chunk in chunks[1:-1] if getattr(chunk, "clinrag", None)]
    assert drafts  # the extractive draft arrives in one piece before the verified answer
    assert len({chunk.id for chunk in chunks}) == 1


def test_a_bad_or_missing_token_is_refused_with_no_data(api: Api) -> None:
    forged = api.federation.token("A.phys")[:-8] + "AAAAAAAA"
    messages: Any = [{"role": "user", "content": STROKE}]
    for token in (forged, "not-a-token"):
        with pytest.raises(openai.AuthenticationError) as caught:
            api.client(token=token).chat.completions.create(model="clinrag-extractive", messages=messages)
        assert caught.value.status_code == 401
        assert caught.value.code == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError):
        api.client(token=forged).models.list()
    reply = httpx.post(f"{api.url}/v1/chat/completions", json={"model": "clinrag-extractive", "messages": messages})
    assert reply.status_code == 401
    assert reply.headers["www-authenticate"] == "Bearer"
    assert reply.json() == {
        "error": {
            "message": "missing bearer token: send the ID token as the API key",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }


def test_an_abstention_is_a_normal_message_with_its_reason(api: Api) -> None:
    completion = _ask(api, "A.phys", NOBODY)
    text = completion.choices[0].message.content
    extension = completion.clinrag
    assert extension["abstained"] is True
    assert text.startswith("Not enough information in the accessible records.")
    assert extension["abstention"]["reason"] in text
    assert set(extension["abstention"]["searched"]) == {"A", "B"}  # C denies A.phys in every department
    assert extension["cited"] == []
    assert not CITATION.search(text)


def test_different_users_see_different_evidence(stroke: dict[str, Any]) -> None:
    physician, researcher = stroke["A.phys"].clinrag, stroke["C.research"].clinrag
    assert researcher["sources"]
    assert {source["org"] for source in researcher["sources"]} == {"C"}
    assert "C" not in {source["org"] for source in physician["sources"]}
    statuses = {org["org"]: org["status"] for org in researcher["organisations"]}
    assert statuses == {"A": "denied", "B": "denied", "C": "answered"}
    assert stroke["A.phys"].choices[0].message.content != stroke["C.research"].choices[0].message.content


def test_a_model_stream_sends_its_draft_then_the_verified_answer(api: Api) -> None:
    messages: Any = [{"role": "user", "content": STROKE}]
    stream = api.client("C.research").chat.completions.create(model="clinrag-scripted", messages=messages, stream=True)
    chunks = list(stream)
    drafts = [chunk.clinrag["draft"] for chunk in chunks[:-1] if getattr(chunk, "clinrag", None)]
    assert len(drafts) > 2  # token by token, through the queue
    assert "".join(drafts).endswith(" [1]")
    content = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    final = chunks[-1].clinrag
    assert final["generator"] == "scripted"
    assert not final["abstained"]  # the one drafted sentence quotes [1]: it is supported, and shown as drafted
    assert content == "".join(drafts)
    assert final["cited"] == [1]


def test_a_failure_mid_stream_ends_it_with_an_openai_error(api: Api) -> None:
    messages: Any = [{"role": "user", "content": STROKE}]
    stream = api.client("C.research").chat.completions.create(model="clinrag-failing", messages=messages, stream=True)
    with pytest.raises(openai.APIError) as caught:
        list(stream)
    assert "the model failed mid-answer" in caught.value.message
    assert "Traceback" not in caught.value.message


def test_bad_requests_get_openai_errors_naming_the_field(api: Api) -> None:
    client = api.client("A.phys")
    with pytest.raises(openai.NotFoundError) as missing:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": STROKE}])
    assert missing.value.code == "model_not_found"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"messages": [{"role": "system", "content": "You are helpful."}]}, "no_question"),
        ({"messages": [{"role": "user", "content": "x" * 5000}]}, "question_too_long"),
        ({"messages": []}, "invalid_request"),
        ({"messages": [{"role": "user", "content": STROKE}], "n": 2}, "invalid_request"),
        ({"messages": [{"role": "user", "content": STROKE}], "extra_body": {"clinrag": {"mode": "psychic"}}}, ""),
    ]
    for arguments, code in cases:
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="clinrag-extractive", **arguments)
        assert caught.value.status_code == 400
        assert caught.value.code == (code or "invalid_request")
        assert "You are helpful" not in caught.value.message
    reply = httpx.post(
        f"{api.url}/v1/chat/completions",
        content=b"{not json",
        headers={"Authorization": f"Bearer {api.federation.token('A.phys')}", "Content-Type": "application/json"},
    )
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"


def test_request_options_narrow_the_search(api: Api) -> None:
    first = _ask(api, "A.phys", STROKE).clinrag["sources"][0]
    messages: Any = [{"role": "user", "content": STROKE}]
    completion = api.client("A.phys").chat.completions.create(
        model="clinrag-extractive",
        messages=messages,
        extra_body={"clinrag": {"sources": 2, "patients": [first["subject_id"]], "mode": "dense"}},
    )
    sources = completion.clinrag["sources"]
    assert 1 <= len(sources) <= 2
    assert {source["subject_id"] for source in sources} == {first["subject_id"]}


def test_the_service_is_built_from_the_federation_file(tmp_path: Path) -> None:
    federation = tmp_path / "federation.toml"
    federation.write_text(
        '[[orgs]]\norg = "A"\nurl = "http://127.0.0.1:1"\nissuer = "http://127.0.0.1:2"\n'
        '[[orgs]]\norg = "B"\nurl = "http://127.0.0.1:3"\n'
    )
    settings = Settings(answer=AnswerSettings(openai_base_url="http://127.0.0.1:4/v1"))
    service = service_from_settings(settings, federation)
    assert list(service.models) == ["clinrag-extractive", "clinrag-openai"]
    assert [org.org for org in service.root.orgs] == ["A", "B"]
    service.verifier.close()
    federation.write_text('[[orgs]]\norg = "A"\nurl = "http://127.0.0.1:1"\n')
    with pytest.raises(ConfigError, match="no organisation lists an identity provider"):
        service_from_settings(Settings(), federation)


def test_the_serve_command_documents_its_options() -> None:
    output = CliRunner().invoke(api_app, ["serve", "--help"], terminal_width=200).output
    for option in ("--federation", "--host", "--port", "--config"):
        assert option in output


def test_the_module_examples_hold() -> None:
    outcomes = [doctest.testmod(module) for module in (openai_api, openai_models, chat_service)]
    assert all(outcome.failed == 0 for outcome in outcomes)
    assert sum(outcome.attempted for outcome in outcomes) >= 10


def _limited_api(federation: Federation, **limits: Any) -> ThreadServer:
    settings = FederationSettings(timeout=20, **limits)
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, settings)
    verifier = TokenVerifier(trusted_issuers(federation.orgs), audience="clinrag")
    return ThreadServer(create_openai_app(ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings())))


def test_five_megabytes_without_a_token_get_401_before_the_body_is_read(api: Api) -> None:
    import socket

    port = int(api.url.rsplit(":", 1)[1])
    size = 5_000_000
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head + b'{"model": "clinrag-extractive", "messages": [{"role": "user", "content": "' + b"x" * 8000)
        sock.settimeout(10)
        reply = b""
        while piece := sock.recv(65536):  # the server answers and closes with 4,991,900 bytes still unsent
            reply += piece
    assert reply.startswith(b"HTTP/1.1 401"), reply[:200]
    assert b"connection: close" in reply.lower()
    assert b"invalid_api_key" in reply
    assert b"xxxxxxxx" not in reply


def test_a_body_over_the_cap_gets_413_and_bad_fields_are_named_not_echoed(api: Api) -> None:
    headers = {"Authorization": f"Bearer {api.federation.token('A.phys')}"}
    url = f"{api.url}/v1/chat/completions"
    history = [{"role": "user", "content": "Zebedee " * 20_000}] * 8  # 1.3 MB of conversation
    big = httpx.post(url, json={"model": "clinrag-extractive", "messages": history}, headers=headers, timeout=30)
    assert big.status_code == 413
    assert big.json()["error"]["code"] == "request_too_large"
    assert "Zebedee" not in big.text
    bad = httpx.post(url, json={"model": "Zebedee" * 50, "messages": "Zebedee"}, headers=headers, timeout=30)
    assert bad.status_code == 400
    message = bad.json()["error"]["message"]
    assert "model: String should have at most 200 characters" in message
    assert "messages: Input should be a valid array" in message
    assert "Zebedee" not in message


def test_a_flood_beyond_the_rate_gets_429_with_retry_after(
    federation: Federation, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The buckets' clock stands still, so the flood is one instant however slowly a loaded machine serves it.
    monkeypatch.setattr(openai_api, "RateLimiter", functools.partial(RateLimiter, clock=lambda: 0.0))
    with _limited_api(federation, client_rate=0.5, client_burst=3, user_rate=0.5, user_burst=2) as server:
        anonymous = [httpx.get(f"{server.url}/v1/models") for _ in range(5)]
        assert [reply.status_code for reply in anonymous] == [401, 401, 401, 429, 429]
        assert anonymous[-1].headers["retry-after"] == "2"  # one request at 0.5 a second
        assert anonymous[-1].json()["error"]["code"] == "rate_limit_exceeded"
        headers = {"Authorization": f"Bearer {federation.token('A.phys')}"}
        mine = [httpx.get(f"{server.url}/v1/models", headers=headers) for _ in range(3)]
        assert [reply.status_code for reply in mine] == [200, 200, 429]
        assert mine[-1].headers["retry-after"] == "2"


def test_the_published_schema_keeps_the_chat_request(api: Api) -> None:
    schema = httpx.get(f"{api.url}/openapi.json").json()
    body = schema["paths"]["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ChatCompletionRequest"}
    assert {"ChatCompletionRequest", "ChatMessage", "ClinragOptions"} <= set(schema["components"]["schemas"])
