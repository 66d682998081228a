"""A library of 200,000 abstracts (issue 20): index build time, disk, RAM and query latency, with the embedding
time measured at a size that fits the machine and projected from its rate.

Embedding 200,000 abstracts with the default int8 MiniLM on a 2-core machine takes an hour or more, so the run is
in three parts, each step in its own process (wall time and peak RSS, `common.run_measured`):

1. **Measured end to end at ``--measured`` citations** (10,000): synthetic citations (`synthetic_records`, seed 20)
   written as MEDLINE XML, ``clinrag pubmed ingest`` and ``clinrag index build`` as a user runs them. Their rate is
   the embedding rate the projection uses.
2. **200,000 citations** (``--citations``): the same generator, ``clinrag pubmed ingest`` (real, measured), then
   the index built by the real builder (`build_indexes`: BM25 encoding, Qdrant Edge upserts, payload indexes, HNSW
   optimisation) with *reused real vectors* instead of embedding each abstract again: `PooledEmbedder` gives each
   abstract the MiniLM vector of an abstract of step 1 with the same title (same condition, treatment, comparator,
   outcome and design; the first ``--measured`` citations are step 1's own, so they get their own vectors), plus
   Gaussian noise sized so that a copy is as far from its source as two real abstracts of one title are from each
   other (their mean cosine, measured on the pool), so that no two points are identical (a title step 1 lacks:
   any of its vectors, counted). Everything but the embedding is measured as it runs; the embedding time at
   200,000 is **projected**: the pooled build time plus
   200,000 x the per-abstract embedding cost of step 1 (its real build minus a pooled build of the same 10,000).
3. **Queries at 200,000**: a fresh process opens the node with the real embedder (`Retriever.open`, as
   ``clinrag ask`` does) and asks the literature benchmark's questions (150, plain and with filters) in each mode:
   query p50/p95 (question embedding included), the process's RSS after opening and its peak (VmHWM).

    python benchmarks/bench_literature_scale.py [--citations 200000] [--measured 10000]
        [--work /tmp/clinrag-literature-scale]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common import run_measured, write

HERE = Path(__file__).parent
SEED = 20


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _disk_mib(folder: Path) -> float:
    """Bytes allocated on disk (Qdrant preallocates sparse files: apparent sizes would overstate it)."""
    return round(sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 2**20, 1)


def _cli_code(*args: str) -> str:
    """Code for `run_measured` that runs ``clinrag ARGS`` and keeps going to the epilogue unless it failed."""
    return (
        "import sys\nfrom clinrag.app.cli import main\n"
        f"sys.argv = ['clinrag', *{list(args)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
    )


def _bench_code(call: str) -> str:
    """Code for `run_measured` that calls a function of this script and leaves its dict as ``RESULT``."""
    return (
        f"import sys\nfrom pathlib import Path\nsys.path.insert(0, {str(HERE)!r})\n"
        f"import bench_literature_scale as b\nRESULT = b.{call}\n"
    )


def write_library(folder: Path, citations: int) -> dict[str, Any]:
    """``citations`` synthetic citations (seed 20) as ``folder/library.xml.gz``."""
    from clinrag.ingest.synthetic.medline import synthetic_records, write_medline

    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    write_medline(folder / "library.xml.gz", synthetic_records(citations, seed=SEED))
    return {"seconds": round(time.perf_counter() - started, 1)}


def _title(text: str) -> str:
    """The title of an abstract chunk's text (``TITLE\\nABSTRACT``)."""
    return text.split("\n", 1)[0]


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _chunk_text(indexed: str) -> str:
    """The chunk text of an abstract's indexed text (``HEADER: TITLE\\nABSTRACT``; the header holds one ``: ``)."""
    return indexed.split(": ", 1)[1] if ": " in indexed else indexed


def save_pool(node: Path, out: Path) -> dict[str, Any]:
    """The real vectors of a built library (every abstract's dense vector, by title) as ``out`` (.npz), with the
    mean cosine between two abstracts of one title."""
    import qdrant_edge as qe

    from clinrag.index.edge import SHARD_DIR
    from clinrag.index.store import DENSE

    shard = qe.EdgeShard.load(str(next((node / "index").iterdir()) / SHARD_DIR))
    titles: list[str] = []
    texts: list[str] = []
    rows: list[list[float]] = []
    offset: Any = None
    try:
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(limit=1000, offset=offset, with_payload=["text"], with_vector=[DENSE])
            )
            for record in records:
                vector = record.vector.get(DENSE) if isinstance(record.vector, dict) else None
                text = (record.payload or {}).get("text")
                if isinstance(vector, list) and isinstance(text, str):
                    titles.append(_title(text))
                    texts.append(text)
                    rows.append(vector)
            if offset is None:
                break
    finally:
        shard.close()
    vectors = np.asarray(rows, dtype=np.float32)
    by_title: dict[str, list[int]] = defaultdict(list)
    for row, title in enumerate(titles):
        by_title[title].append(row)
    pairs = [vectors[rows_[0]] @ vectors[rows_[1]] for rows_ in by_title.values() if len(rows_) > 1]
    within = float(np.mean(pairs)) if pairs else 0.99
    keys = np.frombuffer(b"".join(_key(text) for text in texts), dtype=np.uint8).reshape(-1, 16)
    np.savez(out, vectors=vectors, titles=np.asarray(titles), keys=keys, within=np.float32(within))
    return {"vectors": len(rows), "titles": len(by_title), "within_title_mean_cosine": round(within, 4)}


class PooledEmbedder:
    """Real vectors reused (see the module docstring): a text's vector is a pool vector of an abstract with its
    title, chosen by a hash of the text, with Gaussian noise that puts it at the pool's within-title mean cosine
    from its source; a text that is itself in the pool gets its own vector. Carries the real embedder's id, so the
    index it builds is queried with the real embedder."""

    def __init__(self, pool: Path, embedder_id: str) -> None:
        data = np.load(pool)
        self.vectors: np.ndarray = data["vectors"]
        self.by_title: dict[str, list[int]] = defaultdict(list)
        for row, title in enumerate(data["titles"].tolist()):
            self.by_title[title].append(row)
        self.own = {key.tobytes(): row for row, key in enumerate(data["keys"])}
        within = float(data["within"])
        self.dimension = int(self.vectors.shape[1])
        self.sigma = float(np.sqrt(max(1.0 / within**2 - 1.0, 0.0) / self.dimension))
        self.id = embedder_id
        self.untitled = 0
        self.reused_own = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One pooled vector per text, normalised."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, indexed in enumerate(texts):
            text = _chunk_text(indexed)
            own = self.own.get(_key(text))
            if own is not None:  # an abstract embedded in step 1: its own vector
                self.reused_own += 1
                out[i] = self.vectors[own]
                continue
            digest = _key(text)[:8]
            rows = self.by_title.get(_title(text))
            if rows is None:  # a title the pool lacks: any pool vector
                self.untitled += 1
                rows = range(len(self.vectors))
            pick = int.from_bytes(digest, "big")
            source = self.vectors[rows[pick % len(rows)]]
            noise = np.random.default_rng(pick).normal(0.0, self.sigma, self.dimension).astype(np.float32)
            vector = source + noise
            out[i] = vector / np.linalg.norm(vector)
        return out


def pooled_build(node: Path, pool: Path) -> dict[str, Any]:
    """Build ``node``'s index with the real builder and `PooledEmbedder` (run in its own process)."""
    from clinrag.index.embed import embedder_from
    from clinrag.index.indexer import build_indexes
    from clinrag.ingest.chunkstore import ChunkStore
    from clinrag.settings import Settings

    settings = Settings()
    embedder = PooledEmbedder(pool, embedder_from(settings.index, settings.paths.cache_dir).id)
    started = time.perf_counter()
    with ChunkStore.open(node / "chunks.sqlite") as chunks:
        summary = build_indexes(chunks, node / "index", embedder, index=settings.index)
    return {
        "build_seconds": round(time.perf_counter() - started, 1),
        "chunks": sum(leaf.added for leaf in summary.leaves.values()),
        "titles_not_in_pool": embedder.untitled,
        "own_vectors": embedder.reused_own,
    }


def _vm(field: str) -> float:
    """``VmRSS`` / ``VmHWM`` of this process, MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def query(node: Path, citations: int, questions: int) -> dict[str, Any]:
    """Open ``node`` as `clinrag ask` does and ask the literature benchmark's questions (run in its own process)."""
    from clinrag.evaluate.literature import MODES, gold_records, question_of
    from clinrag.index.embed import embedder_from
    from clinrag.ingest.synthetic.medline import synthetic_records
    from clinrag.retrieve.hybrid import Retriever
    from clinrag.settings import Settings

    gold = gold_records(synthetic_records(citations, seed=SEED), questions)
    asked = [question_of(record, filtered) for filtered in (False, True) for record in gold]
    del gold
    settings = Settings()
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    before = _vm("VmRSS")
    started = time.perf_counter()
    retriever = Retriever.open(node, settings.retrieve, embedder, index=settings.index)
    retriever.retrieve("Did apixaban reduce stroke?", k=10)  # loads the model and the vocabulary once
    opened = time.perf_counter() - started
    after_open = _vm("VmRSS")
    seconds: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for mode in MODES:
            for question in asked:
                started = time.perf_counter()
                retriever.retrieve(question, k=10, mode=mode)
                seconds[mode].append(time.perf_counter() - started)
    finally:
        retriever.close()

    def ms(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "p50": round(1000 * ordered[len(ordered) // 2], 1),
            "p95": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        }

    every = [s for values in seconds.values() for s in values]
    return {
        "queries": len(every),
        "query_ms": ms(every),
        "query_ms_by_mode": {mode: ms(values) for mode, values in seconds.items()},
        "open_and_first_query_seconds": round(opened, 2),
        "rss_before_open_mib": before,
        "rss_after_open_mib": after_open,
        "vm_hwm_mib": _vm("VmHWM"),
    }


def _stage(work: Path, name: str, code: str, resume: bool) -> dict[str, Any]:
    """Run one measured step (or, with ``resume``, reuse its recorded result), printing it."""
    saved = work / f"{name}.json"
    if resume and saved.is_file():
        return dict(json.loads(saved.read_text()))
    print(f"{name} …", flush=True)
    result = run_measured(code)
    result["load_average_1min_after"] = _load()
    saved.write_text(json.dumps(result))
    print(name, result, flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--citations", type=int, default=200_000)
    parser.add_argument("--measured", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-literature-scale"))
    parser.add_argument("--resume", action="store_true", help="reuse the steps a broken run finished")
    args = parser.parse_args()
    load_start = _load()
    if not args.resume:
        shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    small, large, pool = args.work / "small", args.work / "large", args.work / "pool.npz"
    steps: dict[str, dict[str, Any]] = {}

    def stage(name: str, code: str) -> dict[str, Any]:
        steps[name] = _stage(args.work, name, code, args.resume)
        return steps[name]

    # 1. the real pipeline at --measured citations
    stage("small_write", _bench_code(f"write_library(Path({str(small)!r}), {args.measured})"))
    stage("small_ingest", _cli_code("pubmed", "ingest", str(small / "library.xml.gz"), "--node", str(small / "node")))
    real = stage("small_index_build", _cli_code("index", "build", str(small / "node")))
    small_disk = _disk_mib(small / "node")
    stage("pool", _bench_code(f"save_pool(Path({str(small / 'node')!r}), Path({str(pool)!r}))"))
    # the same citations built again with pooled vectors: what of the real build was not embedding
    shutil.copytree(small / "node", small / "pooled", ignore=shutil.ignore_patterns("index"))
    pooled_small = stage(
        "small_pooled_build", _bench_code(f"pooled_build(Path({str(small / 'pooled')!r}), Path({str(pool)!r}))")
    )
    # 2. --citations: ingest for real, build with pooled real vectors
    stage("large_write", _bench_code(f"write_library(Path({str(large)!r}), {args.citations})"))
    ingest = stage(
        "large_ingest", _cli_code("pubmed", "ingest", str(large / "library.xml.gz"), "--node", str(large / "node"))
    )
    build = stage(
        "large_pooled_build", _bench_code(f"pooled_build(Path({str(large / 'node')!r}), Path({str(pool)!r}))")
    )
    # 3. queries at --citations
    asked = stage(
        "large_query", _bench_code(f"query(Path({str(large / 'node')!r}), {args.citations}, {args.questions})")
    )

    per_chunk = max(real["wall_seconds"] - pooled_small["wall_seconds"], 0.0) / args.measured
    projected_embed = per_chunk * args.citations
    node = large / "node"
    result: dict[str, Any] = {
        "citations": args.citations,
        "measured_end_to_end_at": args.measured,
        "vectors_at_scale": (
            f"reused real MiniLM int8 vectors of the {args.measured} abstracts embedded in step 1, by title, with "
            "noise at the within-title mean cosine (see the script's docstring); the embedding time at "
            f"{args.citations} is projected"
        ),
        "measured_small": {
            "ingest_seconds": steps["small_ingest"]["wall_seconds"],
            "index_build_seconds": real["wall_seconds"],
            "index_build_peak_rss_mib": real["peak_rss_mib"],
            "abstracts_per_second_end_to_end": round(args.measured / real["wall_seconds"], 1),
            "pooled_build_seconds": pooled_small["wall_seconds"],
            "embedding_seconds_per_abstract": round(per_chunk, 5),
            "embedding_abstracts_per_second": round(1 / per_chunk, 1) if per_chunk else None,
            "node_disk_mib": small_disk,
        },
        "pool": steps["pool"],
        "at_scale": {
            "ingest_seconds": ingest["wall_seconds"],
            "ingest_peak_rss_mib": ingest["peak_rss_mib"],
            "index_build_seconds_without_embedding": build["build_seconds"],
            "index_build_process_wall_seconds": build["wall_seconds"],
            "index_build_peak_rss_mib_without_embedding": build["peak_rss_mib"],
            "chunks_indexed": build["chunks"],
            "titles_not_in_pool": build["titles_not_in_pool"],
            "abstracts_with_their_own_vector": build["own_vectors"],
            "node_disk_mib": _disk_mib(node),
            "index_disk_mib": _disk_mib(node / "index"),
            "chunk_store_disk_mib": round((node / "chunks.sqlite").stat().st_blocks * 512 / 2**20, 1),
            "query": {
                key: value for key, value in asked.items() if key not in ("wall_seconds", "workers_peak_rss_mib")
            },
        },
        "projected": {
            "embedding_seconds": round(projected_embed),
            "index_build_seconds_with_embedding": round(projected_embed + build["build_seconds"]),
            "how": (
                f"pooled build at {args.citations} + {args.citations} x (real build - pooled build at "
                f"{args.measured}) / {args.measured}; projected, not measured"
            ),
        },
        "steps": steps,
        "load_average_1min": {"start": load_start, "end": _load()},
    }
    write("literature_scale", result)


if __name__ == "__main__":
    sys.exit(main())
