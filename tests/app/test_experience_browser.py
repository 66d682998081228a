"""An answer from experience in a real browser (Debian's Chromium, headless, Playwright), over the real demo
federation (issue 18): beside the answer the web app lists the similar patients with their hospital, score and
shared codes, marks those the answer cites (the mark leads to their cited passage), and says which hospital denied
the user. With ``CLINRAG_SCREENSHOTS=DIR`` the screen is saved as DIR/experience.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clinrag.demo.web_testing import CHROMIUM

from ..shared.federation import Federation
from .test_experience_faces import named, question
from .test_web_browser import Web, ask, browser, page, serve_web, shot, sign_in

__all__ = ["browser", "named", "page"]  # fixtures of the browser and experience tests, used here too

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)")


@pytest.fixture(scope="module")
def web(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The web app over the demo federation with the extractive answerer."""
    served = serve_web(tmp_path_factory.mktemp("web-experience-browser"), federation.orgs, {"clinrag-extractive": None})
    yield served
    served.server.stop()


def test_the_similar_patients_panel_is_visible_beside_the_answer(
    page: object, web: Web, named: tuple[int, str]
) -> None:
    subject_id, name = named
    sign_in(page, web, "A.phys")
    turn = ask(page, question(name))
    route = turn.locator("p.route")  # type: ignore[attr-defined]
    assert "From similar patients" in route.inner_text()
    panel = turn.locator("section.experience")  # type: ignore[attr-defined]
    assert panel.is_visible()
    summary = panel.locator("summary").inner_text()
    assert summary.startswith("Similar patients")
    assert name in summary
    lead = turn.locator(".answer p").first.inner_text()  # type: ignore[attr-defined]
    assert "most similar to" in lead
    assert panel.locator("p.lead").count() == 0  # the answer opens with the lead: not said twice
    rows = panel.locator("li.similar-patient")
    assert rows.count() >= 1
    subjects = [rows.nth(i).get_attribute("data-subject") for i in range(rows.count())]
    assert str(subject_id) not in subjects  # never the patient named
    assert "C" not in {rows.nth(i).get_attribute("data-org") for i in range(rows.count())}
    first = rows.first
    assert first.is_visible()
    assert "Hospital " in first.locator(".who strong").inner_text()
    assert first.locator(".score").inner_text().startswith("score ")
    assert first.locator("dl.shared dt").count() >= 1
    assert first.locator("dl.shared dd").first.inner_text().strip()
    denied = panel.locator("li.org[data-status='denied']")
    assert denied.count() == 1
    assert "Hospital C" in denied.inner_text()
    assert "denied by policy" in denied.inner_text()
    shot(page, "experience")
    cited = panel.locator("li.similar-patient.cited")
    if cited.count():
        assert turn.locator(".answer a.cite").count() >= 1  # type: ignore[attr-defined]
        link = cited.first.locator(".cited-mark a.cite").first
        number = link.get_attribute("data-source")
        link.click()
        source = turn.locator(f"section.source[id$='-{number}']")  # type: ignore[attr-defined]
        assert "focus" in (source.get_attribute("class") or "")
