"""The contract every generator backend passes, built in or a plugin's: an id and a context window, a reply for a
prompt, the same reply at temperature 0, a stream whose pieces join to that reply, and token counts that grow with
the text.

The backends: the local llama.cpp model (the demo GGUF, loaded once per session), the OpenAI-compatible client
against that model's own loopback server, and a plugin registered by an installed package's entry point (a package
written to a temporary folder on ``sys.path``) whose factory returns a client of the same server."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinrag.app.chat_service import configured_models
from clinrag.errors import ConfigError
from clinrag.generate.llm import Generator, OpenAIChatGenerator, generator_from
from clinrag.plugins import GENERATORS, plugin_names
from clinrag.settings import AnswerSettings, PathSettings

from ..plugin_packages import install_plugin

UNREACHABLE = "http://127.0.0.1:9/v1"  # port 9: nothing listens; the plugin's client is made, never called
PROMPT = [{"role": "user", "content": "Name one symptom of a stroke in three words."}]
PLUGIN = """
from clinrag.generate.llm import OpenAIChatGenerator
from clinrag.generate.local import REQUEST_EXTRAS


def make_generator(settings, paths):
    return OpenAIChatGenerator(settings.openai_base_url, model="local", seed=0, extra_body=REQUEST_EXTRAS)
"""


@pytest.fixture
def plugin_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An installed package registering ``contract-chat`` as a generator."""
    install_plugin(
        tmp_path,
        monkeypatch,
        "contract_chat_plugin",
        PLUGIN,
        {GENERATORS: {"contract-chat": "contract_chat_plugin:make_generator"}},
    )
    return "contract-chat"


@pytest.fixture(params=["llama.cpp", "openai-loopback", "plugin"])
def backend(request: pytest.FixtureRequest, local_generator: object) -> Generator:
    from clinrag.generate.local import REQUEST_EXTRAS, LlamaCppGenerator

    assert isinstance(local_generator, LlamaCppGenerator)
    if request.param == "llama.cpp":
        return local_generator
    pytest.importorskip("openai", reason="needs pip install 'clinrag[openai]'")
    if request.param == "openai-loopback":
        return OpenAIChatGenerator(local_generator.base_url, model="local", seed=0, extra_body=REQUEST_EXTRAS)
    name = request.getfixturevalue("plugin_on_path")
    made = generator_from(AnswerSettings(generator=name, openai_base_url=local_generator.base_url), PathSettings())
    assert made is not None
    return made


def test_an_id_and_a_context_window(backend: Generator) -> None:
    assert isinstance(backend, Generator)
    assert backend.id
    assert backend.context_window > 0


def test_a_reply_and_the_same_reply_at_temperature_zero(backend: Generator) -> None:
    reply = backend.complete(PROMPT, max_tokens=12)
    assert reply.strip()
    assert backend.complete(PROMPT, max_tokens=12) == reply


def test_stream_pieces_join_to_the_reply(backend: Generator) -> None:
    assert "".join(backend.stream(PROMPT, max_tokens=12)) == backend.complete(PROMPT, max_tokens=12)


def test_token_counts_grow_with_the_text(backend: Generator) -> None:
    short, longer = backend.count_tokens("fever"), backend.count_tokens("fever and cough for three days " * 4)
    assert 0 < short < longer


def test_a_plugin_name_is_a_valid_setting(plugin_on_path: str) -> None:
    assert plugin_on_path in plugin_names(GENERATORS)
    assert AnswerSettings(generator=plugin_on_path).generator == plugin_on_path
    pytest.importorskip("openai", reason="needs pip install 'clinrag[openai]'")
    offered = configured_models(AnswerSettings(generator=plugin_on_path, openai_base_url=UNREACHABLE), PathSettings())
    assert next(iter(offered)) == f"clinrag-{plugin_on_path}"  # the API and the web app offer it first, by its name
    assert isinstance(offered[f"clinrag-{plugin_on_path}"], OpenAIChatGenerator)
    with pytest.raises(ValueError, match="unknown 'absent'"):
        AnswerSettings(generator="absent")
    with pytest.raises(ConfigError, match=r"no clinrag\.generators plugin named"):
        generator_from(AnswerSettings.model_construct(generator="absent"), PathSettings())
