"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright (as the web app's browser
tests drive it), opening report.html from disk with every network request refused — the page must show its tables
and every plot (decoded images of real size) with nothing fetched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


def test_the_report_shows_every_plot_and_table_offline(browser: object, report: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)  # type: ignore[attr-defined]
    requested: list[str] = []

    def refuse(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if not url.startswith(("file:", "data:")):
            requested.append(url)
            route.abort()  # type: ignore[attr-defined]
            return
        route.continue_()  # type: ignore[attr-defined]

    context.route("**/*", refuse)
    page = context.new_page()
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert page.title() == "clinrag evaluation"
    assert page.locator("section.suite h2").all_inner_texts() == ["calculators", "constant", "sample"]
    figures = page.locator("figure.plot")
    assert figures.count() == 5  # one of the calculators, four of the sample
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('figure.plot img'))"
        ".map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width])"
    )
    for complete, width, height, shown in sizes:
        assert complete
        assert width > 200
        assert height > 100
        assert shown > 200
    assert page.locator("figure.plot[data-plot='sample/access'] img").get_attribute("alt") == "Access"
    calculators = page.locator("#suite-calculators table.result").first
    assert "value_accuracy" in calculators.inner_text()
    assert page.locator("#suite-sample table.result td", has_text="a | b").count() == 1
    page.locator("#suite-sample summary").click()
    assert page.locator("#suite-sample table.metrics").is_visible()
    assert requested == []
    context.close()  # type: ignore[attr-defined]
