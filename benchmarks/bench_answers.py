"""Figures for grounded answers (issue 4), per generator, on hospital A of a synthetic cohort:

- answerable single-patient questions (the retrieval benchmark's, with gold chunks): answer rate, citation
  validity, sentence support, share citing a gold chunk, latency p50/p95 (target: extractive <= 0.5 s; local p50
  <= 15 s with k = 5);
- negative rejection (tests no record mentions), noise robustness (drugs the patient never had: only
  related-but-irrelevant hits) and patients of other hospitals: abstention rates;
- the adversarial suite (instructions in notes and questions, requests for other patients): pass rate;
- for the local model: time to first token and tokens/s on a ~600-token prompt.

    python benchmarks/bench_answers.py [--patients 120] [--generators extractive,local] [--local-questions 20]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from clinrag.evaluate.adversarial import pass_rate, run_suite
from clinrag.evaluate.answers import AnswerQuestion, rejection_questions, run_answers, summarise
from clinrag.evaluate.retrieval import ChunkLookup, Cohort, build_questions
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import Generator, generator_from
from clinrag.generate.prompts import clinical_messages, source_block
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, IngestSettings, PathSettings, RetrieveSettings
from common import write


def _names(folder: Path) -> list[str]:
    with (folder / "hosp/patients.csv").open(newline="") as handle:
        return [row["name"] for row in csv.DictReader(handle)]


def _prepare(work: Path, patients: int) -> tuple[Path, Path]:
    cohort = work / "cohort"
    if not (cohort / "gold_facts.jsonl").is_file():
        generate_cohort(cohort, patients=patients, seed=7, workers=2)
    node = work / "node-A"
    with ChunkStore.open(node / "chunks.sqlite") as store:
        ingest_mimic(cohort / "hospitals/A", store, IngestSettings(tables=()))
        build_indexes(store, node / "index", OnnxMiniLmEmbedder(threads=2))
    return cohort, node


def _questions(cohort: Path, node: Path, per_kind: int) -> list[AnswerQuestion]:
    with ChunkStore.open(node / "chunks.sqlite") as store:
        chunks = list(store.chunks())
    lookup = ChunkLookup(chunks)
    here = set(_names(cohort / "hospitals/A"))
    built = build_questions(Cohort.load(cohort), lookup, seed=3, per_kind=per_kind * 3, k=10)
    answerable = [
        AnswerQuestion("answerable", q.text, lookup.relevant(q.gold))
        for q in built
        if q.kind == "single_patient" and lookup.relevant(q.gold)
    ][:per_kind]
    corpus = "\n".join(chunk.text for chunk in chunks)
    unique_here = sorted(n for n in here if _names(cohort / "full").count(n) == 1)
    rejection = rejection_questions(unique_here, corpus, seed=5, per_kind=per_kind)
    elsewhere = sorted(set(_names(cohort / "full")) - here)
    rng = random.Random(9)
    unseen = [
        AnswerQuestion("unseen_patient", f"What was {name} discharged on?")
        for name in rng.sample(elsewhere, min(per_kind, len(elsewhere)))
    ]
    return answerable + rejection + unseen


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patients", type=int, default=120)
    parser.add_argument("--per-kind", type=int, default=30, help="questions per kind for the extractive answerer")
    parser.add_argument("--generators", default="extractive,local")
    parser.add_argument("--local-questions", type=int, default=10, help="questions per kind for the local model")
    parser.add_argument("--out", type=Path, default=None, help="work folder, reused between runs")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    embedder = OnnxMiniLmEmbedder(threads=2).load()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.out or Path(scratch)
        started = time.perf_counter()
        cohort, node = _prepare(work, args.patients)
        results["prepare_seconds"] = round(time.perf_counter() - started, 1)
        questions = _questions(cohort, node, args.per_kind)
        for name in args.generators.split(","):
            settings = AnswerSettings(generator=name, sources=5)  # type: ignore[arg-type]
            generator = generator_from(settings, PathSettings())
            chosen = questions
            if generator is not None:
                per_kind: dict[str, int] = {}
                chosen = []
                for q in questions:
                    if per_kind.get(q.kind, 0) < args.local_questions:
                        chosen.append(q)
                        per_kind[q.kind] = per_kind.get(q.kind, 0) + 1
            retriever = Retriever.open(node, RetrieveSettings(), embedder)
            try:
                answerer = Answerer(retriever, settings, generator, embedder)
                figures = summarise(run_answers(answerer, chosen))
            finally:
                retriever.close()
            suite = run_suite(embedder, generator, settings)
            figures["adversarial"] = {
                "cases": len(suite),
                "pass_rate": round(pass_rate(suite), 4),
                "failed": [{"case": r.name, "why": r.why} for r in suite if not r.passed],
            }
            if generator is not None:
                figures["speed"] = _speed(generator, node)
            results[name] = figures
    write("answers", results)


if __name__ == "__main__":
    main()
