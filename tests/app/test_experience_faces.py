"""Answers from experience in the OpenAI-compatible API and the web app (issue 18), against the real demo federation:
"What were patients like NAME discharged with?" from a hospital A user goes to the experience route; the API's
``clinrag.experience`` carries the similar patients (never the patient named) and the message content their table
in Markdown, a stream's final chunk the same; a hospital that denies the user is said; the web app lists the similar
patients beside the answer, marks those it cites, keeps them in the history, and escapes everything.

The patient named is picked from the fixture cohort's registries at run time: a patient held only by hospital A,
with diagnoses, whose name no other patient has."""

from __future__ import annotations

import doctest
import re
from collections import Counter
from html import unescape
from typing import Any

import pytest
from markupsafe import escape

from clinrag.app import population_tables
from clinrag.app.openai_models import ClinragExtension, SourceInfo
from clinrag.app.population_tables import EXPERIENCE_HEADERS, markdown_experience
from clinrag.app.web import experience_view, views
from clinrag.app.web.server import _Pages
from clinrag.app.web.views import turn_view
from clinrag.demo.web_testing import csrf_token
from clinrag.generate.experience import ExperienceOrg, ExperiencePart, SharedView, SimilarView
from clinrag.generate.population_answer import RouteInfo
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.population.similar_sets import load_code_sets
from clinrag.population.tables import population_path

from ..shared.federation import ORGS, Federation
from .test_openai_population import Api, api
from .test_web_population import ask_streamed, signed_in, web_url

__all__ = ["api", "web_url"]  # the API's and the web app's fixtures, used here too

TABLE_HEAD = "| " + " | ".join(EXPERIENCE_HEADERS) + " |"


@pytest.fixture(scope="module")
def named(federation: Federation) -> tuple[int, str]:
    """A patient held only by hospital A, with diagnoses, whose two-word name no other patient has: (id, name)."""
    holders: dict[int, set[str]] = {}
    names: dict[int, str] = {}
    for org in ORGS:
        with ChunkStore.open(federation.configs[org].data / "chunks.sqlite") as chunks:
            for subject_id, name in chunks.patients():
                holders.setdefault(subject_id, set()).add(org)
                if name:
                    names[subject_id] = name
    counts = Counter(names.values())
    sets = load_code_sets(population_path(federation.configs["A"].data))
    with_dx = {int(key) for key in sets.keys[sets.sizes["dx"] > 0]}
    for subject_id in sorted(with_dx):
        name = names.get(subject_id, "")
        if holders.get(subject_id) == {"A"} and counts[name] == 1 and len(name.split()) == 2:
            return subject_id, name
    pytest.skip("no patient of hospital A alone with diagnoses and a unique name in this cohort")


def question(name: str) -> str:
    """The experience question about ``name``."""
    return f"What were patients like {name} discharged with?"


def source_names(sources: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    """The patients' names the extension's sources give, by (org, subject_id)."""
    infos = [SourceInfo.model_validate(source) for source in sources]
    return {(s.org, s.subject_id): s.patient_name for s in infos if s.subject_id is not None and s.patient_name}


def table_rows(content: str) -> list[list[str]]:
    """The body rows of the similar patients' Markdown table."""
    lines = content.split(TABLE_HEAD, 1)[1].strip().splitlines()[1:]
    rows = []
    for line in lines:
        if not line.startswith("| "):
            break
        rows.append([cell.strip() for cell in line.strip()[2:-2].split(" | ")])
    return rows


def test_the_api_answers_from_similar_patients_with_their_table(api: Api, named: tuple[int, str]) -> None:
    subject_id, name = named
    reply = api.ask("A.phys.neur", question(name))
    extension = reply.clinrag
    assert extension["route"]["route"] == "experience"
    assert extension["population"] is None
    part = ExperiencePart.model_validate(extension["experience"])
    assert (part.patient, part.org, part.subject_id) == (name, "A", subject_id)
    assert part.patients
    assert subject_id not in {view.subject_id for view in part.patients}  # never the patient named
    assert {(org.org, org.status) for org in part.orgs} == {("A", "ok"), ("B", "ok"), ("C", "ok")}
    keys = [(view.org, view.subject_id) for view in part.patients]
    assert {(view.org, view.subject_id) for view in part.cited_patients} <= set(keys)
    for source in extension["sources"]:  # the context holds only the similar patients' records
        assert (source["org"], source["subject_id"]) in keys
        assert source["subject_id"] != subject_id
    content = reply.choices[0].message.content
    assert part.text
    assert content.startswith(part.text)  # the lead sentence first
    assert TABLE_HEAD in content
    assert content.endswith(markdown_experience(part, source_names(extension["sources"])))
    rows = table_rows(content)
    assert len(rows) == len(part.patients)
    cited = {(view.org, view.subject_id) for view in part.cited_patients}
    for row, view in zip(rows, part.patients, strict=True):
        assert row[0] == f"Hospital {view.org}"
        assert re.fullmatch(rf"(?:.+ \()?{view.subject_id}\)?", row[1])
        assert row[2] == f"{view.score:.3f}"
        assert row[-1] == ("yes" if (view.org, view.subject_id) in cited else "no")
        for cell, kind in zip(row[3:6], ("dx", "med", "proc"), strict=True):
            shared = view.shared.get(kind, ())
            assert bool(cell) == bool(shared)
            if shared:
                assert (shared[0].title or shared[0].code) in cell
    assert "Not ranked" not in content


def test_a_stream_carries_the_table_and_the_experience(api: Api, named: tuple[int, str]) -> None:
    _, name = named
    whole = api.ask("A.phys.neur", question(name))
    chunks = list(api.ask("A.phys.neur", question(name), stream=True))
    content = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert content == whole.choices[0].message.content
    assert TABLE_HEAD in content
    final = chunks[-1]
    assert final.choices[0].finish_reason == "stop"
    assert final.clinrag["route"] == whole.clinrag["route"]
    assert final.clinrag["experience"] == whole.clinrag["experience"]


def test_a_user_denied_at_a_hospital_sees_its_status(api: Api, named: tuple[int, str]) -> None:
    subject_id, name = named
    reply = api.ask("A.phys", question(name))
    assert reply.clinrag["route"]["route"] == "experience"
    part = ExperiencePart.model_validate(reply.clinrag["experience"])
    statuses = {org.org: org.status for org in part.orgs}
    assert statuses == {"A": "ok", "B": "ok", "C": "denied"}
    assert part.patients
    assert "C" not in {view.org for view in part.patients}  # a denied hospital ranks no one
    assert subject_id not in {view.subject_id for view in part.patients}
    content = reply.choices[0].message.content
    assert "Not ranked — Hospital C: denied by policy." in content
    assert TABLE_HEAD in content


def panel_subjects(html: str) -> list[tuple[str, int, bool]]:
    """Each similar patient the panel lists: organisation, id and whether it is marked cited."""
    found = re.findall(r'<li class="similar-patient( cited)?" data-org="(\w+)" data-subject="(\d+)">', html)
    return [(org, int(subject), bool(cited)) for cited, org, subject in found]


def test_the_web_app_lists_the_similar_patients_beside_the_answer(
    web_url: str, api: Api, named: tuple[int, str]
) -> None:
    subject_id, name = named
    expected = ExperiencePart.model_validate(api.ask("A.phys", question(name)).clinrag["experience"])
    cited = {(view.org, view.subject_id) for view in expected.cited_patients}
    with signed_in(web_url, "A.phys") as client:
        _, events = ask_streamed(client, question(name))
        assert [event for event, _ in events][-1] == "answer"
        streamed = events[-1][1]["html"]
        csrf = csrf_token(client.get("/").text)
        reply = client.post("/ask", data={"question": question(name), "csrf": csrf})  # without JavaScript
        assert reply.status_code == 303
        kept = client.get(reply.headers["location"].split("#")[0]).text  # the history keeps the panel
    for html in (streamed, kept):
        assert 'data-route="experience"' in html
        assert "<strong>From similar patients</strong>" in html
        assert '<section class="experience" aria-label="Similar patients">' in html
        assert html.count(str(escape(expected.text))) == 1  # the lead sentence opens the answer, said once
        listed = panel_subjects(html)
        assert listed == [(v.org, v.subject_id, (v.org, v.subject_id) in cited) for v in expected.patients]
        assert subject_id not in {subject for _, subject, _ in listed}
        assert 'data-status="denied"><strong>Hospital C</strong>: not ranked, denied by policy' in html
        best = expected.patients[0]
        for kind, items in best.shared.items():
            if items:
                assert str(escape(population_tables.shared_text(items[0]))) in html, kind
    marks = re.findall(r'<span class="cited-mark"[^>]*>cited <a class="cite" href="#src-[^"]+"', streamed)
    assert len(marks) == len(cited)  # each cited patient links to their cited passages


def test_the_panel_escapes_everything() -> None:
    hostile = "<script>alert(1)</script>"
    view = SimilarView(
        org="A",
        subject_id=7,
        score=0.5,
        shared={"dx": (SharedView(code="I10", title=hostile, version=10),), "med": (SharedView(code=hostile),)},
    )
    part = ExperiencePart(
        patient=hostile,
        org="A",
        subject_id=1,
        patients=(view,),
        orgs=(ExperienceOrg(org="B", name=hostile, status="unreachable", reason=hostile),),
        cited_patients=(view,),
        text=f"Among the 1 patients most similar to {hostile}:",
    )
    evidence = ClinragExtension(
        generator="extractive",
        abstained=False,
        abstention=None,
        support=1.0,
        cited=[],
        sources=[],
        sentences=[],
        organisations=[],
        quarantined_spans=0,
        timings={},
        route=RouteInfo(route="experience", reason=hostile),
        experience=part,
    )

    class Turn:
        id = "t1"
        status = "done"

    html = _Pages().render("turn_result.html", item={"turn": Turn, "view": turn_view("t1", part.text, evidence)})
    assert "<script>" not in html
    assert unescape(html).count(hostile) >= 6  # lead, heading, route reason, diagnosis, medication, hospital …
    assert "% of sentences supported" not in html  # a list with no passage has no support to speak of
    abstained = evidence.model_copy(update={"abstained": True})  # the answer is not shown: the panel says the lead
    html = _Pages().render("turn_result.html", item={"turn": Turn, "view": turn_view("t1", part.text, abstained)})
    assert '<p class="lead">Among the 1 patients most similar to &lt;script&gt;' in html


def test_the_module_examples_hold() -> None:
    outcomes = [doctest.testmod(module) for module in (experience_view, views, population_tables)]
    assert all(outcome.failed == 0 for outcome in outcomes)
    assert sum(outcome.attempted for outcome in outcomes) >= 10
