"""The ``grid`` suite (issue 21) in small versions on the federation tests' demo cohort (40 patients): run twice,
equal numbers; combinations that differ only in what their mode ignores share one run, and nodes are built once
per chunk size × name prefixing; the packaged grid's 64 combinations are 64 distinct runs; branches; a grid file
with an unknown weight or parameter is refused."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from tests.evaluate.suite_checks import SETTINGS, twice

from clinrag.evaluate.grid import Combination, GridError, GridSpec, GridValues
from clinrag.evaluate.suites import SuiteContext, SuiteInputError
from clinrag.evaluate.suites.grid import GridSuite

SMALL = """
questions: {per_kind: 2, rejection: 1}
grid:
  chunk_size: [800, 1200]
  k: [5]
  mode: [hybrid]
  mmr_lambda: [0.5, 0.8]
weights: {recall_at_k: 2, rejection: 1}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite's cache (one node per chunk size), shared by this module's tests."""
    return tmp_path_factory.mktemp("eval-grid-work")


def test_a_small_grid_twice_with_equal_numbers(demo_out: Path, work: Path, tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(SMALL)
    result = twice(GridSuite(grid=grid), SuiteContext(demo_out, work, SETTINGS, seed=0))
    assert result.metric("combinations") == 4
    assert result.metric("distinct_runs") == 2  # λ is read only by hybrid-mmr
    assert result.metric("indexes") == 2
    ranking = result.tables[0]
    assert ranking.column("rank") == [1, 2, 3, 4]
    scores = ranking.column("score")
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    for row in ranking.rows:  # score = (2 recall + 1 rejection) / 3
        recall, rejection, score = (float(cell or 0) for cell in row[-3:])
        assert score == pytest.approx((2 * (recall or 0) + (rejection or 0)) / 3, abs=1e-4)
    labels = [name.rsplit("/", 1)[0] for name in result.metrics if name.endswith("/score") and "λ" in name]
    assert len(labels) == 4
    same = [result.metric(f"{label}/recall_at_k") for label in labels if "c800" in label]
    assert len(same) == 2
    assert same[0] == same[1]
    assert {p.name for p in result.plots} == {"top-scores", "best-metrics"}


def test_the_quick_grid_is_the_packaged_grid_cut(demo_out: Path, work: Path) -> None:
    result = GridSuite(limit=4, per_kind=2, rejection=1).run(SuiteContext(demo_out, work, SETTINGS), _Quiet())
    assert result.metric("combinations") == 4
    assert result.metric("indexes") == 1
    assert 0.0 <= result.metric("best/score") <= 1.0
    assert result.metric("by/fetch_k/50") is not None
    assert result.metric("by/fetch_k/100") is not None
    assert not any(name.startswith("by/mmr_lambda") for name in result.metrics)  # only hybrid-mmr reads λ


def test_the_packaged_grid_is_64_distinct_runs() -> None:
    """λ is varied only under hybrid-mmr and fetch_k only under plain hybrid: no two combinations share a run."""
    spec = GridSpec.load()
    combinations = spec.combinations()
    assert len(combinations) == 64
    assert len({c.run_key for c in combinations}) == 64
    assert len({c.label for c in combinations}) == 64
    assert {c.mmr_lambda for c in combinations if c.mode == "hybrid"} == {0.5}
    assert {c.fetch_k for c in combinations if c.mode == "hybrid-mmr"} == {50}
    # the extractive generator's constant metrics do not weigh in the packaged score
    assert spec.weights["faithfulness"] == spec.weights["rejection"] == 0


def test_branches_replace_the_grids_values_and_are_checked(tmp_path: Path) -> None:
    spec = GridSpec.model_validate(
        {"grid": {"k": [5, 10]}, "branches": [{"mode": ["hybrid-mmr"], "mmr_lambda": [0.3, 0.7]}, {"k": [5]}]}
    )
    assert [(c.mode, c.k, c.mmr_lambda) for c in spec.combinations()] == [
        ("hybrid-mmr", 5, 0.3),
        ("hybrid-mmr", 5, 0.7),
        ("hybrid-mmr", 10, 0.3),
        ("hybrid-mmr", 10, 0.7),
        ("hybrid", 5, 0.5),
    ]
    bad = tmp_path / "bad.yaml"
    bad.write_text("branches:\n  - {speed: [1]}\n")
    with pytest.raises(GridError, match="speed"):
        GridSpec.load(bad)


def test_a_grid_with_an_unknown_weight_is_refused(demo_out: Path, work: Path, tmp_path: Path) -> None:
    grid = tmp_path / "bad.yaml"
    grid.write_text("weights: {speed: 1}\n")
    with pytest.raises(SuiteInputError, match="unknown metrics"):
        GridSuite(grid=grid).run(SuiteContext(demo_out, work, SETTINGS), _Quiet())


def test_the_grid_values_are_the_combination_fields_in_order() -> None:
    """`GridSpec.combinations`, `Combination.cells` and `Combination.to_json` all go by the dataclass's fields."""
    assert list(GridValues.model_fields) == [parameter.name for parameter in fields(Combination)]
    first = GridSpec.load().combinations()[0]
    assert list(first.to_json()) == list(GridValues.model_fields)
    assert first.cells() == tuple(first.to_json().values())


class _Quiet:
    def __call__(self, done: int) -> None:
        pass

    def stage(self, description: str, total: int | None = None) -> None:
        pass
