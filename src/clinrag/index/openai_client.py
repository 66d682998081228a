"""The ``openai`` client for an OpenAI-compatible server, made one way for every backend that talks to one: the
embedder here (`clinrag.index.embed.OpenAIEmbedder`) and, from the layer above, the chat generator
(`clinrag.generate.llm.OpenAIChatGenerator`). ``openai`` is an optional dependency (``clinrag[openai]``): it is
imported on first use, and its absence is a `MissingDependencyError` naming what needed it.

Example:
    >>> client = openai_client("http://127.0.0.1:8080/v1", "none", "the OpenAI-compatible embedder")  # doctest: +SKIP
    >>> client.base_url  # doctest: +SKIP
    URL('http://127.0.0.1:8080/v1/')
"""

from __future__ import annotations

from typing import Any

from clinrag.errors import MissingDependencyError


def openai_client(base_url: str, api_key: str, feature: str, **options: Any) -> Any:
    """An ``openai.OpenAI`` client for ``base_url``; ``options`` (``max_retries``, ``timeout``) go to it as given.

    Raises:
        MissingDependencyError: ``openai`` is not installed; the message says that ``feature`` needs it.
    """
    try:
        from openai import OpenAI
    except ImportError as error:
        raise MissingDependencyError(feature, "openai") from error
    return OpenAI(base_url=base_url, api_key=api_key, **options)
