"""The command line: help that teaches, synth, ingest, settings and demo, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from clinrag.app.cli import app

runner = CliRunner()


def _clinrag(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from clinrag.app.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False, timeout=300)


def test_help_lists_every_command() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("settings", "synth", "ingest", "demo"):
        assert command in result.output


def test_command_help_has_examples() -> None:
    for command in ("synth", "ingest"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0
        assert f"clinrag {command}" in result.output


def test_synth_then_ingest(tmp_path: Path) -> None:
    out = tmp_path / "cohort"
    result = runner.invoke(app, ["synth", "--patients", "20", "--seed", "3", "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "20 patients" in result.output
    assert (out / "hospitals/B/note/discharge.csv").is_file()
    store = tmp_path / "b.sqlite"
    result = runner.invoke(app, ["ingest", str(out / "hospitals/B"), "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "as B into" in result.output
    assert "notes:" in result.output


def test_settings_shows_sources(tmp_path: Path) -> None:
    (tmp_path / "clinrag.toml").write_text("[ingest]\nchunk_max_chars = 640\n")
    result = _clinrag("settings", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "640" in result.stdout
    assert "clinrag.toml" in result.stdout


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    result = _clinrag("ingest", str(tmp_path), "--org", "Z", "--store", str(tmp_path / "s.sqlite"))
    assert result.returncode == 3
    said = " ".join(result.stderr.split())  # the console wraps long lines
    assert "neither a MIMIC-IV folder nor a FHIR export" in said
    assert "hosp/patients.csv" in said  # what was looked for
    assert "Traceback" not in result.stderr
    result = _clinrag("synth", "--patients", "5", "--out", str(tmp_path / "x"))
    assert result.returncode == 2
    assert "synth.patients" in result.stderr


def test_ingest_without_org_says_how_to_give_one(tmp_path: Path) -> None:
    (tmp_path / "hosp").mkdir()  # a MIMIC-IV folder without clinrag-source.toml
    (tmp_path / "hosp" / "patients.csv").write_text("subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n")
    result = _clinrag("ingest", str(tmp_path))
    assert result.returncode == 2
    assert "--org" in result.stderr


def test_demo_builds_three_hospitals(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "from clinrag.app.cli import main; main()"]
    args = ["demo", "--out", str(tmp_path / "demo"), "--patients", "12", "--no-serve"]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    with subprocess.Popen([*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as run:
        assert run.stderr is not None
        first = run.stderr.readline()  # progress comes as it happens, though stderr is a pipe ...
        assert run.poll() is None
        assert first.startswith("generating 12 patients")
        stdout, stderr = run.communicate(timeout=300)
    result = subprocess.CompletedProcess(run.args, run.returncode, stdout, first + stderr)
    assert result.returncode == 0, result.stderr
    for stage in ("ingesting hospital A", "indexing hospital A", "indexing hospital C"):
        assert stage in result.stderr
    assert "│ A        │ orthopaedics   │ note │" in result.stdout  # ... and tables are not cut at 80 columns
    assert "…" not in result.stdout
    for org in ("A", "B", "C"):
        assert (tmp_path / f"demo/nodes/{org}/chunks.sqlite").is_file()
    assert "neurology" in result.stdout
    again = _clinrag("demo", "--out", str(tmp_path / "demo"), "--patients", "12", "--no-serve")
    assert again.returncode == 0


def test_index_build_search_snapshot_restore(tmp_path: Path) -> None:
    cohort, node = tmp_path / "cohort", tmp_path / "node"
    assert runner.invoke(app, ["synth", "--patients", "20", "--out", str(cohort), "--workers", "1"]).exit_code == 0
    result = runner.invoke(app, ["ingest", str(cohort / "hospitals/C"), "--store", str(node / "chunks.sqlite")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["index", "build", str(node)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "neurology" in result.output
    again = runner.invoke(app, ["index", "build", str(node)], terminal_width=200)
    assert "neurology" in again.output

    result = runner.invoke(
        app, ["search", "weakness after a stroke", "--node", str(node), "--k", "3"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    assert "3 hits" in result.output

    snapshot = tmp_path / "neurology.tar"
    result = runner.invoke(app, ["index", "snapshot", str(node), "--leaf", "neurology", "--out", str(snapshot)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["index", "restore", str(snapshot), str(tmp_path / "restored"), "--leaf", "neurology"])
    assert result.exit_code == 0, result.output
    assert "restored neurology" in result.output


def test_search_without_an_index_says_what_to_do(tmp_path: Path) -> None:
    result = _clinrag("search", "anything", "--node", str(tmp_path))
    assert result.returncode == 4
    assert "clinrag index build" in result.stderr


def test_make_demo_takes_its_ports_as_variables() -> None:
    root = Path(__file__).resolve().parents[2]
    ports = ["DEMO_IDP_PORT=9501", "DEMO_NODE_PORT=8201", "DEMO_WEB_PORT=8400"]
    result = subprocess.run(
        ["make", "-n", "-C", str(root), "demo", *ports], capture_output=True, text=True, check=True, timeout=60
    )
    assert "--idp-port 9501 --node-port 8201 --web-port 8400" in result.stdout
    demo_help = runner.invoke(app, ["demo", "--help"], terminal_width=200).output
    for option in ("--idp-port", "--node-port", "--web-port"):
        assert option in demo_help
