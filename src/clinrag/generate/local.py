"""A local GGUF chat model run in-process by llama.cpp, through the ``xllamacpp`` bindings.

``xllamacpp.Server`` wraps llama.cpp's own server: requests are OpenAI-style dicts handled in-process, and the same
object also listens on an ephemeral 127.0.0.1 port with the OpenAI-compatible HTTP API (``/v1/chat/completions``),
which is how the model's tokenizer is reached (``/tokenize``). Sampling is greedy at temperature 0 with a fixed seed.

Example:
    >>> generator = LlamaCppGenerator(Path("model.gguf"), context_window=2048)
    >>> generator.id, generator.loaded
    ('llama.cpp:model.gguf', False)
"""

from __future__ import annotations

import importlib
import json
import queue
import threading
import urllib.request
from collections.abc import Generator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from clinrag.errors import ConfigError, GenerationError, MissingDependencyError

Message = Mapping[str, str]
_DONE = object()
REPEAT_PENALTY = 1.15  # small models otherwise loop on one sentence ("had severe headache" x 12)
REQUEST_EXTRAS: dict[str, Any] = {
    "repeat_penalty": REPEAT_PENALTY,
    # A reused prompt cache evaluates the prompt in other batch sizes, which changes greedy answers: every request
    # starts from an empty cache, so the same request always gets the same answer, in-process or over HTTP.
    "cache_prompt": False,
}


class LlamaCppGenerator:
    """Chat completions from a GGUF file. The constructor is cheap; the model loads on `load` or on first use.

    Example:
        >>> generator = LlamaCppGenerator(Path("model.gguf"))  # doctest: +SKIP
        >>> generator.complete([{"role": "user", "content": "Define sepsis."}], max_tokens=32)  # doctest: +SKIP
        'Sepsis is ...'
    """

    def __init__(self, model_path: Path, context_window: int = 4096, threads: int = 2, seed: int = 0) -> None:
        self._model_path = model_path
        self._context_window = context_window
        self._threads = threads
        self._seed = seed
        self._server: Any = None
        self._lock = threading.Lock()
        self._http = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy

    @property
    def id(self) -> str:
        """A stable name for reports, e.g. ``llama.cpp:qwen2.5-coder-0.5b-instruct-q4_k_m.gguf``."""
        return f"llama.cpp:{self._model_path.name}"

    @property
    def context_window(self) -> int:
        """Tokens the model sees at once: prompt and answer together."""
        return self._context_window

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint of the loaded model on 127.0.0.1, e.g. ``http://127.0.0.1:41234/v1``.

        Example:
            >>> openai.OpenAI(base_url=generator.base_url, api_key="none")  # doctest: +SKIP
        """
        return f"{self._ensure_loaded().listening_address}/v1"

    def load(self) -> None:
        """Load the model (once; later calls do nothing).

        Raises:
            MissingDependencyError: xllamacpp is not installed.
            ConfigError: the file is missing or llama.cpp cannot load it.

        Example:
            >>> LlamaCppGenerator(Path("model.gguf")).load()  # doctest: +SKIP
        """
        self._ensure_loaded()

    def close(self) -> None:
        """Free the model and stop its loopback listener; a later call loads it again.

        Example:
            >>> generator.close()  # doctest: +SKIP
        """
        with self._lock:
            self._server = None

    def __enter__(self) -> Self:
        self.load()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def complete(self, messages: list[dict[str, str]], max_tokens: int, temperature: float = 0.0) -> str:
        """The assistant's reply to ``messages`` (OpenAI roles: system, user, assistant), at most ``max_tokens`` long.

        Example:
            >>> generator.complete([{"role": "user", "content": "Define sepsis."}], max_tokens=32)  # doctest: +SKIP
            'Sepsis is ...'
        """
        server = self._ensure_loaded()
        reply = server.handle_chat_completions(self._request(messages, max_tokens, temperature, stream=False))
        _raise_on_error(reply)
        content = reply["choices"][0]["message"].get("content")
        return content if isinstance(content, str) else ""

    def stream(
        self, messages: list[dict[str, str]], max_tokens: int, temperature: float = 0.0
    ) -> Generator[str, None, None]:
        """The same reply as `complete`, yielded in pieces as the model produces them. Closing the iterator early
        stops generation.

        Example:
            >>> for piece in generator.stream([{"role": "user", "content": "Define sepsis."}], 32):  # doctest: +SKIP
            ...     print(piece, end="")
        """
        server = self._ensure_loaded()
        request = self._request(messages, max_tokens, temperature, stream=True)
        pieces: queue.Queue[object] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: dict[str, Any]) -> bool:
            pieces.put(chunk)
            return stop.is_set()  # True tells llama.cpp to stop generating

        def run() -> None:
            try:
                server.handle_chat_completions(request, on_chunk)
            except BaseException as exc:  # handed to the consuming thread
                pieces.put(exc)
            finally:
                pieces.put(_DONE)

        worker = threading.Thread(target=run, name="llama.cpp-stream", daemon=True)
        worker.start()
        try:
            while (item := pieces.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                if not isinstance(item, dict):
                    continue
                _raise_on_error(item)
                for choice in item.get("choices", []):
                    text = choice.get("delta", {}).get("content")
                    if text:
                        yield text
        finally:
            stop.set()
            worker.join()

    def count_tokens(self, text: str) -> int:
        """How many tokens the model's own tokenizer makes of ``text`` (no special tokens added).

        Example:
            >>> generator.count_tokens("Patient denies chest pain.")  # doctest: +SKIP
            6
        """
        reply = self._post("/tokenize", {"content": text, "add_special": False})
        tokens = reply.get("tokens")
        if not isinstance(tokens, list):
            raise GenerationError(f"{self.id}: the tokenizer returned no tokens")
        return len(tokens)

    def _request(
        self, messages: list[dict[str, str]], max_tokens: int, temperature: float, *, stream: bool
    ) -> dict[str, Any]:
        return {
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self._seed,
            "stream": stream,
            **REQUEST_EXTRAS,
        }

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        address = self._ensure_loaded().listening_address
        request = urllib.request.Request(
            f"{address}{path}", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with self._http.open(request, timeout=60) as response:
            reply = json.loads(response.read())
        if not isinstance(reply, dict):
            raise GenerationError(f"{self.id}: unexpected reply from {path}")
        _raise_on_error(reply)
        return reply

    def _ensure_loaded(self) -> Any:
        with self._lock:
            if self._server is None:
                self._server = self._start()
            return self._server

    def _start(self) -> Any:
        try:
            xllamacpp = importlib.import_module("xllamacpp")
        except ImportError as exc:
            raise MissingDependencyError("local llama.cpp generation", "local-llm") from exc
        if not self._model_path.is_file():
            raise ConfigError(f"GGUF model file not found: {self._model_path}")
        params = xllamacpp.CommonParams()
        params.model.path = str(self._model_path)
        params.n_ctx = self._context_window
        params.n_parallel = 1  # one slot owns the whole window
        params.cpuparams.n_threads = self._threads
        params.cpuparams_batch.n_threads = self._threads
        params.sampling.seed = self._seed
        params.sampling.temp = 0.0
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # an ephemeral port on loopback
        params.verbosity = -1  # llama.cpp logs nothing
        try:
            return xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ConfigError(f"llama.cpp could not load {self._model_path}: {exc}") from exc


def _raise_on_error(reply: Mapping[str, Any]) -> None:
    error = reply.get("error")
    if error is None:
        return
    if isinstance(error, dict):
        raise GenerationError(f"llama.cpp: {error.get('type', 'error')}: {error.get('message', '')}")
    raise GenerationError(f"llama.cpp: {error}")
