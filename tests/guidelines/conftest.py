"""A library node of the three test guidelines (HTML, Markdown, PDF), shared by the tests that ask it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app

from .documents import PUBLISHERS, guideline_folder

runner = CliRunner()


@pytest.fixture(scope="package")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library node of the three test guidelines, ingested and indexed through the CLI."""
    root = tmp_path_factory.mktemp("guidelines-cli")
    folder, node = guideline_folder(root), root / "node"
    allow = [option for publisher in PUBLISHERS for option in ("--allow", publisher)]
    ingested = runner.invoke(app, ["guidelines", "ingest", str(folder), "--node", str(node), *allow])
    assert ingested.exit_code == 0, ingested.output
    assert "3 document(s): 3 new" in ingested.output
    again = runner.invoke(app, ["guidelines", "ingest", str(folder), "--node", str(node)])
    assert again.exit_code == 0, again.output
    assert "0 new, 0 replaced, 3 unchanged, 0 removed" in again.output
    built = runner.invoke(app, ["index", "build", str(node)])
    assert built.exit_code == 0, built.output
    return node
