"""A population answer in a real browser (Debian's Chromium, headless, Playwright), over the real demo federation:
the route, the table and the bar chart are visible under the answer, small cells have no bar, and ``[Q1]`` leads to
its table. With ``CLINRAG_SCREENSHOTS=DIR`` the screen is saved as DIR/population.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.demo.web_testing import CHROMIUM

from ..shared.federation import Federation
from .test_web_browser import Web, ask, browser, page, serve_web, shot, sign_in

__all__ = ["browser", "page"]  # the browser tests' fixtures, used here too

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)")

DIAGNOSES = "What are the most common diagnoses?"


@pytest.fixture(scope="module")
def web(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The web app over the demo federation with the extractive answerer."""
    served = serve_web(tmp_path_factory.mktemp("web-population-browser"), federation.orgs, {"clinrag-extractive": None})
    yield served
    served.server.stop()


def test_the_table_and_chart_are_visible_under_the_answer(page: object, web: Web) -> None:
    sign_in(page, web, "A.phys.neur")
    turn = ask(page, DIAGNOSES)
    route = turn.locator("p.route")  # type: ignore[attr-defined]
    assert route.is_visible()
    assert "Counted across hospitals" in route.inner_text()
    table = turn.locator("table.counts")  # type: ignore[attr-defined]
    assert table.is_visible()
    assert table.locator("tbody tr").count() == 5
    assert "Hospital C" in table.locator("thead").inner_text()
    chart = turn.locator("svg.chart")  # type: ignore[attr-defined]
    assert chart.is_visible()
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] > 200
    assert box["height"] > 60
    drawn = chart.locator("g.bar rect")
    assert drawn.count() == chart.locator("g.bar:not(.small)").count() >= 1
    widths = [float(drawn.nth(i).get_attribute("width") or 0) for i in range(drawn.count())]
    assert widths == sorted(widths, reverse=True)  # ranked: the longest bar first
    assert chart.locator("g.bar.small rect").count() == 0
    shot(page, "population")
    turn.locator(".answer a.cite.query").first.click()
    figure = turn.locator("figure.population-result").first
    assert "focus" in (figure.get_attribute("class") or "")
