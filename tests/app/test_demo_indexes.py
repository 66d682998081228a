"""The demo rebuilds indexes made with another embedder or an older BM25 encoding instead of refusing them."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinrag.demo.build import indexes_outdated
from clinrag.index.edge import EdgeStore
from clinrag.index.store import LEXICAL_EXPANDED, LEXICAL_PLAIN, IndexManifest
from clinrag.settings import Settings

CURRENT = "all-MiniLM-L6-v2/onnx-int8-compute"


def _leaf(root: Path, name: str, embedder_id: str, lexical: str) -> None:
    manifest = IndexManifest(embedder_id, 384, 40.0, lexical=lexical)
    EdgeStore.create(root / name, manifest).close()


@pytest.mark.parametrize(
    ("embedder_id", "lexical", "outdated"),
    [
        (CURRENT, LEXICAL_EXPANDED, False),
        ("all-MiniLM-L6-v2/onnx-int8", LEXICAL_EXPANDED, True),
        (CURRENT, LEXICAL_PLAIN, True),
    ],
)
def test_a_leaf_built_otherwise_makes_the_demo_indexesindexes_outdated(
    tmp_path: Path, embedder_id: str, lexical: str, outdated: bool
) -> None:
    _leaf(tmp_path, "medicine", CURRENT, LEXICAL_EXPANDED)
    _leaf(tmp_path, "surgery", embedder_id, lexical)
    assert indexes_outdated(tmp_path, CURRENT, Settings()) is outdated


def test_no_indexes_yet_is_notindexes_outdated(tmp_path: Path) -> None:
    assert indexes_outdated(tmp_path / "index", CURRENT, Settings()) is False
