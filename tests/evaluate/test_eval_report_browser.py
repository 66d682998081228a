"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright (as the web app's browser
tests drive it), opening report.html from disk with every network request refused — the page must show its tables
and every plot (decoded images of real size) with nothing fetched; the same for every committed report under
docs/results/, whose plots must be those its run.json lists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clinrag.demo.web_testing import CHROMIUM, CHROMIUM_FLAGS
from clinrag.evaluate.suites import QuietProgress, SuiteContext, run_suites, write_run
from clinrag.evaluate.suites.calculators import QUICK, CalculatorsSuite

from .suite_checks import SETTINGS
from .test_eval_reports import Constant, sample_result

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs pip install 'clinrag[dev]'")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Debian Chromium."""
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the real calculators suite (quick) and a result with every kind of plot, written to disk."""
    out = tmp_path_factory.mktemp("eval-report")
    context = SuiteContext(out / "no-demo", out / "work", SETTINGS)
    run = run_suites([CalculatorsSuite(seeds=1, names=QUICK), Constant("constant", 1.0)], context, QuietProgress())
    run.results.append(sample_result())
    write_run(run, out)
    return out / "report.html"


RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
COMMITTED = sorted(RESULTS.glob("*/report.html"))


class _Offline:
    """A browser page that may load only file: and data: URLs; ``requested`` lists what it tried besides."""

    def __init__(self, browser: object) -> None:
        self.context = browser.new_context(  # type: ignore[attr-defined]
            viewport={"width": 1280, "height": 900}, offline=True
        )
        self.requested: list[str] = []
        self.context.route("**/*", self._refuse)

    def _refuse(self, route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if not url.startswith(("file:", "data:")):
            self.requested.append(url)
            route.abort()  # type: ignore[attr-defined]
            return
        route.continue_()  # type: ignore[attr-defined]

    def open(self, report: Path) -> Any:
        page = self.context.new_page()
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        return page


def _plots_drawn(page: Any) -> list[str]:
    """The ``data-plot`` names of the page's figures, each required to be a decoded image of real size."""
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('figure.plot'))"
        ".map(f => { const i = f.querySelector('img'); return [f.dataset.plot, !!i && i.complete,"
        " i ? i.naturalWidth : 0, i ? i.naturalHeight : 0, i ? i.getBoundingClientRect().width : 0]; })"
    )
    for name, complete, width, height, shown in sizes:
        assert complete, name
        assert width > 200, name
        assert height > 100, name
        assert shown > 200, name
    return [name for name, *_ in sizes]


def test_the_report_shows_every_plot_and_table_offline(browser: object, report: Path) -> None:
    offline = _Offline(browser)
    context, requested = offline.context, offline.requested
    page = offline.open(report)
    assert page.title() == "clinrag evaluation"
    assert page.locator("section.suite h2").all_inner_texts() == ["calculators", "constant", "sample"]
    assert len(_plots_drawn(page)) == 5  # one of the calculators, four of the sample
    assert page.locator("figure.plot[data-plot='sample/access'] img").get_attribute("alt") == "Access"
    calculators = page.locator("#suite-calculators table.result").first
    assert "value_accuracy" in calculators.inner_text()
    assert page.locator("#suite-sample table.result td", has_text="a | b").count() == 1
    page.locator("#suite-sample summary").click()
    assert page.locator("#suite-sample table.metrics").is_visible()
    assert requested == []
    context.close()


@pytest.mark.parametrize("report", COMMITTED, ids=[p.parent.name for p in COMMITTED])
def test_a_committed_report_shows_its_plots_offline(browser: object, report: Path) -> None:
    """docs/results/RUN/report.html: every suite of its run.json, every plot it lists drawn, nothing fetched."""
    run = json.loads((report.parent / "run.json").read_text(encoding="utf-8"))
    offline = _Offline(browser)
    page = offline.open(report)
    assert page.title() == "clinrag evaluation"
    assert page.locator("section.suite h2").all_inner_texts() == list(run["suites"])
    listed = [f"{suite}/{plot['name']}" for suite, result in run["suites"].items() for plot in result["plots"]]
    assert listed, report
    assert _plots_drawn(page) == listed
    assert page.locator("table.result").count() >= len(run["suites"])
    assert offline.requested == []
    offline.context.close()
