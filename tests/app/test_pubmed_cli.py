"""``clinrag pubmed ingest`` into a library node, then ``clinrag index build`` and ``clinrag ask --node`` on it
(issue 20): answers quote what the studies found (RESULTS, CONCLUSIONS), labelled and cited by first author,
journal, year and PMID, with the citation in ``--json``; bad input is a clear message with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline

runner = CliRunner()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library node of 80 synthetic citations, ingested and indexed through the CLI."""
    folder = tmp_path_factory.mktemp("library")
    write_medline(folder / "base.xml.gz", synthetic_records(80, seed=9))
    ingested = runner.invoke(app, ["pubmed", "ingest", str(folder / "base.xml.gz"), "--node", str(folder / "node")])
    assert ingested.exit_code == 0, ingested.output
    assert "80 new" in ingested.output
    again = runner.invoke(app, ["pubmed", "ingest", str(folder / "base.xml.gz"), "--node", str(folder / "node")])
    assert "0 new, 0 revised, 80 unchanged" in again.output
    built = runner.invoke(app, ["index", "build", str(folder / "node")])
    assert built.exit_code == 0, built.output
    return folder / "node"


def test_ask_quotes_findings_cited_by_their_citation(library: Path) -> None:
    topic = synthetic_records(80, seed=9)[0]
    treatment = topic.keywords[1]
    result = runner.invoke(
        app, ["ask", f"Did {treatment} lower {topic.keywords[2]}?", "--node", str(library), "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert not answer["abstained"], answer["text"]
    assert "PMID " in answer["text"]
    assert "BACKGROUND:" not in answer["text"]  # the question a study asked is not its finding
    assert any(label in answer["text"] for label in ("RESULTS:", "CONCLUSIONS:"))
    cited = [s["chunk"] for s in answer["sources"] if s["number"] in answer["cited"]]
    assert cited
    assert all(chunk["citation"]["pmid"] and chunk["citation"]["title"] for chunk in cited)


def test_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["pubmed", "ingest", str(tmp_path / "nothing.xml"), "--node", str(tmp_path / "n")])
    assert missing.exit_code == 2
    assert "no such file" in missing.output
    write_medline(tmp_path / "x.xml", synthetic_records(1))
    mode = runner.invoke(app, ["pubmed", "ingest", str(tmp_path / "x.xml"), "--node", str(tmp_path), "--chunks", "x"])
    assert mode.exit_code == 2
    assert "abstract or paragraphs" in mode.output


def test_filters_from_the_question_are_applied_or_said(library: Path) -> None:
    rct = next(
        r for r in synthetic_records(80, seed=9) if "Randomized Controlled Trial" in r.publication_types and r.authors
    )
    surname = rct.authors[0].last or rct.authors[0].collective.split()[-1]
    topic = rct.keywords[1]
    question = f"What did randomised trials of {topic} by {surname} et al. find?"
    result = runner.invoke(app, ["ask", question, "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert f"filter by author {surname}: applied" in answer["filter_notes"]
    assert "filter by publication type randomized controlled trial: applied" in answer["filter_notes"]
    for source in answer["sources"]:
        citation = source["chunk"]["citation"]
        assert "Randomized Controlled Trial" in citation["publication_types"]
        assert any(author.startswith(f"{surname} ") for author in citation["authors"])
    dropped = runner.invoke(app, ["ask", f"What did Zzyzx et al. find about {topic}?", "--node", str(library)])
    assert dropped.exit_code == 0, dropped.output
    assert "filter by author Zzyzx: no citation in this library, not applied" in dropped.output


def test_a_misspelt_question_is_read_as_the_librarys_words_and_says_so(library: Path) -> None:
    record = synthetic_records(80, seed=9)[0]
    treatment = record.keywords[1]
    misspelt = treatment[:-2] + treatment[-1] if len(treatment) >= 6 else treatment  # one letter dropped
    result = runner.invoke(
        app, ["ask", f"Did {misspelt} lower {record.keywords[2]}?", "--node", str(library), "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    if misspelt != treatment:
        assert f"spelling: '{misspelt}' read as '{treatment}'" in answer["filter_notes"]
        whole = f'spelling: question read as "Did {treatment} lower {record.keywords[2]}?"'
        assert answer["filter_notes"][: answer["filter_notes"].index(whole)] == [
            f"spelling: '{misspelt}' read as '{treatment}'"
        ]  # the whole question said once, after the words read otherwise
    assert not answer["abstained"], answer["text"]


def test_a_year_or_journal_the_library_lacks_is_dropped_and_said(library: Path) -> None:
    """'since 2035' (no citation in the library is that recent) and a journal it does not hold are said and not
    applied: the question is answered from the library as if they were not written, not with a bare abstention."""
    topic = synthetic_records(80, seed=9)[0]
    question = f"Did {topic.keywords[1]} lower {topic.keywords[2]} in studies since 2035 published in Nature Medicine?"
    result = runner.invoke(app, ["ask", question, "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert "filter by year since 2035: no citation in this library, not applied" in answer["filter_notes"]
    assert "filter by journal Nature Medicine: no citation in this library, not applied" in answer["filter_notes"]
    assert not answer["abstained"], answer["text"]
    assert answer["sources"]
    held = runner.invoke(
        app, ["ask", f"Did {topic.keywords[1]} lower {topic.keywords[2]} since 2010?", "--node", str(library)]
    )
    assert held.exit_code == 0, held.output
    assert "filter by year since 2010: applied" in held.output


@pytest.mark.parametrize("question", ["What is the capital of France?", "Who won the football world cup in 2014?"])
def test_an_out_of_domain_question_is_declined(library: Path, question: str) -> None:
    result = runner.invoke(app, ["ask", question, "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["abstained"], answer["text"]
    assert answer["text"].startswith("Not enough information")
    assert answer["cited"] == []
    assert "PMID" not in answer["text"]
