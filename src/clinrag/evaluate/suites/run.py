"""Running suites and keeping what they measured: `run_suites` gives a `RunReport`, which `write_run` saves as
``run.json``, ``report.md``, ``report.html`` and ``plots/SUITE-NAME.svg`` in one folder, and `load_run` reads back.

Example:
    >>> from clinrag.evaluate.suites.base import QuietProgress, SuiteResult
    >>> class Constant:
    ...     name = "constant"
    ...     def run(self, context, progress):
    ...         return SuiteResult(self.name, metrics={"one": 1})
    >>> report = run_suites([Constant()], context=None, progress=QuietProgress())  # type: ignore[arg-type]
    >>> report.flat_metrics()
    {'constant/one': 1}
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Final

from clinrag.evaluate.suites.base import Number, Progress, Suite, SuiteInputError, SuiteResult
from clinrag.evaluate.suites.context import SuiteContext

RUN_FILE: Final = "run.json"
MARKDOWN_FILE: Final = "report.md"
HTML_FILE: Final = "report.html"
PLOTS_DIR: Final = "plots"
FORMAT: Final = 1


@dataclass
class RunReport:
    """One run: what was asked (``run``: suites, seed, generators, demo, versions, when) and each suite's result."""

    run: dict[str, object] = field(default_factory=dict)
    results: list[SuiteResult] = field(default_factory=list)

    def suite(self, name: str) -> SuiteResult:
        """The result of one suite."""
        for result in self.results:
            if result.suite == name:
                return result
        raise KeyError(f"the run has no suite {name!r}; it has {[r.suite for r in self.results]}")

    def flat_metrics(self) -> dict[str, Number]:
        """Every metric as ``SUITE/NAME``."""
        return {f"{r.suite}/{name}": value for r in self.results for name, value in r.metrics.items()}

    def flat_timings(self) -> dict[str, Number]:
        """Every timing as ``SUITE/NAME``."""
        return {f"{r.suite}/{name}": value for r in self.results for name, value in r.timings.items()}

    def to_json(self) -> dict[str, object]:
        """JSON-ready."""
        return {"format": FORMAT, "run": self.run, "suites": {r.suite: r.to_json() for r in self.results}}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> RunReport:
        """Read back what `to_json` wrote."""
        suites = data.get("suites")
        if data.get("format") != FORMAT or not isinstance(suites, dict):
            raise SuiteInputError("not a clinrag eval run (run.json of format 1)")
        run = data.get("run")
        return cls(
            dict(run) if isinstance(run, dict) else {},
            [SuiteResult.from_json(name, body) for name, body in suites.items()],
        )


def _version() -> str:
    try:
        return metadata.version("clinrag")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "unknown"


def run_suites(suites: Sequence[Suite], context: SuiteContext, progress: Progress) -> RunReport:
    """Run each suite in turn (each starts its own progress stages) and collect the results."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    report = RunReport(
        run={
            "suites": [suite.name for suite in suites],
            "seed": getattr(context, "seed", None),
            "generators": list(getattr(context, "generators", ())),
            "demo": str(getattr(context, "demo", "")),
            "clinrag": _version(),
            "python": platform.python_version(),
            "started_at": started_at,
            "load_average_start": _load(),
        }
    )
    began = time.perf_counter()
    for suite in suites:
        progress.stage(suite.name, None)
        started = time.perf_counter()
        result = suite.run(context, progress)
        result.seconds = time.perf_counter() - started
        report.results.append(result)
    report.run["seconds"] = round(time.perf_counter() - began, 1)
    report.run["load_average_end"] = _load()
    return report


def _load() -> list[float] | None:
    """`os.getloadavg` (1, 5 and 15 minutes): other work on the machine slows every timing of the run."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:  # pragma: no cover - a platform without it
        return None


def write_run(report: RunReport, out: Path) -> list[Path]:
    """Write ``run.json``, ``report.md``, ``report.html`` and the plots as SVG files into ``out``; returns them."""
    from clinrag.evaluate.suites.report import html, markdown

    out.mkdir(parents=True, exist_ok=True)
    written = [out / RUN_FILE, out / MARKDOWN_FILE, out / HTML_FILE]
    written[0].write_text(json.dumps(report.to_json(), indent=1, default=str) + "\n", encoding="utf-8")
    written[1].write_text(markdown(report), encoding="utf-8")
    written[2].write_text(html(report), encoding="utf-8")
    plots = out / PLOTS_DIR
    for result in report.results:
        for plot in result.plots:
            if plot.svg:
                plots.mkdir(exist_ok=True)
                path = plots / f"{result.suite}-{plot.name}.svg"
                path.write_text(plot.svg, encoding="utf-8")
                written.append(path)
    return written


def load_run(path: Path) -> RunReport:
    """A run from its folder (or its ``run.json``)."""
    file = path / RUN_FILE if path.is_dir() else path
    if not file.is_file():
        raise SuiteInputError(f"{path}: no {RUN_FILE} here (write one with 'clinrag eval SUITE --out {path}')")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SuiteInputError(f"{file}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SuiteInputError(f"{file}: not a clinrag eval run")
    return RunReport.from_json(data)
