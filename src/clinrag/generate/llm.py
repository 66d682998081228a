"""Text generators behind one protocol: a local GGUF model through llama.cpp, or any OpenAI-compatible chat
endpoint. (The extractive answerer needs no generator; see :mod:`clinrag.generate.extractive`.)

Example:
    >>> generator = OpenAIChatGenerator("http://127.0.0.1:8080/v1", model="default")
    >>> generator.id
    'openai:default@http://127.0.0.1:8080/v1'
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from clinrag.errors import ConfigError
from clinrag.index.openai_client import openai_client
from clinrag.plugins import GENERATORS, load_plugin
from clinrag.settings import AnswerSettings, PathSettings

Messages = list[dict[str, str]]
CHARS_PER_TOKEN_ESTIMATE = 3.5  # for endpoints that do not expose their tokenizer; errs on the generous side


@runtime_checkable
class Generator(Protocol):
    """Writes text from chat messages; streams when asked; counts tokens with its model's tokenizer."""

    @property
    def id(self) -> str:
        """Which model this is, for answers and logs."""
        ...

    @property
    def context_window(self) -> int:
        """Tokens the model can read and write in one call."""
        ...

    def complete(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> str:
        """The whole reply."""
        ...

    def stream(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        """The reply, piece by piece as it is produced."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for this model."""
        ...


class OpenAIChatGenerator:
    """Any OpenAI-compatible ``/v1/chat/completions`` endpoint (vLLM, llama.cpp server, Ollama, Azure, OpenAI)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "none",
        context_window: int = 8192,
        seed: int = 0,
        extra_body: dict[str, object] | None = None,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self._context_window = context_window
        self.seed = seed
        self.extra_body = dict(extra_body or {})  # server-specific sampling, e.g. llama.cpp's repeat_penalty

    @property
    def id(self) -> str:
        """``openai:MODEL@URL``."""
        return f"openai:{self.model}@{self.base_url}"

    @property
    def context_window(self) -> int:
        """As configured (endpoints do not report it)."""
        return self._context_window

    @cached_property
    def _client(self) -> Any:
        return openai_client(self.base_url, self.api_key, "the OpenAI-compatible generator", max_retries=1, timeout=120)

    def complete(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> str:
        """The whole reply (temperature 0 and the seed make it repeatable where the server honours them)."""
        reply = self._create(messages, max_tokens, temperature, stream=False)
        return str(reply.choices[0].message.content or "")

    def stream(self, messages: Messages, max_tokens: int, temperature: float = 0.0) -> Iterator[str]:
        """The reply as the server streams it."""
        for event in self._create(messages, max_tokens, temperature, stream=True):
            if event.choices and event.choices[0].delta.content:
                yield str(event.choices[0].delta.content)

    def _create(self, messages: Messages, max_tokens: int, temperature: float, stream: bool) -> Any:
        return self._client.chat.completions.create(
            model=self.model,
            messages=messages,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=self.seed,
            stream=stream,
            extra_body=self.extra_body or None,
        )

    def count_tokens(self, text: str) -> int:
        """An estimate (about 3.5 characters per token): the endpoint's tokenizer is not reachable."""
        return int(len(text) / CHARS_PER_TOKEN_ESTIMATE) + 1


def generator_from(settings: AnswerSettings, paths: PathSettings) -> Generator | None:
    """The generator the settings choose (None for the extractive answerer), built in or an installed plugin's.

    Example:
        >>> generator_from(AnswerSettings(), PathSettings()) is None
        True
    """
    if settings.generator == "extractive":
        return None
    if settings.generator not in ("local", "openai"):  # an installed package's generator (`clinrag.plugins`)
        made = load_plugin(GENERATORS, settings.generator)(settings, paths)
        if not isinstance(made, Generator):
            raise ConfigError(
                f"the generator plugin {settings.generator!r} made {type(made).__name__}, not a Generator"
            )
        return made
    if settings.generator == "openai":
        if not settings.openai_base_url:
            raise ConfigError("answer.openai_base_url is not set; set it to the endpoint's /v1 URL")
        return OpenAIChatGenerator(
            settings.openai_base_url,
            settings.openai_model,
            settings.openai_api_key,
            context_window=settings.context_window,
            seed=settings.seed,
        )
    from clinrag.generate.gguf import PACKAGED_MODELS, assemble
    from clinrag.generate.local import LlamaCppGenerator

    model_path = settings.model_path or assemble(paths.cache_dir, PACKAGED_MODELS[settings.local_model])
    return LlamaCppGenerator(
        model_path, context_window=settings.context_window, threads=settings.threads, seed=settings.seed
    )
