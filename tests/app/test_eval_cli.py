"""``clinrag eval``: a suite from the command line writes run.json, report.md and report.html; ``eval compare``
prints and writes every metric's change; missing inputs are clear messages with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from clinrag.app.cli import app


def _calculators(out: Path, seed: int, work: Path) -> None:
    result = CliRunner().invoke(
        app, ["eval", "calculators", "--quick", "--seed", str(seed), "--out", str(out), "--work", str(work)]
    )
    assert result.exit_code == 0, result.output
    assert "value accuracy per vignette kind" in result.output
    assert "wrote " in result.output
    assert (out / "run.json").is_file()


def test_a_suite_run_and_a_comparison(tmp_path: Path) -> None:
    first, second, work = tmp_path / "seed0", tmp_path / "seed1", tmp_path / "work"
    _calculators(first, 0, work)
    _calculators(second, 1, work)
    for run in (first, second):
        assert {p.name for p in run.iterdir()} >= {"run.json", "report.md", "report.html", "plots"}
    data = json.loads((first / "run.json").read_text())
    assert data["run"]["seed"] == 0
    assert data["suites"]["calculators"]["metrics"]["vignettes"] == 24
    compared = CliRunner().invoke(app, ["eval", "compare", str(first), str(second)])
    assert compared.exit_code == 0, compared.output
    assert "| calculators/vignettes | 24 | 24 | 0.000 |" in compared.output
    assert "calculators/value_accuracy" in compared.output
    written = (second / "compare.md").read_text()
    assert written.startswith(f"# clinrag eval compare: A = {first}, B = {second}")
    assert "## Timings (machine-dependent)" in written


def test_missing_inputs_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    no_demo = runner.invoke(app, ["eval", "retrieval", "--demo", str(tmp_path), "--out", str(tmp_path / "o")])
    assert no_demo.exit_code == 2
    assert "no demo cohort here" in no_demo.output
    no_nodes = runner.invoke(app, ["eval", "population", "--demo", str(tmp_path), "--out", str(tmp_path / "o")])
    assert no_nodes.exit_code == 2
    assert "no demo cohort and nodes here" in no_nodes.output
    for suite in ("answers", "trend"):  # trend takes --generators as answers does
        bad_generator = runner.invoke(app, ["eval", suite, "--generators", "gpt-9", "--out", str(tmp_path / "o")])
        assert bad_generator.exit_code == 2, suite
        assert "generators are extractive, local, openai" in bad_generator.output
    unknown = runner.invoke(app, ["eval", "all", "--suites", "retrieval,nope", "--out", str(tmp_path / "o")])
    assert unknown.exit_code == 2
    assert "no suite 'nope'" in unknown.output
    no_run = runner.invoke(app, ["eval", "compare", str(tmp_path), str(tmp_path)])
    assert no_run.exit_code == 2
    assert "no run.json here" in no_run.output
