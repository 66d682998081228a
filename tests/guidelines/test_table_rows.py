"""A guideline's table rows quoted with their table's header row (issue 20): "Edoxaban | 60 mg once daily | 30 mg
once daily" alone does not say which column is the usual dose; and a header row is never quoted alone, though its
column names may hold the question's words ("Monitoring per year")."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.generate.extractive import extract_answer, table_header
from clinrag.retrieve.query import understand
from clinrag.types import Chunk, Guideline, Source, SourceKind

runner = CliRunner()
KIDNEY = Guideline(
    title="Chronic kidney disease: monitoring",
    publisher="Example Kidney Foundation",
    url="https://kidney.example.org/ckd-monitoring",
    date=date(2022, 6, 30),
    licence="CC BY-NC 4.0",
)
HEADER = "GFR category | eGFR (ml/min/1.73 m2) | Monitoring per year"
TABLE = "\n".join(
    (
        "Monitor the estimated glomerular filtration rate at least as often as the table below says.",
        HEADER,
        "G3a | 45 to 59 | 1 to 2 times",
        "G3b | 30 to 44 | 2 times",
        "G4 | 15 to 29 | 3 times",
    )
)


def _source(text: str, guideline: Guideline | None = KIDNEY, number: int = 1) -> Source:
    chunk = Chunk.create(
        source_id=f"guideline:ckd-{number}",
        org="LIB",
        dept="guidelines",
        note_id="kidney/ckd-monitoring.pdf",
        section="2. Frequency of monitoring",
        text=text,
        guideline=guideline,
        source_kind=SourceKind.GUIDELINE if guideline is not None else SourceKind.NOTE,
    )
    return Source(number=number, chunk=chunk, score=1.0)


def _quoted(answer: str) -> list[str]:
    """The quoted lines, without the guideline's label, the section and the citation."""
    label = f"{KIDNEY.short}: 2. Frequency of monitoring: "
    return [line.removeprefix(label).rsplit(" [", 1)[0] for line in answer.splitlines()]


def test_a_table_row_is_quoted_under_its_header() -> None:
    answer = extract_answer(understand("How often should eGFR be monitored in G3b CKD?"), [_source(TABLE)])
    assert f"{HEADER} — G3b | 30 to 44 | 2 times" in _quoted(answer)
    assert HEADER not in _quoted(answer)  # the header row is never a line of its own


def test_a_header_row_is_never_quoted_alone() -> None:
    # "monitoring" is in the header row only: no row of this table answers, so nothing of it is quoted
    answer = extract_answer(understand("When is home blood pressure monitoring offered?"), [_source(TABLE)])
    assert answer == ""


def test_only_a_guidelines_rows_take_a_header() -> None:
    note = _source(TABLE, guideline=None)  # a note's "|" lines are the note's own, quoted as written
    answer = extract_answer(understand("How often should eGFR be monitored in G3b CKD?"), [note])
    assert answer.splitlines() == [
        f"LIB: 2. Frequency of monitoring: {HEADER} [1]",
        "LIB: 2. Frequency of monitoring: G3b | 30 to 44 | 2 times [1]",
    ]
    assert table_header(TABLE) == HEADER
    assert table_header("No table here.") is None


def test_ask_quotes_the_dose_row_under_the_header(library: Path) -> None:
    result = runner.invoke(app, ["ask", "What is the usual dose of edoxaban?", "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    text = str(json.loads(result.output)["text"])
    assert "Drug | Usual dose | Reduced dose — Edoxaban | 60 mg once daily | 30 mg once daily [1]" in text
