"""``clinrag ask`` checks its question where it enters: a usage error naming the limit, never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clinrag.app.chat_service import MAX_QUESTION_CHARS
from clinrag.app.cli import app

runner = CliRunner()


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_is_a_usage_error(question: str) -> None:
    result = runner.invoke(app, ["ask", question, "--node", "/nonexistent"])
    assert result.exit_code == 2
    assert "the question is empty" in result.output
    assert "Traceback" not in result.output


def test_an_over_long_question_names_the_limit_and_is_not_sent() -> None:
    question = "Is Ada Stone allergic to anything? " * 300  # > 10,000 characters
    result = runner.invoke(app, ["ask", question, "--as", "A.phys"])  # no federation runs: never reached
    assert result.exit_code == 2
    assert f"the limit is {MAX_QUESTION_CHARS:,} characters" in " ".join(result.output.replace("│", " ").split())
    assert "Traceback" not in result.output
    assert "ValidationError" not in result.output
    assert "Ada Stone" not in result.output  # the question is not echoed back
