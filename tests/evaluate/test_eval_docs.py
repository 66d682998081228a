"""docs/evaluation.md's tables of committed runs say what the runs' run.json files say: in a table with a
``metric`` column, each row names a metric as ``SUITE/NAME`` and each column headed by the name of a folder under
docs/results/ holds that run's value, as written (rounded to the digits shown)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "evaluation.md"
RESULTS = ROOT / "docs" / "results"


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``, each as rows of cells (header first, the separator row dropped).

    Example:
        >>> tables("a\\n\\n| x | y |\\n|---|---|\\n| 1 | 2 |\\n\\nb")
        [[['x', 'y'], ['1', '2']]]
    """
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def run_value(run: dict[str, object], name: str) -> object:
    """``SUITE/NAME`` of a run.json: the suite's metric, else its timing, else its own field (``seconds``)."""
    suite, _, metric = name.partition("/")
    result = run["suites"][suite]  # type: ignore[index]
    for part in ("metrics", "timings"):
        if metric in result[part]:
            return result[part][metric]
    return result[metric]


def checked_cells() -> list[tuple[str, str, str]]:
    """(run, metric, value as written) of every run column of every metric table."""
    cells = []
    runs = {folder.name for folder in RESULTS.iterdir() if (folder / "run.json").is_file()}
    for table in tables(DOC.read_text(encoding="utf-8")):
        header, rows = table[0], table[1:]
        if "metric" not in header:
            continue
        at = header.index("metric")
        for column, run in enumerate(header):
            if run not in runs:
                continue
            for row in rows:
                if row[column] not in ("", "–"):
                    cells.append((run, row[at].strip("`"), row[column]))
    return cells


def test_the_doc_has_tables_of_committed_runs() -> None:
    checked = checked_cells()
    assert {run for run, _, _ in checked} >= {"eval-grid"}
    assert len(checked) >= 10


@pytest.mark.parametrize(("run", "metric", "written"), checked_cells())
def test_a_figure_of_the_doc_is_its_runs(run: str, metric: str, written: str) -> None:
    data = json.loads((RESULTS / run / "run.json").read_text(encoding="utf-8"))
    value = run_value(data, metric)
    assert isinstance(value, int | float), (run, metric, value)
    shown = written.replace(",", "").split()[0]
    digits = len(shown.split(".")[1]) if "." in shown else 0
    assert float(shown) == round(float(value), digits), (run, metric, value, written)
