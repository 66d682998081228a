"""Output that reads well in a pipe: readable values in search, option names in usage errors, plain progress."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from clinrag.app import console as console_module
from clinrag.app.cli import app
from clinrag.app.console import PIPED_WIDTH, ProgressReport

runner = CliRunner()


def _clinrag(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from clinrag.app.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)


def test_search_prints_dates_in_words(node_c: Path) -> None:
    result = runner.invoke(app, ["search", "strokes since 2020", "--node", str(node_c), "--k", "2"])
    assert result.exit_code == 0, result.output
    assert "dates: on or after 2020-01-01" in result.output
    assert "DateRange" not in result.output
    assert "datetime" not in result.output


def test_search_names_the_option_at_fault(node_c: Path) -> None:
    result = _clinrag("search", "stroke", "--node", str(node_c), "--k", "0")
    assert result.returncode == 2
    assert "'--k'" in result.stderr
    assert "retrieve.k" not in result.stderr
    result = _clinrag("search", "stroke", "--node", str(node_c), "--mode", "fuzzy")
    assert result.returncode == 2
    assert "'--mode'" in result.stderr
    assert "hybrid-mmr" in result.stderr


def test_piped_output_is_wide_and_progress_is_plain_lines() -> None:
    if not os.environ.get("COLUMNS"):
        assert console_module.console.width == PIPED_WIDTH  # pytest captures stdout: not a terminal
    out = Console(file=io.StringIO(), width=PIPED_WIDTH)
    report = ProgressReport(None, out, "indexing hospital A", 900)
    report(100)
    report(200)
    report.stage("indexing hospital B", 400)
    report(50)
    report.finish()
    assert out.file.getvalue().splitlines() == [  # type: ignore[attr-defined]
        "indexing hospital A: 100/900",
        "indexing hospital A: 200/900",
        "indexing hospital B ...",
        "indexing hospital B: 50/400",
    ]
