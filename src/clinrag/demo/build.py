"""The demo federation: a synthetic cohort split into Hospitals A, B and C, each ingested into its own store, and a
library of synthetic citations and fictional guidelines (`clinrag.demo.library`).

Building is idempotent: an existing cohort with the same seed and size is reused, and ingestion of unchanged
data adds nothing, so ``make demo`` is quick the second time.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.settings import Settings
    >>> demo = build_demo(pathlib.Path(tempfile.mkdtemp()), patients=10, seed=1, settings=Settings())
    >>> sorted(demo.stores)
    ['A', 'B', 'C']
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from clinrag.demo.library import LibraryBuild, build_library
from clinrag.index.backend import drop_indexes, leaf_names, open_leaf_store
from clinrag.index.embed import embedder_from
from clinrag.index.indexer import IndexSummary, build_indexes
from clinrag.index.store import LEXICAL_EXPANDED
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import IngestSummary, ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.ingest.synthetic.hospitals import CASE_STUDY
from clinrag.population.tables import materialise, population_path
from clinrag.settings import Settings


@dataclass
class DemoBuild:
    """Where the demo's pieces are and what they hold."""

    cohort: Path
    gold_facts: Path
    stores: dict[str, Path] = field(default_factory=dict)
    ingests: dict[str, IngestSummary] = field(default_factory=dict)
    indexes: dict[str, IndexSummary] = field(default_factory=dict)
    breakdown: dict[str, list[tuple[str, str, str, int, int]]] = field(default_factory=dict)
    library: LibraryBuild | None = None


def _cohort_matches(cohort: Path, patients: int, seed: int) -> bool:
    manifest = cohort / "cohort.json"
    if not manifest.is_file():
        return False
    data = json.loads(manifest.read_text())
    return bool(data.get("patients") == patients and data.get("seed") == seed)


def build_demo(
    out: Path,
    patients: int,
    seed: int,
    settings: Settings,
    on_progress: Callable[[int], None] | None = None,
    on_stage: Callable[[str, int | None], None] | None = None,
    library: bool = True,
) -> DemoBuild:
    """Generate (or reuse) the cohort under ``out/cohort``, ingest each hospital into ``out/nodes/ORG`` and index
    every department there (``out/nodes/ORG/index/DEPT``), then the library (`clinrag.demo.library`) unless
    ``library`` is False. ``on_stage`` hears of each step (and how many items it counts, when known) before
    ``on_progress`` hears of its items done."""
    stage = on_stage or (lambda _description, _total: None)
    cohort = out / "cohort"
    if not _cohort_matches(cohort, patients, seed):
        stage(f"generating {patients} patients", patients)
        generate_cohort(
            cohort,
            patients,
            seed,
            settings.synth.workers,
            settings.synth.start_year,
            settings.synth.end_year,
            on_progress=on_progress,
        )
    build = DemoBuild(cohort=cohort, gold_facts=cohort / "gold_facts.jsonl")
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    for org in CASE_STUDY:
        path = out / "nodes" / org / "chunks.sqlite"
        with ChunkStore.open(path) as store:
            stage(f"ingesting hospital {org}", None)
            build.ingests[org] = ingest_mimic(
                cohort / "hospitals" / org,
                store,
                settings.ingest,
                org,
                on_progress=lambda _stage, done: on_progress and on_progress(done),
            )
            build.breakdown[org] = store.breakdown()
            materialise(cohort / "hospitals" / org, population_path(path.parent), org)
            if indexes_outdated(path.parent / "index", embedder.id, settings):  # demo indexes are derived: rebuild them
                drop_indexes(path.parent / "index", settings.index)
            stage(f"indexing hospital {org}", store.count())
            build.indexes[org] = build_indexes(
                store, path.parent / "index", embedder, on_progress=_summed(on_progress), index=settings.index
            )
        build.stores[org] = path
    if library:
        build.library = build_library(out, settings, embedder, on_progress=_summed(on_progress), on_stage=stage)
    return build


def _summed(on_progress: Callable[[int], None] | None) -> Callable[[str, int], None] | None:
    """Per-leaf counts of one build reported as one count for the whole node."""
    if on_progress is None:
        return None
    done: dict[str, int] = {}

    def report(leaf: str, count: int) -> None:
        done[leaf] = count
        on_progress(sum(done.values()))

    return report


def indexes_outdated(index_root: Path, embedder_id: str, settings: Settings) -> bool:
    """Whether any leaf index was built with another embedder or an older BM25 encoding (an update would keep
    either, so that the index stays consistent; the demo starts afresh instead).

    Example:
        >>> indexes_outdated(Path("data/demo/nodes/A/index"), "all-MiniLM-L6-v2/onnx-int8-compute", Settings())
        False
    """
    for leaf in leaf_names(index_root, settings.index):
        store = open_leaf_store(index_root, leaf, settings.index)
        try:
            manifest = store.manifest
        finally:
            store.close()
        if (manifest.embedder_id, manifest.lexical) != (embedder_id, LEXICAL_EXPANDED):
            return True
    return False
