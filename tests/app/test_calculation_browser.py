"""A calculation in a real browser (Debian's Chromium, headless, Playwright) over the real demo federation
(issue 19): the panel shows the result, each input with where it came from — record inputs linking to the cited
passage — and, for a missing input, a small form; filling it runs the calculation again. With
``CLINRAG_SCREENSHOTS=DIR`` the screen is saved as DIR/calculation.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.demo.web_testing import CHROMIUM

from ..federation.test_calculation_records import _only_at
from ..shared.federation import Federation
from .test_web_browser import Web, ask, browser, page, serve_web, shot, sign_in

__all__ = ["browser", "page"]  # the browser tests' fixtures, used here too

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)")


@pytest.fixture(scope="module")
def web(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The web app over the demo federation with the extractive answerer."""
    served = serve_web(
        tmp_path_factory.mktemp("web-calculation-browser"), federation.orgs, {"clinrag-extractive": None}
    )
    yield served
    served.server.stop()


def test_record_inputs_link_to_their_passages(page: object, web: Web, federation: Federation) -> None:
    _, name = _only_at(federation, "A")
    sign_in(page, web, "A.phys")
    turn = ask(page, f"What is the CHA2DS2-VASc score of {name}?")
    assert "Computed by a calculator" in turn.locator("p.route").inner_text()  # type: ignore[attr-defined]
    panel = turn.locator("section.calculation")  # type: ignore[attr-defined]
    assert panel.is_visible()
    assert panel.locator(".calc-result .value").inner_text().strip()
    stated = panel.locator("tr[data-origin='from the record']")
    assert stated.count() >= 2  # age and sex, at least
    link = stated.first.locator("a.cite")
    number = link.get_attribute("data-source")
    link.click()
    source = turn.locator(f"section.source[id$='-{number}']")  # type: ignore[attr-defined]
    assert "focus" in (source.get_attribute("class") or "")
    assert name in source.inner_text()


def test_a_missing_input_is_asked_for_and_the_form_runs_it_again(page: object, web: Web) -> None:
    sign_in(page, web, "A.phys")
    turn = ask(page, "What is the BMI of a man weighing 80 kg?")
    panel = turn.locator("section.calculation")  # type: ignore[attr-defined]
    assert "Nothing was guessed." in panel.locator(".calc-missing").inner_text()
    form = panel.locator("form.calc-fill")
    assert form.is_visible()
    form.locator("input[name='fill.height']").fill("180")
    shot(page, "calculation")
    form.get_by_role("button", name="Calculate").click()
    page.wait_for_load_state()  # type: ignore[attr-defined]
    last = page.locator("article.turn").last  # type: ignore[attr-defined]
    last.locator(".result[data-status='done']").wait_for()
    assert "height 180 cm" in last.locator(".question").inner_text()
    assert last.locator("section.calculation .calc-result .value").inner_text() == "24.7 kg/m²"
