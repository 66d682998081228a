"""Figures for grounded answers (issue 4), per generator, on hospital A of a synthetic cohort:

- answerable single-patient questions (the retrieval benchmark's, with gold chunks): answer rate, citation
  validity, sentence support, share citing a gold chunk, latency p50/p95 (target: extractive <= 0.5 s; local p50
  <= 15 s with k = 5);
- negative rejection (tests no record mentions), noise robustness (drugs the patient never had: only
  related-but-irrelevant hits) and patients of other hospitals: abstention rates;
- the adversarial suite (instructions in notes and questions, requests for other patients): pass rate, and how
  many cases passed with a grounded answer and how many by abstaining;
- for the local model: time to first token and tokens/s on a ~600-token prompt.

Generators: ``extractive`` (no model), ``local`` (the demo GGUF in-process through llama.cpp) and ``openai`` (the
``openai`` client against the same loaded model served by llama.cpp on 127.0.0.1, ``LlamaCppGenerator.base_url``:
the remote path end to end, with the endpoint's estimated token counts). The model generators answer
``--local-questions`` questions of each kind; ``openai`` only the kinds in ``--openai-kinds``.

With ``--update`` the figures measured replace theirs in the existing results file and the rest are kept (each
generator's parts carry their own ``measured_at``); with ``--parts`` a run measures only some of ``questions``,
``adversarial`` and ``speed``. So the generators can be measured in separate runs that each stay short on a
shared machine.

    python benchmarks/bench_answers.py [--patients 120] [--generators extractive,local,openai] [--out DIR]
                                       [--update] [--parts questions,adversarial,speed]
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.evaluate.adversarial import figures, run_suite
from clinrag.evaluate.answers import (
    benchmark_questions,
    first_of_each_kind,
    prepare_answer_node,
    run_answers,
    summarise,
)
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import Generator, OpenAIChatGenerator, generator_from
from clinrag.generate.local import REQUEST_EXTRAS, LlamaCppGenerator
from clinrag.generate.prompts import clinical_messages, source_block
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, PathSettings, RetrieveSettings
from common import RESULTS, machine, write


def _prepare(work: Path, patients: int) -> tuple[Path, Path]:
    cohort = work / "cohort"
    if not (cohort / "gold_facts.jsonl").is_file():
        generate_cohort(cohort, patients=patients, seed=7, workers=2)
    return cohort, prepare_answer_node(cohort / "hospitals/A", work / "node-A", OnnxMiniLmEmbedder(threads=2))


def _speed(generator: Generator, node: Path) -> dict[str, Any]:
    with ChunkStore.open(node / "chunks.sqlite") as store:
        chunks = list(itertools.islice(store.chunks(source_kind="note"), 40))
    blocks: list[str] = []
    for number, chunk in enumerate(chunks, 1):
        blocks.append(source_block(number, chunk, chunk.text))
        if generator.count_tokens("\n\n".join(blocks)) > 600:
            break
    messages = clinical_messages("What were this patient's discharge medications?", blocks)
    prompt_tokens = sum(generator.count_tokens(m["content"]) for m in messages)
    started = time.perf_counter()
    first: float | None = None
    pieces = []
    for piece in generator.stream(messages, max_tokens=96):
        if first is None:
            first = time.perf_counter() - started
        pieces.append(piece)
    total = time.perf_counter() - started
    generated = generator.count_tokens("".join(pieces))
    return {
        "prompt_tokens": prompt_tokens,
        "time_to_first_token_s": round(first or total, 2),
        "generated_tokens": generated,
        "tokens_per_second": round(generated / max(total - (first or 0.0), 1e-6), 1),
        "total_s": round(total, 2),
    }


def _adversarial(embedder: OnnxMiniLmEmbedder, generator: Generator | None, settings: AnswerSettings) -> dict[str, Any]:
    return figures(run_suite(embedder, generator, settings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=120)
    parser.add_argument("--per-kind", type=int, default=30, help="questions per kind for the extractive answerer")
    parser.add_argument("--generators", default="extractive,local,openai")
    parser.add_argument("--local-questions", type=int, default=10, help="questions per kind for the model generators")
    parser.add_argument(
        "--openai-kinds", default="negative,noise,unseen_patient", help="question kinds the openai generator answers"
    )
    parser.add_argument("--out", type=Path, default=None, help="work folder, reused between runs")
    parser.add_argument("--update", action="store_true", help="keep the figures not measured now in the results")
    parser.add_argument("--parts", default="questions,adversarial,speed", help="what to measure")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    if args.update and (RESULTS / "answers.json").is_file():
        kept = json.loads((RESULTS / "answers.json").read_text())
        results = {key: value for key, value in kept.items() if key not in {"benchmark", "machine"}}
    embedder = OnnxMiniLmEmbedder(threads=2).load()
    local: LlamaCppGenerator | None = None
    with tempfile.TemporaryDirectory() as scratch:
        work = args.out or Path(scratch)
        started = time.perf_counter()
        cohort, node = _prepare(work, args.patients)
        results["prepare_seconds"] = round(time.perf_counter() - started, 1)
        questions = benchmark_questions(cohort, node, args.per_kind)
        for name in args.generators.split(","):
            started = time.perf_counter()
            settings = AnswerSettings.model_validate({"generator": name, "sources": 5})
            generator: Generator | None = None
            chosen = questions
            if name in {"local", "openai"}:
                if local is None:
                    found = generator_from(settings.model_copy(update={"generator": "local"}), PathSettings())
                    assert isinstance(found, LlamaCppGenerator)
                    local = found
                generator = local
                chosen = first_of_each_kind(questions, args.local_questions, None)
                if name == "openai":
                    generator = OpenAIChatGenerator(
                        local.base_url, "local", context_window=settings.context_window, extra_body=REQUEST_EXTRAS
                    )
                    chosen = first_of_each_kind(questions, args.local_questions, set(args.openai_kinds.split(",")))
            parts = set(args.parts.split(","))
            figures: dict[str, Any] = {"generator": "extractive" if generator is None else generator.id}
            if "questions" in parts:
                retriever = Retriever.open(node, RetrieveSettings(), embedder)
                try:
                    figures.update(summarise(run_answers(Answerer(retriever, settings, generator, embedder), chosen)))
                finally:
                    retriever.close()
            if "adversarial" in parts:
                figures["adversarial"] = _adversarial(embedder, generator, settings)
            if "speed" in parts and name == "local" and generator is not None:
                figures["speed"] = _speed(generator, node)
            measured = {"seconds": round(time.perf_counter() - started, 1), "at": machine()["measured_at"]}
            figures["measured"] = {**results.get(name, {}).get("measured", {}), args.parts: measured}
            results[name] = {**results.get(name, {}), **figures}
            results["settings"] = {
                "sources": 5,
                "support_threshold": settings.support_threshold,
                "semantic_support": settings.semantic_support,
                "on_question_check": True,
            }
            write("answers", results)  # after each generator, so an interrupted run keeps what it measured


if __name__ == "__main__":
    main()
