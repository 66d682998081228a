"""Calculators in the OpenAI-compatible API and the web app (issue 19; `clinrag ask --as`: test_demo_cli),
against the real demo federation: a calculator question is routed to the calculator, the extension carries the
calculation record, inputs read from a named patient's records cite passages the user may retrieve, a missing input
is asked for — in the web app with a small form whose answer runs the calculation again — and everything shown is
escaped."""

from __future__ import annotations

import doctest
import re
from html import unescape

from clinrag.app.openai_models import ClinragExtension
from clinrag.app.web import calculation_view
from clinrag.app.web.server import _Pages
from clinrag.app.web.views import turn_view
from clinrag.calculators.registry import registry
from clinrag.demo.web_testing import csrf_token
from clinrag.generate.calculation import Calculation, answer_calculation
from clinrag.generate.population_answer import RouteInfo

from ..federation.test_calculation_records import _only_at
from ..shared.federation import Federation
from .test_openai_population import Api, api
from .test_web_population import ask_streamed, signed_in, web_url

__all__ = ["api", "web_url"]  # the API's and the web app's fixtures, used here too

BMI_MISSING = "What is the BMI of a man weighing 80 kg?"


def test_the_api_computes_and_carries_the_calculation(api: Api) -> None:
    reply = api.ask("A.phys", "CHA2DS2-VASc for a 72-year-old woman with hypertension and no diabetes")
    extension = reply.clinrag
    assert extension["route"]["route"] == "calculator"
    (calc,) = [Calculation.model_validate(c) for c in extension["calculations"]]
    assert (calc.calculator, calc.value, calc.missing) == ("cha2ds2_vasc", 3.0, ())
    assert {i.name: i.origin for i in calc.inputs}["age"] == "given"
    content = reply.choices[0].message.content
    assert content.startswith("CHA")
    assert "Formula:" in content


def test_the_api_asks_for_a_missing_input(api: Api) -> None:
    reply = api.ask("A.phys", BMI_MISSING)
    (calc,) = [Calculation.model_validate(c) for c in reply.clinrag["calculations"]]
    assert calc.value is None
    assert calc.missing == ("height",)
    assert "nothing was guessed" in reply.choices[0].message.content


def test_record_inputs_cite_what_the_user_may_retrieve(api: Api, federation: Federation) -> None:
    subject_id, name = _only_at(federation, "A")
    reply = api.ask("A.phys", f"What is the CHA2DS2-VASc score of {name}?")
    extension = reply.clinrag
    assert extension["route"]["route"] == "calculator"
    (calc,) = [Calculation.model_validate(c) for c in extension["calculations"]]
    stated = [i for i in calc.inputs if i.origin == "stated"]
    assert stated
    numbers = {source["number"]: source for source in extension["sources"]}
    for used in stated:
        assert used.citation in numbers
        assert numbers[used.citation]["subject_id"] == subject_id
    denied = api.ask("C.research", f"What is the CHA2DS2-VASc score of {name}?")  # C.research sees C only
    (nothing,) = [Calculation.model_validate(c) for c in denied.clinrag["calculations"]]
    assert not [i for i in nothing.inputs if i.origin == "stated"]
    assert nothing.value is None


def test_the_web_app_shows_the_calculation_and_a_form_for_what_is_missing(web_url: str) -> None:
    with signed_in(web_url, "A.phys") as client:
        created, events = ask_streamed(client, BMI_MISSING)
        assert [event for event, _ in events][-1] == "answer"
        html = events[-1][1]["html"]
        assert 'data-route="calculator"' in html
        assert "<strong>Computed by a calculator</strong>" in html
        assert '<section class="calculation"' in html
        assert "Nothing was guessed." in html
        form = re.search(r'<form class="calc-fill".*?</form>', html, re.DOTALL)
        assert form is not None
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(0)))
        assert fields["calculator"] == "bmi"
        assert unescape(fields["question"]) == BMI_MISSING
        assert 'name="fill.height"' in form.group(0)
        assert fields["conversation"] == created["conversation"]
        reply = client.post("/ask", data={**{k: unescape(v) for k, v in fields.items()}, "fill.height": "180"})
        assert reply.status_code == 303  # the form works without JavaScript
        page = client.get(reply.headers["location"].split("#")[0]).text
        assert f"{BMI_MISSING}; height 180 cm" in unescape(page)  # the question as it was run
        assert '<strong class="value">24.7 kg/m²</strong>' in page or "24.7" in page
        assert page.count('<section class="calculation"') == 2  # both turns kept in the history
        assert csrf_token(page)


def test_the_panel_escapes_everything() -> None:
    hostile = "<script>alert(1)</script>"
    _, calc = answer_calculation(BMI_MISSING, registry()["bmi"])
    calc = calc.model_copy(update={"title": hostile, "conflicts": (hostile,), "formula_source": hostile})
    evidence = ClinragExtension(
        generator="calculator",
        abstained=False,
        abstention=None,
        support=0.0,
        cited=[],
        sources=[],
        sentences=[],
        organisations=[],
        quarantined_spans=0,
        timings={},
        route=RouteInfo(route="calculator", reason=hostile),
        calculations=[calc],
    )

    class Turn:
        id = "t1"
        status = "done"
        conversation = "c1"
        question = hostile

    view = turn_view("t1", "BMI needs height.", evidence)
    html = _Pages().render("turn_result.html", item={"turn": Turn, "view": view}, csrf="x")
    assert "<script>" not in html
    assert unescape(html).count(hostile) >= 5  # title, conflict, source, route reason, the form's question
    assert "% of sentences supported" not in html


def test_the_module_examples_hold() -> None:
    outcome = doctest.testmod(calculation_view)
    assert outcome.attempted > 0
    assert outcome.failed == 0
