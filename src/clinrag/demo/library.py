"""The demo federation's library: synthetic MEDLINE citations and the fictional guidelines in one node, ``LIB``, with
a leaf for each (``literature`` and ``guidelines``). Every signed-in demo user may ask it; it holds no patients.

Building is idempotent as the hospitals' is: the citations file is written once, and ingestion of unchanged
citations and guidelines adds nothing.

Example:
    >>> from clinrag.settings import Settings
    >>> import tempfile
    >>> built = build_library(Path(tempfile.mkdtemp()), Settings(), citations=20)  # doctest: +SKIP
    >>> sorted(built.indexes)  # doctest: +SKIP
    ['guidelines', 'literature']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from clinrag.index.embed import Embedder
from clinrag.index.indexer import IndexSummary, build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.guidelines.ingest import GUIDELINES_DEPT, ingest_guidelines
from clinrag.ingest.guidelines.manifest import allow_publishers
from clinrag.ingest.literature import LITERATURE_DEPT, ingest_medline
from clinrag.ingest.synthetic.library import GUIDELINE_PUBLISHERS, GUIDELINES
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.settings import Settings

LIBRARY_ORG: Final = "LIB"
"""The demo library's organisation code."""

LIBRARY_NAME: Final = "Library"
"""Its display name."""

LIBRARY_LEAVES: Final = (LITERATURE_DEPT, GUIDELINES_DEPT)
"""Its leaves: the citations and the guidelines."""

CITATIONS: Final = 300
"""How many synthetic citations the demo library holds."""

CITATIONS_SEED: Final = 20
"""The seed of the demo's synthetic citations."""


@dataclass
class LibraryBuild:
    """Where the demo library is, and what its leaves' indexes hold."""

    node: Path
    citations: Path
    indexes: IndexSummary


def build_library(
    out: Path,
    settings: Settings,
    embedder: Embedder,
    citations: int = CITATIONS,
    on_progress: Callable[[str, int], None] | None = None,
    on_stage: Callable[[str, int | None], None] | None = None,
) -> LibraryBuild:
    """Write (once) ``citations`` synthetic citations to ``out/library/pubmed.xml.gz``, ingest them and the fictional
    guidelines into ``out/nodes/LIB`` and index both leaves there; ``on_progress`` hears each leaf's count indexed."""
    stage = on_stage or (lambda _description, _total: None)
    source = out / "library" / f"pubmed-{citations}-{CITATIONS_SEED}.xml.gz"
    if not source.is_file():
        source.parent.mkdir(parents=True, exist_ok=True)
        partial = source.with_suffix(".partial")
        write_medline(partial, synthetic_records(citations, seed=CITATIONS_SEED))
        partial.replace(source)
    node = out / "nodes" / LIBRARY_ORG
    node.mkdir(parents=True, exist_ok=True)
    allowed = allow_publishers(node, GUIDELINE_PUBLISHERS)
    with ChunkStore.open(node / "chunks.sqlite") as store:
        stage("ingesting the library", None)
        ingest_medline([source], store, LIBRARY_ORG, LITERATURE_DEPT)
        ingest_guidelines(GUIDELINES, store, allowed, LIBRARY_ORG, GUIDELINES_DEPT, settings.ingest.chunk_max_chars)
        stage("indexing the library", store.count())
        indexes = build_indexes(store, node / "index", embedder, index=settings.index, on_progress=on_progress)
    return LibraryBuild(node, source, indexes)
