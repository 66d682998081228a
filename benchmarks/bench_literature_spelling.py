"""What spelling correction adds to literature recall (issue 20): recall@10 of dense, BM25, hybrid and hybrid+MMR
on the literature benchmark's questions misspelt by a fixed, seeded procedure, with the library's spelling
correction on (the product) and off (``retrieve.library_spelling = false``, the baseline), beside the same
questions spelt correctly — each plain and with filters, all in one run on one library.

The library and questions are `bench_literature.py`'s: ``--citations`` synthetic citations (seed 20) ingested as
``clinrag pubmed ingest`` does and indexed; every ``len // questions``-th citation is a question. The misspellings:
`clinrag.evaluate.literature_spelling` (one or two words of five letters or more of the question's condition and
outcome, never a drug, treatment or author, each given one edit — a letter dropped, doubled, swapped or replaced,
never the first; seed ``--seed``). The JSON also says what the corrector made of every misspelt word.

    python benchmarks/bench_literature_spelling.py [--citations 3000] [--questions 150] [--seed 20]
        [--work /tmp/clinrag-literature-spelling]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
from pathlib import Path
from typing import Any

from clinrag.evaluate.literature import RECORD_SEED, build_library, gold_records, question_of
from clinrag.evaluate.literature_spelling import VARIANTS, misspelt_question, spelling_recall
from clinrag.index.embed import embedder_from
from clinrag.settings import Settings
from common import write


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--citations", type=int, default=3000)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=20, help="seed of the misspellings")
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-literature-spelling"))
    args = parser.parse_args()
    load_start = _load()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    settings = Settings()
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    library = build_library(args.work, args.citations, RECORD_SEED, embedder, settings.index)
    gold = gold_records(library.records, args.questions)
    measured = spelling_recall(
        library.node, gold, embedder, settings.retrieve, args.seed, settings.index, on_progress=print
    )
    added = {
        label: {
            mode: round(by_variant[VARIANTS[1]][mode] - by_variant[VARIANTS[2]][mode], 3)
            for mode in by_variant[VARIANTS[1]]
        }
        for label, by_variant in measured.recall.items()
    }
    ordered = sorted(measured.seconds)
    example = misspelt_question(gold[0], filtered=False, seed=args.seed)
    result: dict[str, Any] = {
        "citations": args.citations,
        "questions": len(gold),
        "misspelling_seed": args.seed,
        "procedure": (
            "per question, one or two (equal chance) of its condition's and outcome's lower-case words of five "
            "letters or more (never a drug or treatment word, the question frame, an acronym or a hyphenated word; "
            "the questions name no author), each given one edit of four (equal chance), never on the first letter: "
            "a letter dropped, doubled, two different adjacent letters swapped, or one replaced; "
            "random.Random(f'{seed}:{pmid}')"
        ),
        "recall_at_10": measured.recall,
        "correction_adds": added,
        "corrector_on_misspelt_words": measured.words,
        "query_ms": {
            "p50": round(1000 * statistics.median(ordered), 1),
            "p95": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        },
        "ingest_seconds": round(library.ingest_seconds, 1),
        "index_build_seconds": round(library.index_seconds, 1),
        "example": {"correct": question_of(gold[0], False), "misspelt": example.text, "edits": example.edits},
        "load_average_1min": {"start": load_start, "end": _load()},
    }
    write("literature_spelling", result)


if __name__ == "__main__":
    main()
