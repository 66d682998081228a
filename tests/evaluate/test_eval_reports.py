"""Reports of an evaluation run: the JSON read back as written, the Markdown, the HTML that needs nothing from
outside, plots that are the same bytes for the same numbers, comparison of two runs, and the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinrag.evaluate.suites import (
    Progress,
    QuietProgress,
    RunReport,
    SuiteContext,
    SuiteInputError,
    SuiteResult,
    Table,
    compare_markdown,
    deltas,
    load_run,
    make,
    names,
    register,
    registry,
    run_suites,
    write_run,
)
from clinrag.evaluate.suites.plots import bars, fit_line, grouped_bars, heatmap, scatter
from clinrag.evaluate.suites.report import cell, html, markdown

from .suite_checks import SETTINGS


def sample_result(value: float = 0.5) -> SuiteResult:
    """A suite result with every part a report shows: metrics, timings, two tables, four kinds of plot, notes."""
    result = SuiteResult("sample", metrics={"extractive/answer_rate": value, "questions": 4})
    result.timings["extractive/latency_p50_s"] = 0.12
    result.add_table(
        Table("per user", ("user", "exactness", "note"), [("A.phys", value, "a | b"), ("B.nurse", 1.0, None)])
    )
    result.add_table(Table("empty", ("x",), []))
    result.add_plot(bars("bars", "Exactness", {"A.phys": value, "B.nurse": 1.0}))
    result.add_plot(
        grouped_bars("grouped", "Recall", ["dense", "hybrid"], {"plain": [0.2, value], "filters": [0.3, None]})
    )
    result.add_plot(
        heatmap("access", "Access", ["A.phys", "B.nurse"], ["A", "B", "C"], [[1.0, 0.0, None], [0.5, 1.0, 0.0]])
    )
    result.add_plot(
        scatter(
            "fit",
            "Relevance against ixn",
            {"u1": (0.1, 0.2), "u2": (0.5, 0.6), "u3": (0.9, 0.9)},
            "ixn",
            "relevance",
            fit=True,
        )
    )
    result.notes.append("Synthetic cohort: in-sample figures.")
    result.details = {"published": {"x": 1}}
    return result


class Constant:
    """A suite that measures a constant (the framework's tests need no cohort)."""

    def __init__(self, name: str, value: float) -> None:
        self.name = name
        self.value = value

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """One stage, one metric."""
        progress.stage(f"{self.name}: one", 1)
        progress(1)
        return SuiteResult(self.name, metrics={"value": self.value})


def test_a_run_written_reads_back_the_same(tmp_path: Path) -> None:
    report = RunReport({"seed": 3, "generators": ["extractive"]}, [sample_result()])
    written = write_run(report, tmp_path)
    assert {p.name for p in written} >= {"run.json", "report.md", "report.html", "sample-bars.svg", "sample-fit.svg"}
    again = load_run(tmp_path)
    assert again.flat_metrics() == {"sample/extractive/answer_rate": 0.5, "sample/questions": 4}
    assert again.flat_timings() == {"sample/extractive/latency_p50_s": 0.12}
    assert again.suite("sample").tables == report.suite("sample").tables
    assert [p.name for p in again.suite("sample").plots] == ["bars", "grouped", "access", "fit"]
    assert again.suite("sample").details == {"published": {"x": 1}}
    assert json.loads((tmp_path / "run.json").read_text())["format"] == 1


def test_markdown_shows_tables_plots_and_every_metric() -> None:
    text = markdown(RunReport({"seed": 0}, [sample_result()]))
    assert "## sample" in text
    assert "| A.phys | 0.500 | a \\| b |" in text
    assert "![Exactness](plots/sample-bars.svg)" in text
    assert "| extractive/answer_rate | 0.500 |" in text
    assert "| extractive/latency_p50_s | 0.120 |" in text
    assert "- Synthetic cohort: in-sample figures." in text


def test_the_html_needs_nothing_from_outside() -> None:
    page = html(RunReport({"seed": 0}, [sample_result()]))
    assert page.count('<figure class="plot"') == 4
    assert page.count("data:image/svg+xml;base64,") == 4
    assert "<script" not in page
    assert "<link" not in page
    assert "http://" not in page.replace("http-equiv", "")
    assert "https://" not in page
    assert "a | b" in page
    assert "default-src 'none'" in page  # the page itself forbids fetching anything


def test_plots_are_the_same_bytes_for_the_same_numbers() -> None:
    assert sample_result().plots == sample_result().plots
    assert sample_result(0.5).plots[0].svg != sample_result(0.7).plots[0].svg
    assert "Date" not in sample_result().plots[0].svg


def test_the_regression_line() -> None:
    slope, intercept, r2 = fit_line([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0]) or (0.0, 0.0, 0.0)
    assert (slope, intercept, r2) == (2.0, 1.0, 1.0)
    assert fit_line([1.0, 1.0], [0.0, 1.0]) is None
    noisy = fit_line([0.0, 1.0, 2.0], [0.0, 1.0, 0.5])
    assert noisy is not None
    assert 0.0 < noisy[2] < 1.0


def test_cells_and_tables() -> None:
    assert [cell(v) for v in (0.25, 3, None, False, "x", 123456)] == ["0.250", "3", "", "no", "x", "123,456"]
    with pytest.raises(ValueError, match="rows of"):
        Table("bad", ("a", "b"), [("only one",)])
    result = SuiteResult("s")
    result.add_table(Table("t", ("a",), []))
    with pytest.raises(ValueError, match="already has a table"):
        result.add_table(Table("t", ("a",), []))
    with pytest.raises(KeyError, match="no metric"):
        result.metric("missing")


def test_compare_gives_every_metric_and_its_change() -> None:
    a = RunReport({}, [sample_result(0.5), SuiteResult("old", metrics={"x": 1})])
    b = RunReport({}, [sample_result(0.75), SuiteResult("new", metrics={"y": 2})])
    found = {d.name: d for d in deltas(a.flat_metrics(), b.flat_metrics())}
    assert found["sample/extractive/answer_rate"].delta == 0.25
    assert found["sample/questions"].delta == 0.0
    assert (found["old/x"].b, found["new/y"].a) == (None, None)
    text = compare_markdown(a, b, "before", "after")
    assert "A = before, B = after" in text
    assert "4 metrics: 1 changed, 1 equal, 2 in one run only." in text
    assert "| sample/extractive/answer_rate | 0.500 | 0.750 | 0.250 |" in text
    assert "## Timings (machine-dependent)" in text


def test_run_suites_collects_results_and_tells_progress(tmp_path: Path) -> None:
    context = SuiteContext(tmp_path, tmp_path / "work", SETTINGS, seed=2)
    progress = QuietProgress()
    report = run_suites([Constant("one", 1.0), Constant("two", 2.0)], context, progress)
    assert report.flat_metrics() == {"one/value": 1.0, "two/value": 2.0}
    assert report.run["suites"] == ["one", "two"]
    assert report.run["seed"] == 2
    assert progress.stages == ["one", "one: one", "two", "two: one"]


def test_a_registered_suite_runs_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    names()  # the built-ins loaded, then a copy of the registry to register into (restored after the test)
    monkeypatch.setattr(registry, "_SUITES", dict(registry._SUITES))
    register(
        "constant-test", "a constant", lambda: Constant("constant-test", 1.0), lambda: Constant("constant-test", 0.0)
    )
    assert "constant-test" in names()
    assert names()[:7] == ["retrieval", "answers", "safety", "calculators", "discharge", "literature", "population"]
    assert make("constant-test", quick=True).run(None, QuietProgress()).metrics == {"value": 0.0}  # type: ignore[arg-type]
    with pytest.raises(SuiteInputError, match="no suite 'nope'"):
        make("nope")


def test_missing_inputs_are_said(tmp_path: Path) -> None:
    context = SuiteContext(tmp_path, tmp_path / "work", SETTINGS)
    with pytest.raises(SuiteInputError, match="no demo cohort here"):
        context.require_cohort()
    with pytest.raises(SuiteInputError, match="generators are"):
        SuiteContext(tmp_path, tmp_path, SETTINGS, generators=("gpt-9",))
    with pytest.raises(SuiteInputError, match=r"no run\.json here"):
        load_run(tmp_path)
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(SuiteInputError, match="not a clinrag eval run"):
        load_run(tmp_path)
