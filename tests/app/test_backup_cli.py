"""Backing up and restoring a whole node from the command line, and commands on a node that another process
(a served node) holds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.errors import ConfigError
from clinrag.index.sparse_copy import copy_tree
from clinrag.plugins import STORES

runner = CliRunner()

HOLDER = """
import sys
import qdrant_edge as qe
shard = qe.EdgeShard.load(sys.argv[1])
print("holding", flush=True)
sys.stdin.read()
"""


def _clinrag(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from clinrag.app.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)


def _hits(node: Path, question: str) -> list[str]:
    result = runner.invoke(app, ["search", question, "--node", str(node), "--k", "5"], terminal_width=250)
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if " ms" not in line]  # timings differ run to run


def test_help_teaches_the_syntax() -> None:
    for command in ("snapshot", "restore"):
        result = runner.invoke(app, ["index", command, "--help"], terminal_width=200)
        assert result.exit_code == 0
        assert f"clinrag index {command} " in result.output
        assert "data/demo/nodes/A" in result.output
    assert "--replace" in runner.invoke(app, ["index", "restore", "--help"], terminal_width=200).output


def test_whole_node_round_trip_gives_the_same_results(node_c: Path, tmp_path: Path) -> None:
    node = tmp_path / "C"
    copy_tree(node_c, node)
    questions = ("weakness after a stroke", "discharge medications")
    before = {q: _hits(node, q) for q in questions}

    backup = tmp_path / "backup"
    result = runner.invoke(app, ["index", "snapshot", str(node), "--out", str(backup)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in backup.iterdir()) == [
        "admissions.tar.gz",
        "backup.json",
        "chunks.sqlite",
        "neurology.tar.gz",
    ]
    assert set(json.loads((backup / "backup.json").read_text())["leaves"]) == {"admissions", "neurology"}

    restored = tmp_path / "restored"  # a fresh node folder, as after losing the disk
    result = runner.invoke(app, ["index", "restore", str(backup), str(restored)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert {q: _hits(restored, q) for q in questions} == before

    refused = _clinrag("index", "restore", str(backup), str(node))
    assert refused.returncode == 4
    assert "--replace" in refused.stderr
    assert "restored" not in refused.stdout  # refused before anything was touched
    result = runner.invoke(app, ["index", "restore", str(backup), str(node), "--replace"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert {q: _hits(node, q) for q in questions} == before


def test_one_leaf_to_a_file_and_back(node_c: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "neurology.tar.gz"
    result = runner.invoke(app, ["index", "snapshot", str(node_c), "--leaf", "neurology", "--out", str(snapshot)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["index", "restore", str(snapshot), str(tmp_path / "node")], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "restored neurology" in result.output  # the leaf comes from the snapshot
    unknown = _clinrag("index", "snapshot", str(node_c), "--leaf", "cardiology")
    assert unknown.returncode == 2
    assert "--leaf cardiology" in unknown.stderr


def test_commands_on_a_node_another_process_holds_say_what_to_do(node_c: Path, tmp_path: Path) -> None:
    node = tmp_path / "C"
    copy_tree(node_c, node)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(node / "index/neurology/shard")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        for args in (("search", "stroke", "--node", str(node)), ("index", "build", str(node), "--rebuild")):
            result = _clinrag(*args)
            assert result.returncode == 4, result.stderr
            message = " ".join(result.stderr.split())
            assert "held by another running process" in message
            assert str(node) in message
            assert "--as USER" in message
            assert "Traceback" not in result.stderr
            assert "WouldBlock" not in result.stderr
        assert (node / "index/neurology/shard").is_dir()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def test_snapshot_and_restore_refuse_every_store_but_edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ..plugin_packages import install_plugin

    install_plugin(tmp_path, monkeypatch, "backup_store_plugin", "", {STORES: {"elsewhere": "backup_store_plugin:x"}})
    for backend in ("server", "elsewhere"):
        monkeypatch.setenv("CLINRAG_INDEX__BACKEND", backend)
        for command in (["snapshot", str(tmp_path)], ["restore", str(tmp_path / "backup"), str(tmp_path)]):
            result = runner.invoke(app, ["index", *command], terminal_width=250)
            assert isinstance(result.exception, ConfigError), result.output
            assert f"index.backend is {backend};" in str(result.exception)
