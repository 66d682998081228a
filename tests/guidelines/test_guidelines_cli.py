"""``clinrag guidelines ingest`` into a library node, then ``clinrag index build`` and ``clinrag ask --node`` on it
(issue 20): answers quote a guideline's lines — prose and table rows — labelled by publisher, title, date and URL,
with the guideline in ``--json``; a node without an allow-list, a missing folder and bad documents are said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app

from .documents import guideline_folder

runner = CliRunner()
AF = (
    "Example Cardiology Society, Atrial fibrillation: anticoagulation, 2024-03-15, "
    "https://guidelines.example.org/af-anticoagulation"
)
HYPERTENSION = (
    "Example Health Agency, Hypertension in adults, 2023-11-02, https://www.example.org/guidance/hypertension"
)
CKD = "Example Kidney Foundation, Chronic kidney disease: monitoring, 2022-06-30, https://kidney.example.org/ckd-monitoring"


def _ask(library: Path, question: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--node", str(library), "--json"])
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.output)
    assert not answer["abstained"], answer["text"]
    return answer


@pytest.mark.parametrize(
    ("question", "label", "line"),
    [
        (
            "What is the usual dose of edoxaban?",
            AF,
            "2. Choosing an anticoagulant: Drug | Usual dose | Reduced dose — Edoxaban | 60 mg once daily",
        ),
        (
            "When should ambulatory blood pressure monitoring be offered?",
            HYPERTENSION,
            "Diagnosis: Offer ambulatory blood pressure monitoring to confirm hypertension",
        ),
        (
            "When should adults with chronic kidney disease be referred to a kidney specialist?",
            CKD,
            "3. Referral: Refer adults with an eGFR below 30 ml/min/1.73 m2 to a kidney specialist.",
        ),
    ],
    ids=["html-table", "markdown", "pdf"],
)
def test_ask_answers_from_a_guideline_with_its_citation_label(
    library: Path, question: str, label: str, line: str
) -> None:
    answer = _ask(library, question)
    assert f"{label}: {line}" in str(answer["text"])
    cited = [source["chunk"] for source in answer["sources"] if source["number"] in answer["cited"]]
    assert any(chunk["guideline"]["publisher"] + ", " in label for chunk in cited)
    for chunk in cited:
        assert chunk["source_kind"] == "guideline"
        assert set(chunk["guideline"]) == {"title", "publisher", "url", "date", "licence"}


def test_ask_says_where_a_guideline_line_comes_from(library: Path) -> None:
    result = runner.invoke(app, ["ask", "What is the usual dose of edoxaban?", "--node", str(library)])
    assert result.exit_code == 0, result.output
    assert "[1]" in result.output
    assert "https://guidelines.example.org/af-anticoagulation" in result.output


def test_a_node_without_an_allow_list_is_refused(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    result = runner.invoke(app, ["guidelines", "ingest", str(folder), "--node", str(tmp_path / "node")])
    assert result.exit_code == 2
    assert "no publisher allow-list" in result.output
    assert not (tmp_path / "node" / "chunks.sqlite").exists()
    missing = runner.invoke(app, ["guidelines", "ingest", str(tmp_path / "nothing"), "--node", str(tmp_path / "n")])
    assert missing.exit_code == 2
    assert "no such folder" in missing.output


def test_bad_documents_are_reported_and_the_rest_ingested(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    (folder / "cardiology" / "af-anticoagulation.toml").write_text('title = "AF"\n')
    result = runner.invoke(
        app, ["guidelines", "ingest", str(folder), "--node", str(tmp_path / "node"), "--allow", "Example Health Agency"]
    )
    assert result.exit_code == 0, result.output
    assert "3 document(s): 1 new, 0 replaced, 0 unchanged, 0 removed, 1 not allowed, 1 skipped" in result.output
    assert "af-anticoagulation.toml: field 'publisher': missing" in result.output
    assert "publisher 'Example Kidney Foundation' is not on the library's allow-list" in result.output
