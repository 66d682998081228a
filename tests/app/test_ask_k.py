"""``clinrag ask --k N``: retrieval returns N hits and the answer is given them as its N numbered sources, as
``clinrag search --k`` sets the hits it shows; a value out of range is a usage error naming ``--k``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.ask_cli import K_MAX, K_MIN
from clinrag.app.cli import app
from clinrag.settings import AnswerSettings

runner = CliRunner()
QUESTION = "Who was treated for a stroke?"


@pytest.mark.parametrize("value", [K_MIN - 1, -3, K_MAX + 1])
def test_k_out_of_range_is_a_usage_error_naming_k(value: int) -> None:
    result = runner.invoke(app, ["ask", QUESTION, "--node", "/nonexistent", "--k", str(value)], terminal_width=200)
    assert result.exit_code == 2, result.output
    assert "'--k'" in result.output
    assert "invalid settings" not in result.output
    assert "Traceback" not in result.output


def test_k_bounds_are_the_settings_bounds() -> None:
    assert (K_MIN, K_MAX) == (1, 50)
    assert AnswerSettings(sources=K_MAX).sources == K_MAX


def _sources(node: Path, *options: str) -> list[dict[str, object]]:
    result = runner.invoke(app, ["ask", QUESTION, "--node", str(node), "--json", *options])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert not answer["abstained"], answer["text"]
    sources: list[dict[str, object]] = answer["sources"]
    return sources


def _chunk_id(source: dict[str, object]) -> str:
    chunk = source["chunk"]
    assert isinstance(chunk, dict)
    return str(chunk["chunk_id"])


def test_k_sets_how_many_hits_become_sources(node_c: Path) -> None:
    default = AnswerSettings().sources
    assert len(_sources(node_c)) == default
    two = _sources(node_c, "--k", "2")
    eight = _sources(node_c, "--k", "8")
    assert len(two) == 2
    assert len(eight) == 8
    assert {_chunk_id(source) for source in two} <= {_chunk_id(source) for source in eight}
    assert len(_sources(node_c, "--sources", "3")) == 3  # the older name of the same option
