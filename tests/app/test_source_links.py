"""Literature sources named and linked on every face (issue 20): the one-line references, links only to http/https
URLs, the API's source info still read without its new fields (turns stored before them), and the evidence panel
rendering a hostile reference and link as text."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import Environment, FileSystemLoader, select_autoescape

from clinrag.app.ask_cli import answer_json, source_origin
from clinrag.app.openai_models import ClinragExtension, SourceInfo, extension, source_info
from clinrag.app.source_links import citation_reference, guideline_reference, safe_link, source_link
from clinrag.app.web.views import turn_view
from clinrag.types import Answer, Chunk, Citation, Guideline, Source, SourceKind

TEMPLATES = Path(__file__).resolve().parents[2] / "src/clinrag/app/web/templates"
CITATION = Citation(
    pmid=30000202,
    title="Apixaban versus warfarin in atrial fibrillation.",
    authors=("Meyer M", "Okafor C"),
    year=2025,
    journal="Chest",
)
GUIDELINE = Guideline(
    title="Atrial fibrillation: anticoagulation",
    publisher="Example Cardiology Society",
    url="https://guidelines.example.org/af-anticoagulation",
    date=date(2024, 3, 15),
    licence="CC BY 4.0",
)


def _chunk(citation: Citation | None = None, guideline: Guideline | None = None) -> Chunk:
    kind = SourceKind.GUIDELINE if guideline is not None else SourceKind.ABSTRACT
    return Chunk.create(
        source_id="s",
        text="Apixaban lowered major bleeding.",
        org="LIB",
        dept="d",
        source_kind=kind,
        citation=citation,
        guideline=guideline,
    )


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://pubmed.ncbi.nlm.nih.gov/1/", "https://pubmed.ncbi.nlm.nih.gov/1/"),
        ("HTTP://example.org/a?b=1&c=2", "HTTP://example.org/a?b=1&c=2"),
        ("javascript:alert(1)", None),
        ("JaVaScRiPt:alert(1)", None),
        ("data:text/html,<script>x</script>", None),
        ("//example.org/x", None),
        ("/relative", None),
        ("https://", None),
        ("https://example.org/a b", None),
        ("https://example.org/\x00", None),
        ("https://[::1", None),
        ("", None),
        (None, None),
    ],
)
def test_only_http_urls_with_a_host_are_links(url: str | None, link: str | None) -> None:
    assert safe_link(url) == link


def test_references_name_the_citation_and_the_guideline() -> None:
    assert citation_reference(CITATION) == (
        "Meyer M et al., Chest 2025 · Apixaban versus warfarin in atrial fibrillation. · PMID 30000202"
    )
    assert (
        guideline_reference(GUIDELINE)
        == "Example Cardiology Society · Atrial fibrillation: anticoagulation · 2024-03-15"
    )
    assert source_link(_chunk(citation=CITATION)) == CITATION.url == "https://pubmed.ncbi.nlm.nih.gov/30000202/"
    assert source_link(_chunk(guideline=GUIDELINE.model_copy(update={"url": "javascript:alert(1)"}))) is None


def test_the_cli_cell_and_json_carry_reference_and_link() -> None:
    chunk = _chunk(citation=CITATION)
    assert source_origin(chunk).splitlines() == [
        f"{citation_reference(CITATION)} · LIB/d",
        "https://pubmed.ncbi.nlm.nih.gov/30000202/",
    ]
    answer = Answer(
        question="q", text="t [1]", generator="extractive", sources=(Source(number=1, chunk=chunk, score=1),)
    )
    shown = json.loads(answer_json(answer))["sources"][0]
    assert shown["link"] == shown["chunk"]["citation"]["url"] == CITATION.url
    assert shown["reference"] == citation_reference(CITATION)


def test_source_info_is_backwards_compatible() -> None:
    info = source_info(Source(number=1, chunk=_chunk(guideline=GUIDELINE), score=0.5), cited=True)
    assert info.guideline == GUIDELINE
    assert info.link == GUIDELINE.url
    old = info.model_dump(mode="json", exclude={"citation", "guideline", "reference", "link"})
    again = SourceInfo.model_validate(old)  # a turn stored before these fields
    assert (again.citation, again.guideline, again.reference, again.link) == (None, None, None, None)
    assert SourceInfo.model_validate(info.model_dump(mode="json")) == info  # stored and read back


def _panel(info: SourceInfo) -> str:
    answer = Answer(question="q", text="Apixaban lowered bleeding. [1]", generator="extractive")
    evidence: ClinragExtension = extension(answer).model_copy(update={"sources": [info], "cited": [1]})
    view = turn_view("t1", answer.text, evidence)
    pages = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True))
    return pages.get_template("turn_result.html").render(
        item={"turn": SimpleNamespace(id="t1", status="done"), "view": view}, csrf="x"
    )


def test_the_panel_renders_references_as_text_and_only_safe_links() -> None:
    info = source_info(Source(number=1, chunk=_chunk(citation=CITATION), score=0.5), cited=True)
    html = _panel(info)
    assert (
        '<a href="https://pubmed.ncbi.nlm.nih.gov/30000202/" target="_blank" rel="noopener noreferrer">'
        "Meyer M et al., Chest 2025 · Apixaban versus warfarin in atrial fibrillation. · PMID 30000202</a>"
    ) in html
    hostile = info.model_copy(
        update={"reference": '<script>alert(1)</script>" onmouseover="x', "link": "javascript:alert(1)"}
    )
    html = _panel(hostile)  # an extension from a stored turn or another service, not built here
    assert "<script>alert(1)" not in html
    assert "javascript:" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34; onmouseover=&#34;x" in html
    quoted = info.model_copy(update={"link": 'https://example.org/"><script>x</script>'})
    html = _panel(quoted)
    assert '"><script>x' not in html
    assert 'href="https://example.org/&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in html


def test_guideline_panel_shows_publisher_title_date_and_licence() -> None:
    html = _panel(source_info(Source(number=1, chunk=_chunk(guideline=GUIDELINE), score=0.5), cited=True))
    assert (
        '<a href="https://guidelines.example.org/af-anticoagulation" target="_blank" rel="noopener noreferrer">'
        "Example Cardiology Society · Atrial fibrillation: anticoagulation · 2024-03-15</a>"
    ) in html
    assert "<dd>CC BY 4.0</dd>" in html
