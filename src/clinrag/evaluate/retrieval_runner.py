"""Running the retrieval benchmark's questions: the configurations (mode × name prefix × patient resolution), the
node each name-prefix setting needs, and what a retriever returns for every question.

Example:
    >>> [config.label for config in all_configurations(modes=("bm25",), prefixes=(True,))]
    ['bm25 prefix=on resolve=on', 'bm25 prefix=on resolve=off']
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, get_args

from clinrag.evaluate.retrieval_gold import K, Question
from clinrag.index.embed import Embedder
from clinrag.index.indexer import build_indexes
from clinrag.index.store import Mode
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.settings import IngestSettings

if TYPE_CHECKING:
    from clinrag.retrieve.hybrid import Retriever

MODES: Final[tuple[Mode, ...]] = get_args(Mode)
CHUNKS_FILE: Final = "chunks.sqlite"  # the node layout `Retriever.open` reads
INDEX_DIR: Final = "index"


@dataclass(frozen=True)
class Configuration:
    """One retrieval setup: mode, whether note chunks carry the patient-name prefix, whether names are resolved."""

    mode: Mode
    name_prefix: bool
    resolve_patients: bool

    @property
    def label(self) -> str:
        """Short name, such as ``hybrid prefix=on resolve=off``."""
        return f"{self.mode} prefix={on_off(self.name_prefix)} resolve={on_off(self.resolve_patients)}"


def on_off(flag: bool) -> str:
    """A setting as the labels and node folders spell it.

    Example:
        >>> on_off(True), on_off(False)
        ('on', 'off')
    """
    return "on" if flag else "off"


def all_configurations(
    modes: Sequence[Mode] = MODES,
    prefixes: Sequence[bool] = (True, False),
    resolutions: Sequence[bool] = (True, False),
) -> list[Configuration]:
    """Every combination, grouped by prefix (one index each), then resolution, then mode.

    Example:
        >>> len(all_configurations()), all_configurations(modes=("bm25",))[0].label
        (16, 'bm25 prefix=on resolve=on')
    """
    return [Configuration(m, p, r) for p in prefixes for r in resolutions for m in modes]


@dataclass(frozen=True)
class NodeBuild:
    """A prepared node folder (chunk store + index) and what preparing it cost."""

    folder: Path
    name_prefix: bool
    chunks: int
    ingest_seconds: float
    index_seconds: float


def prepare_node(cohort_full: Path, node: Path, name_prefix: bool, embedder: Embedder) -> NodeBuild:
    """Ingest the notes of ``cohort_full`` (no tables) into ``node/chunks.sqlite`` and index them under
    ``node/index``; both steps are incremental, so a second call with the same inputs only checks."""
    started = time.perf_counter()
    with ChunkStore.open(node / CHUNKS_FILE) as store:
        ingest_mimic(cohort_full, store, IngestSettings(name_prefix_notes=name_prefix, tables=()))
        ingested = time.perf_counter()
        build_indexes(store, node / INDEX_DIR, embedder)
        count = store.count()
    return NodeBuild(node, name_prefix, count, ingested - started, time.perf_counter() - ingested)


@dataclass(frozen=True)
class QuestionRun:
    """What one question returned: ranked chunk ids, their patients, and how long the search took."""

    qid: str
    ranked: tuple[str, ...]
    subjects: tuple[int | None, ...]
    seconds: float
    no_such_patient: bool = False
    dense_scores: tuple[float, ...] = ()


def run_questions(retriever: Retriever, questions: Sequence[Question], k: int = K) -> list[QuestionRun]:
    """Search every question with ``retriever`` and record its top ``k``."""
    runs: list[QuestionRun] = []
    for question in questions:
        started = time.perf_counter()
        retrieval = retriever.retrieve(question.text, k=k)
        seconds = time.perf_counter() - started
        runs.append(
            QuestionRun(
                question.qid,
                tuple(hit.chunk.chunk_id for hit in retrieval.hits),
                tuple(hit.chunk.subject_id for hit in retrieval.hits),
                seconds,
                retrieval.no_such_patient,
                tuple(hit.scores["dense"] for hit in retrieval.hits),
            )
        )
    return runs
