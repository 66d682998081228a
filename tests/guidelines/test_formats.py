"""Each guideline format ingested: HTML, Markdown and PDF documents become chunks whose sections are the documents'
headings and whose tables are rows of 'cell | cell', each chunk carrying its guideline (issue 20)."""

from __future__ import annotations

import doctest
from datetime import datetime
from pathlib import Path

import pytest

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.guidelines.ingest import GuidelineReport, ingest_guidelines
from clinrag.ingest.guidelines.manifest import AllowList
from clinrag.types import Chunk, SourceKind

from .documents import PUBLISHERS, guideline_folder


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[GuidelineReport, list[Chunk]]:
    root = tmp_path_factory.mktemp("formats")
    folder = guideline_folder(root)
    with ChunkStore.open(root / "node" / "chunks.sqlite") as store:
        report = ingest_guidelines(folder, store, AllowList(publishers=PUBLISHERS), org="LIB")
        return report, list(store.chunks())


def _of(chunks: list[Chunk], document: str) -> list[Chunk]:
    return [chunk for chunk in chunks if chunk.note_id == document]


def _lines(chunks: list[Chunk]) -> list[str]:
    return [line for chunk in chunks for line in chunk.text.splitlines()]


def test_every_document_is_ingested_as_a_guideline(ingested: tuple[GuidelineReport, list[Chunk]]) -> None:
    report, chunks = ingested
    assert (report.documents, report.new, report.skipped, report.problems) == (3, 3, 0, [])
    assert {chunk.note_id for chunk in chunks} == {
        "cardiology/af-anticoagulation.html",
        "hypertension/hypertension.md",
        "kidney/ckd-monitoring.pdf",
    }
    for chunk in chunks:
        assert chunk.source_kind is SourceKind.GUIDELINE
        assert (chunk.org, chunk.dept, chunk.leaf) == ("LIB", "guidelines", "guidelines")
        assert chunk.guideline is not None
        assert chunk.citation is None
        assert chunk.sensitivity == ()  # about no patient
        assert chunk.charttime == datetime.combine(chunk.guideline.date, datetime.min.time())
        assert chunk.context.startswith(f"{chunk.guideline.publisher}, {chunk.guideline.title} (")


def test_html_headings_lists_and_tables(ingested: tuple[GuidelineReport, list[Chunk]]) -> None:
    chunks = _of(ingested[1], "cardiology/af-anticoagulation.html")
    guideline = chunks[0].guideline
    assert guideline is not None
    assert guideline.short == (
        "Example Cardiology Society, Atrial fibrillation: anticoagulation, 2024-03-15, "
        "https://guidelines.example.org/af-anticoagulation"
    )
    assert guideline.licence == "CC BY 4.0"
    assert [chunk.section for chunk in chunks] == [
        None,  # the disclaimer before the first heading; the H1 repeats the title and is no section
        "1. Assessing stroke risk",
        "1. Assessing stroke risk > 1.1 When to offer anticoagulation",
        "2. Choosing an anticoagulant",
        "3. Bleeding risk",
    ]
    lines = _lines(chunks)
    assert "- Offer an oral anticoagulant to women with a CHA2DS2-VASc score of 3 or more." in lines
    assert "Drug | Usual dose | Reduced dose" in lines
    assert "Edoxaban | 60 mg once daily | 30 mg once daily" in lines
    assert any(line.startswith("Assess bleeding risk with the ORBIT score") for line in lines)  # text in a <div>
    text = "\n".join(lines)
    for boilerplate in ("Sign in", "Cookie", "tracking", "All guidelines"):
        assert boilerplate not in text
    assert chunks[3].context.endswith("| 2. Choosing an anticoagulant: ")


def test_markdown_headings_lists_and_tables(ingested: tuple[GuidelineReport, list[Chunk]]) -> None:
    chunks = _of(ingested[1], "hypertension/hypertension.md")
    guideline = chunks[0].guideline
    assert guideline is not None
    assert (guideline.publisher, guideline.licence) == ("Example Health Agency", "Open Government Licence v3.0")
    assert [chunk.section for chunk in chunks] == [None, "Diagnosis", "Treatment targets", "Choice of drug"]
    assert chunks[2].text == "Age | Clinic blood pressure target\nUnder 80 years | Below 140/90 mmHg\n" + (
        "80 years and over | Below 150/90 mmHg"
    )
    lines = _lines(chunks)
    assert "1. Offer an ACE inhibitor or an angiotensin receptor blocker to adults with type 2 diabetes." in lines
    assert "- Use a thiazide-like diuretic if a calcium channel blocker is not tolerated." in lines
    assert "*" not in "\n".join(lines)  # emphasis reduced to its text


def test_pdf_headings_paragraphs_and_tables(ingested: tuple[GuidelineReport, list[Chunk]]) -> None:
    chunks = _of(ingested[1], "kidney/ckd-monitoring.pdf")
    assert [chunk.section for chunk in chunks] == [
        None,
        "1. Measuring kidney function",
        "2. Frequency of monitoring",
        "3. Referral",
        "4. Blood pressure",
    ]
    lines = _lines(chunks)
    assert "GFR category | eGFR (ml/min/1.73 m2) | Monitoring per year" in lines
    assert "G3b | 30 to 44 | 2 times" in lines
    # a paragraph wrapped over several lines of the page is one line again
    assert any(line.startswith("Estimate the glomerular") and line.endswith("to detect albuminuria.") for line in lines)
    assert "- Refer adults with an eGFR below 30 ml/min/1.73 m2 to a kidney specialist." in lines
    assert chunks[-1].text.startswith("Aim for a clinic systolic blood pressure")  # the second page


def test_long_sections_are_packed_in_whole_sentences(tmp_path: Path) -> None:
    folder = tmp_path / "guidelines"
    folder.mkdir()
    sentences = [f"Recommendation {n} asks for a review of the treatment plan every {n} weeks." for n in range(1, 30)]
    (folder / "long.md").write_text("# Reviews\n\n" + " ".join(sentences) + "\n")
    (folder / "long.toml").write_text(
        'title = "Reviews"\npublisher = "Example Health Agency"\nurl = "https://example.org/r"\n'
        'date = 2020-01-01\nlicence = "CC0"\n'
    )
    with ChunkStore.open(tmp_path / "node" / "chunks.sqlite") as store:
        ingest_guidelines(folder, store, AllowList(publishers=PUBLISHERS), org="LIB", max_chars=300)
        chunks = list(store.chunks())
    assert len(chunks) > 3
    assert all(len(chunk.text) <= 300 and chunk.section is None for chunk in chunks)  # H1 = the title
    assert [s for chunk in chunks for s in chunk.text.replace(". ", ".\n").splitlines()] == sentences
    assert [chunk.position for chunk in chunks] == list(range(len(chunks)))


def test_the_examples_in_the_docstrings_hold() -> None:
    from clinrag.app import guidelines_cli
    from clinrag.ingest.guidelines import blocks, html_reader, ingest, manifest, markdown_reader, pdf_reader

    for module in (blocks, html_reader, markdown_reader, pdf_reader, manifest, ingest, guidelines_cli):
        outcome = doctest.testmod(module)
        assert outcome.failed == 0, module.__name__
        assert outcome.attempted > 0, module.__name__
