"""The README's examples stay true: every `clinrag` command it shows exists, with the options it uses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from clinrag.app.cli import app

README = Path(__file__).parents[2] / "README.md"


def _readme_commands() -> list[list[str]]:
    commands = []
    for line in README.read_text().splitlines():
        match = re.search(r"(?:^|\s)(?:\.venv/bin/)?clinrag (.+?)(?:\s+#.*)?$", line)
        if match and not line.lstrip().startswith(("|", ">")):
            commands.append(shlex.split(match.group(1)))
    return commands


def test_readme_opens_with_the_two_commands() -> None:
    head = README.read_text()[:600]
    assert "make demo" in head
    assert "make test" in head


def test_readme_commands_exist_with_their_options() -> None:
    commands = _readme_commands()
    assert len(commands) >= 4
    runner = CliRunner()
    for words in commands:
        help_text = runner.invoke(app, [words[0], "--help"], terminal_width=200).output
        assert "Usage" in help_text, words
        for option in (word for word in words[1:] if word.startswith("--")):
            assert option in help_text, f"README uses {option} with clinrag {words[0]}"
